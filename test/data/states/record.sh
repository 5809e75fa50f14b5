#!/usr/bin/env bash
# Records the state files in this folder with a real Terraform (1.11.4): for each configuration under configs/
# it runs init and apply in a scratch copy and keeps the resulting terraform.tfstate as <name>.tfstate.
# The taint case is tainted afterwards, so the file has a tainted instance; a configuration with push.json has that
# state pushed (Terraform rewrites it in its own order and layout), which covers deposed objects and sorting. Run from anywhere:
#   bash test/data/states/record.sh
# The statefile round-trip tests (test/states/statefile.test.ts) read these files byte for byte.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
: > "$tmp/empty.tfrc"
export TF_CLI_CONFIG_FILE="$tmp/empty.tfrc" CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1
for dir in "$here"/configs/*/; do
  name="$(basename "$dir")"
  work="$tmp/$name"
  cp -r "$dir" "$work"
  (
    cd "$work"
    terraform init -input=false -no-color >/dev/null
    terraform apply -input=false -auto-approve -no-color >/dev/null
    if [ "$name" = taint ]; then terraform taint -no-color 'terraform_data.t[1]' >/dev/null; fi
    # push.json (hand-written, deliberately unsorted, with deposed objects) is pushed and so rewritten by Terraform.
    if [ -f push.json ]; then terraform state push -force push.json >/dev/null; fi
  )
  cp "$work/terraform.tfstate" "$here/$name.tfstate"
  if [ -f "$work/terraform.tfstate.backup" ]; then cp "$work/terraform.tfstate.backup" "$here/$name.tfstate.backup"; fi
done
echo "recorded: $(cd "$here" && ls ./*.tfstate | tr '\n' ' ')"

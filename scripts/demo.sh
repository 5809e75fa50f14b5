#!/usr/bin/env bash
# `npm run demo`: builds Foresight and runs its main job on the example workspace (examples/), as a new user
# would: validate and format-check the configuration, evaluate expressions in the console against it, then
# init, plan and apply a copy of it (local state, built-in providers, nothing downloaded) and show the result.
# Then it installs the extension into a local VS Code (code-server in .vscode-test/), opens a fresh copy of
# the example workspace and prints the 127.0.0.1 URL, serving until Ctrl-C (scripts/vscode-e2e/demo-serve.mjs).
# `npm run demo -- --no-serve` (or FORESIGHT_DEMO_NO_SERVE=1) stops after the command-line part.
set -euo pipefail
cd "$(dirname "$0")/.."
serve=1
if [ "${1:-}" = "--no-serve" ] || [ -n "${FORESIGHT_DEMO_NO_SERVE:-}" ]; then serve=0; fi
npm run --silent build
root=$(pwd)
cli() { node "$root/dist/cli.js" "$@"; }
run() { echo; echo "\$ foresight $*"; cli "$@"; }

run -chdir=examples validate
run -chdir=examples fmt -check -recursive && echo "(all files canonical)"

exprs=(
  'local.prefix'
  'var.environment'
  'cidrsubnets("10.0.0.0/16", 8, 8, 4)'
  '{ for k, v in { a = 1, b = 2 } : upper(k) => v * 10 }'
  'formatdate("YYYY-MM-DD", "2026-11-23T10:00:00Z")'
  'jsonencode({ name = "web", ports = [80, 443] })'
  '1/3'
)
for e in "${exprs[@]}"; do
  echo; echo "\$ echo '$e' | foresight -chdir=examples console"
  echo "$e" | cli -chdir=examples console
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r examples/. "$work"
cd "$work"
echo; echo "# a copy of examples/ in $work"
run init -input=false
run plan -input=false -out=tfplan
run apply -input=false tfplan
run output
run state list
run plan -input=false -detailed-exitcode && echo "(no changes: exit 0)"

cd "$root"
if [ "$serve" = 1 ]; then
  echo; echo "# the extension in VS Code"
  node scripts/vscode-e2e/demo-serve.mjs
fi

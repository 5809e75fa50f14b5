#!/usr/bin/env bash
# `npm run demo`: builds Foresight and runs its main job on the example workspace (examples/):
# validate the configuration, then evaluate a few expressions in the console against it.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run --silent build
cli() { node dist/cli.js "$@"; }
echo "\$ foresight -chdir=examples validate"
cli -chdir=examples validate || true
echo
echo "\$ foresight -chdir=examples fmt -check -recursive"
cli -chdir=examples fmt -check -recursive && echo "(all files canonical)" || true
echo
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
  echo "\$ echo '$e' | foresight -chdir=examples console"
  echo "$e" | cli -chdir=examples console || true
done

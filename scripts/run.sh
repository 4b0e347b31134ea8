#!/usr/bin/env bash
# What `make run` runs until the pipeline demo exists: validate every example payload under
# Config/examples/<push-type>/ against the APNs rules, then sign a provider token with the dev key.
set -euo pipefail
pushline=${1:-.build/release/pushline}
cd "$(dirname "$0")/.."

echo "== Example payloads (Config/examples/<push-type>/*.json)"
failed=0
for file in Config/examples/*/*.json; do
  push_type=$(basename "$(dirname "$file")")
  printf '%-48s ' "$file"
  if ! "$pushline" validate payload "$file" --push-type "$push_type"; then
    failed=1
  fi
done

echo
echo "== Provider token signed with the dev key (Config/dev/, not a secret)"
"$pushline" jwt --key Config/dev/dev-provider-key.p8 --key-id DEVKEY0001 --team-id DEVTEAM001
exit $failed

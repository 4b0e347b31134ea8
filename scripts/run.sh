#!/usr/bin/env bash
# What `make run` runs: validate every example payload under Config/examples/<push-type>/ against
# the APNs rules, then `pushline-dev demo`, the pipeline end to end on local components (docs/demo.md).
set -euo pipefail
bin=${1:-.build/release}
cd "$(dirname "$0")/.."

echo "== Example payloads (Config/examples/<push-type>/*.json)"
failed=0
for file in Config/examples/*/*.json; do
  push_type=$(basename "$(dirname "$file")")
  printf '%-48s ' "$file"
  if ! "$bin/pushline" validate payload "$file" --push-type "$push_type"; then
    failed=1
  fi
done

echo
echo "== pushline-dev demo: Pipelines/examples/*.json through mock Kafka, redis-server, a worker and apns-sim"
"$bin/pushline-dev" demo || failed=1
exit $failed

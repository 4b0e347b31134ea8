#!/usr/bin/env bash
# Benchmark of the whole pipeline (`pushline-dev bench e2e`, release build): intents pre-loaded on the
# mock Kafka cluster → `pushline run` with Redis dedupe → the release apns-sim on TLS, and h2load's
# raw rate against the same apns-sim in the same run. Prints sustained deliveries/s, p50/p99
# latency at half that load, peak RSS, the ratio to h2load and the load average.
# Usage: scripts/bench-e2e.sh [pushline-dev bench e2e flags, e.g. --intents 200000 --tokens 1]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build -c release --product pushline >&2
swift build -c release --product apns-sim >&2
exec .build/release/pushline-dev bench e2e "$@"

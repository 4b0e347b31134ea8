#!/usr/bin/env bash
# The fault matrix of issue 14 (`pushline-dev bench faults`, release build): each row injects one fault
# into real local components (pushline-dev dev-kafka, redis-server, apns-sim, pushline run, each a process)
# while intents flow, and prints intents, outcomes, intents without an outcome, devices notified twice,
# dead letters, `failed` outcomes, worker exits, time to recover, and whether the row met its goals.
# Figures and what each row does: docs/RELIABILITY.md.
# Usage: scripts/faults.sh [pushline-dev bench faults flags, e.g. --rows apns-503,poison --intents 20000 --short]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build -c release --product pushline >&2
swift build -c release --product apns-sim >&2
exec .build/release/pushline-dev bench faults "$@"

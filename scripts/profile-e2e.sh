#!/usr/bin/env bash
# Where the worker's CPU goes under the whole pipeline's sustained load: runs `pushline-dev bench e2e`,
# records `pushline run` with `perf record -g` for a few seconds once its outcomes flow, and prints
# scripts/profile-summary.py's tables (by thread and stage, library, the runtime's costs, the
# heaviest functions), in µs per delivery from the run's own "CPU per outcome" figure. Run it alone
# on the machine, in the foreground, like every benchmark.
# Usage: scripts/profile-e2e.sh [PREFIX] [--workload tokens|mixed] [--seconds N] [--keep FILE]
#   PREFIX:     where bin/pushline-dev, bin/pushline and bin/apns-sim are: an install prefix
#               (scripts/install.sh) or .build/release (default; `swift build -c release` first).
#   --workload: the bench's workload (default tokens).
#   --seconds:  how long perf records (default 6).
#   --keep:     also writes perf's samples (`perf script`) to FILE, for a closer look.
set -euo pipefail
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
prefix=.build/release workload=tokens seconds=6 keep=
while [[ $# -gt 0 ]]; do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --workload) workload=${2:?--workload needs a value}; shift 2 ;;
    --seconds) seconds=${2:?--seconds needs a value}; shift 2 ;;
    --keep) keep=${2:?--keep needs a file}; shift 2 ;;
    -*) echo "profile-e2e: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) prefix=$1; shift ;;
  esac
done
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "profile-e2e: --seconds: a whole number of seconds ≥ 1, got '$seconds'" >&2; exit 2; }
bench=$prefix/pushline-dev
[[ -x $bench ]] || bench=$prefix/bin/pushline-dev
[[ -x $bench ]] || { echo "profile-e2e: no pushline-dev in $prefix or $prefix/bin (build or install one first)" >&2; exit 2; }
if ! command -v perf > /dev/null; then
  echo "profile-e2e: installing linux-perf (Debian's perf)" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq linux-perf > /dev/null
fi
summary=$(dirname "$0")/profile-summary.py
work=$(mktemp -d)
log=$work/bench.log
trap 'kill "$bench_pid" 2> /dev/null || true; rm -rf "$work"' EXIT

# Enough intents that the bench still drains them when perf stops; few h2load requests, a short half
# load: the profile is of the sustained phase, and the rest only adds time.
"$bench" bench e2e --workloads "$workload" --intents 400000 --h2load-requests 20000 --half-load-seconds 1 > "$log" 2>&1 &
bench_pid=$!
echo "profile-e2e: waiting for the sustained phase (bench e2e, $workload)" >&2
until grep -q "sustained: [1-9]" "$log"; do
  kill -0 "$bench_pid" 2> /dev/null || { cat "$log" >&2; echo "profile-e2e: the bench ended before its sustained phase" >&2; exit 1; }
  sleep 0.2
done
worker=$(pgrep -P "$bench_pid" -f "pushline run" | head -n 1 || true)
[[ -n $worker ]] || { echo "profile-e2e: no 'pushline run' under the bench (pid $bench_pid)" >&2; exit 1; }
echo "profile-e2e: recording pushline run (pid $worker) for $seconds s" >&2
perf record -F 1999 -g -p "$worker" -o "$work/perf.data" -- sleep "$seconds" > /dev/null 2>&1
echo "profile-e2e: letting the bench finish" >&2
wait "$bench_pid" || { cat "$log" >&2; echo "profile-e2e: the bench failed" >&2; exit 1; }
grep -E "^\[$workload\] (sustained|CPU per outcome)" "$log"
per_delivery=$(sed -nE "s/^\[$workload\] CPU per outcome.*pushline run 1 ([0-9.]+) µs.*/\1/p" "$log" | head -n 1)
perf script -i "$work/perf.data" 2> /dev/null > "$work/samples.txt"
[[ -z $keep ]] || cp "$work/samples.txt" "$keep"
python3 "$summary" ${per_delivery:+--us-per-delivery "$per_delivery"} < "$work/samples.txt"

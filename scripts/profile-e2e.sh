#!/usr/bin/env bash
# Where the worker's CPU goes under `pushline-dev bench e2e`'s sustained load: runs the bench,
# records `pushline run` with `perf record -g` for a few seconds once its outcomes flow, and prints
# scripts/profile-summary.py's tables (by thread and stage, library, the runtime's costs, the
# heaviest functions), in µs per delivery from the run's own "CPU per outcome" figure. Run it alone
# on the machine, in the foreground, like every benchmark. Needs perf (Debian: linux-perf).
# Usage: scripts/profile-e2e.sh [PREFIX] [--workload W] [--seconds N] [--keep FILE]
#   PREFIX:     where bin/pushline-dev, bin/pushline and bin/apns-sim are: an install prefix
#               (scripts/install.sh) or .build/release (default; `swift build -c release` first).
#   --workload: one of the bench's workloads: tokens (default), users, mixed, sealed, unsealed.
#   --seconds:  how long perf records (default 6). The bench's 400,000 intents (under what its mock
#               broker keeps on 4 partitions) last about 8 s at 50,000 deliveries/s; the script fails
#               when the sustained phase ends before perf stops.
#   --keep:     also writes perf's samples (`perf script`) to FILE, for a closer look.
set -euo pipefail
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
fail() { echo "profile-e2e: $*" >&2; exit 1; }
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
[[ $workload =~ ^(tokens|users|mixed|sealed|unsealed)$ ]] \
  || { echo "profile-e2e: --workload: one of tokens, users, mixed, sealed, unsealed; got '$workload'" >&2; exit 2; }
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "profile-e2e: --seconds: a whole number of seconds ≥ 1, got '$seconds'" >&2; exit 2; }
bench=$prefix/pushline-dev
[[ -x $bench ]] || bench=$prefix/bin/pushline-dev
[[ -x $bench ]] || { echo "profile-e2e: no pushline-dev in $prefix or $prefix/bin (build or install one first)" >&2; exit 2; }
command -v perf > /dev/null || { echo "profile-e2e: perf is not installed (Debian: apt-get install linux-perf)" >&2; exit 2; }
summary=$(dirname "$0")/profile-summary.py
work=$(mktemp -d)
log=$work/bench.log
bench_pid=
# The bench leads a process group of its own, with the servers it starts: stopping the group stops
# them too when this script ends early.
trap '[[ -z $bench_pid ]] || kill -- -"$bench_pid" 2> /dev/null || true; rm -rf "$work"' EXIT

# Few h2load requests and a short half load: they only add time to the run.
intents=400000
: > "$log"
setsid "$bench" bench e2e --workloads "$workload" --intents "$intents" --h2load-requests 20000 --half-load-seconds 1 > "$log" 2>&1 &
bench_pid=$!
echo "profile-e2e: waiting for the sustained phase (bench e2e, $workload, $intents intents)" >&2
for (( waited = 0; ; waited++ )); do
  grep -q "sustained: [1-9]" "$log" && break
  kill -0 "$bench_pid" 2> /dev/null || { cat "$log" >&2; fail "the bench ended before its sustained phase"; }
  (( waited < 1500 )) || { cat "$log" >&2; fail "no outcome within 300 s of the bench's start (its output above)"; }
  sleep 0.2
done
worker=$(pgrep -P "$bench_pid" -f "pushline run" | head -n 1 || true)
[[ -n $worker ]] || fail "no 'pushline run' under the bench (pid $bench_pid)"
echo "profile-e2e: recording pushline run (pid $worker) for $seconds s" >&2
perf record -F 1999 -g -p "$worker" -o "$work/perf.data" -- sleep "$seconds" > /dev/null 2> "$work/perf.err" \
  || { cat "$work/perf.err" >&2; fail "perf record failed (above)"; }
! grep -q "^bench e2e: $workload: sustained: [0-9]* outcomes/s" "$log" \
  || fail "the sustained phase ended before perf stopped: the profile would hold the half load; give fewer --seconds"
echo "profile-e2e: letting the bench finish" >&2
wait "$bench_pid" || { cat "$log" >&2; fail "the bench failed"; }
bench_pid=
grep -E "^\[$workload\] (sustained|CPU per outcome)" "$log"
per_delivery=$(sed -nE "s/^\[$workload\] CPU per outcome.*pushline run 1 ([0-9.]+) µs.*/\1/p" "$log" | head -n 1)
[[ -n $per_delivery ]] || fail "the bench printed no '[$workload] CPU per outcome … pushline run 1 X µs' line to take µs per delivery from"
perf script -i "$work/perf.data" 2> /dev/null > "$work/samples.txt"
[[ -z $keep ]] || cp "$work/samples.txt" "$keep"
python3 "$summary" --us-per-delivery "$per_delivery" < "$work/samples.txt"

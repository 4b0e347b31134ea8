#!/usr/bin/env bash
# What the worker (or apns-sim) spends per outcome under `pushline-dev bench e2e`, counted rather than
# sampled: runs the bench with `pushline run` (or apns-sim) under Valgrind's callgrind and prints
# scripts/count-summary.py's tables (instructions in all and by library, the runtime's calls —
# reference counting, allocation, copies — and the heaviest functions, per outcome). Functions run
# once per delivery give the same counts run after run; the totals move by 1–2 % with what the
# process does while it waits (timers, polls). So a change too small for scripts/bench-ab.sh's
# series (±5 %) shows in the functions it touches. The counts are not time: callgrind counts no
# instruction of the kernel's, an atomic reference count is one instruction among many, and code
# that picks a path by CPU feature (SHA-1, memcpy) may pick another under Valgrind. The counted
# process runs some sixty times slower, so the run's rates and latencies mean nothing. The worker is
# counted from its start to its end (its start is about 3 % of the instructions at 20,000 intents);
# apns-sim from the end of the bench's h2load run, so only the pipeline's requests. Run it alone on
# the machine, in the foreground, like every benchmark. Needs valgrind and binutils' strip (Debian:
# valgrind, binutils).
# Usage: scripts/count-e2e.sh [PREFIX] [--process P] [--workload W] [--intents N] [--top N] [--keep FILE]
#   PREFIX:     where pushline-dev, pushline and apns-sim are: an install prefix (scripts/install.sh)
#               or .build/release (default; `swift build -c release` first).
#   --process:  the process counted: pushline (the worker, default) or apns-sim.
#   --workload: one of the bench's workloads: tokens (default), users, mixed, sealed, unsealed.
#   --intents:  intents of the run (default 20000: about a minute).
#   --top:      functions listed per table (default 25).
#   --keep:     also copies callgrind's output to FILE, for callgrind_annotate or a closer look.
set -euo pipefail
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
fail() { echo "count-e2e: $*" >&2; exit 1; }
prefix=.build/release process=pushline workload=tokens intents=20000 top=25 keep=
while [[ $# -gt 0 ]]; do
  case $1 in
    -h|--help) usage; exit 0 ;;
    --process) process=${2:?--process needs a value}; shift 2 ;;
    --workload) workload=${2:?--workload needs a value}; shift 2 ;;
    --intents) intents=${2:?--intents needs a value}; shift 2 ;;
    --top) top=${2:?--top needs a value}; shift 2 ;;
    --keep) keep=${2:?--keep needs a file}; shift 2 ;;
    -*) echo "count-e2e: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) prefix=$1; shift ;;
  esac
done
[[ $process =~ ^(pushline|apns-sim)$ ]] || { echo "count-e2e: --process: pushline or apns-sim; got '$process'" >&2; exit 2; }
[[ $workload =~ ^(tokens|users|mixed|sealed|unsealed)$ ]] \
  || { echo "count-e2e: --workload: one of tokens, users, mixed, sealed, unsealed; got '$workload'" >&2; exit 2; }
[[ $intents =~ ^[1-9][0-9]*$ ]] || { echo "count-e2e: --intents: a whole number ≥ 1, got '$intents'" >&2; exit 2; }
[[ $top =~ ^[1-9][0-9]*$ ]] || { echo "count-e2e: --top: a whole number ≥ 1, got '$top'" >&2; exit 2; }
bin=$prefix
[[ -x $bin/pushline-dev ]] || bin=$prefix/bin
for executable in pushline-dev pushline apns-sim; do
  [[ -x $bin/$executable ]] || { echo "count-e2e: no $executable in $prefix or $prefix/bin (build or install one first)" >&2; exit 2; }
done
for tool in valgrind callgrind_control strip; do
  command -v "$tool" > /dev/null || { echo "count-e2e: $tool is not installed (Debian: apt-get install valgrind binutils)" >&2; exit 2; }
done
repository=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
bench_pid=
# The bench leads a process group of its own, with the servers it starts: stopping the group stops
# them too when this script ends early.
trap '[[ -z $bench_pid ]] || kill -- -"$bench_pid" 2> /dev/null || true; rm -rf "$work"' EXIT

# The bench starts the `pushline` and `apns-sim` beside it and reads the shared files from
# ../share/pushline: a prefix of its own whose counted executable runs under callgrind. Valgrind
# cannot read the debug information the static Swift runtime brings (a release build's), so the
# counted copy has none.
mkdir -p "$work/bin" "$work/share"
for executable in pushline-dev pushline apns-sim; do
  [[ $executable == "$process" ]] || cp "$bin/$executable" "$work/bin/"
done
strip --strip-debug -o "$work/bin/$process-counted" "$bin/$process"
if [[ -d $bin/../share/pushline/Config ]]; then shared=$(cd "$bin/../share/pushline" && pwd); else shared=$repository; fi
ln -s "$shared" "$work/share/pushline"
# The worker is counted in `pushline run` only (the bench asks it nothing else today); apns-sim whenever it serves.
counted=$work/bin/$process-counted
{
  echo '#!/usr/bin/env bash'
  [[ $process == apns-sim ]] || echo "[[ \${1:-} == run ]] || exec '$counted' \"\$@\""
  echo "exec valgrind --tool=callgrind --separate-threads=no --callgrind-out-file='$work/callgrind.out' '$counted' \"\$@\""
} > "$work/bin/$process"
chmod +x "$work/bin/$process"

echo "count-e2e: bench e2e, $workload, $intents intents, $process under callgrind (about a minute per 20,000 intents)" >&2
log=$work/bench.log
progress=$work/progress.log
setsid "$work/bin/pushline-dev" bench e2e --workloads "$workload" --intents "$intents" --h2load-requests 2000 --half-load-seconds 1 \
  > "$log" 2> >(tee "$progress" >&2) &
bench_pid=$!
if [[ $process == apns-sim ]]; then
  # apns-sim answers h2load's requests first: its counts start over once they are answered.
  until grep -qsE "^bench e2e: h2load → .*: [0-9]+ req/s$" "$progress"; do
    kill -0 "$bench_pid" 2> /dev/null || { cat "$progress" "$log" >&2; fail "the bench ended before its h2load run did (its output above)"; }
    sleep 0.2
  done
  callgrind_control --zero "$counted" > /dev/null || fail "callgrind_control could not zero apns-sim's counts"
  # The pipeline's requests must all come after: none may have been answered yet.
  ! grep -qE "sustained: [1-9]" "$progress" \
    || fail "apns-sim's counts were zeroed after the pipeline's first outcomes (the bench ran ahead); give more --intents"
fi
wait "$bench_pid" || { bench_pid=; cat "$progress" "$log" >&2; fail "the bench failed (its output above)"; }
bench_pid=
[[ -s $work/callgrind.out ]] || fail "callgrind wrote no output (the bench ran no $process?)"
# Every outcome of the run: the sustained phase's, by status, and the half load's.
sustained=$(sed -nE "s/^\[$workload\] outcomes: ([^;]*);.*/\1/p" "$log" | { grep -oE '[0-9]+' || true; } | awk '{ sum += $1 } END { print sum }')
half=$(sed -nE "s/^\[$workload\] half load: .*\(([0-9]+) outcomes\)$/\1/p" "$log")
[[ -n $sustained && -n $half ]] || { cat "$log" >&2; fail "the bench printed no '[$workload] outcomes: …' or '[$workload] half load: … (N outcomes)' line"; }
[[ -z $keep ]] || cp "$work/callgrind.out" "$keep"
python3 "$(dirname "$0")/count-summary.py" --outcomes $((sustained + half)) --top "$top" "$work/callgrind.out"

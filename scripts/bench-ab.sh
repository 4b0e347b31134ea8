#!/usr/bin/env bash
# Two builds of the whole pipeline compared in alternating runs of `pushline-dev bench e2e`, so that
# each pair of runs sees the same machine: per run, the worker's CPU per delivery over apns-sim's
# CPU per request in that run (the figure issue 15's goal names, and the one least moved by how fast
# the machine is at the moment), the rate's ratio to h2load and the p99 read back at half load; then
# each build's medians and their ratio. A change of a few per cent needs many pairs: on a 2-core
# virtual machine the runs spread by about ±4 %. The order within a pair alternates (before first in
# odd pairs, after first in even ones), so neither build always runs second (one series with the
# builds swapped favoured the one run second by 1.6 %, an A/A series neither: BENCHMARKS.md).
# Usage: scripts/bench-ab.sh BEFORE AFTER [PAIRS] [-- pushline-dev bench e2e flags]
#   BEFORE, AFTER: install prefixes with bin/pushline-dev, bin/pushline and bin/apns-sim, made by
#                  `swift build -c release && bash scripts/install.sh .build/release DIR` at each commit.
#   PAIRS:         alternated pairs of runs (default 6).
#   flags:         default --workloads tokens --intents 200000 --h2load-requests 100000 --half-load-seconds 3
set -euo pipefail
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
if [[ ${1:-} == --help || ${1:-} == -h ]]; then usage; exit 0; fi
if [[ $# -lt 2 ]]; then usage >&2; exit 2; fi
before=$1 after=$2; shift 2
pairs=6
if [[ $# -gt 0 && $1 != -- ]]; then pairs=$1; shift; fi
[[ ${1:-} == -- ]] && shift
flags=("$@")
[[ ${#flags[@]} -eq 0 ]] && flags=(--workloads tokens --intents 200000 --h2load-requests 100000 --half-load-seconds 3)
for dir in "$before" "$after"; do
  [[ -x $dir/bin/pushline-dev ]] || { echo "bench-ab: $dir/bin/pushline-dev: not found (install a build there first)" >&2; exit 2; }
done
results=$(mktemp)
log=$(mktemp)
trap 'rm -f "$results" "$log"' EXIT
for pair in $(seq 1 "$pairs"); do
  order="before after"
  (( pair % 2 == 0 )) && order="after before"
  for label in $order; do
    dir=$before; [[ $label == after ]] && dir=$after
    echo "bench-ab: pair $pair of $pairs, $label ($dir)" >&2
    "$dir/bin/pushline-dev" bench e2e "${flags[@]}" > "$log" 2>&1 || { cat "$log" >&2; echo "bench-ab: the $label run failed" >&2; exit 1; }
    python3 - "$label" "$results" "$log" <<'PY'
import re, sys
label, results = sys.argv[1], sys.argv[2]
log = open(sys.argv[3], encoding="utf-8").read()
runs = re.findall(r"^\[(\w+)\] CPU per outcome.*?pushline run 1 ([\d.]+) µs, (?:apns-sim|nghttpd) ([\d.]+) µs", log, re.M)
if not runs:
    sys.exit("bench-ab: no 'CPU per outcome' line in the run's output")
with open(results, "a") as out:
    for workload, worker, server in runs:
        ratio = re.search(r"^\[%s\] peak RSS.*ratio pipeline / h2load: ([\d.]+)" % workload, log, re.M)
        p99 = re.search(r"^\[%s\]   created_at → read back:.*p99 ([\d.]+) ms" % workload, log, re.M)
        line = (f"{label:6s} {workload:8s} worker {float(worker):5.1f} µs  apns-sim {float(server):4.1f} µs  "
                f"worker/apns-sim {float(worker) / float(server):4.2f}  / h2load {ratio.group(1) if ratio else '?':>4s}  "
                f"p99 {p99.group(1) if p99 else '?'} ms")
        print(line)
        out.write(f"{label} {workload} {float(worker) / float(server)}\n")
PY
  done
done
python3 - "$results" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
for workload in dict.fromkeys(row[1] for row in rows):
    medians = {}
    for label in ("before", "after"):
        values = [float(row[2]) for row in rows if row[0] == label and row[1] == workload]
        medians[label] = statistics.median(values)
        print(f"{workload}: {label} worker/apns-sim median {medians[label]:.2f} (runs {', '.join(f'{v:.2f}' for v in values)})")
    print(f"{workload}: after / before {medians['after'] / medians['before']:.3f}")
PY

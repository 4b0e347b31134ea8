#!/usr/bin/env bash
# Benchmark: h2load against apns-sim and against nghttpd (the neutral reference) in one run, with
# the same connections, streams, request count and payload. Prints each server's rate of answered
# requests, the ratio apns-sim / nghttpd, and each server's CPU time (user + system, from
# /proc/PID/stat over its h2load run) per answered request — steadier than rates on a shared
# machine. Usage: scripts/bench-apns-sim.sh [REQUESTS] [CONNECTIONS] [STREAMS]
# APNS_SIM=<executable> measures another apns-sim build (an older one, for a before/after).
set -euo pipefail
cd "$(dirname "$0")/.."
requests=${1:-200000}
connections=${2:-4}
streams=${3:-100}

bash scripts/setup.sh
swift build -c release --product apns-sim >&2
swift build -c release --product pushline >&2
bin=.build/release

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
payload=Config/examples/alert/new-message.json
token=$(printf 'ab%.0s' $(seq 32))
jwt=$("$bin/pushline" jwt --key Config/dev/dev-provider-key.p8 --key-id DEVKEY0001 --team-id DEVTEAM001)
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" \
  -days 1 -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 2>/dev/null
mkdir -p "$work/htdocs/3/device"
: > "$work/htdocs/3/device/$token"   # nghttpd answers 200 with an empty body, as APNs does

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 200); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.05; done; return 1; }

# CPU time of a process so far, in clock ticks: utime + stime (fields 14 and 15 of /proc/PID/stat,
# counted after the parenthesised command name, which may hold spaces).
cpu_ticks() { python3 -c "f=open('/proc/$1/stat').read().rsplit(')',1)[1].split(); print(int(f[11])+int(f[12]))"; }
ticks_per_second=$(getconf CLK_TCK)

sim_port=$(free_port)
"${APNS_SIM:-$bin/apns-sim}" --port "$sim_port" --management-port 0 --admin-port -1 \
  --certificate "$work/cert.pem" --private-key "$work/key.pem" > "$work/apns-sim.log" &
sim_pid=$!
ng_port=$(free_port)
nghttpd --address=127.0.0.1 --htdocs="$work/htdocs" "$ng_port" "$work/key.pem" "$work/cert.pem" > "$work/nghttpd.log" 2>&1 &
ng_pid=$!
wait_port "$sim_port"; wait_port "$ng_port"

# h2load's summary: "finished in 2.73s, …" and "requests: T total, S started, D done, OK succeeded, …".
# Prints "<answered 2xx per second> <server CPU µs per answered request>".
run() {
  local port=$1 label=$2 pid=$3
  local ticks_before
  ticks_before=$(cpu_ticks "$pid")
  echo "h2load → $label ($requests requests, $connections connections × $streams streams)…" >&2
  h2load -n "$requests" -c "$connections" -m "$streams" -d "$payload" \
    -H "authorization: bearer $jwt" -H "apns-topic: com.example.app" -H "apns-push-type: alert" \
    "https://127.0.0.1:$port/3/device/$token" > "$work/$label.out"
  local ticks=$(( $(cpu_ticks "$pid") - ticks_before ))
  local seconds succeeded
  seconds=$(grep -o 'finished in [0-9.]*m\?s' "$work/$label.out" | python3 -c 'import sys; t=sys.stdin.read().split()[-1]; print(float(t[:-2])/1000 if t.endswith("ms") else float(t[:-1]))')
  succeeded=$(grep -o '[0-9]* succeeded' "$work/$label.out" | grep -o '[0-9]*')
  python3 -c "print(f'{$succeeded / $seconds:.0f} {$ticks * 1e6 / $ticks_per_second / $succeeded:.1f}')"
  echo "$label: $succeeded answered 2xx in ${seconds}s, $ticks CPU ticks" >&2
}
sim=$(run "$sim_port" apns-sim "$sim_pid")
ng=$(run "$ng_port" nghttpd "$ng_pid")
read -r sim_rate sim_cpu <<< "$sim"
read -r ng_rate ng_cpu <<< "$ng"
printf 'apns-sim: %s req/s, %s µs CPU per request\nnghttpd:  %s req/s, %s µs CPU per request\n' \
  "$sim_rate" "$sim_cpu" "$ng_rate" "$ng_cpu"
printf 'ratio apns-sim / nghttpd: %s (rate), %s (CPU per request)\nload average: %s\n' \
  "$(python3 -c "print(f'{$sim_rate / $ng_rate:.2f}')")" "$(python3 -c "print(f'{$sim_cpu / $ng_cpu:.2f}')")" \
  "$(cut -d' ' -f1-3 /proc/loadavg)"

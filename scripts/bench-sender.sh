#!/usr/bin/env bash
# Benchmarks of the APNs sender (`pushline-dev bench sender`), each against a reference in one run:
#   1. raw speed: against nghttpd over TLS, side by side with h2load (same connections, streams,
#      request count and payload); prints both rates and the ratio (goal ≥ 0.8).
#   2. pool efficiency: against apns-sim with 50 ms injected latency and 1000 streams per
#      connection, compared with the capacity model
#      connections × min(streams, flow window ÷ request size) ÷ round trip (goal ≥ 0.9).
# Usage: scripts/bench-sender.sh [REQUESTS=100000] [CONNECTIONS=4]
set -euo pipefail
cd "$(dirname "$0")/.."
requests=${1:-100000}
connections=${2:-4}
streams=100   # nghttpd's SETTINGS_MAX_CONCURRENT_STREAMS

bash scripts/setup.sh
swift build -c release --product pushline >&2
swift build -c release --product apns-sim >&2
bin=.build/release
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
payload=Config/examples/alert/new-message.json
token=$(printf 'ab%.0s' $(seq 32))
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" \
  -days 1 -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 2>/dev/null
mkdir -p "$work/htdocs/3/device" && : > "$work/htdocs/3/device/$token"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 200); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.05; done; return 1; }
rate_of() { grep -o '= [0-9]* req/s' <<<"$1" | grep -o '[0-9]*'; }

echo "== 1. raw speed against nghttpd" >&2
ng_port=$(free_port)
nghttpd --address=127.0.0.1 --htdocs="$work/htdocs" "$ng_port" "$work/key.pem" "$work/cert.pem" > /dev/null 2>&1 &
wait_port "$ng_port"
# h2load carries the same provider token as the sender (signed with the same dev key), so both send
# the fields every APNs request has; only the sender's apns-id, new on each request, has no twin.
jwt=$("$bin/pushline" jwt --key Config/dev/dev-provider-key.p8 --key-id DEVKEY0001 --team-id DEVTEAM001)
# Runs h2load with the given extra flags; prints its report, then "cpu <user> <system>" (seconds).
run_h2load() {
  local TIMEFORMAT='cpu %U %S'
  { time h2load -n "$requests" -c "$connections" -m "$streams" -d "$payload" -H "apns-topic: com.example.app" \
      -H "apns-push-type: alert" "$@" "https://127.0.0.1:$ng_port/3/device/$token" 2>&1; } 2>&1
}
# "finished in 2.73s, …" or "finished in 114.37ms, …"; the rate counts succeeded requests.
summarize_h2load() {
  local seconds ok cpu
  seconds=$(grep -o 'finished in [0-9.]*m\?s' <<<"$1" | python3 -c 'import sys; t=sys.stdin.read().split()[-1]; print(float(t[:-2])/1000 if t.endswith("ms") else float(t[:-1]))')
  ok=$(grep -o '[0-9]* succeeded' <<<"$1" | grep -o '[0-9]*')
  cpu=$(grep '^cpu ' <<<"$1" | python3 -c "import sys; u, s = map(float, sys.stdin.read().split()[1:3]); print(f'{(u + s) * 1e6 / $requests:.2f}')")
  echo "$ok succeeded in $(python3 -c "print(f'{$seconds:.2f}')") s = $(python3 -c "print(round($ok / $seconds))") req/s; CPU $cpu µs per request"
}
h2=$(summarize_h2load "$(run_h2load -H "authorization: bearer $jwt")")
ours=$("$bin/pushline-dev" bench sender --host localhost --port "$ng_port" --ca-file "$work/cert.pem" \
  --requests "$requests" --connections "$connections" --payload "$payload")
# For comparison with figures taken before h2load carried the token.
h2_without_token=$(summarize_h2load "$(run_h2load)")
echo "$ours"
echo "h2load: $h2"
echo "ratio sender / h2load: $(python3 -c "print(f'{$(rate_of "$ours") / $(rate_of "$h2"):.2f}')")"
echo "h2load without the authorization field: $h2_without_token"
kill %1

echo "== 2. pool efficiency against apns-sim (50 ms latency, 1000 streams)" >&2
sim_port=$(free_port)
"$bin/apns-sim" --port "$sim_port" --management-port 0 --admin-port -1 --certificate "$work/cert.pem" \
  --private-key "$work/key.pem" --max-concurrent-streams 1000 --fault latency_ms=50 > /dev/null &
wait_port "$sim_port"
ours=$("$bin/pushline-dev" bench sender --host localhost --port "$sim_port" --ca-file "$work/cert.pem" \
  --requests "$requests" --connections "$connections" --payload "$payload")
echo "$ours"
# Request size on the wire: the payload as DATA plus about 100 bytes of HPACK-compressed headers
# after the first request (the JWT is indexed once per connection).
size=$(( $(stat -c %s "$payload") + 100 ))
model=$(python3 -c "print(round($connections * min(1000, 65535 / $size) / 0.050))")
echo "model: $connections × min(1000, 65535 ÷ $size) ÷ 0.050 s = $model req/s"
echo "efficiency sender / model: $(python3 -c "print(f'{$(rate_of "$ours") / $model:.2f}')")"

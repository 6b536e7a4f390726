#!/usr/bin/env bash
# Two jwtverify binaries' serve, side by side (Benchmarks/serve_compare.sh OLD NEW): serve's own
# CPU time (user + system, from /proc/PID/stat) per /auth request, under wrk on loopback, over
# 2,000 distinct RS256 tokens with --cache 0 (every request verified), runs interleaved
# OLD, NEW, OLD, NEW, ... ROUNDS times (default 3), medians. CPU per request rather than requests
# per second, so that what else the machine does moves the figures less.
set -euo pipefail
cd "$(dirname "$0")/.."
old=$1
new=$2
rounds=${ROUNDS:-3}
duration=${DURATION:-8}
out=$(mktemp -d)
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; rm -rf "$out"; }
trap cleanup EXIT
command -v wrk >/dev/null || { echo "needs wrk (apt-get install wrk)" >&2; exit 69; }
"$new" bench --algorithm RS256 --count 2000 --write-corpus "$out" >/dev/null 2>&1
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cat > "$out/tokens.lua" <<LUA
local tokens = {}
for line in io.lines("$out/tokens.txt") do tokens[#tokens + 1] = line end
local index = 0
request = function()
  index = index % #tokens + 1
  return wrk.format("GET", "/auth", { ["Authorization"] = "Bearer " .. tokens[index] })
end
LUA
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
measure() {  # binary → microseconds of serve CPU per request
  local port
  port=$(free_port)
  "$1" serve --listen "127.0.0.1:$port" --jwks "$out/jwks.json" --issuer https://appleid.apple.com --audience com.example.app \
    --now 1767225600 --threads 2 --cache 0 2>/dev/null &
  pid=$!
  for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null && break; sleep 0.05; done
  wrk -t1 -c64 -d1s -s "$out/tokens.lua" "http://127.0.0.1:$port/auth" >/dev/null  # warm-up
  local before requests after
  before=$(ticks "$pid")
  requests=$(wrk -t1 -c64 -d"${duration}s" -s "$out/tokens.lua" "http://127.0.0.1:$port/auth" | awk '/requests in/ {print $1}')
  after=$(ticks "$pid")
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=""
  python3 -c "import os,sys; hz=os.sysconf('SC_CLK_TCK'); print(f'{($after-$before)/hz/$requests*1e6:.2f}')"
}
olds=()
news=()
for _ in $(seq "$rounds"); do
  olds+=("$(measure "$old")")
  news+=("$(measure "$new")")
done
python3 - "${olds[*]}" "${news[*]}" <<'PY'
import statistics, sys
old = [float(x) for x in sys.argv[1].split()]
new = [float(x) for x in sys.argv[2].split()]
print(f"| serve CPU per distinct /auth (us) | old {old} median {statistics.median(old):.2f} | new {new} median {statistics.median(new):.2f} | new/old {statistics.median(new) / statistics.median(old):.3f} |")
PY

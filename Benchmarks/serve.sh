#!/usr/bin/env bash
# jwtverify serve under wrk on loopback (make bench-serve), each figure beside its yardstick from
# the same run:
#   - one hot token with the verified-token cache on, against nginx's own `return 204` with the
#     same wrk settings;
#   - 2,000 distinct RS256 tokens with --cache 0, against the library's own 2-thread rate
#     (jwtverify bench --threads 2, measured just before and just after).
# wrk shares the machine's cores with the server in both cases, as it does with nginx.
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${DURATION:-10}
connections=${CONNECTIONS:-64}
wrk_threads=${WRK_THREADS:-1}
out=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$out"; }
trap cleanup EXIT
swift build -c release >/dev/null
bench() { .build/release/jwtverify bench --algorithm RS256 "$@"; }
cli=.build/release/jwtverify
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.05; done; return 1; }

bench --count 2000 --write-corpus "$out" 2>/dev/null
now=1767225600
flags=(--jwks "$out/jwks.json" --issuer https://appleid.apple.com --audience com.example.app --now "$now" --threads 2)

# nginx's own answer, the ceiling of an HTTP round trip here.
nginx_port=$(free_port)
mkdir -p "$out/nginx"
cat > "$out/nginx/nginx.conf" <<NGINX
worker_processes 2;
daemon off;
pid $out/nginx/nginx.pid;
error_log $out/nginx/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $out/nginx/body; proxy_temp_path $out/nginx/proxy;
    fastcgi_temp_path $out/nginx/fastcgi; uwsgi_temp_path $out/nginx/uwsgi; scgi_temp_path $out/nginx/scgi;
    server { listen 127.0.0.1:$nginx_port; location / { return 204; } }
}
NGINX
nginx -p "$out/nginx" -c "$out/nginx/nginx.conf" & pids+=($!)
wait_port "$nginx_port"

serve_port=$(free_port)
$cli serve --listen "127.0.0.1:$serve_port" "${flags[@]}" --cache 10000 2>"$out/serve.err" & pids+=($!)
wait_port "$serve_port"
hot=$(head -1 "$out/tokens.txt")

cold_port=$(free_port)
$cli serve --listen "127.0.0.1:$cold_port" "${flags[@]}" --cache 0 2>"$out/cold.err" & pids+=($!)
wait_port "$cold_port"
# The requests are built once, in init, so that wrk spends its share of the cores sending them.
cat > "$out/distinct.lua" <<LUA
local requests = {}
local i = 0
init = function(args)
  for line in io.lines("$out/tokens.txt") do
    requests[#requests + 1] = wrk.format("GET", "/auth", { ["Authorization"] = "Bearer " .. line })
  end
end
request = function()
  i = i + 1
  if i > #requests then i = 1 end
  return requests[i]
end
LUA

run_wrk() { wrk -t"$wrk_threads" -c"$connections" -d"${duration}s" --latency "$@"; }
rate() { awk '/Requests\/sec/ {print $2}'; }
p99() { awk '$1 == "99%" {print $2}'; }
non2xx() { awk '/Non-2xx/ {print $NF} END {}'; }

run_wrk "http://127.0.0.1:$nginx_port/" > "$out/nginx.txt"
run_wrk -H "Authorization: Bearer $hot" "http://127.0.0.1:$serve_port/auth" > "$out/hot.txt"
bench --json --reps 3 --count 2000 --threads 2 > "$out/library.jsonl"
run_wrk -s "$out/distinct.lua" "http://127.0.0.1:$cold_port/auth" > "$out/cold.txt"
bench --json --reps 3 --count 2000 --threads 2 >> "$out/library.jsonl"

curl -s "http://127.0.0.1:$cold_port/metrics" > "$out/metrics.txt"
python3 - "$out" <<'PY'
import json, re, sys
out = sys.argv[1]
def wrk(name):
    text = open(f"{out}/{name}.txt").read()
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    p99 = re.search(r"^\s+99%\s+(\S+)", text, re.M).group(1)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    return rate, p99, int(non2xx.group(1)) if non2xx else 0
nginx, hot, cold = wrk("nginx"), wrk("hot"), wrk("cold")
# The yardstick is the library's 2-thread rate, before and after.
library = [r for r in map(json.loads, open(f"{out}/library.jsonl")) if r["threads"] == 2]
lib = sum(r["tokens_per_sec"] for r in library) / len(library)
valid = sum(int(m.group(1)) for m in re.finditer(r'jwtverify_verifications_total\{route="default",result="valid",reason="none"\} (\d+)', open(f"{out}/metrics.txt").read()))
print("| serve under wrk (loopback, 2 cores shared with wrk) | requests/s | p99 | yardstick | ratio |")
print("| --- | ---: | ---: | ---: | ---: |")
print(f"| nginx `return 204` | {nginx[0]:,.0f} | {nginx[1]} | | |")
print(f"| /auth, one hot token, cache on | {hot[0]:,.0f} | {hot[1]} | nginx {nginx[0]:,.0f}/s | {hot[0] / nginx[0]:.3f} |")
print(f"| /auth, 2,000 distinct RS256 tokens, --cache 0 | {cold[0]:,.0f} | {cold[1]} | library, 2 threads {lib:,.0f}/s | {cold[0] / lib:.3f} |")
print(f"\nnon-2xx answers: hot {hot[2]}, distinct {cold[2]} (must be 0); valid verifications counted by /metrics on the --cache 0 server: {valid:,}")
PY

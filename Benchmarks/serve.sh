#!/usr/bin/env bash
# jwtverify serve under wrk on loopback (make bench-serve), each figure beside its yardstick from
# the same run:
#   - one hot token with the verified-token cache on, against nginx's own `return 204` with the
#     same wrk settings;
#   - 2,000 distinct RS256 tokens with --cache 0, against the library's own 2-thread rate
#     (jwtverify bench --threads 2, measured just before and just after);
#   - serve's own CPU per /auth request on those tokens (its user + system time from
#     /proc/PID/stat, so wrk's share of the cores does not count), with the signature engine and
#     with JWTVERIFY_CRYPTO_MB=off, against the library's CPU per token on one thread without
#     the engine (target: at most 1.3x), and the batch sizes /metrics counted;
#   - a lone request's latency: wrk with one connection, so no request ever has company.
# wrk shares the machine's cores with the server in all cases, as it does with nginx.
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
cold_pid=$!
wait_port "$cold_port"
off_port=$(free_port)
JWTVERIFY_CRYPTO_MB=off $cli serve --listen "127.0.0.1:$off_port" "${flags[@]}" --cache 0 2>"$out/off.err" & pids+=($!)
off_pid=$!
wait_port "$off_port"
# user + system clock ticks of a process so far.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
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
run_wrk -s "$out/distinct.lua" "http://127.0.0.1:$off_port/auth" > "$out/off.txt"
# CPU per request against the library's CPU per token, in rounds that alternate them (this VM's
# rates drift between runs): the library on one thread without the engine (and with it), then each
# server under wrk with its CPU ticks counted, then the library again.
rounds=${ROUNDS:-5}
for round in $(seq "$rounds"); do
  JWTVERIFY_CRYPTO_MB=off bench --json --reps 2 --count 2000 --threads 1 >> "$out/lib-off-$round.jsonl"
  bench --json --reps 2 --count 2000 --threads 1 >> "$out/lib-on-$round.jsonl"
  for server in cold off; do
    pid=$cold_pid port=$cold_port
    [ "$server" = off ] && pid=$off_pid port=$off_port
    before=$(ticks "$pid")
    wrk -t"$wrk_threads" -c"$connections" -d5s -s "$out/distinct.lua" "http://127.0.0.1:$port/auth" > "$out/cpu-$server-$round.txt"
    echo $(( $(ticks "$pid") - before )) > "$out/cpu-$server-$round.ticks"
  done
  JWTVERIFY_CRYPTO_MB=off bench --json --reps 2 --count 2000 --threads 1 >> "$out/lib-off-$round.jsonl"
  bench --json --reps 2 --count 2000 --threads 1 >> "$out/lib-on-$round.jsonl"
done
echo "$rounds" > "$out/rounds"
# Lone requests: one connection, one request at a time.
wrk -t1 -c1 -d5s --latency -s "$out/distinct.lua" "http://127.0.0.1:$cold_port/auth" > "$out/lone.txt"
getconf CLK_TCK > "$out/clk_tck"

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
nginx, hot, cold, off = wrk("nginx"), wrk("hot"), wrk("cold"), wrk("off")
def requests(name):
    return int(re.search(r"(\d+) requests in", open(f"{out}/{name}.txt").read()).group(1))
def seconds(text):
    value, unit = re.match(r"([\d.]+)(us|ms|s)", text).groups()
    return float(value) * {"us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]
# The yardstick is the library's 2-thread rate, before and after.
library = [r for r in map(json.loads, open(f"{out}/library.jsonl")) if r["threads"] == 2]
lib = sum(r["tokens_per_sec"] for r in library) / len(library)
def per_token(name):
    runs = [r for r in map(json.loads, open(f"{out}/{name}.jsonl")) if r["threads"] == 1]
    return 1e6 / (sum(r["tokens_per_sec"] for r in runs) / len(runs))
tick = 1e6 / int(open(f"{out}/clk_tck").read())
def cpu(server, round):
    return int(open(f"{out}/cpu-{server}-{round}.ticks").read()) * tick / requests(f"cpu-{server}-{round}")
rounds = range(1, int(open(f"{out}/rounds").read()) + 1)
per_round = [(cpu("cold", r), cpu("off", r), per_token(f"lib-off-{r}"), per_token(f"lib-on-{r}")) for r in rounds]
median = lambda values: sorted(values)[len(values) // 2]
metrics = open(f"{out}/metrics.txt").read()
valid = sum(int(m.group(1)) for m in re.finditer(r'jwtverify_verifications_total\{route="default",result="valid",reason="none"\} (\d+)', metrics))
batches = int(re.search(r"jwtverify_auth_batch_size_count (\d+)", metrics).group(1))
batched = int(re.search(r"jwtverify_auth_batch_size_sum (\d+)", metrics).group(1))
lone = open(f"{out}/lone.txt").read()
lone_median = re.search(r"^\s+50%\s+(\S+)", lone, re.M).group(1)
print("| serve under wrk (loopback, 2 cores shared with wrk) | requests/s | p99 | yardstick | ratio |")
print("| --- | ---: | ---: | ---: | ---: |")
print(f"| nginx `return 204` | {nginx[0]:,.0f} | {nginx[1]} | | |")
print(f"| /auth, one hot token, cache on | {hot[0]:,.0f} | {hot[1]} | nginx {nginx[0]:,.0f}/s | {hot[0] / nginx[0]:.3f} |")
print(f"| /auth, 2,000 distinct RS256 tokens, --cache 0 | {cold[0]:,.0f} | {cold[1]} | library, 2 threads {lib:,.0f}/s | {cold[0] / lib:.3f} |")
print(f"| same, JWTVERIFY_CRYPTO_MB=off | {off[0]:,.0f} | {off[1]} | | |")
print()
print("| round | serve CPU µs/request, engine | serve CPU, engine off | library µs/token, 1 thread, engine off | library, engine on | engine ÷ library off (target ≤ 1.3) | off ÷ library off |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for r, (on, off_cpu, lib_off, lib_on) in zip(rounds, per_round):
    print(f"| {r} | {on:.2f} | {off_cpu:.2f} | {lib_off:.2f} | {lib_on:.2f} | {on / lib_off:.3f} | {off_cpu / lib_off:.3f} |")
print(f"\nmedian of {len(per_round)} rounds: serve with the engine {median([a / c for a, b, c, d in per_round]):.3f}x the library's CPU per token "
      f"without it (target <= 1.3); without the engine {median([b / c for a, b, c, d in per_round]):.3f}x; "
      f"serve with the engine against the library with it {median([a / d for a, b, c, d in per_round]):.3f}x")
print(f"/auth batches on the engine's server: {batches:,} for {batched:,} requests ({batched / max(1, batches):.2f} per batch)")
print(f"lone request (1 connection): median {lone_median} ({seconds(lone_median) * 1000:.3f} ms; target < 2 ms), {requests('lone'):,} requests")
def non2xx(name):
    found = re.search(r"Non-2xx or 3xx responses: (\d+)", open(f"{out}/{name}.txt").read())
    return int(found.group(1)) if found else 0
rounds_non2xx = sum(non2xx(f"cpu-{server}-{r}") for server in ("cold", "off") for r in rounds) + non2xx("lone")
print(f"\nnon-2xx answers: hot {hot[2]}, distinct {cold[2]}, off {off[2]}, CPU rounds and lone {rounds_non2xx} (must be 0); valid verifications counted by /metrics on the --cache 0 server: {valid:,}")
PY

#!/usr/bin/env bash
# Per-face throughput (make bench, or alone: Benchmarks/faces.sh [JWTVERIFY]): one thread,
# 100,000 Apple-shaped RS256 tokens (2,000 distinct, each with its raw nonce) through each face of
# the CLI, as a share of the raw OpenSSL limit (SHA-256 + a reused EVP_PKEY_verify context on the
# same keys and tokens) measured by `jwtverify bench` just before and just after each face.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=${1:-.build/release/jwtverify}
runs=${FACE_RUNS:-5}
# Rounds of 2,000 tokens per raw-limit measurement: 15 take about as long as a third of a face's
# run, so one slow moment of a shared machine moves the limit less than it moves a 3-round one.
limit_reps=${LIMIT_REPS:-15}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
[ -x .build/release/jwtverify ] || swift build -c release >/dev/null
.build/release/jwtverify bench --algorithm RS256 --count 2000 --write-corpus "$out" --repeat 50 2>/dev/null
paste -d '\t' "$out/tokens.txt" "$out/nonces.txt" | python3 -c '
import json, sys
for line in sys.stdin:
    token, nonce = line.rstrip("\n").split("\t")
    print(json.dumps({"token": token, "nonce": nonce}))' > "$out/requests.jsonl"
head -2000 "$out/tokens.txt" > "$out/distinct.txt"
head -2000 "$out/nonces.txt" > "$out/distinct-nonces.txt"
now=1767225600
keys=(--jwks "$out/jwks.json" --now "$now")
generic=(--issuer https://appleid.apple.com --audience com.example.app)
apple=(--profile apple --audience com.example.app)
limit() {
  "$cli" bench --jwks "$out/jwks.json" --tokens "$out/distinct.txt" --nonces "$out/distinct-nonces.txt" --now "$now" \
    --threads 1 --reps "$limit_reps" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["raw_limit_tokens_per_sec"])'
}
face() {  # name, input, command...
  local name=$1 input=$2; shift 2
  local before after start end
  before=$(limit)
  start=$(date +%s.%N)
  "$@" < "$input" > "$out/face.out" 2>/dev/null || [ $? -eq 1 ]
  end=$(date +%s.%N)
  after=$(limit)
  python3 - "$name" "$before" "$after" "$start" "$end" "$(wc -l < "$out/face.out")" "$(grep -c '"valid":true' "$out/face.out" || true)" <<'PY'
import json, sys
name, before, after, start, end, lines, valid = sys.argv[1], *map(float, sys.argv[2:6]), int(sys.argv[6]), int(sys.argv[7])
rate = lines / (end - start)
limit = (before + after) / 2
print(json.dumps({"face": name, "tokens": lines, "valid": valid, "seconds": round(end - start, 3), "tokens_per_sec": round(rate),
                  "raw_limit_tokens_per_sec": round(limit), "ratio": round(rate / limit, 3)}))
PY
}
for i in $(seq "$runs"); do
  face "verify, bare tokens" "$out/tokens.txt" "$cli" verify --threads 1 "${keys[@]}" "${generic[@]}"
  face "verify, JSON lines {token, nonce}" "$out/requests.jsonl" "$cli" verify --threads 1 "${keys[@]}" "${generic[@]}"
  face "verify --profile apple, JSON lines with nonce" "$out/requests.jsonl" "$cli" verify --threads 1 "${keys[@]}" "${apple[@]}"
  face "audit --profile apple --format jsonl" "$out/tokens.txt" "$cli" audit --threads 1 --format jsonl -q "${keys[@]}" "${apple[@]}"
  face "verify --cache 10000, each token 50 times interleaved" "$out/tokens.txt" "$cli" verify --cache 10000 --threads 1 "${keys[@]}" "${generic[@]}"
done > "$out/faces.jsonl"
# The library face of the cache: every corpus token presented 100 times, round-robin, no nonce.
for i in $(seq "$runs"); do
  "$cli" bench --jwks "$out/jwks.json" --tokens "$out/distinct.txt" --now "$now" --threads 1 --reps 3 --repeat 100 --json
done > "$out/repeat.jsonl"
python3 - "$out/faces.jsonl" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("| face (1 thread, 100,000 RS256 tokens) | tokens/s | raw limit/s | ratio | ratio runs |")
print("| --- | ---: | ---: | ---: | --- |")
for face in dict.fromkeys(r["face"] for r in rows):
    sel = [r for r in rows if r["face"] == face]
    assert all(r["tokens"] == 100000 and r["valid"] == 100000 for r in sel), sel
    med = lambda k: statistics.median(r[k] for r in sel)
    print(f"| {face} | {med('tokens_per_sec'):,.0f} | {med('raw_limit_tokens_per_sec'):,.0f} | {med('ratio'):.3f} | "
          f"{', '.join('%.3f' % r['ratio'] for r in sel)} |")
PY
python3 - "$out/repeat.jsonl" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
med = lambda k: statistics.median(r[k] for r in rows)
print(f"| library, bench --repeat 100 (cache hits {rows[0]['cache_hits']:,}, misses {rows[0]['cache_misses']:,}) | "
      f"{med('tokens_per_sec'):,.0f} | {med('raw_limit_tokens_per_sec'):,.0f} | {med('ratio'):.2f} | "
      f"{', '.join('%.2f' % r['ratio'] for r in rows)} |")
PY

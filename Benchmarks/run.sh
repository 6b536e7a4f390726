#!/usr/bin/env bash
# Reproduces the README's performance table (make bench).
#  1. jwtverify bench: full verification vs the raw OpenSSL limit, RS256 and ES256, 1 and N threads,
#     RUNS times; medians of the ratios and rates. RS256 also against the library's own signature
#     check (--raw-check library: the key's Montgomery chain): the share of a token's time the
#     check itself takes.
#  2. jwtverify verify --threads 2 over a 1,000,000-token file, each run bracketed by library
#     measurements in the same window (this machine's speed drifts from minute to minute).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-5}
cli_runs=${CLI_RUNS:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
swift build -c release >/dev/null
cli=.build/release/jwtverify
threads=$(nproc)
# One JSON row per thread count (1 and all CPUs), as `jwtverify bench` measures one at a time.
bench() { for t in $(printf '%s\n' 1 "$threads" | sort -un); do $cli bench --json --threads "$t" "$@"; done; }
head -1 <($cli bench --reps 1 --count 3 --threads 1) >&2

echo "== jwtverify bench: $runs runs" >&2
for i in $(seq "$runs"); do
  bench --algorithm RS256 --reps 7 --count 2000
  bench --algorithm RS256 --reps 7 --count 2000 --raw-check library
  bench --algorithm ES256 --reps 5 --count 1000
done > "$out/library.jsonl"

echo "== CLI: 1,000,000 RS256 tokens, $cli_runs runs" >&2
$cli bench --algorithm RS256 --count 2000 --write-corpus "$out" --repeat 500 2>/dev/null
for i in $(seq "$cli_runs"); do
  $cli bench --json --reps 3 --count 2000 --threads 1 >> "$out/around.jsonl"
  /usr/bin/time -f '{"wall": %e, "rss_kb": %M}' -o "$out/time.json" \
    $cli verify --threads 2 --jwks "$out/jwks.json" --issuer https://appleid.apple.com \
    --audience com.example.app --now 1767225600 "$out/tokens.txt" > "$out/cli.jsonl" 2>/dev/null
  lines=$(wc -l < "$out/cli.jsonl")
  python3 -c "import json; t=json.load(open('$out/time.json')); t['lines']=$lines; print(json.dumps(t))" >> "$out/cli_runs.jsonl"
  $cli bench --json --reps 3 --count 2000 --threads 1 >> "$out/around.jsonl"
done

python3 - "$out" <<'PY'
import json, statistics, sys
out = sys.argv[1]
every = [json.loads(l) for l in open(f"{out}/library.jsonl")]
rows = [r for r in every if r["raw_check"] == "openssl"]
own = [r for r in every if r["raw_check"] == "library"]
print("| alg | threads | tokens/s | raw limit/s | ratio | p50 µs | p99 µs |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for label in ("RS256", "ES256"):
    for threads in sorted({r["threads"] for r in rows}):
        sel = [r for r in rows if r["label"] == label and r["threads"] == threads]
        med = lambda k: statistics.median(r[k] for r in sel)
        print(f"| {label} | {threads} | {med('tokens_per_sec'):,.0f} | {med('raw_limit_tokens_per_sec'):,.0f} | "
              f"{med('ratio'):.3f} | {med('p50_us'):.1f} | {med('p99_us'):.1f} |")
    one = [r for r in rows if r["label"] == label and r["threads"] == 1]
    two = [r for r in rows if r["label"] == label and r["threads"] > 1]
    if two:
        ours = statistics.median(t["tokens_per_sec"] / o["tokens_per_sec"] for o, t in zip(one, two))
        raw = statistics.median(t["raw_limit_tokens_per_sec"] / o["raw_limit_tokens_per_sec"] for o, t in zip(one, two))
        print(f"\n{label}: {two[0]['threads']} threads / 1 thread = {ours:.2f}x (the raw OpenSSL limit itself: {raw:.2f}x); "
              f"ratio runs: 1 thread {[r['ratio'] for r in one]}")
for threads in sorted({r["threads"] for r in own}):
    sel = [r for r in own if r["threads"] == threads]
    print(f"RS256, {threads} thread(s), against the library's own signature check (the Montgomery chain): "
          f"{statistics.median(r['tokens_per_sec'] for r in sel):,.0f}/s against {statistics.median(r['raw_limit_tokens_per_sec'] for r in sel):,.0f}/s, "
          f"ratio {statistics.median(r['ratio'] for r in sel):.3f} (runs {[r['ratio'] for r in sel]})")
cli = [json.loads(l) for l in open(f"{out}/cli_runs.jsonl")]
around = [json.loads(l) for l in open(f"{out}/around.jsonl")]
for i, run in enumerate(cli):
    single = statistics.mean([around[2 * i]["tokens_per_sec"], around[2 * i + 1]["tokens_per_sec"]])
    rate = run["lines"] / run["wall"]
    print(f"CLI run {i + 1}: {run['lines']:,} tokens in {run['wall']:.2f} s = {rate:,.0f}/s; library 1 thread around it "
          f"{single:,.0f}/s; CLI / (2 x library) = {rate / (2 * single):.3f}; peak RSS {run['rss_kb'] / 1024:.1f} MiB")
PY

echo "== Per face: 100,000 RS256 tokens on 1 thread, each face between two raw-limit measurements" >&2
Benchmarks/faces.sh "$cli"

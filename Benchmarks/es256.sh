#!/usr/bin/env bash
# ES256 against the raw OpenSSL limit and the Rust peer, in the same run (make bench-es256; part of
# make bench). 1 thread throughout:
#   - library: jwtverify bench --algorithm ES256 (batched as the CLI faces do, and one token per call);
#   - CLI: jwtverify verify --threads 1 over 100,000 distinct ES256 tokens, bracketed by library runs;
#   - peer: Rust jsonwebtoken 8 on ring 0.16 (Debian's packaged crates) over the same 2,000 tokens.
# The raw limit is OpenSSL's own prepared EVP_PKEY_verify; the fixed-base path goes above it.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
swift build -c release >/dev/null
bench() { .build/release/jwtverify bench --algorithm ES256 "$@"; }
cli=.build/release/jwtverify
now=1767225600
peer=""
if command -v cargo >/dev/null && [ -d /usr/share/cargo/registry/jsonwebtoken-8.2.0 ]; then
  mkdir -p .build/peer-cargo
  printf '[source.crates-io]\nreplace-with = "debian"\n[source.debian]\ndirectory = "/usr/share/cargo/registry"\n[net]\noffline = true\n' \
    > .build/peer-cargo/config.toml
  (cd Benchmarks/peers/rust-jsonwebtoken && CARGO_HOME="$PWD/../../../.build/peer-cargo" \
    cargo build -q --release --target-dir ../../../.build/peer-target) && peer=.build/peer-target/release/jwt-peer
else
  echo "es256.sh: no cargo or librust-jsonwebtoken-dev; the Rust peer is skipped (make bench-es256 installs them)" >&2
fi

mkdir -p "$out/cli" "$out/small"
bench --count 100000 --write-corpus "$out/cli" 2>/dev/null
bench --count 2000 --write-corpus "$out/small" 2>/dev/null
for i in $(seq "$runs"); do
  bench --json --reps 5 --count 2000 --threads 1 >> "$out/library.jsonl"
  start=$(date +%s.%N)
  $cli verify --threads 1 --jwks "$out/cli/jwks.json" --issuer https://appleid.apple.com --audience com.example.app \
    --now "$now" "$out/cli/tokens.txt" > "$out/cli.jsonl" 2> "$out/cli.err" || true
  end=$(date +%s.%N)
  valid=$(grep -c '"valid":true' "$out/cli.jsonl" || true)
  echo "{\"wall\": $(echo "$end - $start" | bc), \"lines\": $(wc -l < "$out/cli.jsonl"), \"valid\": $valid}" >> "$out/cli_runs.jsonl"
  bench --json --reps 5 --count 2000 --threads 1 >> "$out/library.jsonl"
  if [ -n "$peer" ]; then $peer "$out/small" "$now" 5 >> "$out/peer.jsonl"; fi
done

python3 - "$out" <<'PY'
import json, os, statistics, sys
out = sys.argv[1]
lib = [json.loads(l) for l in open(f"{out}/library.jsonl")]
cli = [json.loads(l) for l in open(f"{out}/cli_runs.jsonl")]
peer = [json.loads(l) for l in open(f"{out}/peer.jsonl")] if os.path.exists(f"{out}/peer.jsonl") else []
med = lambda rows, k: statistics.median(r[k] for r in rows)
raw = med(lib, "raw_limit_tokens_per_sec")
print("| ES256, 1 thread | tokens/s | × raw OpenSSL limit |")
print("| --- | ---: | ---: |")
print(f"| raw OpenSSL limit (prepared EVP_PKEY_verify) | {raw:,.0f} | 1.000 |")
print(f"| library, batched (128 per inversion) | {med(lib, 'tokens_per_sec'):,.0f} | {med(lib, 'ratio'):.3f} |")
print(f"| library, one token per call | {med(lib, 'per_call_tokens_per_sec'):,.0f} | {med(lib, 'per_call_ratio'):.3f} |")
ratios = []
for i, run in enumerate(cli):
    around = statistics.mean([lib[2 * i]["raw_limit_tokens_per_sec"], lib[2 * i + 1]["raw_limit_tokens_per_sec"]])
    ratios.append(run["lines"] / run["wall"] / around)
rate = statistics.median(r["lines"] / r["wall"] for r in cli)
print(f"| CLI verify --threads 1, {cli[0]['lines']:,} tokens (start-up included) | {rate:,.0f} | {statistics.median(ratios):.3f} |")
if peer:
    print(f"| {peer[0]['peer']} | {med(peer, 'tokens_per_sec'):,.0f} | {med(peer, 'tokens_per_sec') / raw:.3f} |")
print(f"\nCLI runs: valid {[r['valid'] for r in cli]} of {cli[0]['lines']:,}; ratios {[round(r, 3) for r in ratios]}; "
      f"fixed-base tables {lib[0]['fixed_base_tables']} x {lib[0]['fixed_base_table_bytes'] // max(1, lib[0]['fixed_base_tables']) // 1024} KiB")
PY

#!/usr/bin/env bash
# Per-face cost in instructions (make bench-instructions): deterministic where wall-clock rates on
# a shared VM are not. Under callgrind, one thread, 2,000 Apple-shaped RS256 tokens: each face's
# instructions per token (a run over the tokens minus a run over empty input, divided by the
# count) against the raw OpenSSL limit's own (jwtverify bench's RawVerificationLimit.run).
set -euo pipefail
cd "$(dirname "$0")/.."
cli=${1:-.build/release/jwtverify}
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 69; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
[ -x .build/release/jwtverify ] || swift build -c release >/dev/null
.build/release/jwtverify bench --algorithm RS256 --count 2000 --write-corpus "$out" --repeat 1 2>/dev/null
# Debian 12's valgrind (3.19) gives up on some of this toolchain's DWARF 5; callgrind needs only
# the symbol table, so it runs a copy without the debug sections.
objcopy --strip-debug "$cli" "$out/jwtverify"
cli=$out/jwtverify
paste -d '\t' "$out/tokens.txt" "$out/nonces.txt" | python3 -c '
import json, sys
for line in sys.stdin:
    token, nonce = line.rstrip("\n").split("\t")
    print(json.dumps({"token": token, "nonce": nonce}))' > "$out/requests.jsonl"
: > "$out/empty"
now=1767225600
# A run's instructions, and those outside the signature stage (Verifier.checkSignatures): the
# pipeline's own work beside the check, whichever way the check went. crypto_mb stays off: callgrind
# has no AVX-512, and the engine's background search would count in some runs and not others.
total() { JWTVERIFY_CRYPTO_MB=off valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$@" >/dev/null 2>&1 || true
  callgrind_annotate --inclusive=yes "$out/cg" 2>/dev/null | python3 -c '
import re, sys
total, signature = 0, 0
for line in sys.stdin:
    m = re.match(r"\s*([\d,]+) ", line)
    if not m: continue
    value = int(m.group(1).replace(",", ""))
    if "PROGRAM TOTALS" in line: total = value
    elif "VerifierV15checkSignatures_" in line: signature = max(signature, value)
print(total, total - signature)'; }
# --reps 1 runs the raw pass twice (a warm-up and the measured round) over the 2,000 tokens; once
# with OpenSSL's EVP_PKEY_verify (the limit), once with the library's own check (--raw-check library).
raw_instructions() {
  valgrind --tool=callgrind --callgrind-out-file="$out/cg.bench" "$cli" bench --jwks "$out/jwks.json" --tokens "$out/tokens.txt" \
    --nonces "$out/nonces.txt" --now "$now" --threads 1 --reps 1 --raw-check "$1" >/dev/null 2>&1
  callgrind_annotate --inclusive=yes "$out/cg.bench" 2>/dev/null | python3 -c '
import re, sys
found = [line for line in sys.stdin if "RawVerificationLimitC3runy" in line]
print(int(re.match(r"\s*([\d,]+)", found[0]).group(1).replace(",", "")) / (2 * 2000))'
}
raw=$(raw_instructions openssl)
own=$(raw_instructions library)
generic=(--issuer https://appleid.apple.com --audience com.example.app)
apple=(--profile apple --audience com.example.app)
# A face's count is not repeatable to the instruction: an RSA key's Montgomery chain is built on a
# background queue, and until it is ready a run verifies with EVP_PKEY_verify. Each run is made
# three times and the smallest kept: the run where the chain was ready.
smallest() { local best="" value; for _ in 1 2 3; do value=$(total "$@"); if [ -z "$best" ] || [ "${value% *}" -lt "${best% *}" ]; then best=$value; fi; done; echo "$best"; }
row() {  # name, input, args...
  local name=$1 input=$2; shift 2
  local base full
  base=$(smallest "$cli" "$@" --threads 1 --jwks "$out/jwks.json" --now "$now" "$out/empty")
  full=$(smallest "$cli" "$@" --threads 1 --jwks "$out/jwks.json" --now "$now" "$input")
  python3 -c "
import sys
full, full_beyond, base, base_beyond = (int(x) for x in sys.argv[4:8])
per, beyond = (full - base) / 2000, (full_beyond - base_beyond) / 2000
raw, own = float(sys.argv[2]), float(sys.argv[3])
print(f'| {sys.argv[1]} | {per:,.0f} | {beyond:,.0f} | {raw:,.0f} | {raw/per:.3f} | {own:,.0f} | {own/per:.3f} |')" \
    "$name" "$raw" "$own" $full $base
}
echo "| face (1 thread, 2,000 RS256 tokens, callgrind) | instructions/token | of them beyond the signature stage | raw limit instructions/token | ratio | library's own check instructions/token | ratio |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
row "verify, bare tokens" "$out/tokens.txt" verify "${generic[@]}"
row "verify, JSON lines {token, nonce}" "$out/requests.jsonl" verify "${generic[@]}"
row "verify --profile apple, JSON lines with nonce" "$out/requests.jsonl" verify "${apple[@]}"
row "audit --profile apple --format jsonl" "$out/tokens.txt" audit --format jsonl -q "${apple[@]}"

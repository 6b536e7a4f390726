#!/usr/bin/env bash
# App Store signed data: jwtverify against Apple's own Python verifier (make bench-appstore).
#   - Apple: app-store-server-library (pinned, from PyPI, in .build/appstore-venv), SignedDataVerifier
#     with online checks off and Apple Root CA - G3, one verifier per (bundle ID, environment, app
#     Apple ID) of the real tokens in ../shared/vectors/appstore; the tokens it accepts, again and
#     again for a few seconds, on one thread.
#   - jwtverify: verify --threads 1 --profile app-store (every bundle ID given, chains judged at
#     each token's signedDate) over the same accepted tokens repeated, start-up included.
#   - A generated corpus: 20,000 distinct transactions signed by a leaf of a chain shaped like
#     Apple's (made here with openssl, signed with Python's cryptography), both verifiers trusting
#     its root: Apple's over the first 1,000, jwtverify over all of them.
set -euo pipefail
cd "$(dirname "$0")/.."
vectors=${JWTVERIFY_SHARED_VECTORS:-../shared/vectors}/appstore/tokens.jsonl
[ -f "$vectors" ] || { echo "appstore.sh: $vectors not found" >&2; exit 66; }
venv=.build/appstore-venv
requirements="app-store-server-library==3.1.2"
if [ "$(cat "$venv/.requirements" 2>/dev/null)" != "$requirements" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q "$requirements"
  echo "$requirements" > "$venv/.requirements"
fi
swift build -c release --product jwtverify >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$venv/bin/python" - "$vectors" "$out" .build/release/jwtverify <<'PY'
import base64, hashlib, json, subprocess, sys, time
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException

vectors, out, cli = sys.argv[1], sys.argv[2], sys.argv[3]
rows = [json.loads(line) for line in open(vectors)]

def segment(token, index):
    part = token.split(".")[index]
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))

root = base64.b64decode(json.loads(segment(rows[0]["token"], 0))["x5c"][2])
assert hashlib.sha256(root).hexdigest() == "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179"

def identity(row):
    payload = json.loads(segment(row["token"], 1))
    app = payload.get("data") or payload.get("summary") or payload
    return app.get("bundleId"), app.get("environment"), app.get("appAppleId")

verifiers = {}
def verifier(bundle, environment, app_apple_id):
    key = (bundle, environment, app_apple_id)
    if key not in verifiers:
        verifiers[key] = SignedDataVerifier([root], False, Environment(environment), bundle, app_apple_id or 1)
    return verifiers[key]

def apple_verify(row):
    bundle, environment, app_apple_id = identity(row)
    if environment is None:
        raise VerificationException(0)
    v = verifier(bundle, environment, app_apple_id)
    kind = row["kind"]
    if kind == "notification":
        return v.verify_and_decode_notification(row["token"])
    if kind == "transaction":
        return v.verify_and_decode_signed_transaction(row["token"])
    return v.verify_and_decode_renewal_info(row["token"])

accepted = []
for row in rows:
    try:
        apple_verify(row)
        accepted.append(row)
    except Exception:
        pass
print(f"Apple's verifier accepts {len(accepted)} of {len(rows)} real tokens (online checks off)")

start = time.perf_counter()
count = 0
while time.perf_counter() - start < 5:
    for row in accepted:
        apple_verify(row)
        count += 1
apple_rate = count / (time.perf_counter() - start)

repeats = 400
with open(f"{out}/tokens.txt", "w") as f:
    for _ in range(repeats):
        for row in accepted:
            f.write(row["token"] + "\n")
bundles = sorted({identity(row)[0] for row in accepted if identity(row)[0]})
args = [cli, "verify", "--threads", "1", "--profile", "app-store"] + [a for b in bundles for a in ("--bundle-id", b)] + [f"{out}/tokens.txt"]
def median_rate(args, expected):
    """jwtverify run 3 times over `expected` tokens, each of which must verify: the median rate."""
    rates = []
    for _ in range(3):
        start = time.perf_counter()
        done = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - start
        valid = sum(1 for line in done.stdout.splitlines() if b'"valid":true' in line)
        assert valid == expected, (valid, done.stderr.decode()[-500:])
        rates.append(expected / elapsed)
    return sorted(rates)[1]
ours = median_rate(args, repeats * len(accepted))
# The library on the same real tokens against the raw limit of the same run (bench --app-store --tokens:
# per token, SHA-256 and EVP_PKEY_verify for every signature it carries, a notification's nested ones
# too, with its x5c leaf's key): all of them, those with one signature, and the notifications.
def bench_ratio(rows, name):
    with open(f"{out}/{name}.txt", "w") as f:
        for _ in range(50):
            for row in rows:
                f.write(row["token"] + "\n")
    runs = []
    for _ in range(3):
        done = subprocess.run([cli, "bench", "--app-store", "--tokens", f"{out}/{name}.txt", "--threads", "1", "--reps", "5",
                               "--json"] + [a for b in bundles for a in ("--bundle-id", b)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
        runs.append(json.loads(done.stdout))
    runs.sort(key=lambda r: r["ratio"])
    return runs[1], [r["ratio"] for r in runs]
bench_rows = [(f"the {len(accepted)} real tokens", bench_ratio(accepted, "all")),
              ("those with one signature (transactions, renewal info)",
               bench_ratio([r for r in accepted if r["kind"] != "notification"], "single")),
              ("the notifications (most carry a transaction and a renewal info)",
               bench_ratio([r for r in accepted if r["kind"] == "notification"], "notifications"))]
# The generated corpus: a chain like Apple's, and 20,000 distinct transactions signed by its leaf.
sys.path.insert(0, "Benchmarks")
from appstore_corpus import generate
generated = generate(out, 20000)
with open(f"{out}/generated.txt", "w") as f:
    f.write("\n".join(generated) + "\n")
bench_verifier = SignedDataVerifier([open(f"{out}/root.der", "rb").read()], False, Environment.SANDBOX, "com.example.app")
start = time.perf_counter()
for token in generated[:1000]:
    bench_verifier.verify_and_decode_signed_transaction(token)
apple_generated = 1000 / (time.perf_counter() - start)
args = [cli, "verify", "--threads", "1", "--profile", "app-store", "--bundle-id", "com.example.app", "--apple-root", f"{out}/root.pem",
        f"{out}/generated.txt"]
ours_generated = median_rate(args, len(generated))

print("| App Store signed data, 1 thread | tokens/s | × Apple's verifier |")
print("| --- | ---: | ---: |")
print(f"| Apple's app-store-server-library 3.1.2 (Python), {count:,} verifications | {apple_rate:,.0f} | 1.0 |")
print(f"| jwtverify verify --threads 1 --profile app-store, {repeats * len(accepted):,} tokens (median of 3, start-up included) | {ours:,.0f} | {ours / apple_rate:.1f} |")
print(f"| generated: Apple's verifier, 1,000 distinct transactions | {apple_generated:,.0f} | 1.0 |")
print(f"| generated: jwtverify, {len(generated):,} distinct transactions (median of 3) | {ours_generated:,.0f} | {ours_generated / apple_generated:.1f} |")
print()
print("| jwtverify bench --app-store --tokens, 1 thread, each token 50 times | tokens/s | raw limit/s | ratio (median of 3) | ratios |")
print("| --- | ---: | ---: | ---: | --- |")
for name, (median, ratios) in bench_rows:
    print(f"| {name} | {median['tokens_per_sec']:,.0f} | {median['raw_limit_tokens_per_sec']:,.0f} | {median['ratio']:.3f} | "
          f"{', '.join('%.3f' % r for r in ratios)} |")
PY

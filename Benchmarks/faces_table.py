#!/usr/bin/env python3
"""Every face against the library and the library against the raw limit, in one run (make bench-faces).

Each figure is a ratio taken inside one run, its yardstick measured around it (this VM's rates drift
15-20 % between runs); each row is the median of RUNS runs (3 unless --runs says otherwise), with the
runs themselves beside it:

  - the library (`bench`, 1 thread) against the raw OpenSSL limit of the same run: RS256 and ES256;
  - each CLI face over 100,000 RS256 tokens (2,000 distinct, each with its raw nonce), one thread,
    against the library on the same distinct tokens (`bench --tokens`) measured just before and just
    after: `verify` on bare tokens, `verify --profile apple` on JSON lines with nonces, `audit
    --profile apple`; the two Apple faces also against the library under the same profile (`bench
    --profile apple`, `--skip-nonce` for the audit's nonce-less tokens); App Store data (`verify --profile app-store` against `bench --app-store
    --tokens` on the same generated transactions) and access tokens (`verify --profile access-token`
    against `bench --access-token`);
  - serve: its CPU per distinct `/auth` request under wrk (user + system time from /proc, so wrk's
    share of the cores does not count; and user time alone, what serve's own code spends) against the
    library's CPU per token on one thread with the multi-buffer engine off (the scalar library),
    measured before and after;
  - two threads against one: the library (`bench --threads 2` over `--threads 1`) and `verify
    --threads 2` over `--threads 1`, each against the gain of the raw limit run as two processes at
    once over one alone (the machine's own ceiling), measured in the same run; and `verify`'s parallel
    efficiency, the one-thread run's CPU time over twice the two-thread run's wall time.
"""
import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--jwtverify", default=".build/release/jwtverify")
parser.add_argument("--runs", type=int, default=3)
parser.add_argument("--serve-seconds", type=int, default=5, help="wrk's duration per serve measurement")
args = parser.parse_args()
cli = os.path.abspath(args.jwtverify)
out = tempfile.mkdtemp(prefix="bench-faces-")
NOW = "1767225600"
ISSUER, AUDIENCE = "https://appleid.apple.com", "com.example.app"


def run(command, stdin=None, env=None, check=True):
    source = open(stdin, "rb") if stdin else subprocess.DEVNULL
    try:
        done = subprocess.run(command, stdin=source, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env={**os.environ, **(env or {})})
    finally:
        if stdin:
            source.close()
    if check and done.returncode not in (0, 1):
        sys.exit(f"{' '.join(command)}: exit {done.returncode}: {done.stderr.decode()[-800:]}")
    return done


def bench(*words, env=None):
    """One `jwtverify bench --json` row; `None` when what it needs is not here (exit 69: no crypto_mb)."""
    done = run([cli, "bench", "--json", *words], env=env, check=False)
    if done.returncode == 69:
        return None
    if done.returncode != 0:
        sys.exit(f"bench {' '.join(words)}: exit {done.returncode}: {done.stderr.decode()[-800:]}")
    return json.loads(done.stdout)


def timed(command, stdin):
    """A face's tokens per second of wall time over `stdin`, start-up included; every line must be valid."""
    start = time.perf_counter()
    done = run(command, stdin=stdin)
    seconds = time.perf_counter() - start
    lines = done.stdout.count(b"\n")
    valid = done.stdout.count(b'"valid":true')
    if lines != valid or lines == 0:
        sys.exit(f"{' '.join(command)}: {valid} of {lines} lines valid: {done.stderr.decode()[-500:]}")
    return lines / seconds


# --- Corpora -------------------------------------------------------------------------------------
rs = f"{out}/rs256"
run([cli, "bench", "--algorithm", "RS256", "--count", "2000", "--write-corpus", rs, "--repeat", "50"])
with open(f"{rs}/tokens.txt") as tokens, open(f"{rs}/nonces.txt") as nonces, open(f"{rs}/requests.jsonl", "w") as f:
    for token, nonce in zip(tokens, nonces):
        f.write(json.dumps({"token": token.rstrip("\n"), "nonce": nonce.rstrip("\n")}) + "\n")
for name, lines in (("distinct.txt", "tokens.txt"), ("distinct-nonces.txt", "nonces.txt")):
    with open(f"{rs}/{lines}") as source, open(f"{rs}/{name}", "w") as f:
        f.writelines(line for _, line in zip(range(2000), source))
keys = ["--jwks", f"{rs}/jwks.json", "--now", NOW]
generic = ["--issuer", ISSUER, "--audience", AUDIENCE]
apple = ["--profile", "apple", "--audience", AUDIENCE]


def library(threads=1, nonces=False, env=None, policy=None):
    """The library on the distinct RS256 tokens (with their nonces), under `policy`'s flags (the generic issuer
    and audience unless given): tokens/s, raw limit/s, CPU tokens/s."""
    row = bench(*keys, *(policy or generic), "--tokens", f"{rs}/distinct.txt", "--threads", str(threads), "--reps",
                "5", *(["--nonces", f"{rs}/distinct-nonces.txt"] if nonces else []), env=env)
    return row


def face_against(library_rate, command, stdin):
    """A face's rate over `stdin` over the library's (`library_rate()`) measured just before and just after."""
    before = library_rate()
    rate = timed(command, stdin)
    after = library_rate()
    return rate / ((before + after) / 2)


def face_against_library(command, stdin, nonces=False, policy=None):
    return face_against(lambda: library(nonces=nonces, policy=policy)["tokens_per_sec"], command, stdin)


def repeat_lines(source, target, times):
    """`target` holds the lines of `source` `times` over (a face's input of many presentations)."""
    with open(source) as f:
        lines = f.readlines()
    with open(target, "w") as f:
        for _ in range(times):
            f.writelines(lines)


# App Store: 2,000 generated transactions under a chain shaped like Apple's (Benchmarks/appstore_corpus.py,
# signed through Python's cryptography, as appstore.sh makes its own).
def app_store_corpus():
    directory = f"{out}/appstore"
    os.makedirs(directory)
    python = os.environ.get("BENCH_PYTHON", sys.executable)
    generator = os.path.join(os.path.dirname(os.path.abspath(__file__)), "appstore_corpus.py")
    subprocess.run([python, generator, directory, "2000"], check=True)
    shutil.copy(f"{directory}/transactions.txt", f"{directory}/distinct.txt")
    repeat_lines(f"{directory}/distinct.txt", f"{directory}/tokens.txt", 25)
    return directory


# Access tokens (RFC 9068): an RSA-2048 key of their own, 2,000 distinct tokens signed by Python's
# cryptography (typ at+jwt, client_id, jti, scope).
def access_token_corpus():
    directory = f"{out}/access"
    os.makedirs(directory)
    script = r'''
import base64, json, sys
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
out, now, issuer, audience = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
numbers = key.public_key().public_numbers()
b64 = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()
integer = lambda n: b64(n.to_bytes((n.bit_length() + 7) // 8, "big"))
with open(f"{out}/jwks.json", "w") as f:
    json.dump({"keys": [{"kty": "RSA", "kid": "at-1", "alg": "RS256", "use": "sig", "n": integer(numbers.n),
                         "e": integer(numbers.e)}]}, f)
header = b64(json.dumps({"alg": "RS256", "kid": "at-1", "typ": "at+jwt"}, separators=(",", ":")).encode())
with open(f"{out}/distinct.txt", "w") as f:
    for i in range(2000):
        claims = {"iss": issuer, "aud": audience, "sub": f"user-{i}", "client_id": "bench-client", "jti": f"jti-{i}",
                  "iat": now - 60, "exp": now + 600, "scope": "openid profile read:items"}
        signing_input = header + "." + b64(json.dumps(claims, separators=(",", ":")).encode())
        signature = key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
        f.write(signing_input + "." + b64(signature) + "\n")
'''
    python = os.environ.get("BENCH_PYTHON", sys.executable)
    subprocess.run([python, "-c", script, directory, NOW, ISSUER, AUDIENCE], check=True)
    repeat_lines(f"{directory}/distinct.txt", f"{directory}/tokens.txt", 50)
    return directory


appstore = app_store_corpus()
store_flags = ["--bundle-id", "com.example.app", "--apple-root", f"{appstore}/root.pem"]
access = access_token_corpus()
access_flags = ["--jwks", f"{access}/jwks.json", "--now", NOW, "--issuer", ISSUER, "--audience", AUDIENCE]


def access_token_face():
    return face_against(
        lambda: bench("--access-token", *access_flags, "--tokens", f"{access}/distinct.txt", "--threads", "1",
                      "--reps", "5")["tokens_per_sec"],
        [cli, "verify", "--threads", "1", "--profile", "access-token", *access_flags], f"{access}/tokens.txt")


def app_store_face():
    return face_against(
        lambda: bench("--app-store", "--tokens", f"{appstore}/distinct.txt", *store_flags, "--threads", "1",
                      "--reps", "5")["tokens_per_sec"],
        [cli, "verify", "--threads", "1", "--profile", "app-store", *store_flags], f"{appstore}/tokens.txt")


# --- serve -----------------------------------------------------------------------------------------
def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port):
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"serve did not listen on {port}")


def ticks(pid):
    """A process's user and system time so far, in clock ticks."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[11]), int(fields[12])


def serve_cpu_ratio(server, port):
    """serve's CPU µs per distinct /auth under wrk (user and system; user alone), each over the scalar library's
    CPU µs per token (before, after)."""
    scalar = lambda: 1e6 / library(env={"JWTVERIFY_CRYPTO_MB": "off"})["cpu_tokens_per_sec"]
    before = scalar()
    start = ticks(server.pid)
    done = subprocess.run(["wrk", "-t1", "-c64", f"-d{args.serve_seconds}s", "-s", f"{out}/distinct.lua",
                           f"http://127.0.0.1:{port}/auth"], stdout=subprocess.PIPE, check=True, text=True)
    end = ticks(server.pid)
    user, system = ((b - a) * 1e6 / os.sysconf("SC_CLK_TCK") for a, b in zip(start, end))
    requests = int(re.search(r"(\d+) requests in", done.stdout).group(1))
    if re.search(r"Non-2xx", done.stdout):
        sys.exit(f"serve answered non-2xx: {done.stdout}")
    after = scalar()
    library_cpu = (before + after) / 2
    return ((user + system) / requests) / library_cpu, (user / requests) / library_cpu


# --- Two threads -------------------------------------------------------------------------------------
def raw_gain():
    """The raw limit's own gain from a second core: two bench processes at once over one alone."""
    words = [cli, "bench", "--json", *keys, *generic, "--tokens", f"{rs}/distinct.txt", "--threads", "1", "--reps", "9"]
    alone = json.loads(run(words).stdout)["raw_limit_tokens_per_sec"]
    pair = [subprocess.Popen(words, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) for _ in range(2)]
    together = sum(json.loads(p.communicate()[0])["raw_limit_tokens_per_sec"] for p in pair)
    return together / alone


def library_gain():
    one = library(threads=1)["tokens_per_sec"]
    two = library(threads=2)["tokens_per_sec"]
    return two / one


def verify_gain():
    """`verify --threads 2` over `--threads 1` (tokens per second of wall time), and its parallel
    efficiency: the one-thread run's CPU time (every thread of it: the reader and the writer run beside
    the verifying thread, on the core it leaves free) over twice the two-thread run's wall time."""
    command = [cli, "verify", *keys, *generic]
    before = os.times()
    one = timed(command + ["--threads", "1"], f"{rs}/tokens.txt")
    after = os.times()
    cpu_one = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    two = timed(command + ["--threads", "2"], f"{rs}/tokens.txt")
    with open(f"{rs}/tokens.txt", "rb") as f:
        wall_two = sum(1 for _ in f) / two  # the run's own wall time, as `timed` took it
    return two / one, cpu_one / (2 * wall_two)


# --- The table ------------------------------------------------------------------------------------
rows = {}


def record(name, value, target):
    rows.setdefault(name, {"runs": [], "target": target})["runs"].append(value)


with open(f"{rs}/distinct.txt") as f:
    tokens = [line.rstrip("\n") for line in f]
with open(f"{out}/distinct.lua", "w") as f:
    f.write("local requests = {}\nlocal i = 0\ninit = function(args)\n"
            f"  for line in io.lines(\"{rs}/distinct.txt\") do\n"
            "    requests[#requests + 1] = wrk.format(\"GET\", \"/auth\", { [\"Authorization\"] = \"Bearer \" .. line })\n"
            "  end\nend\nrequest = function()\n  i = i + 1\n  if i > #requests then i = 1 end\n  return requests[i]\nend\n")
serve_port = free_port() if shutil.which("wrk") else None
server = None
if serve_port:
    server = subprocess.Popen([cli, "serve", "--listen", f"127.0.0.1:{serve_port}", *keys, *generic, "--threads", "2",
                               "--cache", "0"], stderr=subprocess.DEVNULL)
    wait_port(serve_port)
try:
    for _ in range(args.runs):
        record("RS256 library (`bench`, ratio to the raw limit)", bench("--algorithm", "RS256", "--threads", "1")["ratio"],
               "≥ 3.0")
        # The ceiling: crypto_mb's check alone (SHA-256, the lanes, the compare) against OpenSSL's, and
        # the library against it (the walk's share of a token beside the check).
        engine = bench("--algorithm", "RS256", "--threads", "1", "--raw-check", "multibuffer")
        if engine:
            record("RS256 library ÷ crypto_mb's check alone (1 ÷ (1 + the walk's share))", engine["ratio"], "≥ 0.917")
            record("crypto_mb's check alone ÷ the raw limit (the library's RS256 ceiling)",
                   rows["RS256 library (`bench`, ratio to the raw limit)"]["runs"][-1] / engine["ratio"], "")
        record("ES256 library", bench("--algorithm", "ES256", "--threads", "1")["ratio"], "≥ 3.2")
        record("`verify` bare tokens ÷ the library",
               face_against_library([cli, "verify", "--threads", "1", *keys, *generic], f"{rs}/tokens.txt"), "≥ 0.95")
        apple_verify = [cli, "verify", "--threads", "1", *keys, *apple]
        apple_audit = [cli, "audit", "--threads", "1", "--format", "jsonl", "-q", *keys, *apple]
        record("`verify --profile apple`, JSON lines with nonces ÷ the library",
               face_against_library(apple_verify, f"{rs}/requests.jsonl", nonces=True), "≥ 0.90")
        # The same faces against the library under their own policy (`bench --profile apple`): the Apple
        # profile's claims are the library's work, not the face's.
        record("`verify --profile apple`, JSON lines with nonces ÷ the library under `--profile apple`",
               face_against_library(apple_verify, f"{rs}/requests.jsonl", nonces=True, policy=apple), "")
        record("`audit --profile apple` ÷ the library",
               face_against_library(apple_audit, f"{rs}/tokens.txt"), "≥ 0.85")
        record("`audit --profile apple` ÷ the library under `--profile apple --skip-nonce`",
               face_against_library(apple_audit, f"{rs}/tokens.txt", policy=[*apple, "--skip-nonce"]), "")
        record("App Store face (`verify --profile app-store`) ÷ the library", app_store_face(), "≥ 0.85")
        record("access-token face (`verify --profile access-token`) ÷ the library", access_token_face(), "≥ 0.85")
        if server:
            both, user = serve_cpu_ratio(server, serve_port)
            record("serve CPU per distinct `/auth` ÷ the scalar library's CPU per token", both, "≤ 1.15")
            # The kernel's share (the loopback round trip of every request) is not serve's to change.
            record("serve user CPU per distinct `/auth` ÷ the scalar library's CPU per token", user, "")
        raw = raw_gain()
        record("raw limit: two processes ÷ one (the machine's ceiling)", raw, "")
        record("library: two threads ÷ one, ÷ the raw limit's own gain", library_gain() / raw, "≥ 0.95")
        gain, efficiency = verify_gain()
        record("`verify`: two threads ÷ one, ÷ the raw limit's own gain", gain / raw, "≥ 0.95")
        # The yardstick proposed for faces: the raw limit has no input to read nor records to write.
        record("`verify`: one thread's CPU ÷ (2 × two threads' wall) (parallel efficiency)", efficiency, "")
finally:
    if server:
        server.terminate()
        server.wait()
    shutil.rmtree(out, ignore_errors=True)

print(f"| figure (medians of {args.runs} runs, each a ratio inside one run) | median | runs | target |")
print("| --- | ---: | --- | ---: |")
for name, row in rows.items():
    runs = row["runs"]
    print(f"| {name} | {statistics.median(runs):.3f} | {', '.join('%.3f' % r for r in runs)} | {row['target']} |")
if not server:
    print("\n(serve's row needs wrk: apt-get install wrk)")

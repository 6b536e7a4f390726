#!/usr/bin/env python3
"""serve against a hostile key origin, on loopback: its peak resident memory while the origin
answers a key refresh with a gzip bomb (1 MiB that decodes to 1 GiB) or a plain 50 MB body, and the
latency of /healthz while the origin hangs or drips one octet a second and unknown-kid tokens wait
for keys.

usage: Benchmarks/hostile_origin.py --jwtverify BIN [--label NAME]

Prints one JSON object. Runs the project's scriptable origin (Tests/Support/jwks_origin.py)."""
import argparse, base64, json, os, socket, statistics, subprocess, sys, threading, time, urllib.request

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
parser = argparse.ArgumentParser()
parser.add_argument("--jwtverify", required=True)
parser.add_argument("--label", default="")
args = parser.parse_args()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(url, data=None, headers=None, timeout=20):
    request = urllib.request.Request(url, data=data, headers=headers or {}, method="POST" if data else "GET")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


origin = subprocess.Popen([sys.executable, os.path.join(root, "Tests/Support/jwks_origin.py")], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, cwd=os.path.join(root, "Tests/Support"))
origin_port = int(origin.stdout.readline())
keys_url = f"http://127.0.0.1:{origin_port}/keys"
document = open(os.path.join(root, "Vectors/jwks.json")).read()


def control(**settings):
    http(f"http://127.0.0.1:{origin_port}/control", json.dumps(settings).encode())


def unknown_token(kid):
    def part(obj):
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()
    return part({"alg": "RS256", "kid": kid}) + "." + part({"iss": "https://appleid.apple.com"}) + "." + "A" * 342


def start_serve(threads):
    port = free_port()
    process = subprocess.Popen([args.jwtverify, "serve", "--listen", f"127.0.0.1:{port}", "--jwks", keys_url, "--issuer",
                                "https://appleid.apple.com", "--audience", "com.example.app", "--threads", str(threads)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            if http(f"http://127.0.0.1:{port}/ready", timeout=1)[0] == 200:
                break
        except OSError:
            pass
        time.sleep(0.05)
    return process, port


def peak_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return -1


def fetch_failures(port):
    text = http(f"http://127.0.0.1:{port}/metrics")[1].decode()
    for line in text.splitlines():
        if line.startswith('jwtverify_jwks_fetches_total{route="default",outcome="failed"}'):
            return int(float(line.split()[-1]))
    return 0


result = {"label": args.label}
for mode in ["bomb", "plain50"]:
    control(mode="ok", document=document, max_age=600)
    serve, port = start_serve(1)
    before = peak_kib(serve.pid)
    control(mode=mode)
    started = time.time()
    try:
        http(f"http://127.0.0.1:{port}/auth", headers={"Authorization": "Bearer " + unknown_token("nope")}, timeout=30)
    except OSError:
        pass
    while fetch_failures(port) < 1 and time.time() - started < 30:
        time.sleep(0.1)
    result[mode] = {"peak_before_kib": before, "peak_after_kib": peak_kib(serve.pid), "seconds": round(time.time() - started, 2)}
    serve.kill()
    serve.wait()

for origin_mode, threads, waiting in [("hang", 1, 1), ("drip", 1, 1), ("drip", 2, 8)]:
    control(mode="ok", document=document, max_age=600)
    serve, port = start_serve(threads)
    control(mode=origin_mode)
    answers = []

    def wait_for_keys(index):
        start = time.time()
        try:
            status = http(f"http://127.0.0.1:{port}/auth", headers={"Authorization": "Bearer " + unknown_token(f"k{index}")}, timeout=30)[0]
        except OSError as error:
            status = str(error)
        answers.append((status, round(time.time() - start, 3)))

    workers = [threading.Thread(target=wait_for_keys, args=(i,)) for i in range(waiting)]
    for worker in workers:
        worker.start()
    time.sleep(0.05)
    latencies = []
    for _ in range(9):
        start = time.time()
        http(f"http://127.0.0.1:{port}/healthz", timeout=30)
        latencies.append(time.time() - start)
        time.sleep(0.05)
    for worker in workers:
        worker.join()
    result[f"healthz_{origin_mode}_threads{threads}_waiting{waiting}"] = {
        "median_ms": round(1000 * statistics.median(latencies), 2), "max_ms": round(1000 * max(latencies), 2),
        "unknown_kid_answers": sorted(answers)}
    serve.kill()
    serve.wait()

origin.kill()
print(json.dumps(result))

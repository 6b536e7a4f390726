#!/usr/bin/env python3
"""The Spark job against many distinct tokens (make bench-spark): logs of junk tokens, each
distinct (rejected, but tracked all the same), with planted repeats and shared nonces, at 1x and
4x a distinct count, on local-cluster[2,1,1024] (two executor JVMs of 1 GB) with a driver of
512 MB. For each size: the job's time, whether its counts are the planted ones, the driver's
peak memory and the largest executor's (each JVM with the processes it started: the driver's
Python and jwtverify, each executor's jwtverify), the bytes the driver collected; and beside it
one `jwtverify audit` process over the same logs, its time, peak memory and whether it capped.

--job runs another jwt_audit.py (an earlier one, for a before-and-after); its collected bytes
are then measured by running its stage's jwtverify over each file, as its tasks do."""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tests", "SparkAudit"))
import distinct_corpus  # noqa: E402
import fixtures  # noqa: E402

MASTER = "local-cluster[2,1,1024]"


def tree(root):
    """The pids under `root` (itself included), from /proc."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(entry))
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack += children.get(pid, [])
    return found, children


def rss(pid):
    try:
        with open("/proc/%d/statm" % pid) as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return 0


def is_executor(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return b"CoarseGrainedExecutorBackend" in f.read()
    except OSError:
        return False


class Sampler(threading.Thread):
    """Peak resident memory of a process tree, split into executors (each executor JVM and what it
    started) and the driver (everything else), sampled every 0.2 s."""

    def __init__(self, root):
        super().__init__(daemon=True)
        self.root, self.stop = root, threading.Event()
        self.driver_peak, self.executor_peak = 0, 0

    def run(self):
        while not self.stop.is_set():
            pids, children = tree(self.root)
            executors = [pid for pid in pids if is_executor(pid)]
            in_executors = set()
            for executor in executors:
                stack = [executor]
                total = 0
                while stack:
                    pid = stack.pop()
                    in_executors.add(pid)
                    total += rss(pid)
                    stack += children.get(pid, [])
                self.executor_peak = max(self.executor_peak, total)
            self.driver_peak = max(self.driver_peak, sum(rss(pid) for pid in pids if pid not in in_executors))
            self.stop.wait(0.2)


def run_job(job, jwtverify, paths, out):
    command = ["spark-submit", "--master", MASTER, "--conf", "spark.ui.enabled=false", "--conf", "spark.driver.memory=512m", job,
               "--jwks", fixtures.JWKS, "--now", str(fixtures.EVALUATION_TIME), "--jwtverify", jwtverify, "--report-format", "json",
               "--output", out] + paths
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sampler = Sampler(process.pid)
    sampler.start()
    output = process.communicate()[0]
    sampler.stop.set()
    sampler.join()
    seconds = time.monotonic() - start
    report = None
    if process.returncode <= 1 and os.path.exists(os.path.join(out, "report.json")):
        with open(os.path.join(out, "report.json")) as f:
            report = json.load(f)
    collected = None
    for line in output.splitlines():
        if "the driver collected " in line:
            collected = int(line.split("the driver collected ")[1].split()[0])
    return seconds, process.returncode, report, collected, sampler, output


def stage_partial_bytes(jwtverify, paths):
    """What an earlier job's tasks handed the driver: each file's `#partial` line, as its stage's
    jwtverify writes them (that job's partials carried every distinct token)."""
    total = 0
    for path in paths:
        done = subprocess.run([jwtverify, "audit", "--format", "tsv", "--partials", "--quiet", "--jwks", fixtures.JWKS, "--now",
                               str(fixtures.EVALUATION_TIME), path], capture_output=True)
        total += sum(len(line) + 1 for line in done.stdout.split(b"\n") if line.startswith(b"#partial\t"))
    return total


def one_process(jwtverify, paths):
    start = time.monotonic()
    process = subprocess.Popen([jwtverify, "audit", "--format", "json", "--jwks", fixtures.JWKS, "--now", str(fixtures.EVALUATION_TIME)]
                               + paths, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    sampler = Sampler(process.pid)
    sampler.start()
    output = process.communicate()[0]
    sampler.stop.set()
    sampler.join()
    report = json.loads(output) if process.returncode <= 1 else None
    return time.monotonic() - start, report, sampler.driver_peak


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jwtverify", required=True)
    parser.add_argument("--job", default=os.path.join(ROOT, "Sources", "SparkAudit", "jwt_audit.py"))
    parser.add_argument("--distinct", type=int, default=3_000_000, help="distinct tokens at 1x (default: %(default)s)")
    parser.add_argument("--factors", default="1,4")
    options = parser.parse_args()
    jwtverify = os.path.abspath(options.jwtverify)
    earlier = os.path.abspath(options.job) != os.path.join(ROOT, "Sources", "SparkAudit", "jwt_audit.py")
    rows = []
    for factor in [int(f) for f in options.factors.split(",")]:
        work = tempfile.mkdtemp(prefix="jwt-audit-scale-")
        try:
            distinct = options.distinct * factor
            paths, expected = distinct_corpus.write(os.path.join(work, "logs"), distinct, files=8)
            size = sum(os.path.getsize(p) for p in paths)
            sys.stderr.write("%dx: %d distinct tokens, %.0f MB; the job...\n" % (factor, distinct, size / 1e6))
            seconds, status, report, collected, sampler, output = run_job(options.job, jwtverify, paths, os.path.join(work, "out"))
            exact = report is not None and all(report[k] == expected[k] for k in
                                                ("tokens", "repeated_tokens", "repeated_occurrences", "shared_nonces", "tokens_sharing_nonces"))
            if report is None:
                tail = [line for line in output.splitlines() if "jwt_audit" in line or "OutOfMemory" in line][-3:]
                sys.stderr.write("the job failed (status %d): %s\n" % (status, " | ".join(tail)))
            if earlier:
                collected = stage_partial_bytes(jwtverify, paths)
            sys.stderr.write("%dx: one jwtverify audit process...\n" % factor)
            single_seconds, single, single_peak = one_process(jwtverify, paths)
            rows.append((factor, distinct, size, seconds, status, exact, report and report["tracking_capped"], sampler.driver_peak,
                         sampler.executor_peak, collected, single_seconds, single and single["tracking_capped"], single_peak))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    print("| distinct tokens | input MB | job s | job exit | planted counts exact | job tracking_capped | driver peak MB "
          "| largest executor peak MB | driver collected KB | one process s | one process peak MB | one process capped |")
    print("| ---: | ---: | ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for (factor, distinct, size, seconds, status, exact, capped, driver, executor, collected, single_seconds, single_capped,
         single_peak) in rows:
        print("| %s (%dx) | %.0f | %.0f | %d | %s | %s | %.0f | %.0f | %s | %.0f | %s | %s |" % (
            format(distinct, ","), factor, size / 1e6, seconds, status, "yes" if exact else "no", capped, driver / 1e6, executor / 1e6,
            "%.0f" % (collected / 1e3) if collected is not None else "?", single_seconds,
            "%.0f" % (single_peak / 1e6) if single_peak else "?", single_capped))
    if len(rows) >= 2 and all(row[5] for row in rows):
        first, last = rows[0], rows[-1]
        print("\ndriver peak %dx/1x: %.2f; largest executor peak: %.2f; collected: %.2f" % (
            last[0], last[7] / first[7], last[8] / first[8], (last[9] or 0) / max(first[9] or 1, 1)))


if __name__ == "__main__":
    main()

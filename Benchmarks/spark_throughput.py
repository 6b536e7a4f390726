#!/usr/bin/env python3
"""The Spark job (local[2]) against one `jwtverify audit` process on the same generated logs
(make bench-spark). Prints a Markdown table: input, wall time, MB/s and tokens/s of each, the
Spark job's fixed start-up cost, and whether the two reports are equal."""

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tests", "SparkAudit"))
import fixtures  # noqa: E402

JOB = os.path.join(ROOT, "Sources", "SparkAudit", "jwt_audit.py")


def write_logs(directory, files, lines, token_every, pool, seed=11):
    """`files` log files of `lines` lines each; every `token_every`-th line carries a token from `pool`."""
    rng = random.Random(seed)
    paths, tokens = [], 0
    for f in range(files):
        path = os.path.join(directory, "app-%d.log" % f)
        with open(path, "w", encoding="utf-8", newline="") as out:
            chunk = []
            for i in range(lines):
                if i % token_every == 0:
                    chunk.append(fixtures.embed(pool[rng.randrange(len(pool))], rng.randrange(6), rng))
                    tokens += 1
                else:
                    chunk.append(fixtures.noise(rng))
                if len(chunk) == 10000:
                    out.write("\n".join(chunk) + "\n")
                    chunk = []
            if chunk:
                out.write("\n".join(chunk) + "\n")
        paths.append(path)
    return paths, tokens


def timed(command, **kwargs):
    start = time.monotonic()
    run = subprocess.run(command, capture_output=True, text=True, **kwargs)
    return time.monotonic() - start, run


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jwtverify", required=True)
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--lines", type=int, default=250_000, help="lines per file")
    parser.add_argument("--token-every", type=int, default=4)
    parser.add_argument("--pool", type=int, default=2000, help="distinct tokens")
    parser.add_argument("--alg", choices=["RS256", "ES256", "mixed"], default="RS256", help="what signs the tokens")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--master", default="local[2]")
    options = parser.parse_args()

    work = tempfile.mkdtemp(prefix="jwt-audit-bench-")
    try:
        sys.stderr.write("minting %d tokens, writing %d x %d lines\n" % (options.pool, options.files, options.lines))
        stems = {"RS256": ("rsa-1",), "ES256": ("ec-1",), "mixed": ("rsa-1", "ec-1")}[options.alg]
        pool = fixtures.minted_tokens(fixtures.Minter(), options.pool, stems)
        logs = os.path.join(work, "logs")
        os.makedirs(logs)
        paths, tokens = write_logs(logs, options.files, options.lines, options.token_every, pool)
        size = sum(os.path.getsize(p) for p in paths)
        uris = sorted("file:" + os.path.abspath(p) for p in paths)
        flags = ["--jwks", fixtures.JWKS, "--issuer", fixtures.ISSUER, "--audience", fixtures.AUDIENCE,
                 "--now", str(fixtures.EVALUATION_TIME)]
        tiny = os.path.join(work, "tiny.log")
        with open(tiny, "w") as f:
            f.write(fixtures.embed(pool[0], 0, random.Random(1)) + "\n")

        cli_times, spark_times, startup_times, equal = [], [], [], True
        for run in range(options.runs):
            sys.stderr.write("run %d/%d: jwtverify audit\n" % (run + 1, options.runs))
            # The files as the job names them (file: URIs in listing order), so that the reports'
            # per-token tables and sightings name them alike.
            seconds, single = timed([options.jwtverify, "audit", "--format", "json"] + flags + uris)
            cli_times.append(seconds)
            expected = json.loads(single.stdout)
            sys.stderr.write("run %d/%d: spark-submit --master %s\n" % (run + 1, options.runs, options.master))
            out = os.path.join(work, "out-%d" % run)
            seconds, job = timed(["spark-submit", "--master", options.master, "--conf", "spark.ui.enabled=false", JOB]
                                 + flags + ["--jwtverify", options.jwtverify, "--output", out, logs])
            if job.returncode > 1:
                sys.stderr.write(job.stdout[-4000:] + job.stderr[-4000:])
                return 70
            spark_times.append(seconds)
            with open(os.path.join(out, "report.json")) as f:
                equal = equal and json.load(f) == expected
            seconds, _ = timed(["spark-submit", "--master", options.master, "--conf", "spark.ui.enabled=false", JOB]
                               + flags + ["--jwtverify", options.jwtverify, "--output", out + "-tiny", tiny])
            startup_times.append(seconds)
            shutil.rmtree(out, ignore_errors=True)
            shutil.rmtree(out + "-tiny", ignore_errors=True)

        cli, spark, startup = (statistics.median(t) for t in (cli_times, spark_times, startup_times))
        mb = size / 1e6
        print("Input: %d files, %.0f MB, %d lines, %d %s tokens (%d distinct); %d runs, medians; reports equal: %s\n"
              % (options.files, mb, options.files * options.lines, tokens, options.alg, options.pool, options.runs,
                 "yes" if equal else "NO"))
        print("| | wall s | MB/s | tokens/s |")
        print("| --- | ---: | ---: | ---: |")
        print("| `jwtverify audit` (1 process, %d threads) | %.1f | %.1f | %.0f |" % (os.cpu_count(), cli, mb / cli, tokens / cli))
        print("| Spark job, `%s`, end to end | %.1f | %.1f | %.0f |" % (options.master, spark, mb / spark, tokens / spark))
        steady = spark - startup
        print("| Spark job less its fixed cost (%.1f s on a 1-line input) | %.1f | %.1f | %.0f |"
              % (startup, steady, mb / steady, tokens / steady))
        print("\nruns (s): jwtverify %s; spark %s; spark on 1 line %s" % (
            ", ".join("%.1f" % t for t in cli_times), ", ".join("%.1f" % t for t in spark_times),
            ", ".join("%.1f" % t for t in startup_times)))
        return 0 if equal else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

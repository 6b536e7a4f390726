#!/usr/bin/env python3
"""The Spark job (local[2]) against one `jwtverify audit` process on the same generated logs
(make bench-spark), with each of the job's readers (--reader jwtverify and --reader spark).
Prints a Markdown table: input, wall time, MB/s and tokens/s of each, the Spark job's fixed
start-up cost (a run on a 1-line input), the ratio to the single process, and whether the reports
are equal; and beside the wall times, the CPU time of each run (the process and everything it
ran: the JVM, the driver's Python, every jwtverify), which a busy host disturbs less.

A 1-line input does not warm the JVM's compilers, so its run leaves out a fixed cost that every
JVM pays once: compiling the stage's hot paths. Each run therefore also times both sides on twice
the input (the same files again under other names) and prints what the second half cost each of
them, which no fixed cost is part of (--no-doubled skips it)."""

import argparse
import json
import os
import random
import resource
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


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command, cpu=None, **kwargs):
    """Runs `command`; its wall seconds and the run. Its CPU seconds (its own and its waited-for
    descendants') are appended to `cpu` when given."""
    start, used = time.monotonic(), children_cpu()
    run = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if cpu is not None:
        cpu.append(children_cpu() - used)
    return time.monotonic() - start, run


def timed_job(job, out, source, cpu=None):
    """Runs the Spark job `job` over `source` into `out`; its wall seconds and its report.json, or
    None for the report (after printing the job's last output) when the job failed."""
    seconds, done = timed(job + ["--output", out, source], cpu)
    if done.returncode > 1:
        sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
        return seconds, None
    with open(os.path.join(out, "report.json")) as f:
        return seconds, json.load(f)

def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--jwtverify", required=True)
    parser.add_argument("--files", type=int, default=8)
    parser.add_argument("--lines", type=int, default=250_000, help="lines per file")
    parser.add_argument("--token-every", type=int, default=4)
    parser.add_argument("--pool", type=int, default=2000, help="distinct tokens")
    parser.add_argument("--alg", choices=["RS256", "ES256", "mixed"], default="RS256", help="what signs the tokens")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--readers", default="jwtverify,spark", help="the job's --reader values to time, comma-separated")
    parser.add_argument("--no-doubled", dest="doubled", action="store_false",
                        help="skip the runs on twice the input (the cost of the second half, with no fixed cost in it)")
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
        # Twice the input: the same files again under other names (hard links, no more disk).
        doubled, doubled_uris = os.path.join(work, "doubled"), []
        if options.doubled:
            os.makedirs(doubled)
            for path in paths:
                for copy in ("a", "b"):
                    os.link(path, os.path.join(doubled, copy + "-" + os.path.basename(path)))
            doubled_uris = sorted("file:" + os.path.join(doubled, name) for name in os.listdir(doubled))
        flags = ["--jwks", fixtures.JWKS, "--issuer", fixtures.ISSUER, "--audience", fixtures.AUDIENCE,
                 "--now", str(fixtures.EVALUATION_TIME)]
        tiny = os.path.join(work, "tiny.log")
        with open(tiny, "w") as f:
            f.write(fixtures.embed(pool[0], 0, random.Random(1)) + "\n")

        readers = options.readers.split(",")
        cli_times, cli_cpu, equal = [], [], True
        cli_doubled, spark_doubled = [], {reader: [] for reader in readers}
        spark_times = {reader: [] for reader in readers}
        startup_times = {reader: [] for reader in readers}
        spark_cpu = {reader: [] for reader in readers}
        startup_cpu = {reader: [] for reader in readers}
        for run in range(options.runs):
            sys.stderr.write("run %d/%d: jwtverify audit\n" % (run + 1, options.runs))
            # The files as the job names them (file: URIs in listing order), so that the reports'
            # per-token tables and sightings name them alike.
            seconds, single = timed([options.jwtverify, "audit", "--format", "json"] + flags + uris, cli_cpu)
            cli_times.append(seconds)
            expected = json.loads(single.stdout)
            if options.doubled:
                seconds, single = timed([options.jwtverify, "audit", "--format", "json"] + flags + doubled_uris)
                cli_doubled.append(seconds)
                expected_doubled = json.loads(single.stdout)
            for reader in readers:
                sys.stderr.write("run %d/%d: spark-submit --master %s --reader %s\n" % (run + 1, options.runs, options.master, reader))
                job = ["spark-submit", "--master", options.master, "--conf", "spark.ui.enabled=false", JOB] + flags + [
                    "--reader", reader, "--jwtverify", options.jwtverify]
                out = os.path.join(work, "out-%d-%s" % (run, reader))
                seconds, report = timed_job(job, out, logs, spark_cpu[reader])
                if report is None:
                    return 70
                spark_times[reader].append(seconds)
                equal = equal and report == expected
                seconds, _ = timed(job + ["--output", out + "-tiny", tiny], startup_cpu[reader])
                startup_times[reader].append(seconds)
                if options.doubled:
                    seconds, report = timed_job(job, out + "-doubled", doubled)
                    if report is None:
                        return 70
                    spark_doubled[reader].append(seconds)
                    equal = equal and report == expected_doubled
                for name in (out, out + "-tiny", out + "-doubled"):
                    shutil.rmtree(name, ignore_errors=True)

        cli = statistics.median(cli_times)
        mb = size / 1e6
        print("Input: %d files, %.0f MB, %d lines, %d %s tokens (%d distinct); %d runs, medians; reports equal: %s\n"
              % (options.files, mb, options.files * options.lines, tokens, options.alg, options.pool, options.runs,
                 "yes" if equal else "NO"))
        print("| | wall s | MB/s | tokens/s | ratio to one process | CPU s | ratio by CPU |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        cpu = statistics.median(cli_cpu)
        print("| `jwtverify audit` (1 process, %d threads) | %.1f | %.1f | %.0f | 1 | %.1f | 1 |"
              % (os.cpu_count(), cli, mb / cli, tokens / cli, cpu))
        for reader in readers:
            spark, startup = statistics.median(spark_times[reader]), statistics.median(startup_times[reader])
            steady = spark - startup
            spark_used, startup_used = statistics.median(spark_cpu[reader]), statistics.median(startup_cpu[reader])
            print("| Spark job, `%s`, `--reader %s`, end to end | %.1f | %.1f | %.0f | %.2f | %.1f | %.2f |"
                  % (options.master, reader, spark, mb / spark, tokens / spark, cli / spark, spark_used, cpu / spark_used))
            print("| the same less its fixed cost (%.1f s, %.1f s of CPU, on a 1-line input) | %.1f | %.1f | %.0f | %.2f | %.1f | %.2f |"
                  % (startup, startup_used, steady, mb / steady, tokens / steady, cli / steady, spark_used - startup_used,
                     cpu / (spark_used - startup_used)))
        if options.doubled:
            # The second half's cost, run by run (each run's doubled time less its own single time).
            cli_half = statistics.median(b - a for a, b in zip(cli_times, cli_doubled))
            print("\nThe second %.0f MB (each run on twice the input, less the same run on the input; no fixed cost in it):\n" % mb)
            print("| | wall s | MB/s | tokens/s | ratio to one process |")
            print("| --- | ---: | ---: | ---: | ---: |")
            print("| `jwtverify audit` (1 process, %d threads) | %.1f | %.1f | %.0f | 1 |" % (os.cpu_count(), cli_half, mb / cli_half, tokens / cli_half))
            for reader in readers:
                half = statistics.median(b - a for a, b in zip(spark_times[reader], spark_doubled[reader]))
                print("| Spark job, `%s`, `--reader %s` | %.1f | %.1f | %.0f | %.2f |"
                      % (options.master, reader, half, mb / half, tokens / half, cli_half / half))
        print("\nruns (s): jwtverify %s (CPU %s)" % (", ".join("%.1f" % t for t in cli_times), ", ".join("%.1f" % t for t in cli_cpu)))
        if options.doubled:
            print("on twice the input: jwtverify %s" % ", ".join("%.1f" % t for t in cli_doubled))
        for reader in readers:
            print("--reader %s: spark %s (CPU %s); spark on 1 line %s (CPU %s)" % (
                reader, ", ".join("%.1f" % t for t in spark_times[reader]), ", ".join("%.1f" % t for t in spark_cpu[reader]),
                ", ".join("%.1f" % t for t in startup_times[reader]), ", ".join("%.1f" % t for t in startup_cpu[reader])))
            if options.doubled:
                print("--reader %s on twice the input: spark %s" % (reader, ", ".join("%.1f" % t for t in spark_doubled[reader])))
        return 0 if equal else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

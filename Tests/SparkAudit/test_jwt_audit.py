"""The Spark job (Sources/SparkAudit/jwt_audit.py) in local mode against one `jwtverify audit` run.

Run by `make test-spark`, which makes a virtual environment with PySpark and points JWTVERIFY at
the built binary. Every job runs through `spark-submit --master local[2]`, as a user would."""

import glob
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fixtures  # noqa: E402

ROOT = fixtures.ROOT
JOB = os.path.join(ROOT, "Sources", "SparkAudit", "jwt_audit.py")
JWTVERIFY = os.path.abspath(os.environ.get("JWTVERIFY", os.path.join(ROOT, ".build", "debug", "jwtverify")))
SPLIT_SIZE = 64 * 1024
NOW = str(fixtures.EVALUATION_TIME)


def spark_submit(arguments, master="local[2]", extra=()):
    """Runs the job; spark-submit merges the driver's stdout and stderr, so `.output` is both."""
    command = ["spark-submit", "--master", master, "--conf", "spark.ui.enabled=false", *extra, JOB] + arguments
    run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    run.output = run.stdout
    return run


def jwtverify(arguments, input_path=None):
    stdin = open(input_path, "rb") if input_path else subprocess.DEVNULL
    try:
        return subprocess.run([JWTVERIFY] + arguments, stdin=stdin, capture_output=True, timeout=600)
    finally:
        if input_path:
            stdin.close()


def partitions_used(stderr):
    for line in stderr.splitlines():
        if line.startswith("jwt_audit: ") and " files in " in line and " partitions (read by " in line:
            return int(line.split(" files in ")[1].split(" partitions")[0])
    raise AssertionError("no summary line in:\n" + stderr[-3000:])


def read_json_lines(directory):
    records = []
    for part in sorted(glob.glob(os.path.join(directory, "part-*"))):
        with open(part) as f:
            records += [json.loads(line) for line in f if line.strip()]
    return records


class EqualToOneRun:
    """The job's report and records against one `jwtverify audit` run, on the master `MASTER`."""

    MASTER = "local[2]"

    @classmethod
    def setUpClass(cls):
        if not os.access(JWTVERIFY, os.X_OK):
            raise unittest.SkipTest("no jwtverify binary at %s (run through make test-spark)" % JWTVERIFY)
        cls.work = tempfile.mkdtemp(prefix="jwt-audit-test-")
        cls.logs = os.path.join(cls.work, "logs")
        cls.fixture = fixtures.Fixture(cls.logs)
        cls.flags = ["--jwks", fixtures.JWKS, "--issuer", fixtures.ISSUER, "--audience", fixtures.AUDIENCE]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)

    def output(self, name):
        return os.path.join(self.work, name)

    def test_report_and_results_equal_one_jwtverify_run(self):
        out = self.output("now")
        job = spark_submit(self.flags + ["--now", NOW, "--jwtverify", JWTVERIFY, "--split-size", str(SPLIT_SIZE),
                                         "--results-format", "json", "--report-format", "json", "--output", out, self.logs],
                           master=self.MASTER)
        self.assertEqual(job.returncode, 1, job.output[-3000:])  # some tokens are rejected
        self.assertGreaterEqual(partitions_used(job.output), 4 * len(self.fixture.paths) - 1)
        with open(os.path.join(out, "report.json")) as f:
            report = json.load(f)
        self.assertIn(json.dumps(report, separators=(",", ":"), ensure_ascii=False) + "\n", job.output)

        # The files as the job names them (file: URIs, in listing order), which jwtverify reads too.
        uris = sorted("file:" + os.path.join(self.logs, name) for name in os.listdir(self.logs))
        single = jwtverify(["audit", "--format", "json", "--now", NOW] + self.flags + uris)
        self.assertEqual(single.returncode, 1, single.stderr)
        expected = json.loads(single.stdout)
        self.assertEqual(report, expected)
        # report.html comes from the same renderer: byte for byte the page one audit run makes.
        page = jwtverify(["audit", "--format", "html", "--now", NOW] + self.flags + uris)
        with open(os.path.join(out, "report.html"), "rb") as f:
            self.assertEqual(f.read(), page.stdout)
        # And the numbers are the fixture's: nothing lost or counted twice across partitions.
        # Every placed token is found but one: the samples' last line is a cut-off token (truncated).
        self.assertEqual(report["tokens"], self.fixture.token_count - 1)
        self.assertEqual(report["repeated_tokens"], 2)
        self.assertEqual(report["repeated_occurrences"], 3)
        self.assertEqual(report["shared_nonces"], 2)  # the replayed nonce, and the samples' shared one
        self.assertEqual(report["tokens_sharing_nonces"], 2 + 21)
        self.assertEqual(report["discarded"]["truncated"], self.fixture.truncated + 1)
        self.assertEqual(report["by_reason"]["expired"], 4 + 1)
        self.assertEqual(report["anomalies"]["email_verified false"], 3)
        self.assertEqual(report["by_audience"]["com.other.app"], 3)
        self.assertEqual(report["by_audience"]['["%s"]' % fixtures.AUDIENCE], 1)

        # Per token: the same records as jwtverify over the same files, at the same places.
        results = read_json_lines(os.path.join(out, "tokens"))
        plain = jwtverify(["audit", "--format", "jsonl", "--now", NOW] + self.flags + self.fixture.paths)
        expected_records = [json.loads(line) for line in plain.stdout.decode().splitlines()]
        self.assertEqual(len(results), len(expected_records))

        def normalized_job(record):
            path = record["file"][len("file:"):] if record["file"].startswith("file:") else record["file"]
            return (path, record["line"]) + tuple(record.get(k) for k in COMPARED) + (record.get("aud"),)

        def normalized_cli(record):
            audience = record.get("aud")
            return (record["file"], record["line"]) + tuple(record.get(k) for k in COMPARED) + (
                [audience] if isinstance(audience, str) else audience,)

        place = lambda row: row[:3]
        job_rows = sorted(map(normalized_job, results), key=place)
        cli_rows = sorted(map(normalized_cli, expected_records), key=place)
        self.assertEqual(job_rows, cli_rows)
        # The repeats and the replay really were split: different files, and 200 KB apart in one.
        where = {}
        for row in job_rows:
            where.setdefault(row[COMPARED.index("fingerprint") + 2], []).append(row[:2])
        self.assertEqual(len({path for path, _ in where[fixtures_fingerprint(self.fixture.repeated_across_files)]}), 3)
        self.assertEqual([line for _, line in where[fixtures_fingerprint(self.fixture.repeated_in_file)]],
                         [6, fixtures.Fixture.LINES_PER_FILE - 4])
        replay_files = {where[fixtures_fingerprint(t)][0][0] for t in self.fixture.replay}
        self.assertEqual(len(replay_files), 2)

    def test_at_iat_and_the_table_report(self):
        out = self.output("iat")
        pattern = os.path.join(self.logs, "app-*.log")
        # Spark's reader without --split-size: Spark packs the small files into fewer partitions
        # than files, and the lines of each file are still numbered from 1 (the per-token sightings
        # below compare them).
        job = spark_submit(self.flags + ["--at", "iat", "--reader", "spark", "--jwtverify", JWTVERIFY, "--output", out, pattern],
                           master=self.MASTER)
        self.assertEqual(job.returncode, 1, job.output[-3000:])
        self.assertLess(partitions_used(job.output), len(self.fixture.paths))
        uris = sorted("file:" + os.path.join(self.logs, name) for name in os.listdir(self.logs))
        with open(os.path.join(out, "report.json")) as f:
            self.assertEqual(json.load(f), json.loads(jwtverify(["audit", "--format", "json", "--at", "iat"] + self.flags + uris).stdout))
        # The same files, named as the job names them: the table lists rejected occurrences by place.
        single = jwtverify(["audit", "--format", "table", "--at", "iat"] + self.flags + uris)
        with open(os.path.join(out, "report.txt")) as f:
            self.assertEqual(f.read(), single.stdout.decode())
        self.assertIn(single.stdout.decode(), job.output)
        with open(os.path.join(out, "report.json")) as f:
            report = json.load(f)
        self.assertNotIn("expired", report["by_reason"])  # each token is judged at its own iat
        self.assertTrue(glob.glob(os.path.join(out, "tokens", "part-*.parquet")))
        self.assertTrue(os.path.exists(os.path.join(out, "tokens", "_SUCCESS")))

    def test_jwtverify_reads_local_files_itself(self):
        # Local, uncompressed files and no --split-size: auto gives each task's jwtverify its files.
        # One more file holds invalid UTF-8 before a token, where Spark's text source would re-encode
        # the line and shift the token's column; here the column is the CLI's.
        logs = os.path.join(self.work, "direct-logs")
        shutil.copytree(self.logs, logs)
        with open(os.path.join(logs, "binary.log"), "wb") as f:
            f.write(b"plain line\n\xff\xfe\xc3 junk " + self.fixture.repeated_in_file.encode() + b" tail\n")
        out = self.output("direct")
        job = spark_submit(self.flags + ["--now", NOW, "--jwtverify", JWTVERIFY, "--results-format", "json", "--output", out, logs],
                           master=self.MASTER)
        self.assertEqual(job.returncode, 1, job.output[-3000:])
        self.assertIn("(read by jwtverify)", job.output)
        self.assertEqual(partitions_used(job.output), 2)  # local[2]: the small files dealt into two tasks
        uris = sorted("file:" + os.path.join(logs, name) for name in os.listdir(logs))
        single = jwtverify(["audit", "--format", "json", "--now", NOW] + self.flags + uris)
        with open(os.path.join(out, "report.json")) as f:
            self.assertEqual(json.load(f), json.loads(single.stdout))
        with open(os.path.join(out, "report.txt")) as f:
            self.assertEqual(f.read(), jwtverify(["audit", "--format", "table", "--now", NOW] + self.flags + uris).stdout.decode())
        # Per token: the CLI's records, at the same file (as named), line and column.
        plain = jwtverify(["audit", "--format", "jsonl", "--now", NOW] + self.flags + uris)
        expected = [json.loads(line) for line in plain.stdout.decode().splitlines()]
        row = lambda r: (r["file"], r["line"]) + tuple(r.get(k) for k in COMPARED) + (
            [r["aud"]] if isinstance(r.get("aud"), str) else r.get("aud"),)
        place = lambda r: r[:3]
        results = read_json_lines(os.path.join(out, "tokens"))
        self.assertEqual(sorted(map(row, results), key=place), sorted(map(row, expected), key=place))
        binary = [r for r in results if r["file"].endswith("binary.log")]
        self.assertEqual([(r["line"], r["column"]) for r in binary], [(2, len(b"\xff\xfe\xc3 junk ") + 1)])
        # Asking for the jwtverify reader over a compressed file is a usage error.
        compressed = os.path.join(self.work, "one.log.gz")
        with open(self.fixture.paths[0], "rb") as source, gzip.open(compressed, "wb") as target:
            shutil.copyfileobj(source, target)
        refused = spark_submit(self.flags + ["--now", NOW, "--reader", "jwtverify", "--jwtverify", JWTVERIFY,
                                             "--output", self.output("refused"), compressed])
        self.assertEqual(refused.returncode, 64, refused.output[-2000:])
        self.assertIn("--reader jwtverify", refused.output)



class SparkAuditTests(EqualToOneRun, unittest.TestCase):
    """The equality tests on local[2], and the job's other behaviour."""

    def test_on_a_cluster_keys_are_fetched_once_and_shipped_with_the_binary(self):
        # local-cluster: two executor JVMs with their own working directories, as on a real cluster.
        # The job fetches the URL once on the driver; the snapshot and the binary travel with it.
        origin = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests", "Support", "jwks_origin.py")],
                                  stdout=subprocess.PIPE, text=True)
        try:
            port = int(origin.stdout.readline())
            with open(fixtures.JWKS) as f:
                document = f.read()
            control = urllib.request.Request("http://127.0.0.1:%d/control" % port, method="POST",
                                             data=json.dumps({"mode": "ok", "document": document}).encode())
            urllib.request.urlopen(control, timeout=10).read()
            url = "http://127.0.0.1:%d/keys" % port
            binary = os.path.join(self.work, "shipped", "jwtverify")
            os.makedirs(os.path.dirname(binary), exist_ok=True)
            shutil.copy(JWTVERIFY, binary)
            out = self.output("cluster")
            # The second file gzip-compressed: Hadoop reads it whole, as one partition.
            compressed = os.path.join(self.work, "app-1.log.gz")
            with open(self.fixture.paths[1], "rb") as source, gzip.open(compressed, "wb") as target:
                shutil.copyfileobj(source, target)
            job = spark_submit(["--jwks", url, "--issuer", fixtures.ISSUER, "--audience", fixtures.AUDIENCE, "--now", NOW,
                                "--jwtverify", binary, "--split-size", str(SPLIT_SIZE), "--results-format", "json",
                                "--output", out, self.fixture.paths[0], compressed],
                               master="local-cluster[2,1,1024]")
            self.assertEqual(job.returncode, 1, job.output[-3000:])
            self.assertGreaterEqual(partitions_used(job.output), 5)
            stats = json.loads(urllib.request.urlopen("http://127.0.0.1:%d/stats" % port, timeout=10).read())
            self.assertEqual(stats["requests"], 1)
        finally:
            origin.kill()
            origin.wait()
            origin.stdout.close()
        # One audit run over the same two files uncompressed: the same report, and the same rows of
        # the per-token table apart from the second file's name (the job read it gzip-compressed).
        single = jwtverify(["audit", "--format", "json", "--now", NOW] + self.flags + self.fixture.paths[:2])
        expected = json.loads(single.stdout)
        with open(os.path.join(out, "report.json")) as f:
            report = json.load(f)
        # (Sightings name files too: compare their lines and columns.)
        places = {"tokens_table", "repeats", "shared_nonce_list", "findings"}
        apart_from_table = lambda r: {key: value for key, value in r.items() if key not in places}
        self.assertEqual(apart_from_table(report), apart_from_table(expected))
        # The findings lead both reports alike; their evidence's sightings name files as each run does.
        unplaced = lambda finding: dict(finding, evidence=[
            {key: (value["line"], value["column"]) if key in ("first", "last") else value for key, value in item.items()}
            for item in finding["evidence"]])
        self.assertEqual([unplaced(f) for f in report["findings"]], [unplaced(f) for f in expected["findings"]])
        row_key = lambda row: (row["line"], row["column"], row["fingerprint"], row["valid"], row["reason"], row["kid"], row["aud"], row["iat"])
        self.assertEqual([row_key(r) for r in report["tokens_table"]["rows"]], [row_key(r) for r in expected["tokens_table"]["rows"]])
        self.assertEqual(report["tokens_table"]["omitted"], expected["tokens_table"]["omitted"])
        for name in ("repeats", "shared_nonce_list"):
            spot = lambda entry: [entry[k] for k in sorted(entry) if k not in ("first", "last")] + [
                (entry[s]["line"], entry[s]["column"]) for s in ("first", "last")]
            self.assertEqual([spot(e) for e in report[name]], [spot(e) for e in expected[name]])
        records = read_json_lines(os.path.join(out, "tokens"))
        self.assertEqual({record.get("key_source") for record in records}, {url, None})  # as given; None: not verified
        in_compressed = [record for record in records if record["file"].endswith(".gz")]
        plain = jwtverify(["audit", "--format", "jsonl", "--now", NOW] + self.flags + [self.fixture.paths[1]])
        expected = [json.loads(line) for line in plain.stdout.decode().splitlines()]
        self.assertEqual(sorted((r["line"], r["column"], r["fingerprint"]) for r in in_compressed),
                         sorted((r["line"], r["column"], r["fingerprint"]) for r in expected))

    def test_usage_and_input_errors(self):
        usage = spark_submit(["--jwks", fixtures.JWKS, self.logs])  # no --output
        self.assertEqual(usage.returncode, 64, usage.output[-2000:])
        bad_flag = spark_submit(self.flags + ["--leeway", "soon", "--jwtverify", JWTVERIFY, "--output", self.output("x"), self.logs])
        self.assertEqual(bad_flag.returncode, 64, bad_flag.output[-2000:])
        self.assertIn("--leeway", bad_flag.output)
        garbage = os.path.join(self.work, "garbage.json")
        with open(garbage, "w") as f:
            f.write("{not json")
        unusable = spark_submit(["--jwks", garbage, "--jwtverify", JWTVERIFY, "--output", self.output("y"), self.logs])
        self.assertEqual(unusable.returncode, 65, unusable.output[-2000:])
        self.assertIn(garbage, unusable.output)
        missing_keys = spark_submit(["--jwks", garbage + ".absent", "--jwtverify", JWTVERIFY, "--output", self.output("z"), self.logs])
        self.assertEqual(missing_keys.returncode, 66, missing_keys.output[-2000:])
        missing = spark_submit(self.flags + ["--now", NOW, "--jwtverify", JWTVERIFY, "--output", self.output("m"),
                                             os.path.join(self.work, "absent", "*.log")])
        self.assertEqual(missing.returncode, 66, missing.output[-2000:])
        self.assertIn("no such file", missing.output)
        self.assertFalse(os.path.exists(self.output("m")))

    def test_a_failing_stage_fails_the_job(self):
        # Passes the driver's check (the header, on empty input) but exits 9 on the first line it reads.
        stage = os.path.join(self.work, "failing-jwtverify")
        header = subprocess.run([JWTVERIFY, "audit", "--jwks", fixtures.JWKS, "--tagged-input", "--format", "tsv"],
                                input="", capture_output=True, text=True).stdout
        with open(stage, "w") as f:
            f.write("#!/bin/sh\nprintf '%%s' '%s'\nif read -r line; then echo 'stage broke' >&2; exit 9; fi\nexit 0\n" % header)
        os.chmod(stage, 0o755)
        job = spark_submit(self.flags + ["--now", NOW, "--jwtverify", stage, "--output", self.output("f"), self.logs])
        self.assertEqual(job.returncode, 70, job.output[-3000:])
        self.assertIn("the Spark job failed", job.output)
        self.assertFalse(os.path.exists(os.path.join(self.output("f"), "report.json")))


COMPARED = ["column", "valid", "reason", "detail", "alg", "kid", "key_source", "iss", "sub", "iat", "exp", "lifetime",
            "evaluated_at", "fingerprint", "nonce_fingerprint", "anomalies"]


def fixtures_fingerprint(token):
    import hashlib
    return hashlib.sha256(token.encode()).hexdigest()


if __name__ == "__main__":
    unittest.main(verbosity=2)


class SparkAuditClusterTests(EqualToOneRun, unittest.TestCase):
    """The same equality tests on local-cluster[2,1,1024]: two executor JVMs, each in its own
    working directory, the binary and the key set shipped with the job."""

    MASTER = "local-cluster[2,1,1024]"


if __name__ == "__main__":
    unittest.main()

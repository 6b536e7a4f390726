"""The Spark job at scale on a real (local) cluster: many distinct tokens, merged where the data
is. Two executor JVMs of 1 GB and a driver of 512 MB, as the benchmark runs it with 3,000,000
distinct tokens (make bench-spark); here a smaller count stands in, within the one-process
tracking limit, so that one `jwtverify audit` run can be compared byte for byte."""

import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import distinct_corpus  # noqa: E402
from test_jwt_audit import JWTVERIFY, NOW, jwtverify, partitions_used, spark_submit  # noqa: E402
import fixtures  # noqa: E402

DISTINCT = int(os.environ.get("SCALE_DISTINCT", "300000"))
CLUSTER = "local-cluster[2,1,1024]"
SMALL_DRIVER = ("--conf", "spark.driver.memory=512m")


class SparkScaleTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.access(JWTVERIFY, os.X_OK):
            raise unittest.SkipTest("no jwtverify binary at %s (run through make test-spark)" % JWTVERIFY)
        cls.work = tempfile.mkdtemp(prefix="jwt-audit-scale-")
        cls.paths, cls.expected = distinct_corpus.write(os.path.join(cls.work, "logs"), DISTINCT)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)

    def test_many_distinct_tokens_on_a_cluster_give_the_planted_counts_and_one_runs_report(self):
        out = os.path.join(self.work, "out")
        # The spark reader: blocks of 8 MB, so the files are split across tasks and the planted
        # repeats and shared nonces meet only in the reduction's shuffle.
        job = spark_submit(["--jwks", fixtures.JWKS, "--now", NOW, "--jwtverify", JWTVERIFY, "--reader", "spark",
                            "--split-size", str(8 << 20), "--report-format", "json", "--output", out, *self.paths],
                           master=CLUSTER, extra=SMALL_DRIVER)
        self.assertEqual(job.returncode, 1, job.output[-3000:])  # every token is rejected (unknown kid)
        self.assertGreater(partitions_used(job.output), len(self.paths))
        with open(os.path.join(out, "report.json")) as f:
            report = json.load(f)
        for name in ("tokens", "repeated_tokens", "repeated_occurrences", "shared_nonces", "tokens_sharing_nonces"):
            self.assertEqual(report[name], self.expected[name], name)
        self.assertEqual(report["tokens"] - report["repeated_occurrences"], self.expected["distinct"])
        self.assertFalse(report["tracking_capped"])
        self.assertEqual(len(report["repeats"]), min(100, self.expected["repeated_tokens"]))
        self.assertEqual(len(report["shared_nonce_list"]), min(100, self.expected["shared_nonces"]))
        uris = ["file:" + path for path in self.paths]
        single = jwtverify(["audit", "--format", "json", "--jwks", fixtures.JWKS, "--now", NOW] + uris)
        self.assertEqual(single.returncode, 1, single.stderr)
        with open(os.path.join(out, "report.json"), "rb") as f:
            self.assertEqual(f.read(), single.stdout)


if __name__ == "__main__":
    unittest.main()

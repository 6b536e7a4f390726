"""The Spark job's place numbers (jwt_audit.Places): where a token record was found, as one number
that sorts in input order and reads back as file, line and column, over a long and over a decimal.
Runs Spark in this process (local[1]); no job, no binary."""

import os
import random
import sys
import unittest

import fixtures  # noqa: F401  (puts the job's directory on the path)

sys.path.insert(0, os.path.join(fixtures.ROOT, "Sources", "SparkAudit"))
import jwt_audit  # noqa: E402


def sample_places(files, count, seed):
    """Random places within the listing's bounds, with the extremes of each part."""
    rng = random.Random(seed)
    names = [name for name, _ in files]
    largest = max(size for _, size in files)
    lines = [1, 2, largest if largest < 10 ** 18 else 10 ** 18, rng.randrange(1, 10 ** 6)]
    widest = jwt_audit.Places(files).columns
    columns = [1, 2, widest - 1, rng.randrange(1, 4096)]
    places = [(name, line, column) for name in (names[0], names[-1]) for line in lines for column in columns]
    while len(places) < count:
        places.append((rng.choice(names), rng.choice(lines + [rng.randrange(1, 1 << 20)]),
                       rng.choice(columns + [rng.randrange(1, widest)])))
    return places


class PlacesTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        from pyspark.sql import SparkSession
        cls.spark = (SparkSession.builder.master("local[1]").appName("places").config("spark.ui.enabled", "false")
                     .config("spark.log.level", "WARN").getOrCreate())

    @classmethod
    def tearDownClass(cls):
        cls.spark.stop()

    def check(self, files, expected_type):
        places = jwt_audit.Places(files)
        self.assertEqual(places.type, expected_type)
        rows = sample_places(files, 400, seed=len(files))
        frame = self.spark.createDataFrame(rows, "file string, line long, column long")
        numbered = places.numbered(frame).withColumnRenamed("_place", "place").collect()
        self.assertEqual(len(numbered), len(rows))
        for row in numbered:
            self.assertIsNotNone(row["place"], row)
            self.assertEqual(places.where(row["place"]), {"file": row["file"], "line": row["line"], "column": row["column"]})
        order = {name: index for index, (name, _) in enumerate(files)}
        by_number = [(r["file"], r["line"], r["column"]) for r in sorted(numbered, key=lambda r: r["place"])]
        self.assertEqual(by_number, sorted(rows, key=lambda p: (order[p[0]], p[1], p[2])))

    def test_a_long_when_the_listing_fits(self):
        # Listed out of name order: the number follows the listing, not the names.
        self.check([("file:/logs/b.log", 75_000_000), ("file:/logs/a.log", 1_000), ("file:/logs/c.log", 0)], "long")

    def test_a_decimal_when_it_does_not(self):
        self.check([("file:/logs/a.log", 1 << 45), ("file:/logs/b.log", 10)], "decimal(38,0)")

    def test_compressed_files_have_no_line_bound(self):
        self.check([("file:/logs/a.log", 10), ("file:/logs/b.log.gz", 10)], "decimal(38,0)")

    def test_beyond_a_decimal_is_refused(self):
        with self.assertRaises(jwt_audit.Failure) as refused:
            jwt_audit.Places([("file:/logs/a.log", 10 ** 40)])
        self.assertEqual(refused.exception.status, jwt_audit.EXIT_USAGE)


if __name__ == "__main__":
    unittest.main()

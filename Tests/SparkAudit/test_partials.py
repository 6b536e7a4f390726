"""How the Spark job orders the tasks' partial reports before `jwtverify audit merge`
(jwt_audit.ordered_partials): runs that start at the input's places, handed back in any order,
come out in input order, each as jwtverify wrote it (jwtverify names their places by the job's
listing; the job only moves them). Pure Python; no Spark, no binary."""

import json
import os
import random
import sys
import unittest

import fixtures  # noqa: F401  (puts the job's directory on the path)

sys.path.insert(0, os.path.join(fixtures.ROOT, "Sources", "SparkAudit"))
import jwt_audit  # noqa: E402

NAMES = ["file:/logs/a.log", "file:/logs/b.log", "file:/logs/c.log"]


def partial(label, tag=None):
    """A stand-in partial: one table row and one distinct token, sighted at `tag` when given."""
    where = {"tag": tag, "column": 5} if tag else {"file": label, "line": 3, "column": 5}
    row = dict({"fingerprint": label}, **where)
    return {"audit_partial": 1, "label": label, "table_rows": [row], "distinct": [{"first": dict(where), "last": dict(where)}]}


def line(start, value):
    return jwt_audit.PARTIAL_MARK + json.dumps(start) + "\t" + json.dumps(value)


class OrderedPartialsTests(unittest.TestCase):
    def test_runs_of_tagged_lines_in_any_order_come_out_in_input_order(self):
        starts = [[0, 1], [0, 700], [1, 1], [1, 2], [2, 9], [2, 10000]]
        for seed in range(20):
            shuffled = starts[:]
            random.Random(seed).shuffle(shuffled)
            lines = [line(start, partial("%d:%d" % tuple(start), tag="%d:%d" % tuple(start))) for start in shuffled]
            merged = [json.loads(text) for text in jwt_audit.ordered_partials(lines, NAMES).splitlines()]
            self.assertEqual([p["label"] for p in merged], ["%d:%d" % tuple(start) for start in starts])

    def test_partials_pass_as_jwtverify_wrote_them(self):
        text = json.dumps(partial("x", tag="2:41"), separators=(",", ":"))
        self.assertEqual(jwt_audit.ordered_partials([jwt_audit.PARTIAL_MARK + "[2,40]\t" + text], NAMES), text + "\n")

    def test_files_sort_by_the_listing_and_keep_their_names(self):
        lines = [line(NAMES[2], partial(NAMES[2])), line(NAMES[0], partial(NAMES[0])), line(None, {"audit_partial": 1, "label": "counts"}),
                 line(NAMES[1], partial(NAMES[1]))]
        merged = [json.loads(text) for text in jwt_audit.ordered_partials(lines, NAMES).splitlines()]
        self.assertEqual([p["label"] for p in merged], ["counts"] + NAMES)
        self.assertEqual(merged[1]["table_rows"][0]["file"], NAMES[0])

    def test_a_file_holding_a_tab_or_a_quote_keeps_its_name(self):
        names = ['file:/logs/odd\t"name".log']
        merged = json.loads(jwt_audit.ordered_partials([line(names[0], partial(names[0]))], names))
        self.assertEqual(merged["label"], names[0])


if __name__ == "__main__":
    unittest.main()

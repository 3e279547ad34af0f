#!/usr/bin/env python3
"""Tests of tools/plot_log.py, the SVG pictures of training logs and ranks.

Each test writes small inputs to a temporary folder, runs the script as a user
would, and reads the SVG back with xml.etree: every run's line must hold one
point per epoch that logged the panel's value, the histogram's bars must count
the ranks of the file, and malformed input must fail naming the file and line.
Needs python3 only (no ntp binary). Run by ctest (`plot_log`), or by hand:

    python3 tests/tools/test_plot_log.py
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

SOURCE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCRIPT = os.path.join(SOURCE, "tools", "plot_log.py")
SVG = "{http://www.w3.org/2000/svg}"
# The header `ntp eval --ranks` writes (ntp/eval/protocol.cpp, write_ranks).
RANKS_HEADER = "triple\tside\trank\toptimistic_rank\tscored\tcorruptions"


def run_tool(*args):
    """Runs plot_log.py; returns (exit status, stdout, stderr)."""
    done = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout, done.stderr


def log_line(epoch, **values):
    return json.dumps({"epoch": epoch, **values, "build": "ntp test"})


def points(polyline):
    """The (x, y) pairs of an SVG polyline's points attribute."""
    return [tuple(float(c) for c in p.split(",")) for p in polyline.get("points").split()]


class Folder(unittest.TestCase):
    """A temporary folder per test, with a helper to write files into it."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, lines):
        path = os.path.join(self.dir, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines))
        return path

    def draw(self, *args):
        """Runs the tool, expects success, returns the parsed SVG's root."""
        out = os.path.join(self.dir, "out.svg")
        status, _, err = run_tool(*args, "--out", out)
        self.assertEqual(status, 0, err)
        return ET.parse(out).getroot()


class TrainingCurves(Folder):
    def two_runs(self):
        # Run a: 6 epochs, dev MRR every 2nd epoch, recall@1 every epoch.
        # Run b: 4 epochs, dev MRR every epoch, no recall@1.
        a = [log_line(e, loss=2.0 / e, seconds=0.1 + e / 100, **({"dev_mrr": e / 10} if e % 2 == 0 else {}),
                      recall_at_1=0.9 + e / 100) for e in range(1, 7)]
        b = [log_line(e, loss=3.0 - e / 2, seconds=0.2, dev_mrr=0.3 + e / 10) for e in range(1, 5)]
        return self.write("a.jsonl", a), self.write("b.jsonl", b)

    def lines_by_panel(self, root):
        """{panel id: {run index: polyline}}."""
        panels = {}
        for g in root.iter(SVG + "g"):
            if g.get("class") == "panel":
                panels[g.get("id")] = {int(p.get("data-run")): p for p in g.iter(SVG + "polyline")}
        return panels

    def test_each_run_has_a_point_per_logged_epoch_in_each_panel(self):
        root = self.draw(*self.two_runs())
        counts = {panel: {run: len(points(line)) for run, line in lines.items()}
                  for panel, lines in self.lines_by_panel(root).items()}
        self.assertEqual(counts, {"panel-loss": {0: 6, 1: 4}, "panel-dev_mrr": {0: 3, 1: 4},
                                  "panel-recall_at_1": {0: 6}, "panel-seconds": {0: 6, 1: 4}})

    def test_points_go_right_with_the_epoch_and_up_with_the_value(self):
        root = self.draw(*self.two_runs())
        loss = points(self.lines_by_panel(root)["panel-loss"][0])  # 2/e: falls, so y grows downwards
        self.assertEqual([x for x, _ in loss], sorted(x for x, _ in loss))
        self.assertEqual([y for _, y in loss], sorted(y for _, y in loss))
        # Epochs lie at the same offsets in every panel: one epoch axis for all
        # (the panels stand in two columns, so offsets from epoch 1 are compared).
        seconds = points(self.lines_by_panel(root)["panel-seconds"][0])
        offsets = lambda line: [round(x - line[0][0], 1) for x, _ in line]
        self.assertEqual(offsets(loss), offsets(seconds))

    def test_panels_without_data_are_left_out_and_any_dev_metric_gets_one(self):
        log = self.write("c.jsonl", [log_line(e, loss=1.0, seconds=0.5, dev_accuracy=e / 10) for e in (1, 2, 3)])
        self.assertEqual(list(self.lines_by_panel(self.draw(log))),
                         ["panel-loss", "panel-dev_accuracy", "panel-seconds"])
        bare = self.write("d.jsonl", [log_line(e, loss=1.0 / e, seconds=0.5) for e in (1, 2)])
        self.assertEqual(list(self.lines_by_panel(self.draw(bare))), ["panel-loss", "panel-seconds"])

    def test_legend_names_the_files_or_the_labels(self):
        a, b = self.two_runs()
        legend = lambda root: [t.text for g in root.iter(SVG + "g") if g.get("class") == "legend"
                               for t in g.iter(SVG + "text")]
        self.assertEqual(legend(self.draw(a, b)), ["a.jsonl", "b.jsonl"])
        self.assertEqual(legend(self.draw(a, b, "--label", "k=1", "k=0")), ["k=1", "k=0"])

    def test_a_repeated_epoch_counts_once(self):
        # A resumed run may log an epoch again; the later line replaces the earlier one.
        log = self.write("r.jsonl", [log_line(1, loss=2.0, seconds=1.0), log_line(2, loss=1.5, seconds=1.0),
                                     log_line(2, loss=1.0, seconds=1.0), log_line(3, loss=0.5, seconds=1.0)])
        self.assertEqual(len(points(self.lines_by_panel(self.draw(log))["panel-loss"][0])), 3)


class RankHistogram(Folder):
    # Ranks and the bin each belongs to; mean ranks over ties can be fractional
    # (1.5 is not a HITS@1, so it counts in 2-3).
    RANKS = {"1": [1, 1, 1], "2-3": [1.5, 2, 3], "4-10": [4, 10], "11-100": [10.5, 11, 100], ">100": [101, 5000]}

    def ranks_file(self):
        rows = [f"r(a{i}, b)\t{'subject' if i % 2 else 'object'}\t{r}\t{r}\t5\t9"
                for i, r in enumerate(r for ranks in self.RANKS.values() for r in ranks)]
        return self.write("ranks.tsv", [RANKS_HEADER] + rows)

    def test_bars_count_the_ranks_of_the_file(self):
        root = self.draw("--ranks", self.ranks_file())
        bars = [r for r in root.iter(SVG + "rect") if r.get("class") == "bar"]
        self.assertEqual({b.get("data-bin"): int(b.get("data-count")) for b in bars},
                         {name: len(ranks) for name, ranks in self.RANKS.items()})
        # Heights in proportion to the counts (to the rounding of one decimal).
        per_rank = {float(b.get("height")) / int(b.get("data-count")) for b in bars}
        self.assertLess(max(per_rank) - min(per_rank), 0.1)

    def test_summary_line_gives_the_mrr_of_the_ranks(self):
        root = self.draw("--ranks", self.ranks_file())
        ranks = [r for rs in self.RANKS.values() for r in rs]
        mrr = sum(1 / r for r in ranks) / len(ranks)
        self.assertTrue(any(f"MRR {mrr:.4f}" in (t.text or "") for t in root.iter(SVG + "text")))


class Refusals(Folder):
    def assert_refused(self, args, where, what, status=1):
        code, _, err = run_tool(*args, "--out", os.path.join(self.dir, "never.svg"))
        self.assertEqual(code, status, err)
        self.assertIn(where, err)
        self.assertIn(what, err)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "never.svg")))

    def test_a_line_that_is_not_json(self):
        log = self.write("bad.jsonl", [log_line(1, loss=1.0), log_line(2, loss=0.9), '{"epoch": 3, "loss": '])
        self.assert_refused([log], "bad.jsonl:3:", "not JSON")

    def test_an_object_without_epoch(self):
        log = self.write("noepoch.jsonl", [log_line(1, loss=1.0), json.dumps({"loss": 0.5})])
        self.assert_refused([log], "noepoch.jsonl:2:", '"epoch"')

    def test_a_value_that_is_not_a_number(self):
        log = self.write("text.jsonl", [log_line(1, loss="low")])
        self.assert_refused([log], "text.jsonl:1:", '"loss"')

    def test_an_empty_log_and_a_missing_file(self):
        self.assert_refused([self.write("empty.jsonl", [])], "empty.jsonl", "no epochs")
        self.assert_refused([os.path.join(self.dir, "absent.jsonl")], "absent.jsonl", "cannot read")

    def test_a_bad_rank(self):
        ranks = self.write("r.tsv", [RANKS_HEADER, "r(a, b)\tsubject\t1\t1\t5\t9", "r(a, b)\tobject\t0.5\t1\t5\t9"])
        self.assert_refused(["--ranks", ranks], "r.tsv:3:", "not a number >= 1")
        short = self.write("s.tsv", [RANKS_HEADER, "r(a, b)\tsubject\t1"])
        self.assert_refused(["--ranks", short], "s.tsv:2:", "expected 6 tab-separated fields")
        self.assert_refused(["--ranks", self.write("h.tsv", ["a\tb", "1\t2"])], "h.tsv:1:", '"rank"')

    def test_usage_errors_exit_2(self):
        log = self.write("ok.jsonl", [log_line(1, loss=1.0)])
        self.assert_refused([], "usage:", "nothing to draw", status=2)
        self.assert_refused([log, "--label", "a", "b"], "usage:", "2 labels for 1 logs", status=2)
        self.assert_refused([log, "--ranks", log], "usage:", "not both", status=2)

    def test_help(self):
        code, out, _ = run_tool("--help")
        self.assertEqual(code, 0)
        self.assertIn("--ranks", out)


if __name__ == "__main__":
    unittest.main(verbosity=2)

#!/usr/bin/env python3
"""Tests of the Python module `ntp` on the bundled family KB.

The module must give the same numbers as the command line: a model trained by
`ntp train` is asked through both, and every score agrees to 1e-9 (the CLI's
JSON writes each number so that it reads back exactly). Training from Python
with the same options as the CLI gives the same model. Run by ctest when the
build has -DNTP_PYTHON=ON, or by hand:

    PYTHONPATH=build/python NTP_CLI=build/ntp /usr/bin/python3 tests/python/test_ntp.py

NTP_WORK names a folder for the models (default: a temporary one).
"""
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import unittest

import numpy as np

import ntp

SOURCE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
FAMILY = os.path.join(SOURCE, "datasets", "family")
CLI = os.environ.get("NTP_CLI", os.path.join(SOURCE, "build", "ntp"))
TOLERANCE = 1e-9
# Small and quick, the default prover (NTPλ, k = 1); one thread, so that a run is reproducible.
# The file's templates alone (no choice of mined ones beside them): test_rules counts them.
OPTIONS = {"dim": 10, "epochs": 3, "seed": 1, "lr": 0.05, "mined_templates": False}
ATOMS = ["grandfatherOf(m57, m61)", "parentOf(m32, m33)", "childOf(f67, f58)", "fatherOf(m1, m11)",
         "motherOf(f12, m14)", "grandparentOf(m15, f28)", "grandfatherOf(m32, f16)", "childOf(m33, m32)"]


def family(name):
    return os.path.join(FAMILY, name)


def cli(*args):
    """Runs the ntp program; returns its stdout."""
    done = subprocess.run([CLI, *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise AssertionError(f"ntp {' '.join(args)} failed ({done.returncode}): {done.stderr}")
    return done.stdout


def cli_options(options):
    out = []
    for name, value in options.items():
        out += [f"--{name.replace('_', '-')}={str(value).lower() if isinstance(value, bool) else value}"]
    return out


class Work:
    folder = os.environ.get("NTP_WORK") or tempfile.mkdtemp(prefix="ntp-python-test-")


def setUpModule():
    os.makedirs(Work.folder, exist_ok=True)
    Work.model = os.path.join(Work.folder, "family.ntp")
    cli("train", "--train", family("train.nl"), "--templates", family("family.nlt"), "--dev", family("dev.nl"),
        "--test", family("test.nl"), "--model", Work.model, "--threads", "1", "--quiet", *cli_options(OPTIONS))
    Work.reasoner = ntp.load(Work.model)


def rbf(a, b):
    """NTP's kernel as the library computes it (autodiff/ops.h): exp(-√s), the
    squared distance s clipped to [1e-6, 1e3] (a symbol matched with itself
    scores exp(-1e-3))."""
    return np.exp(-np.sqrt(np.clip(np.sum((a - b) ** 2), 1e-6, 1e3)))


def close(a, b):
    return abs(a - b) <= TOLERANCE


class SameAsCommandLine(unittest.TestCase):
    """prove, answer, score, rules and evaluate against the CLI's JSON."""

    def assert_proof(self, proof, expected):
        self.assertTrue(close(proof.score, expected["score"]))
        self.assertEqual(len(proof.steps), len(expected["steps"]))
        for step, want in zip(proof.steps, expected["steps"]):
            self.assertEqual((step.depth, step.goal, step.by_rule, step.id, step.used),
                             (want["depth"], want["goal"], want["by"] == "rule", want["id"], want["used"]))
            self.assertEqual(step.substitution, want["substitution"])
            self.assertTrue(close(step.score, want["score"]))
            if step.by_rule:
                self.assertTrue(close(step.confidence, want["confidence"]))
            self.assertEqual([(m.goal_symbol, m.matched_symbol) for m in step.matches],
                             [(m["goal"], m["matched"]) for m in want["matches"]])
            for match, m in zip(step.matches, want["matches"]):
                self.assertTrue(close(match.score, m["score"]))

    def test_prove(self):
        for atom in ATOMS:
            expected = json.loads(cli("prove", "--model", Work.model, "--format", "json", "--top", "3", atom))
            e = Work.reasoner.prove(atom, top=3)
            self.assertEqual(e.atom, expected["atom"])
            for field in ("score", "proof_score", "complex_score"):
                self.assertTrue(close(getattr(e, field), expected[field]), field)
            self.assertEqual(len(e.proofs), len(expected["proofs"]))
            for proof, want in zip(e.proofs, expected["proofs"]):
                self.assert_proof(proof, want)
            self.assertEqual(json.loads(ntp.to_json(e)), expected)

    def test_score_many_atoms(self):
        queries = os.path.join(Work.folder, "atoms.txt")
        with open(family("test.nl")) as f:
            atoms = [line.strip().rstrip(".") for line in f if not line.startswith("%")]
        with open(queries, "w") as f:
            f.write("\n".join(atoms) + "\n")
        lines = [json.loads(line) for line in cli("prove", "--model", Work.model, "--queries", queries).splitlines()]
        scores = Work.reasoner.score(atoms)
        self.assertEqual(len(scores), len(lines))
        for score, line in zip(scores, lines):
            self.assertTrue(close(score, line["result"]["score"]), line["query"])

    def test_answer(self):
        for query in ["fatherOf(X, m11)", "grandparentOf(m32, Y)"]:
            expected = json.loads(cli("answer", "--model", Work.model, "--json", "--top", "5", query))
            answers = Work.reasoner.answer(query, top=5)
            self.assertEqual([a.atom for a in answers], [a["atom"] for a in expected["answers"]])
            for a, want in zip(answers, expected["answers"]):
                self.assertTrue(close(a.score, want["score"]))
                self.assertEqual((a.known, a.bindings), (want["known"], want["bindings"]))
                self.assert_proof(a.best_proof, want["proof"])
            self.assertEqual(json.loads(ntp.to_json(query, answers)), expected)

    def test_rules(self):
        expected = json.loads(cli("rules", "--model", Work.model, "--min-confidence", "0", "--json"))["rules"]
        rules = Work.reasoner.rules(min_confidence=0)
        self.assertEqual(len(rules), 12)  # 3 templates x 4 copies
        self.assertEqual([(r.rule, r.text) for r in rules], [(r["rule"], r["text"]) for r in expected])
        for rule, want in zip(rules, expected):
            self.assertTrue(close(rule.confidence, want["confidence"]))
        judged_json = json.loads(cli("rules", "--model", Work.model, "--min-confidence", "0", "--mine", "--json"))
        judged_expected = judged_json["judged_rules"]
        judged, random_belief = Work.reasoner.judged_rules()
        self.assertTrue(close(random_belief, judged_json["random_belief"]))
        self.assertEqual([r.text for r in judged], [r["rule"] for r in judged_expected])
        for rule, want in zip(judged, judged_expected):
            self.assertTrue(close(rule.confidence, want["confidence"]))
            self.assertEqual((rule.pairs, rule.inferred), (want["pairs"], want["inferred"]))

    def test_evaluate(self):
        expected = json.loads(cli("eval", "--model", Work.model, "--protocol", "ranking", "--test", family("test.nl"),
                                  "--json").splitlines()[-1])
        report = Work.reasoner.evaluate(protocol="ranking", test=family("test.nl"))
        self.assertEqual(report.keys(), expected.keys())
        self.assertTrue(close(report["mrr"], expected["mrr"]))
        self.assertEqual(report, expected)
        sampled = Work.reasoner.evaluate(protocol="ranking", test=family("test.nl"), sample=5, sample_seed=3)
        self.assertEqual((sampled["sample"]["triples"], sampled["sample"]["seed"]), (5, 3))
        self.assertLess(sampled["corruptions"], expected["corruptions"])
        with self.assertRaises(ValueError):
            Work.reasoner.evaluate(protocol="ranking", test=family("test.nl"), sample=-1)


class Embeddings(unittest.TestCase):
    def test_shapes_and_names(self):
        r = Work.reasoner
        p, c = r.predicate_embeddings, r.constant_embeddings
        self.assertEqual((p.dtype, c.dtype), (np.float64, np.float64))
        self.assertEqual(p.shape, (len(r.predicate_names), OPTIONS["dim"]))
        self.assertEqual(c.shape, (len(r.constant_names), OPTIONS["dim"]))
        self.assertEqual(set(r.predicate_names[:6]), {"fatherOf", "motherOf", "parentOf", "childOf", "grandfatherOf",
                                                      "grandparentOf"})
        self.assertEqual(len(r.predicate_names), 6 + 4 * (2 + 2 + 3))  # KB predicates, then the rule slots
        self.assertIn("m1", r.constant_names)
        p[0, 0] += 1  # a copy: the model does not change
        self.assertNotEqual(r.predicate_embeddings[0, 0], p[0, 0])

    def test_kernel_of_rows_is_the_unification_score(self):
        r = Work.reasoner
        rows = {name: row for name, row in zip(r.predicate_names, r.predicate_embeddings)}
        rows.update(zip(r.constant_names, r.constant_embeddings))
        checked = 0
        for atom in ATOMS:
            for proof in r.prove(atom, top=3).proofs:
                for step in proof.steps:
                    for m in step.matches:
                        if m.goal_symbol in rows and m.matched_symbol in rows:
                            kernel = rbf(rows[m.goal_symbol], rows[m.matched_symbol])
                            self.assertTrue(abs(kernel - m.score) <= TOLERANCE, (m, kernel))
                            checked += 1
                    if step.matches:
                        self.assertTrue(close(step.score, min(m.score for m in step.matches)))
        self.assertGreater(checked, 10)


class Training(unittest.TestCase):
    def test_from_files_as_the_command_line(self):
        model = os.path.join(Work.folder, "from-python.ntp")
        r = ntp.train(train=family("train.nl"), templates=family("family.nlt"), dev=family("dev.nl"),
                      test=family("test.nl"), model=model, threads=1, quiet=True, **OPTIONS)
        self.assertTrue(r.training.finished)
        self.assertEqual(r.training.epochs_done, OPTIONS["epochs"])
        self.assertTrue(os.path.exists(model))
        same = Work.reasoner.score(ATOMS)
        for a, b in zip(r.score(ATOMS), same):
            self.assertTrue(close(a, b))
        self.assertTrue(np.array_equal(r.constant_embeddings, Work.reasoner.constant_embeddings))

    def test_templates_mined_from_the_facts(self):
        r = ntp.train(train=family("train.nl"), templates="mined", dev=family("dev.nl"), test=family("test.nl"),
                      model=os.path.join(Work.folder, "mined-templates.ntp"), threads=1, quiet=True, mined_rules=False,
                      dim=8, epochs=1)
        self.assertTrue(r.training.finished)
        started = [rule for rule in r.rules(min_confidence=0) if rule.started_from]
        self.assertGreater(len(started), 0)
        self.assertEqual(r.training.templates_choice, "")  # mined already: nothing to choose

    def test_templates_chosen_on_dev(self):
        r = ntp.train(train=family("train.nl"), templates=family("family.nlt"), dev=family("dev.nl"),
                      model=os.path.join(Work.folder, "templates-choice.ntp"), threads=1, quiet=True,
                      mined_rules=False, dim=8, epochs=1, l2=1e-4)
        self.assertRegex(r.training.templates_choice, r"^(file|mined) \(dev mrr on 33 atoms: file 0\.\d{4}, mined [01]\.\d{4}\); "
                         r"proofs alone: file [01]\.\d{4}, mined [01]\.\d{4}; the final .* kept; mined: \d+ rules")

    def test_from_text_with_options(self):
        facts = "".join(f"parentOf(p{i}, c{i}).\nchildOf(c{i}, p{i}).\n" for i in range(8))
        templates = "2  #1(X, Y) :- #2(Y, X).\n"
        lines = []
        r = ntp.train_from_text(facts=facts, templates=templates, dim=4, epochs=2, complex=False, k=0, batch=4,
                                optimizer="adagrad", mask="fact", explore=0.5, seed=3, progress=lines.append)
        self.assertIsNone(ntp.load(Work.model).training)
        self.assertEqual(r.training.epochs_done, 2)
        self.assertEqual(r.predicate_embeddings.shape, (2 + 2 * 2, 4))
        self.assertTrue(any("epoch 2/2" in line for line in lines), lines)
        self.assertTrue(all("\n" not in line for line in lines))
        self.assertEqual(len(r.rules(min_confidence=0)), 2)
        score = r.score(["parentOf(p1, c1)"])[0]
        self.assertGreater(score, 0.9)  # a fact of the KB
        again = ntp.train_from_text(facts, templates, dim=4, epochs=2, complex=False, k=0, batch=4,
                                    optimizer="adagrad", explore=0.5, seed=3, quiet=True)
        self.assertEqual(again.score(["childOf(c2, p5)"]), r.score(["childOf(c2, p5)"]))

    def test_facts_stated_in_text(self):
        # Phrases as predicates: their words are learnt, and a phrase never
        # seen, of known words, is proven and scored too.
        facts = "".join(f'parentOf(p{i}, c{i}).\n"[X] is the child of [Y]"(c{i}, p{i}).\n' for i in range(8))
        r = ntp.train_from_text(facts, "2  #1(X, Y) :- #2(Y, X).\n", dim=4, epochs=2, complex=False, k=0, batch=4,
                                seed=3, quiet=True)
        self.assertIn("[X] is the child of [Y]", r.predicate_names)
        self.assertGreater(r.score(['"[X] is the child of [Y]"(c1, p1)'])[0], 0.9)
        unseen = r.prove('"[X] is child of [Y]"(c1, p1)')  # a phrase never seen, of known words
        self.assertIn('"[X] is child of [Y]"(c1, p1)', str(unseen))
        with self.assertRaises(ValueError):
            r.prove('"[X] is a child of [Y]"(c1, p1)')  # "a" is no word of training
        seen = r.prove('"[X] is the child of [Y]"(c1, p1)')
        self.assertIn('"[X] is the child of [Y]"(c1, p1)', str(seen))

    def test_conditional_rules_read_per_goal(self):
        facts = "".join(f"parentOf(p{i}, c{i}).\nchildOf(c{i}, p{i}).\n" for i in range(8))
        r = ntp.train_from_text(facts=facts, templates="1  #1(X, Y) :- #2(Y, X).\n", dim=4, epochs=2,
                                reformulator="attentive", seed=3, quiet=True)
        heads = sorted(rule.text.split("(")[0] for rule in r.rules(min_confidence=0))
        self.assertEqual(heads, ["childOf", "parentOf"])  # one rule, read once for each goal relation
        self.assertIn("rule slots", repr(r))
        with self.assertRaisesRegex(ValueError, "reformulator is none, linear or attentive, got 'bilinear'"):
            ntp.train_from_text(facts, reformulator="bilinear")

    def test_l2_chosen_on_dev_from_a_list(self):
        model = os.path.join(Work.folder, "l2-choice.ntp")
        r = ntp.train(family("train.nl"), family("family.nlt"), dev=family("dev.nl"), model=model, dim=4, epochs=1,
                      l2=[1e-4, 1e-3], threads=1, quiet=True)
        self.assertRegex(r.training.l2_choice, r"^0\.000?1 \(dev mrr on 33 atoms: 0\.0001 0\.\d{4}, 0\.001 0\.\d{4}\)$")
        self.assertEqual(sorted(f for f in os.listdir(Work.folder) if f.startswith("l2-choice")),
                         ["l2-choice.ntp", "l2-choice.ntp.ckpt"])
        self.assertEqual(ntp.train_from_text("p(a, b).\n", dim=4, epochs=1, l2=0.5, quiet=True).training.l2_choice, "")
        # Without dev facts, a tenth of the training facts are held out to choose on, then all are trained on.
        carved = ntp.train(family("train.nl"), family("family.nlt"), model=model, dim=4, epochs=1, threads=1, quiet=True)
        self.assertRegex(carved.training.dev_carved, r"^33 of 334 training facts \(seed 0\) made the choices")
        self.assertRegex(carved.training.l2_choice, r"^0\.000?1 \(dev mrr on 33 atoms: ")
        plain = ntp.train(family("train.nl"), family("family.nlt"), model=model, dim=4, epochs=1, threads=1, quiet=True,
                          dev_from_train=False)
        self.assertEqual((plain.training.dev_carved, plain.training.l2_choice), ("", ""))
        with self.assertRaisesRegex(TypeError, "l2 takes a number or a list of numbers, got list"):
            ntp.train_from_text("p(a, b).\n", l2=[1e-4, "x"])
        with self.assertRaisesRegex(TypeError, "l2 takes a number or a non-empty list of numbers, got tuple"):
            ntp.train_from_text("p(a, b).\n", l2=())

    def test_options_are_the_command_lines(self):
        names = list(ntp.train_options())
        self.assertEqual(names[:4], ["dim", "depth", "k", "k_rules"])
        for name in ["recall_every", "eval_every", "keep", "resume", "log", "profile", "refresh", "attention",
                     "reformulator"]:
            self.assertIn(name, names)
        self.assertEqual(ntp.train_options()["lr"][0], "0.01")
        help_text = cli("train", "--help")
        for name in names:
            flag = "-k " if name == "k" else "--" + name.replace("_", "-") + " "  # cxxopts writes a one-letter name so
            self.assertIn(flag, help_text)

    def test_a_callback_that_raises_stops_the_run(self):
        model = os.path.join(Work.folder, "stopped.ntp")

        def stop(line):
            raise KeyError("enough")

        with self.assertRaises(KeyError):
            ntp.train(family("train.nl"), family("family.nlt"), model=model, dim=4, epochs=3, progress=stop,
                      dev_from_train=False)
        self.assertTrue(os.path.exists(model + ".ckpt"))

    def test_an_interrupt_stops_the_run_with_its_checkpoint(self):
        model = os.path.join(Work.folder, "interrupted.ntp")
        timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
        timer.start()
        with self.assertRaises(KeyboardInterrupt):
            ntp.train(family("train.nl"), family("family.nlt"), model=model, dim=10, epochs=10000, quiet=True)
        timer.join()
        # With no dev file the run first trains a choosing model on held-out dev facts: its checkpoint
        # sits beside the model file under its own name, and resume=True continues it.
        self.assertTrue(glob.glob(model + ".dev-choice*.ckpt"))

    def test_bad_options_raise(self):
        fact = "p(a, b).\n"
        with self.assertRaisesRegex(TypeError, "unexpected keyword argument 'dimension'"):
            ntp.train_from_text(fact, dimension=4)
        with self.assertRaisesRegex(TypeError, "dim takes an integer, got str"):
            ntp.train_from_text(fact, dim="4")
        with self.assertRaisesRegex(TypeError, "complex takes True or False"):
            ntp.train_from_text(fact, complex=1)
        with self.assertRaisesRegex(ValueError, "combine is max, mean, proof, complex, dev or auto, got 'median'"):
            ntp.train_from_text(fact, combine="median")
        with self.assertRaisesRegex(ValueError, "combine needs complex"):
            ntp.train_from_text(fact, combine="max", complex=False)
        with self.assertRaisesRegex(ValueError, "eval_every needs dev"):
            ntp.train_from_text(fact, eval_every=1)
        with self.assertRaisesRegex(ValueError, "embedding dimension must be even"):
            ntp.train_from_text(fact, dim=3)
        with self.assertRaises(ntp.ParseError) as bad_facts:
            ntp.train_from_text("p(a, b).\nq(a\n")
        self.assertEqual((bad_facts.exception.file, bad_facts.exception.line), ("facts", 2))
        with self.assertRaises(FileNotFoundError):
            ntp.train(os.path.join(Work.folder, "no-such-file.nl"), dim=4)


class Errors(unittest.TestCase):
    def test_bad_atoms_raise(self):
        r = Work.reasoner
        with self.assertRaises(ntp.ParseError) as syntax:
            r.prove("fatherOf(m1, ")
        self.assertIsInstance(syntax.exception, ValueError)
        self.assertEqual(syntax.exception.line, 1)
        with self.assertRaisesRegex(ValueError, "unknown constant 'nobody'"):
            r.prove("fatherOf(m1, nobody)")
        with self.assertRaisesRegex(ValueError, "unknown"):
            r.score(["fatherOf(m1, m11)", "siblingOf(m1, m11)"])
        with self.assertRaises(TypeError):
            r.score("fatherOf(m1, m11)")  # a list of atoms, not one
        with self.assertRaises(FileNotFoundError):
            ntp.load(os.path.join(Work.folder, "missing.ntp"))
        not_a_model = os.path.join(Work.folder, "not-a-model.ntp")
        with open(not_a_model, "w") as f:
            f.write("this is not a model, but it is long enough to hold a header\n" * 4)
        with self.assertRaisesRegex(RuntimeError, "not an ntp model file"):
            ntp.load(not_a_model)
        with self.assertRaisesRegex(ValueError, "unknown fact index 'faiss'"):
            ntp.load(Work.model, index="faiss")


class Objects(unittest.TestCase):
    def test_reprs_and_formats(self):
        r = Work.reasoner
        e = r.prove("grandfatherOf(m57, m61)")
        self.assertTrue(repr(e).startswith("Explanation(grandfatherOf(m57, m61), score="))
        self.assertTrue(repr(e.proofs[0]).startswith("Proof(score="))
        self.assertIn("goal='grandfatherOf(m57, m61)'", repr(e.proofs[0].steps[0]))
        self.assertTrue(str(e).startswith(ntp.to_text(e)[:20]))
        self.assertTrue(ntp.to_dot(e).startswith("digraph"))
        self.assertIn("InducedRule(", repr(r.rules(0)[0]))
        self.assertIn("Answer(fatherOf(", repr(r.answer("fatherOf(X, m11)", 1)[0]))
        self.assertIn("6 predicates", repr(r))
        k_all = ntp.load(Work.model, k=0)
        self.assertGreaterEqual(k_all.prove("grandfatherOf(m57, m61)").proofs_searched, e.proofs_searched)

    def test_threads_share_a_reasoner(self):
        r = Work.reasoner
        want = r.score(ATOMS)
        results = [None] * 4

        def ask(i):
            results[i] = r.score(ATOMS)

        threads = [threading.Thread(target=ask, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(results, [want] * 4)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)

"""Scoring problems (issue 48, item 4): ``type: scoring`` packages with IOI-style
subtasks (test groups with points, ``testdata.yaml``) are judged per group with the
format's default grader; runners judge them pass-fail and say so."""

from __future__ import annotations

import pytest

from kattis_fixtures import make_package
from tczoo.benchmarks.kattis import load
from tczoo.benchmarks.kattis.grading import TestTree
from tczoo.schema import Problem

# Two subtasks: group1 (a, b < 10: 40 points), group2 (the rest: 60 points). A subtask
# scores its points only when every test in it passes (min); the secret group sums them
# and accepts a submission that passes any subtask (accept_if_any_accepted).
SCORING_FILES = {
    "data/sample/testdata.yaml": "accept_score: 0\n",
    "data/secret/testdata.yaml": "on_reject: continue\ngrader_flags: first_error accept_if_any_accepted\n",
    "data/secret/group1/testdata.yaml": "on_reject: break\naccept_score: 40\ngrader_flags: min\n",
    "data/secret/group2/testdata.yaml": "on_reject: break\naccept_score: 60\ngrader_flags: min\n",
}
TESTS = {
    "sample/1": ("1 2\n", "3\n"),
    "secret/group1/01": ("3 4\n", "7\n"),
    "secret/group1/02": ("9 9\n", "18\n"),
    "secret/group2/01": ("1000 2000\n", "3000\n"),
    "secret/group2/02": ("123456 1\n", "123457\n"),
}
FULL = "a, b = map(int, input().split())\nprint(a + b)\n"
SMALL_ONLY = "a, b = map(int, input().split())\nprint(a + b if a < 10 else 0)\n"
NOTHING = "print(0)\n"


def scoring_package(root, yaml="name: Sum\ntype: scoring\n"):
    return make_package(root, "sum", yaml=yaml, tests=TESTS, files=SCORING_FILES,
                        submissions={"accepted/full.py": FULL, "partially_accepted/small.py": SMALL_ONLY,
                                     "wrong_answer/nothing.py": NOTHING})


def test_a_scoring_package_loads_with_its_groups(tmp_path):
    scoring_package(tmp_path)
    [p] = load(tmp_path)
    kattis = p.meta["kattis"]
    assert kattis["type"] == "scoring" and kattis["grading"] == {"objective": "max"}
    settings = kattis["group_settings"]
    assert settings["secret/group1"]["accept_score"] == 40 and settings["secret/group2"]["grader_flags"] == "min"
    assert settings["secret"]["on_reject"] == "continue" and settings["sample"]["accept_score"] == 0
    # the partially accepted one fails some test: pass-fail judges (the runners) count it wrong
    small = next(w for w in p.wrong_solutions if w.name == "partially_accepted/small.py")
    assert small.meta["partially_accepted"] and "AC" not in small.meta["expected_verdicts"]


def _tree(problem: Problem) -> TestTree:
    return TestTree.of(problem)


def test_the_default_grader_scores_subtasks(tmp_path):
    scoring_package(tmp_path)
    [p] = load(tmp_path)
    tree = _tree(p)
    assert tree.full_score() == 100.0
    asked = []

    def small_only(name):
        asked.append(name)
        return "WA" if name.startswith("secret/group2") else "AC"

    r = tree.grade(small_only)
    assert (r.verdict, r.score, r.failed_on) == ("AC", 40.0, "secret/group2/01")
    assert asked == ["sample/1", "secret/group1/01", "secret/group1/02", "secret/group2/01"]  # group2 broke off
    r = tree.grade(lambda name: "TLE" if name == "secret/group1/02" else "AC")
    assert (r.verdict, r.score) == ("AC", 60.0)
    r = tree.grade(lambda name: "WA" if name.startswith("secret") else "AC")
    assert (r.verdict, r.score) == ("WA", 0.0)  # no subtask: first_error's WA
    # a judge error anywhere is the result (never a score)
    assert tree.grade(lambda name: "SE" if name == "secret/group2/02" else "AC").verdict == "SE"


def test_grader_flags_and_pass_fail_defaults(tmp_path):
    make_package(tmp_path)  # no testdata.yaml: the pass-fail rule, the first failure decides
    [p] = load(tmp_path)
    tree = _tree(p)
    order = [n for n, _, _ in [("sample/1", 0, 0), ("secret/01-small", 0, 0), ("secret/10-big", 0, 0),
                               ("secret/g2/02-seven", 0, 0), ("secret/g2/sub/01-deep", 0, 0)]]
    asked = []

    def verdict(name):
        asked.append(name)
        return {"secret/10-big": "TLE", "secret/g2/02-seven": "WA"}.get(name, "AC")

    r = tree.grade(verdict)
    assert (r.verdict, r.failed_on) == ("TLE", "secret/10-big") and asked == order[:3]
    # worst_error over a group judged in full picks RTE before TLE before WA
    tree.settings["secret"] = {"on_reject": "continue", "grader_flags": "worst_error"}
    r = tree.grade(lambda name: {"secret/10-big": "WA", "secret/g2/02-seven": "RE"}.get(name, "AC"))
    assert r.verdict == "RE"


@pytest.mark.e2e
def test_check_grades_a_scoring_package(tmp_path, sandbox):
    from tczoo.benchmarks.kattis.check import OK, check_path

    scoring_package(tmp_path)
    [report] = check_path(tmp_path, sandbox)
    assert report.type == "scoring" and report.mismatches == 0, [(s.name, s.verdict, s.score, s.explanation)
                                                                 for s in report.submissions]
    got = {s.name: (s.verdict, s.score, s.max_score, s.status) for s in report.submissions}
    assert got == {"accepted/full.py": ("AC", 100.0, 100.0, OK), "partially_accepted/small.py": ("AC", 40.0, 100.0, OK),
                   "wrong_answer/nothing.py": ("WA", 0.0, 100.0, OK)}


@pytest.mark.e2e
def test_a_full_score_is_what_accepted_means_on_a_scoring_problem(tmp_path, sandbox):
    from tczoo.benchmarks.kattis.check import MISMATCH, check_path

    make_package(tmp_path, "sum", yaml="name: Sum\ntype: scoring\n", tests=TESTS, files=SCORING_FILES,
                 submissions={"accepted/full.py": FULL, "accepted/small.py": SMALL_ONLY,
                              "partially_accepted/full_too.py": FULL})
    [report] = check_path(tmp_path, sandbox)
    got = {s.name: s for s in report.submissions}
    assert got["accepted/small.py"].status == MISMATCH and "score 40 of 100" in got["accepted/small.py"].explanation
    assert got["partially_accepted/full_too.py"].status == MISMATCH  # full marks where less was expected


def test_the_agreement_runner_judges_scoring_problems_pass_fail_and_says_so(tmp_path, sandbox):
    from tczoo.runners.agreement import AgreementRunner

    scoring_package(tmp_path)
    [p] = load(tmp_path)
    ref = AgreementRunner(sandbox).reference(p)
    assert ref["metrics"]["tpr"] == 100.0 and ref["metrics"]["tnr"] == 100.0  # small.py fails group2: wrong
    assert "pass-fail" in ref["scoring"]

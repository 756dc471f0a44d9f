"""Paired comparisons (tczoo report/compare --against): which cells pair with which, the
one-line reading, and B − A on two real runs against the same draws computed by hand."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from experiment_fixtures import TESTS
from tczoo import stats
from tczoo.errors import UserError
from tczoo.report import Arm, pairs_against, reading


def _arm(run: str, model: str, method: str, runner: str = "hackrate") -> Arm:
    return Arm(Path(run), model, method, runner, [], label=f"{method} ({model})")


ARMS = [_arm("g/m1/crux", "m1", "crux"), _arm("g/m1/lcb", "m1", "lcb"), _arm("g/m2/crux", "m2", "crux"),
        _arm("g/m2/lcb", "m2", "lcb"), _arm("g/m1/stab", "m1", "stab", runner="efficiency")]


def _labels(pairs):
    return [(a.label, b.label) for a, b in pairs]


def test_against_a_method_pairs_the_other_methods_of_the_same_model_and_runner():
    assert _labels(pairs_against(ARMS, "crux")) == [("crux (m1)", "lcb (m1)"), ("crux (m2)", "lcb (m2)")]
    assert _labels(pairs_against(ARMS, "CRUX")) == _labels(pairs_against(ARMS, "crux"))  # as tables spell it


def test_against_a_model_pairs_the_same_method_of_the_other_models():
    assert _labels(pairs_against(ARMS, "m1")) == [("crux (m1)", "crux (m2)"), ("lcb (m1)", "lcb (m2)")]


def test_against_a_run_pairs_the_same_method_else_any_cell_of_its_runner():
    assert _labels(pairs_against(ARMS, "g/m1/crux")) == [("crux (m1)", "lcb (m1)"), ("crux (m1)", "crux (m2)"),
                                                          ("crux (m1)", "lcb (m2)")]


def test_against_nothing_known_is_one_line_naming_what_there_is():
    with pytest.raises(UserError, match=r"--against 'gpt' names no run, method or model .*crux.*m1"):
        pairs_against(ARMS, "gpt")


def test_the_reading_says_above_below_or_cannot_tell_with_the_problems_needed():
    sep = stats.Difference(40.0, 59.1, 19.1, 4.2, 33.0, 0.004, 12)
    assert reading("crux (gpt-4o)", "lcb (gpt-4o)", "HR", sep) == \
        "lcb (gpt-4o) above crux (gpt-4o) by 19.1 HR, 95% CI [4.2, 33.0], 12 problems (p = 0.004)"
    assert reading("A", "B", "HR", sep, 0.2).endswith("(p = 0.004, Holm 0.2); not at the 5% level once Holm's "
                                                       "adjustment counts every comparison here")
    near = stats.Difference(40.0, 45.0, 5.0, -5.0, 15.0, 0.4, 12, needed=48)
    assert reading("A", "B", "HR", near) == ("B and A cannot be told apart on HR with 12 problems: B − A = 5.0, "
                                             "95% CI [-5.0, 15.0] (p = 0.4); about 48 problems would, if the "
                                             "difference stayed 5.0")
    one = stats.Difference(40.0, 45.0, 5.0, None, None, None, 1)
    assert "too few problems for an interval" in reading("A", "B", "HR", one)


def _tczoo(*args, env=None):
    return subprocess.run([sys.executable, "-m", "tczoo.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=900, env=env)


def _rules(path: Path, tests) -> str:
    answer = json.dumps([{"input": i, "output": o} for i, o in tests])
    path.write_text(json.dumps({"match": "", "response": answer}) + "\n")
    return f"scripted:{path}"


@pytest.mark.e2e
def test_report_against_a_run_pairs_two_runs_on_their_common_problems(tmp_path):
    """Two CRUX runs on zm01, zm04, zm06 with different answers: B − A is the mean of the
    per-problem differences of the records, its interval the percentiles of the same
    draws computed here, and the run only in B's problems is left out and said so."""
    a, b = tmp_path / "a", tmp_path / "b"
    done = _tczoo("run", "-m", "crux", "--model", _rules(tmp_path / "a.jsonl", TESTS[:1]), "-p", "zm01,zm04,zm06",
                  "--out", a)
    assert done.returncode == 0, done.stderr[-2000:]
    done = _tczoo("run", "-m", "crux", "--model", _rules(tmp_path / "b.jsonl", TESTS), "-p", "zm01,zm04,zm06,zm02",
                  "--out", b)
    assert done.returncode == 0, done.stderr[-2000:]
    proc = _tczoo("report", a, b, "--against", a, "--resamples", "300", "--bootstrap-seed", "5", "-f", "json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    paired = json.loads(proc.stdout)[-1]
    assert paired["title"] == f"paired differences against {a}"
    row = next(r for r in paired["rows"] if r["metric"] == "HR")

    def hr(run: Path) -> dict[str, float]:
        return {s["problem_id"]: s["metrics"]["hack_rate"] for s in map(json.loads, (run / "scores.jsonl").open())}

    ha, hb = hr(a), hr(b)
    common = sorted(ha)
    d = np.array([hb[p] - ha[p] for p in common])
    assert row["problems"] == 3 and row["B − A"] == pytest.approx(d.mean())
    draws = stats.resample_indices(3, 300, seed=5)
    low, high = np.quantile(d[draws].mean(axis=1), [0.025, 0.975])
    assert (row["95% CI"]["low"], row["95% CI"]["high"]) == (pytest.approx(low), pytest.approx(high))
    assert 0 < row["p"] <= 1 and row["p (Holm)"] >= row["p"]
    assert any("compared on the 3 problem(s) both were scored on (of 3 and 4)" in n for n in paired["notes"])
    assert any(n.startswith("crux (scripted:b.jsonl) ") and "HR" in n for n in paired["notes"])
    text = _tczoo("report", a, b, "--against", a, "--resamples", "300")
    assert text.returncode == 0 and "paired differences against" in text.stdout
    bad = _tczoo("report", a, b, "--against", "nosuch")
    assert bad.returncode == 2 and bad.stderr.startswith("error: --against 'nosuch' names no run, method or model")

"""Cross-scoring with the breakers (issue 50, item 7): a comparison of CRUX, TCGBench's
targeted generator and REFUTE's counterexample on zm01 with a scripted model, every
suite scored by every other runner where it applies — CRUX's tests by Success@1 (which
of the two targets they break), the counterexamples by HackRate, bug finding (on the
task of the program each was written against) and the agreement runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from breaker_fixtures import breaker_rules
from experiment_fixtures import write_rules, zm01_rules


def _number(cell) -> float:
    """A numeric cell of ``-f json`` ({"metric", "value", "status", ...}): its value, which
    counts only when every unit behind it was scored (status "ok")."""
    assert isinstance(cell, dict) and cell["status"] == "ok" and cell["value"] is not None, cell
    return float(cell["value"])


def test_the_breakers_cross_score_and_are_cross_scored(tmp_path):
    model = write_rules(tmp_path / "m.jsonl", breaker_rules() + zm01_rules())
    params = {"runner:counterexample": {"wrong": ["sweep_no_clamp", "int_total"]},
              "runner:bugfind": {"responses": 1, "wrong": ["sweep_no_clamp"]}}
    done = subprocess.run([sys.executable, "-m", "tczoo.cli", "compare", "--methods", "crux,tcgbench,refute",
                           "--models", model, "--problems", "zm01", "--runners", "counterexample,hackrate,bugfind,"
                           "agreement", "--params", json.dumps(params), "--out", str(tmp_path / "cmp"), "-f", "json"],
                          capture_output=True, text=True, timeout=1500, env=dict(os.environ))
    assert done.returncode == 0, done.stderr[-3000:]
    [cross] = [t for t in json.loads(done.stdout) if t["title"].startswith("cross-scoring")]
    rows = {r["method"]: r for r in cross["rows"]}
    assert rows["crux"]["own runner"] == "hackrate" and rows["tcgbench"]["own runner"] == "counterexample"
    # CRUX's suite, aimed at no target, judged on both: its overflow test breaks int_total
    assert _number(rows["crux"]["counterexample: Success@1"]) > 0
    for m in ("tcgbench", "refute"):
        # the far-deadline input: valid, breaks sweep_no_clamp (Success@1 50 of the two targets),
        # a true bug on its own triplet, and 4 of zm01's 10 wrong submissions by HackRate
        assert _number(rows[m]["counterexample: Success@1"]) == 50.0
        assert _number(rows[m]["bugfind: zoo-mini TBR"]) == 100.0
        assert _number(rows[m]["hackrate: HR"]) == 40.0 and _number(rows[m]["agreement: TNR"]) == 40.0

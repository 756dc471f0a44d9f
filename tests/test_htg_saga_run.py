"""``tczoo run --method hardtestgen,saga`` through the real CLI on zoo-mini zm01 with a
scripted model: both methods generate, are recorded and scored, and the report prints
their table; a replay of the recorded answers regenerates the same suites."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from test_method_hardtestgen import CHECKS, HACKGEN, INPUTS, RPGEN, checks_answer, inputs_answer
from test_method_saga import DIFFERENTIAL, DIFFERENTIAL_CODE, MULTIDIM, MULTIDIM_CODE, answer

RUNNER = "hackrate"


def _rules(path) -> str:
    rules = [(INPUTS, inputs_answer(["1\n1 1\n", "2\n1 9\n1 4\n"], RPGEN, HACKGEN)), (CHECKS, checks_answer()),
             (MULTIDIM, answer(MULTIDIM_CODE)), (DIFFERENTIAL, answer(DIFFERENTIAL_CODE))]
    path.write_text("".join(json.dumps({"match": m, "response": r}) + "\n" for m, r in rules))
    return f"scripted:{path}"


def _run(model: str, out, env, *extra: str) -> subprocess.CompletedProcess:
    params = json.dumps({"hardtestgen": {"rpgen_inputs": 3, "rpgen_attempts": 4, "hackgen_inputs": 1,
                                         "hackgen_attempts": 2},
                         "saga": {"differential_pairs": 1}})
    return subprocess.run([sys.executable, "-m", "tczoo.cli", "run", "--method", "hardtestgen,saga", "--runner", RUNNER,
                           "--model", model, "--benchmark", "zoo-mini", "--problems", "zm01", "--params", params,
                           "--out", str(out), *extra], capture_output=True, text=True, env=env, timeout=900)


def _lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_run_both_methods_through_the_cli(tmp_path):
    env = dict(os.environ, TCZOO_CACHE=os.environ.get("TCZOO_CACHE", str(tmp_path / "cache")))
    model = _rules(tmp_path / "rules.jsonl")
    out = tmp_path / "run"
    done = _run(model, out, env)
    assert done.returncode == 0, done.stderr
    gens = {g["method"]: g for g in _lines(out / "generations.jsonl")}
    assert set(gens) == {"hardtestgen", "saga"}
    for g in gens.values():
        assert g["error"] is None and g["suite"]["tests"], g["method"]
        assert all(t["output"] is not None for t in g["suite"]["tests"])
    kinds = {t["origin"] for t in gens["hardtestgen"]["suite"]["tests"]}
    assert kinds == {"hardtestgen:llmgen", "hardtestgen:rpgen", "hardtestgen:hackgen"}
    assert {t["meta"]["analysis"] for t in gens["saga"]["suite"]["tests"]} == {"multidim", "differential"}
    scores = {s["method"]: s for s in _lines(out / "scores.jsonl")}
    assert set(scores) == {"hardtestgen", "saga"}
    report = subprocess.run([sys.executable, "-m", "tczoo.cli", "report", str(out), "--format", "json"],
                            capture_output=True, text=True, env=env, timeout=300)
    assert report.returncode == 0, report.stderr
    text = report.stdout
    assert "HARDTESTGEN" in text.upper() and "SAGA" in text.upper()

    # The recorded answers regenerate the same suites offline.
    (tmp_path / "rules.jsonl").unlink()
    again = tmp_path / "replay"
    done = _run(f"replay:{out}", again, env)
    assert done.returncode == 0, done.stderr
    tests = lambda d: {g["method"]: g["suite"]["tests"] for g in _lines(d / "generations.jsonl")}  # noqa: E731
    assert tests(again) == tests(out)

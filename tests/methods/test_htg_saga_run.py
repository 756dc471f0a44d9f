"""``tczoo run --method hardtestgen,saga --runner agreement`` through the real CLI on
zoo-mini zm01 with a scripted model: both methods generate, are recorded and scored as
judges of the labelled submissions — each on its paper's population: HardTestGen never on
the correct program it was given (its paper judges LLM-written programs, not its oracle
solutions); SAGA on every wrong submission, the ones it analysed included, as the paper's
DR/VAcc are over every incorrect submission — and the report prints the table; a replay
of the recorded answers regenerates the same suites, and the runner's ``judged:
held_out`` option judges SAGA on the held-out half only."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from test_method_hardtestgen import CHECKS, HACKGEN, INPUTS, RPGEN, checks_answer, inputs_answer
from test_method_saga import DIFFERENTIAL, DIFFERENTIAL_CODE, MULTIDIM, MULTIDIM_CODE, answer

pytestmark = pytest.mark.e2e  # the whole pipeline through the CLI

RUNNER = "agreement"


def _rules(path) -> str:
    rules = [(INPUTS, inputs_answer(["1\n1 1\n", "2\n1 9\n1 4\n"], RPGEN, HACKGEN)), (CHECKS, checks_answer()),
             (MULTIDIM, answer(MULTIDIM_CODE)), (DIFFERENTIAL, answer(DIFFERENTIAL_CODE))]
    path.write_text("".join(json.dumps({"match": m, "response": r}) + "\n" for m, r in rules))
    return f"scripted:{path}"


def _run(model: str, out, env, *extra: str, judged: str | None = None) -> subprocess.CompletedProcess:
    runner = {"reference": False, **({"judged": judged} if judged else {})}  # the jury's row: the runner's own test
    params = json.dumps({"hardtestgen": {"rpgen_inputs": 3, "rpgen_attempts": 4, "hackgen_inputs": 1,
                                         "hackgen_attempts": 2},
                         "saga": {"differential_pairs": 1},
                         "runner:agreement": runner})
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
    for s in scores.values():
        assert {"precision", "recall", "dr", "vacc", "tpr", "tnr"} <= set(s["metrics"])
    judged = {m: {r["name"] for r in s["detail"]["submissions"]} for m, s in scores.items()}
    # HardTestGen: every labelled submission but the correct program it was given.
    [given] = scores["hardtestgen"]["detail"]["given"]
    assert given.startswith("accepted/") and given not in judged["hardtestgen"] and len(judged["hardtestgen"]) == 13
    assert scores["hardtestgen"]["detail"]["judged"] == "held_out"
    # SAGA: every wrong submission, the half it analysed included (the paper's population)
    from tczoo.benchmarks import load_benchmark
    from tczoo.schema import shown_wrong

    [problem] = load_benchmark("zoo-mini", ["zm01"])
    shown = {w.name for w in shown_wrong(problem)}
    wrong = {w.name for w in problem.wrong_solutions}
    assert shown and {n for n in judged["saga"] if n.startswith("wrong/")} == wrong
    assert scores["saga"]["detail"]["judged"] == "all" and scores["saga"]["detail"]["left_out"] == []
    assert shown <= set(scores["saga"]["detail"]["given"])  # what it was shown is still named
    report = subprocess.run([sys.executable, "-m", "tczoo.cli", "report", str(out), "--format", "json"],
                            capture_output=True, text=True, env=env, timeout=300)
    assert report.returncode == 0, report.stderr
    [table] = [t for t in json.loads(report.stdout) if "DR" in t["columns"]][:1]
    methods = {row["method"] for row in table["rows"]}
    assert {"hardtestgen", "saga"} <= methods

    # The recorded answers regenerate the same suites offline.
    (tmp_path / "rules.jsonl").unlink()
    again = tmp_path / "replay"
    done = _run(f"replay:{out}", again, env)
    assert done.returncode == 0, done.stderr
    tests = lambda d: {g["method"]: g["suite"]["tests"] for g in _lines(d / "generations.jsonl")}  # noqa: E731
    assert tests(again) == tests(out)

    # judged: held_out (ours) scores SAGA on the half it did not analyse, the same suite
    held = tmp_path / "held"
    done = _run(f"replay:{out}", held, env, judged="held_out")
    assert done.returncode == 0, done.stderr
    assert tests(held) == tests(out)
    saga = next(s for s in _lines(held / "scores.jsonl") if s["method"] == "saga")
    assert saga["detail"]["judged"] == "held_out"
    assert {r["name"] for r in saga["detail"]["submissions"] if r["name"].startswith("wrong/")} == wrong - shown
    assert shown <= set(saga["detail"]["left_out"])

"""HackRate / PassRate on hand-checked cases (TC-Bench §3.1.2), with real programs."""

import json

import pytest

from tczoo.runners.hackrate import HackRateRunner
from tczoo.runner import TaskSpec
from tczoo.schema import (GoldenTest, Language, Oracle, OracleKind, Problem, Program, Provenance,
                          ScoreRecord, TestCase, TestSuite, WrongProgram)

PY = Language.PYTHON
CORRECT = "n = int(input())\nprint(n * n)\n"


def _problem(rank=2) -> Problem:
    wrongs = [
        # fails on negative inputs only (prints |n|*n)
        WrongProgram(code="n = int(input())\nprint(abs(n) * n)\n", language=PY, name="abs"),
        # fails on n >= 100 (crash)
        WrongProgram(code="n = int(input())\nassert n < 100\nprint(n * n)\n", language=PY, name="crash"),
        # never fails on small inputs; spins forever on n == 7
        WrongProgram(code="n = int(input())\nwhile n == 7: pass\nprint(n * n)\n", language=PY, name="spin7"),
        # correct except for n == 0 (prints 1)
        WrongProgram(code="n = int(input())\nprint(n * n if n else 1)\n", language=PY, name="zero"),
    ]
    return Problem(
        id="square", statement="Print n squared.", time_limit_ms=1000, memory_limit_mb=64,
        solutions=[Program(code=CORRECT, language=PY, name="ok.py")],
        wrong_solutions=wrongs, golden_tests=[GoldenTest(input="3\n", output="9\n")], rank=rank,
    )


def _suite(tests, kind=OracleKind.EXPECTED_OUTPUT) -> TestSuite:
    oracle = Oracle(kind=kind, program=Program(code=CORRECT, language=PY)) if kind is OracleKind.REFERENCE_PROGRAM else Oracle(kind=kind)
    return TestSuite(problem_id="square", tests=[TestCase(input=i, output=o) for i, o in tests],
                     oracle=oracle, provenance=Provenance(method="crux", model="m"))


def test_pass_rate_and_hack_rate_by_hand(sandbox):
    runner = HackRateRunner(sandbox, default_budget=10)
    # 5 tests with predicted outputs: 2 wrong predictions (invalid), 3 valid: -2, 5, 7.
    suite = _suite([("-2\n", "4\n"), ("5\n", "25\n"), ("0\n", "1\n"), ("7\n", "49\n"), ("10\n", "99\n")])
    rec = runner.score(_problem(rank=None), TaskSpec(key="", task=None), suite)
    m = rec.metrics
    assert m["pass_rate"] == pytest.approx(60.0)
    # abs fails on -2 (WA); crash never sees n >= 100 (AC); spin7 hangs on 7 (TLE); zero: 0 was invalid (AC)
    assert rec.detail["wrong"] == {"abs": "wa", "crash": "ac", "spin7": "tle", "zero": "ac"}
    assert m["hack_rate"] == pytest.approx(50.0)
    assert (m["ac"], m["wa"], m["re"], m["tle"]) == (50.0, 25.0, 0.0, 25.0)
    # Early exit: abs stops after test 1, spin7 after test 3; crash and zero run all 3.
    assert rec.detail["executions"] == 1 + 3 + 3 + 3 and rec.detail["executions_full"] == 12
    # the run browser's matrix: tests -2, 5, 0, 7, 10; valid are -2, 5, 7 (valid indices 0, 1, 2)
    assert rec.detail["first_failure"] == {"abs": [0, "WA"], "spin7": [2, "TLE"]}
    [matrix] = runner.matrices(rec, suite)
    rows = {label: [c[0] for c in cells] for label, cells in matrix.rows}
    assert matrix.tests == [0, 1, 2, 3, 4]
    assert rows["validity"] == ["valid", "valid", "invalid", "valid", "invalid"]
    assert rows["abs"] == ["WA", "-", "-", "-", "-"]
    assert rows["spin7"] == ["AC", "AC", "-", "TLE", "-"]
    assert rows["zero"] == ["AC", "AC", "-", "AC", "-"]


def test_outputs_from_correct_code_and_re_category(sandbox):
    runner = HackRateRunner(sandbox)
    suite = _suite([("150\n", None), ("0\n", None)], kind=OracleKind.REFERENCE_PROGRAM)
    rec = runner.score(_problem(), TaskSpec(key="", task=None), suite)
    assert rec.metrics["pass_rate"] == 100.0
    assert rec.detail["wrong"] == {"abs": "ac", "crash": "re", "spin7": "ac", "zero": "wa"}
    assert rec.metrics["re"] == 25.0 and rec.metrics["wa"] == 25.0


def test_budget_is_k_times_rank_and_over_delivery_is_cut(sandbox):
    runner = HackRateRunner(sandbox, scale=2)
    problem = _problem()  # rank 2 -> budget 4
    assert runner.budget(problem) == 4
    suite = _suite([(f"{i}\n", None) for i in (1, 2, 3, 4, -5)], kind=OracleKind.REFERENCE_PROGRAM)
    rec = runner.score(problem, TaskSpec(key="", task=None), suite)
    assert rec.metrics["n_tests"] == 4  # the fifth (the only negative one) is beyond the budget
    assert rec.detail["wrong"]["abs"] == "ac"


def test_consensus_option_replaces_predicted_outputs(sandbox):
    suite = _suite([("0\n", "1\n")])  # a wrong prediction
    plain = HackRateRunner(sandbox).score(_problem(), TaskSpec(key="", task=None), suite)
    assert plain.metrics["pass_rate"] == 0.0
    consensus = HackRateRunner(sandbox, consensus_outputs=True).score(_problem(), TaskSpec(key="", task=None), suite)
    assert consensus.metrics["pass_rate"] == 100.0 and consensus.detail["wrong"]["zero"] == "wa"
    [table] = HackRateRunner(None).summarize([consensus])
    assert any("consensus_outputs was ON" in n for n in table.notes)


def test_validators_are_the_fastest_fifth_sampled(sandbox):
    slow = Program(code="import time\nn = int(input())\nx = 0\nfor i in range(3_000_000): x += i\nprint(n * n)\n",
                   language=PY, name="slow.py")
    fast = [Program(code=CORRECT + f"# variant {i}\n", language=PY, name=f"fast{i}.py") for i in range(10)]
    problem = _problem(rank=None).model_copy(update={"solutions": [slow, *fast]})
    chosen = HackRateRunner(sandbox, validators=8, seed=1).validators(problem)
    assert len(chosen) == 8 and all(p.name.startswith("fast") for p in chosen)
    again = HackRateRunner(sandbox, validators=8, seed=1).validators(problem)
    assert [p.name for p in again] == [p.name for p in chosen]  # seeded


def test_scaling_subsets_and_macro_average():
    runner = HackRateRunner(None)
    recs = [
        ScoreRecord(runner="hackrate", method="crux", model="m", problem_id="a",
                    metrics={"pass_rate": 100.0, "hack_rate": 50.0, "ac": 50.0, "wa": 50.0, "re": 0.0, "tle": 0.0}),
        ScoreRecord(runner="hackrate", method="crux", model="m", problem_id="b",
                    metrics={"pass_rate": 0.0, "hack_rate": 0.0, "ac": 100.0, "wa": 0.0, "re": 0.0, "tle": 0.0}),
    ]
    [table] = runner.summarize(recs)
    [row] = table.rows
    assert row["PR"] == 50.0 and row["HR"] == 25.0 and row["AC"] == 75.0 and row["problems"] == 2
    assert table.columns[:9] == ["model", "method", "problems", "PR", "AC", "WA", "RE", "TLE", "HR"]


def test_scales_score_seeded_subsets(sandbox):
    runner = HackRateRunner(sandbox, scales=[1, 2])
    problem = _problem()  # rank 2: budgets 2 and 4
    suite = _suite([(f"{i}\n", None) for i in (1, 2, 3, -4)], kind=OracleKind.REFERENCE_PROGRAM)
    rec = runner.score(problem, TaskSpec(key="", task=None), suite)
    assert rec.metrics["hack_rate@2x"] == rec.metrics["hack_rate"]
    assert rec.metrics["hack_rate@1x"] <= rec.metrics["hack_rate@2x"]


def test_score_external_tests_file(sandbox, tmp_path, monkeypatch):
    """tczoo score --benchmark B --tests F: tests made anywhere, scored by HackRate."""
    bench = tmp_path / "bench.jsonl"
    problem = _problem()
    bench.write_text(json.dumps({
        "problem_id": "square", "description": problem.statement, "time_limit": 1000, "memory_limit": 64,
        "sample_input": "3\n", "sample_output": "9\n",
        "solutions": [{"code": CORRECT, "lang": "python"}],
        "wrong_solutions": [{"code": w.code, "lang": "python", "output_str": "W"} for w in problem.wrong_solutions],
        "rank": 2,
    }) + "\n")
    tests = tmp_path / "tests.jsonl"
    tests.write_text('{"problem_id": "square", "input": "-3\\n", "output": "9\\n"}\n'
                     '{"problem_id": "square", "input": "0\\n"}\n')
    result = HackRateRunner.score_external(benchmark=f"tcbench:{bench}", tests_path=tests, sandbox=sandbox)
    # mixed: the second test has no output, so all outputs come from the correct code
    assert result["pass_rate"] == 100.0
    assert result["hack_rate"] == 50.0  # abs (on -3) and zero (on 0)
    detail = json.loads((tmp_path / "tests.detail.json").read_text())
    assert detail["square"]["detail"]["wrong"]["wrong-0"] == "wa"

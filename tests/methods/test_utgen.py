"""UTGen and UTDebug (arXiv:2502.01619) with the debugging runner: answers read without
running anything, the attack rate / output accuracy / both counted by hand through the
CLI on a buggy candidate of a HumanEval-format problem, the debugging loop's validation
and back-tracking, and the tricks a model could play on the rates."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tczoo.methods.utgen import read_output, read_unit_test
from tczoo.runners.debugging import DebuggingRunner
from tczoo.schema import OracleKind, Provenance, TestCase, TestSuite

FIXTURE = Path(__file__).parents[1] / "fixtures" / "humaneval" / "mini.jsonl"

# span(values): max - min, 0.0 for []. The buggy candidate returns 1.0 for [].
BUGGY = "def span(values):\n    if not values:\n        return 1.0\n    return max(values) - min(values)\n"
CORRECT = "def span(values):\n    return max(values) - min(values) if values else 0.0\n"
FIXED = ("```python\ndef span(values):\n    if not values:\n        return 0.0\n    return max(values) - min(values)\n"
         "```")


def _candidates(tmp_path: Path) -> Path:
    path = tmp_path / "cands.jsonl"
    path.write_text(json.dumps({"problem_id": "Mini/0", "name": "bug", "code": BUGGY, "label": "wrong"}) + "\n"
                    + json.dumps({"problem_id": "Mini/0", "name": "ok", "code": CORRECT, "label": "accepted"}) + "\n")
    return path


def _run(tmp_path: Path, method: str, rules: list[tuple[str, object]], params: dict) -> tuple[dict, list, list]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "rules.jsonl"
    with path.open("w") as fh:
        for match, answer in rules:
            key = "responses" if isinstance(answer, list) else "response"
            fh.write(json.dumps({"match": match, key: answer}) + "\n")
    params = {**params, "runner:debugging": {"candidates": str(_candidates(tmp_path))}}
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "run", "--method", method, "--benchmark",
                           f"humaneval:{FIXTURE}", "--problems", "Mini/0", "--model", f"scripted:{path}",
                           "--params", json.dumps(params), "--out", str(out), "-f", "json"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    gens = [json.loads(x) for x in (out / "generations.jsonl").read_text().splitlines()]
    scores = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
    return {t["title"]: t for t in json.loads(proc.stdout)}, gens, scores


# --------------------------------------------------------------------------- reading answers


def test_a_unit_test_is_read_from_the_answer_and_nothing_in_it_runs():
    answer = ("The bug: span([9]) is fine but an empty list is not.\n\nArguments: ```span([1.5, -2])```\n"
              "Output: ```3.5```")
    assert read_unit_test(answer, "span") == ("span([1.5, -2])", "[[1.5, -2]]", "3.5")
    # constant arithmetic is folded, nested brackets and strings with parentheses survive
    assert read_unit_test("Arguments: `f([1] * 3, 'a)b')`\nOutput: `2 ** 3`", "f")[1:] == \
        ('[[1, 1, 1], "a)b"]', "8")
    # a call that would run code, a keyword argument, an output that is not a value
    assert read_unit_test("Arguments: ```span(__import__('os').getpid())```\nOutput: ```1```", "span") == \
        "arguments_not_literal"
    assert read_unit_test("Arguments: ```span(values=[1])```\nOutput: ```0```", "span") == "keyword_arguments"
    assert read_unit_test("Arguments: ```span([1])```\nOutput: ```open('/etc/passwd').read()```", "span") == \
        "output_not_literal"
    assert read_unit_test("Output: ```1```", "span") == "no_call"
    assert read_unit_test("   ", "span") == "empty_response"
    assert read_output("Output: ```float('inf')```") is None  # no value tczoo can carry as an expected output
    assert read_output("Output: ```{'a': (1, 2)}```") == "{'a': (1, 2)}"


# --------------------------------------------------------------------------- UTGen through the CLI

UNIT_TESTS = [
    "An empty list returns 1.0 in this code.\nArguments: ```span([])```\nOutput: ```0.0```",  # attack, right output
    "Arguments: ```span([1.0, 4.0])```\nOutput: ```3.0```",  # right output, no attack
    "Arguments: ```span([2.0])```\nOutput: ```5.0```",  # wrong output, no attack
    "I am not sure what to test.",  # unreadable
    "Arguments: ```span('abc')```\nOutput: ```0.0```",  # invalid: g cannot take a string
    "Arguments: ```span([])```\nOutput: ```1.0```",  # the buggy code's own output: an attack, a wrong output
]


def test_utgen_rates_by_hand_through_the_cli(tmp_path):
    tables, [gen], [score] = _run(tmp_path, "utgen", [("known to be incorrect", UNIT_TESTS)],
                                  {"utgen": {"unit_tests": 6}})
    suite = gen["suite"]
    assert [t["input"] for t in suite["tests"]] == ["[[]]", "[[1.0, 4.0]]", "[[2.0]]", '["abc"]', "[[]]"]
    assert score["detail"]["target"] == "candidate/bug" and score["metrics"]["unit_tests"] == 5
    assert score["metrics"]["unreadable"] == 1
    [row] = tables["Unit tests for a buggy function (UTGen Table 2 layout)"]["rows"]
    # 6 unit tests: attacks 1 and 6; right outputs 1 and 2; both: 1; invalid: 5; unreadable: 4
    assert row["unit tests"] == 6 and row["buggy programs"] == 1
    assert row["Attack rate"] == pytest.approx(100 * 2 / 6)
    assert row["Output acc."] == pytest.approx(100 * 2 / 6)
    assert row["Acc. ∩ Attack"] == pytest.approx(100 * 1 / 6)
    assert row["invalid %"] == pytest.approx(100 * 1 / 6) and row["unreadable %"] == pytest.approx(100 * 1 / 6)
    # the prompt showed the buggy function, never the correct candidate or the canonical solution
    prompts = [json.loads(x)["messages"][-1]["content"] for x in (tmp_path / "run" / "exchanges.jsonl").read_text()
               .splitlines()]
    assert prompts and all("return 1.0" in p and "else 0.0" not in p for p in prompts)


def test_unparsed_left_out_is_the_authors_denominator(sandbox):
    runner = DebuggingRunner(sandbox, unparsed="left_out")
    rec = {"runner": "debugging", "method": "utgen", "model": "m", "problem_id": "p",
           "metrics": {"unit_tests": 3.0, "unreadable": 1.0, "valid": 3.0, "attacks": 2.0, "correct": 1.0,
                       "both": 1.0}, "detail": {"target": "f", "checkable": True}}
    from tczoo.schema import ScoreRecord

    [table] = runner.summarize([ScoreRecord.model_validate(rec)])
    [row] = table.rows
    assert row["Attack rate"] == pytest.approx(50.0)  # 2 of 4: the unreadable one counts here ...
    assert row["Output acc."] == pytest.approx(100 / 3) and row["Acc. ∩ Attack"] == pytest.approx(100 / 3)  # not here


def test_a_score_by_hand_without_an_llm(sandbox, tmp_path):
    """The runner alone: a suite of three unit tests for the buggy candidate."""
    from tczoo.benchmarks import load_benchmark
    from tczoo.execution import score_suite
    from tczoo.registry import get_method

    problem = load_benchmark(f"humaneval:{FIXTURE}", ["Mini/0"], sandbox=sandbox)[0]
    runner = DebuggingRunner(sandbox, candidates=str(_candidates(tmp_path)))
    [spec] = runner.tasks(problem, get_method("utgen"), samples=1, seed=0)
    assert spec.task.target is not None and "return 1.0" in spec.task.target.code and spec.task.correct_programs == []
    suite = TestSuite(problem_id=problem.id, provenance=Provenance(method="utgen", model="m"),
                      tests=[TestCase(input="[[]]", output="0.0"), TestCase(input="[[3.0, 1.0]]", output="2.0"),
                             TestCase(input="[[]]", output="1.0")])
    suite.oracle.kind = OracleKind.EXPECTED_OUTPUT
    record = score_suite(runner, problem, spec, suite)
    assert record.metrics["attacks"] == 2 and record.metrics["correct"] == 2 and record.metrics["both"] == 1
    assert record.n_valid == 3
    assert [c[2:] for c in record.detail["per_test"]] == [[True, True], [False, True], [True, False]]


# --------------------------------------------------------------------------- UTDebug

VOTES = [("called as:\\s*```python\\s*span\\(\\[\\]\\)", "So: Output: ```0.0```"),
         ("called as:\\s*```python\\s*span\\(\\[1\\.0, 4\\.0\\]\\)", "Output: ```3.0```")]
ASK = [("known to be incorrect", ["Arguments: ```span([])```\nOutput: ```7```",
                                  "Arguments: ```span([1.0, 4.0])```\nOutput: ```7```"])]


def test_utdebug_repairs_with_voted_unit_tests_and_stops_when_they_pass(tmp_path):
    tables, [gen], [score] = _run(tmp_path, "utdebug", VOTES + ASK + [("does not pass the following", FIXED)],
                                  {"utdebug": {"unit_tests": 2, "rounds": 3}})
    suite = gen["suite"]
    # the answers' own outputs (7) were replaced by the votes' majorities
    first = [(t["input"], t["output"]) for t in suite["tests"] if t["meta"]["round"] == 1]
    assert sorted(first) == [("[[1.0, 4.0]]", "3.0"), ("[[]]", "0.0")]
    notes = [(a["program"]["meta"]["round"], a["note"].split(":")[0]) for a in suite["artifacts"]
             if a["role"] == "repaired"]
    assert notes == [(1, "edited"), (2, "all unit tests pass")]
    assert score["detail"]["before"] is False and [r["passed"] for r in score["detail"]["rounds"]] == [True, True]
    [row] = tables["Debugging with generated unit tests (UTDebug layout)"]["rows"]
    assert row["pass@1 before"] == 0.0 and row["pass@1 after"] == 100.0 and row["backtracks"] == 0
    # the repair prompt showed what the code did and what the unit test expected
    prompts = [json.loads(x)["messages"][-1]["content"] for x in (tmp_path / "run" / "exchanges.jsonl").read_text()
               .splitlines()]
    [repair] = [p for p in prompts if "does not pass the following" in p]
    assert "Input: `span([])`" in repair and "It returned: `1.0`" in repair and "Expected: `0.0`" in repair


def test_utdebug_backtracks_an_edit_that_passes_fewer_unit_tests(tmp_path):
    worse = "```python\ndef span(values):\n    return -1.0\n```"
    tables, [gen], [score] = _run(tmp_path, "utdebug", VOTES + ASK + [("does not pass the following", worse)],
                                  {"utdebug": {"unit_tests": 2, "rounds": 2}})
    repaired = [a for a in gen["suite"]["artifacts"] if a["role"] == "repaired"]
    assert [a["note"].split(":")[0] for a in repaired] == ["backtracked", "backtracked"]
    assert all("return 1.0" in a["program"]["code"] for a in repaired)  # the buggy code was kept
    [row] = tables["Debugging with generated unit tests (UTDebug layout)"]["rows"]
    assert row["pass@1 after"] == 0.0 and row["backtracks"] == 2
    # without validation the worse edit stays
    _, [gen], _ = _run(tmp_path / "nb", "utdebug", VOTES + ASK + [("does not pass the following", worse)],
                       {"utdebug": {"unit_tests": 2, "rounds": 1, "backtrack": False}})
    [last] = [a for a in gen["suite"]["artifacts"] if a["role"] == "repaired"]
    assert "return -1.0" in last["program"]["code"]


def test_a_split_vote_drops_the_unit_test(tmp_path):
    split = [("called as:", ["Output: ```0.0```", "Output: ```1.0```", "Output: ```2.0```", "Output: ```3.0```"])]
    _, [gen], _ = _run(tmp_path, "utdebug", split + ASK, {"utdebug": {"unit_tests": 1, "rounds": 1,
                                                                      "attempts": 1}})
    suite = gen["suite"]
    assert suite["tests"] == []
    assert any(f["reason"] == "no_output_majority" for f in suite["provenance"]["failures"])
    [art] = [a for a in suite["artifacts"] if a["role"] == "repaired"]
    assert art["note"].startswith("no unit test")


def test_a_repair_that_equals_everything_is_not_a_fix(sandbox, tmp_path):
    """The repaired program is model-written: an object whose == always answers True passes
    any `assert f(x) == y` (HumanEval's check program, the paper's ==); the default verdict
    reads each return value back and compares it in tczoo's process."""
    from tczoo.benchmarks import load_benchmark
    from tczoo.execution import score_suite
    from tczoo.registry import get_method
    from tczoo.schema import REPAIRED_ROLE, Artifact, Language, Program

    cheat = ("class Anything(float):\n    def __eq__(self, other):\n        return True\n"
             "    def __ne__(self, other):\n        return False\n    def __sub__(self, other):\n        return 0.0\n"
             "    __hash__ = float.__hash__\n\ndef span(values):\n    return Anything(1.0)\n")
    problem = load_benchmark(f"humaneval:{FIXTURE}", ["Mini/0"], sandbox=sandbox)[0]
    suite = TestSuite(problem_id=problem.id, provenance=Provenance(method="utdebug", model="m"),
                      tests=[TestCase(input="[[]]", output="0.0", meta={"round": 1})])
    suite.oracle.kind = OracleKind.EXPECTED_OUTPUT
    suite.artifacts.append(Artifact(role=REPAIRED_ROLE, program=Program(code=cheat, language=Language.PYTHON,
                                                                        meta={"round": 1, "note": "edited"})))
    verdicts = {}
    for golden in ("pairs", "check"):
        runner = DebuggingRunner(sandbox, candidates=str(_candidates(tmp_path)), golden=golden)
        [spec] = runner.tasks(problem, get_method("utdebug"), samples=1, seed=0)
        verdicts[golden] = score_suite(runner, problem, spec, suite).metrics["pass@1"]
    assert verdicts == {"pairs": 0.0, "check": 100.0}  # the check program is fooled; the default is not


def test_utgen_and_io_in_the_cross_scoring_matrix(tmp_path):
    """Each method's suites scored by the other's runner: io's tests get an attack rate,
    UTGen's unit tests a bug-finding outcome (tczoo compare --runners)."""
    rules = tmp_path / "rules.jsonl"
    with rules.open("w") as fh:
        fh.write(json.dumps({"match": "known to be incorrect", "responses": UNIT_TESTS[:3]}) + "\n")
        fh.write(json.dumps({"match": "uncover bugs", "response": '```json\n[{"input_args": {"values": []}, '
                                                                  '"expected_output": 0.0}]\n```'}) + "\n")
    cands = str(_candidates(tmp_path))
    params = {"utgen": {"unit_tests": 3}, "runner:debugging": {"candidates": cands},
              "runner:bugfind": {"candidates": cands, "responses": 1}}
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "compare", "--methods", "utgen,io", "--models",
                           f"scripted:{rules}", "--runners", "debugging,bugfind", "--benchmark",
                           f"humaneval:{FIXTURE}", "-p", "Mini/0", "--params", json.dumps(params),
                           "--out", str(tmp_path / "cmp"), "-f", "json"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    [matrix] = [t for t in json.loads(proc.stdout) if t["title"].startswith("cross-scoring")]
    rows = {r["method"]: r for r in matrix["rows"]}

    def number(method: str, column: str) -> float:  # a cell {"value", "status", ...}: a number only when "ok"
        cell = rows[method][column]
        assert isinstance(cell, dict) and cell["status"] == "ok" and cell["value"] is not None, (method, column, cell)
        return float(cell["value"])

    assert number("utgen", "debugging: Acc. ∩ Attack") == pytest.approx(100 / 3)
    assert number("io", "debugging: Attack rate") == 100.0 and number("io", "debugging: Output acc.") == 100.0
    assert number("utgen", "bugfind: humaneval ITR") == 100.0  # its third unit test's output is wrong: Eq. 1's invalid
    assert number("io", "bugfind: humaneval TBR") == 100.0

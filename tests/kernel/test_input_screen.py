"""The input screen every suite passes before scoring (``tczoo.execution.screen``).

A test generator is an adversary of its own score: an empty input on which correct
codes print nothing and wrong codes crash must not "hack" them; an out-of-range input
must not "slow down" a solution. These tests hold the screen to what a judge does: the
problem's input validators decide (real validator programs in the real sandbox), a
function-level input must fit the entry point's signature, the named option
``strict_inputs`` asks a reference solution to run cleanly and print something, and a
rejected input is counted and shown, never scored.
"""

from __future__ import annotations

import json

import pytest

from tczoo.errors import InfrastructureFailure
from tczoo.execution import score_suite, scored_view, screen_inputs
from tczoo.execution.screen import check_kind, function_signature
from tczoo.runner import TaskSpec
from tczoo.schema import (Language, Problem, Program, Provenance, Sample, Setting, Task, TestCase, TestSuite, Validator,
                          WrongProgram)
from tczoo.runners.hackrate import HackRateRunner

# The problem: n, then n integers in [1, 100]. Its validator is a real program (Kattis
# protocol: 42 valid, 43 invalid); the correct code prints nothing when it reads nothing,
# the wrong one crashes on an empty input -- exactly the shape that let an empty test
# "hack" zoo-mini's wrong codes.
VALIDATOR = r'''
import sys
data = sys.stdin.read()
lines = [l.rstrip() for l in data.split("\n")]
while lines and lines[-1] == "":
    lines.pop()
def no(why):
    print(why, file=sys.stderr)
    sys.exit(43)
if len(lines) != 2:
    no("expected 2 lines")
if not lines[0].isdigit() or not 1 <= int(lines[0]) <= 5:
    no("n out of range")
xs = lines[1].split(" ")
if len(xs) != int(lines[0]) or not all(x.isdigit() and 1 <= int(x) <= 100 for x in xs):
    no("bad values")
sys.exit(42)
'''
CORRECT = "import sys\nd = sys.stdin.read().split()\nif d:\n    print(sum(map(int, d[1:])))\n"
WRONG = "import sys\nd = sys.stdin.read().split()\nprint(sum(map(int, d[1:-1])) if int(d[0]) > 1 else d[1])\n"


def _problem(*, validator: bool = True) -> Problem:
    return Problem(
        id="sum", statement="Print the sum of n integers (1 <= n <= 5, 1 <= a_i <= 100).",
        samples=[Sample(input="2\n1 2\n", output="3\n")],
        solutions=[Program(code=CORRECT, language=Language.PYTHON, name="accepted/sum.py")],
        wrong_solutions=[WrongProgram(code=WRONG, language=Language.PYTHON, name="wrong/drop_last.py")],
        input_validators=[Validator(program=Program(code=VALIDATOR, language=Language.PYTHON, name="v.py"),
                                    time_limit_ms=5000)] if validator else [],
    )


def _suite(*tests: tuple[str, str | None]) -> TestSuite:
    return TestSuite(problem_id="sum", tests=[TestCase(input=i, output=o) for i, o in tests],
                     provenance=Provenance(method="crux", model="m"))


def _spec(problem: Problem) -> TaskSpec:
    return TaskSpec(key="", task=Task.from_problem(problem, Setting.SPEC))


def test_the_problems_validator_decides_and_says_why(sandbox):
    problem = _problem()
    tests = [TestCase(input=t) for t in ["2\n1 2\n", "", "2\n1 2", "9\n1 1 1 1 1 1 1 1 1\n", "2\n1 200\n", "2\n1 2\n"]]
    got = screen_inputs(problem, tests, sandbox)
    assert got.kept == [0, 2, 5]  # a missing final newline is this validator's business, and it allows it
    assert [t.meta["index"] for t in got.rejected] == [1, 3, 4]
    assert got.check.by == "validator" and got.check.tests == 6 and got.check.rejected == 3
    assert any("expected 2 lines" in r for r in got.reasons) and any("n out of range" in r for r in got.reasons)
    assert all(t.meta["invalid_input"] for t in got.rejected)


def test_an_empty_test_never_hacks_and_is_counted_invalid(sandbox):
    """The issue's attack: CRUX answering [{"input": "", "output": ""}]. Without the screen the
    correct code prints nothing (= the expected output: valid) and the wrong code crashes
    (= hacked): PassRate 100, HackRate 100."""
    problem = _problem()
    runner = HackRateRunner(sandbox)
    record = score_suite(runner, problem, _spec(problem), _suite(("", "")))
    assert record.metrics["pass_rate"] == 0.0 and record.metrics["hack_rate"] == 0.0
    assert record.metrics["n_tests"] == 1.0 and record.metrics["n_invalid_input"] == 1.0
    assert record.n_valid == 0 and record.input_check.rejected == 1 and record.input_check.by == "validator"
    assert record.detail["rejected"][0]["index"] == 0
    # the unscreened score is the hole itself: keep it visible so this test cannot pass by accident
    unscreened = runner.score(problem, _spec(problem), _suite(("", "")))
    assert unscreened.metrics["pass_rate"] == 100.0 and unscreened.metrics["hack_rate"] == 100.0


def test_valid_tests_beside_an_invalid_one_keep_their_score_and_the_rate_counts_all(sandbox):
    problem = _problem()
    runner = HackRateRunner(sandbox)
    suite = _suite(("", ""), ("3\n1 2 3\n", "6\n"))
    record = score_suite(runner, problem, _spec(problem), suite)
    assert record.metrics["pass_rate"] == 50.0  # 1 valid of 2 generated
    assert record.metrics["hack_rate"] == 100.0  # the valid test exposes the wrong code
    assert record.n_valid == 1
    # what the browser shows: the suite as the runner saw it, indices and all
    seen = scored_view(record, suite)
    assert [t.input for t in seen.tests] == ["3\n1 2 3\n"] and [t.meta["index"] for t in seen.rejected] == [0]
    assert record.detail["tests"][0]["test"] == 0 and seen.tests[0].meta["index"] == 1


def test_a_problem_without_validator_is_unchecked_unless_strict(sandbox):
    problem = _problem(validator=False)
    runner = HackRateRunner(sandbox)
    paper = score_suite(runner, problem, _spec(problem), _suite(("", "")))
    assert paper.input_check.by == "none" and paper.metrics["hack_rate"] == 100.0  # the paper's rule: shown as such
    strict = score_suite(runner, problem, _spec(problem), _suite(("", ""), ("2\n1 2\n", None)), strict_inputs=True)
    assert strict.input_check.by == "reference" and strict.input_check.rejected == 1
    assert "printed nothing" in strict.input_check.reasons[0]
    assert strict.metrics["pass_rate"] == 50.0


def test_a_validator_the_sandbox_cannot_run_is_nobodys_verdict(sandbox):
    """A sandbox error decides nothing: not 'invalid' (the test's loss), not 'valid'."""
    from sandbox_fixtures import DyingFor

    problem = _problem()
    with pytest.raises(InfrastructureFailure):
        screen_inputs(problem, [TestCase(input="7\n")], DyingFor(sandbox, VALIDATOR))


def test_a_validator_that_crashes_or_sleeps_has_not_confirmed_the_input(sandbox):
    problem = _problem()
    for code in ("raise SystemExit(0)\n", "import time\ntime.sleep(30)\n", "1/0\n"):
        problem.input_validators = [Validator(program=Program(code=code, language=Language.PYTHON, name="v.py"),
                                              time_limit_ms=300)]
        got = screen_inputs(problem, [TestCase(input="2\n1 2\n")], sandbox)
        assert got.kept == [] and got.check.rejected == 1, code


# --------------------------------------------------------------------------- function level


HEAD = '''from typing import List, Optional, Tuple


def pick(xs: List[int], k: int, label: Optional[str] = None, pair: Tuple[int, str] = (0, "")) -> List[int]:
    """Return the k largest."""
'''


def _functional() -> Problem:
    return Problem(id="pick", statement=HEAD, entry_point="pick",
                   solutions=[Program(code=HEAD + "    return sorted(xs)[-k:]\n", language=Language.PYTHON)])


@pytest.mark.parametrize("args,why", [
    ([[3, 1, 2], 2], None),
    ([[3, 1, 2], 2, None], None),
    ([[3, 1, 2], 2, "top", [1, "a"]], None),
    ({"xs": [1], "k": 1}, None),
    ([[1.5], 1], "argument xs"),
    ([["1"], 1], "argument xs"),
    ([[1], True], "argument k"),
    ([[1]], "missing"),
    ([[1], 1, None, [1, 2]], "argument pair"),
    ([[1], 1, None, (0, ""), 5], "argument(s) for"),
    ({"xs": [1], "k": 1, "extra": 2}, "unknown"),
    ("[1, 2]", "not a list"),
    ("([3, 1], 2, None, (1, 'a'))", None),  # a Python literal, as the call reads one
    ("({1, 2}, 2)", None),
    ("({1: 2}, 2)", "argument xs"),
])
def test_a_function_level_input_must_fit_the_signature(args, why):
    sig = function_signature(_functional())
    if args == "[1, 2]":
        got = sig.check(json.dumps("[1, 2]"))  # a JSON string, not arguments
    elif isinstance(args, str):
        got = sig.check(args)
    else:
        got = sig.check(json.dumps(args))
    if why is None:
        assert got is None, got
    else:
        assert got and (why in got or why == "not a list"), got


def test_function_level_screen_needs_no_sandbox_run():
    problem = _functional()
    assert check_kind(problem) == "signature"
    got = screen_inputs(problem, [TestCase(input="[[1, 2], 1]"), TestCase(input='[["x"], 1]'),
                                  TestCase(input="not json")], sandbox=None)  # type: ignore[arg-type]
    assert got.kept == [0] and got.check.rejected == 2


def test_a_validators_leniency_buys_nothing_the_runner_runs_the_canonical_text(sandbox):
    """Trailing blanks pass a lenient validator; 50 MB of them would slow every program
    down (a free 'slowdown', a free timeout). The runner runs the canonical text instead,
    when the validators accept it too."""
    problem = _problem()
    padded = "2\r\n1 2" + " " * 100_000 + "\n"
    got = screen_inputs(problem, [TestCase(input=padded), TestCase(input="2\n1 2\n")], sandbox)
    assert got.kept == [0, 1] and got.canonical == {0: "2\n1 2\n"}
    record = score_suite(HackRateRunner(sandbox), problem, _spec(problem), _suite((padded, "3\n")))
    assert record.n_valid == 1 and record.input_check.rejected == 0
    # a validator that insists on the trailing blank keeps the text as given
    strict = _problem()
    strict.input_validators = [Validator(program=Program(
        code="import sys\nsys.exit(42 if sys.stdin.read().endswith(' \\n') else 43)\n", language=Language.PYTHON,
        name="v.py"))]
    got = screen_inputs(strict, [TestCase(input="2\n1 2 \n")], sandbox)
    assert got.kept == [0] and got.canonical == {}

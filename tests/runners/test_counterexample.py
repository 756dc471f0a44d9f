"""The counterexample runner (TCGBench's Valid@k / Success@k, REFUTE's success rate):
pass@k and the tables worked by hand from records, and responses scored on real
problems with the real sandbox and compilers — a counterexample that breaks its target,
one the problem's validator rejects (never a success, whatever it does), an empty
response (a format error, in the denominator), an input the ground truth itself fails
on (refutes nothing), a target that crashes or runs out of time, one that is wrong only
sometimes (REFUTE runs it again), and each method's protocol (REFUTE's 20 s and 5 runs)."""

from __future__ import annotations

import pytest

from tczoo.execution import score_suite
from tczoo.methods.refute import Refute
from tczoo.methods.tcgbench import Tcgbench, TcgbenchValid
from tczoo.runners.counterexample import CounterexampleRunner, pass_at_k
from tczoo.schema import Language, Problem, Program, Provenance, ScoreRecord, TestCase, TestSuite, WrongProgram
from tczoo.testing import problem as zoo

HI = "wrong/hi_exclusive.cpp"
CEIL = "wrong/ceil_count.cpp"
LONGEST = "1 1\n5\n"  # answer 5: hi_exclusive never tests the longest ribbon and prints 4


def suite_of(*inputs: str, method: str = "tcgbench") -> TestSuite:
    return TestSuite(problem_id="p", tests=[TestCase(input=i) for i in inputs],
                     provenance=Provenance(method=method, model="scripted:x"))


# --------------------------------------------------------------------------- by hand


def test_pass_at_k_is_the_unbiased_estimator():
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10)  # 1 - C(3,2)/C(5,2)
    assert pass_at_k(3, 1, 3) == 1.0 and pass_at_k(3, 0, 2) == 0.0
    assert pass_at_k(2, 1, 3) is None  # fewer attempts than k: no number


def _record(problem_id: str, target: str, success: bool | None, valid: bool = True, response: int = 0,
            format_error: bool = False) -> ScoreRecord:
    return ScoreRecord(runner="counterexample", method="tcgbench", model="m", problem_id=problem_id,
                       metrics={"valid": 100.0 * valid, "format_error": 100.0 * format_error},
                       detail={"targets": {target: {"success": success, "reason": "target_WA" if success else
                                                    "no_separation"}},
                               "valid": valid, "reason": "" if valid else "format_error:parse:no_code_block",
                               "single_target": True, "target": target, "response": response})


def test_success_and_valid_at_k_by_hand():
    # target A: 3 responses, one success; target B: 3 responses, none (one a format error)
    records = [_record("p1", "A", True, response=0), _record("p1", "A", False, response=1),
               _record("p1", "A", False, response=2), _record("p2", "B", False, response=0),
               _record("p2", "B", False, response=1),
               _record("p2", "B", False, valid=False, response=2, format_error=True)]
    [table, why] = CounterexampleRunner(ks=[1, 2, 3, 4]).summarize(records)
    [row] = table.rows
    assert (row["problems"], row["targets"], row["responses"]) == (2, 2, 6)
    assert row["Success@1"] == pytest.approx((100 / 3 + 0) / 2)
    assert row["Success@2"] == pytest.approx((100 * (1 - 1 / 3) + 0) / 2)  # A: 1 - C(2,2)/C(3,2)
    assert row["Success@3"] == pytest.approx(50.0)
    assert row["Success@4"] is None and row["Valid@4"] is None  # every unit has 3 < 4 responses: no number
    assert row["Valid@1"] == pytest.approx((100.0 + 100 * 2 / 3) / 2)
    assert row["Valid@3"] == pytest.approx(100.0)  # B: some response of 3 is valid
    assert row["format err"] == pytest.approx(100 / 6) and row["invalid"] == pytest.approx(100 / 6)
    assert any("fewer than k responses" in n and "tcgbench success@4: 2" in n for n in table.notes)
    assert why.rows[0]["format_error"] > 0 and why.rows[0]["target_WA"] > 0


def test_an_undetermined_judgement_is_never_a_failure():
    records = [_record("p1", "A", None), _record("p1", "A", True, response=1)]
    [table, _] = CounterexampleRunner().summarize(records)
    assert table.rows[0]["Success@1"] == 100.0  # one determined response, a success
    assert any("1 (response, target) judgement(s) undetermined" in n for n in table.notes)


# --------------------------------------------------------------------------- scored for real


@pytest.fixture(scope="module")
def zm04(sandbox):
    return zoo("zm04", sandbox=sandbox)


def _score(runner, problem, method_cls, suite, wrong: str | None = None):
    specs = runner.tasks(problem, method_cls, samples=1, seed=0)
    if wrong is not None:
        specs = [s for s in specs if problem.wrong_solutions[s.context["wrong"]].name == wrong]
    return score_suite(runner, problem, specs[0], suite)


def test_a_counterexample_breaks_its_target_and_only_it(sandbox, zm04):
    runner = CounterexampleRunner(sandbox, wrong=["hi_exclusive", "ceil_count"])
    hit = _score(runner, zm04, Tcgbench, suite_of(LONGEST), HI)
    assert hit.detail["targets"] == {HI: {"success": True, "reason": "target_WA", "at": 0}}
    assert (hit.metrics["success"], hit.metrics["valid"], hit.n_valid) == (100.0, 100.0, 1)
    assert hit.detail["time_ms"] == zm04.time_limit_ms and hit.detail["target_runs"] == 1  # TCGBench: the problem's
    miss = _score(runner, zm04, Tcgbench, suite_of(LONGEST), CEIL)
    assert miss.detail["targets"][CEIL]["success"] is False and miss.metrics["success"] == 0.0
    # a spec-only response (TCGBench's Task 1, or any method cross-scored) is judged on every target
    both = _score(runner, zm04, TcgbenchValid, suite_of(LONGEST, method="tcgbench-valid"))
    assert {k: v["success"] for k, v in both.detail["targets"].items()} == {HI: True, CEIL: False}
    assert both.metrics["success"] == 50.0 and not both.detail["single_target"]


def test_an_invalid_input_is_never_a_success(sandbox, zm04):
    # n = 0 breaks the constraints; a buggy program may well "fail" on it: it must not count
    runner = CounterexampleRunner(sandbox, wrong=["hi_exclusive"])
    record = _score(runner, zm04, Tcgbench, suite_of("0 1\n\n", LONGEST), HI)
    assert record.input_check.by == "validator" and record.input_check.rejected == 1
    assert record.detail["valid"] is False and record.detail["reason"].startswith("invalid_input")
    assert record.detail["targets"][HI]["success"] is False and record.metrics["success"] == 0.0
    assert record.metrics["valid"] == 0.0 and record.n_valid == 0


def test_an_empty_response_is_a_format_error_in_the_denominator(sandbox, zm04):
    runner = CounterexampleRunner(sandbox, wrong=["hi_exclusive"])
    empty = suite_of()
    empty.fail("parse", "no_code_block", "no Python function named construct_inputs")
    record = _score(runner, zm04, Tcgbench, empty, HI)
    assert record.detail["reason"] == "format_error:parse:no_code_block"
    assert (record.metrics["format_error"], record.metrics["valid"], record.metrics["success"]) == (100.0, 0.0, 0.0)


ECHO = "n = int(input())\nprint(n)\n"


def _toy(wrong: dict[str, str], time_limit_ms: int = 1000) -> Problem:
    """A problem without validators: print n. g crashes on 7 (a correct program that is
    wrong there cannot judge it); the targets are Python."""
    g = "n = int(input())\nif n == 7:\n    raise SystemExit(3)\nprint(n)\n"
    return Problem(id="toy", statement="Print n.", time_limit_ms=time_limit_ms, memory_limit_mb=256,
                   solutions=[Program(code=g, language=Language.PYTHON, name="accepted/g.py")],
                   wrong_solutions=[WrongProgram(code=code, language=Language.PYTHON, name=name)
                                    for name, code in wrong.items()])


def test_an_input_the_ground_truth_fails_on_refutes_nothing(sandbox):
    toy = _toy({"off_at_7.py": "n = int(input())\nprint(n + (n == 7))\n",
                "crash_at_8.py": "n = int(input())\nassert n != 8\nprint(n)\n",
                "loop_at_9.py": "n = int(input())\nwhile n == 9:\n    pass\nprint(n)\n"})
    runner = CounterexampleRunner(sandbox)
    at = {name: _score(runner, toy, TcgbenchValid, suite_of(text)).detail["targets"][name]
          for name, text in (("off_at_7.py", "7\n"), ("crash_at_8.py", "8\n"), ("loop_at_9.py", "9\n"))}
    assert at["off_at_7.py"] == {"success": False, "reason": "ground_truth_failed:RE", "at": None}
    assert at["crash_at_8.py"]["success"] is True and at["crash_at_8.py"]["reason"] == "target_RE"
    assert at["loop_at_9.py"]["success"] is True and at["loop_at_9.py"]["reason"] == "target_TLE"


def test_refute_runs_a_target_again_where_it_agreed(sandbox):
    # right on half of its runs (os.urandom): REFUTE's evaluation runs it again; 20 runs all
    # right has odds 2**-20
    flaky = "import os\nn = int(input())\nprint(n + (os.urandom(1)[0] < 128))\n"
    toy = _toy({"flaky.py": flaky})
    record = _score(CounterexampleRunner(sandbox, target_runs=20), toy, Refute, suite_of("3\n", method="refute"))
    assert record.detail["targets"]["flaky.py"]["success"] is True and record.detail["target_runs"] == 20


def test_each_method_brings_its_papers_protocol(sandbox, zm04):
    runner = CounterexampleRunner(sandbox, wrong=["hi_exclusive"])
    [refute] = runner.tasks(zm04, Refute, samples=1, seed=0)
    assert (refute.context["time_ms"], refute.context["target_runs"]) == (20_000, 5)  # the authors' evaluation
    [tcg] = runner.tasks(zm04, Tcgbench, samples=1, seed=0)
    assert (tcg.context["time_ms"], tcg.context["target_runs"]) == (None, 1)
    forced = CounterexampleRunner(sandbox, wrong=["hi_exclusive"], time_ms="problem", target_runs=2)
    [spec] = forced.tasks(zm04, Refute, samples=1, seed=0)
    assert (spec.context["time_ms"], spec.context["target_runs"]) == (None, 2)
    assert refute.task.target is not None and refute.task.target.name == "target"  # neutral: no bug description
    assert len(runner.tasks(zm04, Refute, samples=3, seed=0)) == 3  # the run's samples: responses per target
    record = score_suite(runner, zm04, refute, suite_of(LONGEST, method="refute"))
    assert record.detail["time_ms"] == 20_000 and record.detail["time_source"] == "protocol"
    header = dict(runner.settings_used([record]))
    assert "refute: 1 response(s) per unit over 1 unit(s); programs under 20000 ms (protocol); 5 run(s)" \
        in header["responses, limits"]
    [matrix] = runner.matrices(record, suite_of(LONGEST))
    assert [label for label, _ in matrix.rows] == ["g: accepted/fast.cpp", f"f: {HI}"]
    assert matrix.rows[1][1][0][0] == "WA"


def test_a_response_gets_as_many_shots_as_it_was_asked_for(sandbox, zm04):
    # asked for one input, it returns a harmless one and then the counterexample: only the first counts
    runner = CounterexampleRunner(sandbox, wrong=["hi_exclusive"])
    record = _score(runner, zm04, Tcgbench, suite_of("3 7\n10 15 8\n", LONGEST), HI)
    assert record.detail["targets"][HI]["success"] is False and record.detail["ignored_inputs"] == 1
    wider = CounterexampleRunner(sandbox, wrong=["hi_exclusive"], budget=2)
    assert _score(wider, zm04, Tcgbench, suite_of("3 7\n10 15 8\n", LONGEST), HI).detail["targets"][HI]["success"]

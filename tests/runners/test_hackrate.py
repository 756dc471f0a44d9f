"""HackRate / PassRate on hand-checked cases (TC-Bench §3.1.2, A.4 and the reference
scripts), with real programs in the real sandbox.

The problem: print n squared. Its wrong codes fail on known inputs only, so every
number below is worked out by hand from which tests are valid and in which order the
seeded shuffle puts them (orders printed in the comments were read off
``random.Random(f"{seed}:{problem}:{key}").shuffle``)."""

import json
import subprocess
import sys

import pytest

from tczoo.execution import Execution, Verdict
from tczoo.runner import TaskSpec
from tczoo.runners.hackrate import HackRateRunner, WrongOutcome, judge_test
from tczoo.schema import (GoldenTest, Language, Oracle, OracleKind, Problem, Program, Provenance,
                          ScoreRecord, TestCase, TestSuite, WrongProgram)

PY = Language.PYTHON
CORRECT = "n = int(input())\nprint(n * n)\n"
# Correct, but spends 1.5 s of CPU when n == 5 (a validator "at the limit").
SLOW_ON_5 = ("import time\nn = int(input())\nif n == 5:\n    t = time.process_time()\n"
             "    while time.process_time() - t < 1.5:\n        pass\nprint(n * n)\n")
SPEC = TaskSpec(key="", task=None)  # type: ignore[arg-type]


def _problem(rank=2, *, solutions=None, wrongs=None, time_limit_ms=1000) -> Problem:
    wrongs = wrongs if wrongs is not None else [
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
        id="square", statement="Print n squared.", time_limit_ms=time_limit_ms, memory_limit_mb=64,
        solutions=solutions or [Program(code=CORRECT, language=PY, name="ok.py")],
        wrong_solutions=wrongs, golden_tests=[GoldenTest(input="3\n", output="9\n")], rank=rank,
    )


def _suite(tests, method="crux") -> TestSuite:
    return TestSuite(problem_id="square", tests=[TestCase(input=i, output=o) for i, o in tests],
                     oracle=Oracle(kind=OracleKind.EXPECTED_OUTPUT), provenance=Provenance(method=method, model="m"))


def test_pass_rate_and_hack_rate_by_hand(sandbox):
    runner = HackRateRunner(sandbox, wrong_limits="problem")
    # 5 tests with predicted outputs: "0 -> 1" and "10 -> 99" are wrong, so 3 of 5 are valid.
    suite = _suite([("-2\n", "4\n"), ("5\n", "25\n"), ("0\n", "1\n"), ("7\n", "49\n"), ("10\n", "99\n")])
    rec = runner.score(_problem(rank=None), SPEC, suite)  # no rank: 10 tests per 1x, all 3 used
    m = rec.metrics
    assert m["pass_rate"] == pytest.approx(60.0)
    assert [t["reason"] for t in rec.detail["tests"]] == [
        "given_output_ok", "given_output_ok", "wrong_output", "given_output_ok", "wrong_output"]
    # shuffled valid tests: [1, 0, 3] = 5, -2, 7
    assert rec.detail["order"] == [1, 0, 3]
    # abs fails on -2 (WA); crash never sees n >= 100; spin7 hangs on 7 (TLE); zero: 0 was invalid
    assert rec.detail["wrong"] == {"abs": "wa", "crash": "ac", "spin7": "tle", "zero": "ac"}
    assert rec.detail["first_failure"] == {"abs": [1, "WA"], "spin7": [2, "TLE"]}
    assert m["hack_rate"] == pytest.approx(50.0)
    assert (m["ac"], m["wa"], m["re"], m["tle"]) == (50.0, 25.0, 0.0, 25.0)
    assert (m["n_tests"], rec.n_valid, m["n_used"], m["n_wanted"]) == (5, 3, 3, 10)
    # Early exit: 4 codes on "5", 4 on "-2" (abs out), 3 on "7" (spin7 out).
    assert rec.detail["executions"] == 4 + 4 + 3 and rec.detail["executions_full"] == 12
    # the run browser's matrix: the valid tests in the order they ran (5, -2, 7), then the invalid ones
    [matrix] = runner.matrices(rec, suite)
    rows = {label: [c[0] for c in cells] for label, cells in matrix.rows}
    assert matrix.tests == [1, 0, 3, 2, 4]
    assert rows["validity"] == ["valid", "valid", "valid", "invalid", "invalid"]
    assert rows["abs"] == ["AC", "WA", "-", "-", "-"]
    assert rows["spin7"] == ["AC", "AC", "TLE", "-", "-"]
    assert rows["zero"] == ["AC", "AC", "AC", "-", "-"]


def test_k_times_rank_is_nested_prefixes_of_one_shuffle_of_the_valid_tests(sandbox):
    """A.4 / get_rank_result.py: R' is the unit, k x R' the budget, prefixes of one
    seeded shuffle of the *valid* tests; how many valid tests each k had is reported."""
    runner = HackRateRunner(sandbox, scales=[1, 2, 3])
    problem = _problem(rank=2)
    # methods are asked for enough tests for the largest prefix scored (3 x rank), or
    # ask_scale x rank when that is larger
    assert HackRateRunner(sandbox, scales=[1, 2, 3], ask_scale=None).budget(problem) == 6
    assert HackRateRunner(sandbox, scales=[1, 2, 3, 4, 5, 6]).budget(problem) == 12
    assert runner.budget(problem) == HackRateRunner(sandbox).budget(problem) == 10  # the paper's 5 x rank
    assert HackRateRunner(sandbox, ask_scale=None).budget(problem) == 2
    suite = _suite([("1\n", None), ("-2\n", None), ("5\n", "26\n"), ("0\n", None), ("3\n", None), ("150\n", None)])
    rec = runner.score(problem, SPEC, suite)
    m = rec.metrics
    assert m["pass_rate"] == pytest.approx(500 / 6)  # "5 -> 26" is wrong
    # valid tests [0, 1, 3, 4, 5] shuffled: 0, -2, 3, 150, 1
    assert rec.detail["order"] == [3, 1, 4, 5, 0]
    # 1x = {0, -2}: zero (WA) and abs (WA) out
    assert (m["hack_rate@1x"], m["wa@1x"], m["re@1x"], m["ac@1x"]) == (50.0, 50.0, 0.0, 50.0)
    # 2x adds 3 and 150: crash out (RE)
    assert (m["hack_rate@2x"], m["wa@2x"], m["re@2x"], m["ac@2x"]) == (75.0, 50.0, 25.0, 25.0)
    # 3x wants 6 tests; only 5 are valid, so 3x is 2x plus "1"
    assert m["hack_rate@3x"] == 75.0 and (m["n_used@3x"], m["n_wanted@3x"]) == (5, 6)
    assert (m["n_used@1x"], m["n_used@2x"]) == (2, 4)
    assert m["hack_rate"] == m["hack_rate@1x"]  # main columns are 1 x rank
    assert rec.detail["first_failure"] == {"abs": [1, "WA"], "crash": [3, "RE"], "zero": [0, "WA"]}
    assert rec.detail["executions"] == 4 + 3 + 2 + 2 + 1 and rec.detail["executions_full"] == 4 * 5
    # Another seed, another order; the rates at the largest prefix (all valid tests) do not change.
    other = HackRateRunner(sandbox, scales=[1, 2, 3], seed=1).score(problem, SPEC, suite)
    assert other.detail["order"] == [3, 1, 5, 4, 0]
    assert other.metrics["hack_rate@2x"] == 75.0 and other.metrics["hack_rate@3x"] == 75.0


def test_hack_rate_at_1x_uses_rank_valid_tests_of_a_5x_pool_by_hand(sandbox):
    """Issue 26 A.2: the reference (``get_rank_result.py``) draws its 1x-5x prefixes from
    the *valid* tests of a pool of 5 x R'; asking a method for only 1 x R' leaves 1x
    short of valid tests whenever PassRate < 100."""
    problem = _problem(rank=2)
    runner = HackRateRunner(sandbox)
    assert runner.budget(problem) == 10  # 5 x R' asked, R' = 2
    # the method's ten tests: its first six outputs are wrong, the last four are right, and
    # every right one is negative, so each hacks `abs` (WA) and nothing else: whichever two
    # the shuffle puts first, 1x = R' = 2 valid tests hack 1 of the 4 wrong codes
    tests = [("1\n", "2\n"), ("2\n", "5\n"), ("3\n", "10\n"), ("4\n", "17\n"), ("6\n", "37\n"),
             ("8\n", "65\n"), ("-2\n", "4\n"), ("-3\n", "9\n"), ("-4\n", "16\n"), ("-5\n", "25\n")]
    record = runner.score(problem, SPEC, _suite(tests[: runner.budget(problem)]))
    m = record.metrics
    assert m["pass_rate"] == pytest.approx(100 * 4 / 10)
    assert (record.n_valid, m["n_used"], m["n_wanted"]) == (4, 2, 2)
    assert (m["hack_rate"], m["wa"], m["ac"]) == (25.0, 25.0, 75.0)
    # asked for 1 x R' only, the same method writes its first two tests, both wrong: 1x has
    # no valid test and HackRate is 0 (what the recorded run showed: 4 usable of 11 wanted)
    short = HackRateRunner(sandbox, ask_scale=None)
    record = short.score(problem, SPEC, _suite(tests[: short.budget(problem)]))
    m = record.metrics
    assert (record.n_valid, m["n_used"], m["n_wanted"], m["hack_rate"]) == (0, 0, 2, 0.0)


def test_category_is_the_first_failure_in_the_shuffled_order(sandbox):
    """get_rank_result.find_first_non_ac: the verdict of the first failing test in the
    shuffled order names the category (WA on -2, RE on 150 for this code)."""
    both = WrongProgram(code="n = int(input())\nassert n < 100\nprint(abs(n) * n)\n", language=PY, name="both")
    problem = _problem(rank=None, wrongs=[both])
    suite = _suite([("-2\n", None), ("150\n", None)])
    first_150 = HackRateRunner(sandbox, seed=0).score(problem, SPEC, suite)  # order [1, 0]
    first_neg = HackRateRunner(sandbox, seed=2).score(problem, SPEC, suite)  # order [0, 1]
    assert first_150.detail["order"] == [1, 0] and first_150.detail["wrong"] == {"both": "re"}
    assert first_neg.detail["order"] == [0, 1] and first_neg.detail["wrong"] == {"both": "wa"}


@pytest.mark.e2e
def test_validators_get_the_reference_time_margin_and_wrong_codes_too(sandbox):
    """The reference runs validators and wrong codes under ulimit -t (TL // 1000 + 3) s:
    a correct code needing 1.5 s at a 1 s limit validates; a wrong code as slow passes."""
    slow = Program(code=SLOW_ON_5, language=PY, name="slow.py")
    slow_wrong = WrongProgram(code=SLOW_ON_5, language=PY, name="slow-wrong")
    problem = _problem(rank=None, solutions=[slow], wrongs=[slow_wrong])
    suite = _suite([("5\n", "25\n"), ("2\n", "4\n")])
    ref = HackRateRunner(sandbox).score(problem, SPEC, suite)
    assert ref.metrics["pass_rate"] == 100.0 and ref.detail["wrong"] == {"slow-wrong": "ac"}
    judge = HackRateRunner(sandbox, validator_limits="problem", wrong_limits="problem").score(problem, SPEC, suite)
    # at exactly the problem's 1 s the validator times out on "5": that test is not valid
    assert judge.metrics["pass_rate"] == 50.0 and judge.detail["tests"][0]["reason"] == "validator_failed"
    assert judge.detail["validators_dropped"] == []  # it ran cleanly on "2"
    wrong_judged = HackRateRunner(sandbox, wrong_limits="problem").score(problem, SPEC, suite)
    assert wrong_judged.detail["wrong"] == {"slow-wrong": "tle"}
    [table] = HackRateRunner(None).summarize([judge])
    assert any("problems' own limits" in n for n in table.notes)


def _tcbench_file(tmp_path, problem: Problem, solutions: list[str]):
    bench = tmp_path / "bench.jsonl"
    bench.write_text(json.dumps({
        "problem_id": problem.id, "description": problem.statement, "time_limit": problem.time_limit_ms,
        "memory_limit": problem.memory_limit_mb, "sample_input": "3\n", "sample_output": "9\n",
        "solutions": [{"code": c, "lang": "python"} for c in solutions],
        "wrong_solutions": [{"code": w.code, "lang": "python", "output_str": "W"} for w in problem.wrong_solutions],
        "rank": problem.rank,
    }) + "\n")
    return bench


def test_tcbench_data_uses_its_published_correct_codes_as_validators(sandbox, tmp_path):
    """TC-Bench ships the paper's 8 (drawn from the fastest 20% at construction): they are
    the validator set as they are; the fastest-20% choice is for raw solution sets."""
    from tczoo.benchmarks import load_benchmark

    slow = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3:\n    pass\n" + CORRECT
    variants = [CORRECT + f"# variant {i}\n" for i in range(4)] + [slow]
    [problem] = load_benchmark(f"tcbench:{_tcbench_file(tmp_path, _problem(), variants)}")
    assert problem.meta["validators"] == "published"
    published = HackRateRunner(sandbox).validators(problem)
    assert [p.name for p in published] == [f"solution-{i}" for i in range(5)]
    # the same solutions as a raw set: the slow one is outside the fastest 20%
    fastest = HackRateRunner(sandbox, validator_pool="fastest").validators(problem)
    assert sorted(p.name for p in fastest) == [f"solution-{i}" for i in range(4)]


def test_a_correct_code_failing_every_test_is_dropped_and_none_left_is_reported(sandbox):
    broken = Program(code="print(undefined_name)\n", language=PY, name="broken.py")
    ok = Program(code=CORRECT, language=PY, name="ok.py")
    runner = HackRateRunner(sandbox, validator_pool="published")
    problem = _problem(rank=None, solutions=[ok, broken])
    rec = runner.score(problem, SPEC, _suite([("-2\n", "4\n"), ("3\n", None)]))
    assert [d["name"] for d in rec.detail["validators_dropped"]] == ["broken.py"]
    assert rec.metrics["pass_rate"] == 100.0 and rec.detail["wrong"]["abs"] == "wa"
    # with only broken correct codes nothing can be said: no rate, left out, reported
    lost = runner.score(_problem(rank=None, solutions=[broken]).model_copy(update={"id": "other"}), SPEC,
                        _suite([("3\n", None)]))
    assert lost.metrics.get("no_validator") == 1.0 and "pass_rate" not in lost.metrics
    assert "hack_rate" not in lost.metrics
    [table] = runner.summarize([rec, lost])
    assert table.rows[0]["problems"] == 1 and any("left out" in n for n in table.notes)


def test_sandbox_errors_are_not_wrong_code_failures():
    """An SE is our failure: a validator SE makes the test undecided (not invalid), a
    wrong code's SE leaves it out of the rates from that test on — never an RE."""
    se = Execution(verdict=Verdict.SE, detail="worker failed")
    ok = Execution(verdict=Verdict.AC, output="4\n")
    assert judge_test(0, "4\n", [ok, se], []).reason == "sandbox_error"
    # the problem's own output validator failing is a judge error: undecided as well
    assert judge_test(0, "4\n", [ok, ok], [Verdict.AC, Verdict.SE]).reason == "judge_error"
    outcomes = [WrongOutcome(0, "wa"), WrongOutcome(None, "ac"), WrongOutcome(1, "se"), WrongOutcome(3, "re")]
    rates = HackRateRunner._rates
    assert rates(outcomes, 1) == {"n_wrong_sandbox_errors": 0.0, "hack_rate": 25.0, "ac": 75.0, "wa": 25.0, "re": 0.0, "tle": 0.0}
    two = rates(outcomes, 2)  # the SE'd code is out: 1 of 3 excluded
    assert two["n_wrong_sandbox_errors"] == 1.0 and two["hack_rate"] == pytest.approx(100 / 3) and two["re"] == 0.0
    assert rates(outcomes, 4)["hack_rate"] == pytest.approx(200 / 3)
    rec = ScoreRecord(runner="hackrate", method="crux", model="m", problem_id="a",
                      metrics={"n_tests": 2, "n_valid": 1, "n_test_sandbox_errors": 1, "n_wrong_sandbox_errors": 1, "hack_rate": 50.0,
                               "ac": 50.0, "wa": 50.0, "re": 0.0, "tle": 0.0, "pass_rate": 100.0})
    [table] = HackRateRunner(None).summarize([rec])
    assert any("sandbox errors" in n and "1 test(s) and 1 wrong code(s)" in n for n in table.notes)


def test_problems_without_generated_tests_are_averaged_as_the_reference_does(sandbox):
    """PassRate skips a problem with no generated test (load_data_filter), HackRate counts
    it as 0 (get_rank_result); PassRate counting it as 0 is printed beside."""
    runner = HackRateRunner(sandbox)
    empty = runner.score(_problem(), SPEC, _suite([]))
    assert "pass_rate" not in empty.metrics and empty.metrics["hack_rate"] == 0.0
    # 2 tests, "-2 -> 4" valid (abs out), "0 -> 5" not: PR 50, HR 25
    other = runner.score(_problem().model_copy(update={"id": "square2"}), SPEC,
                         _suite([("-2\n", "4\n"), ("0\n", "5\n")]))
    assert (other.metrics["pass_rate"], other.metrics["hack_rate"]) == (50.0, 25.0)
    [table] = runner.summarize([empty, other])
    [row] = table.rows
    assert (row["PR"], row["PR incl. empty"], row["HR"], row["no tests"], row["no valid"]) == (50.0, 25.0, 12.5, 1, 1)
    assert HackRateRunner.scores_empty_suites  # an empty suite is scored (HR 0), not a failed generation


def _rec(method, problem, pr, hr, **more):
    return ScoreRecord(runner="hackrate", method=method, model="m", problem_id=problem,
                       metrics={"pass_rate": pr, "hack_rate": hr, "ac": 100 - hr, "wa": hr, "re": 0.0, "tle": 0.0,
                                "n_tests": 4.0, "n_valid": 2.0, **more}, detail={"scale": 1})


def test_tables_follow_the_paper_order_two_decimals_and_scale_columns():
    recs = [_rec(m, p, 50.0, hr, **{"hack_rate@1x": hr, "hack_rate@2x": hr + 10, "ac@2x": 90 - hr, "wa@2x": hr + 10,
                                    "re@2x": 0.0, "tle@2x": 0.0, "ac@1x": 100 - hr, "wa@1x": hr, "re@1x": 0.0,
                                    "tle@1x": 0.0, "n_used@2x": 3.0, "n_wanted@2x": 4.0})
            for m in ("ht", "crux", "lcb", "algo", "pseudo", "other") for p, hr in (("a", 20.0), ("b", 30.0))]
    main, scaling = HackRateRunner(None).summarize(recs)
    assert [r["method"] for r in main.rows] == ["CRUX", "PSEUDO", "ALGO", "LCB", "HT", "OTHER"]
    assert main.columns[:11] == ["model", "method", "problems", "PR", "AC", "WA", "RE", "TLE", "HR", "HR 1x", "HR 2x"]
    assert main.decimals == 2 and scaling.decimals == 2
    row = main.rows[0]
    assert (row["HR"], row["HR 2x"], row["problems"]) == (25.0, 35.0, 2)
    two = [r for r in scaling.rows if r["method"] == "CRUX" and r["k"] == 2][0]
    assert (two["HR"], two["tests used"], two["tests wanted"], two["short"]) == (35.0, 3.0, 4.0, 2)
    from tczoo.report import render

    assert "| m | CRUX | 2 | 50.00 |" in render([main], "md")


def test_score_external_mixed_file_judges_each_test_by_its_own_oracle(sandbox, tmp_path):
    """A given output is checked; a missing one comes from the validators. "7 -> 50" is
    wrong and must not count (before, one missing output made the whole file
    reference-judged and the wrong "50" was silently replaced)."""
    problem = _problem()
    bench = _tcbench_file(tmp_path, problem, [CORRECT])
    tests = tmp_path / "tests.jsonl"
    tests.write_text("\n".join(json.dumps({"problem_id": "square", **t}) for t in [
        {"input": "-3\n", "output": "9\n"}, {"input": "0\n"}, {"input": "7\n", "output": "50\n"},
        {"input": "150\n"}]) + "\n")
    result = HackRateRunner.score_external(benchmark=f"tcbench:{bench}", tests_path=tests, sandbox=sandbox)
    # valid: -3, 0, 150 (3 of 4); abs out on -3 (WA), zero on 0 (WA), crash on 150 (RE); spin7 never sees 7
    assert result["pass_rate"] == 75.0 and result["hack_rate"] == 75.0
    assert (result["wa"], result["re"], result["tle"], result["ac"]) == (50.0, 25.0, 0.0, 25.0)
    assert (result["tests_given"], result["tests_valid"], result["tests_used"]) == (4, 3, 3)
    detail = json.loads((tmp_path / "tests.detail.json").read_text())["square"]["detail"]
    assert [t["reason"] for t in detail["tests"]] == ["given_output_ok", "from_validators", "wrong_output",
                                                     "from_validators"]
    assert detail["wrong"] == {"wrong-0": "wa", "wrong-1": "re", "wrong-2": "ac", "wrong-3": "wa"}


def test_score_external_scores_every_given_test_unless_a_budget_is_asked(sandbox, tmp_path):
    problem = _problem()  # rank 2: the old default cut 12 tests to 2
    bench = _tcbench_file(tmp_path, problem, [CORRECT])
    tests = tmp_path / "tests.jsonl"
    inputs = [f"{i}\n" for i in (1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12)] + ["-1\n"]
    tests.write_text("".join(json.dumps({"problem_id": "square", "input": i}) + "\n" for i in inputs))
    every = HackRateRunner.score_external(benchmark=f"tcbench:{bench}", tests_path=tests, sandbox=sandbox)
    assert (every["tests_given"], every["tests_valid"], every["tests_used"]) == (12, 12, 12)
    assert every["hack_rate"] == 25.0  # abs, on -1
    budget = HackRateRunner.score_external(benchmark=f"tcbench:{bench}", tests_path=tests, sandbox=sandbox, scale=1)
    assert budget["tests_used"] == 2
    assert every["problems_without_tests"] == 0 and every["hack_rate_all_problems"] == 25.0


def test_score_cli_reports_tests_used_and_rejects_bad_lines(tmp_path):
    bench = _tcbench_file(tmp_path, _problem(), [CORRECT])
    tests = tmp_path / "tests.jsonl"
    tests.write_text('{"problem_id": "square", "input": "-3\\n", "output": "9\\n"}\n')
    cmd = [sys.executable, "-m", "tczoo.cli", "score", "--benchmark", f"tcbench:{bench}", "--tests", str(tests)]
    proc = subprocess.run(cmd + ["-f", "json"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert (out["tests_used"], out["hack_rate"]) == (1, 25.0)
    tests.write_text('{"problem_id": "square", "input": 3}\n')
    bad = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and bad.stderr.startswith("error:") and "Traceback" not in bad.stderr


def test_spec_correct_methods_get_one_correct_code_outside_the_validators(sandbox):
    from tczoo.methods.lcb import Lcb

    codes = [Program(code=CORRECT + f"# {i}\n", language=PY, name=f"c{i}") for i in range(3)]
    problem = _problem(solutions=codes)
    runner = HackRateRunner(sandbox, validators=2, validator_pool="published")
    [spec] = runner.tasks(problem, Lcb, samples=1, seed=0)
    validators = {p.name for p in runner.validators(problem)}
    assert len(spec.task.correct_programs) == 1 and spec.task.correct_programs[0].name not in validators
    assert spec.task.budget == 10  # 5 x rank: the pool the 1x-5x prefixes are drawn from


# Print any divisor d of n with 1 < d (n >= 2): several right answers, judged by the
# problem's output validator (Kattis protocol: input answer feedback_dir < output; 42 / 43).
DIVISOR_VALIDATOR = """
import sys
n = int(open(sys.argv[1]).read())
try:
    d = int(sys.stdin.read())
except ValueError:
    sys.exit(43)
sys.exit(42 if 1 < d and n % d == 0 else 43)
"""


def test_a_problem_with_its_own_output_validator_judges_by_it(sandbox):
    """Validators that print different right answers agree through the output validator;
    a given wrong answer is rejected; a wrong code is judged by the validator too."""
    from tczoo.schema import Validator

    smallest = Program(code="n = int(input())\nprint(next(d for d in range(2, n + 1) if n % d == 0))\n",
                       language=PY, name="smallest.py")
    itself = Program(code="print(int(input()))\n", language=PY, name="itself.py")
    prints_one = WrongProgram(code="input()\nprint(1)\n", language=PY, name="one")
    # right for even n only (always prints 2)
    two = WrongProgram(code="input()\nprint(2)\n", language=PY, name="two")
    problem = Problem(id="divisor", statement="Print a divisor d of n with 1 < d.", time_limit_ms=1000,
                      memory_limit_mb=64, solutions=[smallest, itself], wrong_solutions=[prints_one, two],
                      checker="program", golden_tests=[GoldenTest(input="12\n", output="2\n")],
                      output_validator=Validator(program=Program(code=DIVISOR_VALIDATOR, language=PY, name="v.py")))
    suite = _suite([("9\n", None), ("8\n", "4\n"), ("7\n", "1\n")])
    rec = HackRateRunner(sandbox, validator_pool="published").score(problem, SPEC, suite)
    # "9": 3 and 9 are both right, so the test is valid (expected 3); "8 -> 4" is right;
    # "7 -> 1" is not. "one" fails everywhere; "two" fails on 9 only.
    assert [t["reason"] for t in rec.detail["tests"]] == ["from_validators", "given_output_ok", "wrong_output"]
    assert rec.metrics["pass_rate"] == pytest.approx(200 / 3)
    assert rec.detail["wrong"] == {"one": "wa", "two": "wa"} and rec.metrics["hack_rate"] == 100.0
    # timing the correct codes on the golden test judges them by the validator too (12 is right for 12)
    from tczoo.benchmarks.correct_codes import select_fastest

    selection = select_fastest(problem, sandbox)
    assert selection.failed == {} and sorted(selection.runtimes) == ["itself.py", "smallest.py"]

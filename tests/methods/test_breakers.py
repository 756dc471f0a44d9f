"""The methods that break a given program — TCGBench's targeted and valid generators
(``tcgbench``, ``tcgbench-valid``), REFUTE's counterexample (``refute``) and the
CodeHacker agent (``codehacker``) — with a scripted model, the real sandbox and real
compilers on zoo-mini: what each makes of good answers and of broken ones (a generator
that crashes, a solution instead of a generator, an answer outside REFUTE's form, a
language it refuses, a program that prints nothing), CodeHacker's calibration and hack
rounds with its base tests, and all four through ``tczoo run`` ending in their tables."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from breaker_fixtures import FAR, LONGEST, breaker_rules, construct, refute_answer, rules_file
from agent_fixtures import ccplus_rules, CCO_FEEDBACK
from tcbench_fixtures import fenced
from tczoo.execution import score_suite
from tczoo.methods.codehacker import Codehacker
from tczoo.methods.refute import Refute, program_in
from tczoo.parsing import contest_language
from tczoo.methods.tcgbench import Tcgbench, TcgbenchValid
from tczoo.runners.agreement import AgreementRunner
from tczoo.runners.counterexample import CounterexampleRunner
from tczoo.schema import BASE_TEST, Language, OracleKind
from tczoo.testing import problem as zoo
from tczoo.testing import run_method

HI = "wrong/hi_exclusive.cpp"


@pytest.fixture(scope="module")
def zm04(sandbox):
    return zoo("zm04", sandbox=sandbox)


def _model(tmp_path, rules, name="m.jsonl"):
    return rules_file(tmp_path / name, rules)


def _failures(suite):
    return [(f.stage, f.reason) for f in suite.provenance.failures]


# --------------------------------------------------------------------------- TCGBench


def test_tcgbench_runs_its_targeted_generator(sandbox, zm04, tmp_path):
    model = _model(tmp_path, breaker_rules(LONGEST))
    suite, task = run_method(Tcgbench, zm04, model, sandbox, runner="counterexample")
    assert task.target is not None and task.target.name == "target"  # the program under test, neutralised
    assert [t.input for t in suite.tests] == [LONGEST] and suite.oracle.kind is OracleKind.INPUTS_ONLY
    [art] = suite.artifacts
    assert art.role == "generator" and art.generator.functions == ["construct_inputs"] and art.ok
    record = score_suite(CounterexampleRunner(sandbox), zm04,
                         next(s for s in CounterexampleRunner(sandbox).tasks(zm04, Tcgbench, samples=1, seed=0)
                              if zm04.wrong_solutions[s.context["wrong"]].name == HI), suite)
    assert record.detail["targets"][HI]["success"] is True


@pytest.mark.parametrize("answer, reason", [
    (fenced("def construct_inputs():\n    return 1 // 0\n"), "crash"),
    (fenced("def construct_inputs():\n    while True:\n        pass\n"), "timeout"),
    (fenced("def construct_inputs():\n    return ''\n"), "empty_input"),
    (fenced("def construct_inputs():\n    return '1 1\\n' * (3 * 2**20)\n"), "input_too_large"),  # 12 MB
    (fenced("import sys\nn, k = map(int, sys.stdin.readline().split())\nprint(n)\n"), "solution_instead_of_generator"),
    ("I cannot do this.", "no_code_block"),
])
def test_a_broken_generator_is_a_recorded_failure_and_no_test(sandbox, zm04, tmp_path, answer, reason):
    model = _model(tmp_path, [(r"erroneous solution", answer)])
    suite, _ = run_method(Tcgbench, zm04, model, sandbox, runner="counterexample", generator_time_ms=300)
    assert suite.tests == [] and reason in {r for _, r in _failures(suite)}, _failures(suite)


def test_tcgbench_valid_calls_its_generator_once_per_input(sandbox, tmp_path):
    zm01 = zoo("zm01", sandbox=sandbox)
    model = _model(tmp_path, breaker_rules())
    suite, task = run_method(TcgbenchValid, zm01, model, sandbox, runner="counterexample", calls=3)
    assert task.target is None and task.correct_programs == []  # Task 1: the problem alone
    assert len(suite.tests) == 3 and len({t.input for t in suite.tests}) == 3  # seeded per call
    again, _ = run_method(TcgbenchValid, zm01, model, sandbox, runner="counterexample", calls=3)
    assert [t.input for t in again.tests] == [t.input for t in suite.tests]  # the same seeds, the same inputs


# --------------------------------------------------------------------------- REFUTE


def test_refute_reads_the_authors_answer_form():
    program, reason, _ = program_in(refute_answer(LONGEST), strict=True)
    assert reason == "" and program.language is Language.PYTHON and "sys.stdout.write" in program.code
    cpp = refute_answer("x").replace("import sys\nsys.stdout.write('x')\n",
                                     '#include <cstdio>\nint main() { if (1 < 2) puts("1 1\\n5"); }\n')
    program, _, _ = program_in(cpp.replace("Python 3", "GNU G++20 13.2 (64 bit, winlibs)"), strict=True)
    assert program.language is Language.CPP and "1 < 2" in program.code  # '<' in code: not XML-parsed
    assert program_in(refute_answer("x", lang="Java 21"), strict=True)[1] == "unsupported_language"
    assert program_in(refute_answer("x", lang="Python 2"), strict=True)[1] == "unsupported_language"
    assert (contest_language("PyPy 3-64"), contest_language("Python 3.8"), contest_language("C++17 (GCC 7-32)")) == (
        Language.PYTHON, Language.PYTHON, Language.CPP)
    plain = fenced("print(1, 1)\nprint(5)\n")
    assert program_in(plain, strict=True)[1] == "no_action"
    assert program_in(plain, strict=False)[0].code.startswith("print(1, 1)")  # ours: strict_answers off
    assert program_in("   ", strict=True)[1] == "empty_response"
    other = refute_answer("x").replace("print_fail_case", "solve_brute")
    assert program_in(other, strict=True)[1] == "no_action"


@pytest.mark.parametrize("answer, reason", [
    (refute_answer("x").replace("import sys\nsys.stdout.write('x')\n", "raise SystemExit(3)\n"), "program_RE"),
    (refute_answer("x").replace("import sys\nsys.stdout.write('x')\n", "pass\n"), "empty_input"),
    (refute_answer("x").replace("import sys\nsys.stdout.write('x')\n", "print('1 1\\n' * 3000000)\n"),
     "program_OLE"),  # 12 MB: over the 8 MB an input may take
    ("Here is my answer: 1 1 / 5", "no_action"),
])
def test_refute_records_what_went_wrong(sandbox, zm04, tmp_path, answer, reason):
    suite, _ = run_method(Refute, zm04, _model(tmp_path, [(r"print_fail_case", answer)]), sandbox,
                          runner="counterexample")
    assert suite.tests == [] and reason in {r for _, r in _failures(suite)}, _failures(suite)


def test_refute_prints_its_counterexample_in_cpp_too(sandbox, zm04, tmp_path):
    cpp = refute_answer("x", lang="C++ 20").replace("import sys\nsys.stdout.write('x')\n",
                                                    '#include <cstdio>\nint main() { printf("1 1\\n5\\n"); }\n')
    suite, _ = run_method(Refute, zm04, _model(tmp_path, [(r"print_fail_case", cpp)]), sandbox,
                          runner="counterexample")
    assert [t.input for t in suite.tests] == [LONGEST]


# --------------------------------------------------------------------------- CodeHacker


def codehacker_rules():
    """ccplus's validator and generator answers (the agent's own templates for them), the
    probes, and two hack rounds: more random tests, then the far deadline."""
    return breaker_rules() + [r for r in ccplus_rules() if r[0] != CCO_FEEDBACK]


def test_codehacker_calibrates_then_hacks_and_marks_its_base(sandbox, tmp_path):
    zm01 = zoo("zm01", sandbox=sandbox)
    suite, task = run_method(Codehacker, zm01, _model(tmp_path, codehacker_rules()), sandbox, runner="agreement")
    assert task.wrong_pairs and all(p.fixed is None for p in task.wrong_pairs)  # the submissions alone
    steps = [(r.step, r.action) for r in suite.rounds]
    assert steps[:3] == [("validator", "write"), ("validator", "write"), ("validator", "revise")]
    assert suite.rounds[0].observed["probes"]["invalid"] == 4  # the adversarial probes
    assert suite.rounds[2].outcome.startswith("clean")
    assert [s for s, _ in steps].count("feedback") == 2 and suite.rounds[-1].outcome.startswith("clean")
    base = [t for t in suite.tests if t.meta[BASE_TEST]]
    hacks = [t for t in suite.tests if not t.meta[BASE_TEST]]
    assert base and hacks and suite.tests == base + hacks  # the base first
    assert FAR in {t.input for t in hacks} and "n=2 mode=far" in {t.meta["command"] for t in hacks}
    record = score_suite(AgreementRunner(sandbox, method_correct=2), zm01,
                         AgreementRunner(sandbox, method_correct=2).tasks(zm01, Codehacker, samples=1, seed=0)[0],
                         suite)
    assert record.detail["judged"] == "all" and record.detail["base_tests"] == len(base)
    assert record.metrics["tnr"] > record.metrics["tnr_base"]  # the hacks reject more wrong submissions
    assert record.metrics["tpr"] == record.metrics["tpr_base"] == 100.0
    tables = AgreementRunner().summarize([record])
    [gain] = [t for t in tables if t.title.startswith("What the added tests change")]
    row = gain.rows[0]
    assert row["TNR gain"] == pytest.approx(row["TNR"] - row["TNR base"]) and row["TNR gain"] > 0


# --------------------------------------------------------------------------- through the CLI


def test_all_four_run_through_the_cli_and_end_in_their_tables(tmp_path):
    model = _model(tmp_path, codehacker_rules())
    params = {"runner:counterexample": {"wrong": ["sweep_no_clamp", "int_total"]},
              "runner:agreement": {"method_correct": 2}}
    done = subprocess.run([sys.executable, "-m", "tczoo.cli", "run", "--method",
                           "tcgbench,tcgbench-valid,refute,codehacker", "--model", model, "--problems", "zm01",
                           "--out", str(tmp_path / "run"), "--params", json.dumps(params), "-f", "json"],
                          capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, done.stderr[-3000:]
    tables = json.loads(done.stdout)
    [main] = [t for t in tables if t["title"].startswith("Counterexamples")]
    rows = {r["method"]: r for r in main["rows"]}
    # FAR breaks sweep_no_clamp, not int_total: one of two targets, every response valid
    assert (rows["tcgbench"]["Success@1"], rows["tcgbench"]["Valid@1"]) == (50.0, 100.0)
    assert (rows["refute"]["Success@1"], rows["refute"]["Valid@1"]) == (50.0, 100.0)
    assert rows["tcgbench-valid"]["Valid@1"] == 100.0 and rows["tcgbench-valid"]["targets"] == 2
    [gain] = [t for t in tables if t["title"].startswith("What the added tests change")]
    assert gain["rows"][0]["method"] == "codehacker" and gain["rows"][0]["TNR gain"] > 0
    report = subprocess.run([sys.executable, "-m", "tczoo.cli", "report", str(tmp_path / "run"), "-f", "md"],
                            capture_output=True, text=True, timeout=300)
    assert report.returncode == 0 and "Success@1" in report.stdout and "TNR gain" in report.stdout


def test_on_a_kattis_packages_wrong_submissions(tmp_path):
    """A Kattis package's wrong_answer/, time_limit_exceeded/ and run_time_error/
    submissions are the targets; its checktestdata validator judges validity."""
    from kattis_fixtures import make_package

    make_package(tmp_path / "contest")
    model = _model(tmp_path, [(r"erroneous solution", construct("7 1\n")),
                              (r"print_fail_case", refute_answer("-7 1\n"))])  # -7: below the validator's 0
    params = {"runner:counterexample": {"time_ms": 2000}}
    done = subprocess.run([sys.executable, "-m", "tczoo.cli", "run", "--method", "tcgbench,refute", "--model", model,
                           "--benchmark", f"kattis:{tmp_path / 'contest'}", "--out", str(tmp_path / "run"),
                           "--params", json.dumps(params), "-f", "json"],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    tables = json.loads(done.stdout)
    [main] = [t for t in tables if t["title"].startswith("Counterexamples")]
    rows = {r["method"]: r for r in main["rows"]}
    assert rows["tcgbench"]["targets"] == 3 and rows["tcgbench"]["Success@1"] == 100.0
    assert (rows["refute"]["Valid@1"], rows["refute"]["Success@1"], rows["refute"]["invalid"]) == (0.0, 0.0, 100.0)
    [why] = [t for t in tables if t["title"].startswith("Why responses")]
    reasons = {r["method"]: r for r in why["rows"]}["tcgbench"]
    assert {k for k, v in reasons.items() if isinstance(v, float) and v > 0 and k.startswith("target_")} == {
        "target_WA", "target_TLE", "target_RE"}

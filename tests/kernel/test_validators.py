"""A problem's own validators in the sandbox (Kattis protocol) and the Kattis comparator."""

from __future__ import annotations

import pytest

from tczoo.sandbox import Job, Limits, Verdict, compare_outputs, input_valid, inputs_valid
from tczoo.sandbox.compare import ValidatorRequired, kattis_comparator, parse_comparator
from tczoo.schema import Language, Problem, Program, Setting, Task, Validator

FAST = Limits(time_ms=2000)


def py(code: str, name: str = "") -> Program:
    return Program(code=code, language=Language.PYTHON, name=name)


# An output validator for "print the input's words in any order": reads the answer file
# by its path, the team output from stdin; flags after the feedback directory.
ANY_ORDER = py('''
import os, sys
inp, ans, feedback = sys.argv[1:4]
assert feedback.endswith("/") and os.path.isdir(feedback), feedback
want = open(ans).read().split()
got = sys.stdin.read().split()
if "upper" in sys.argv[4:]:
    got = [g.lower() for g in got]
if sorted(got) == sorted(want):
    sys.exit(42)
print("expected", want, "got", got, file=sys.stderr)
sys.exit(43)
''', "any_order.py")


# --------------------------------------------------------------------------- comparator


@pytest.mark.parametrize("actual, expected, spec, ok", [
    ("IMPOSSIBLE\n", "impossible\n", "kattis", True),  # the default validator ignores case
    ("IMPOSSIBLE\n", "impossible\n", "kattis:case_sensitive", False),
    ("ß", "ß", "kattis", True),
    ("Straße", "STRAßE", "kattis", True),  # ASCII letters fold, others must be equal
    ("straße", "strasse", "kattis", False),
    ("1  2\n3", "1 2 3\n", "kattis", True),
    ("1  2\n3\n", "1 2\n3\n", "kattis:space_change_sensitive", False),
    ("1 2\n3", "1 2\n3\n", "kattis:space_change_sensitive", False),  # trailing newline counts
    ("1 2\n3\n", "1 2\n3\n", "kattis:space_change_sensitive", True),
    ("0.3333334", "0.333333", "kattis:float_tolerance 1e-6", True),
    ("0.3334", "0.333333", "kattis:float_tolerance 1e-6", False),
    ("3.14000000e-2", "0.0314", "kattis:float_tolerance 1e-9", True),  # any float formatting
    ("0x1p-1", "0.5", "kattis:float_tolerance 1e-9", True),  # C's strtod reads hex floats
    ("1000100", "1000000", "kattis:float_relative_tolerance 1e-4", True),
    ("1000100", "1000000", "kattis:float_absolute_tolerance 1e-4", False),
    ("0.5000001", "0.5", "kattis:float_absolute_tolerance=1e-6,case_sensitive", True),
    ("abc", "0.5", "kattis:float_tolerance 1e-6", False),  # a float is expected: words fail
    ("inf", "inf", "kattis:float_tolerance 1e-6", True),  # inf is no float there: a string
    ("1_0", "10", "kattis:float_tolerance 1e-6", False),  # Python's float() would say 10
    ("0.5", "0.5000001", "kattis", False),  # no tolerance given: tokens compare as text
])
def test_kattis_default_validator_semantics(actual, expected, spec, ok):
    assert compare_outputs(actual, expected, spec) is ok


def test_comparator_specs_parse_and_the_old_ones_still_work():
    assert kattis_comparator("float_tolerance 1e-6") == "kattis:float_tolerance 1e-6"
    assert kattis_comparator("") == "kattis"
    c = parse_comparator("kattis:float_tolerance 1e-6 case_sensitive")
    assert (c.abs_tol, c.rel_tol, c.case_sensitive) == (1e-6, 1e-6, True)
    for bad in ("kattis:float_tolerance", "kattis:fuzzy", "kattis:float_tolerance -1", "kattis:float_tolerance x"):
        with pytest.raises(ValueError):
            parse_comparator(bad)
    assert compare_outputs("0.3333334", "0.333333", "float:1e-6")
    assert not compare_outputs("A", "a", None)  # tokens stays case-sensitive
    with pytest.raises(ValidatorRequired):
        compare_outputs("1", "1", "program")


# --------------------------------------------------------------------------- schema


def test_an_output_validator_is_the_problems_checker_and_travels_with_the_task():
    v = Validator(program=ANY_ORDER)
    p = Problem(id="p", statement="s", output_validator=v)
    assert p.checker == "program"
    task = Task.from_problem(p, Setting.SPEC)
    assert task.output_validator == v and task.checker == "program"
    assert Problem.model_validate_json(p.model_dump_json()) == p
    with pytest.raises(ValueError):
        Problem(id="p", statement="s", checker="program")
    with pytest.raises(ValueError):
        Problem(id="p", statement="s", checker="exact", output_validator=v)


# --------------------------------------------------------------------------- sandbox


def test_judge_with_an_output_validator(sandbox):
    v = Validator(program=ANY_ORDER)
    ok = sandbox.judge(py("print('b a')"), "a b\n", "a b\n", FAST, output_validator=v)
    assert ok.verdict is Verdict.AC
    wrong = sandbox.judge(py("print('b c')"), "a b\n", "a b\n", FAST, output_validator=v)
    assert wrong.verdict is Verdict.WA and "expected" in wrong.message
    flagged = Validator(program=ANY_ORDER, args=["upper"])
    assert sandbox.judge(py("print('B A')"), "", "a b", FAST, output_validator=flagged).verdict is Verdict.AC
    # the program's own failure stays the program's: the validator is not asked
    crash = sandbox.judge(py("raise SystemExit(3)"), "", "a b", FAST, output_validator=v)
    assert crash.verdict is Verdict.RE


@pytest.mark.parametrize("code, why", [
    ("raise SystemExit(0)", "exited 0"),
    ("raise SystemExit(1)", "exit code 1"),
    ("raise ValueError('boom')", "boom"),
    ("while True: pass", "failed ("),  # CPU limit, or the wall guard on a loaded machine
    ("def broken(:", "exit code 1"),
])
def test_a_failing_validator_is_a_judge_error_not_a_wrong_answer(sandbox, code, why):
    v = Validator(program=py(code, "bad.py"), time_limit_ms=500)
    r = sandbox.judge(py("print(1)"), "", "1", FAST, output_validator=v)
    assert r.verdict is Verdict.SE and why in r.message, r.message


def test_a_validator_that_does_not_compile_is_a_judge_error(sandbox):
    v = Validator(program=Program(code="int main( {", language=Language.CPP, name="v.cpp"))
    r = sandbox.judge(py("print(1)"), "", "1", FAST, output_validator=v)
    assert r.verdict is Verdict.SE and "does not compile" in r.message


def test_batches_judge_with_the_validator_and_validate_output_is_public(sandbox):
    v = Validator(program=ANY_ORDER)
    jobs = [Job(program=py(f"print({out!r})"), stdin="", expected="x y", output_validator=v, limits=FAST)
            for out in ("y x", "x x", "x y")]
    assert [r.verdict for r in sandbox.run_many(jobs)] == [Verdict.AC, Verdict.WA, Verdict.AC]
    assert sandbox.validate_output(v, "", "x y", "y x\n").verdict is Verdict.AC
    assert sandbox.validate_output(v, "", "x y", "y\n").verdict is Verdict.WA


def test_hostile_team_output_reaches_the_validator_intact(sandbox):
    v = Validator(program=py("import sys; data = sys.stdin.buffer.read(); sys.exit(42 if len(data) > 10**6 else 43)"))
    huge = "\x00\udc80" * 600_000  # NULs and a lone surrogate, over a megabyte
    r = sandbox.validate_output(v, "", "", huge)
    assert r.verdict is Verdict.AC


# --------------------------------------------------------------------------- input validators


DIGITS = Validator(program=py(
    "import sys\ns = sys.stdin.read()\n"
    "if s.endswith('\\n') and s[:-1].isdigit(): sys.exit(42)\n"
    "print('not a number line', file=sys.stderr); sys.exit(43)", "digits.py"))
SHORT = Validator(program=py("import sys; sys.exit(42 if len(sys.stdin.read()) <= 4 else 43)", "short.py"))


def test_input_valid_asks_every_input_validator(sandbox):
    p = Problem(id="p", statement="s", input_validators=[DIGITS, SHORT])
    assert input_valid(p, "12\n", sandbox) == (True, "accepted by 2 input validator(s)")
    ok, why = input_valid(p, "ab\n", sandbox)
    assert not ok and "digits.py" in why and "not a number line" in why
    ok, why = input_valid(p, "123456\n", sandbox)
    assert not ok and "short.py" in why
    assert [ok for ok, _ in inputs_valid(p, ["1\n", "x\n", "22\n"], sandbox)] == [True, False, True]


def test_input_valid_without_validators_says_it_did_not_check(sandbox):
    ok, why = input_valid(Problem(id="p", statement="s"), "anything", sandbox)
    assert ok and why.startswith("not checked")


def test_a_crashing_input_validator_does_not_confirm_the_input(sandbox):
    p = Problem(id="p", statement="s", input_validators=[Validator(program=py("1/0", "crash.py"))])
    ok, why = input_valid(p, "1\n", sandbox)
    assert not ok and "could not confirm" in why and "ZeroDivisionError" in why


def test_workers_outlive_the_thread_that_started_them(sandbox):
    """bwrap's --die-with-parent follows the spawning *thread*: a worker started from a
    short-lived thread must not die with it (the next run on that slot was SE)."""
    import threading

    quick, slow = py("print(1)"), py("import time; time.sleep(0.2); print(1)")
    for _ in range(3):
        for slot in sandbox._pool.slots:  # make the next runs start fresh workers
            slot.stop()
        threads = [threading.Thread(target=sandbox.run, args=(quick,)) for _ in sandbox._pool.slots]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(r.verdict is Verdict.AC for r in sandbox.run_many([Job(program=slow)] * len(threads)))

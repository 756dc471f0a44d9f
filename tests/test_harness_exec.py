"""The harness execution layer: parsing, seeded generators, checkers and functional calls
in the sandbox (methods/harness_exec.py)."""

from __future__ import annotations

import pytest

from methods.harness_exec import (
    check_with_expected,
    check_with_harness,
    execute,
    parse_harness,
    run_generators,
    same_output,
    signature_of,
)
from tczoo.parsing import ParseError
from tczoo.schema import Language, Program

GOOD = '''
def generate_input_2():
    return [str(random.randint(1, 10**9)) + "\\n" for _ in range(6)]

def generate_input_1() -> List[str]:
    return ["1\\n", "2\\n"]

def check_output(generated_input, captured_output):
    assert captured_output.strip() == generated_input.strip()
'''


def fenced(code: str) -> str:
    return f"Some reasoning first.\n\n```python\n{code.strip()}\n```\n"


# --------------------------------------------------------------------------- parsing


def test_parse_orders_generators_by_number_and_keeps_at_most_five():
    extra = "".join(f"\ndef generate_input_{i}():\n    return ['x']\n" for i in range(3, 9))
    h = parse_harness(fenced(GOOD + extra))
    assert h.generators == [f"generate_input_{i}" for i in range(1, 6)]
    assert h.program.language is Language.PYTHON


@pytest.mark.parametrize("text, reason", [
    ("I would test big inputs.", "no_code_block"),
    (fenced("def generate_input_1(:\n    return []\ndef check_output(a, b):\n    assert a"), "syntax_error"),
    (fenced("def check_output(a, b):\n    assert a == b"), "no_generators"),
    (fenced("def generate_input_1():\n    return ['1']"), "no_check_output"),
    (fenced("def generate_input_1():\n    return ['1']\ndef check_output(a, b):\n    print(a, b)"),
     "checker_without_assert"),
])
def test_broken_answers_name_their_reason(text, reason):
    with pytest.raises(ParseError) as info:
        parse_harness(text)
    assert info.value.reason == reason


def test_signature_reads_functions_and_solution_methods():
    sig = signature_of("def f(a, b=2, *, c, d=1):\n    pass\n", "f")
    assert sig.params == ["a", "b", "c", "d"] and sig.required == ["a", "c"]
    assert sig.fit({"a": 1, "c": 2, "zzz": 3}) == {"a": 1, "c": 2}
    with pytest.raises(ValueError):
        sig.fit({"c": 2})
    method = signature_of("class Solution:\n    def g(self, nums):\n        pass\n", "g")
    assert method.params == ["nums"]
    assert signature_of("x = 1\n", "f") is None


def test_functional_outputs_compare_as_values():
    assert same_output("(1, 2)", "[1, 2]", functional=True)
    assert same_output("0.30000000000000004", "0.3", functional=True)
    assert not same_output("True", "1", functional=True)
    assert not same_output("[1, 2]", "[2, 1]", functional=True)
    assert same_output("3\n", "3", functional=False)
    assert [c.kind for c in check_with_expected([("5", "5\n"), ("4", "5")], functional=False)] == ["pass", "mismatch"]


# --------------------------------------------------------------------------- generators


def test_generators_are_seeded_reproducible_and_differ_across_seeds(sandbox):
    h = parse_harness(fenced(GOOD))
    a = run_generators(sandbox, h.code, h.generators, seed=7, functional=False)
    b = run_generators(sandbox, h.code, h.generators, seed=7, functional=False)
    c = run_generators(sandbox, h.code, h.generators, seed=8, functional=False)
    assert [i.text for i in a.inputs] == [i.text for i in b.inputs]
    assert [i.origin for i in a.inputs] == ["generate_input_1"] * 2 + ["generate_input_2"] * 4  # 4 per generator
    assert a.trimmed == 2 and not a.failures
    assert [i.text for i in a.inputs[2:]] != [i.text for i in c.inputs[2:]]


def test_a_bad_generator_costs_only_itself(sandbox):
    code = '''
def generate_input_1():
    return ["ok\\n"]
def generate_input_2():
    return [1, 2]
def generate_input_3():
    raise ValueError("boom")
def generate_input_4():
    return []
def generate_input_5():
    return {1, 2}
def check_output(a, b):
    assert a
'''
    run = run_generators(sandbox, code, [f"generate_input_{i}" for i in range(1, 6)], seed=0, functional=False)
    assert [i.text for i in run.inputs] == ["ok\n"]
    assert {f.name: f.reason for f in run.failures} == {
        "generate_input_2": "non_string_input", "generate_input_3": "crash",
        "generate_input_4": "empty_list", "generate_input_5": "bad_return"}


def test_a_process_killing_generator_falls_back_to_one_process_each(sandbox):
    code = '''
import os
def generate_input_1():
    return ["fine\\n"]
def generate_input_2():
    os._exit(3)
def check_output(a, b):
    assert a
'''
    run = run_generators(sandbox, code, ["generate_input_1", "generate_input_2"], seed=0, functional=False)
    assert [i.text for i in run.inputs] == ["fine\n"]
    assert [(f.name, f.reason) for f in run.failures] == [("generate_input_2", "crash")]


def test_a_hanging_generator_times_out(sandbox):
    code = "def generate_input_1():\n    while True:\n        pass\ndef check_output(a, b):\n    assert a\n"
    run = run_generators(sandbox, code, ["generate_input_1"], seed=0, functional=False, time_ms=300)
    assert [f.reason for f in run.failures] == ["timeout"]


def test_functional_generators_give_json_arguments_fitted_to_the_signature(sandbox):
    code = '''
def generate_input_1():
    return [{"nums": [3, 1], "extra": 1}, {"nums": (2,)}]
def generate_input_2():
    return [{"wrong_name": 1}]
def check_output(a, b):
    assert a
'''
    sig = signature_of("def f(nums):\n    return 0\n", "f")
    run = run_generators(sandbox, code, ["generate_input_1", "generate_input_2"], seed=0, functional=True,
                         signature=sig)
    assert [i.text for i in run.inputs] == ['{"nums": [3, 1]}', '{"nums": [2]}']
    assert [(f.name, f.reason) for f in run.failures] == [("generate_input_2", "bad_arguments")]


# --------------------------------------------------------------------------- checkers


def test_checker_assertion_crash_and_timeout_are_told_apart(sandbox):
    code = '''
def generate_input_1():
    return ["x"]
def check_output(generated_input, captured_output):
    if generated_input == "crash":
        return {}["missing"]
    if generated_input == "hang":
        while True:
            pass
    assert captured_output == "good", "bad output"
'''
    pairs = [("a", "good"), ("a", "bad"), ("crash", "good"), ("hang", "good"), ("a", "good")]
    checks = check_with_harness(sandbox, code, pairs, functional=False, time_ms=300)
    assert [c.kind for c in checks] == ["pass", "assertion", "crash", "timeout", "pass"]
    assert "bad output" in checks[1].detail and "KeyError" in checks[2].detail


def test_a_checker_killing_its_process_is_retried_pair_by_pair(sandbox):
    code = '''
import os
def generate_input_1():
    return ["x"]
def check_output(generated_input, captured_output):
    if generated_input == "die":
        os._exit(1)
    assert captured_output == "1"
'''
    checks = check_with_harness(sandbox, code, [("a", "1"), ("die", "1"), ("b", "2")], functional=False)
    assert [c.kind for c in checks] == ["pass", "crash", "assertion"]


def test_functional_checker_sees_decoded_arguments_and_value(sandbox):
    code = '''
def generate_input_1():
    return [{"x": 1}]
def check_output(generated_input, captured_output):
    assert isinstance(generated_input, dict) and isinstance(captured_output, tuple)
    assert captured_output == (generated_input["x"], float("inf"))
'''
    checks = check_with_harness(sandbox, code, [('{"x": 1}', "(1, inf)"), ('{"x": 2}', "(1, inf)")],
                                functional=True)
    assert [c.kind for c in checks] == ["pass", "assertion"]


# --------------------------------------------------------------------------- programs under test


def test_functional_targets_run_one_call_per_input(sandbox):
    leaky = Program(code="class Solution:\n    seen = []\n    def f(self, x, acc=seen):\n"
                         "        acc.append(x)\n        return len(acc)\n", language=Language.PYTHON)
    runs = execute(sandbox, leaky, ['{"x": 1}', "[2]", '{"y": 1}'], entry_point="f", time_ms=2000, memory_mb=256)
    # state never leaks from one input to the next: each call sees a fresh module
    assert [(r.verdict, r.output) for r in runs[:2]] == [("AC", "1"), ("AC", "1")]
    assert runs[2].verdict == "RE" and "TypeError" in runs[2].detail


def test_stdin_targets_of_any_language(sandbox):
    cpp = Program(code="#include <cstdio>\nint main(){int a;scanf(\"%d\",&a);printf(\"%d\\n\",a*2);}\n",
                  language=Language.CPP)
    py = Program(code="print(int(input()) * 2)\n", language=Language.PYTHON)
    assert [r.output for r in execute(sandbox, cpp, ["2\n", "5\n"], entry_point=None, time_ms=2000,
                                      memory_mb=256)] == ["4\n", "10\n"]
    assert [r.verdict for r in execute(sandbox, py, ["3\n", "x\n"], entry_point=None, time_ms=2000,
                                       memory_mb=256)] == ["AC", "RE"]

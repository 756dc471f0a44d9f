"""The kernel's execution interface (tczoo.execution): seeded generators, checkers, the
oracle check, functional calls and programs in the sandbox; HarnessLLM's harness parsing."""

from __future__ import annotations

import pytest

from tczoo.execution import (
    Generator,
    Limits,
    Verdict,
    check_outputs,
    check_with_checker,
    record,
    rerun,
    run_generators,
    run_program,
    same_output,
    signature_of,
)
from tczoo.methods.harnessllm.harness import parse_harness
from tczoo.parsing import ParseError
from tczoo.schema import Language, Oracle, OracleKind, Program, Provenance, TestSuite, input_key

LIMITS = Limits(time_ms=2000, memory_mb=256)


def harness_gens(code: str, names: list[str]) -> list[Generator]:
    return [Generator(name=n, code=code, function=n, returns="list") for n in names]


def harness_run(sandbox, code, names, *, seed=0, functional=False, signature=None, time_ms=5000):
    gens = harness_gens(code, names)
    run_generators(sandbox, gens, seed=seed, per_generator=4, per_call=4, rounds=1, functional=functional,
                   signature=signature, strings_only=True, time_ms=time_ms)
    return gens


def inputs(gens):
    return [t.input for g in gens for t in g.tests]


def failures(gens):
    return [(f.item, f.reason) for g in gens for f in g.failures]

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
    expected = Oracle(kind=OracleKind.EXPECTED_OUTPUT)
    checks = check_outputs(None, expected, [("1", "5\n", "5"), ("2", "5", "4"), ("3", None, "5")], limits=LIMITS)
    assert [c.kind for c in checks] == ["pass", "mismatch", "no_expected_output"]


# --------------------------------------------------------------------------- generators


def test_generators_are_seeded_reproducible_and_differ_across_seeds(sandbox):
    h = parse_harness(fenced(GOOD))
    a = harness_run(sandbox, h.code, h.generators, seed=7)
    b = harness_run(sandbox, h.code, h.generators, seed=7)
    c = harness_run(sandbox, h.code, h.generators, seed=8)
    assert inputs(a) == inputs(b)
    assert [t.origin for g in a for t in g.tests] == ["generate_input_1"] * 2 + ["generate_input_2"] * 4
    assert sum(g.trimmed for g in a) == 2 and not failures(a)  # 4 kept per generator
    assert inputs(a)[2:] != inputs(c)[2:]


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
    gens = harness_run(sandbox, code, [f"generate_input_{i}" for i in range(1, 6)])
    assert inputs(gens) == ["ok\n"]
    assert dict(failures(gens)) == {
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
    gens = harness_run(sandbox, code, ["generate_input_1", "generate_input_2"])
    assert inputs(gens) == ["fine\n"]
    assert failures(gens) == [("generate_input_2", "crash")]


def test_a_hanging_generator_times_out(sandbox):
    code = "def generate_input_1():\n    while True:\n        pass\ndef check_output(a, b):\n    assert a\n"
    gens = harness_run(sandbox, code, ["generate_input_1"], time_ms=300)
    assert failures(gens) == [("generate_input_1", "timeout")]


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
    gens = harness_run(sandbox, code, ["generate_input_1", "generate_input_2"], functional=True, signature=sig)
    assert inputs(gens) == ['{"nums": [3, 1]}', '{"nums": [2]}']
    assert failures(gens) == [("generate_input_2", "bad_arguments")]


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
    checks = check_with_checker(sandbox, code, pairs, functional=False, time_ms=300)
    assert [c.kind for c in checks] == ["pass", "assertion", "crash", "timeout", "pass"]
    assert "bad output" in checks[1].detail and "KeyError" in checks[2].detail


def test_a_checker_killing_its_process_costs_only_its_own_case(sandbox):
    code = '''
import os
def generate_input_1():
    return ["x"]
def check_output(generated_input, captured_output):
    if generated_input == "die":
        os._exit(1)
    assert captured_output == "1"
'''
    checks = check_with_checker(sandbox, code, [("a", "1"), ("die", "1"), ("b", "2")], functional=False)
    assert [c.kind for c in checks] == ["pass", "crash", "assertion"]


def test_functional_checker_sees_decoded_arguments_and_value(sandbox):
    code = '''
def generate_input_1():
    return [{"x": 1}]
def check_output(generated_input, captured_output):
    assert isinstance(generated_input, dict) and isinstance(captured_output, tuple)
    assert captured_output == (generated_input["x"], float("inf"))
'''
    checks = check_with_checker(sandbox, code, [('{"x": 1}', "(1, inf)"), ('{"x": 2}', "(1, inf)")],
                                functional=True)
    assert [c.kind for c in checks] == ["pass", "assertion"]


# --------------------------------------------------------------------------- programs under test


def test_functional_targets_run_one_call_per_input(sandbox):
    leaky = Program(code="class Solution:\n    seen = []\n    def f(self, x, acc=seen):\n"
                         "        acc.append(x)\n        return len(acc)\n", language=Language.PYTHON)
    runs = run_program(sandbox, leaky, ['{"x": 1}', "[2]", '{"y": 1}'], entry_point="f", limits=LIMITS)
    # state never leaks from one input to the next: each call sees a fresh module
    assert [(r.verdict, r.output) for r in runs[:2]] == [(Verdict.AC, "1"), (Verdict.AC, "1")]
    assert runs[2].verdict is Verdict.RE and "TypeError" in runs[2].detail


def test_stdin_targets_of_any_language(sandbox):
    cpp = Program(code="#include <cstdio>\nint main(){int a;scanf(\"%d\",&a);printf(\"%d\\n\",a*2);}\n",
                  language=Language.CPP)
    py = Program(code="print(int(input()) * 2)\n", language=Language.PYTHON)
    assert [r.output for r in run_program(sandbox, cpp, ["2\n", "5\n"], limits=LIMITS)] == ["4\n", "10\n"]
    assert [r.verdict for r in run_program(sandbox, py, ["3\n", "x\n"], limits=LIMITS)] == [Verdict.AC, Verdict.RE]


# --------------------------------------------------------------------------- one-input generators


RANDOM_GEN = """
import random
CALLS = []
def generate():
    CALLS.append(1)
    return f"{random.randint(1, 10**9)} {len(CALLS)}\\n"
"""


def test_one_input_generators_share_a_process_but_each_call_is_seeded(sandbox):
    gens = [Generator(name="g", code=RANDOM_GEN, function="generate")]
    run_generators(sandbox, gens, seed=3, per_generator=5, rounds=1)
    texts = inputs(gens)
    assert len(texts) == 5 and gens[0].calls == 5
    # one process: module state persists across the calls of a round (documented), and
    # each call's random stream comes from its own seed, so a second run repeats it
    assert [t.split()[1] for t in texts] == ["1", "2", "3", "4", "5"]
    again = [Generator(name="g", code=RANDOM_GEN, function="generate")]
    run_generators(sandbox, again, seed=3, per_generator=5, rounds=1)
    assert inputs(again) == texts


def test_a_deterministic_generator_is_retired_as_exhausted_and_others_go_on(sandbox):
    same = Generator(name="same", code="def generate():\n    return '7\\n'\n", function="generate")
    rand = Generator(name="rand", code=RANDOM_GEN, function="generate")
    run_generators(sandbox, [same, rand], seed=0, per_generator=3, rounds=3)
    assert inputs([same]) == ["7\n"] and same.retired == "exhausted"
    assert len(rand.tests) == 3 and not rand.retired


def test_an_oversized_input_retires_its_generator(sandbox):
    big = Generator(name="big", code="def generate():\n    return 'x' * 3000\n", function="generate")
    run_generators(sandbox, [big], seed=0, per_generator=2, max_input_kb=1)
    assert not big.tests and big.retired == "input_too_large"


def test_recorded_generators_can_be_called_again_continuing_their_seeds(sandbox):
    h = parse_harness(fenced(GOOD))
    gens = harness_run(sandbox, h.code, h.generators, seed=5)
    suite = TestSuite(problem_id="p", provenance=Provenance(method="m"))
    record(suite, gens, seed=5, per_call=4)
    artifact = suite.artifacts[1]
    assert artifact.generator.calls == {"generate_input_2": 1}
    seen = set(inputs(gens))
    more = rerun(sandbox, artifact.program, artifact.generator, extra_rounds=2, seen=seen)
    assert [len(r) for r in more] == [4, 4] and not set(t.input for r in more for t in r) & set(inputs(gens))
    again = rerun(sandbox, artifact.program, artifact.generator, extra_rounds=2, seen=set(inputs(gens)))
    assert [[t.input for t in r] for r in again] == [[t.input for t in r] for r in more]


def test_rerun_repeats_the_methods_calls_per_round_and_can_leave_deduplication_to_the_caller(sandbox):
    """A one-input generator the method called 3 times: each extra round calls it 3 more
    times, call indices 3..5 then 6..8, exactly the seeds a longer method run would use.
    Without dedupe, a list generator's repeats (a constant list) come back every round."""
    rand = Generator(name="random-0", code=RANDOM_GEN, function="generate")
    run_generators(sandbox, [rand], seed=7, per_generator=3, rounds=1)
    suite = TestSuite(problem_id="p", provenance=Provenance(method="m"))
    record(suite, [rand], seed=7)
    spec = suite.artifacts[0].generator
    assert spec.calls == {"generate": 3} and spec.names == {"generate": "random-0"}
    more = rerun(sandbox, suite.artifacts[0].program, spec, extra_rounds=2)
    assert [len(r) for r in more] == [3, 3] and all(t.origin == "random-0" for r in more for t in r)
    assert [t.meta["round"] for r in more for t in r] == [1, 1, 1, 2, 2, 2]
    longer = Generator(name="random-0", code=RANDOM_GEN, function="generate")
    run_generators(sandbox, [longer], seed=7, per_generator=9, rounds=1)
    # the driver's CALLS counter restarts per process, so compare the seeded part only
    assert [t.input.split()[0] for t in longer.tests] == [t.input.split()[0] for t in rand.tests + more[0] + more[1]]

    h = parse_harness(fenced(GOOD))
    gens = harness_run(sandbox, h.code, h.generators, seed=5)
    suite = TestSuite(problem_id="p", provenance=Provenance(method="m"))
    record(suite, gens, seed=5, per_call=4)
    fixed = suite.artifacts[0]  # generate_input_1: always ["1\n", "2\n"]
    deduped = rerun(sandbox, fixed.program, fixed.generator, extra_rounds=2,
                    seen={input_key(t) for t in inputs(gens)})
    assert [[t.input for t in r] for r in deduped] == [[], []]
    raw = rerun(sandbox, fixed.program, fixed.generator, extra_rounds=2, dedupe=False)
    assert [[t.input for t in r] for r in raw] == [["1\n", "2\n"], ["1\n", "2\n"]]


def test_model_code_starting_with_a_future_import_still_gets_the_prelude(sandbox):
    code = "from __future__ import annotations\ndef generate() -> List[str]:\n    return '1\\n'\n"
    g = Generator(name="g", code=code, function="generate")
    run_generators(sandbox, [g], seed=0, per_generator=1, rounds=1)
    assert inputs([g]) == ["1\n"] and not g.failures


# --------------------------------------------------------------------------- problem output validators


TOLERANT_VALIDATOR = """
import sys
answer = int(open(sys.argv[2]).read())
if open(sys.argv[1]).read().strip() == "crash":
    raise SystemExit(1)          # neither 42 nor 43: the validator failed itself
got = sys.stdin.read().split()
sys.exit(42 if len(got) == 1 and abs(int(got[0]) - answer) <= 1 else 43)
"""


def test_outputs_are_matched_by_the_problems_output_validator(sandbox):
    from tczoo.execution import outputs_match
    from tczoo.schema import Validator

    v = Validator(program=Program(code=TOLERANT_VALIDATOR, language=Language.PYTHON, name="tolerant.py"))
    cases = [("1\n", "5\n", "5\n"), ("2\n", "6\n", "5\n"), ("3\n", "7\n", "5\n"), ("crash", "5\n", "5\n")]
    assert outputs_match(sandbox, cases, comparator="program", validator=v) == [True, True, False, None]
    # the same cases through the oracle check: an expected output judged by the validator
    checks = check_outputs(sandbox, Oracle(kind=OracleKind.EXPECTED_OUTPUT), [(i, e, o) for i, o, e in cases],
                           limits=LIMITS, comparator="program", validator=v)
    assert [c.kind for c in checks] == ["pass", "pass", "mismatch", "validator_failed"]
    with pytest.raises(ValueError):
        outputs_match(None, cases, comparator="program", validator=v)


def test_checker_with_a_third_parameter_gets_the_expected_output(sandbox):
    """A special judge compares with the reference answer: ``check_output(input, output,
    expected)`` receives the test's expected output; a two-parameter checker does not."""
    judge = ("def check_output(generated_input, captured_output, expected_output):\n"
             "    assert sorted(captured_output.split()) == sorted(expected_output.split()), 'not the same set'\n")
    oracle = Oracle(kind=OracleKind.CHECKER_PROGRAM, program=Program(code=judge, language=Language.PYTHON))
    cases = [("2", "1 2", "2 1"), ("2", "1 2", "1 3"), ("1", "7", "7")]
    assert [c.ok for c in check_outputs(sandbox, oracle, cases, limits=LIMITS)] == [True, False, True]
    two = Oracle(kind=OracleKind.CHECKER_PROGRAM, program=Program(
        code="def check_output(generated_input, captured_output):\n    assert captured_output == generated_input\n",
        language=Language.PYTHON))
    assert [c.ok for c in check_outputs(sandbox, two, [("5", None, "5"), ("5", "5", "6")], limits=LIMITS)] == [
        True, False]


def test_validate_inputs_runs_a_model_validator(sandbox):
    from tczoo.execution import validate_inputs

    code = ("def validate_input(s):\n"
            "    if s.startswith('boom'):\n        raise ValueError('boom')\n"
            "    if s.startswith('spin'):\n        while True: pass\n"
            "    if s.startswith('tuple'):\n        return (False, 'why')\n"
            "    return s.strip().isdigit()\n")
    inputs = ["12\n", "x\n", "boom", "spin", "tuple"]
    checks = validate_inputs(sandbox, code, inputs, time_ms=300)
    # a tuple is decided by its first element: (False, 'why') is a no
    assert [(c.ok, c.kind) for c in checks] == [(True, "pass"), (False, "assertion"), (False, "crash"),
                                               (False, "timeout"), (False, "assertion")]
    assert "returned False" in checks[1].detail and "ValueError" in checks[2].detail
    assert "returned (False, 'why')" in checks[4].detail
    from tczoo.execution import filter_inputs

    kept, rejected = filter_inputs(sandbox, code, inputs, time_ms=300)
    assert kept == [0]
    assert [(r.index, r.reason) for r in rejected] == [(1, "invalid_input"), (2, "validator_crash"),
                                                       (3, "validator_timeout"), (4, "invalid_input")]
    assert rejected[0].detail.endswith("returned False; input 'x\\n'")

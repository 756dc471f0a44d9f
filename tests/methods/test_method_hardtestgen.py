"""HardTestGen end to end with a scripted model, the real sandbox and real compilers, on
zoo-mini zm01 (Commission Deadlines): the checks answer (validator, no judge), the
inputs answer (LLMGen, RPGen, HackGen), every input through the validator, outputs
where two correct programs agree; then SPGen with a judge; then the failures the
pipeline must keep as data (a validator that rejects every sample, a generator that
crashes, correct programs that cannot answer, an answer without a validator)."""

from __future__ import annotations

import asyncio
import json

import pytest

from tczoo.execution import check_outputs
from tczoo.llm import LLMClient, LLMSettings, Session
from tczoo.method import Context
from tczoo.methods.hardtestgen import HardTestGen
from tczoo.methods.hardtestgen.kit import parse_checks, parse_inputs
from tczoo.sandbox import Limits
from tczoo.schema import Language, OracleKind, Program, Setting, Task
from tczoo.templates import Prompts
from tcbench_fixtures import ZM01_VALIDATOR, failures, fenced, hackrate, script, zoo_problem

CHECKS = r"Part 1: the input validator"
INPUTS = r"Written inputs \(LLMGen\)"

VALIDATOR = ZM01_VALIDATOR
RPGEN = """import random

def gen_range_based_input():
    n = random.randint(1, 6)
    return "\\n".join([str(n)] + ["%d %d" % (random.randint(1, n), random.randint(1, 20)) for _ in range(n)]) + "\\n"
"""
HACKGEN = """
def gen_hacking_input_overflow():
    return "3\\n1 1000000000\\n2 1000000000\\n3 1000000000\\n"

def gen_hacking_input_zero_deadline():
    return "1\\n0 5\\n"

def gen_hacking_input_crash():
    raise RuntimeError("the model's bug")
"""


def checks_answer(validator: str = VALIDATOR, judge: str | None = None) -> str:
    body = {"input_validator": validator, "needs_output_judge": judge is not None, "output_judge": judge}
    return "# Analysis\nn, d_i, p_i ranges.\n\n# Result\n" + fenced(json.dumps(body, indent=1), "json")


def inputs_answer(llmgen: list, programmed: str | None, hacking: str | None, multi: bool = False) -> str:
    body = {"llmgen_inputs": llmgen, "multi_category": multi, "programmed_generator": programmed,
            "hacking_generator": hacking}
    return "# Analysis\nA greedy by deadline fails ...\n\n# Result\n" + fenced(json.dumps(body, indent=1), "json")


def task_for(problem, correct: list[str] | None = None, **update) -> Task:
    chosen = [p for p in problem.solutions if correct is None or p.name.rsplit("/", 1)[-1] in correct]
    task = Task.from_problem(problem, Setting.SPEC_CORRECT, correct=chosen, budget=10)
    return task.model_copy(update=update) if update else task


def generate(task: Task, model: str, sandbox, **params):
    method = HardTestGen(**params)
    client = LLMClient(model, LLMSettings(cache=False, retries=0))
    ctx = Context(llm=Session(client), sandbox=sandbox, prompts=Prompts(), method="hardtestgen",
                  seed=0, params=method.params.model_dump())
    return ctx.finish(asyncio.run(method.generate(task, ctx)))


def by_origin(suite) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for t in suite.tests:
        out.setdefault(t.origin + ":" + t.meta.get("function", ""), []).append(t.input)
    return out


def test_pipeline_on_zm01(sandbox, tmp_path):
    problem = zoo_problem(sandbox, "zm01")
    model = script(tmp_path / "m.jsonl", [
        (INPUTS, inputs_answer(["1\n1 1\n", [2, [1, 9], [1, 4]], "1\n1 1\n", "1\n1 0\n"], RPGEN, HACKGEN)),
        (CHECKS, checks_answer()),
    ])
    task = task_for(problem, ["fast.cpp", "fast.py", "slow.py"])
    suite = generate(task, model, sandbox, rpgen_inputs=4, rpgen_attempts=8, hackgen_inputs=2, hackgen_attempts=3)
    kinds = by_origin(suite)
    # LLMGen: the duplicate and the zero fee (rejected by the validator) are gone.
    assert kinds["hardtestgen:llmgen:"] == ["1\n1 1\n", "2\n1 9\n1 4\n"]
    assert len(kinds["hardtestgen:rpgen:gen_range_based_input"]) == 4
    # A deterministic hacking function gives one input however often it is called.
    assert kinds["hardtestgen:hackgen:gen_hacking_input_overflow"] == ["3\n1 1000000000\n2 1000000000\n3 1000000000\n"]
    assert "hardtestgen:hackgen:gen_hacking_input_zero_deadline" not in kinds
    # The reference's order: LLMGen, programmed, hacking.
    assert [t.origin for t in suite.tests] == ["hardtestgen:llmgen"] * 2 + ["hardtestgen:rpgen"] * 4 + [
        "hardtestgen:hackgen"]
    # Outputs from the correct programs (fast.cpp and fast.py agree at once).
    overflow = next(t for t in suite.tests if t.origin == "hardtestgen:hackgen")
    assert overflow.output.split() == ["3000000000"]
    assert all(t.output is not None for t in suite.tests)
    assert suite.oracle.kind is OracleKind.EXPECTED_OUTPUT
    got = failures(suite)
    assert ("validator", "invalid_input", "llmgen") in got
    assert ("validator", "invalid_input", "gen_hacking_input_zero_deadline") in got
    assert ("generator", "crash", "gen_hacking_input_crash") in got
    crash = next(f for f in suite.provenance.failures if f.item == "gen_hacking_input_crash")
    assert crash.detail.startswith("3 of 3 calls") and "RuntimeError" in crash.detail
    roles = [(a.role, a.program.name, a.ok) for a in suite.artifacts]
    assert roles[0] == ("validator", "validate_input", True)
    assert ("generator", "gen_hacking_input_crash", False) in roles
    spec = next(a.generator for a in suite.artifacts if a.program.name == "gen_range_based_input")
    assert spec.calls == {"gen_range_based_input": 4}  # 4 valid in the first 4 calls: no second wave
    rejected = next(f for f in suite.provenance.failures if f.item == "llmgen")
    assert rejected.detail == "AssertionError: returned False; input '1\\n1 0\\n'"
    # Every expected output is what the reference solution prints.
    [ref] = [p for p in problem.solutions if p.name.endswith("fast.cpp")]
    from tczoo.execution import run_program

    runs = run_program(sandbox, ref, [t.input for t in suite.tests], limits=Limits.of(problem))
    assert [r.output for r in runs] == [t.output for t in suite.tests]
    # Scored by TC-Bench's HackRate runner: every test valid; the overflow hack catches
    # the 32-bit total.
    score = hackrate(problem, task, suite, sandbox)
    assert (score["pass_rate"], score["hack_rate"], score["n_valid"]) == (100.0, 40.0, 7.0)
    assert score["wrong"]["wrong/int_total.cpp"] == "wa"


STRATIFIED = """
import random

def gen_stratified_input_small():
    return "1\\n1 %d\\n" % random.randint(1, 9)

def gen_stratified_input_pair():
    return "2\\n1 %d\\n2 %d\\n" % (random.randint(1, 9), random.randint(1, 9))
"""
# A judge that accepts any output equal to the reference up to a trailing "coins".
JUDGE = """
def output_judging_function(input_str, candidate_output, reference_output):
    return candidate_output.replace("coins", "").split() == reference_output.split()
"""


def test_spgen_and_the_judge_as_checker_oracle(sandbox, tmp_path):
    problem = zoo_problem(sandbox, "zm01")
    model = script(tmp_path / "m.jsonl", [
        (INPUTS, inputs_answer([], STRATIFIED, None, multi=True)),
        (CHECKS, checks_answer(judge=JUDGE)),
    ])
    suite = generate(task_for(problem, ["fast.cpp"]), model, sandbox, spgen_inputs=3, spgen_attempts=6)
    kinds = by_origin(suite)
    assert set(kinds) == {"hardtestgen:spgen:gen_stratified_input_small", "hardtestgen:spgen:gen_stratified_input_pair"}
    assert all(1 <= len(v) <= 3 for v in kinds.values())
    assert suite.oracle.kind is OracleKind.CHECKER_PROGRAM
    # The judge receives the expected output: a right answer in another form passes,
    # a wrong one fails, the expected output itself passes.
    t = suite.tests[0]
    right = t.output.strip() + " coins\n"
    wrong = str(int(t.output) + 1) + "\n"
    checks = check_outputs(sandbox, suite.oracle, [(t.input, t.output, right), (t.input, t.output, wrong),
                                                   (t.input, t.output, t.output)], limits=Limits())
    assert [c.ok for c in checks] == [True, False, True]
    assert failures(suite) == []


def test_failures_are_data(sandbox, tmp_path):
    problem = zoo_problem(sandbox, "zm01")
    rejects_all = "def validate_input(input_str):\n    return False\n"
    model = script(tmp_path / "m.jsonl", [
        (INPUTS, inputs_answer(["1\n1 1\n"], RPGEN, None)),
        (CHECKS, checks_answer(validator=rejects_all)),
    ])
    suite = generate(task_for(problem, ["fast.cpp"]), model, sandbox, rpgen_inputs=2, rpgen_attempts=3)
    assert suite.tests == []
    assert [r for _, r, _ in failures(suite)] == [
        "validator_rejects_samples", "invalid_input", "invalid_input", "no_valid_input"]
    assert suite.artifacts[0].ok is False and suite.artifacts[0].note == "rejects 2 of 2 samples"

    # No validator in the answer: the problem gets no tests, and no second call is made.
    model = script(tmp_path / "m2.jsonl", [(CHECKS, "I cannot do this.")])
    suite = generate(task_for(problem, ["fast.cpp"]), model, sandbox)
    assert suite.tests == [] and [r for _, r, _ in failures(suite)] == [
        "no_json_object", "missing_definition", "no_input_validator"]
    assert len(suite.provenance.exchanges) == 1

    # Correct programs that cannot answer: one does not compile, one crashes on
    # everything; no tests, and the failure says why.
    broken = [Program(code="int main( {", language=Language.CPP, name="broken.cpp"),
              Program(code="raise SystemExit(3)\n", language=Language.PYTHON, name="dies.py")]
    model = script(tmp_path / "m3.jsonl", [
        (INPUTS, inputs_answer(["1\n1 1\n", "2\n1 2\n2 3\n"], None, None)),
        (CHECKS, checks_answer()),
    ])
    task = task_for(problem, ["fast.cpp"]).model_copy(update={"correct_programs": broken})
    suite = generate(task, model, sandbox)
    assert suite.tests == []
    assert [(s, r) for s, r, _ in failures(suite)] == [
        ("parse", "missing_definition"), ("oracle", "compile_error"), ("oracle", "correct_code_failed"),
        ("oracle", "too_few_outputs"), ("oracle", "too_few_oracles")]

    # Two "correct" programs that disagree on one input: no tests (oracles_disagree).
    liar = Program(code="print(1)\n", language=Language.PYTHON, name="liar.py")
    [fast] = [p for p in problem.solutions if p.name.endswith("fast.cpp")]
    task = task_for(problem, ["fast.cpp"]).model_copy(update={"correct_programs": [fast, liar]})
    suite = generate(task, model, sandbox)
    assert suite.tests == [] and [r for _, r, _ in failures(suite)][-2:] == ["outputs_disagree", "oracles_disagree"]
    # ... unless the tolerance lets one disagreeing test go (it is dropped).
    suite = generate(task, model, sandbox, inconsistent_tolerance=1)
    assert [t.input for t in suite.tests] == ["1\n1 1\n"]  # both print 1 here; fast.cpp prints 5 on the other
    assert failures(suite)[-1] == ("oracle", "no_agreed_output", "")


def test_call_based_problem_is_refused_as_data(sandbox, tmp_path):
    problem = zoo_problem(sandbox, "zm01")
    task = task_for(problem, ["fast.cpp"], entry_point="solve")
    suite = generate(task, script(tmp_path / "m.jsonl", []), sandbox)
    assert suite.tests == [] and failures(suite) == [("setup", "functional_problem", "")]


@pytest.mark.parametrize("text, validator, judge, problems", [
    (checks_answer(), True, None, []),
    (checks_answer(judge=JUDGE), True, True, []),
    # code fenced instead of JSON strings, the judge flag missing
    ("Here.\n" + fenced(VALIDATOR) + "\n" + fenced(JUDGE), True, True, ["no_json_object"]),
    # a judge is said to be needed but none is given
    ("# Result\n" + json.dumps({"input_validator": VALIDATOR, "needs_output_judge": True}), True, None,
     ["missing_definition"]),
])
def test_parse_checks(text, validator, judge, problems):
    got = parse_checks(text)
    assert (got.validator is not None) is validator
    assert (got.judge is not None if judge else got.judge is None)
    assert [r for r, _ in got.problems] == problems


def test_parse_inputs_salvages_each_field():
    text = "# Result\n```json\n" + json.dumps({"LLMGen_input": ["1 2", [3, [1, 2]]], "is_multi_category": True,
                                               "programmed_generator": fenced(STRATIFIED),
                                               "hacking_generator": None}) + "\n```"
    kit = parse_inputs(text)
    assert kit.llmgen == ["1 2\n", "3\n1 2\n"] and kit.multi_category is True and kit.stratified
    assert kit.programmed_functions == ["gen_stratified_input_small", "gen_stratified_input_pair"]
    assert kit.hacking is None and kit.problems == []
    kit = parse_inputs("no json, just\n" + fenced(HACKGEN))
    assert kit.hacking_functions == ["gen_hacking_input_overflow", "gen_hacking_input_zero_deadline",
                                     "gen_hacking_input_crash"]
    assert [r for r, _, _ in kit.problems] == ["no_json_object", "missing_definition"]


# --------------------------------------------------------------------------- what the validator receives (issue 45)

EXACT_TEXT_VALIDATOR = '''
def validate_input(input_str):
    """The whole stdin text, its final newline included, as the prompt says."""
    lines = input_str.splitlines()
    return input_str.endswith("\\n") and len(lines) == int(lines[0]) + 1
'''


def test_the_prompt_says_what_the_validator_receives_and_it_is_so(sandbox, tmp_path):
    """The checks prompt tells the model that ``input_str`` is the whole stdin text, the
    final newline included (as HardTestGen's kit says the input is given whole as stdin);
    and it is so: a validator that demands the final newline and one line per offer
    accepts every sample, exactly as the method passes it."""
    problem = zoo_problem(sandbox, "zm01")
    task = task_for(problem)
    messages = Prompts().render("hardtestgen/checks", task=task, oracle=task.correct_programs[0])
    text = "\n".join(m["content"] for m in messages)
    assert "`input_str` is the whole stdin text of one test" in text
    assert "never an extra, empty line" in " ".join(text.split())
    assert all(s.input.endswith("\n") for s in task.samples)  # what the prompt says of the samples holds
    model = script(tmp_path / "m.jsonl", [(CHECKS, checks_answer(EXACT_TEXT_VALIDATOR)),
                                          (INPUTS, inputs_answer(["1\n1 1\n"], None, None))])
    suite = generate(task, model, sandbox)
    reasons = {f.reason for f in suite.provenance.failures}
    assert "validator_rejects_samples" not in reasons, suite.provenance.failures
    assert [t.input for t in suite.tests] == ["1\n1 1\n"]

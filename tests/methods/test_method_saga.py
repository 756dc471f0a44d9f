"""SAGA end to end with a scripted model, the real sandbox and real compilers, on zoo-mini
zm01: the task shows half the wrong submissions (paired with the closest accepted
program), the multidimensional answer and one differential answer per pair become
validated tests with outputs from the correct code; differential tests say whether they
expose their wrong submission; failures are kept as data."""

from __future__ import annotations

import asyncio

from tczoo.execution import run_program
from tczoo.llm import LLMClient, LLMSettings, Session
from tczoo.method import Context
from tczoo.methods.saga import Saga
from tczoo.methods.saga.answer import parse_answer
from tczoo.sandbox import Limits
from tczoo.schema import Setting, Task, shown_wrong
from tczoo.templates import Prompts
from tcbench_fixtures import ZM01_VALIDATOR, failures, fenced, hackrate, script, zoo_problem

MULTIDIM = r"Analyse the solution along three dimensions"
DIFFERENTIAL = r"Compare the two along three dimensions"

VALIDATOR = ZM01_VALIDATOR
MULTIDIM_CODE = VALIDATOR + '''

def gen_case_1():
    """n = 1: the heap holds one offer (L10)."""
    return "1\\n1 5\\n"


def gen_case_2(n: int = 4):
    """Equal fees: a set instead of a multiset loses offers (L14)."""
    return "%d\\n" % n + "".join("2 5\\n" for _ in range(n))


def gen_case_3():
    """A deadline of 0 is outside the constraints (validator must reject)."""
    return "1\\n0 5\\n"


def gen_case_4():
    """Crashes: the model's own bug."""
    return undefined_name
'''
DIFFERENTIAL_CODE = VALIDATOR + '''
import random


def gen_case_1():
    """Total beyond 2^31: the wrong code's int total (L6 vs L8)."""
    return "3\\n1 1000000000\\n2 1000000000\\n3 1000000000\\n"


def gen_case_2(scale: int = 5):
    """Random small offers with shared deadlines."""
    n = random.randint(2, scale)
    return "%d\\n" % n + "".join("%d %d\\n" % (random.randint(1, 2), random.randint(1, 9)) for _ in range(n))
'''


def answer(code: str) -> str:
    return "# Analysis\nPhase 1: n in [1, 2e5] @ explicit : L3\n\n# Tests\n" + fenced(code)


def generate(task: Task, model: str, sandbox, **params):
    method = Saga(**params)
    client = LLMClient(model, LLMSettings(cache=False, retries=0))
    ctx = Context(llm=Session(client), sandbox=sandbox, prompts=Prompts(), method="saga", seed=0,
                  params=method.params.model_dump())
    return ctx.finish(asyncio.run(method.generate(task, ctx)))


def test_saga_on_zm01(sandbox, tmp_path):
    problem = zoo_problem(sandbox, "zm01")
    model = script(tmp_path / "m.jsonl", [(MULTIDIM, answer(MULTIDIM_CODE)), (DIFFERENTIAL, answer(DIFFERENTIAL_CODE))])
    task = Task.from_problem(problem, Setting.SPEC_CORRECT_WRONG)
    shown = shown_wrong(problem)
    assert len(task.wrong_pairs) == len(shown) == 5
    suite = generate(task, model, sandbox, differential_pairs=2)
    # Three answers were asked: one multidimensional, one per analysed pair.
    assert len(suite.provenance.exchanges) == 3
    multi = [t for t in suite.tests if t.meta["analysis"] == "multidim"]
    assert [(t.input, t.meta["function"]) for t in multi] == [("1\n1 5\n", "gen_case_1"),
                                                             ("4\n2 5\n2 5\n2 5\n2 5\n", "gen_case_2")]
    assert multi[1].meta["target"] == "Equal fees: a set instead of a multiset loses offers (L14)."
    diff = [t for t in suite.tests if t.meta["analysis"] == "differential"]
    # The overflow input is made by both pairs' answers: kept once. The random ones
    # differ by pair (each generator has its own seeds).
    assert [t.meta["answer"] for t in diff] == ["differential-0", "differential-0", "differential-1"]
    assert diff[0].input == "3\n1 1000000000\n2 1000000000\n3 1000000000\n"
    assert all(t.origin == f"saga:{t.meta['analysis']}" for t in suite.tests)
    # Outputs come from the correct code.
    [ref] = [p for p in problem.solutions if p.name.endswith("fast.cpp")]
    runs = run_program(sandbox, ref, [t.input for t in suite.tests], limits=Limits.of(problem))
    assert [r.output for r in runs] == [t.output for t in suite.tests]
    # Whether each differential test exposes its wrong submission is what that
    # submission does on it.
    for t in diff:
        wrong = task.wrong_pairs[t.meta["pair"]].wrong
        [run] = run_program(sandbox, wrong, [t.input], limits=Limits.of(problem))
        assert t.meta["exposes"] is (not run.ok or run.output.split() != t.output.split())
    # Scored by TC-Bench's HackRate runner (its validators agree with every output).
    score = hackrate(problem, task, suite, sandbox)
    assert score["pass_rate"] == 100.0 and score["wrong"]["wrong/int_total.cpp"] == "wa"
    assert score["wrong"]["wrong/set_of_fees.cpp"] == "wa"  # the equal-fees boundary test
    got = failures(suite)
    assert ("validator", "invalid_input", "multidim-0:gen_case_3") in got
    assert ("generator", "crash", "multidim-0:gen_case_4") in got
    # Nothing the method was shown may be scored: the held-out submissions are the rest.
    assert {w.digest for w in shown} <= task.shown_programs()
    assert len([w for w in problem.wrong_solutions if w.digest not in task.shown_programs()]) == 5


def test_saga_failures_are_data(sandbox, tmp_path):
    problem = zoo_problem(sandbox, "zm01")
    no_validator = "# Tests\n" + fenced('def gen_case_1():\n    """x"""\n    return "1\\n1 1\\n"\n')
    rejects = VALIDATOR.replace("return True", "return (False, 'never')")
    model = script(tmp_path / "m.jsonl", [
        (MULTIDIM, no_validator),
        (DIFFERENTIAL, answer(rejects + '\n\ndef gen_case_1():\n    return "1\\n1 1\\n"\n')),
    ])
    task = Task.from_problem(problem, Setting.SPEC_CORRECT_WRONG)
    suite = generate(task, model, sandbox, differential_pairs=1)
    assert suite.tests == []
    assert failures(suite) == [
        ("parse", "missing_definition", "multidim-0"),
        ("validator", "no_input_validator", "multidim-0"),
        ("validator", "validator_rejects_samples", "differential-0:validate_input"),
        ("validator", "invalid_input", "differential-0:gen_case_1"),
        ("inputs", "no_valid_input", ""),
    ]
    # A tuple is not a yes: the detail says what the validator returned.
    assert "(False, 'never')" in suite.provenance.failures[2].detail

    # A problem without wrong submissions: multidimensional analysis only, said so.
    bare = problem.model_copy(update={"wrong_solutions": []})
    model = script(tmp_path / "m2.jsonl", [(MULTIDIM, answer(MULTIDIM_CODE))])
    suite = generate(Task.from_problem(bare, Setting.SPEC_CORRECT_WRONG), model, sandbox)
    assert failures(suite)[0] == ("setup", "no_wrong_submissions", "")
    assert [t.meta["function"] for t in suite.tests] == ["gen_case_1", "gen_case_2"]

    # An answer that is not code at all.
    model = script(tmp_path / "m3.jsonl", [(MULTIDIM, "I would test small cases.")])
    suite = generate(Task.from_problem(bare, Setting.SPEC_CORRECT_WRONG), model, sandbox)
    assert [r for _, r, _ in failures(suite)] == ["no_wrong_submissions", "no_code_block", "no_valid_input"]


def test_parse_answer_takes_the_fullest_module():
    text = ("# Analysis\nconstraints...\n# Tests\n```python\ndef gen_case_1():\n    return '1'\n```\n"
            "and the whole file:\n" + fenced(MULTIDIM_CODE))
    got = parse_answer(text)
    assert got.validator and [c.function for c in got.cases] == ["gen_case_1", "gen_case_2", "gen_case_3",
                                                                "gen_case_4"]
    assert got.analysis.startswith("# Analysis") and got.problems == []
    # gen_case_10 sorts after gen_case_9
    code = "\n".join(f"def gen_case_{k}():\n    return '{k}'\n" for k in (10, 9, 1))
    assert [c.function for c in parse_answer(fenced(code)).cases] == ["gen_case_1", "gen_case_9", "gen_case_10"]


def test_bug_finding_refuses_saga(sandbox):
    """The bug-finding runner studies one wrong program at a time: the wrong submissions a
    spec+correct+wrong task shows could include it, so it refuses such a method."""
    import pytest

    from tczoo.errors import UserError
    from tczoo.runners.bugfind import BugfindRunner

    with pytest.raises(UserError, match="may include the program whose bug is to be found"):
        BugfindRunner(sandbox).tasks(zoo_problem(sandbox, "zm01"), Saga, samples=1, seed=0)


def test_a_sandbox_failure_under_saga_fails_the_unit_as_the_sandbox_s_never_as_dropped_tests(sandbox, tmp_path):
    """The correct program's runs come back SE (a worker that died on every retry): the
    generation fails as an infrastructure failure, retried on resume, not as a suite
    whose inputs were silently dropped as the correct code's."""
    from sandbox_fixtures import DyingFor

    from tczoo.failures import generation_failure, transient
    from tczoo.generation import generate_unit
    from tczoo.templates import Prompts

    problem = zoo_problem(sandbox, "zm01")
    model = script(tmp_path / "m.jsonl", [(MULTIDIM, answer(MULTIDIM_CODE)), (DIFFERENTIAL, answer(DIFFERENTIAL_CODE))])
    task = Task.from_problem(problem, Setting.SPEC_CORRECT_WRONG)
    [ref] = [p for p in problem.solutions if p.name.endswith("fast.cpp")]
    task = task.model_copy(update={"correct_programs": [ref]})
    dying = DyingFor(sandbox, ref.code)
    client = LLMClient(model, LLMSettings(cache=False, retries=0))
    record = asyncio.run(generate_unit(Saga(differential_pairs=1), task, name="saga", problem_id=problem.id,
                                       task_key="", sample=0, attempt=0, client=client, sandbox=dying,
                                       prompts=Prompts()))
    assert dying.failed > 0
    failure = generation_failure(record)
    assert failure is not None and (failure.stage, failure.reason) == ("sandbox", "sandbox_error")
    assert "sandbox error" in failure.detail and transient(failure)

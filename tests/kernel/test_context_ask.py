"""What a method's Context gives it: fresh answers when it asks the same prompt again
(unless it names the samples), and suites of the oracle kind its class declares."""

from __future__ import annotations

import asyncio

import pytest

from tczoo.llm import LLMClient, LLMSettings, Session
from tczoo.method import Context, Method
from tczoo.schema import OracleKind, Provenance, Setting, Task, TestSuite
from tczoo.templates import Prompts
from tczoo.testing import scripted_model


@pytest.fixture
def prompts(tmp_path) -> Prompts:
    (tmp_path / "prompts" / "t").mkdir(parents=True)
    (tmp_path / "prompts" / "t" / "ask.j2").write_text("{% block user %}Write {{ what }}.{% endblock %}\n")
    return Prompts(tmp_path / "prompts", plugins=False)


def context(tmp_path, prompts, *, method="m", produces=None, sample_base=0) -> Context:
    model = scripted_model(tmp_path / "model.jsonl", [("Write x", ["x0", "x1", "x2", "x3", "x4"]),
                                                      ("Write y", ["y0", "y1"])])
    client = LLMClient(model, LLMSettings(cache=False, retries=0))
    return Context(llm=Session(client), sandbox=None, prompts=prompts, method=method,  # type: ignore[arg-type]
                   produces=produces, sample_base=sample_base)


def texts(ctx: Context, *asks: dict) -> list[list[str]]:
    suite = TestSuite(problem_id="p", provenance=Provenance(method="m"))

    async def go():
        return [[c.text for c in await ctx.ask(suite, "t/ask", **a)] for a in asks]

    return asyncio.run(go())


def test_asking_the_same_prompt_again_gives_fresh_samples(tmp_path, prompts):
    ctx = context(tmp_path, prompts)
    assert texts(ctx, {"what": "x"}, {"what": "x"}, {"what": "x", "n": 2}) == [["x0"], ["x1"], ["x2", "x3"]]


def test_another_prompt_has_samples_of_its_own(tmp_path, prompts):
    ctx = context(tmp_path, prompts)
    assert texts(ctx, {"what": "x"}, {"what": "y"}, {"what": "y"}, {"what": "x"}) == [["x0"], ["y0"], ["y1"], ["x1"]]


def test_first_sample_names_the_samples(tmp_path, prompts):
    """first_sample=0 on a repeated prompt: the first answer again (SAGA's repeated
    analysis pair, LiveCodeBench's repeated query); a default ask after named samples
    never repeats one of them."""
    ctx = context(tmp_path, prompts)
    got = texts(ctx, {"what": "x"}, {"what": "x", "first_sample": 0}, {"what": "x", "first_sample": 3},
                {"what": "x"})
    assert got == [["x0"], ["x0"], ["x3"], ["x4"]]


def test_the_same_ask_at_once_gets_distinct_samples(tmp_path, prompts):
    ctx = context(tmp_path, prompts)
    suite = TestSuite(problem_id="p", provenance=Provenance(method="m"))

    async def go():
        return await asyncio.gather(*(ctx.ask(suite, "t/ask", what="x") for _ in range(3)))

    assert sorted(c.text for answers in asyncio.run(go()) for c in answers) == ["x0", "x1", "x2"]


class Judge(Method):
    name = "ctx-test-judge"
    produces = OracleKind.LLM_JUDGE

    async def generate(self, task, ctx):
        return ctx.new_suite(task)


TASK = Task(problem_id="p", statement="s", setting=Setting.SPEC, time_limit_ms=1000, memory_limit_mb=256)


def test_a_suite_has_the_kind_the_method_declares(tmp_path, prompts):
    assert context(tmp_path, prompts, produces=OracleKind.INPUTS_ONLY).new_suite(TASK).oracle.kind \
        is OracleKind.INPUTS_ONLY
    # a Context made without produces (a test's own): the defined class of that name says
    assert context(tmp_path, prompts, method="ctx-test-judge").new_suite(TASK).oracle.kind is OracleKind.LLM_JUDGE
    assert context(tmp_path, prompts, method="nobody").new_suite(TASK).oracle.kind is OracleKind.EXPECTED_OUTPUT
    # the same kind named again is fine; another is a bug
    ctx = context(tmp_path, prompts, produces=OracleKind.INPUTS_ONLY)
    assert ctx.new_suite(TASK, OracleKind.INPUTS_ONLY).oracle.kind is OracleKind.INPUTS_ONLY
    with pytest.raises(TypeError, match="declares produces = inputs_only but made a suite of expected_output"):
        ctx.new_suite(TASK, OracleKind.EXPECTED_OUTPUT)


def test_a_kind_that_needs_a_program_waits_for_it(tmp_path, prompts):
    """A checker (HarnessLLM) or reference oracle is a program: the suite keeps the default
    kind until the method sets suite.oracle with one, and survives a JSON round trip."""
    suite = context(tmp_path, prompts, produces=OracleKind.CHECKER_PROGRAM).new_suite(TASK)
    assert suite.oracle.kind is OracleKind.EXPECTED_OUTPUT
    assert TestSuite.model_validate_json(suite.model_dump_json()) == suite

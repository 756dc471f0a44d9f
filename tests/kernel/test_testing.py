"""tczoo.testing: the harness runs the real pipeline with a scripted model, and the
self-checks pass every built-in method and runner and name what is wrong with broken
ones (each broken plugin below breaks one rule)."""

from __future__ import annotations

import json

import pytest
from pydantic import ConfigDict

from tczoo.method import Context, Method, MethodParams
from tczoo.registry import get_method, get_runner, method_names, runner_names
from tczoo.runner import Runner, RunnerParams, Table
from tczoo.schema import OracleKind, ScoreRecord, Setting, Task, TestCase, TestSuite
from tczoo.testing import (ConformanceError, assert_conforms, check_method, check_runner, problem, run_method, score,
                           scripted_model)

# Valid tests of zm04 (ribbon pieces): the largest L with sum(a_i // L) >= k.
ZM04 = [{"input": "1 1\n1\n", "output": "1\n"}, {"input": "2 3\n5 5\n", "output": "2\n"},
        {"input": "3 7\n10 15 8\n", "output": "4\n"}]


@pytest.fixture(scope="module")
def zm04(sandbox):
    return problem("zm04", sandbox=sandbox)


def test_the_harness_runs_a_method_and_scores_its_suite(sandbox, zm04, tmp_path):
    model = scripted_model(tmp_path / "rules.jsonl", [("", "```json\n" + json.dumps(ZM04) + "\n```")])
    suite, task = run_method(get_method("crux"), zm04, model, sandbox)
    assert task.problem_id == zm04.id and task.setting is Setting.SPEC
    assert [(t.input, t.output) for t in suite.tests] == [(t["input"], t["output"]) for t in ZM04]
    assert suite.provenance.method == "crux" and suite.provenance.usage.calls == len(suite.provenance.exchanges) >= 1
    record = score("hackrate", zm04, suite, sandbox, task=task)
    assert record.runner == "hackrate" and record.n_valid == 3 and record.metrics["pass_rate"] == 100.0


@pytest.mark.parametrize("name", runner_names())
def test_every_built_in_runner_conforms(name, sandbox):
    assert check_runner(get_runner(name), sandbox=sandbox) == []


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.e2e) if n.startswith("stab") else n
                                  for n in method_names()])  # STAB loads its sentence embedder
def test_every_built_in_method_conforms(name, sandbox):
    assert check_method(get_method(name), sandbox=sandbox) == []


# --------------------------------------------------------------------------- broken methods


class Careless(Method):
    """Parses answers with json.loads and no care: a nonsense answer raises."""

    name = "careless"

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        for answer in await ctx.ask(suite, "crux/generate", task=task, n_tests=task.budget):
            suite.tests += [TestCase(**t) for t in json.loads(answer.text)]
        return suite


class Forgetful(Method):
    """Asks the client directly and drops what failed: a dead provider leaves no trace."""

    name = "forgetful"

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = TestSuite(problem_id="someone-else", provenance={"method": "other"})
        await ctx.llm.complete(ctx.prompts.render("crux/generate", task=task, n_tests=task.budget))
        return suite


class Listy(Method):
    name = "listy"

    async def generate(self, task, ctx):
        return []


class NoDefaults(Method):
    name = "no-defaults"
    runner = "hackrat"

    class Params(MethodParams):
        rounds: int  # no default: a run without --params cannot build it

    async def generate(self, task, ctx):
        return ctx.new_suite(task)


class WrongOracle(Method):
    """Says it writes expected outputs, makes a suite with no oracle kind of that sort."""

    name = "wrong-oracle"

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        suite.oracle.kind = OracleKind.INPUTS_ONLY  # not the kind it declares
        for answer in await ctx.ask(suite, "crux/generate", task=task, n_tests=task.budget):
            suite.tests += [TestCase(input=t["input"]) for t in json.loads(answer.text.strip("`json\n"))]
        return suite


def test_check_method_names_what_is_wrong(sandbox, tmp_path):
    [found] = check_method(Careless, sandbox=sandbox)
    assert found.startswith("with a model that answers nonsense: generate raised JSONDecodeError")
    found = check_method(Forgetful, sandbox=sandbox)
    assert any("the suite is for problem 'someone-else'" in f for f in found)
    assert any("provenance names method 'other'" in f for f in found)
    assert any("with a model that never answers: no failure of stage 'llm'" in f for f in found)
    assert check_method(Listy, sandbox=sandbox) == [
        "with a model that answers nonsense: generate returned list, not a TestSuite",
        "with a model that never answers: generate returned list, not a TestSuite"]
    found = check_method(NoDefaults, sandbox=sandbox)
    assert any(f.startswith("runner 'hackrat' cannot be used: unknown runner 'hackrat' (did you mean hackrate?")
               for f in found)
    assert any(f.startswith("Params() without arguments fails") for f in found)
    model = scripted_model(tmp_path / "rules.jsonl", [("", "```json\n" + json.dumps(ZM04) + "\n```")])
    assert check_method(WrongOracle, model=model, sandbox=sandbox) == [
        "with a model that answers nonsense: generate raised JSONDecodeError: Expecting value: line 1 column 1 "
        "(char 0) (a bad answer or program is a failure recorded on the suite with suite.fail(stage, reason, "
        "detail), never an exception)",
        "with the given model: the suite's oracle is inputs_only, but the method declares produces = expected_output"]
    assert check_method(dict) == ["<class 'dict'> is not a subclass of tczoo.method.Method"]
    with pytest.raises(ConformanceError, match="careless does not conform:\n- with a model that answers nonsense"):
        assert_conforms(check_method(Careless, sandbox=sandbox), "careless")


# --------------------------------------------------------------------------- broken runners


class _Base(Runner):
    name = "base"

    def score(self, problem, spec, suite):
        return ScoreRecord(runner=self.name, method="m", model="x", problem_id=problem.id, n_valid=len(suite.tests))

    def summarize(self, scores):
        return [Table(title="t", columns=["n"], rows=[{"n": len(scores)}])]


class NeedsSandbox(_Base):
    name = "needs-sandbox"

    def __init__(self, sandbox, **params):  # no default: reading records cannot build it
        super().__init__(sandbox, **params)


class SummarizesWithTheSandbox(_Base):
    name = "summarizes-with-the-sandbox"

    def summarize(self, scores):
        return [Table(title=f"{self.sandbox.workers} workers", columns=[], rows=[])]


class LaxParams(_Base):
    name = "lax-params"

    class Params(RunnerParams):
        model_config = ConfigDict(extra="allow")  # a misspelt knob would pass unnoticed


class Impostor(_Base):
    name = "impostor"

    def score(self, problem, spec, suite):
        return ScoreRecord(runner="hackrate", method="m", model="x", problem_id="elsewhere")


def test_check_runner_names_what_is_wrong(sandbox):
    assert check_runner(_Base, sandbox=sandbox) == []
    [found] = check_runner(NeedsSandbox, sandbox=sandbox)
    assert found.startswith("NeedsSandbox() without a sandbox fails (TypeError")
    [found] = check_runner(SummarizesWithTheSandbox, sandbox=sandbox)
    assert found == ("summarize([]) without a sandbox raised RuntimeError: runner summarizes-with-the-sandbox was "
                     "built to read records (no sandbox): it cannot run programs")
    [found] = check_runner(LaxParams, sandbox=sandbox)
    assert found.startswith("Params should refuse unknown keys")
    assert check_runner(Impostor, sandbox=sandbox) == [
        "score() returned a record of runner 'hackrate' for problem 'elsewhere', not of 'impostor' for "
        "'zm04-ribbon-pieces'"]

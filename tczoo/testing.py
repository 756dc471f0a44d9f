"""Testing a method or a runner before anyone else runs it: a scripted-model harness and
a self-check, shipped with tczoo for plugin authors (the built-in methods and runners
pass the same checks; tests/test_conformance.py).

The harness runs the real thing — prompts, the LLM client, parsing, the sandbox —
with a scripted model instead of a provider::

    from tczoo.testing import problem, run_method, score, scripted_model

    model = scripted_model(tmp_path / "rules.jsonl", [("edge-case tests", '[{"input": "1\\n", "output": "1\\n"}]')])
    with Sandbox() as sandbox:
        p = problem("zm04", sandbox=sandbox)
        suite, task = run_method(EdgeOnly, p, model, sandbox)
        record = score("hackrate", p, suite, sandbox, task=task)

The self-checks call what tczoo calls, the way it calls it, and return the problems
they found (an empty list: it conforms); ``assert_conforms`` raises with all of them::

    assert check_method(EdgeOnly, model=model) == []
    assert check_runner(MyRunner) == []

``check_method`` checks the class (name, setting, oracle kind, a runner that exists,
``Params`` with defaults, ``describe()`` as JSON), then runs ``generate`` on a zoo-mini
problem three times: with a model that answers nonsense, with a model that never
answers, and (given ``model``) with the author's own scripted answers. Every run must
return a ``TestSuite`` for the task's problem stamped with the method's name, with
every failure recorded on it rather than raised; a model that never answered must show
as a failure of stage ``llm``; the author's answers must give tests that survive a
JSON round trip and that the method's runner can score.

``check_runner`` checks the class (name, ``Params`` with defaults), that it can be
built without a sandbox and then summarise, label and show records (``tczoo report``,
``compare`` and ``view`` build it so), that its tasks never hand a method more than its
setting allows, and that scoring a suite of the problem's sample tests gives a record
of this runner for this problem that survives a JSON round trip and that its own
``summarize`` turns into tables ``tczoo report`` can print in every format.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Iterable, Sequence

from pydantic import BaseModel

from tczoo.errors import UserError
from tczoo.execution import score_suite
from tczoo.llm import LLMClient, LLMSettings, Session
from tczoo.method import Context, Method, MethodParams
from tczoo.runner import Matrix, Runner, Table, TaskSpec
from tczoo.sandbox import Sandbox
from tczoo.schema import OracleKind, Problem, Provenance, ScoreRecord, Setting, Task, TestCase, TestSuite
from tczoo.templates import Prompts

Rule = tuple[str, "str | list[str]"]

__all__ = ["ConformanceError", "assert_conforms", "check_method", "check_runner", "problem", "run_method",
           "score", "scripted_model"]

NAME = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
NONSENSE = "I am not sure what you mean. \x1b[31m<|endoftext|>\n```\n{"  # an unusable answer: cut-off code, no JSON


class ConformanceError(AssertionError):
    """What ``assert_conforms`` raises: every problem the self-check found, one a line."""


# --------------------------------------------------------------------------- the harness


def scripted_model(path: str | Path, rules: Iterable[Rule | dict[str, Any]]) -> str:
    """Write a scripted model's rules file and return its model string (``scripted:PATH``).

    A rule is ``(regex, answer)`` (``(regex, [answers])`` answers sample *i* with the
    *i*-th, cycling) or a dict in the file's own format; the first rule whose regex is
    found in the rendered prompt answers; no match is a failed call (``no_rule``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for rule in rules:
            if not isinstance(rule, dict):
                match, answer = rule
                rule = {"match": match, "responses" if isinstance(answer, list) else "response": answer}
            fh.write(json.dumps(rule) + "\n")
    return f"scripted:{path}"


def problem(problem_id: str = "zm04", benchmark: str = "zoo-mini", *, sandbox: Sandbox | None = None) -> Problem:
    """One problem of a benchmark (default: the bundled zoo-mini), by id or id prefix."""
    from tczoo.benchmarks import load_benchmark

    found = load_benchmark(benchmark, [problem_id], sandbox=sandbox)
    if not found:
        raise KeyError(f"benchmark {benchmark} has no problem {problem_id!r}")
    return found[0]


def _runner_class(runner: str | type[Runner]) -> type[Runner]:
    if isinstance(runner, str):
        from tczoo.registry import get_runner

        return get_runner(runner)
    return runner


def _method_class(method: Method | type[Method]) -> type[Method]:
    return method if inspect.isclass(method) else type(method)


def task_for(method: Method | type[Method], problem: Problem, *, runner: str | type[Runner] | None = None,
             sandbox: Sandbox | None = None, budget: int | None = None, seed: int = 0) -> TaskSpec:
    """The first task ``runner`` (default: the method's own) gives the method for
    ``problem``, as a run would build it (a setting's code included)."""
    cls = _method_class(method)
    specs = _runner_class(runner or cls.runner)(sandbox).tasks(problem, cls, samples=1, seed=seed)
    if not specs:
        raise ValueError(f"runner {runner or cls.runner} has no task for {cls.name} on {problem.id}")
    spec = specs[0]
    if budget is not None:
        spec.task = spec.task.model_copy(update={"budget": budget})
    return spec


def run_method(method: Method | type[Method], problem: Problem, model: str, sandbox: Sandbox, *,
               task: Task | None = None, runner: str | type[Runner] | None = None, budget: int | None = None,
               seed: int = 0, settings: LLMSettings | None = None, **params: Any) -> tuple[TestSuite, Task]:
    """``method`` (a class, built with ``params``, or an instance) on ``problem`` with
    ``model``, as the run loop runs a unit: the task its runner builds (or ``task``),
    a fresh LLM client (no cache, no retries unless ``settings`` say), the built-in and
    plugin templates, ``sandbox``. Returns the suite (usage stamped on) and the task."""
    instance = method(**params) if inspect.isclass(method) else method
    cls = type(instance)
    if task is None:
        task = task_for(cls, problem, runner=runner, sandbox=sandbox, budget=budget, seed=seed).task
    suite = _generate_once(instance, task, model, sandbox, settings)
    if not isinstance(suite, TestSuite):
        raise TypeError(f"{cls.__name__}.generate returned {type(suite).__name__}, not a TestSuite")
    return suite, task


def _generate_once(instance: Method, task: Task, model: str, sandbox: Sandbox,
                   settings: LLMSettings | None = None) -> Any:
    """What ``generate`` returns (usage stamped on when it is a suite)."""
    client = LLMClient(model, settings or LLMSettings(cache=False, retries=0))
    ctx = Context(llm=Session(client), sandbox=sandbox, prompts=Prompts(), method=type(instance).name,
                  seed=task.seed, params=instance.params.model_dump(), produces=type(instance).produces)
    suite = asyncio.run(instance.generate(task, ctx))
    return ctx.finish(suite) if isinstance(suite, TestSuite) else suite


def score(runner: str | type[Runner] | Runner, problem: Problem, suite: TestSuite, sandbox: Sandbox, *,
          task: Task | None = None, spec: TaskSpec | None = None, **params: Any) -> ScoreRecord:
    """``suite`` scored by ``runner`` (a name, a class built with ``params`` on
    ``sandbox``, or an instance) on the task it was made for."""
    instance = runner if isinstance(runner, Runner) else _runner_class(runner)(sandbox, **params)
    if spec is None:
        if task is None:
            raise ValueError("score needs the task the suite was made for (task=) or the runner's spec (spec=)")
        spec = TaskSpec(key="", task=task)
    return score_suite(instance, problem, spec, suite)


# --------------------------------------------------------------------------- the self-checks


def assert_conforms(problems: Sequence[str], what: str = "") -> None:
    """Raise ``ConformanceError`` listing ``problems`` (from a ``check_*``) if any."""
    if problems:
        raise ConformanceError(f"{what or 'the plugin'} does not conform:\n- " + "\n- ".join(problems))


def _check_params(cls: type, base: type[BaseModel], found: list[str]) -> None:
    params = getattr(cls, "Params", None)
    if not (inspect.isclass(params) and issubclass(params, BaseModel)):
        found.append(f"Params is not a pydantic model (got {params!r})")
        return
    if not issubclass(params, base):
        found.append(f"Params should subclass {base.__module__}.{base.__name__}")
    try:
        made = params()
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        found.append(f"Params() without arguments fails ({type(exc).__name__}: {exc}): every knob needs the "
                     "paper's default")
        return
    try:
        json.dumps(made.model_dump(mode="json"))
    except (TypeError, ValueError) as exc:
        found.append(f"Params' values are not JSON ({exc}): they are recorded in every run's config")
    if params.model_config.get("extra") != "forbid":
        found.append("Params should refuse unknown keys (model_config = ConfigDict(extra='forbid')): "
                     "a misspelt --params key must be an error")


def _check_identity(cls: type, found: list[str]) -> None:
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not NAME.match(name):
        found.append(f"name must be a lower-case name (letters, digits, '-', '_', '.'), got {name!r}")
    for attr in ("paper", "summary"):
        if not isinstance(getattr(cls, attr, None), str):
            found.append(f"{attr} must be a string")


def _check_suite(suite: Any, cls: type[Method], task: Task, why: str, found: list[str]) -> bool:
    if not isinstance(suite, TestSuite):
        found.append(f"{why}: generate returned {type(suite).__name__}, not a TestSuite")
        return False
    if suite.problem_id != task.problem_id:
        found.append(f"{why}: the suite is for problem {suite.problem_id!r}, the task for {task.problem_id!r} "
                     "(make it with ctx.new_suite(task))")
    if suite.provenance.method != cls.name:
        found.append(f"{why}: the suite's provenance names method {suite.provenance.method!r}, not {cls.name!r} "
                     "(make it with ctx.new_suite(task))")
    try:
        TestSuite.model_validate_json(suite.model_dump_json())
    except ValueError as exc:
        found.append(f"{why}: the suite does not survive a JSON round trip ({str(exc).splitlines()[0]})")
    return True


def _generate(cls: type[Method], prob: Problem, model: str, sandbox: Sandbox, why: str,
              found: list[str]) -> tuple[TestSuite | None, Task | None]:
    try:
        spec = task_for(cls, prob, sandbox=sandbox)
    except Exception as exc:  # noqa: BLE001 - reported
        found.append(f"{why}: its runner {cls.runner!r} builds no task for it on {prob.id} "
                     f"({type(exc).__name__}: {exc})")
        return None, None
    try:
        suite = _generate_once(cls(), spec.task, model, sandbox)
    except Exception as exc:  # noqa: BLE001 - this is what the check is for
        found.append(f"{why}: generate raised {type(exc).__name__}: {exc} (a bad answer or program is a failure "
                     "recorded on the suite with suite.fail(stage, reason, detail), never an exception)")
        return None, spec.task
    return (suite if _check_suite(suite, cls, spec.task, why, found) else None), spec.task


def check_method(cls: type[Method], *, model: str | None = None, problem_id: str = "zm04",
                 benchmark: str = "zoo-mini", sandbox: Sandbox | None = None) -> list[str]:
    """What is wrong with method ``cls`` (empty: nothing found). ``model``: a scripted
    model (``scripted_model``) with answers the method can use, to check what it makes
    of them; ``problem_id``/``benchmark``: the problem it runs on."""
    found: list[str] = []
    if not (inspect.isclass(cls) and issubclass(cls, Method)):
        return [f"{cls!r} is not a subclass of tczoo.method.Method"]
    if inspect.isabstract(cls):
        return [f"{cls.__name__} does not implement {', '.join(sorted(cls.__abstractmethods__))}"]
    _check_identity(cls, found)
    if not isinstance(cls.setting, Setting):
        found.append(f"setting must be a tczoo.schema.Setting, got {cls.setting!r}")
    if not isinstance(cls.produces, OracleKind):
        found.append(f"produces must be a tczoo.schema.OracleKind, got {cls.produces!r}")
    if not (cls.first_k is None or (isinstance(cls.first_k, int) and cls.first_k >= 1)):
        found.append(f"first_k must be None or a positive int, got {cls.first_k!r}")
    try:
        _runner_class(cls.runner)
    except Exception as exc:  # noqa: BLE001 - reported
        found.append(f"runner {cls.runner!r} cannot be used: {exc}")
    _check_params(cls, MethodParams, found)
    try:
        json.dumps(cls.describe(), default=str)
    except Exception as exc:  # noqa: BLE001 - reported
        found.append(f"describe() fails or is not JSON: {type(exc).__name__}: {exc}")
    if found:
        return found  # the class itself is wrong: running it would only repeat that
    with ExitStack() as stack:
        if sandbox is None:
            sandbox = stack.enter_context(Sandbox())
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tczoo-check-")))
        prob = problem(problem_id, benchmark, sandbox=sandbox)
        nonsense = scripted_model(folder / "nonsense.jsonl", [("", NONSENSE)])
        _generate(cls, prob, nonsense, sandbox, "with a model that answers nonsense", found)
        silent = scripted_model(folder / "silent.jsonl", [])  # no rule matches: every call fails
        suite, _ = _generate(cls, prob, silent, sandbox, "with a model that never answers", found)
        if suite is not None and suite.provenance.usage.calls + suite.provenance.usage.cached_calls == 0 \
                and not any(f.stage == "llm" for f in suite.provenance.failures):
            pass  # a method that asks no model (a fuzzer) has nothing to record here
        elif suite is not None and not any(f.stage == "llm" for f in suite.provenance.failures):
            found.append("with a model that never answers: no failure of stage 'llm' is recorded (ask through "
                         "ctx.ask, which records every call the provider did not answer)")
        if model is not None:
            suite, task = _generate(cls, prob, model, sandbox, "with the given model", found)
            if suite is not None and task is not None:
                _check_scored(cls, prob, suite, task, sandbox, found)
    return found


def _check_scored(cls: type[Method], prob: Problem, suite: TestSuite, task: Task, sandbox: Sandbox,
                  found: list[str]) -> None:
    if not suite.tests:
        reasons = "; ".join(f"{f.stage}/{f.reason}: {f.detail[:80]}" for f in suite.provenance.failures[:3])
        found.append(f"with the given model: the suite has no tests ({reasons or 'and no failure says why'})")
        return
    if suite.oracle.kind is not cls.produces:
        found.append(f"with the given model: the suite's oracle is {suite.oracle.kind.value}, but the method "
                     f"declares produces = {cls.produces.value}")
    runner = _runner_class(cls.runner)(sandbox)
    refused = runner.cannot_score(suite)
    if refused:
        found.append(f"with the given model: runner {cls.runner} cannot score the suite: {refused}")
        return
    try:
        record = score_suite(runner, prob, TaskSpec(key="", task=task), suite)
    except Exception as exc:  # noqa: BLE001 - reported
        found.append(f"with the given model: runner {cls.runner} failed to score the suite: "
                     f"{type(exc).__name__}: {exc}")
        return
    if not isinstance(record, ScoreRecord):
        found.append(f"with the given model: runner {cls.runner} returned {type(record).__name__}")


class _Probe(Method):
    """A stand-in method of a given setting, for asking a runner for its tasks."""

    name = "probe"
    setting = Setting.SPEC

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        raise AssertionError("a probe is never run")


def _probe(setting: Setting, runner: str) -> type[Method]:
    """A method of ``setting`` that names ``runner`` as its own (a runner may refuse
    methods written for another: an output predictor is not a test generator)."""
    return type(f"Probe{setting.name.title()}", (_Probe,),
                {"setting": setting, "name": f"probe-{setting.value}", "runner": runner})


def _check_tables(tables: Any, why: str, found: list[str]) -> None:
    if not isinstance(tables, list) or not all(isinstance(t, Table) for t in tables):
        found.append(f"{why}: summarize must return a list of tczoo.runner.Table, got {tables!r:.80}")
        return
    from tczoo.report import render

    for fmt in ("md", "csv", "json"):  # what tczoo report prints
        try:
            render(tables, fmt)
        except Exception as exc:  # noqa: BLE001 - reported
            found.append(f"{why}: the tables cannot be rendered as {fmt} ({type(exc).__name__}: {exc})")


def check_runner(cls: type[Runner], *, problem_id: str = "zm04", benchmark: str = "zoo-mini",
                 sandbox: Sandbox | None = None, suite: TestSuite | None = None,
                 method: type[Method] | None = None) -> list[str]:
    """What is wrong with runner ``cls`` (empty: nothing found). It scores ``suite``
    (default: the problem's sample tests with their outputs) on the task it gives
    ``method`` (default: a stand-in method of each setting, the first it serves)."""
    found: list[str] = []
    if not (inspect.isclass(cls) and issubclass(cls, Runner)):
        return [f"{cls!r} is not a subclass of tczoo.runner.Runner"]
    if inspect.isabstract(cls):
        return [f"{cls.__name__} does not implement {', '.join(sorted(cls.__abstractmethods__))}"]
    _check_identity(cls, found)
    from tczoo.runner import RunnerParams

    _check_params(cls, RunnerParams, found)
    try:
        reader = cls()
    except Exception as exc:  # noqa: BLE001 - reported
        return found + [f"{cls.__name__}() without a sandbox fails ({type(exc).__name__}: {exc}): reading records "
                        "(tczoo report, compare, view) builds runners without one"]
    try:
        _check_tables(reader.summarize([]), "summarize([]) without a sandbox", found)
    except Exception as exc:  # noqa: BLE001 - reported
        found.append(f"summarize([]) without a sandbox raised {type(exc).__name__}: {exc}")
    if not isinstance(reader.label("probe"), str):
        found.append("label(method) must return a string")
    if found:
        return found
    with ExitStack() as stack:
        if sandbox is None:
            sandbox = stack.enter_context(Sandbox())
        prob = problem(problem_id, benchmark, sandbox=sandbox)
        runner = cls(sandbox)
        spec = None
        for candidate in ([method] if method is not None else [_probe(s, cls.name) for s in Setting]):
            try:
                specs = runner.tasks(prob, candidate, samples=2, seed=0)
            except (ValueError, TypeError, UserError) as exc:  # a refusal of this setting
                if method is not None:
                    found.append(f"tasks() for {method.name} raised {type(exc).__name__}: {exc}")
                continue
            for s in specs:
                if not isinstance(s, TaskSpec) or s.task.setting is not candidate.setting:
                    found.append(f"tasks() gave a {candidate.setting.value} method a task of setting "
                                 f"{getattr(getattr(s, 'task', None), 'setting', None)}: never more than its setting")
                    break
            if specs and spec is None:
                spec = specs[0]
                break
        if spec is None:
            return found + [f"tasks() gives no task on {prob.id} to a method of any setting"]
        if suite is None:
            if spec.task.queries:  # an output predictor's task: the suite answers what it was asked
                known = {t.input: t.output for t in prob.samples}
                known.update({t.input: t.output for t in prob.golden_tests})
                tests = [TestCase(input=q, output=known.get(q, ""), origin="probe") for q in spec.task.queries]
            else:
                tests = [TestCase(input=s.input, output=s.output, origin="sample") for s in prob.samples]
            suite = TestSuite(problem_id=prob.id, provenance=Provenance(method="probe", model="probe-model"),
                              tests=tests)
            suite.oracle.kind = OracleKind.EXPECTED_OUTPUT
        if runner.cannot_score(suite.model_copy(update={"tests": []})) is None and not cls.scores_empty_suites:
            found.append("cannot_score(a suite without tests) says it can score it, yet scores_empty_suites is False")
        try:
            record = runner.score(prob, spec, suite)
        except Exception as exc:  # noqa: BLE001 - reported
            return found + [f"score() of the problem's sample tests raised {type(exc).__name__}: {exc}"]
        if not isinstance(record, ScoreRecord):
            return found + [f"score() returned {type(record).__name__}, not a ScoreRecord"]
        if record.runner != cls.name or record.problem_id != prob.id:
            found.append(f"score() returned a record of runner {record.runner!r} for problem {record.problem_id!r}, "
                         f"not of {cls.name!r} for {prob.id!r}")
        try:
            again = ScoreRecord.model_validate_json(record.model_dump_json())
        except ValueError as exc:
            found.append(f"the score record does not survive a JSON round trip ({str(exc).splitlines()[0]})")
            again = record
        record = again.model_copy(update={"model": "probe-model", "method": "probe"})
        try:
            _check_tables(cls().summarize([record]), "summarize([its own record]) without a sandbox", found)
        except Exception as exc:  # noqa: BLE001 - reported
            found.append(f"summarize([its own record]) without a sandbox raised {type(exc).__name__}: {exc}")
        try:
            shown = cls().matrices(record, suite)
            if not isinstance(shown, list) or not all(isinstance(m, Matrix) for m in shown):
                found.append("matrices(record, suite) must return a list of tczoo.runner.Matrix")
        except Exception as exc:  # noqa: BLE001 - reported
            found.append(f"matrices(record, suite) without a sandbox raised {type(exc).__name__}: {exc}")
    return found

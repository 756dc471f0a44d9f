"""What a method is, and what it is given to work with.

A method is a class with a ``generate(task, ctx) -> TestSuite`` coroutine. It declares:

- ``name``      how users call it (``--method crux``);
- ``paper``     where it comes from;
- ``setting``   what it may see (``Setting.SPEC``, ``SPEC_CORRECT``, ``SPEC_TARGET``,
                ``SPEC_CORRECT_WRONG``);
- ``produces``  its oracle kind (expected outputs, reference program, checker, LLM judge),
                declared here only: ``ctx.new_suite(task)`` gives it to every suite;
- ``runner``    the runner its paper scores it with (``hackrate``, ``bugfind`` ...);
- ``Params``    a pydantic model of its knobs (a subclass of ``MethodParams``, which
                declares the sampling knobs every method shares), with the paper's
                defaults;
- ``first_k``   how many of its tests a bug-finding runner evaluates per response by
                default (HarnessLLM Appendix B.1: 1 for input-output tests, 5 for
                harnesses); None: all of them;
- ``single_turn`` the params under which it asks the model once per task (an RL
                reward scores one completion); None: it always asks more than once.
- ``functional`` whether it writes tests for function-level (call-based) problems
                (``Task.entry_point`` set: HumanEval, LeetCode-style problems); a
                method that cannot is refused on them, in one line, before any LLM call;
- ``stdin``     whether it writes tests for stdin problems (True for most; CodeT's and
                EvalPlus's function-level methods are refused on them the same way);
- ``samples_candidates`` whether it samples candidate solutions itself and returns
                them as artifacts of role ``CANDIDATE_ROLE`` (CodeT): a selection
                runner (``bestofn``) then ranks those instead of a pool of its own;
- ``shown_fixes`` (spec+correct+wrong) whether each shown wrong submission comes with a
                corrected version (SAGA's differential analysis reads it) or alone
                (CodeContests-O feeds back the wrong submissions only): a correction a
                method never reads would leave an accepted program out of scoring for
                nothing.
- ``judges_shown`` whether its paper scores its suites on the very submissions the
                method was shown (SAGA judges every incorrect submission, the analysed
                ones included; CodeContests-O feeds back and judges the same pool): a
                runner judging against labelled submissions follows it by default and
                otherwise leaves every shown program out (the ``agreement`` runner's
                ``judged`` option).

The runner builds the ``Task`` from the setting, so a method cannot see more than its
paper allows. A method runs programs only through ``ctx`` (the sandbox and the
execution interface of ``tczoo.execution``) and asks the model only through
``ctx.ask``. Register a method with an entry point in the ``tczoo.methods`` group; its
templates go in a folder registered in the ``tczoo.prompts`` group.
"""

from __future__ import annotations

import asyncio
import json
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tczoo.llm import Completion, Session
from tczoo.llm.interface import SAMPLE_STRIDE
from tczoo.schema import Oracle, OracleKind, Program, Provenance, Setting, Task, TestSuite

if TYPE_CHECKING:
    from tczoo.templates import Prompts
    from tczoo.execution import Coverage, Execution, Generator, Limits, Sandbox
    from tczoo.sandbox.types import CallResult, PyCall

SAMPLING_KNOBS = ("temperature", "top_p", "presence_penalty", "max_tokens")


class MethodParams(BaseModel):
    """The knobs every method has: how its answers are sampled. None = the client's
    default (``tczoo run --temperature/--max-tokens``). A method whose paper fixes them
    overrides the defaults in its own ``Params`` subclass."""

    model_config = ConfigDict(extra="forbid")

    temperature: float | None = Field(None, ge=0, description="sampling temperature")
    top_p: float | None = Field(None, gt=0, le=1, description="nucleus sampling mass")
    presence_penalty: float | None = Field(None, description="penalty on tokens already present")
    max_tokens: int | None = Field(None, ge=1, description="most tokens generated per answer")



def kind_needs_program(kind: OracleKind) -> bool:
    """Whether an oracle of this kind is a program (``tczoo.schema.Oracle`` refuses one
    without it)."""
    try:
        Oracle(kind=kind)
    except ValidationError:
        return True
    return False


# The oracle kind each defined Method subclass declares, by method name: what a Context
# made without ``produces`` (a test's own) gives its suites.
_DECLARED: dict[str, set[OracleKind]] = {}


class Method(ABC):
    """A test-generation method (see the module docstring). Subclasses set the class
    attributes and implement ``generate``; the registry refuses an entry point that is
    not a subclass, and ``tczoo.testing.check_method`` checks the rest."""

    name: ClassVar[str]
    paper: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    setting: ClassVar[Setting] = Setting.SPEC
    produces: ClassVar[OracleKind] = OracleKind.EXPECTED_OUTPUT
    runner: ClassVar[str] = "hackrate"
    Params: ClassVar[type[MethodParams]] = MethodParams
    first_k: ClassVar[int | None] = None
    # The params under which ``generate`` asks the model exactly once per task, whatever
    # the answer, so one completion is the method's whole answer (RL rewards:
    # ``tczoo.rewards``, ``tczoo rl export``); None: no setting of the method does.
    single_turn: ClassVar[dict[str, Any] | None] = None
    functional: ClassVar[bool] = False
    stdin: ClassVar[bool] = True
    samples_candidates: ClassVar[bool] = False
    shown_fixes: ClassVar[bool] = True
    judges_shown: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = getattr(cls, "name", None)
        if isinstance(name, str) and isinstance(cls.produces, OracleKind):
            _DECLARED.setdefault(name, set()).add(cls.produces)

    def __init__(self, **params: Any):
        self.params = self.Params(**params)

    @abstractmethod
    async def generate(self, task: Task, ctx: "Context") -> TestSuite:
        """Tests for ``task``: a suite from ``ctx.new_suite`` with every failure recorded
        on it (``suite.fail``), never an exception for a bad answer or program."""

    @classmethod
    def describe(cls) -> dict[str, Any]:
        """What ``tczoo methods`` lists (``tczoo.registry.describe_methods`` reads the same
        from the class's source without importing it); ``params``: each field's default
        (a ``default_factory``'s value; None for a required field)."""
        return {
            "name": cls.name,
            "paper": cls.paper,
            "summary": cls.summary,
            "setting": cls.setting.value,
            "produces": cls.produces.value,
            "runner": cls.runner,
            "first_k": cls.first_k,
            "functional": cls.functional,
            "stdin": cls.stdin,
            "samples_candidates": cls.samples_candidates,
            "params": {k: None if f.is_required() else f.get_default(call_default_factory=True)
                       for k, f in cls.Params.model_fields.items()},
        }


@dataclass
class Context:
    """Everything a method works with for one task; nothing global."""

    llm: Session
    sandbox: "Sandbox"
    prompts: Prompts
    method: str
    seed: int = 0
    params: dict[str, Any] = field(default_factory=dict)
    # Which independent generation of the same task this is (a runner's samples): it
    # shifts every sample index, so identical prompts in different generations get
    # different answers (and different cache entries) instead of one shared answer.
    sample_base: int = 0
    # The method's oracle kind, declared once as ``Method.produces``: every suite
    # ``new_suite`` makes has it. None: the method class named ``method`` says.
    produces: OracleKind | None = None

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self._asked: dict[str, int] = {}  # request (all but its sample indices) -> samples asked so far

    def oracle_kind(self) -> OracleKind | None:
        """The kind the method declares: ``produces``, else the one every defined method
        class of this name declares (None when there is none, or more than one)."""
        if self.produces is None:
            kinds = _DECLARED.get(self.method, set())
            return next(iter(kinds)) if len(kinds) == 1 else None
        return self.produces

    def new_suite(self, task: Task, oracle_kind: OracleKind | None = None) -> TestSuite:
        """An empty suite for ``task`` whose oracle is the method's declared kind
        (``produces``). A kind that needs a program (a reference or a checker) comes with
        it: the method sets ``suite.oracle`` when it has one, and until then the suite
        has the default kind. ``oracle_kind`` may repeat the declared kind; a different
        one is a bug."""
        declared = self.oracle_kind()
        if oracle_kind is not None and declared is not None and oracle_kind is not declared:
            raise TypeError(f"method {self.method} declares produces = {declared.value} but made a suite of "
                            f"{oracle_kind.value}: the oracle kind is declared once, as Method.produces")
        suite = TestSuite(
            problem_id=task.problem_id,
            provenance=Provenance(
                method=self.method, model=self.llm.model, params=self.params, seed=self.seed
            ),
        )
        kind = oracle_kind or declared
        if kind is not None and not kind_needs_program(kind):
            suite.oracle.kind = kind
        return suite

    async def ask(
        self,
        suite: TestSuite,
        template: str,
        *,
        n: int = 1,
        first_sample: int | None = None,
        item: str = "",
        temperature: float | None = None,
        max_tokens: int | None = None,
        response_format: dict[str, Any] | bool | None = None,
        **variables: Any,
    ) -> list[Completion]:
        """Render ``template``, sample ``n`` answers; failed calls are recorded on ``suite``
        and left out, so callers only see answers they can parse. Each answer's
        ``sample`` says which of the n it was.

        Asked again with the same prompt (and sampling), it answers with fresh samples:
        the next ones this context has not asked for. ``first_sample`` names the samples
        instead: ``first_sample=k`` is samples k..k+n-1 of this prompt, whatever was
        asked before (``first_sample=0`` on a repeated prompt: the same answer as the
        first ask). ``temperature``/``max_tokens`` override the method's params for this
        call (PSEUDO samples its candidate solutions hotter than the rest).
        ``response_format`` defaults to the template's ``answer_schema`` block; ``False``
        asks without one, a dict replaces it (see ``tczoo.templates``)."""
        messages = self.prompts.render(template, **variables)
        kwargs = self.sampling()
        if response_format is None:
            response_format = self.prompts.response_format(template, **variables)
        if response_format:
            kwargs["response_format"] = response_format
        if temperature is not None:
            kwargs["temperature"] = temperature
        if max_tokens is not None:
            kwargs["max_tokens"] = max_tokens
        request = json.dumps([messages, kwargs], sort_keys=True, default=str)
        asked = self._asked.get(request, 0)
        if first_sample is None:
            first_sample = asked
        self._asked[request] = max(asked, first_sample + n)
        out = await self.llm.complete(
            messages,
            n=n,
            first_sample=self.sample_base * SAMPLE_STRIDE + first_sample,
            **kwargs,
        )
        good = []
        for c in out:
            if c.ok:
                good.append(c)
            else:
                suite.fail("llm", c.reason or "provider_error", c.error, item or template)
        return good

    def sampling(self) -> dict[str, Any]:
        """The method's sampling knobs that are set (the rest: the client's defaults)."""
        return {k: self.params[k] for k in SAMPLING_KNOBS if self.params.get(k) is not None}

    # ------------------------------------------------------------------ execution

    async def run(self, program: Program, inputs: list[str], limits: "Limits",
                  entry_point: str | None = None) -> list["Execution"]:
        """``program`` on every input in the sandbox (``tczoo.execution.run_program``)."""
        from tczoo.execution import run_program

        return await asyncio.to_thread(run_program, self.sandbox, program, inputs, limits=limits,
                                       entry_point=entry_point)

    async def run_all(self, programs: list[Program], inputs: list[str], limits: "Limits",
                      entry_point: str | None = None) -> list[list["Execution"]]:
        """Every program on every input, one batch: ``result[i][p]``."""
        from tczoo.execution import run_programs

        return await asyncio.to_thread(run_programs, self.sandbox, programs, inputs, limits=limits,
                                       entry_point=entry_point)

    async def coverage(self, program: Program, inputs: list[str], limits: "Limits",
                       entry_point: str | None = None) -> list["Coverage"]:
        """Line coverage of ``program`` on every input, measured in the sandbox
        (``tczoo.execution.line_coverage``; raises ``CoverageUnavailable``)."""
        from tczoo.execution import line_coverage

        return await asyncio.to_thread(line_coverage, self.sandbox, program, inputs, limits=limits,
                                       entry_point=entry_point)

    async def call(self, calls: list["PyCall"]) -> list["CallResult"]:
        """Functions of model-written Python called in the sandbox, results in order."""
        if not calls:
            return []
        return await asyncio.to_thread(self.sandbox.call_many, calls)

    async def run_generators(self, generators: list["Generator"], **options: Any) -> list["Generator"]:
        """``tczoo.execution.run_generators`` off the event loop."""
        from tczoo.execution import run_generators

        return await asyncio.to_thread(run_generators, self.sandbox, generators, **options)

    def finish(self, suite: TestSuite) -> TestSuite:
        """Stamp the LLM usage and exchange keys of this task onto the suite."""
        suite.provenance.usage = self.llm.usage
        suite.provenance.exchanges = list(self.llm.keys)
        return suite

"""What a method is, and what it is given to work with.

A method is a class with a ``generate(task, ctx) -> TestSuite`` coroutine. It declares:

- ``name``      how users call it (``--method crux``);
- ``paper``     where it comes from;
- ``setting``   what it may see (``Setting.SPEC``, ``SPEC_CORRECT``, ``SPEC_TARGET``);
- ``produces``  its oracle kind (expected outputs, reference program, checker, LLM judge);
- ``runner``    the runner its paper scores it with (``hackrate``, ``bugfind`` ...);
- ``Params``    a pydantic model of its knobs, with defaults that work.

The runner builds the ``Task`` from the setting, so a method cannot see more than its
paper allows. Register a method with an entry point in the ``tczoo.methods`` group.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from tczoo.llm import Completion, Session
from tczoo.llm.backends import SAMPLE_STRIDE
from tczoo.prompts import Prompts
from tczoo.schema import OracleKind, Provenance, Setting, Task, TestSuite


class NoParams(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Method:
    name: ClassVar[str]
    paper: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    setting: ClassVar[Setting] = Setting.SPEC
    produces: ClassVar[OracleKind] = OracleKind.EXPECTED_OUTPUT
    runner: ClassVar[str] = "hackrate"
    Params: ClassVar[type[BaseModel]] = NoParams

    def __init__(self, **params: Any):
        self.params = self.Params(**params)

    async def generate(self, task: Task, ctx: "Context") -> TestSuite:
        raise NotImplementedError

    @classmethod
    def describe(cls) -> dict[str, Any]:
        return {
            "name": cls.name,
            "paper": cls.paper,
            "summary": cls.summary,
            "setting": cls.setting.value,
            "produces": cls.produces.value,
            "runner": cls.runner,
            "params": {k: f.default for k, f in cls.Params.model_fields.items()},
        }


@dataclass
class Context:
    """Everything a method works with for one task; nothing global."""

    llm: Session
    sandbox: Any  # tczoo.sandbox.Sandbox (typed loosely: the sandbox imports schema)
    prompts: Prompts
    method: str
    seed: int = 0
    params: dict[str, Any] = field(default_factory=dict)
    # Which independent generation of the same task this is (a runner's samples): it
    # shifts every sample index, so identical prompts in different generations get
    # different answers (and different cache entries) instead of one shared answer.
    sample_base: int = 0

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def new_suite(self, task: Task, oracle_kind: OracleKind | None = None) -> TestSuite:
        suite = TestSuite(
            problem_id=task.problem_id,
            provenance=Provenance(
                method=self.method, model=self.llm.model, params=self.params, seed=self.seed
            ),
        )
        if oracle_kind is not None:
            suite.oracle.kind = oracle_kind
        return suite

    async def ask(
        self,
        suite: TestSuite,
        template: str,
        *,
        n: int = 1,
        first_sample: int = 0,
        item: str = "",
        temperature: float | None = None,
        max_tokens: int | None = None,
        response_format: dict[str, Any] | bool | None = None,
        **variables,
    ) -> list[Completion]:
        """Render ``template``, sample ``n`` answers; failed calls are recorded on ``suite``
        and left out, so callers only see answers they can parse. Each answer's
        ``sample`` says which of the n it was. ``first_sample`` offsets the sample
        indices, so asking the same prompt again yields new answers, not cached ones.
        ``temperature``/``max_tokens`` override the method's params for this call (PSEUDO
        samples its candidate solutions hotter than the rest). ``response_format``
        defaults to the template's ``answer_schema`` block (see ``tczoo.prompts``);
        ``False`` asks without one, a dict replaces it."""
        messages = self.prompts.render(template, **variables)
        kwargs = self._llm_kwargs()
        if response_format is None:
            response_format = self.prompts.response_format(template, **variables)
        if response_format:
            kwargs["response_format"] = response_format
        if temperature is not None:
            kwargs["temperature"] = temperature
        if max_tokens is not None:
            kwargs["max_tokens"] = max_tokens
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

    def _llm_kwargs(self) -> dict[str, Any]:
        keys = ("temperature", "max_tokens")
        return {k: self.params[k] for k in keys if self.params.get(k) is not None}

    def finish(self, suite: TestSuite) -> TestSuite:
        """Stamp the LLM usage and exchange keys of this task onto the suite."""
        suite.provenance.usage = self.llm.usage
        suite.provenance.exchanges = list(self.llm.keys)
        return suite

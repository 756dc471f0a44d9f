"""One unit's generation: a method on its task, recorded; the same wherever it runs.

The run loop (``tczoo.run``) calls ``generate_unit`` for a local run; on a Ray cluster a
node does (``tczoo.distributed.node``), given a ``GenerationRequest`` by value and
answering with a ``GenerationResult``. This module sits below both, so neither imports
the other, and a record does not depend on where it was made.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tczoo.errors import InfrastructureFailure, RunFailed, UserError
from tczoo.llm import LLMClient, LLMSettings, Session
from tczoo.method import Context
from tczoo.schema import GenerationRecord, Provenance, Task, TestSuite
from tczoo.templates import Prompts

if TYPE_CHECKING:
    from tczoo.method import Method
    from tczoo.sandbox import Sandbox


@dataclass
class GenerationRequest:
    """One unit's generation, as a node gets it: everything ``generate_unit`` needs, by
    value (the method is rebuilt from its name and ``--params``)."""

    method: str
    params: dict[str, Any]
    task: Task
    problem_id: str
    task_key: str
    sample: int
    attempt: int
    model: str
    settings: LLMSettings


@dataclass
class GenerationResult:
    """What a node sends back: the record, the unit's LLM exchanges (the driver writes
    both), or the ``UserError`` the method raised (the driver raises it again)."""

    record: GenerationRecord | None
    exchanges: list[dict] = field(default_factory=list)
    user_error: str | None = None
    host: str = ""


async def generate_unit(method: "Method", task: Task, *, name: str, problem_id: str, task_key: str, sample: int,
                        attempt: int, client: LLMClient, sandbox: "Sandbox", prompts: Prompts) -> GenerationRecord:
    """``method`` (registered as ``name``) on ``task``: its suite with the LLM usage and
    exchange keys stamped on, as a ``GenerationRecord``. A method crash is recorded as
    the unit's failure; a ``UserError`` or ``RunFailed`` is raised (the run cannot go
    on, and it is not the method's fault)."""
    ctx = Context(
        llm=Session(client),
        sandbox=sandbox,
        prompts=prompts,
        method=name,
        seed=task.seed,
        params=method.params.model_dump(),
        sample_base=sample,
        produces=type(method).produces,
    )
    started = time.monotonic()
    error = None
    try:
        suite = await method.generate(task, ctx)
    except (RunFailed, UserError):
        raise
    except InfrastructureFailure as exc:  # the sandbox failed under the method: not its fault, worth another try
        error = f"InfrastructureFailure: {exc}"[-4000:]
        suite = TestSuite(
            problem_id=problem_id,
            provenance=Provenance(method=name, model=client.model, seed=ctx.seed),
        )
        suite.fail("sandbox", "sandbox_error", str(exc)[:500])
    except Exception as exc:  # a method bug costs that unit, not the run
        error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}"[-4000:]
        suite = TestSuite(
            problem_id=problem_id,
            provenance=Provenance(method=name, model=client.model, seed=ctx.seed),
        )
        suite.fail("method", "crash", error)
    ctx.finish(suite)
    return GenerationRecord(
        method=name,
        model=client.model,
        problem_id=problem_id,
        task=task_key,
        suite=suite,
        seconds=round(time.monotonic() - started, 3),
        error=error,
        attempt=attempt,
    )

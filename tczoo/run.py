"""``tczoo run``: every method × problem × task, generated, recorded, scored; resumable.

The loop is deliberately plain: for each (method, problem, task) not yet in the store,
generate a TestSuite, append it, score it, append the score. Generation runs several
tasks concurrently (API models are I/O bound; the in-process local model serialises
itself), scoring runs in worker threads over the shared sandbox.
"""

from __future__ import annotations

import asyncio
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from tczoo import __version__
from tczoo.benchmarks import load_benchmark
from tczoo.llm import LLMClient, LLMSettings, Session
from tczoo.method import Context
from tczoo.templates import Prompts
from tczoo.registry import get_method, get_runner
from tczoo.runner import Runner, TaskSpec
from tczoo.schema import GenerationRecord, Problem, Provenance, RunConfig, ScoreRecord, TestSuite
from tczoo.store import RunStore

ProgressFn = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass
class Unit:
    method_name: str
    method: Any
    runner: Runner
    problem: Problem
    spec: TaskSpec


def build_units(config: RunConfig, problems: list[Problem], sandbox) -> list[Unit]:
    units = []
    for name in config.methods:
        cls = get_method(name)
        method = cls(**config.params.get(name, {}))
        runner_cls = get_runner(config.runner or cls.runner)
        runner = runner_cls(sandbox, **config.params.get(f"runner:{runner_cls.name}", {}))
        for problem in problems:
            for spec in runner.tasks(problem, cls, samples=config.samples, seed=config.seed):
                units.append(Unit(name, method, runner, problem, spec))
    return units


async def _generate(unit: Unit, client: LLMClient, sandbox, prompts: Prompts) -> GenerationRecord:
    session = Session(client)
    ctx = Context(
        llm=session,
        sandbox=sandbox,
        prompts=prompts,
        method=unit.method_name,
        seed=unit.spec.task.seed,
        params=unit.method.params.model_dump(),
        sample_base=unit.spec.sample,
    )
    started = time.monotonic()
    error = None
    try:
        suite = await unit.method.generate(unit.spec.task, ctx)
    except Exception as exc:  # a method bug costs that task, not the run
        error = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}"[-4000:]
        suite = TestSuite(
            problem_id=unit.problem.id,
            provenance=Provenance(method=unit.method_name, model=client.model, seed=ctx.seed),
        )
        suite.fail("method", "crash", error)
    ctx.finish(suite)
    return GenerationRecord(
        method=unit.method_name,
        model=client.model,
        problem_id=unit.problem.id,
        task=unit.spec.key,
        suite=suite,
        seconds=round(time.monotonic() - started, 3),
        error=error,
    )


def score_unit(unit: Unit, suite: TestSuite, model: str) -> ScoreRecord:
    """Score one suite; a scoring crash becomes a record with ``detail["error"]`` (the
    report counts it apart) instead of taking the run down."""
    try:
        record = unit.runner.score(unit.problem, unit.spec, suite)
    except Exception as exc:
        record = ScoreRecord(
            runner=unit.runner.name,
            method=unit.method_name,
            model=model,
            problem_id=unit.problem.id,
            detail={"error": f"{type(exc).__name__}: {exc}"[:2000]},
        )
    record.method = unit.method_name
    record.model = model
    record.task = unit.spec.key
    return record


async def run(
    config: RunConfig,
    out: Path,
    *,
    settings: LLMSettings | None = None,
    sandbox=None,
    progress: ProgressFn | None = None,
    concurrency: int = 4,
) -> RunStore:
    from tczoo.sandbox import Sandbox

    config.tczoo_version = __version__
    store = RunStore.open(out, config)
    own_sandbox = sandbox is None
    sandbox = sandbox or Sandbox()
    try:
        problems = load_benchmark(config.benchmark, config.problems, sandbox=sandbox)
        units = build_units(config, problems, sandbox)
        done = {(g.method, g.problem_id, g.task): g for g in store.generations()}
        scored = {(s.method, s.problem_id, s.task) for s in store.scores()}
        client = LLMClient(config.model, settings, on_exchange=store.log_exchange)
        prompts = Prompts()
        total = len(units)
        finished = 0
        if progress:
            progress("run", 0, total)
        gate = asyncio.Semaphore(max(1, concurrency))

        async def one(unit: Unit) -> None:
            nonlocal finished
            key = (unit.method_name, unit.problem.id, unit.spec.key)
            async with gate:
                record = done.get(key)
                if record is None:
                    record = await _generate(unit, client, sandbox, prompts)
                    store.add_generation(record)
                if key not in scored:
                    score = await asyncio.to_thread(score_unit, unit, record.suite, record.model)
                    store.add_score(score)
            finished += 1
            if progress:
                progress("run", finished, total)

        await asyncio.gather(*(one(u) for u in units))
    finally:
        if own_sandbox:
            sandbox.close()
    return store


def rescore(out: Path, *, sandbox=None, progress: ProgressFn | None = None) -> list[ScoreRecord]:
    """Score every recorded generation again (no LLM calls) and replace scores.jsonl."""
    from tczoo.sandbox import Sandbox

    store = RunStore.open(out)
    config = store.config
    own_sandbox = sandbox is None
    sandbox = sandbox or Sandbox()
    try:
        problems = load_benchmark(config.benchmark, config.problems, sandbox=sandbox)
        units = {(u.method_name, u.problem.id, u.spec.key): u for u in build_units(config, problems, sandbox)}
        records = []
        gens = store.generations()
        for i, g in enumerate(gens):
            unit = units.get((g.method, g.problem_id, g.task))
            if unit is None:
                continue
            records.append(score_unit(unit, g.suite, g.model))
            if progress:
                progress("score", i + 1, len(gens))
        store.replace_scores(records)
        return records
    finally:
        if own_sandbox:
            sandbox.close()

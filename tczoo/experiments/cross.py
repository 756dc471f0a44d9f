"""Cross-scoring: every cell's suites scored by every other runner that applies.

No paper does this: CRUX is scored by HackRate, STAB by ASR, HarnessLLM by GI/ITR/TBR.
Because every method ends in a ``TestSuite``, any runner can score any method's suites
where that means something — do STAB's efficiency tests also hack wrong codes, do
CRUX's tests expose slow solutions, how do harness tests fare on HackRate?

How a suite meets a runner it was not made for, using only the runner interface
(``Runner.tasks`` / ``score`` / ``summarize`` / ``cannot_score``):

- *The task.* Scoring generates nothing, so the runner is asked for its tasks as if
  the method were spec-only (``scoring_view``): it need not hand the method code, and a
  runner that still has no task for it says why (``Runner.tasks`` raising ValueError,
  e.g. the verdict runner wants a program under test), which is reported, never
  guessed around. Of the runner's tasks, the first sample of each distinct task
  context is kept (bug finding: one per wrong code; best-of-N: one per candidate). A
  suite written against one program under test (HarnessLLM's ``wrong`` context) is
  scored on the task of that program only, where the runner's tasks name programs.
- *The oracle.* A suite whose oracle cannot judge an output (inputs only: STAB,
  EvalPerf; an LLM judge) is given the problem's reference solution as its oracle (the
  accepted solution bug finding uses as ground truth, ``ground_truth_index``), so a
  runner that needs expected outputs gets them from there; the record says so.
- *The suite.* ``Runner.cannot_score(suite)`` may refuse a suite (no tests; no verdict).

Records go to each cell's ``cross_scores.jsonl`` (``RunStore.add_cross_score``), with
``detail["cross"]`` = {unit, spec, oracle}; a resumed comparison scores only what is
missing. A scoring crash is a record with ``error`` set, counted in the report.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

from tczoo.errors import InfrastructureFailure, UserError
from tczoo.execution import can_check, ground_truth_index, score_suite
from tczoo.failures import generation_failure
from tczoo.paths import write_atomic
from tczoo.run import RunProgress, build_units
from tczoo.runner import TaskSpec
from tczoo.sandbox import Sandbox
from tczoo.schema import Oracle, OracleKind, Problem, ScoreRecord, Setting, TestSuite

# task-context keys that number independent samples of one task, not different tasks
SAMPLE_KEYS = ("response", "responses", "run", "sample")


@dataclass
class CrossSession:
    scored: int = 0
    reused: int = 0  # already scored by an earlier session
    refused: Counter = field(default_factory=Counter)  # (model, method, runner, reason) -> suites
    not_applicable: dict = field(default_factory=dict)  # (model, method, runner) -> why


def scoring_view(method_cls: type) -> Any:
    """The method as a runner's ``tasks`` sees it when its suites are only scored: its
    name, oracle and first-k, and the spec-only setting (nothing is handed to it)."""
    return SimpleNamespace(name=method_cls.name, setting=Setting.SPEC, produces=method_cls.produces,
                           first_k=getattr(method_cls, "first_k", None), runner=method_cls.runner)


def with_reference_oracle(suite: TestSuite, problem: Problem) -> tuple[TestSuite, str]:
    """``suite`` with an oracle that can judge outputs, and how it got it ("own" or
    "reference:NAME"; "none" when the problem has no accepted solution)."""
    if can_check(suite.oracle):
        return suite, "own"
    index = ground_truth_index(problem)
    if index is None:
        return suite, "none"
    reference = problem.solutions[index]
    oracle = Oracle(kind=OracleKind.REFERENCE_PROGRAM, program=reference)
    return suite.model_copy(update={"oracle": oracle}), f"reference:{reference.name or index}"


def _context_key(spec: TaskSpec) -> str:
    return json.dumps({k: v for k, v in spec.context.items() if k not in SAMPLE_KEYS}, sort_keys=True, default=str)


def distinct_tasks(specs: list[TaskSpec]) -> list[TaskSpec]:
    """The first sample of each distinct task context, in the runner's order."""
    seen: dict[str, TaskSpec] = {}
    for spec in specs:
        seen.setdefault(_context_key(spec), spec)
    return list(seen.values())


def runner_tasks(runner, method_cls: type, problems: list[Problem], seed: int) -> tuple[dict[str, list[TaskSpec]], str | None]:
    """The runner's scoring tasks per problem for this method's suites, or why it has none."""
    view = scoring_view(method_cls)
    out: dict[str, list[TaskSpec]] = {}
    why = None
    for problem in problems:
        try:
            specs = runner.tasks(problem, view, samples=1, seed=seed)
        except ValueError as exc:
            why = why or str(exc)
            continue
        if specs:
            out[problem.id] = distinct_tasks(specs)
    if not out:
        return out, why or f"runner {runner.name} has no task on these problems"
    return out, None


def for_unit(specs: list[TaskSpec], own_context: dict[str, Any]) -> list[TaskSpec]:
    """The runner's tasks a suite is scored on: those of the program it was written
    against, when both name one; else all."""
    if "wrong" in own_context:
        same = [s for s in specs if s.context.get("wrong") == own_context["wrong"]]
        if same or any("wrong" in s.context for s in specs):
            return same
    return specs


def cross_score(spec, out: Path, cells: list, problems: list[Problem], sandbox: Sandbox,
                progress: Callable[[RunProgress], None] | None = None) -> CrossSession:
    """Score every cell of the grid ``spec`` in ``out`` (``cells``: its cells,
    ``tczoo.experiments.grid.cells``) that holds a run with each runner of ``spec.cross``
    other than the cell's own. A cell folder someone replaced by a link is refused, as
    the grid refuses it (``tczoo.safeio.write.subdir``)."""
    from tczoo.safeio.write import UnsafeFile, subdir
    from tczoo.registry import get_method, get_runner
    from tczoo.store import RunStore

    report = progress or (lambda p: None)
    session = CrossSession()
    by_id = {p.id: p for p in problems}
    grid = [c for c in cells if (c.dir / "config.json").is_file()]
    jobs = sum(1 for c in grid for r in spec.cross if r != c.runner)
    done_jobs = 0
    for cell in grid:
        method_cls = get_method(cell.method)
        own_runner = get_runner(cell.runner)
        try:
            subdir(out, *cell.dir.relative_to(out).parts, create=False)
        except UnsafeFile as exc:
            raise UserError(str(exc)) from None
        store = RunStore.open(cell.dir, write=True)
        try:
            units = {u.key: u for u in build_units(cell.config, problems, sandbox)}
            gens = [g for g in store.generations() if g.problem_id in by_id
                    and generation_failure(g, scores_empty=own_runner.scores_empty_suites) is None]
            have = {(s.runner, s.method, s.problem_id, s.task) for s in store.cross_scores()}
            for name in spec.cross:
                if name == cell.runner:
                    continue
                done_jobs += 1
                report(RunProgress("score", done=done_jobs, total=jobs, scope=f"cross-scoring {cell.label} with {name}"))
                runner = get_runner(name)(sandbox, **spec.params.get(f"runner:{name}", {}))
                scored_problems = list({g.problem_id: by_id[g.problem_id] for g in gens}.values())
                tasks, why = runner_tasks(runner, method_cls, scored_problems or problems, spec.seed)
                if why:
                    session.not_applicable[(cell.model, cell.method, name)] = why
                    continue
                for g in gens:
                    problem = by_id[g.problem_id]
                    suite, oracle = with_reference_oracle(g.suite, problem)
                    refused = runner.cannot_score(suite)
                    if refused:
                        session.refused[(cell.model, cell.method, name, refused)] += 1
                        continue
                    unit = units.get((g.method, g.problem_id, g.task))
                    for task in for_unit(tasks.get(g.problem_id, []), unit.spec.context if unit else {}):
                        key = f"{g.task}|{task.key}" if task.key else g.task
                        if (name, g.method, g.problem_id, key) in have:
                            session.reused += 1
                            continue
                        store.add_cross_score(_score(runner, problem, task, suite, g, key, oracle))
                        session.scored += 1
            _write_refusals(cell.dir, cell, session)
        finally:
            store.close()
    return session


def _write_refusals(folder: Path, cell, session: CrossSession) -> None:
    """Why each runner did not score this cell's suites (read by the report)."""
    reasons: dict[str, str] = {}
    for (model, method, runner), why in session.not_applicable.items():
        if (model, method) == (cell.model, cell.method):
            reasons[runner] = why
    for (model, method, runner, why), n in session.refused.items():
        if (model, method) == (cell.model, cell.method):
            reasons.setdefault(runner, f"{why} ({n} suite(s))")
    write_atomic(folder / "cross_refused.json", json.dumps(reasons, indent=1, ensure_ascii=False), mode=0o600)


def _score(runner, problem: Problem, task: TaskSpec, suite: TestSuite, g, key: str, oracle: str) -> ScoreRecord:
    try:
        record = score_suite(runner, problem, task, suite)
    except Exception as exc:  # a scoring crash costs this record, not the comparison
        record = ScoreRecord(runner=runner.name, method=g.method, model=g.model, problem_id=problem.id,
                             error=f"{type(exc).__name__}: {exc}"[:2000],
                             infrastructure=isinstance(exc, InfrastructureFailure))
    record.method, record.model, record.task, record.attempt = g.method, g.model, key, g.attempt
    record.detail["cross"] = {"unit": g.task, "spec": task.key, "oracle": oracle}
    return record

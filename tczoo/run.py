"""``tczoo run``: every method × problem × task, generated, recorded, scored; resumable.

The loop is deliberately plain: for each (method, problem, task) unit not yet done,
generate a TestSuite, append it, score it, append the score. Generation runs several
units concurrently (API models are I/O bound; the in-process local model serialises
itself), scoring runs in worker threads over the shared sandbox.

Before anything is written, everything the user gave is checked: method and runner
names, ``--params`` (each method's and runner's own pydantic model), the benchmark and
its problem ids, what each runner can hand each method. Only then is the run directory
opened (locked against a second writer; a resumed run must ask for the same
experiment) and a provenance line appended.

A unit is done when its latest generation succeeded and was scored. A failed
generation (``tczoo.failures``) is generated again when its failure was transient, or
always with ``retry_failed``; the new record is appended with the next ``attempt`` and
the old one stays, superseded. When the LLM client halts (the provider failed
``max_consecutive_errors`` times in a row, or the cost limit is reached) no new unit is
started; the units in flight finish and are recorded, and the run ends with the cause.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from pydantic import ValidationError

from tczoo.distributed import Cluster, ExecutionOptions
from tczoo.errors import InfrastructureFailure, RunFailed, UserError
from tczoo.failures import generation_failure, transient
from tczoo.generation import GenerationRequest, generate_unit
from tczoo.llm import LLMClient, LLMSettings, ProviderError
from tczoo.llm.client import LIVE_SCOPE
from tczoo.method import SAMPLING_KNOBS, Method
from tczoo.registry import get_method, get_runner
from tczoo.runner import Runner, TaskSpec
from tczoo.schema import REPEAT_STRIDE, GenerationRecord, Problem, RunConfig, ScoreRecord, TestSuite, repeat_key
from tczoo.store import RunStore
from tczoo.templates import Prompts

if TYPE_CHECKING:
    from tczoo.llm.client import Ledger
    from tczoo.llm.interface import Backend
    from tczoo.sandbox import Sandbox


class ParamsError(UserError, ValueError):
    """``--params`` that do not fit the methods or runners they name."""


@dataclass
class RunProgress:
    """What the run loop reports: the stage, units done of the total, failures so far,
    tokens and cost spent in this session."""

    stage: str  # "load", "run", "score"
    done: int = 0
    total: int = 0
    failed: int = 0
    tokens: int = 0
    cost: float = 0.0
    note: str = ""
    scope: str = ""  # which part of a larger job this is (a grid's cell), shown before the counts
    # Live, from the LLM client's meter (``tokens`` counts the answer tokens of calls in
    # flight as they are decoded, where the backend reports them): answer tokens per
    # second since the first call, and the seconds left by the work left (``RunPace``).
    tok_s: float | None = None
    eta_s: float | None = None


ProgressFn = Callable[[RunProgress], None]
log = logging.getLogger("tczoo.run")
TICK_S = 1.0  # how often the run loop reports while units are in flight (tokens move between events)
EXCHANGE_TICK_S = 0.1  # at most this often per answer: a snapshot of the calls in flight is not free
PROGRESS_FILE_S = 2.0  # how often it rewrites the run directory's progress.json


class RunPace:
    """Tokens per second and the time left, from the work left.

    The work is answer tokens. A unit in flight may still decode what its calls in flight
    were asked for (``max_tokens`` less what they decoded) — or, once some units have
    finished, as many tokens as a finished unit took on average, less what it decoded,
    whichever is more; a unit not started costs that average (before any finished: what
    the units in flight were asked for so far, on average). The time left is that work
    at the run's pace so far (answer tokens decoded per second since the first call).

    A unit can ask for more than was foreseen (a second call of CRUX's top-up): the
    estimate then rises. The ETA shown never grows by more than the time elapsed since
    the last one — it stops counting down and rises at most with the clock, until the
    work left and the pace bring it down again — so it never jumps the way an estimate
    from units done alone does (the issue's 23:44 -> 39:44)."""

    def __init__(self, default_asked: int):
        self.default_asked = default_asked
        self.finished: list[int] = []  # answer tokens of each unit generated in this session
        self.shown: float | None = None
        self.shown_at = 0.0

    def unit_done(self, tokens: int) -> None:
        self.finished.append(tokens)

    def eta(self, live: dict, running: list, not_started: int, now: float) -> float | None:
        seconds, decoded = live.get("seconds"), live.get("decoded", 0)
        if not seconds or decoded <= 0:
            return None
        scopes = live.get("scopes", {})
        zero = {"spent": 0, "open": 0}
        mean = sum(self.finished) / len(self.finished) if self.finished else None
        left = 0.0
        asked = []
        for key in running:
            unit = scopes.get(key, zero)
            asked.append(unit["spent"] + unit["open"])
            left += unit["open"] if mean is None else max(unit["open"], mean - unit["spent"])
        per_unit = mean if mean is not None else (sum(asked) / len(asked) if asked else self.default_asked)
        left += not_started * per_unit
        raw = left / (decoded / seconds)
        if self.shown is not None:
            raw = min(raw, self.shown + max(0.0, now - self.shown_at))
        self.shown, self.shown_at = raw, now
        return raw


@dataclass
class RunOptions:
    """How a run executes, as opposed to what it computes (``RunConfig``, which is
    recorded and must match on resume): the LLM client's settings, how many units are
    generated at once, whether failed units are generated again, and where programs
    run. ``tczoo run``, ``tczoo compare`` and ``tczoo reproduce`` build one from their
    command lines and pass it through unchanged, so an execution option is added here
    once and reaches every command."""

    settings: LLMSettings = field(default_factory=LLMSettings)
    concurrency: int = 4
    retry_failed: bool = False
    execution: ExecutionOptions = field(default_factory=ExecutionOptions)
    given: frozenset[str] = frozenset()  # sampling options the user set (--temperature, --max-tokens)

    def open_cluster(self) -> Cluster:
        """Where the work runs, as ``execution`` asks (the one place the executor is
        chosen): this machine's worker pool or a Ray cluster. The caller closes it."""
        from tczoo.distributed import open_cluster

        return open_cluster(self.execution)

    def recorded(self) -> dict[str, Any]:
        """What of these options changes the answers, for ``RunConfig.llm`` (a resumed
        run must ask for the same)."""
        s = self.settings
        return {"temperature": s.temperature, "max_tokens": s.max_tokens, "api_base": s.api_base}


@dataclass
class Unit:
    method_name: str
    method: Method
    runner: Runner
    problem: Problem
    spec: TaskSpec
    strict_inputs: bool = False  # RunConfig.strict_inputs: the input screen's named option

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.method_name, self.problem.id, self.spec.key)


@dataclass
class RunSession:
    """What one ``run()`` call did (``RunStore.session`` after it returns)."""

    halted: ProviderError | None = None  # why generation stopped early, if it did
    generated: int = 0  # units generated in this session
    skipped: int = 0  # units not started because the client halted
    warnings: list[str] = field(default_factory=list)


def paper_sampling_notes(config: RunConfig, options: RunOptions) -> list[str]:
    """One line per method whose paper fixes a sampling setting the user gave on the
    command line: the paper's value wins (the methods' defaults are the papers'
    settings), and the line says how to override it for that method."""
    notes = []
    for name in config.methods:
        fields = get_method(name).Params.model_fields
        own = config.params.get(name, {}) if isinstance(config.params, dict) else {}
        for knob in sorted(options.given & set(SAMPLING_KNOBS)):
            fixed = fields[knob].default if knob in fields else None
            if fixed is None or knob in own:
                continue
            value = getattr(options.settings, knob)
            notes.append(f"{name}: --{knob.replace('_', '-')} {value} does not apply, its paper fixes "
                         f"{knob} = {fixed}; to change it: --params '{{\"{name}\": {{\"{knob}\": {value}}}}}'")
    return notes


# --------------------------------------------------------------------------- validation


def _error_text(exc: ValidationError, params: type | None = None, key: str = "") -> str:
    """What is wrong with ``--params`` for one method or runner, in one line: an unknown
    parameter is named with the closest valid ones and the whole list."""
    import difflib

    parts = []
    valid = list(getattr(params, "model_fields", {}) or {})
    for e in exc.errors():
        where = ".".join(str(x) for x in e.get("loc", ())) or "value"
        if e.get("type") == "extra_forbidden" and valid:
            close = difflib.get_close_matches(where, valid, n=2, cutoff=0.6)
            hint = f"did you mean {' or '.join(close)}? " if close else ""
            kind = "runners" if key.startswith("runner:") else "methods"
            parts.append(f"unknown parameter {where!r} ({hint}valid: {', '.join(valid)}; "
                         f"tczoo {kind} {key.removeprefix('runner:')} explains them)")
        else:
            parts.append(f"{where}: {e.get('msg', 'invalid')}")
    return "; ".join(parts)


# The (methods, runner, --params) check_params accepted in this process: the command
# line checks them before anything is loaded, the run and its units rely on that check
# (tczoo run asked for it three times). The check depends on nothing else.
_CHECKED: set[str] = set()


def check_params(config: RunConfig) -> None:
    """``--params`` keys name a method of the run or ``runner:NAME`` of a runner it
    uses, and each value is an object its class accepts. Checked once per process for
    the same methods, runner and params."""
    key = json.dumps([config.methods, config.runner, config.params], sort_keys=True, default=repr)
    if key in _CHECKED:
        return
    _check_params(config)
    _CHECKED.add(key)


def _check_params(config: RunConfig) -> None:
    if not isinstance(config.params, dict):
        raise ParamsError('--params must be a JSON object, e.g. {"crux": {"max_rounds": 3}}')
    used_runners = {config.runner or get_method(m).runner for m in config.methods}
    for key, value in config.params.items():
        if key.startswith("runner:"):
            if key[7:] not in used_runners:
                raise ParamsError(f"--params names {key!r}, but this run scores with "
                                  f"{', '.join(sorted('runner:' + r for r in used_runners))}")
        elif key not in config.methods:
            raise ParamsError(f"--params names {key!r}, which is not a method of this run "
                              f"({', '.join(config.methods)}); runner parameters go under 'runner:NAME'")
        if not isinstance(value, dict):
            raise ParamsError(f"--params: the value for {key!r} must be an object of parameters, "
                              f"not {type(value).__name__} ({value!r:.60})")
        check_param_values(key, value)


def check_param_values(key: str, value: dict) -> None:
    """``--params`` for one method (``crux``) or runner (``runner:hackrate``), checked
    against its ``Params`` model -- cheap, so done before any benchmark is loaded."""
    params = get_runner(key[7:]).Params if key.startswith("runner:") else get_method(key).Params
    try:
        params(**value)
    except ValidationError as exc:
        raise ParamsError(f"--params for {key}: {_error_text(exc, params, key)}") from None


def build_units(config: RunConfig, problems: list[Problem], sandbox: "Sandbox | None" = None) -> list[Unit]:
    """Every (method, problem, task) unit of ``config``; each runner is built on
    ``sandbox`` (None: runners that only list tasks, as a grid's unit count does)."""
    check_params(config)
    units = []
    for name in config.methods:
        cls = get_method(name)
        try:
            method = cls(**config.params.get(name, {}))
        except ValidationError as exc:
            raise ParamsError(f"--params for {name}: {_error_text(exc, cls.Params, name)}") from None
        runner_cls = get_runner(config.runner or cls.runner)
        try:
            runner = runner_cls(sandbox, **config.params.get(f"runner:{runner_cls.name}", {}))
        except ValidationError as exc:
            raise ParamsError(f"--params for runner:{runner_cls.name}: "
                              f"{_error_text(exc, runner_cls.Params, 'runner:' + runner_cls.name)}") from None
        for problem in problems:
            if problem.entry_point and not getattr(cls, "functional", False):
                raise UserError(function_level_refusal(name, problem))
            if not problem.entry_point and not getattr(cls, "stdin", True):
                raise UserError(f"method {name} works on function-level problems only; {problem.id} is a stdin "
                                f"problem (no entry point): pick function-level problems (humaneval, ...)")
            try:
                specs = runner.tasks(problem, cls, samples=config.samples, seed=config.seed)
            except ValidationError:
                raise
            except ValueError as exc:  # a runner that cannot serve this method (e.g. no program under test)
                raise UserError(f"method {name} with runner {runner_cls.name}: {exc}") from None
            for spec in repeated(specs, config.repeats):
                units.append(Unit(name, method, runner, problem, spec, strict_inputs=config.strict_inputs))
    return units


def repeated(specs: list[TaskSpec], repeats: int) -> list[TaskSpec]:
    """``specs`` ``repeats`` times (--repeats): repeat r of a task has its own key, sample
    index and task seed, so each is generated, cached and recorded on its own."""
    out = list(specs)
    for r in range(1, repeats):
        for spec in specs:
            task = spec.task.model_copy(update={"seed": spec.task.seed + r * REPEAT_STRIDE}) \
                if spec.task is not None else None
            out.append(TaskSpec(key=repeat_key(spec.key, r), task=task, sample=spec.sample + r * REPEAT_STRIDE,
                                context=dict(spec.context)))
    return out


def function_level_refusal(method: str, problem: Problem) -> str:
    """Why ``method`` cannot run on the function-level ``problem``, in one line."""
    from tczoo.registry import describe_methods

    able = [m["name"] for m in describe_methods() if m.get("functional")]
    return (f"method {method} writes stdin tests and has no function-level mode; {problem.id} is a "
            f"function-level problem (entry point {problem.entry_point}): pick problems without one, or a "
            f"method that has it ({', '.join(able) or 'none installed'})")


# --------------------------------------------------------------------------- one unit


async def _generate(unit: Unit, client: LLMClient, sandbox: "Sandbox", prompts: Prompts,
                    attempt: int) -> GenerationRecord:
    return await generate_unit(unit.method, unit.spec.task, name=unit.method_name, problem_id=unit.problem.id,
                               task_key=unit.spec.key, sample=unit.spec.sample, attempt=attempt, client=client,
                               sandbox=sandbox, prompts=prompts)


async def _generate_remote(cluster: Cluster, ledger: "Ledger | None", unit: Unit, config: RunConfig,
                           settings: LLMSettings, client: LLMClient, store: RunStore,
                           attempt: int) -> GenerationRecord:
    """The unit generated where the cluster generates (a node); its exchanges and record
    are written here, on the driver, once it is done (a node lost mid-unit leaves
    nothing behind: the unit runs again elsewhere)."""
    request = GenerationRequest(method=unit.method_name, params=config.params.get(unit.method_name, {}),
                                task=unit.spec.task, problem_id=unit.problem.id, task_key=unit.spec.key,
                                sample=unit.spec.sample, attempt=attempt, model=config.model, settings=settings)
    result = await cluster.generate(request, ledger)
    for exchange in result.exchanges:
        store.log_exchange(exchange)
    client.absorb(result.exchanges)
    if result.user_error is not None:
        raise UserError(result.user_error)
    if result.record is None:
        raise RuntimeError(f"{type(cluster).__name__} answered a generation without a record")
    return result.record


def score_unit(unit: Unit, suite: TestSuite, model: str, attempt: int = 0) -> ScoreRecord:
    """Score one suite (its inputs screened first: ``tczoo.execution.score_suite``); a
    scoring crash becomes a record with ``error`` set (the report counts it apart)
    instead of taking the run down."""
    from tczoo.execution import score_suite

    try:
        record = score_suite(unit.runner, unit.problem, unit.spec, suite, strict_inputs=unit.strict_inputs)
    except RunFailed:
        raise  # the machines to score on are gone: nothing about this suite is known
    except Exception as exc:
        record = ScoreRecord(
            runner=unit.runner.name,
            method=unit.method_name,
            model=model,
            problem_id=unit.problem.id,
            error=f"{type(exc).__name__}: {exc}"[:2000],
            # the sandbox failed, not the programs: `tczoo score` tries again
            infrastructure=isinstance(exc, InfrastructureFailure),
        )
    record.method = unit.method_name
    record.model = model
    record.task = unit.spec.key
    record.attempt = attempt
    return record


def _spent(store: RunStore) -> float:
    """USD this run already spent on provider calls (earlier sessions)."""
    return sum(float(e.get("cost_usd") or 0.0) for e in store.exchanges() if e.get("ok") and not e.get("cached"))


# --------------------------------------------------------------------------- the loop


async def run(
    config: RunConfig,
    out: Path,
    options: RunOptions | None = None,
    *,
    cluster: Cluster | None = None,
    problems: list[Problem] | None = None,
    progress: ProgressFn | None = None,
    backend: "Backend | None" = None,
) -> RunStore:
    """Run ``config`` into the directory ``out`` as ``options`` say (the LLM client's
    settings, concurrency, retries, where the work runs) and return the store (closed
    for writing; ``store.session`` says what this call did).

    ``cluster``: where the work runs (``tczoo.distributed``), when the caller holds one
    (several runs share it, a grid's cells) and closes it itself; else one is opened
    from ``options.execution`` and closed at the end. On a remote cluster units
    generate on its nodes; every batch of runs goes wherever its sandbox sends them.
    ``problems``: the benchmark's problems when the caller loaded them already (a grid
    of runs loads them once). ``progress`` is told what the loop is doing. ``backend``:
    what answers instead of the one ``config.model`` names (a test's stand-in model)."""
    from tczoo import __version__
    from tczoo.provenance import collect

    options = options or RunOptions()
    settings = options.settings
    report = progress or (lambda p: None)
    config.tczoo_version = __version__
    for name in config.methods:
        get_method(name)
    if config.runner:
        get_runner(config.runner)
    check_params(config)
    for note in paper_sampling_notes(config, options):
        log.warning(note)
    own_cluster = cluster is None
    if cluster is None:
        if options.execution.executor != "local":
            report(RunProgress("load", note=f"connecting to the {options.execution.describe()}"))
        cluster = options.open_cluster()
    sandbox = cluster.sandbox
    store = None
    try:
        cluster.check_methods(config.methods)
        if problems is None:
            problems = _load(config, sandbox, report)
        if not problems:
            raise UserError(f"benchmark {config.benchmark!r} has no problems")
        units = build_units(config, problems, sandbox)
        if not units:
            raise UserError("no unit to run: no runner task for these methods on these problems")
        # Everything checked: now, and only now, the run directory is written.
        store = RunStore.open(out, config)
        if settings.max_cost is not None:
            settings.spent_before = _spent(store)
        ledger = cluster.ledger(settings)
        client = LLMClient(config.model, settings, on_exchange=store.log_exchange, ledger=ledger, backend=backend)
        store.add_provenance(collect(benchmark=config.benchmark, problems=problems, model=config.model,
                                     identity=client.identity, isolation=sandbox.isolation_level,
                                     executor=cluster.describe(), methods=config.methods,
                                     runners=sorted({u.runner.name for u in units})))
        session = store.session = RunSession(warnings=list(store.warnings) + cluster.warnings)
        generate: Callable[[Unit, int], Awaitable[GenerationRecord]]
        if cluster.remote:
            remote, opened = cluster, store

            async def generate(unit: Unit, attempt: int) -> GenerationRecord:
                return await _generate_remote(remote, ledger, unit, config, settings, client, opened, attempt)
        else:
            prompts = Prompts()

            async def generate(unit: Unit, attempt: int) -> GenerationRecord:
                return await _generate(unit, client, sandbox, prompts, attempt)
        await _loop(units, store, client, generate, report, options.concurrency, options.retry_failed, session)
        sync = getattr(client.ledger, "sync", None)
        if sync is not None:
            sync()  # a node's halt in the last moments of the run
        session.halted = client.halted
        return store
    finally:
        if store is not None:
            store.close()
        if own_cluster:
            cluster.close()


async def _loop(units: list[Unit], store: RunStore, client: LLMClient, generate, report: ProgressFn,
                concurrency: int, retry_failed: bool, result: RunSession) -> None:
    latest = {(g.method, g.problem_id, g.task): g for g in store.generations()}
    scored = {((s.method, s.problem_id, s.task), s.attempt) for s in store.all_scores()}
    state = RunProgress("run", total=len(units))
    pace = RunPace(client.settings.max_tokens)
    running: dict[tuple[str, str, str], None] = {}  # units generating now, in start order

    def tick() -> None:
        live = client.live.snapshot()
        # answers still being decoded count as they grow, not only when their call ends
        state.tokens = client.usage.prompt_tokens + client.usage.completion_tokens + live["in_flight"]
        state.cost = client.usage.cost_usd
        if live["seconds"] and live["decoded"]:
            state.tok_s = live["decoded"] / live["seconds"]
        state.eta_s = pace.eta(live, list(running), len(units) - state.done - len(running), time.monotonic())
        report(RunProgress(**vars(state)))
        if time.monotonic() - written[0] >= PROGRESS_FILE_S:
            write_progress(still_running=True)

    written = [0.0]
    ticked = [0.0]

    def write_progress(still_running: bool) -> None:
        """progress.json in the run directory: what a running run has done and has left
        (``tczoo view`` shows the run folder's JSON files beside its configuration)."""
        written[0] = time.monotonic()
        record = {"running": still_running, "units_done": state.done, "units": state.total, "failed": state.failed,
                  "tokens": state.tokens, "answer_tokens_per_s": None if state.tok_s is None else round(state.tok_s, 2),
                  "eta_s": None if not still_running or state.eta_s is None else round(state.eta_s),
                  "updated": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        try:
            from tczoo.paths import write_atomic

            write_atomic(store.root / "progress.json", json.dumps(record), mode=0o600)
        except OSError as exc:  # a progress note never fails the run
            log.debug("progress.json not written: %s", exc)

    tick()
    logged = client.on_exchange
    if logged is not None:
        def on_exchange(exchange: dict) -> None:
            logged(exchange)
            # tokens and cost move with every answer, not only when a unit ends; a
            # hundred answers a second (released or cached samples) redraw ten times
            if time.monotonic() - ticked[0] >= EXCHANGE_TICK_S:
                ticked[0] = time.monotonic()
                tick()

        client.on_exchange = on_exchange
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(unit: Unit) -> None:
        async with gate:
            record = latest.get(unit.key)
            needs_generation = record is None
            if record is not None:
                failure = generation_failure(record, scores_empty=unit.runner.scores_empty_suites)
                if failure is not None:
                    needs_generation = retry_failed or transient(failure)
            if needs_generation:
                if client.halted is not None:
                    result.skipped += 1
                    return
                attempt = 0 if record is None else record.attempt + 1
                running[unit.key] = None
                scope = LIVE_SCOPE.set(unit.key)  # the client's meter counts this unit's calls under its key
                try:
                    record = await generate(unit, attempt)
                finally:
                    LIVE_SCOPE.reset(scope)
                    running.pop(unit.key, None)
                    pace.unit_done(client.live.snapshot()["scopes"].get(unit.key, {}).get("spent", 0))
                store.add_generation(record)
                result.generated += 1
            failure = generation_failure(record, scores_empty=unit.runner.scores_empty_suites)
            if failure is not None:
                state.failed += 1
            elif (unit.key, record.attempt) not in scored:
                score = await asyncio.to_thread(score_unit, unit, record.suite, record.model, record.attempt)
                store.add_score(score)
            state.done += 1
            tick()

    async def ticking() -> None:
        while True:  # tokens and the ETA move during a call, between the loop's events
            await asyncio.sleep(TICK_S)
            tick()

    ticker = asyncio.create_task(ticking())
    try:
        await asyncio.gather(*(one(u) for u in units))
    finally:
        ticker.cancel()
        write_progress(still_running=False)


def _load(config: RunConfig, sandbox: "Sandbox", report: ProgressFn) -> list[Problem]:
    """The run's problems, reporting as they load (zoo-mini builds golden tests the first time)."""
    from tczoo.benchmarks import load_benchmark

    note = f"loading benchmark {config.benchmark}"
    report(RunProgress("load", note=note))
    return load_benchmark(config.benchmark, config.problems, limit=config.limit, sandbox=sandbox,
                          progress=lambda done, total: report(RunProgress("load", done=done, total=total, note=note)))


def rescore(out: Path, options: RunOptions | None = None, *, cluster: Cluster | None = None,
            progress: ProgressFn | None = None) -> list[ScoreRecord]:
    """Score the latest successful generation of every unit again (no LLM calls) and
    replace scores.jsonl. ``cluster``/``options.execution``: where the runs go (as
    ``run``)."""
    report = progress or (lambda p: None)
    store = RunStore.open(out, write=True)
    own_cluster = cluster is None
    try:
        if cluster is None:
            cluster = (options or RunOptions()).open_cluster()
    except BaseException:
        store.close()
        raise
    sandbox = cluster.sandbox
    try:
        config = store.config
        problems = _load(config, sandbox, report)
        units = {u.key: u for u in build_units(config, problems, sandbox)}
        gens = store.generations()
        records = []
        for i, g in enumerate(gens):
            unit = units.get((g.method, g.problem_id, g.task))
            if unit is not None and generation_failure(g, scores_empty=unit.runner.scores_empty_suites) is None:
                records.append(score_unit(unit, g.suite, g.model, g.attempt))
            report(RunProgress("score", done=i + 1, total=len(gens)))
        store.replace_scores(records)
        return records
    finally:
        store.close()
        if own_cluster:
            cluster.close()

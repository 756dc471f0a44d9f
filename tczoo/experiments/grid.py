"""A grid of runs: every model × method of a comparison, one run directory per cell.

    DIR/grid.json                      the grid asked for (models, methods, benchmark, params ...)
    DIR/grid.jsonl                     one line per cell and session: wall time, units generated, halts
    DIR/<model-slug>/<method>/         an ordinary run directory (tczoo report / view / score work on it)

One run directory per (model, method) rather than per model: a cell's tokens, cost and
wall time are its own, a cell can be added to a grid later without touching the others,
and a cell is resumed, retried or deleted on its own. All cells share one sandbox (its
compile cache), the LLM exchange cache and the runners' timing caches, so a model
answers a prompt once however many cells ask it.

Cells run one after the other (the embedded model serialises itself; API models run
``concurrency`` units at once inside a cell). When a provider stops answering (the
client's circuit breaker), that model's remaining cells are not started; the same
command resumes them.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, Field

from tczoo.errors import UserError
from tczoo.paths import write_atomic
from tczoo.distributed import Cluster
from tczoo.run import RunOptions, RunProgress, build_units, check_param_values, check_params
from tczoo.schema import RunConfig
from tczoo.store import GRID_FILE, is_grid, model_slug  # noqa: F401  (where a grid lies on disk)

LOG_FILE = "grid.jsonl"
SKIPPED_DOWN = "provider_down"  # a cell not started because its model's provider stopped answering


class GridError(UserError, ValueError):
    """A grid that cannot be run as asked (one line, exit 2)."""


class GridSpec(BaseModel):
    """What a comparison computes (recorded in ``grid.json``; a resumed grid must ask for
    the same)."""

    model_config = ConfigDict(extra="forbid")

    methods: list[str]
    models: list[str]
    benchmark: str = "zoo-mini"
    problems: list[str] | None = None
    limit: int | None = None  # the first N problems
    samples: int = 1
    seed: int = 0
    repeats: int = Field(1, ge=1)  # --repeats: every unit this many times (RunConfig.repeats)
    runner: str | None = None  # score every method with this runner instead of its own
    params: dict[str, Any] = Field(default_factory=dict)  # {"crux": {...}, "runner:hackrate": {...}}
    llm: dict[str, Any] = Field(default_factory=dict)  # RunOptions.recorded()
    cross: list[str] = Field(default_factory=list)  # runners that also score every cell's suites
    # a reproduction target's own options ({"analysis": {...}, "build": {...}}), which no cell sees
    target: dict[str, Any] = Field(default_factory=dict)


def is_provider(model: str) -> bool:
    """A LiteLLM provider model (the ones ``--api-base`` applies to)."""
    return not model.startswith(("local/", "scripted:", "replay:"))


@dataclass
class Cell:
    model: str
    method: str
    runner: str
    dir: Path
    config: RunConfig
    units: int = 0

    @property
    def label(self) -> str:
        return f"{self.model} × {self.method}"


def cells(spec: GridSpec, out: Path) -> list[Cell]:
    """The grid's cells in order (model by model, the methods in the order given)."""
    from tczoo.registry import get_method, plugin_sources

    found = []
    for model in spec.models:
        for method in spec.methods:
            runner = spec.runner or get_method(method).runner
            params = {k: v for k, v in spec.params.items() if k in (method, f"runner:{runner}")}
            llm = dict(spec.llm)
            if not is_provider(model):
                llm["api_base"] = None
            config = RunConfig(methods=[method], model=model, benchmark=spec.benchmark, problems=spec.problems,
                               limit=spec.limit, samples=spec.samples, seed=spec.seed, runner=spec.runner, params=params,
                               llm=llm, repeats=spec.repeats, plugins=plugin_sources([method], [runner]))
            found.append(Cell(model, method, runner, out / model_slug(model) / method, config))
    return found


def check_grid(spec: GridSpec) -> None:
    """Names, duplicates and ``params`` keys of a grid, before anything is loaded."""
    from tczoo.registry import get_method, get_runner

    for what, names in (("--methods", spec.methods), ("--models", spec.models)):
        if not names:
            raise GridError(f"{what} names nothing")
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise GridError(f"{what} names {', '.join(dup)} twice")
    for m in spec.methods:
        get_method(m)
    if spec.runner:
        get_runner(spec.runner)
    for r in spec.cross:
        get_runner(r)
    if not isinstance(spec.params, dict):
        raise GridError('--params must be a JSON object, e.g. {"crux": {"max_rounds": 3}}')
    used = {spec.runner or get_method(m).runner for m in spec.methods} | set(spec.cross)
    for key, value in spec.params.items():
        if key.startswith("runner:") and key[7:] not in used:
            raise GridError(f"--params names {key!r}, but this comparison scores with "
                            f"{', '.join(sorted('runner:' + r for r in used))}")
        if not key.startswith("runner:") and key not in spec.methods:
            raise GridError(f"--params names {key!r}, which is not a method of this comparison "
                            f"({', '.join(spec.methods)}); runner parameters go under 'runner:NAME'")
        if not isinstance(value, dict):
            raise GridError(f"--params: the value for {key!r} must be an object of parameters")
        check_param_values(key, value)


def read_spec(out: Path) -> GridSpec | None:
    from tczoo.safeio.read import Refused, read_file

    path = Path(out) / GRID_FILE
    if not path.exists():
        return None
    try:
        return GridSpec.model_validate_json(read_file(path, cap=16 << 20, follow=False))
    except Refused as exc:
        raise GridError(str(exc)) from None
    except (ValueError, RecursionError) as exc:
        raise GridError(f"{path}: not a tczoo grid ({str(exc).splitlines()[0]})") from None


# Fields a grid directory may gain cells along: its cells are independent run directories,
# so a later comparison may add models or methods (reproduction targets of one paper share
# their runs this way); everything else must match.
GROWS = ("methods", "models", "cross")
IGNORED = ("target",)  # read by the reproduction that asks, never by a cell


def _open_grid(spec: GridSpec, out: Path) -> None:
    """Record the grid in ``out`` (refusing a directory that holds a grid with other
    settings, or a run directory). ``grid.json`` keeps every model and method any
    comparison in ``out`` asked for."""
    from tczoo.store import config_diff

    out = Path(out)
    if out.exists() and not out.is_dir():
        raise GridError(f"--out {out} exists and is not a directory")
    if (out / "config.json").is_file():
        raise GridError(f"{out} is a run directory, not a comparison; use another --out")
    old = read_spec(out)
    if old is not None:
        keep = GROWS + IGNORED
        same = {k: v for k, v in spec.model_dump().items() if k not in keep}
        diff = config_diff(old.model_copy(update={k: getattr(spec, k) for k in keep}), spec)  # type: ignore[arg-type]
        if diff or {k: v for k, v in old.model_dump().items() if k not in keep} != same:
            raise GridError(f"{out} holds a comparison with different settings ({'; '.join(diff)}); "
                            "use another --out, or delete it")
        spec = spec.model_copy(update={k: list(dict.fromkeys([*getattr(old, k), *getattr(spec, k)])) for k in GROWS})
    from tczoo.safeio.write import private_dir

    private_dir(out)
    write_atomic(out / GRID_FILE, spec.model_dump_json(indent=2), mode=0o600)


@dataclass
class CellSession:
    cell: Cell
    seconds: float = 0.0
    generated: int = 0
    skipped: int = 0
    halted: str | None = None  # why the client stopped (provider down, cost limit)
    not_started: str | None = None  # why the cell did not run at all
    warnings: list[str] = field(default_factory=list)


@dataclass
class GridSession:
    """What one ``run_grid`` call did."""

    cells: list[CellSession] = field(default_factory=list)
    cross: Any = None  # tczoo.experiments.cross.CrossSession when cross-scoring ran
    down: dict[str, str] = field(default_factory=dict)  # model -> why its provider is considered down

    def stop_reason(self) -> str:
        """One line: which providers stopped answering, and how."""
        return "; ".join(f"{model}: {why}" for model, why in self.down.items()) or next(
            (c.halted for c in self.cells if c.halted), "the provider stopped answering")

    @property
    def halted(self) -> list[CellSession]:
        return [c for c in self.cells if c.halted or c.not_started == SKIPPED_DOWN]


def cell_options(options: RunOptions, model: str) -> RunOptions:
    """The options of one cell: ``--api-base`` reaches provider models only."""
    if is_provider(model):
        return options
    return replace(options, settings=replace(options.settings, api_base=None))


async def run_grid(spec: GridSpec, out: Path, options: RunOptions | None = None, *,
                   progress: Callable[[RunProgress], None] | None = None,
                   cluster: Cluster | None = None) -> GridSession:
    """Run every cell of ``spec`` into ``out`` (resuming what is there), then cross-score
    when ``spec.cross`` names runners. Everything is checked before anything is written.
    Every cell runs on ``cluster`` (a caller's, left open), else on one opened from
    ``options.execution`` for the whole grid."""
    from tczoo.benchmarks import load_benchmark
    from tczoo.run import run

    options = options or RunOptions()
    report = progress or (lambda p: None)
    check_grid(spec)
    own = cluster is None
    cluster = cluster or options.open_cluster()
    sandbox = cluster.sandbox
    try:
        note = f"loading benchmark {spec.benchmark}"
        report(RunProgress("load", note=note))
        problems = load_benchmark(spec.benchmark, spec.problems, limit=spec.limit, sandbox=sandbox,
                                  progress=lambda done, total: report(RunProgress("load", done=done, total=total,
                                                                                  note=note)))
        if not problems:
            raise GridError(f"benchmark {spec.benchmark!r} has no problems")
        grid = cells(spec, out)
        for cell in grid:
            check_params(cell.config)
            try:
                cell.units = len(build_units(cell.config, problems, sandbox))
            except UserError as exc:
                raise GridError(f"{cell.label}: {exc}") from None
        _open_grid(spec, out)
        session = GridSession()
        total = sum(c.units for c in grid)
        base = RunProgress("run", total=total)
        down = session.down
        for i, cell in enumerate(grid, 1):
            done_before, failed_before, tokens_before, cost_before = base.done, base.failed, base.tokens, base.cost
            scope = f"cell {i}/{len(grid)} {cell.label}"
            state = CellSession(cell)
            session.cells.append(state)
            if not cell.units:
                state.not_started = "no task: the runner has none for this method on these problems"
                _log(out, state, time.time())
                continue
            if cell.model in down:
                state.not_started = SKIPPED_DOWN
                base.done += cell.units
                _log(out, state, time.time())
                continue

            def tick(p: RunProgress, scope=scope) -> None:
                if p.stage == "load":
                    report(RunProgress("load", note=p.note, scope=scope))
                    return
                base.done, base.failed = done_before + p.done, failed_before + p.failed
                base.tokens, base.cost = tokens_before + p.tokens, cost_before + p.cost
                report(RunProgress("run", done=base.done, total=total, failed=base.failed, tokens=base.tokens,
                                cost=base.cost, scope=scope))

            started = time.time()
            clock = time.monotonic()
            cell_folder(out, cell)
            store = await run(cell.config, cell.dir, cell_options(options, cell.model), cluster=cluster,
                              problems=problems, progress=tick)
            state.seconds = round(time.monotonic() - clock, 3)
            run_session = store.session
            if run_session is not None:
                state.generated, state.skipped = run_session.generated, run_session.skipped
                state.warnings = list(run_session.warnings)
                if run_session.halted is not None:
                    state.halted = str(run_session.halted)
                    if run_session.halted.reason == "stopped":
                        down[cell.model] = state.halted
            why = _provider_down(store)
            if why:
                down.setdefault(cell.model, why)
            base.done = done_before + cell.units
            _log(out, state, started)
        if spec.cross:
            from tczoo.experiments.cross import cross_score

            session.cross = cross_score(spec, out, grid, problems, sandbox, progress=report)
        return session
    finally:
        if own:
            cluster.close()


def _provider_down(store) -> str | None:
    """Why the provider looks down after a cell: nothing succeeded and every failure was
    a call the provider did not answer (each cell has its own client, so a cell of a
    unit or two never reaches the circuit breaker on its own)."""
    from tczoo.llm.client import PROVIDER_DOWN
    from tczoo.report import analyse

    cells = list(analyse(store).cells.values())
    failures = [k for c in cells for k in c.failures]
    if not cells or any(c.scored for c in cells) or not failures:
        return None
    if all(stage == "llm" and reason in PROVIDER_DOWN for stage, reason in failures):
        return f"every call failed ({', '.join(sorted({r for _, r in failures}))})"
    return None


def _log(out: Path, state: CellSession, started: float) -> None:
    line = {"model": state.cell.model, "method": state.cell.method, "dir": str(state.cell.dir.relative_to(out)),
            "started": started, "seconds": state.seconds, "generated": state.generated, "skipped": state.skipped,
            "halted": state.halted, "not_started": state.not_started}
    from tczoo.safeio.write import UnsafeFile, open_append

    try:
        fd = open_append(Path(out) / LOG_FILE)
    except UnsafeFile as exc:
        raise GridError(str(exc)) from None
    try:
        os.write(fd, (json.dumps(line) + "\n").encode())
    finally:
        os.close(fd)


def _log_lines(out: Path) -> list[dict]:
    from tczoo.safeio.read import Refused, iter_lines

    path = Path(out) / LOG_FILE
    found = []
    if not path.exists():
        return found
    try:
        for _, line in iter_lines(path, max_line=1 << 20, follow=False):
            try:
                rec = json.loads(line)
                if isinstance(rec, dict) and "model" in rec and "method" in rec:
                    found.append(rec)
            except (ValueError, RecursionError):
                continue  # a torn last line of an interrupted session
    except Refused as exc:
        raise GridError(str(exc)) from None
    return found


def cell_folder(out: Path, cell: Cell) -> Path:
    """The cell's run directory, created owner-only; a link in its place (or in its
    model's) is refused: tczoo writes only into folders it made."""
    from tczoo.safeio.write import UnsafeFile, subdir

    try:
        return subdir(out, *cell.dir.relative_to(out).parts)
    except UnsafeFile as exc:
        raise GridError(str(exc)) from None


def wall_times(out: Path) -> dict[tuple[str, str], tuple[float, int]]:
    """(model, method) -> (wall seconds over every session that ran the cell, sessions)."""
    times: dict[tuple[str, str], tuple[float, int]] = {}
    for rec in _log_lines(out):
        if rec.get("not_started"):
            continue
        key = (rec["model"], rec["method"])
        before = times.get(key, (0.0, 0))
        times[key] = (before[0] + float(rec.get("seconds") or 0.0), before[1] + 1)
    return times


def not_started(out: Path) -> dict[tuple[str, str], str]:
    """(model, method) -> why the last session did not start the cell (only for cells
    that never ran)."""
    found: dict[tuple[str, str], str] = {}
    for rec in _log_lines(out):
        key = (rec["model"], rec["method"])
        if rec.get("not_started"):
            found[key] = "no task" if str(rec["not_started"]).startswith("no task") else "not run: provider down"
        else:
            found.pop(key, None)
    return found

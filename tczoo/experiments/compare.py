"""The report of a comparison (``tczoo compare``, ``tczoo report GRID_DIR``).

Tables, in order:

1. per runner, the model × method matrix of its headline metric (HackRate, ASR Avg,
   TBR, MCC ...): a cell whose every generation failed says ``failed``, one whose
   problems all lack a valid test ``no valid tests``, one where some failed carries
   ``(k/n failed)`` after its number — a failed generation is never a score;
2. cost and time per cell: units, failures, LLM calls (answered by the provider, and
   from the cache), tokens, dollars where the provider prices them, wall time over
   every session that ran the cell;
3. with cross-scoring, the method × metric matrix: every cell's suites under every
   runner, the method's own runner marked, and the runners that cannot score a
   method's suites with their reason;
4. every runner's own tables over all cells (its paper's layout) and the failures by
   stage and reason, as ``tczoo report`` prints them for one run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tczoo.experiments.grid import GridSpec, cells, not_started, read_spec, wall_times
from tczoo.experiments.metrics import decimals
from tczoo.report import (CI, RunSummary, Score, StatsOptions, add_intervals, cost_shown, lookup_rows, score_of,
                          stores_tables)
from tczoo.stats import Interval
from tczoo.runner import Table


def _score(found: list, cell) -> Any:
    """A matrix cell (``tczoo.report.Score``): the headline with its interval and
    problem count, ``failed``, ``0.00 (no valid tests)``, ``(k/n failed)`` after a
    number that leaves failed generations out."""
    first = found[0] if found else None
    return score_of(first, cell, decimals(first[2], first[0]) if first else 1)


def _usage(store) -> dict[str, Any]:
    calls = cached = prompt = completion = failed = 0
    cost = 0.0
    for e in store.exchanges():
        if not e.get("ok"):
            failed += 1
            continue
        if e.get("cached"):
            cached += 1
        else:
            calls += 1
        usage = e.get("usage") or {}
        prompt += int(usage.get("prompt_tokens") or 0)
        completion += int(usage.get("completion_tokens") or 0)
        cost += float(e.get("cost_usd") or 0.0)
    return {"calls": calls, "cached": cached, "llm failures": failed, "prompt tokens": prompt,
            "completion tokens": completion, "cost": cost}


def cost_text(model: str, cost: float, tokens: int) -> Any:
    """Dollars as LiteLLM priced the answers; ``not priced`` where nothing prices them
    (``tczoo.report.cost_shown``: the one way every report says it)."""
    return cost_shown(model, cost, tokens)


def grid_report(out: Path, spec: GridSpec | None = None, options: StatsOptions | None = None
                ) -> tuple[list[Table], RunSummary, GridSpec]:
    """The report of the comparison in ``out``: of ``spec``'s cells, or of every cell
    ``grid.json`` lists (``options``: the intervals' resamples and seed)."""
    from tczoo.store import RunStore

    spec = spec or read_spec(out)
    if spec is None:
        raise FileNotFoundError(f"{out} is not a tczoo comparison (no grid.json)")
    grid = cells(spec, Path(out))
    present = [c for c in grid if (c.dir / "config.json").is_file()]
    stores = {(c.model, c.method): RunStore.open(c.dir) for c in present}
    by_runner, full, summary = stores_tables(list(stores.values()), options)
    times = wall_times(out)
    skipped = not_started(out)
    tables: list[Table] = []

    for runner in dict.fromkeys(c.runner for c in grid):
        runner_cells = [c for c in grid if c.runner == runner]
        methods = list(dict.fromkeys(c.method for c in runner_cells))
        own = by_runner.get(runner, [])
        rows, metric = [], None
        for model in spec.models:
            row: dict[str, Any] = {"model": model}
            for method in methods:
                found = lookup_rows(own, runner, model, method, which="headline")
                metric = metric or (found[0][0] if found else None)
                row[method] = _score(found, summary.cells.get((model, method)))
            rows.append(row)
        tables.append(Table(title=f"{runner}: {metric or 'headline metric'} by model × method",
                            columns=["model", *methods], rows=rows,
                            notes=[f"benchmark {spec.benchmark}" + (f", problems {', '.join(spec.problems)}"
                                                                   if spec.problems else "")
                                   + f", {spec.samples} sample(s) per task; '(k/n failed)': generations that failed "
                                     "are left out of the number and counted here; [low, high] n=N: the 95% interval "
                                     "over the N problems the number rests on (see the runner's table below)"]))

    rows = []
    for c in grid:
        state = summary.cells.get((c.model, c.method))
        store = stores.get((c.model, c.method))
        usage = _usage(store) if store is not None else {}
        tokens = usage.get("prompt tokens", 0) + usage.get("completion tokens", 0)
        seconds, sessions = times.get((c.model, c.method), (0.0, 0))
        found = lookup_rows(by_runner.get(c.runner, []), c.runner, c.model, c.method, which="headline")
        rows.append({
            "model": c.model, "method": c.method, "runner": c.runner,
            "status": state.status if state else skipped.get((c.model, c.method), "not run"),
            "headline": f"{found[0][0]} {_score(found, state).text()}".strip() if found else "",
            "units": state.attempted if state else 0, "failed": (state.failed + state.score_errors) if state else 0,
            "no valid tests": state.no_valid if state else 0,
            "LLM calls": usage.get("calls", 0), "cached": usage.get("cached", 0),
            "LLM failures": usage.get("llm failures", 0),
            "prompt tokens": usage.get("prompt tokens", 0), "completion tokens": usage.get("completion tokens", 0),
            "cost USD": cost_text(c.model, usage.get("cost", 0.0), tokens),
            "wall s": round(seconds, 1), "sessions": sessions,
        })
    tables.append(Table(title="cost and time per cell", columns=list(rows[0]) if rows else ["model"], rows=rows,
                        notes=["LLM calls: answered by the provider in this cell's sessions; cached: answered from "
                               "the exchange cache; tokens count both; cost: LiteLLM's price of the answers (cached "
                               "answers count what they cost when first made); wall s: every session that ran "
                               "the cell"]))
    if spec.cross:
        tables += cross_tables(spec, Path(out), stores, by_runner, options)
    return tables + full, summary, spec


def cross_tables(spec: GridSpec, out: Path, stores: dict, native: dict[str, list[Table]],
                 options: StatsOptions | None = None) -> list[Table]:
    """The method × metric matrix of every runner over every cell, and why a runner
    could not score a method's suites."""
    from tczoo.registry import get_runner

    grid = [c for c in cells(spec, out) if (c.model, c.method) in stores]
    records: dict[str, list] = {}
    errors: dict[tuple[str, str, str], int] = {}
    for c in grid:
        for s in stores[(c.model, c.method)].cross_scores():
            if s.error is not None:
                errors[(c.model, c.method, s.runner)] = errors.get((c.model, c.method, s.runner), 0) + 1
                continue
            records.setdefault(s.runner, []).append(s)
    runner_names = list(dict.fromkeys([*spec.cross, *(c.runner for c in grid)]))
    summaries = {}
    for name in runner_names:
        if records.get(name):
            runner = get_runner(name)()
            summaries[name] = runner.summarize(records[name])
            add_intervals(summaries[name], runner, name, records[name], [], options)
    columns = ["model", "method", "own runner"]
    rows = []
    why_rows = []
    for c in grid:
        row: dict[str, Any] = {"model": c.model, "method": c.method, "own runner": c.runner}
        for name in runner_names:
            own = name == c.runner
            tables = native.get(name, []) if own else summaries.get(name, [])
            found = lookup_rows(tables, name, c.model, c.method)
            for column, value, table, found_row in found:
                key = f"{name}: {column}"
                if key not in columns:
                    columns.append(key)
                interval = found_row.get(column + CI)
                # a number with its interval (text in a table, numbers in JSON), or the cell's status word
                row[key] = value if isinstance(value, str) else Score(
                    float(value) if isinstance(value, (int, float)) else None, "ok",
                    interval if isinstance(interval, Interval) else None, column, decimals=decimals(table, column))
            if not found and not own:
                why = _why_not(stores[(c.model, c.method)], name, c, errors)
                why_rows.append({"model": c.model, "method": c.method, "runner": name, "why not": why})
        rows.append(row)
    notes = ["each method's suites scored by every runner; 'own runner' is how its paper scores it (the other "
             "runners' numbers are cross-scores no paper reports)",
             "a suite without outputs (inputs only) was given the problem's reference solution as its oracle "
             "where a runner needs expected outputs; a suite written against one program under test is scored on "
             "that program's task where the runner's tasks name programs"]
    out_tables = [Table(title="cross-scoring: method × metric (every runner on every method's suites)",
                        columns=columns, rows=rows, notes=notes)]
    if why_rows:
        out_tables.append(Table(title="cross-scoring: runners that could not score a method's suites",
                                columns=["model", "method", "runner", "why not"], rows=why_rows))
    return out_tables


def _why_not(store, runner: str, cell, errors: dict) -> str:
    n = errors.get((cell.model, cell.method, runner), 0)
    if n:
        return f"scoring crashed on {n} suite(s) (see the cell's cross_scores.jsonl)"
    reasons = store_reasons(store).get(runner)
    return reasons or "nothing scored (no successful generation, or not cross-scored yet: run the same command)"


def store_reasons(store) -> dict[str, str]:
    """Why a runner did not apply to a cell, as the last cross-scoring session recorded."""
    import json

    from tczoo.safeio.read import Refused, read_file

    path = Path(store.root) / "cross_refused.json"
    if not path.exists():
        return {}
    try:
        data = json.loads(read_file(path, cap=1 << 20, follow=False))
    except (Refused, ValueError, RecursionError):
        return {}
    return {str(k): str(v)[:500] for k, v in data.items()} if isinstance(data, dict) else {}

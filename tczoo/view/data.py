"""A run directory as the run browser shows it: plain, JSON-ready dicts.

``tczoo view`` (the static site) and ``tczoo show`` (the terminal) read runs through
this module only, so both show the same things:

- ``RunData.summary()``: configuration, provenance, the report's tables (exactly
  ``tczoo.report.run_tables``, formatted with ``tczoo.report.cell``), totals of calls,
  tokens, cost and time, failure counts by stage and reason;
- ``RunData.units()``: one line per (method, problem, task) -- the index the browser
  filters and pages;
- ``RunData.problem(pid)``: everything about one problem's units -- tests, validity,
  the runners' per-test matrices (``Runner.matrices``), metrics, artifacts, an agent's
  rounds (what each wrote, observed and changed), failures and every LLM exchange of
  each unit.

Every string a model, a program or a benchmark produced passes through ``safe``:
control characters and lone surrogates become visible escapes (``tczoo.safeio.text.printable``)
and very long texts are clipped to ``max_chars`` with their full length recorded
(``{"clip": text, "of": length}``), so that one 50 MB generator output cannot make a
page unusable. Escaping for HTML is the page's job (it only ever sets text, never
markup).
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tczoo.errors import UserError
from tczoo.safeio.text import printable

MAX_CHARS = 100_000  # per text field in the site's data; the page shows less until expanded


# what ``printable`` would change: C0/C1 controls but newline and tab, DEL, lone surrogates
_NEEDS_ESCAPE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def safe(value: Any, limit: int = MAX_CHARS) -> Any:
    """``value`` with every string made printable and clipped (see the module doc)."""
    if isinstance(value, str):
        # most strings need nothing: one regex scan instead of printable's translate + encode
        text = printable(value) if _NEEDS_ESCAPE.search(value) else value
        if len(text) > limit:
            return {"clip": text[:limit], "of": len(text)}
        return text
    if isinstance(value, dict):
        return {_key(k): safe(v, limit) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [safe(v, limit) for v in value]
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else str(value)
    if value is None or isinstance(value, (bool, int)):
        return value
    return safe(str(value), limit)


def _key(key: Any) -> str:
    key = key if isinstance(key, str) else str(key)
    if _NEEDS_ESCAPE.search(key) or "\n" in key or "\t" in key:
        return printable(key, newlines=False)
    return key


def fmt_metric(value: Any) -> str:
    from tczoo.report import cell

    return cell(value)


@dataclass
class Unit:
    """One (method, problem, task) of a run: its generation and the scores of it."""

    method: str
    problem: str
    task: str
    generation: Any = None  # GenerationRecord (None: scored but not generated, or not yet generated)
    scores: list[Any] = field(default_factory=list)  # ScoreRecord

    @property
    def key(self) -> tuple[str, str, str]:
        return self.method, self.problem, self.task


def _method_runner(method: str) -> str:
    """The runner a method's paper scores it with ("" when the method is not installed)."""
    from tczoo.registry import describe_methods

    return next((i["runner"] for i in describe_methods() if i["name"] == method), "")


def _runner(name: str) -> Any:
    """An instance of runner ``name`` for reading records (no sandbox), or None."""
    try:
        from tczoo.registry import get_runner

        return get_runner(name)()
    except Exception:
        return None


def _run_json(path: Path, cap: int) -> Any:
    """A JSON file of a run directory: a regular file (not a link, FIFO or device), at
    most ``cap`` bytes, valid JSON; else a one-line ``UserError``."""
    from tczoo.safeio.read import read_file
    from tczoo.safeio.userfiles import loads

    return loads(read_file(path, cap=cap, follow=False), path)


class RunData:
    """Everything one run directory holds, read once."""

    def __init__(self, root: Path, *, max_chars: int = MAX_CHARS):
        from tczoo.report import run_tables
        from tczoo.store import RunStore

        self.root = Path(root)
        self.label = ""  # how the site names the run when its folder name is not enough
        self.max_chars = max_chars
        store = RunStore.open(self.root)  # not a run directory: the user's error, raised
        self.table_error = ""
        try:
            _, self.tables = run_tables(self.root)
        except Exception as exc:  # e.g. scores of a runner not installed here: show the rest
            self.tables = []
            self.table_error = f"the report's tables could not be made: {type(exc).__name__}: {exc}"
        self.config = _run_json(self.root / "config.json", 16 << 20)
        if not isinstance(self.config, dict):
            from tczoo.store import RunStoreError

            raise RunStoreError(f"{self.root / 'config.json'}: not a tczoo run configuration (not an object)")
        self.generations = store.generations()
        self.scores = store.scores()
        self.exchanges = store.exchanges()
        self._units: dict[tuple[str, str, str], Unit] = {}
        for g in self.generations:
            key = (g.method, g.problem_id, g.task)
            unit = self._units.setdefault(key, Unit(*key))
            unit.generation = g  # a later record (a retried unit) supersedes an earlier one
        for s in self.scores:
            key = (s.method, s.problem_id, s.task)
            self._units.setdefault(key, Unit(*key)).scores.append(s)
        self._runners: dict[str, Any] = {}
        self._exchange_of = self._assign_exchanges()

    # ------------------------------------------------------------------ units

    @property
    def name(self) -> str:
        return self.label or self.root.name or str(self.root)

    def all_units(self) -> list[Unit]:
        return list(self._units.values())

    def problems(self) -> list[str]:
        """Problem ids in the order the run first met them."""
        return list(dict.fromkeys(u.problem for u in self._units.values()))

    def _assign_exchanges(self) -> dict[tuple[str, str, str], list[int]]:
        """Which logged exchanges belong to which unit. A unit's provenance lists the
        cache keys of its calls; one key can be logged more than once (the same prompt
        asked by two units: the second is a cache hit), so the i-th unit that names a
        key gets the i-th record logged with it."""
        by_key: dict[str, list[int]] = defaultdict(list)
        for i, x in enumerate(self.exchanges):
            by_key[str(x.get("key", ""))].append(i)
        taken: Counter = Counter()
        out: dict[tuple[str, str, str], list[int]] = {}
        self._exchange_index: dict[tuple[str, str, str], dict[int, int]] = {}
        for unit in self._units.values():
            if unit.generation is None:
                continue
            mine = []
            where: dict[int, int] = {}  # position in the suite's provenance -> index among the unit's exchanges
            for pos, key in enumerate(unit.generation.suite.provenance.exchanges):
                records = by_key.get(key)
                if not records:
                    continue
                where[pos] = len(mine)
                mine.append(records[min(taken[key], len(records) - 1)])
                taken[key] += 1
            out[unit.key] = mine
            self._exchange_index[unit.key] = where
        self.orphan_exchanges = len(set(range(len(self.exchanges))) - {i for v in out.values() for i in v})
        return out

    def runner(self, name: str) -> Any:
        if name not in self._runners:
            self._runners[name] = _runner(name)
        return self._runners[name]

    # ------------------------------------------------------------------ failures

    @staticmethod
    def failures_of(unit: Unit) -> list[dict[str, str]]:
        """Every recorded failure of a unit: its generation's, a method crash, a
        scoring crash."""
        out = []
        g = unit.generation
        if g is not None:
            for f in g.suite.provenance.failures:
                out.append({"stage": f.stage, "reason": f.reason, "detail": f.detail, "item": f.item})
            if g.error and not any(f["stage"] == "method" for f in out):
                out.append({"stage": "method", "reason": "crash", "detail": g.error, "item": ""})
        for s in unit.scores:
            if s.error is not None:
                out.append({"stage": "score", "reason": "scoring_crash", "detail": s.error,
                            "item": s.runner})
        return out

    # ------------------------------------------------------------------ summary

    def totals(self) -> dict[str, Any]:
        calls = sum(1 for x in self.exchanges if not x.get("cached"))
        cached = sum(1 for x in self.exchanges if x.get("cached"))
        failed = sum(1 for x in self.exchanges if not x.get("ok", True))
        usage = [x.get("usage") or {} for x in self.exchanges]
        times = [x["time"] for x in self.exchanges if isinstance(x.get("time"), (int, float))]
        return {
            "units": len(self._units),
            "problems": len(self.problems()),
            "generations": len(self.generations),
            "generation_errors": sum(1 for g in self.generations if g.error),
            "tests": sum(len(g.suite.tests) for g in self.generations),
            "scores": len(self.scores),
            "calls": calls,
            "cached_calls": cached,
            "failed_calls": failed,
            "prompt_tokens": sum(int(u.get("prompt_tokens") or 0) for u in usage),
            "completion_tokens": sum(int(u.get("completion_tokens") or 0) for u in usage),
            "cost_usd": round(sum(float(x.get("cost_usd") or 0.0) for x in self.exchanges), 6),
            # as every report says it: dollars, or "not priced" (tczoo.report.cost_shown)
            "cost": self._cost(sum(float(x.get("cost_usd") or 0.0) for x in self.exchanges),
                               sum(_tokens(x) for x in self.exchanges)),
            "llm_seconds": round(sum(float(x.get("seconds") or 0.0) for x in self.exchanges), 3),
            "generation_seconds": round(sum(g.seconds for g in self.generations), 3),
            "first_call": iso_time(min(times)) if times else None,
            "last_call": iso_time(max(times)) if times else None,
            "exchanges_outside_units": self.orphan_exchanges,
        }

    def failure_counts(self) -> list[dict[str, Any]]:
        """(stage, reason, count, units) for every failure recorded in the run, most common first."""
        counts: Counter = Counter()
        units: dict[tuple[str, str], set] = defaultdict(set)
        for unit in self._units.values():
            for f in self.failures_of(unit):
                counts[(f["stage"], f["reason"])] += 1
                units[(f["stage"], f["reason"])].add(unit.key)
        return [{"stage": s, "reason": r, "count": n, "units": len(units[(s, r)])}
                for (s, r), n in counts.most_common()]

    def table_dicts(self) -> list[dict[str, Any]]:
        return [{"title": t.title, "columns": list(t.columns),
                 "rows": [[fmt_metric(r.get(c)) for c in t.columns] for r in t.rows],
                 "notes": list(t.notes)} for t in self.tables]

    def provenance(self) -> dict[str, Any]:
        """What the run directory says about how it was made: the configuration's
        version, model and settings, and any provenance record written beside it."""
        out: dict[str, Any] = {"tczoo_version": self.config.get("tczoo_version", ""),
                               "model": self.config.get("model", ""), "llm": self.config.get("llm", {})}
        for extra in sorted(self.root.glob("*.json")):
            if extra.name == "config.json":
                continue
            try:
                out[extra.stem] = _run_json(extra, 1_000_000)
            except UserError:
                out[extra.stem] = f"(unreadable: {extra.name})"
        if isinstance(self.config.get("provenance"), dict):
            out.update(self.config["provenance"])
        models = sorted({str(x.get("model", "")) for x in self.exchanges} - {""})
        if models:
            out["models_called"] = models
        return out

    def summary(self) -> dict[str, Any]:
        return safe({
            "name": self.name,
            "path": str(self.root),
            "config": self.config,
            "provenance": self.provenance(),
            "tables": self.table_dicts(),
            "table_error": self.table_error,
            "totals": self.totals(),
            "failures": self.failure_counts(),
        }, self.max_chars)

    # ------------------------------------------------------------------ one line per unit

    def headline(self, unit: Unit) -> tuple[str, float | None]:
        """(label, value) of the metric the unit's runner names as its headline."""
        for s in unit.scores:
            runner = self.runner(s.runner)
            name = getattr(runner, "headline", "") if runner is not None else ""
            if name and name in s.metrics:
                return name, s.metrics[name]
        return "", None

    def generation_failed(self, unit: Unit) -> str:
        """``stage:reason`` when the unit's generation failed (``tczoo.failures``: it is
        not scored and counts as failed in every report), else ``""`` -- so that a unit
        that failed is never shown like one that ran and made no test."""
        from tczoo.failures import generation_failure

        g = unit.generation
        if g is None:
            return ""
        runner = next((self.runner(s.runner) for s in unit.scores), None)
        if runner is None:
            name = self.config.get("runner") or _method_runner(unit.method)
            runner = self.runner(name) if name else None
        failure = generation_failure(g, scores_empty=bool(getattr(runner, "scores_empty_suites", False)))
        return f"{failure.stage}:{failure.reason}" if failure is not None else ""

    def unit_line(self, unit: Unit) -> dict[str, Any]:
        g = unit.generation
        failures = self.failures_of(unit)
        label, value = self.headline(unit)
        xs = [self.exchanges[i] for i in self._exchange_of.get(unit.key, [])]
        valid = next((s.n_valid for s in unit.scores if s.n_valid is not None), None)
        return safe({
            "method": unit.method, "problem": unit.problem, "task": unit.task,
            "model": g.model if g is not None else (unit.scores[0].model if unit.scores else ""),
            "tests": len(g.suite.tests) if g is not None else None,
            "valid": int(valid) if valid is not None else None,
            "headline": label, "value": value,
            "failures": len(failures),
            "reasons": sorted({f"{f['stage']}:{f['reason']}" for f in failures}),
            "crashed": bool(g is not None and g.error) or any(s.error is not None for s in unit.scores),
            "failed": self.generation_failed(unit),
            "generated": g is not None,
            "scored": bool(unit.scores),
            "exchanges": len(xs),
            "tokens": sum(_tokens(x) for x in xs),
            "cost": self._cost(sum(float(x.get("cost_usd") or 0.0) for x in xs), sum(_tokens(x) for x in xs)),
            "seconds": g.seconds if g is not None else None,
        }, 300)

    def units(self) -> list[dict[str, Any]]:
        return [self.unit_line(u) for u in self._units.values()]

    def _cost(self, dollars: float, tokens: int) -> float | str:
        from tczoo.report import cost_shown

        return cost_shown(str(self.config.get("model", "")), dollars, tokens)

    # ------------------------------------------------------------------ one problem in full

    def problem(self, pid: str) -> dict[str, Any]:
        units = [u for u in self._units.values() if u.problem == pid]
        return safe({"problem": pid, "units": [self.unit_detail(u) for u in units]}, self.max_chars)

    def unit_detail(self, unit: Unit) -> dict[str, Any]:
        g = unit.generation
        suite = g.suite if g is not None else None
        out: dict[str, Any] = {"line": self.unit_line(unit), "failures": self.failures_of(unit)}
        if suite is not None:
            prov = suite.provenance
            # who made each test: the generator named in its meta, else its origin
            made = Counter(str(t.meta.get("generator") or t.origin) for t in suite.tests)
            out.update({
                "tests": [{"input": t.input, "output": t.output, "origin": t.origin, "meta": t.meta}
                          for t in suite.tests],
                "oracle": {"kind": suite.oracle.kind.value, "judge_prompt": suite.oracle.judge_prompt,
                           "program": _program(suite.oracle.program) if suite.oracle.program else None},
                "artifacts": [self._artifact(a, made, prov.failures) for a in suite.artifacts],
                "rounds": self._rounds(unit, suite),
                "provenance": {"method": prov.method, "model": prov.model, "params": prov.params, "seed": prov.seed,
                               "usage": prov.usage.model_dump(), "exchange_keys": len(prov.exchanges)},
                "seconds": g.seconds, "error": g.error,
            })
        out["scores"] = [self._score(s, suite) for s in unit.scores]
        out["exchanges"] = [self._exchange(self.exchanges[i]) for i in self._exchange_of.get(unit.key, [])]
        return out

    @staticmethod
    def _artifact(a: Any, made: Counter, failures: list[Any]) -> dict[str, Any]:
        names = {a.program.name, a.role}
        if a.generator is not None:
            names |= set(a.generator.names.values()) | set(a.generator.functions)
        names.discard("")
        return {
            "role": a.role, "ok": a.ok, "note": a.note, "program": _program(a.program),
            "generator": a.generator.model_dump() if a.generator is not None else None,
            # what running it gave: the tests it made (None: this run did not record which of
            # a family's generators made a test) and the failures recorded against it
            "tests_made": _tests_made(made, names, a),
            "failures": [{"stage": f.stage, "reason": f.reason, "detail": f.detail, "item": f.item}
                         for f in failures if f.item and f.item in names],
        }

    def _rounds(self, unit: Unit, suite: Any) -> list[dict[str, Any]]:
        """An agent's rounds (``TestSuite.rounds``), each with the indices of its LLM
        exchanges among the unit's (the page links them)."""
        where = self._exchange_index.get(unit.key, {})
        out = []
        for r in suite.rounds:
            d = r.model_dump()
            d["exchanges"] = [where[p] for p in r.exchanges if p in where]
            out.append(d)
        return out

    def _score(self, s: Any, suite: Any) -> dict[str, Any]:
        matrices, note = [], ""
        runner = self.runner(s.runner)
        if runner is None:
            note = f"runner {s.runner!r} is not installed: no per-test view"
        elif suite is not None and s.error is None:
            try:
                matrices = [{"title": m.title, "tests": list(m.tests), "notes": [n for n in m.notes if n],
                             "rows": [{"label": label, "cells": cells} for label, cells in m.rows]}
                            for m in runner.matrices(s, suite)]
            except Exception as exc:  # an old record a runner no longer reads: show the rest
                note = f"per-test view unavailable: {type(exc).__name__}: {exc}"
        detail = {k: v for k, v in s.detail.items() if k not in ("tests", "per_test", "languages", "first_failure")}
        return {"runner": s.runner, "metrics": {k: fmt_metric(v) for k, v in s.metrics.items()},
                "detail": detail, "matrices": matrices, "note": note}

    @staticmethod
    def _exchange(x: dict[str, Any]) -> dict[str, Any]:
        usage = x.get("usage") or {}
        messages = x.get("messages") or []
        return {
            "key": x.get("key", ""), "model": x.get("model", ""), "sample": x.get("sample"),
            "messages": [{"role": m.get("role", "") if isinstance(m, dict) else "",
                          "content": _content(m.get("content") if isinstance(m, dict) else m)} for m in messages],
            "answer": x.get("text", ""), "ok": x.get("ok", True), "error": x.get("error"), "reason": x.get("reason"),
            "cached": bool(x.get("cached")), "params": x.get("params", {}), "sent": x.get("sent"),
            "notes": x.get("notes", []),
            "prompt_tokens": usage.get("prompt_tokens", 0), "completion_tokens": usage.get("completion_tokens", 0),
            "cost": _exchange_cost(x), "seconds": x.get("seconds"), "time": x.get("time"),
        }


def iso_time(seconds: float) -> str:
    """A recorded time (seconds since the epoch) as ISO 8601 in UTC: 2026-11-28T10:15:03Z."""
    import datetime

    return datetime.datetime.fromtimestamp(float(seconds), datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _tokens(x: dict[str, Any]) -> int:
    usage = x.get("usage") or {}
    return int(usage.get("prompt_tokens") or 0) + int(usage.get("completion_tokens") or 0)


def _exchange_cost(x: dict[str, Any]) -> float | str:
    from tczoo.report import cost_shown

    return cost_shown(str(x.get("model", "")), float(x.get("cost_usd") or 0.0), _tokens(x))


def _tests_made(made: Counter, names: set, artifact: Any) -> int | None:
    """How many of the suite's tests this artifact made. Runs recorded before tests named
    their generator only know a generator's family (``lcb:random``): when nothing is
    attributed to a generator that reported inputs, the count is unknown (None), never 0."""
    count = sum(n for who, n in made.items() if who in names)
    if count == 0 and artifact.generator is not None and artifact.note and not artifact.note.startswith("0 inputs"):
        return None
    return count


def _program(p: Any) -> dict[str, Any]:
    return {"name": p.name, "language": p.language.value, "code": p.code, "flags": p.flags}


def _content(content: Any) -> str:
    """A message's content as text (a list of parts: their text parts joined)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", part)) if isinstance(part, dict) else str(part) for part in content)
    return "" if content is None else json.dumps(content, default=str)


# --------------------------------------------------------------------------- a comparison


def table_dict(t: Any) -> dict[str, Any]:
    """A ``tczoo.runner.Table`` as the site and ``show`` print it (the runner's decimals)."""
    from tczoo.experiments.metrics import decimals, show

    return {"title": t.title, "columns": list(t.columns),
            "rows": [[show(r.get(c), decimals(t, c)) for c in t.columns] for r in t.rows],
            "notes": list(t.notes)}


def grid_summary(path: Path, run_index: dict[Path, int] | None = None) -> dict[str, Any]:
    """A comparison directory as one models × methods matrix: each cell's headline
    metric exactly as ``tczoo report GRID`` prints it (``failed``, ``no valid tests``,
    ``(k/n failed)`` included), the metric each method is scored by, the run each cell
    is (its index among the site's runs, for links to its units), and the report's
    matrices and cost-and-time table."""
    from tczoo.experiments.compare import grid_report
    from tczoo.experiments.grid import cells
    from tczoo.report import model_labels

    path = Path(path)
    run_index = run_index or {}
    out: dict[str, Any] = {"name": path.name or str(path), "path": str(path), "models": [], "labels": [],
                           "methods": [], "metric": {}, "cells": [], "tables": [], "error": ""}
    try:
        tables, _, spec = grid_report(path)
    except Exception as exc:  # a method or runner not installed here: the runs still show
        out["error"] = f"the comparison's report could not be made: {type(exc).__name__}: {exc}"
        return safe(out)
    matrices = [t for t in tables if " by model × method" in t.title]
    values: dict[tuple[str, str], Any] = {}
    for t in matrices:
        runner, _, rest = t.title.partition(": ")
        metric = rest.split(" by model")[0]
        for method in t.columns[1:]:
            out["metric"][method] = f"{runner}: {metric}"
        for row in t.rows:
            for method in t.columns[1:]:
                values[(row.get("model"), method)] = row.get(method)
    out["models"], out["methods"] = list(spec.models), list(spec.methods)
    out["labels"] = model_labels(spec.models)
    for cell in cells(spec, path):
        run = run_index.get(cell.dir)
        score = values.get((cell.model, cell.method))
        entry = {"model": spec.models.index(cell.model), "method": spec.methods.index(cell.method),
                 "run": run, "value": str(score) if score is not None else "not run"}
        # the numbers behind the text, for the page's forest plot: value, interval, problems, status
        numbers = score.as_json() if hasattr(score, "as_json") else {}
        entry.update({"number": numbers.get("value"), "low": numbers.get("low"), "high": numbers.get("high"),
                      "problems": numbers.get("problems"), "status": numbers.get("status", "not run")})
        out["cells"].append(entry)
    cost = [t for t in tables if t.title == "cost and time per cell"]
    out["tables"] = [table_dict(t) for t in matrices + cost]
    return safe(out)

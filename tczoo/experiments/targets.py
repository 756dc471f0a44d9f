"""The reproduction targets and the papers' numbers, read from ``data/targets.yaml`` and
``data/papers.yaml`` (data, not code: a new target is a few lines of YAML).

``targets()`` validates both files as a whole: every target names a paper and tables
that exist, every paper row has as many values as its keys and columns, a target's
columns are columns of the paper tables it is compared with. A mistake is a
``TargetError`` naming the entry."""

from __future__ import annotations

import fnmatch
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tczoo.errors import UserError


class TargetError(UserError, ValueError):
    """An unknown target, or a registry entry that does not hold together."""


def data_file(name: str) -> Path:
    return Path(__file__).parent / "data" / name


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PaperTable(_Model):
    ref: str
    setting: str = ""
    keys: list[str] = Field(default_factory=list)
    columns: list[str] = Field(default_factory=list)
    rows: list[list[Any]] = Field(default_factory=list)
    headers: dict[str, str] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    claims: list[str] = Field(default_factory=list)
    decimals: int | dict[str, int] = 2

    def records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.keys + self.columns, row)) for row in self.rows]

    def places(self, column: str) -> int:
        if isinstance(self.decimals, int):
            return self.decimals
        return next((n for pattern, n in self.decimals.items() if fnmatch.fnmatchcase(column, pattern)), 2)


class Paper(_Model):
    title: str
    cite: str
    tables: dict[str, PaperTable]


class RunPlan(_Model):
    methods: list[str]
    optional_methods: list[str] = Field(default_factory=list)
    runner: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    samples: int = 1


class Analysis(_Model):
    """An analysis (``tczoo.analyses`` entry point) whose tables the target lays out
    instead of the runners' own: over each run directory of the target's runs, or over
    the benchmark built from the target's benchmark (``tczoo build-benchmark``'s
    pipeline, ``build`` its options)."""

    name: str
    over: Literal["run", "benchmark"] = "run"
    options: dict[str, Any] = Field(default_factory=dict)
    build: dict[str, Any] = Field(default_factory=dict)


class Layout(_Model):
    keys: list[str] = Field(default_factory=list)
    show: list[str] = Field(default_factory=list)
    columns: list[str]
    melt: dict[str, Any] | None = None
    rename: dict[str, list[str]] = Field(default_factory=dict)


class Figure(_Model):
    """``lines``: one line per row over the layout's columns at ``x`` (wide rows), or,
    with ``x_column``, one line per ``series`` value through (x_column, y) points (long
    rows); ``bars``: per row (labelled by ``group``, default the first key), one bar per
    column of ``columns`` (default the layout's)."""

    kind: Literal["lines", "bars"]
    x: list[float] = Field(default_factory=list)
    x_column: str | None = None
    y: str | None = None
    series: str | None = None
    group: str | None = None
    columns: list[str] = Field(default_factory=list)
    xlabel: str = ""
    ylabel: str = ""
    log_x: bool = False


class Target(_Model):
    name: str = ""
    paper: str
    title: str
    run: RunPlan | None = None  # None: no model runs (an analysis of the benchmark itself)
    run_name: str = ""
    analysis: Analysis | None = None
    layout: Layout
    compare: list[str] = Field(default_factory=list)
    compare_with: dict[str, Any] = Field(default_factory=dict)
    figure: Figure | None = None
    paper_setting: dict[str, str] = Field(default_factory=dict)
    benchmark: str = "zoo-mini"  # what --benchmark defaults to (HumanEval for function-level papers)
    # what --model defaults to (None: the embedded model); released:FILES for a target
    # recomputed from the authors' own generations (tczoo.llm.released)
    model: str | None = None
    # what the target's own run was measured against besides the paper, and why its
    # numbers differ (a results file prints these after its comparison table)
    notes: list[str] = Field(default_factory=list)

    @property
    def methods(self) -> list[str]:
        return (self.run.methods + self.run.optional_methods) if self.run is not None else []

    def paper_tables(self) -> list[tuple[str, PaperTable]]:
        paper = papers()[self.paper]
        return [(t, paper.tables[t]) for t in self.compare]

    def missing_methods(self) -> list[str]:
        """Methods of the target's runs that are not installed (optional ones aside)."""
        from tczoo.registry import method_names

        known = set(method_names())
        return [m for m in (self.run.methods if self.run else []) if m not in known]


@lru_cache(maxsize=None)
def papers() -> dict[str, Paper]:
    import yaml

    return load_papers(yaml.safe_load(data_file("papers.yaml").read_text()) or {})


def load_papers(raw: dict[str, Any]) -> dict[str, Paper]:
    out = {}
    for key, value in raw.items():
        try:
            out[key] = Paper.model_validate(value)
        except ValidationError as exc:
            raise TargetError(f"papers.yaml: {key}: {str(exc).splitlines()[0:3]}") from None
        for tid, table in out[key].tables.items():
            width = len(table.keys) + len(table.columns)
            for i, row in enumerate(table.rows):
                if len(row) != width:
                    raise TargetError(f"papers.yaml: {key}.{tid} row {i + 1} has {len(row)} values, "
                                      f"not {width} ({table.keys + table.columns})")
    return out


@lru_cache(maxsize=None)
def targets() -> dict[str, Target]:
    import yaml

    return load_targets(yaml.safe_load(data_file("targets.yaml").read_text()) or {}, papers())


def load_targets(raw: dict[str, Any], known_papers: dict[str, Paper]) -> dict[str, Target]:
    out: dict[str, Target] = {}
    for name, value in raw.items():
        try:
            target = Target.model_validate({**value, "name": name})
        except ValidationError as exc:
            raise TargetError(f"targets.yaml: {name}: {' '.join(str(exc).splitlines()[:3])}") from None
        paper = known_papers.get(target.paper)
        if paper is None:
            raise TargetError(f"targets.yaml: {name}: unknown paper {target.paper!r}")
        for tid in target.compare:
            table = paper.tables.get(tid)
            if table is None:
                raise TargetError(f"targets.yaml: {name}: paper {target.paper} has no table {tid!r}")
            if table.rows:
                if not any(c in table.columns for c in target.layout.columns):
                    raise TargetError(f"targets.yaml: {name}: {tid} has none of the columns {target.layout.columns}")
                missing = [k for k in target.layout.keys if k not in table.keys]
                if missing:
                    raise TargetError(f"targets.yaml: {name}: {tid} has no key {missing[0]!r}")
        if target.run is None and (target.analysis is None or target.analysis.over != "benchmark"):
            raise TargetError(f"targets.yaml: {name}: a target without runs needs an analysis over the benchmark")
        out[name] = target
    return out


def get_target(name: str) -> Target:
    known = targets()
    if name not in known:
        raise TargetError(f"unknown target {name!r} (known: {', '.join(known)})")
    return known[name]

"""Contrastive execution profiling (WEDGE, stage 1).

The reference runs on the profiling inputs with line-level hit counts (the kernel's
``tczoo.execution.coverage``: gcov for C/C++, line tracing for Python, in the sandbox).
An input's cost is the number of source lines it executed (the sum of its hit counts):
deterministic, unlike CPU time on a shared machine, and what WEDGE's instruction counts
approximate. Without coverage (Java) the cost is the CPU time of a plain run.

The contrast pair follows WEDGE's mining: inputs sorted by cost are split into a fast
and a slow half; the halves shrink from the middle until the slowest fast input costs
at most ``1 / ratio`` of the cheapest slow one; among the (slow, fast) pairs whose
contents are similar (position-wise token agreement plus token-set Jaccard above
``min_similarity``) the most similar one wins, then the one with the larger cost ratio.
No such pair (one input, or inputs of about the same cost) leaves the slowest input
alone: the prompt then says there is no contrast.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from tczoo.execution import Limits
from tczoo.execution.coverage import CoverageUnavailable, line_coverage
from tczoo.method import Context
from tczoo.schema import Program

MAX_LISTING_LINES = 400
MAX_LINE_CHARS = 160


@dataclass
class Measured:
    input: str
    cost: float
    status: str
    hits: dict[int, int] = field(default_factory=dict)
    executable: frozenset[int] = frozenset()


@dataclass
class Row:
    line: int
    slow: str  # hit count as shown ("" for a line without code)
    fast: str
    text: str


@dataclass
class Profile:
    unit: str  # "lines executed" or "ms CPU"
    runs: list[Measured]
    slow: Measured | None = None
    fast: Measured | None = None
    similarity: float | None = None
    coverage_note: str = ""  # why there are no hit counts
    contrast_note: str = ""  # why there is no contrast pair

    @property
    def note(self) -> str:
        return "; ".join(x for x in (self.coverage_note, self.contrast_note) if x)

    @property
    def ratio(self) -> float | None:
        if self.slow is None or self.fast is None:
            return None
        return self.slow.cost / max(self.fast.cost, 1e-9)

    @property
    def has_hits(self) -> bool:
        return any(r.hits for r in self.runs)

    def rows(self, code: str) -> list[Row]:
        """The source listing with the slow (and fast) input's hit count per line."""
        slow = self.slow or (max(self.runs, key=lambda r: r.cost) if self.runs else None)
        out = []
        for number, text in enumerate(code.splitlines()[:MAX_LISTING_LINES], 1):
            out.append(Row(number, _count(slow, number), _count(self.fast, number),
                           text[:MAX_LINE_CHARS].rstrip()))
        return out

    def summary(self) -> str:
        if self.slow is not None and self.fast is not None:
            return (f"contrast pair: {self.slow.cost:.0f} vs {self.fast.cost:.0f} {self.unit} "
                    f"(x{self.ratio:.2f}, similarity {self.similarity:.2f})")
        return self.note or "no contrast pair"


def _count(run: Measured | None, line: int) -> str:
    if run is None or not run.hits and not run.executable:
        return ""
    if line in run.hits:
        return str(run.hits[line])
    return "0" if line in run.executable else ""


async def profile(ctx: Context, program: Program, inputs: list[str], limits: Limits, *,
                  ratio: float = 1.2, min_similarity: float = 0.1) -> Profile:
    """Measure ``program`` on ``inputs`` and pick the contrast pair."""
    note = ""
    try:
        coverage = await asyncio.to_thread(line_coverage, ctx.sandbox, program, inputs, limits=limits)
    except CoverageUnavailable as exc:
        coverage, note = None, f"No hit counts: {exc}"
    if coverage is not None and all(c.measured and c.status.value == "AC" for c in coverage):
        runs = [Measured(text, float(sum(c.hits.values())), c.status.value, dict(c.hits), frozenset(c.executable))
                for text, c in zip(inputs, coverage)]
        result = Profile("lines executed", runs)
    else:
        if coverage is not None:
            bad = next(c for c in coverage if not (c.measured and c.status.value == "AC"))
            note = f"No hit counts: coverage run ended {bad.status.value}: {bad.detail[:300]}".rstrip(": ")
        plain = await ctx.run(program, inputs, limits)
        runs = [Measured(text, run.cpu_ms, run.verdict.value) for text, run in zip(inputs, plain)]
        result = Profile("ms CPU", runs, coverage_note=note)
    slow, fast, sim = contrast_pair([r for r in result.runs if r.status == "AC"], ratio, min_similarity)
    result.slow, result.fast, result.similarity = slow, fast, sim
    if slow is None:
        why = ("one profiling input" if len(result.runs) < 2
               else f"no slow/fast pair {ratio:g}x apart with similar contents")
        result.contrast_note = f"No contrast: {why}"
    return result


def contrast_pair(runs: list[Measured], ratio: float, min_similarity: float
                  ) -> tuple[Measured | None, Measured | None, float | None]:
    ordered = sorted(runs, key=lambda r: r.cost)
    half = len(ordered) // 2
    fast, slow = ordered[:half], ordered[half:]
    if len(slow) > len(fast):
        slow = slow[1:]  # the median belongs to neither half
    for shift in range(len(slow)):
        fast_part, slow_part = fast[:len(slow) - shift], slow[shift:]
        if fast_part[-1].cost * ratio <= slow_part[0].cost:
            break
    else:
        return None, None, None
    best = None
    for s in slow_part:
        for f in fast_part:
            sim = similarity(s.input, f.input)
            if sim <= min_similarity:
                continue
            key = (sim, s.cost / max(f.cost, 1e-9))
            if best is None or key > best[0]:
                best = (key, s, f)
    if best is None:
        return None, None, None
    return best[1], best[2], best[0][0]


def similarity(a: str, b: str) -> float:
    """Position-wise token agreement (over the shorter input) plus token-set Jaccard,
    in [0, 2]: how WEDGE tells inputs of the same shape."""
    ta, tb = a.split(), b.split()
    if not ta or not tb:
        return 0.0
    n = min(len(ta), len(tb))
    order = sum(x == y for x, y in zip(ta[:n], tb[:n])) / n
    sa, sb = set(ta), set(tb)
    return order + len(sa & sb) / len(sa | sb)

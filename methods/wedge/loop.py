"""The pure-Python fuzzing loop: WEDGE's search where AFL++ cannot run.

Used when AFL++ is not installed, cannot build the target (a Python reference: AFL++
instruments C/C++ only), or fails. Each round, built only from the kernel's execution
interface (every program runs in the sandbox):

1. pick ``batch`` parents from the corpus by 2-way tournaments on fitness
   (conditions satisfied, then cost), the fitter one winning 3 times in 4;
2. mutate them with the model's ``mutate_input`` (one sandboxed call per batch);
3. keep the children the model's validator accepts (one sandboxed call per batch);
4. run the instrumented reference on them: CPU time and the conditions reported on
   stderr;
5. measure their line coverage (``tczoo.execution.coverage``) and bucket the hit
   counts as AFL does (1, 2, 3, 4-7, 8-15, 16-31, 32-127, 128+);
6. a child joins the corpus when it reaches a new (line, bucket), satisfies a
   condition no input satisfied before, or runs longer than every input so far — the
   loop rewards coverage, conditions and running time, as WEDGE's fuzzer does.

Every valid child the reference runs without crashing is a candidate. The budget is
wall-clock seconds from the end of the seeds' measurement, checked before each round (a
round in progress finishes; there is always at least one).
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass

from tczoo.execution import Limits, input_key
from tczoo.execution.coverage import CoverageUnavailable, line_coverage
from tczoo.method import Context
from tczoo.schema import Program

from .afl import Campaign, Candidate
from .conditions import satisfied
from .harness import mutate_many, validate_many


@dataclass
class Entry:
    text: str
    conditions: frozenset[int]
    cost: float
    status: str

    @property
    def fitness(self) -> tuple[int, float]:
        return (len(self.conditions), self.cost)


def bucket(count: int) -> int:
    """AFL's hit-count classes."""
    for k, top in enumerate((1, 2, 3, 7, 15, 31, 127)):
        if count <= top:
            return k
    return 7


async def run_loop(ctx: Context, target: Program, mutator_code: str, validator_code: str, seeds: list[str], *,
                   fuzz_s: int, limits: Limits, batch: int, candidates: int, max_input_kb: int, seed: int,
                   validate_ms: int, mutate_ms: int, coverage: bool = True) -> Campaign:
    rng = random.Random(seed)
    seen_keys = {input_key(s) for s in seeds}
    covered: set[tuple[int, int]] = set()
    conditions_seen: set[int] = set()
    corpus: list[Entry] = []
    pool: list[Candidate] = []
    counts = {"rounds": 0, "mutations": 0, "mutator_errors": 0, "duplicates": 0, "too_large": 0, "invalid": 0,
              "target_failed": 0, "added": 0}
    notes: list[str] = []
    coverage_on = coverage

    async def evaluate(texts: list[str]) -> list[tuple[Entry, frozenset[tuple[int, int]]] | None]:
        nonlocal coverage_on
        runs = await ctx.run(target, texts, limits)
        signatures: list[frozenset] = [frozenset()] * len(texts)
        ok = [i for i, r in enumerate(runs) if r.verdict.value in ("AC", "TLE")]
        if coverage_on and ok:
            try:
                cov = await asyncio.to_thread(line_coverage, ctx.sandbox, target, [texts[i] for i in ok], limits=limits)
                for i, c in zip(ok, cov):
                    signatures[i] = frozenset((line, bucket(n)) for line, n in c.hits.items())
            except CoverageUnavailable as exc:
                coverage_on = False
                notes.append(f"no coverage: {exc}")
        out = []
        for i, run in enumerate(runs):
            if i not in ok:
                out.append(None)
                continue
            cost = float(limits.time_ms) if run.verdict.value == "TLE" else run.cpu_ms
            out.append((Entry(texts[i], frozenset(satisfied(run.detail)), cost, run.verdict.value), signatures[i]))
        return out

    for item in await evaluate(seeds):
        if item is not None:
            entry, signature = item
            corpus.append(entry)
            covered |= signature
            conditions_seen |= entry.conditions
    if not corpus:
        return Campaign("loop", error="seeds_fail", detail="the instrumented reference fails on every seed input")

    # The budget is for the search: measuring the seeds (a coverage build) is set-up.
    deadline = time.monotonic() + fuzz_s
    while counts["rounds"] == 0 or time.monotonic() < deadline:
        counts["rounds"] += 1
        parents = [_tournament(corpus, rng) for _ in range(batch)]
        children = await mutate_many(ctx, mutator_code, [p.text for p in parents], batch,
                                     seed=rng.randrange(1 << 30), per_call_ms=mutate_ms, max_input_kb=max_input_kb)
        counts["mutations"] += len(children)
        fresh = []
        for child in children:
            text = child.get("input")
            if not isinstance(text, str) or not text.strip():
                counts["mutator_errors"] += 1
                if child.get("error") and len(notes) < 3:
                    notes.append("mutator: " + child["error"].splitlines()[0][:200])
                continue
            if len(text.encode("utf-8", "surrogatepass")) > max_input_kb * 1024:
                counts["too_large"] += 1
                continue
            key = input_key(text)
            if key in seen_keys:
                counts["duplicates"] += 1
                continue
            seen_keys.add(key)
            fresh.append(text)
        verdicts = await validate_many(ctx, validator_code, fresh, per_input_ms=validate_ms)
        valid = [t for t, v in zip(fresh, verdicts) if v is None]
        counts["invalid"] += len(fresh) - len(valid)
        if not valid:
            continue
        top_cost = max(e.cost for e in corpus)
        for text, item in zip(valid, await evaluate(valid)):
            if item is None:
                counts["target_failed"] += 1
                continue
            entry, signature = item
            pool.append(Candidate(input=text, source="loop", cpu_ms=entry.cost, status=entry.status,
                                  conditions=sorted(entry.conditions)))
            if signature - covered or entry.conditions - conditions_seen or entry.cost > top_cost:
                corpus.append(entry)
                counts["added"] += 1
                covered |= signature
                conditions_seen |= entry.conditions
    pool.sort(key=lambda c: (c.status == "TLE", c.cpu_ms, len(c.conditions)), reverse=True)
    note = ("pure-Python loop: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in counts.items())
            + f", corpus {len(corpus)}, conditions seen {sorted(conditions_seen)}, coverage "
            + ("on" if coverage_on else "off") + f"; {min(len(pool), candidates)} candidates")
    if notes:
        note += "; " + "; ".join(notes)
    return Campaign("loop", pool[:candidates], note)


def _tournament(corpus: list[Entry], rng: random.Random) -> Entry:
    a, b = rng.choice(corpus), rng.choice(corpus)
    fitter, other = (a, b) if a.fitness >= b.fitness else (b, a)
    return fitter if rng.random() < 0.75 else other

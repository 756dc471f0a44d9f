"""The analyses TC-Bench reports beside Table 1, over a run directory or a benchmark.

- ``fig4a``: score inflation — HackRate of a run's suites on the full wrong-code pool
  against the WrongSelect basis of the same problems (needs a benchmark of raw problems:
  golden tests and the whole pool, e.g. zoo-mini or Kattis packages).
- ``fig4c``: stability — PassRate and HackRate over repeated draws of the 8 validators
  from the fastest 20% (on TC-Bench's published 8 every draw is the same set; said so).
- ``fig6``: HackRate and PassRate against the number of correct codes validating the
  tests (nested draws: the first k of one seeded order of the problem's correct codes).
- ``fig7``: WrongSelect's convergence — the best objective so far after each restart,
  averaged over the problems of a benchmark built by ``tczoo build-benchmark``.
- ``fig8``: wrong codes per problem before and after WrongSelect (same benchmark).
- ``a5``: the failure statistics of Appendix A.5 from a run's recorded failure reasons.

Each returns ``Table`` objects; ``tczoo tcbench analyze KIND TARGET`` prints them. Re-scoring
analyses execute through one memo, so a (program, input) pair runs once per analysis.
"""

from __future__ import annotations

import random
import statistics
from collections import Counter
from pathlib import Path
from typing import Any, Callable

from tczoo.errors import UserError
from tczoo.execution import score_suite
from tczoo.runner import Table, TaskSpec
from tczoo.runners.hackrate import HackRateRunner
from tczoo.runners.hackrate_tables import METHOD_ORDER, per_problem, unscorable
from tczoo.schema import GenerationRecord, Problem, Program

ANALYSES = ("fig4a", "fig4c", "fig6", "fig7", "fig8", "a5")


class AnalysisError(UserError, ValueError):
    """An analysis asked of a target that cannot give it (one line, exit 2)."""


# --------------------------------------------------------------------------- run plumbing


class RunContext:
    """A run's generations with its problems and a HackRate runner configured as the
    run's, executing through a memo."""

    def __init__(self, run_dir: Path, sandbox):
        from tczoo.benchmarks import load_benchmark
        from tczoo.store import RunStore

        self.store = RunStore.open(run_dir)
        config = self.store.config
        self.config = config
        self.problems = {p.id: p for p in load_benchmark(config.benchmark, config.problems, limit=config.limit, sandbox=sandbox)}
        self.params = dict(config.params.get("runner:hackrate", {}))
        self.sandbox = sandbox
        self.memo: dict = {}
        self.generations = [g for g in self.store.generations()
                            if g.problem_id in self.problems and self._scored_by_hackrate(g)]

    def _scored_by_hackrate(self, g: GenerationRecord) -> bool:
        if self.config.runner:
            return self.config.runner == "hackrate"
        from tczoo.registry import get_method

        try:
            return get_method(g.method).runner == "hackrate"
        except KeyError:
            return False

    def runner(self, **override: Any) -> HackRateRunner:
        r = HackRateRunner(self.sandbox, **{**self.params, **override})
        r.memo = self.memo
        return r


def _key(g: GenerationRecord) -> tuple[str, str]:
    return (g.model, g.method)


def _ordered(keys) -> list[tuple[str, str]]:
    def rank(k):
        m = k[1].lower()
        return (k[0], METHOD_ORDER.index(m) if m in METHOD_ORDER else len(METHOD_ORDER), m)
    return sorted(keys, key=rank)


def _score_all(ctx: RunContext, runner: HackRateRunner, *, problem_of: Callable[[str], Problem] | None = None,
               validators_of: Callable[[Problem], list[Program]] | None = None) -> dict[tuple[str, str], Any]:
    """Every hackrate-scored generation of the run, scored by ``runner``; per (model,
    method), the per-problem metrics."""
    records: dict[tuple[str, str], list] = {}
    for g in ctx.generations:
        problem = problem_of(g.problem_id) if problem_of else ctx.problems[g.problem_id]
        validators = validators_of(problem) if validators_of else None
        rec = score_suite(runner, problem, TaskSpec(key=g.task, task=None), g.suite,  # type: ignore[arg-type]
                          validators=validators)
        rec.model, rec.method = g.model, g.method
        records.setdefault(_key(g), []).append(rec)
    return {k: per_problem(v) for k, v in records.items()}


def _mean_of(problems: dict[str, dict[str, float]], key: str) -> float | None:
    vals = [m[key] for m in problems.values() if key in m and not unscorable(m)]
    return sum(vals) / len(vals) if vals else None


# --------------------------------------------------------------------------- Figure 4a


def fig4a(run_dir: Path, sandbox, *, restarts: int = 1000, seed: int = 0) -> list[Table]:
    """HackRate on every wrong code of each problem vs on its WrongSelect basis (§4)."""
    from tczoo.benchmarks.construct import build_problem

    ctx = RunContext(run_dir, sandbox)
    basis: dict[str, Problem] = {}
    skipped: list[str] = []
    for pid, problem in ctx.problems.items():
        if not problem.golden_tests:
            skipped.append(pid)
            continue
        built, _ = build_problem(problem, sandbox, restarts=restarts, seed=seed)
        if built is None:
            skipped.append(pid)
            continue
        names = {w.name for w in built.wrong_solutions}
        basis[pid] = problem.model_copy(update={"wrong_solutions": [w for w in problem.wrong_solutions
                                                                    if w.name in names]})
    if not basis:
        raise AnalysisError("fig4a needs problems with golden tests and a wrong-code pool WrongSelect qualifies "
                         "(a TC-Bench file holds only the basis)")
    keep = set(basis)
    ctx.generations = [g for g in ctx.generations if g.problem_id in keep]
    runner = ctx.runner()
    full = _score_all(ctx, runner)
    reduced = _score_all(ctx, runner, problem_of=basis.__getitem__)
    rows = []
    for key in _ordered(full):
        hr_full, hr_basis = _mean_of(full[key], "hack_rate"), _mean_of(reduced[key], "hack_rate")
        rows.append({"model": key[0], "method": key[1].upper(), "problems": len(full[key]),
                     "wrong codes": statistics.mean(len(ctx.problems[p].wrong_solutions) for p in full[key]),
                     "basis": statistics.mean(len(basis[p].wrong_solutions) for p in full[key]),
                     "HR all wrong codes": hr_full, "HR WrongSelect basis": hr_basis,
                     "inflation": None if hr_full is None or hr_basis is None else hr_full - hr_basis})
    notes = [f"basis: the paper's filters and WrongSelect ({restarts} restarts, seed {seed}) on each problem's pool"]
    if skipped:
        notes.append(f"{len(skipped)} problem(s) left out (no golden tests, or excluded by the filters): "
                     + ", ".join(skipped[:5]))
    return [Table(title="Score inflation: all wrong codes vs the WrongSelect basis (Figure 4a)",
                  columns=["model", "method", "problems", "wrong codes", "basis", "HR all wrong codes",
                           "HR WrongSelect basis", "inflation"], rows=rows, notes=notes, decimals=2)]


# --------------------------------------------------------------------------- validator draws


def draw_validators(runner: HackRateRunner, problem: Problem, n: int, seed: int, *, pool: str = "paper") -> list[Program]:
    """``n`` validators for one draw. ``pool="paper"``: from the runner's candidates (the
    published set, or the fastest 20% of a raw set); ``"all"``: from every correct code
    that passes the timing tests, first ``n`` of one seeded order (nested in n)."""
    from tczoo.benchmarks.correct_codes import select_fastest

    if runner.validator_mode(problem) == "published":
        candidates = list(problem.solutions)
    else:
        fraction = 1.0 if pool == "all" else runner.params.fastest_fraction
        candidates = select_fastest(problem, runner.sandbox, n=len(problem.solutions), fraction=fraction,
                                    limits=runner.validator_limits(problem)).chosen
    order = sorted(candidates, key=lambda p: p.digest)
    random.Random(f"{seed}:{problem.id}:validators").shuffle(order)
    return order[:n]


def fig4c(run_dir: Path, sandbox, *, draws: int = 5, n: int = 8) -> list[Table]:
    """PassRate and HackRate over ``draws`` random draws of ``n`` validators (Figure 4c)."""
    ctx = RunContext(run_dir, sandbox)
    runner = ctx.runner()
    per_draw = []
    distinct: set[tuple] = set()
    for d in range(draws):
        def validators_of(problem, d=d):
            chosen = draw_validators(runner, problem, n, d)
            distinct.add((problem.id, tuple(sorted(p.digest for p in chosen))))
            return chosen
        per_draw.append(_score_all(ctx, runner, validators_of=validators_of))
    rows = []
    for key in _ordered(per_draw[0]):
        pr = [v for v in (_mean_of(s[key], "pass_rate") for s in per_draw) if v is not None]
        hr = [v for v in (_mean_of(s[key], "hack_rate") for s in per_draw) if v is not None]
        rows.append({"model": key[0], "method": key[1].upper(), "draws": draws,
                     "PR mean": _m(pr), "PR sd": _sd(pr), "PR min": min(pr, default=None), "PR max": max(pr, default=None),
                     "HR mean": _m(hr), "HR sd": _sd(hr), "HR min": min(hr, default=None), "HR max": max(hr, default=None)})
    sets_per_problem = Counter(pid for pid, _ in distinct)
    notes = [f"{n} validators per draw from the paper's pool (published set, or fastest 20% of a raw set); "
             f"distinct validator sets per problem: {min(sets_per_problem.values(), default=0)}-"
             f"{max(sets_per_problem.values(), default=0)} over {draws} draws"]
    if max(sets_per_problem.values(), default=0) <= 1:
        notes.append("every draw gave the same set (the pool has no more than n codes): no spread to measure")
    return [Table(title="Stability over draws of the correct codes (Figure 4c)",
                  columns=["model", "method", "draws", "PR mean", "PR sd", "PR min", "PR max",
                           "HR mean", "HR sd", "HR min", "HR max"], rows=rows, notes=notes, decimals=2)]


def fig6(run_dir: Path, sandbox, *, counts: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8), seed: int = 0) -> list[Table]:
    """PassRate and HackRate against the number of correct codes validating (Figure 6)."""
    ctx = RunContext(run_dir, sandbox)
    runner = ctx.runner()
    rows = []
    by_k = {}
    available: dict[str, int] = {}
    for k in counts:
        def validators_of(problem, k=k):
            chosen = draw_validators(runner, problem, k, seed, pool="all")
            available[problem.id] = max(available.get(problem.id, 0), len(chosen))
            return chosen
        by_k[k] = _score_all(ctx, runner, validators_of=validators_of)
    for key in _ordered(by_k[counts[0]]):
        for k in counts:
            rows.append({"model": key[0], "method": key[1].upper(), "correct codes": k,
                         "problems with k": sum(1 for p in by_k[k][key] if available.get(p, 0) >= k),
                         "PR": _mean_of(by_k[k][key], "pass_rate"), "PR 95% CI": _interval_of(by_k[k][key], "pass_rate"),
                         "HR": _mean_of(by_k[k][key], "hack_rate"), "HR 95% CI": _interval_of(by_k[k][key], "hack_rate")})
    return [Table(title="HackRate vs number of correct codes validating the tests (Figure 6)",
                  columns=["model", "method", "correct codes", "problems with k", "PR", "PR 95% CI", "HR", "HR 95% CI"],
                  rows=rows, decimals=2,
                  notes=["the first k of one seeded order of each problem's correct codes (every one that passes "
                         "its golden tests or samples; the published set on TC-Bench data); a problem with fewer "
                         "than k uses all it has",
                         "95% CI: over the problems, as every report's (a seeded bootstrap of the mean, exact "
                         "Clopper–Pearson where each problem scores 0 or 100); the figure draws it as a band"])]


def _interval_of(problems: dict[str, dict[str, float]], key: str) -> Any:
    """The interval of ``_mean_of``: over the scorable problems that have ``key``."""
    from tczoo.report import STATS
    from tczoo.stats import mean_interval

    values = [m[key] for m in problems.values() if key in m and not unscorable(m)]
    return mean_interval(values, scale=100.0, resamples=STATS.resamples, seed=STATS.seed)


def _m(xs: list[float]) -> float | None:
    return statistics.mean(xs) if xs else None


def _sd(xs: list[float]) -> float | None:
    return statistics.pstdev(xs) if len(xs) > 1 else (0.0 if xs else None)


# --------------------------------------------------------------------------- Figures 7-8


def _constructions(spec: str) -> list[tuple[str, dict]]:
    from tczoo.benchmarks import load_benchmark

    found = [(p.id, p.meta["construction"]) for p in load_benchmark(spec) if "construction" in p.meta]
    if not found:
        raise AnalysisError(f"{spec}: no construction record (build it with tczoo build-benchmark)")
    return found


def fig7(spec: str, sandbox=None, *, checkpoints: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20, 50, 100,
                                                                        200, 500, 1000)) -> list[Table]:
    """The best objective found so far after each restart, over a built benchmark."""
    found = _constructions(spec)
    runs = []
    for _, c in found:
        history = c["wrongselect"]["history"]
        best, so_far = [], float("inf")
        for f in history:
            so_far = min(so_far, f)
            best.append(so_far)
        runs.append(best)
    longest = max(len(b) for b in runs)
    rows = []
    for e in [c for c in checkpoints if c <= longest] + ([longest] if longest not in checkpoints else []):
        at = [b[min(e, len(b)) - 1] for b in runs]
        prev = [b[min(e - 1, len(b)) - 1] if e > 1 else float("inf") for b in runs]
        rows.append({"restart": e, "mean best F": statistics.mean(at),
                     "problems improved": sum(a < p - 1e-12 for a, p in zip(at, prev)),
                     "problems at final best": sum(abs(a - b[-1]) <= 1e-12 for a, b in zip(at, runs))})
    return [Table(title="WrongSelect convergence: best mean pairwise Jaccard after e restarts (Figure 7)",
                  columns=["restart", "mean best F", "problems improved", "problems at final best"], rows=rows,
                  decimals=4, notes=[f"{len(found)} problem(s); 'problems improved' counts those whose best "
                                     "fell at that restart (at the checkpoints listed)"])]


BINS = ((1, 5), (6, 10), (11, 20), (21, 50), (51, 100), (101, 10**9))


def fig8(spec: str, sandbox=None) -> list[Table]:
    """Wrong codes per problem before (the pool) and after WrongSelect (the rank)."""
    found = _constructions(spec)
    before = [c["wrong_pool"] for _, c in found]
    after = [c["rank"] for _, c in found]
    rows = []
    for lo, hi in BINS:
        label = f"{lo}-{hi}" if hi < 10**9 else f">{lo - 1}"
        rows.append({"wrong codes": label,
                     "problems before": sum(lo <= b <= hi for b in before),
                     "problems after": sum(lo <= a <= hi for a in after),
                     "CDF before %": 100.0 * sum(b <= hi for b in before) / len(before),
                     "CDF after %": 100.0 * sum(a <= hi for a in after) / len(after)})
    notes = [f"{len(found)} problem(s): {sum(before)} wrong codes before, {sum(after)} after "
             f"({100.0 * sum(after) / max(sum(before), 1):.1f}%); median {statistics.median(before)} -> "
             f"{statistics.median(after)}",
             "intermediate counts (C/C++ only, WA only, row filter): "
             f"{sum(c['wrong_in_languages'] for _, c in found)}, {sum(c['wrong_only_wa'] for _, c in found)}, "
             f"{sum(c['wrong_after_row_filter'] for _, c in found)}"]
    return [Table(title="Wrong codes per problem before and after WrongSelect (Figure 8)",
                  columns=["wrong codes", "problems before", "problems after", "CDF before %", "CDF after %"],
                  rows=rows, notes=notes, decimals=1)]


# --------------------------------------------------------------------------- Appendix A.5

RESOURCE = {"timeout", "memory", "output_too_large", "input_too_large"}
FORMAT = {"bad_json", "code_in_json", "truncated", "no_code_block", "missing_definition", "missing_input",
          "not_an_object", "no_json"}


def _kind(stage: str, reason: str) -> str:
    if reason.startswith("solution_instead_of"):
        return "solution"
    if stage == "llm":
        return "llm"
    if stage == "parse" and (reason in FORMAT or reason.startswith("bad_") or reason.startswith("no_")):
        return "format"
    if reason in RESOURCE or reason.endswith(("_tle", "_mle", "_ole")):
        return "resource"
    return "other"


def a5(run_dir: Path, sandbox=None) -> list[Table]:
    """Appendix A.5 from recorded failure reasons: answers that are solutions instead of
    tests, formatting errors, resource failures (timeouts, memory, oversized inputs) and
    problems left without usable or valid tests."""
    from tczoo.store import RunStore

    store = RunStore.open(run_dir)
    gens = store.generations()
    valid = {(s.method, s.problem_id, s.task): s.n_valid for s in store.scores() if s.runner == "hackrate"}
    groups: dict[tuple[str, str], list[GenerationRecord]] = {}
    for g in gens:
        groups.setdefault(_key(g), []).append(g)
    rows, reasons = [], []
    for key in _ordered(groups):
        gs = groups[key]
        answers = sum(g.suite.provenance.usage.calls for g in gs)
        kinds: Counter[str] = Counter()
        gen_kinds: Counter[str] = Counter()
        for g in gs:
            seen = set()
            for f in g.suite.provenance.failures:
                k = _kind(f.stage, f.reason)
                kinds[k] += 1
                seen.add(k)
                reasons.append((key, f.stage, f.reason))
            gen_kinds.update(seen)
        scored = [valid[(g.method, g.problem_id, g.task)] for g in gs if (g.method, g.problem_id, g.task) in valid]
        rows.append({
            "model": key[0], "method": key[1].upper(), "generations": len(gs), "LLM answers": answers,
            "solution instead of tests %": 100.0 * kinds["solution"] / answers if answers else None,
            "format errors %": 100.0 * kinds["format"] / answers if answers else None,
            "resource failures %": 100.0 * gen_kinds["resource"] / len(gs),
            "LLM failures %": 100.0 * gen_kinds["llm"] / len(gs),
            "no tests %": 100.0 * sum(not g.suite.tests for g in gs) / len(gs),
            "no valid tests %": 100.0 * sum(v == 0 for v in scored) / len(scored) if scored else None,
        })
    # ties by name, not by the order generations were read in: a replay regenerates the table
    top = sorted(Counter(reasons).items(), key=lambda kv: (-kv[1], str(kv[0])))[:30]
    return [
        Table(title="Common failures (Appendix A.5)",
              columns=["model", "method", "generations", "LLM answers", "solution instead of tests %",
                       "format errors %", "resource failures %", "LLM failures %", "no tests %", "no valid tests %"],
              rows=rows, decimals=2,
              notes=["solution/format: share of LLM answers; resource/LLM failures, no tests: share of generations "
                     "with at least one; no valid tests: share of scored generations"]),
        Table(title="Most frequent recorded failure reasons",
              columns=["model", "method", "stage", "reason", "count"],
              rows=[{"model": k[0], "method": k[1].upper(), "stage": st, "reason": r, "count": n}
                    for (k, st, r), n in top]),
    ]


# --------------------------------------------------------------------------- dispatch

RUN_ANALYSES = {"fig4a": fig4a, "fig4c": fig4c, "fig6": fig6, "a5": a5}
BENCHMARK_ANALYSES = {"fig7": fig7, "fig8": fig8}


def analyze(kind: str, target: str, sandbox=None, **options: Any) -> list[Table]:
    """Run analysis ``kind`` over a run directory (fig4a, fig4c, fig6, a5) or a benchmark
    spec built by ``tczoo build-benchmark`` (fig7, fig8)."""
    if kind in BENCHMARK_ANALYSES:
        return BENCHMARK_ANALYSES[kind](target, sandbox, **options)
    if kind not in RUN_ANALYSES:
        raise AnalysisError(f"unknown analysis {kind!r} (known: {', '.join(ANALYSES)})")
    run_dir = Path(target)
    if not (run_dir / "config.json").is_file():
        raise AnalysisError(f"{target} is not a tczoo run directory (no config.json)")
    if kind == "a5":
        return a5(run_dir)
    own = sandbox is None
    if own:
        from tczoo.sandbox import Sandbox

        sandbox = Sandbox()
    try:
        return RUN_ANALYSES[kind](run_dir, sandbox, **options)
    finally:
        if own:
            sandbox.close()

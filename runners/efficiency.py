"""Efficiency scoring: Algorithmic Slowdown Rate (ASR), STAB (Lim et al., 2026,
arXiv:2605.27981) §4.3.

Per problem and language (Python, C++ and Java by default; a language without accepted
solutions is skipped):

1. *Timings on the original tests*: every accepted solution runs on every golden test
   (the benchmark's own tests; samples when there are none) ``repeats`` times; a
   runtime is the median CPU time of its runs. A solution that fails an original test
   (wrong output, crash, TLE) is not eligible as a reference, as in the paper's
   filtering (Appendix B). Cached per problem under ``cache_dir()/efficiency``.
2. *Selection*: eligible solutions ranked by mean runtime on the original tests:
   ``fast`` (lowest mean), ``slow`` (highest), and ``r1..r3``: three distinct
   solutions sampled (seeded by ``seed`` and the problem) from the rest. With fewer
   than five solutions the random slots take min(3, remaining); when nothing remains
   they sample from all eligible solutions, so they coincide with fast/slow — the
   detail records ``overlap`` and the table notes say how often.
3. *Threshold*: τ*(s) = max over the original tests of s's runtime.
4. *Exposure*: a generated test t exposes s when τ(s, t) > τ*(s) (median of
   ``repeats`` runs; CPU time), or when s exceeds the problem's time limit on t (TLE,
   counted as exposed and reported separately). A run that crashes (RE/MLE/OLE —
   usually an invalid input) does not expose and is counted as ``crash``.
5. *ASR_r* = exposed / N_gen over all problems (micro average, the paper's formula).
   ``count_missing`` (on): a method that delivered fewer tests than the budget has
   the missing ones counted as generated and not exposing, so a failing method is
   not rewarded with a smaller denominator.

Tables (``summarize``): Table 2 layout (Fast / Slow / Random† per language, Avg over
the five references and the languages), Table 5 layout (Fast, Slow, R1-R3, Range,
Avg per language), Tables 3-4 layout (ASR per language, averaged over the five), and
the TLE share of exposures.
"""

from __future__ import annotations

import random
import statistics
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tczoo.paths import cached_json
from tczoo.runner import Runner, Table, TaskSpec
from tczoo.sandbox import Job, Limits, Verdict
from tczoo.schema import Language, Problem, Program, ScoreRecord, Setting, Task, TestSuite

SLOTS = ("fast", "slow", "r1", "r2", "r3")
LANG_TITLES = {"python": "Python", "cpp": "C++", "java": "Java", "c": "C"}


class EfficiencyParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    languages: list[str] = Field(default_factory=lambda: ["python", "cpp", "java"])
    repeats: int = Field(3, ge=1, description="runs per (solution, test); the runtime is their median")
    tests: int = Field(5, ge=1, description="tests per problem a method is asked for (the paper: 5)")
    random_refs: int = Field(3, ge=0, description="randomly sampled references per language")
    count_missing: bool = Field(True, description="missing tests (fewer than `tests`) count as not exposing")
    reference_language: str = Field("cpp", description="language of the reference given to spec+correct methods")
    seed: int = 0


def median_runtime(results: list[Any]) -> tuple[float, str]:
    """(median CPU ms, verdict) of repeated runs: TLE if any run was a TLE, else the
    first non-AC verdict, else AC."""
    verdicts = [r.verdict for r in results]
    if Verdict.TLE in verdicts:
        return max(r.cpu_ms for r in results), "TLE"
    bad = next((v for v in verdicts if v is not Verdict.AC), None)
    return statistics.median(r.cpu_ms for r in results), (bad.value if bad else "AC")


def exposes(runtime: float, verdict: str, tau_star: float) -> str:
    """``"tle"``, ``"slow"`` (τ > τ*), ``"crash"`` or ``"no"``."""
    if verdict == "TLE":
        return "tle"
    if verdict != "AC":
        return "crash"
    return "slow" if runtime > tau_star else "no"


def select_references(ranked: list[int], rng: random.Random, random_refs: int = 3) -> tuple[dict[str, int], bool]:
    """Slots → solution index from solutions ranked fastest first; and whether slots overlap."""
    if not ranked:
        return {}, False
    slots = {"fast": ranked[0], "slow": ranked[-1]}
    rest = ranked[1:-1]
    pool = rest if rest else ranked
    picks = rng.sample(pool, min(random_refs, len(pool)))
    for k, idx in enumerate(picks, 1):
        slots[f"r{k}"] = idx
    overlap = len(set(slots.values())) < len(slots)
    return slots, overlap


class EfficiencyRunner(Runner):
    name = "efficiency"
    paper = "STAB (Lim et al., 2026, arXiv:2605.27981) §4.3: Algorithmic Slowdown Rate"
    summary = "ASR: share of generated tests that push a selected accepted solution past its max runtime on the original tests"
    Params = EfficiencyParams

    # ------------------------------------------------------------------ tasks

    def budget(self, problem: Problem) -> int:
        return self.params.tests

    def tasks(self, problem: Problem, method_cls: type, *, samples: int, seed: int) -> list[TaskSpec]:
        if method_cls.setting is not Setting.SPEC_CORRECT:
            return super().tasks(problem, method_cls, samples=samples, seed=seed)
        reference = self.reference(problem)
        if reference is None:
            return []
        return [TaskSpec(key="" if samples == 1 else f"s{i}", sample=i,
                         task=Task.from_problem(problem, Setting.SPEC_CORRECT, budget=self.budget(problem),
                                                seed=seed + i, correct=[reference]))
                for i in range(samples)]

    def reference(self, problem: Problem) -> Program | None:
        """The one reference a spec+correct method (EvalPerf) is given: the first
        accepted solution in ``reference_language``, else the first one."""
        want = Language.parse(self.params.reference_language)
        return next((s for s in problem.solutions if s.language is want),
                    problem.solutions[0] if problem.solutions else None)

    # ------------------------------------------------------------------ timings

    def _limits(self, problem: Problem) -> Limits:
        return Limits.of(problem)

    def _time(self, programs: list[Program], inputs: list[str], limits: Limits,
              expected: list[str | None] | None = None, checker: str | None = None) -> list[list[tuple[float, str]]]:
        """(median CPU ms, verdict) of every program on every input: ``out[p][i]``.
        A TLE is not repeated (it is exposed whatever the other runs say)."""
        out: list[list[list[Any]]] = [[[] for _ in inputs] for _ in programs]
        pending = [(p, i) for p in range(len(programs)) for i in range(len(inputs))]
        for _ in range(self.params.repeats):
            jobs = [Job(program=programs[p], stdin=inputs[i], limits=limits, tag=(p, i),
                        expected=expected[i] if expected else None, comparator=checker)
                    for p, i in pending]
            for job, res in zip(jobs, self.sandbox.run_many(jobs)):
                p, i = job.tag
                out[p][i].append(res)
            pending = [(p, i) for p, i in pending if out[p][i][-1].verdict is not Verdict.TLE]
        return [[median_runtime(runs) for runs in row] for row in out]

    def original_timings(self, problem: Problem) -> dict[str, Any]:
        """Per solution: runtimes and verdicts on the original tests (cached)."""
        tests = [(t.input, t.output) for t in problem.golden_tests] or [(s.input, s.output) for s in problem.samples]
        key = [[s.digest for s in problem.solutions], tests, problem.time_limit_ms,
               problem.memory_limit_mb, problem.checker, self.params.repeats]
        return cached_json("efficiency", key, lambda: self._time_originals(problem, tests))

    def _time_originals(self, problem: Problem, tests: list[tuple[str, str]]) -> dict[str, Any]:
        timed = self._time(problem.solutions, [t[0] for t in tests], self._limits(problem),
                           expected=[t[1] for t in tests], checker=problem.checker)
        return {"tests": len(tests), "solutions": [
            {"name": s.name, "language": s.language.value, "runtimes": [r for r, _ in row],
             "verdicts": [v for _, v in row]} for s, row in zip(problem.solutions, timed)]}

    def references(self, problem: Problem) -> dict[str, dict[str, Any]]:
        """Per language: the selected slots with τ*, plus what was excluded and why."""
        data = self.original_timings(problem)
        out: dict[str, dict[str, Any]] = {}
        for lang in self.params.languages:
            language = Language.parse(lang)
            idx = [i for i, s in enumerate(data["solutions"]) if s["language"] == language.value]
            failing = [i for i in idx if any(v != "AC" for v in data["solutions"][i]["verdicts"])]
            eligible = [i for i in idx if i not in failing and data["solutions"][i]["runtimes"]]
            ranked = sorted(eligible, key=lambda i: (statistics.fmean(data["solutions"][i]["runtimes"]),
                                                     data["solutions"][i]["name"]))
            rng = random.Random(f"{self.params.seed}:{problem.id}:{language.value}")
            slots, overlap = select_references(ranked, rng, self.params.random_refs)
            if not slots:
                continue
            out[language.value] = {
                "slots": {slot: {"solution": i, "name": data["solutions"][i]["name"],
                                 "tau_star": max(data["solutions"][i]["runtimes"]),
                                 "mean": statistics.fmean(data["solutions"][i]["runtimes"])}
                          for slot, i in slots.items()},
                "overlap": overlap,
                "excluded": [data["solutions"][i]["name"] for i in failing],
            }
        return out

    # ------------------------------------------------------------------ scoring

    def score(self, problem: Problem, spec: TaskSpec, suite: TestSuite) -> ScoreRecord:
        budget = self.budget(problem)
        tests = [t.input for t in suite.tests[:budget]]
        n_gen = max(budget, len(tests)) if self.params.count_missing else len(tests)
        refs = self.references(problem)
        # Each distinct selected solution runs once per test, whatever slots it fills.
        chosen = sorted({s["solution"] for r in refs.values() for s in r["slots"].values()})
        programs = [problem.solutions[i] for i in chosen]
        timed = self._time(programs, tests, self._limits(problem)) if tests and programs else [[] for _ in programs]
        by_solution = dict(zip(chosen, timed))
        metrics: dict[str, float] = {"n_generated": float(len(tests)), "n_counted": float(n_gen)}
        detail: dict[str, Any] = {"languages": {}, "budget": budget, "count_missing": self.params.count_missing}
        for lang, info in refs.items():
            lang_detail = {"overlap": info["overlap"], "excluded": info["excluded"], "slots": {}}
            for slot, ref in info["slots"].items():
                outcomes = [exposes(rt, v, ref["tau_star"]) for rt, v in by_solution[ref["solution"]]]
                exposed = sum(o in ("slow", "tle") for o in outcomes)
                metrics[f"{lang}:{slot}:n"] = float(n_gen)
                metrics[f"{lang}:{slot}:exposed"] = float(exposed)
                metrics[f"{lang}:{slot}:tle"] = float(outcomes.count("tle"))
                metrics[f"{lang}:{slot}:crash"] = float(outcomes.count("crash"))
                metrics[f"asr:{lang}:{slot}"] = 100.0 * exposed / n_gen if n_gen else 0.0
                lang_detail["slots"][slot] = {
                    "solution": ref["name"], "tau_star_ms": ref["tau_star"], "mean_ms": ref["mean"],
                    "runtimes_ms": [rt for rt, _ in by_solution[ref["solution"]]],
                    "verdicts": [v for _, v in by_solution[ref["solution"]]], "outcomes": outcomes}
            detail["languages"][lang] = lang_detail
        return ScoreRecord(runner=self.name, method=suite.provenance.method, model=suite.provenance.model,
                           problem_id=problem.id, metrics=metrics, detail=detail)

    # ------------------------------------------------------------------ tables

    def summarize(self, scores: list[ScoreRecord]) -> list[Table]:
        groups: dict[tuple[str, str], list[ScoreRecord]] = {}
        for s in scores:
            groups.setdefault((s.model, s.method), []).append(s)
        langs = [l for l in ("python", "java", "cpp", "c")
                 if any(k.startswith(f"{l}:") for s in scores for k in s.metrics)]
        main_rows, per_ref_rows, ablation_rows, tle_rows = [], [], [], []
        overlaps = total_lang_problems = 0
        for s in scores:
            for info in s.detail.get("languages", {}).values():
                total_lang_problems += 1
                overlaps += bool(info.get("overlap"))
        for (model, method), recs in sorted(groups.items()):
            asr: dict[tuple[str, str], float | None] = {}
            tle: dict[str, float] = {}
            for lang in langs:
                tle_n = exp_n = 0.0
                for slot in SLOTS:
                    n = sum(r.metrics.get(f"{lang}:{slot}:n", 0.0) for r in recs)
                    e = sum(r.metrics.get(f"{lang}:{slot}:exposed", 0.0) for r in recs)
                    asr[(lang, slot)] = 100.0 * e / n if n else None
                    tle_n += sum(r.metrics.get(f"{lang}:{slot}:tle", 0.0) for r in recs)
                    exp_n += e
                tle[lang] = 100.0 * tle_n / exp_n if exp_n else 0.0

            def mean(values: list[float | None]) -> float | None:
                vals = [v for v in values if v is not None]
                return sum(vals) / len(vals) if vals else None

            main = {"model": model, "method": method.upper(), "problems": len({r.problem_id for r in recs})}
            ablation = {"model": model, "method": method.upper()}
            five_means = []
            for lang in langs:
                title = LANG_TITLES[lang]
                randoms = [asr[(lang, s)] for s in ("r1", "r2", "r3")]
                main[f"{title} Fast"] = asr[(lang, "fast")]
                main[f"{title} Slow"] = asr[(lang, "slow")]
                main[f"{title} Random"] = mean(randoms)
                five = mean([asr[(lang, s)] for s in SLOTS])
                five_means.append(five)
                ablation[f"ASR {title}"] = five
                present = [asr[(lang, s)] for s in SLOTS if asr[(lang, s)] is not None]
                per_ref_rows.append({"language": title, "model": model, "method": method.upper(),
                                     "Fast": asr[(lang, "fast")], "Slow": asr[(lang, "slow")],
                                     "R1": asr[(lang, "r1")], "R2": asr[(lang, "r2")], "R3": asr[(lang, "r3")],
                                     "Range": (max(present) - min(present)) if present else None, "Avg": five})
                tle_rows.append({"model": model, "method": method.upper(), "language": title,
                                 "exposed via TLE %": tle[lang]})
            main["Avg"] = mean(five_means)
            main_rows.append(main)
            ablation_rows.append(ablation)
        notes = [
            "ASR = generated tests with runtime > τ* (max runtime on the original tests; CPU time, median of "
            "repeated runs) / generated tests, micro-averaged over problems; a TLE counts as exposed.",
        ]
        if any(s.detail.get("count_missing") for s in scores):
            notes.append("missing tests (a method delivered fewer than the budget) are counted as not exposing")
        if overlaps:
            notes.append(f"{overlaps} of {total_lang_problems} (problem, language) pairs have fewer than five "
                         "accepted solutions: the random references coincide with Fast/Slow there")
        main_cols = ["model", "method", "problems"] + [f"{LANG_TITLES[l]} {c}" for l in langs
                                                       for c in ("Fast", "Slow", "Random")] + ["Avg"]
        return [
            Table(title="ASR across five accepted solutions (Table 2 layout; %; Random = mean of R1-R3)",
                  columns=main_cols, rows=main_rows, notes=notes),
            Table(title="ASR per reference solution (Table 5 layout; %)",
                  columns=["language", "model", "method", "Fast", "Slow", "R1", "R2", "R3", "Range", "Avg"],
                  rows=per_ref_rows),
            Table(title="ASR averaged over five accepted solutions (Tables 3-4 layout; %)",
                  columns=["model", "method"] + [f"ASR {LANG_TITLES[l]}" for l in langs], rows=ablation_rows),
            Table(title="Share of exposures that were TLEs (%)",
                  columns=["model", "method", "language", "exposed via TLE %"], rows=tle_rows),
        ]

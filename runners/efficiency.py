"""Efficiency scoring: Algorithmic Slowdown Rate (ASR), STAB (Lim et al., 2026,
arXiv:2605.27981) §4.3.

Per problem and language (Python, C++ and Java by default; a language without accepted
solutions is skipped):

1. *Timings on the original tests*: every accepted solution runs on every golden test
   (the benchmark's own tests; samples when there are none) ``repeats`` times; a
   runtime is the median CPU time of its runs. Cached per problem under
   ``cache_dir()/efficiency``.
2. *Selection* (Appendix B): solutions ranked by mean runtime on the original tests:
   ``fast`` (lowest mean), ``slow`` (highest), and ``r1..r3``: three distinct
   solutions sampled (seeded by ``seed`` and the problem) from the rest. With fewer
   than five solutions the random slots take min(3, remaining); when nothing remains
   they sample from all solutions, so they coincide with fast/slow — the detail
   records ``overlap`` and the table notes say how often.
3. *Filtering* (Appendix B, ``filtering="problem"``): a problem where a *selected*
   solution fails an original test (wrong output, crash, TLE) is excluded: its score
   record says so and carries no ASR, and the tables count and list it. Our option
   ``filtering="solution"`` instead leaves failing solutions out of the selection
   and keeps the problem.
4. *Threshold*: τ*(s) = max over the original tests of s's runtime.
5. *Exposure*: a generated test t exposes s when τ(s, t) > τ*(s) (median of
   ``repeats`` runs; CPU time), or when s exceeds the problem's time limit on t (TLE:
   its runtime is at least the limit, above τ*, so the paper's 𝕀[τ > τ*] counts it;
   reported separately). ``tle="invalid"`` is the authors' ``classify_binary_exceeded``
   instead: a TLE run is an invalid test, in N_gen but never exposing. A run that
   crashes (RE/MLE/OLE — usually an invalid input) does not expose and is counted as
   ``crash``.
6. *ASR_r* = exposed / N_gen over all problems (micro average, the paper's formula),
   N_gen = Σ|T_gen(p)|: the tests the method generated, repeats included (the authors'
   generator keeps them). ``count_missing`` (our option, off) counts the tests a method
   did not deliver (fewer than the budget) as generated and not exposing.

A method given a reference implementation (EvalPerf, spec+correct) gets one accepted
solution in ``reference_language`` (C++, as the paper's Appendix E) that passes every
original test; its ASR on that same reference is the Table 6 layout.

Tests a method flagged as breaking the statement (``TestCase.meta["violations"]``, the
STAB methods with ``validity="record"``) are scored like the others, as the paper
counts every generated test; the tables say how many there were and how many of the
exposures they made.

**Execution environment vs DOMjudge.** The paper times in containerised DOMjudge
judgehosts (Appendix C): cgroups for isolation and memory, CPU time as the measure
with a wall-clock guard, each judgehost bound to its own CPU core, one run per
(solution, test). We time in tczoo's sandbox (docs/sandbox.md): the same kind of
jail (namespaces, cgroups, rlimits), CPU time of the program measured inside the jail
(``wait4``) with a wall-clock guard at twice the limit plus a second — but on a
shared machine without core pinning, where other processes compete for the caches
and the scheduler. Against that noise each runtime is the median of ``repeats`` (3)
runs; a TLE is not repeated. Compilers and flags are ours (``g++ -O2 -std=c++17``,
``python3 -I``, OpenJDK), not DOMjudge's defaults. Absolute runtimes therefore
differ from the paper's; ASR compares each solution with itself on the original
tests under the same conditions, which is what keeps it comparable.

Tables (``summarize``): Table 2 layout (Fast / Slow / Random† per language, Avg over
the five references and the languages), Table 5 layout (Fast, Slow, R1-R3, Range,
Avg per language), Tables 3-4 layout (ASR per language, averaged over the five),
Table 6 layout (ASR on the method's own reference), and the TLE share of exposures.
"""

from __future__ import annotations

import random
import statistics
from collections import defaultdict
from typing import Any, Literal

from pydantic import ConfigDict, Field

from tczoo.execution import REJECTED_NOTE, as_generated, no_sandbox_errors, position, rejected_columns, rejected_detail
from tczoo.paths import cached_json, texts_digest
from tczoo.runner import Matrix, Runner, RunnerParams, Table, TaskSpec
from tczoo.sandbox import Job, Limits, Verdict
from tczoo.schema import Language, Problem, Program, ScoreRecord, Setting, Task, TestSuite

SLOTS = ("fast", "slow", "r1", "r2", "r3")
LANG_TITLES = {"python": "Python", "cpp": "C++", "java": "Java", "c": "C"}


class EfficiencyParams(RunnerParams):
    model_config = ConfigDict(extra="forbid")

    languages: list[str] = Field(default_factory=lambda: ["python", "cpp", "java"],
                                 description="languages whose reference solutions are timed")
    repeats: int = Field(3, ge=1, description="runs per (solution, test); the runtime is their median")
    tests: int = Field(5, ge=1, description="tests per problem a method is asked for (the paper: 5)")
    random_refs: int = Field(3, ge=0, description="randomly sampled references per language")
    count_missing: bool = Field(False, description="missing tests (fewer than `tests`) counted in N_gen as not "
                                                   "exposing (ours; the paper's N_gen counts generated tests only)")
    tle: Literal["exposes", "invalid"] = Field(
        "exposes", description="a TLE on a generated test: exposes (the paper's τ > τ*) or an invalid test, in N_gen "
                               "and never exposing (the authors' classify_binary_exceeded)")
    reference_language: str = Field("cpp", description="language of the reference given to spec+correct methods")
    filtering: Literal["problem", "solution"] = Field(
        "problem", description="problem: exclude a problem whose selected solution fails an original test "
                               "(Appendix B); solution: leave failing solutions out, keep the problem")
    seed: int = Field(0, description="seed of the randomly sampled references")


def median_runtime(results: list[Any]) -> tuple[float, str]:
    """(median CPU ms, verdict) of repeated runs: TLE if any run was a TLE, else the
    first non-AC verdict, else AC."""
    verdicts = [r.verdict for r in results]
    if Verdict.TLE in verdicts:
        return max(r.cpu_ms for r in results), "TLE"
    bad = next((v for v in verdicts if v is not Verdict.AC), None)
    return statistics.median(r.cpu_ms for r in results), (bad.value if bad else "AC")


def exposes(runtime: float, verdict: str, tau_star: float, tle: str = "exposes") -> str:
    """``"tle"`` (exposes), ``"slow"`` (τ > τ*), ``"crash"``, ``"tle_invalid"`` (a TLE
    with ``tle="invalid"``: never exposes) or ``"no"``."""
    if verdict == "TLE":
        return "tle" if tle == "exposes" else "tle_invalid"
    if verdict != "AC":
        return "crash"
    return "slow" if runtime > tau_star else "no"


def scenarios_of(suite: TestSuite) -> dict[str, Any] | None:
    """Which scenarios the method retrieved for the problem and by which route (STAB's
    M2 records ``meta["scenarios"]`` = {"via": [...], "ids": [...]} on its tests and
    generator artifacts); None when the method retrieves none."""
    for meta in [t.meta for t in suite.tests] + [a.program.meta for a in suite.artifacts]:
        found = meta.get("scenarios") if isinstance(meta, dict) else None
        if isinstance(found, dict):
            return {"via": list(found.get("via") or []), "ids": list(found.get("ids") or [])}
    return None


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
        index = self.reference(problem)
        if index is None:
            return []
        reference = problem.solutions[index]
        return [TaskSpec(key="" if samples == 1 else f"s{i}", sample=i, context={"reference": index},
                         task=Task.from_problem(problem, Setting.SPEC_CORRECT, budget=self.budget(problem),
                                                seed=seed + i, correct=[reference]))
                for i in range(samples)]

    def reference(self, problem: Problem) -> int | None:
        """Index of the one reference a spec+correct method (EvalPerf) is given: the
        first accepted solution in ``reference_language`` (C++, Appendix E) that passes
        every original test; None when there is none (the method gets no task)."""
        want = Language.parse(self.params.reference_language)
        candidates = [i for i, s in enumerate(problem.solutions) if s.language is want]
        if not candidates:
            return None
        data = self.original_timings(problem)
        return next((i for i in candidates if all(v == "AC" for v in data["solutions"][i]["verdicts"])), None)

    # ------------------------------------------------------------------ timings

    def _limits(self, problem: Problem) -> Limits:
        return Limits.of(problem)

    def _time(self, programs: list[Program], inputs: list[str], limits: Limits,
              expected: list[str | None] | None = None, checker: str | None = None,
              output_validator=None) -> list[list[tuple[float, str]]]:
        """(median CPU ms, verdict) of every program on every input: ``out[p][i]``.
        A TLE is not repeated (it is exposed whatever the other runs say)."""
        out: list[list[list[Any]]] = [[[] for _ in inputs] for _ in programs]
        pending = [(p, i) for p in range(len(programs)) for i in range(len(inputs))]
        for _ in range(self.params.repeats):
            jobs = [Job(program=programs[p], stdin=inputs[i], limits=limits, tag=(p, i),
                        expected=expected[i] if expected else None, comparator=checker,
                        output_validator=output_validator if expected else None)
                    for p, i in pending]
            results = list(self.sandbox.run_many(jobs))
            # an SE is the sandbox's failure: neither a crash of the solution nor a runtime
            no_sandbox_errors(results, "the reference solutions")
            for job, res in zip(jobs, results):
                p, i = job.tag
                out[p][i].append(res)
            pending = [(p, i) for p, i in pending if out[p][i][-1].verdict is not Verdict.TLE]
        return [[median_runtime(runs) for runs in row] for row in out]

    def original_timings(self, problem: Problem) -> dict[str, Any]:
        """Per solution: runtimes and verdicts on the original tests (cached)."""
        tests = [(t.input, t.output) for t in problem.golden_tests] or [(s.input, s.output) for s in problem.samples]
        key = [[s.digest for s in problem.solutions], texts_digest(tests), problem.time_limit_ms,
               problem.memory_limit_mb, problem.checker, self.params.repeats,
               problem.output_validator.program.digest if problem.output_validator else None]
        # a TLE of an accepted solution excludes the problem (Appendix B); measured on a
        # loaded machine it may be the load's, so it is measured again on every run, never cached
        return cached_json("efficiency", key, lambda: self._time_originals(problem, tests),
                           keep=lambda data: not any("TLE" in s["verdicts"] for s in data["solutions"]))

    def _time_originals(self, problem: Problem, tests: list[tuple[str, str]]) -> dict[str, Any]:
        timed = self._time(problem.solutions, [t[0] for t in tests], self._limits(problem),
                           expected=[t[1] for t in tests], checker=problem.checker,
                           output_validator=problem.output_validator)
        return {"tests": len(tests), "solutions": [
            {"name": s.name, "language": s.language.value, "runtimes": [r for r, _ in row],
             "verdicts": [v for _, v in row]} for s, row in zip(problem.solutions, timed)]}

    def references(self, problem: Problem) -> dict[str, dict[str, Any]]:
        """Per language: the selected slots with τ*, and the selected solutions that
        fail an original test (``failed``; they exclude the problem, Appendix B) or,
        with ``filtering="solution"``, the failing solutions left out (``excluded``)."""
        data = self.original_timings(problem)
        out: dict[str, dict[str, Any]] = {}
        for lang in self.params.languages:
            language = Language.parse(lang)
            idx = [i for i, s in enumerate(data["solutions"]) if s["language"] == language.value]
            failing = [i for i in idx if any(v != "AC" for v in data["solutions"][i]["verdicts"])]
            left_out = failing if self.params.filtering == "solution" else []
            eligible = [i for i in idx if i not in left_out and data["solutions"][i]["runtimes"]]
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
                "failed": sorted({data["solutions"][i]["name"] for i in slots.values() if i in failing}),
                "excluded": [data["solutions"][i]["name"] for i in left_out],
            }
        return out

    def exclusion(self, problem: Problem) -> str | None:
        """Why the problem is excluded (Appendix B), or None: a selected accepted
        solution fails an original test."""
        if self.params.filtering != "problem":
            return None
        failed = [f"{lang}: {', '.join(info['failed'])}" for lang, info in self.references(problem).items()
                  if info["failed"]]
        return "selected solutions fail an original test (" + "; ".join(failed) + ")" if failed else None

    # ------------------------------------------------------------------ scoring

    def score(self, problem: Problem, spec: TaskSpec, suite: TestSuite) -> ScoreRecord:
        budget = self.budget(problem)
        # the first ``budget`` tests as generated; those the input screen rejected among
        # them count in every rate's denominator and expose nothing
        kept = [t for i, t in enumerate(suite.tests) if position(t, i) < budget]
        counted = [t for t in suite.rejected if position(t, budget) < budget]
        rejected = len(counted)
        tests = [t.input for t in kept]
        flagged = [bool(t.meta.get("violations")) for t in kept]
        n_gen = max(budget, len(tests) + rejected) if self.params.count_missing else len(tests) + rejected
        record = ScoreRecord(runner=self.name, method=suite.provenance.method, model=suite.provenance.model,
                             problem_id=problem.id)
        excluded = self.exclusion(problem)
        if excluded:
            record.metrics = {"excluded": 1.0, "n_generated": float(len(tests))}
            record.detail = {"excluded": excluded}
            if scenarios_of(suite) is not None:
                record.detail["scenarios"] = scenarios_of(suite)
            return record
        refs = self.references(problem)
        reference = spec.context.get("reference") if spec.context else None
        # Each distinct solution runs once per test, whatever slots it fills.
        chosen = sorted({s["solution"] for r in refs.values() for s in r["slots"].values()}
                        | ({reference} if reference is not None else set()))
        programs = [problem.solutions[i] for i in chosen]
        timed = self._time(programs, tests, self._limits(problem)) if tests and programs else [[] for _ in programs]
        by_solution = dict(zip(chosen, timed))
        metrics: dict[str, float] = {"n_generated": float(len(tests) + rejected), "n_counted": float(n_gen),
                                     "n_flagged": float(sum(flagged))}
        if rejected:
            metrics["n_invalid_input"] = float(rejected)
        detail: dict[str, Any] = {"languages": {}, "budget": budget, "count_missing": self.params.count_missing,
                                  "tle": self.params.tle, "flagged": flagged}
        if counted:  # the run browser shows them (never run)
            detail["rejected"] = rejected_detail(counted)
        scenarios = scenarios_of(suite)
        if scenarios is not None:
            detail["scenarios"] = scenarios
        for lang, info in refs.items():
            lang_detail = {"overlap": info["overlap"], "excluded": info["excluded"], "slots": {}}
            for slot, ref in info["slots"].items():
                outcomes = [exposes(rt, v, ref["tau_star"], self.params.tle) for rt, v in by_solution[ref["solution"]]]
                exposed = [o in ("slow", "tle") for o in outcomes]
                metrics[f"{lang}:{slot}:n"] = float(n_gen)
                metrics[f"{lang}:{slot}:exposed"] = float(sum(exposed))
                metrics[f"{lang}:{slot}:exposed_flagged"] = float(sum(e and f for e, f in zip(exposed, flagged)))
                metrics[f"{lang}:{slot}:tle"] = float(outcomes.count("tle"))
                metrics[f"{lang}:{slot}:tle_invalid"] = float(outcomes.count("tle_invalid"))
                metrics[f"{lang}:{slot}:crash"] = float(outcomes.count("crash"))
                metrics[f"asr:{lang}:{slot}"] = 100.0 * sum(exposed) / n_gen if n_gen else 0.0
                lang_detail["slots"][slot] = {
                    "solution": ref["name"], "tau_star_ms": ref["tau_star"], "mean_ms": ref["mean"],
                    "runtimes_ms": [rt for rt, _ in by_solution[ref["solution"]]],
                    "verdicts": [v for _, v in by_solution[ref["solution"]]], "outcomes": outcomes}
            detail["languages"][lang] = lang_detail
        if reference is not None:
            self._score_reference(problem, reference, by_solution[reference], n_gen, metrics, detail)
        record.metrics, record.detail = metrics, detail
        return record

    def _score_reference(self, problem: Problem, index: int, runs: list[tuple[float, str]], n_gen: int,
                         metrics: dict[str, float], detail: dict[str, Any]) -> None:
        """Table 6: the generated tests on the very reference the method was given."""
        data = self.original_timings(problem)["solutions"][index]
        tau_star = max(data["runtimes"]) if data["runtimes"] else 0.0
        outcomes = [exposes(rt, v, tau_star, self.params.tle) for rt, v in runs]
        exposed = sum(o in ("slow", "tle") for o in outcomes)
        lang = data["language"]
        metrics[f"ref:{lang}:n"] = float(n_gen)
        metrics[f"ref:{lang}:exposed"] = float(exposed)
        metrics[f"asr:ref:{lang}"] = 100.0 * exposed / n_gen if n_gen else 0.0
        detail["reference"] = {"solution": data["name"], "language": lang, "tau_star_ms": tau_star,
                               "runtimes_ms": [rt for rt, _ in runs], "outcomes": outcomes}

    # ------------------------------------------------------------------ report header

    def settings_used(self, scores: list[ScoreRecord]) -> list[tuple[str, str]]:
        """Per problem, whether keywords or KNN chose the scenarios of the methods that
        retrieve them (STAB, −M1), and the tests each method delivered."""
        out = []
        routes: dict[str, set[str]] = defaultdict(set)
        for s in scores:
            sc = s.detail.get("scenarios")
            if isinstance(sc, dict):
                via = " + ".join(sc.get("via") or []) or "none matched"
                ids = ", ".join(sc.get("ids") or [])
                routes[s.problem_id].add(f"{via}" + (f" ({ids})" if ids else ""))
        if routes:
            out.append(("scenarios (M2)", "; ".join(f"{p}: {' / '.join(sorted(r))}" for p, r in sorted(routes.items()))
                        + " — keyword hits first, KNN only when no keyword matches"))
        delivered: dict[str, list[int]] = defaultdict(list)
        for s in scores:
            if "n_generated" in s.metrics:
                delivered[s.method].append(int(s.metrics["n_generated"]))
        if delivered:
            budget = self.params.tests
            out.append(("samples", "; ".join(
                f"{m}: {sum(v)} of {budget * len(v)} asked" for m, v in sorted(delivered.items()))
                + " (N_gen counts the generated ones" + (", missing ones too: count_missing)" if
                                                         any(s.detail.get("count_missing") for s in scores) else ")")))
        return out

    # ------------------------------------------------------------------ browser

    def matrices(self, record: ScoreRecord, suite: TestSuite) -> list[Matrix]:
        """Per language: each test's validity, then each reference slot's outcome on each
        generated test, with its runtime against its threshold τ*. Columns are positions
        in the suite as generated (the record's outcomes count the tests the kernel's
        input check kept), in that order; a test it rejected within the budget is
        invalid, with the validator's reason (never run: in N_gen, exposing nothing)."""
        out = []
        budget = record.detail.get("budget")
        rejected = [(i, why) for i, why in rejected_columns(record, record.detail.get("rejected"))
                    if not isinstance(budget, int) or i < budget]
        by = record.input_check.by if record.input_check is not None else None
        flagged = record.detail.get("flagged")
        flagged = flagged if isinstance(flagged, list) else []
        for lang, info in record.detail.get("languages", {}).items():
            cells_of = []
            width = 0
            for slot, ref in info.get("slots", {}).items():
                tau = ref.get("tau_star_ms", 0.0)
                cells = [[o, f"{rt:.1f} ms vs τ* {tau:.1f} ms ({v})"]
                         for o, rt, v in zip(ref.get("outcomes", []), ref.get("runtimes_ms", []), ref.get("verdicts", []))]
                width = max(width, len(cells))
                cells_of.append((f"{slot}: {ref.get('solution', '')}", cells))
            unchecked = ("nothing checks this problem's inputs" if by == "none" else
                         "not recorded: the record says nothing of an input check")
            validity = [["valid", f"the input check ({by}) accepted it"] if by not in (None, "none") else
                        ["?", unchecked] for _ in range(width)]
            for j, flag in enumerate(flagged[:width]):
                if flag:
                    validity[j][1] += "; the method flagged it as breaking the statement (scored all the same)"
            validity += [["invalid", REJECTED_NOTE + why] for _, why in rejected]
            never = [["-", "never run: the input check rejected it (in N_gen, exposing nothing)"] for _ in rejected]
            placed = sorted([(p, j) for j, p in enumerate(as_generated(record, range(width)))]
                            + [(p, width + k) for k, (p, _) in enumerate(rejected)])
            rows = [("validity", [validity[j] for _, j in placed])]
            for label, cells in cells_of:
                cells = cells + [["?", "not recorded"]] * (width - len(cells)) + never
                rows.append((label, [cells[j] for _, j in placed]))
            notes = ["slow/tle expose the reference (runtime above τ*, or over the time limit); crash and "
                     "tle_invalid (a TLE with tle=invalid) do not"]
            if rejected:
                notes.append(f"{len(rejected)} test(s) the problem's input check rejected: never run, counted in "
                             "N_gen, exposing nothing")
            if info.get("overlap"):
                notes.append("fewer than five accepted solutions: random references coincide with fast/slow")
            if info.get("excluded"):
                notes.append("not eligible (failed an original test): " + ", ".join(map(str, info["excluded"])))
            out.append(Matrix(title=f"ASR references, {LANG_TITLES.get(lang, lang)}", tests=[p for p, _ in placed],
                              rows=rows, notes=notes))
        return out

    # ------------------------------------------------------------------ tables

    def summarize(self, scores: list[ScoreRecord]) -> list[Table]:
        excluded = sorted({(s.problem_id, s.detail["excluded"]) for s in scores if s.detail.get("excluded")})
        scores = [s for s in scores if not s.detail.get("excluded")]
        groups: dict[tuple[str, str], list[ScoreRecord]] = {}
        for s in scores:
            groups.setdefault((s.model, s.method), []).append(s)
        langs = [l for l in ("python", "java", "cpp", "c")
                 if any(k.startswith(f"{l}:") for s in scores for k in s.metrics)]
        main_rows, per_ref_rows, ablation_rows, tle_rows, ref_rows, flag_rows = [], [], [], [], [], []
        overlaps = total_lang_problems = 0
        for s in scores:
            for info in s.detail.get("languages", {}).values():
                total_lang_problems += 1
                overlaps += bool(info.get("overlap"))

        def mean(values: list[float | None]) -> float | None:
            vals = [v for v in values if v is not None]
            return sum(vals) / len(vals) if vals else None

        def total(recs: list[ScoreRecord], key: str) -> float:
            return sum(r.metrics.get(key, 0.0) for r in recs)

        for (model, method), recs in sorted(groups.items()):
            asr: dict[tuple[str, str], float | None] = {}
            tle: dict[str, float] = {}
            exposures = flagged_exposures = 0.0
            for lang in langs:
                tle_n = exp_n = 0.0
                for slot in SLOTS:
                    n = total(recs, f"{lang}:{slot}:n")
                    e = total(recs, f"{lang}:{slot}:exposed")
                    asr[(lang, slot)] = 100.0 * e / n if n else None
                    tle_n += total(recs, f"{lang}:{slot}:tle")
                    flagged_exposures += total(recs, f"{lang}:{slot}:exposed_flagged")
                    exp_n += e
                exposures += exp_n
                tle[lang] = 100.0 * tle_n / exp_n if exp_n else 0.0

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
            for lang in ("cpp", "python", "java", "c"):
                n = total(recs, f"ref:{lang}:n")
                if n:
                    ref_rows.append({"model": model, "method": method.upper(), "reference": LANG_TITLES[lang],
                                     "problems": sum(1 for r in recs if f"ref:{lang}:n" in r.metrics),
                                     "ASR": 100.0 * total(recs, f"ref:{lang}:exposed") / n})
            generated, flagged = total(recs, "n_generated"), total(recs, "n_flagged")
            if flagged:
                flag_rows.append({"model": model, "method": method.upper(), "generated": int(generated),
                                  "flagged": int(flagged), "flagged %": 100.0 * flagged / generated,
                                  "exposures from flagged %": 100.0 * flagged_exposures / exposures if exposures else 0.0})
        notes = [
            "ASR = generated tests with runtime > τ* (max runtime on the original tests; CPU time, median of "
            "repeated runs) / generated tests (N_gen, repeats included), micro-averaged over problems; "
            + ("a TLE counts as exposed (its runtime is above τ*)." if all(s.detail.get("tle", "exposes") == "exposes"
                                                                   for s in scores)
               else "a TLE is an invalid test, counted in N_gen and never exposing (the authors' "
                    "classify_binary_exceeded; tle=invalid)."),
        ]
        if any(s.detail.get("count_missing") for s in scores):
            notes.append("missing tests (a method delivered fewer than the budget) are counted as not exposing "
                         "(count_missing)")
        if overlaps:
            notes.append(f"{overlaps} of {total_lang_problems} (problem, language) pairs have fewer than five "
                         "accepted solutions: the random references coincide with Fast/Slow there")
        if excluded:
            notes.append(f"{len({p for p, _ in excluded})} problem(s) excluded as in Appendix B, left out of every "
                         "table: " + "; ".join(f"{p}: {why}" for p, why in excluded))
        if flag_rows:
            notes.append("some tests were flagged by their method as violating the parsed constraints and scored "
                         "anyway, as the paper counts every generated test: see the last table")
        main_cols = ["model", "method", "problems"] + [f"{LANG_TITLES[l]} {c}" for l in langs
                                                       for c in ("Fast", "Slow", "Random")] + ["Avg"]
        tables = [
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
        if ref_rows:
            tables.append(Table(title="ASR on the reference implementation the method was given (Table 6 layout; %)",
                                columns=["model", "method", "reference", "problems", "ASR"], rows=ref_rows))
        if flag_rows:
            tables.append(Table(title="Tests flagged by their method as violating the statement (scored anyway)",
                                columns=["model", "method", "generated", "flagged", "flagged %",
                                         "exposures from flagged %"], rows=flag_rows))
        return tables

"""HarnessLLM bug finding: GI / ITR / TBR over (problem, buggy f, ground truth g) triplets.

HarnessLLM (Liu et al., 2025) §4.1, Eq. 1, Appendix B.1, Tables 1, 2, 6, 7, 10, Figure 4,
Figure 5 / Table 5.

Tasks. Every wrong solution f of a problem makes one triplet with the ground truth g (an
accepted solution: ``ground_truth`` by name, else the first C++ one, else the first).
Each triplet gets ``responses`` independent generations (default: the run's ``samples``
when above 1, else 8); ``TaskSpec.sample`` is the response index, so every response is
a fresh model sample. A SPEC_TARGET method is shown f — its code only, under the neutral
name "target", never its bug description; a SPEC method sees the statement only, so
its suites can be scored here too.

Per response (the first k tests, k = ``first_k`` or the method's default: 1 for io, 5
for harness), with f and g run on every input in the sandbox:

Each response's tests get an outcome (``tczoo.execution.triplets.Outcome``):
format_error, invalid, good_input_invalid, no_separation, good_input, true_bug. The
*oracle* is the suite's own (``tczoo.execution.oracle``): ``check_output`` for harness
suites, the expected output for input-output suites, the reference program's output
for REFERENCE_PROGRAM suites; a suite whose oracle cannot check outputs (inputs only,
LLM judge) is a format error with that reason.

    GI  = 100 · #{responses with outcome in good_input_invalid, good_input, true_bug} / #responses
    ITR = 100 · #{responses with outcome in invalid, good_input_invalid} / #responses
    TBR = 100 · #{responses with outcome true_bug} / #responses

averaged over all responses of a dataset (every triplet has the same n responses, so
this is the paper's "average of 8 runs"); format errors count in the denominator.

The classification itself is the kernel's (``tczoo.execution.triplets``), shared with
HarnessLLM's RL reward (``tczoo.methods.harnessllm.reward``). Besides the first k tests,
every response is also judged on all its tests (``outcomes["all"]``), which the SFT
export uses.

Options: ``ks`` also evaluates the first k tests for each k (Tables 6/7); ``repeats``
scales the number of tests (Figure 4, Table 10): for R rounds, the suite's generator
artifacts (``Artifact.generator``) are called again, continuing the method's seed
sequence, each round adding up to ``per_call`` inputs per generator; the pooled inputs
are deduplicated and capped at R·k. An input-output
suite has no generators: R rounds evaluate its first R·k tests (ask the io method for
more tests with its ``max_tests``). Input diversity (Figure 5 / Table 5) is summarised
from the evaluated inputs: see ``input_diversity``.
"""

from __future__ import annotations

import hashlib
import math
import random
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tczoo.execution import (
    Evidence,
    Limits,
    Outcome,
    can_check,
    classify,
    gather_evidence,
    ground_truth_index,
    input_key,
    rerun,
    signature_of,
)
from tczoo.runner import Runner, Table, TaskSpec
from tczoo.schema import OracleKind, Problem, Program, ScoreRecord, Setting, Task, TestCase, TestSuite


# --------------------------------------------------------------------------- input diversity


def input_diversity(inputs: list[str]) -> dict[str, float]:
    """Figure 5 / Table 5 for one problem's inputs: unique ratio (% distinct strings),
    length range ln(max_len+1) - ln(min_len+1), and the population standard deviation
    of ln(len+1) (natural log; +1 so an empty input has a defined log)."""
    if not inputs:
        return {"unique_ratio": 0.0, "length_range": 0.0, "length_std": 0.0}
    return _diversity([(len(s), hashlib.sha1(s.encode()).hexdigest()[:16]) for s in inputs])


def _diversity(items: list[tuple[int, str]]) -> dict[str, float]:
    logs = [math.log(n + 1) for n, _ in items]
    return {
        "unique_ratio": 100.0 * len({h for _, h in items}) / len(items),
        "length_range": max(logs) - min(logs),
        "length_std": statistics.pstdev(logs) if len(logs) > 1 else 0.0,
    }


# --------------------------------------------------------------------------- the runner


class BugfindParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    responses: int | None = Field(None, ge=1, description="responses per triplet (None: samples if >1, else 8)")
    first_k: int | None = Field(None, ge=1, description="tests evaluated per response (None: method default)")
    ks: list[int] = Field(default_factory=list, description="also evaluate the first k tests (Tables 6/7)")
    repeats: list[int] = Field(default_factory=list, description="re-seeded generator rounds (Figure 4)")
    ground_truth: str | None = Field(None, description="accepted solution used as g, by name")
    wrong: list[str] | None = Field(None, description="only these wrong solutions (names or name parts)")
    max_triplets: int | None = Field(None, ge=1, description="at most this many wrong solutions per problem")
    max_tests: int = Field(20, ge=1, description="cap on tests per response (the paper's 20)")
    checker_time_ms: int = Field(5000, ge=100, description="CPU time per check_output call")
    generator_time_ms: int = Field(5000, ge=100, description="CPU time per generator call (repeats)")
    seed: int = 0


def oracle_label(suite: TestSuite) -> str:
    """harness | expected | reference | the oracle kind that cannot check outputs."""
    return {OracleKind.CHECKER_PROGRAM: "harness", OracleKind.EXPECTED_OUTPUT: "expected",
            OracleKind.REFERENCE_PROGRAM: "reference"}.get(suite.oracle.kind, suite.oracle.kind.value)


def _format_reason(suite: TestSuite) -> str:
    if suite.tests and not can_check(suite.oracle):
        return f"unsupported_oracle:{suite.oracle.kind.value}"
    for stage in ("parse", "llm", "method", "generator"):
        for f in suite.provenance.failures:
            if f.stage == stage:
                return f"{stage}:{f.reason}"
    return "no_tests"


class BugfindRunner(Runner):
    name = "bugfind"
    paper = "HarnessLLM (Liu et al., 2025)"
    summary = "GI / ITR / TBR over (problem, buggy, ground-truth) triplets, first-k and re-seeded scaling"
    Params = BugfindParams

    # ------------------------------------------------------------------ triplets

    def wrong_indices(self, problem: Problem) -> list[int]:
        idx = list(range(len(problem.wrong_solutions)))
        if self.params.wrong:
            idx = [i for i in idx if any(w == problem.wrong_solutions[i].name or w in problem.wrong_solutions[i].name
                                         for w in self.params.wrong)]
        if self.params.max_triplets is not None:
            idx = idx[: self.params.max_triplets]
        return idx

    def tasks(self, problem: Problem, method_cls: type, *, samples: int, seed: int) -> list[TaskSpec]:
        g = ground_truth_index(problem, self.params.ground_truth)
        if g is None:
            return []
        n = self.params.responses or (samples if samples > 1 else 8)
        k = self.params.first_k or method_cls.first_k or self.params.max_tests
        setting = method_cls.setting
        specs = []
        for j in self.wrong_indices(problem):
            f = problem.wrong_solutions[j]
            if setting is Setting.SPEC_TARGET:
                task = Task.from_problem(problem, setting, budget=self.params.max_tests, seed=seed, target=f)
            elif setting is Setting.SPEC_CORRECT:
                others = [s for i, s in enumerate(problem.solutions) if i != g]
                if not others:
                    continue  # g itself must not be handed to the method
                task = Task.from_problem(problem, setting, budget=self.params.max_tests, seed=seed, correct=others)
            else:
                task = Task.from_problem(problem, setting, budget=self.params.max_tests, seed=seed)
            label = f.name or f"wrong-{j}"
            for i in range(n):
                specs.append(TaskSpec(key=f"{label}/s{i}", task=task, sample=i,
                                      context={"wrong": j, "ground_truth": g, "k": k, "response": i}))
        return specs

    def budget(self, problem: Problem) -> int:
        return self.params.max_tests

    # ------------------------------------------------------------------ scoring

    def _extra_rounds(self, problem: Problem, f: Program, suite: TestSuite, rounds: int) -> list[TestCase]:
        """Inputs of ``rounds - 1`` more rounds of the suite's generator artifacts."""
        functional = problem.entry_point is not None
        signature = signature_of(f.code, problem.entry_point) if functional else None
        seen = {input_key(t.input, functional) for t in suite.tests}
        out: list[TestCase] = []
        for artifact in suite.artifacts:
            if artifact.generator is None:
                continue
            spec = artifact.generator.model_copy(update={"time_ms": self.params.generator_time_ms})
            for tests in rerun(self.sandbox, artifact.program, spec, extra_rounds=rounds - 1,
                               functional=functional, signature=signature, seen=seen):
                out.extend(tests)
        return out

    def evaluate(self, problem: Problem, f: Program, g: Program, suite: TestSuite, sets: dict[str, list[int]],
                 probes: list[tuple[str, str | None]]) -> tuple[dict[str, tuple[Outcome, str, int | None]], Evidence]:
        """Run f and g on the probes, check their outputs, classify every test set."""
        ev = gather_evidence(self.sandbox, f, g, suite.oracle, probes, limits=Limits.of(problem),
                             comparator=problem.checker, entry_point=problem.entry_point,
                             checker_time_ms=self.params.checker_time_ms)
        return {name: classify(ev, idx) for name, idx in sets.items()}, ev

    def score(self, problem: Problem, spec: TaskSpec, suite: TestSuite) -> ScoreRecord:
        ctx = spec.context
        f = problem.wrong_solutions[ctx["wrong"]]
        g = problem.solutions[ctx["ground_truth"]]
        k = int(ctx.get("k") or self.params.first_k or self.params.max_tests)
        functional = problem.entry_point is not None
        usable = can_check(suite.oracle)
        detail: dict[str, Any] = {
            "dataset": problem.source or "benchmark", "target": f.name, "target_language": f.language.value,
            "ground_truth": g.name, "k": k, "oracle": oracle_label(suite), "response": ctx.get("response", spec.sample),
        }
        tests = list(suite.tests[: self.params.max_tests]) if usable else []
        base = [(t.input, t.output) for t in tests]
        sets_src: dict[str, list[tuple[str, str | None]]] = {"main": base[:k], "all": base}
        for kk in self.params.ks:
            sets_src[f"k{kk}"] = base[:kk]
        if self.params.repeats and tests:
            R = max(self.params.repeats)
            extra = self._extra_rounds(problem, f, suite, R) if R > 1 else []
            for R in self.params.repeats:
                if any(a.generator is not None for a in suite.artifacts):
                    pool = tests + [t for t in extra if t.meta.get("round", 0) < R]
                    sets_src[f"r{R}"] = [(t.input, t.output) for t in pool[: R * k]]
                else:  # no generators to call again: the first R·k tests of the response
                    sets_src[f"r{R}"] = base[: R * k]
        elif self.params.repeats:
            for R in self.params.repeats:
                sets_src[f"r{R}"] = []
        probes: list[tuple[str, str | None]] = []
        where: dict[tuple[str, str | None], int] = {}
        sets: dict[str, list[int]] = {}
        for name, items in sets_src.items():
            idx = []
            for p in items:
                key = (input_key(p[0], functional), p[1])
                if key not in where:
                    where[key] = len(probes)
                    probes.append(p)
                idx.append(where[key])
            sets[name] = idx
        infra = 0
        if probes:
            results, ev = self.evaluate(problem, f, g, suite, sets, probes)
            infra = ev.infrastructure_failures
        else:
            results = {name: (Outcome.FORMAT_ERROR, "no_inputs", None) for name in sets}
        if not tests:
            why = _format_reason(suite)
            results = {name: (Outcome.FORMAT_ERROR, why, None) for name in sets}
        metrics: dict[str, float] = {}
        for name, (outcome, reason, at) in results.items():
            detail.setdefault("outcomes", {})[name] = {"outcome": outcome.value, "reason": reason, "at": at}
            if name == "all":
                continue
            suffix = "" if name == "main" else f"@{name}"
            metrics[f"gi{suffix}"] = 100.0 * outcome.gi
            metrics[f"itr{suffix}"] = 100.0 * outcome.itr
            metrics[f"tbr{suffix}"] = 100.0 * outcome.tbr
            metrics[f"n_inputs{suffix}"] = float(len(sets[name]))
        main_outcome, main_reason, _ = results["main"]
        metrics["format_error"] = 100.0 * (main_outcome is Outcome.FORMAT_ERROR)
        detail["outcome"] = main_outcome.value
        detail["reason"] = main_reason
        if infra:
            detail["infrastructure_failures"] = infra
        detail["inputs"] = [[len(probes[i][0]), hashlib.sha1(probes[i][0].encode(errors="surrogatepass")).hexdigest()[:16]]
                            for i in sets["main"]]
        return ScoreRecord(runner=self.name, method=suite.provenance.method, model=suite.provenance.model,
                           problem_id=problem.id, metrics=metrics, detail=detail)

    # ------------------------------------------------------------------ tables

    def summarize(self, scores: list[ScoreRecord]) -> list[Table]:
        scores = [s for s in scores if s.runner == self.name]
        if not scores:
            return []
        groups: dict[tuple[str, str], list[ScoreRecord]] = defaultdict(list)
        for s in scores:
            groups[(s.model, s.method)].append(s)
        datasets = sorted({s.detail.get("dataset", "benchmark") for s in scores})
        tables = [self._main_table(groups, datasets), self._breakdown_table(groups)]
        for prefix, title in (("k", "first-k evaluation (Tables 6/7 layout): TBR % when only the first k tests count"),
                              ("r", "scaling by re-seeded generator rounds (Figure 4 / Table 10): TBR and ITR %")):
            t = self._variant_table(groups, prefix, title)
            if t is not None:
                tables.append(t)
        tables.append(self._diversity_table(groups))
        return tables

    @staticmethod
    def _mean(records: list[ScoreRecord], key: str) -> float:
        vals = [r.metrics[key] for r in records if key in r.metrics]
        return sum(vals) / len(vals) if vals else float("nan")

    def _main_table(self, groups, datasets) -> Table:
        columns = ["model", "method"]
        for ds in datasets:
            columns += [f"{ds} GI", f"{ds} ITR", f"{ds} TBR"]
        columns += ["responses", "format err"]
        rows = []
        for (model, method), recs in sorted(groups.items()):
            row: dict[str, Any] = {"model": model, "method": method.upper() if len(method) <= 3 else method.capitalize()}
            for ds in datasets:
                sub = [r for r in recs if r.detail.get("dataset", "benchmark") == ds]
                for col, key in (("GI", "gi"), ("ITR", "itr"), ("TBR", "tbr")):
                    row[f"{ds} {col}"] = self._mean(sub, key) if sub else None
            row["responses"] = len(recs)
            row["format err"] = self._mean(recs, "format_error")
            rows.append(row)
        triplets = len({(r.problem_id, r.detail.get("target")) for recs in groups.values() for r in recs})
        notes = [f"% of responses, averaged over all responses ({triplets} triplets); GI: some input separates f "
                 "and g; ITR: g fails (runtime error, or the oracle rejects its output); TBR: g passes, f fails. "
                 "Format errors count in the denominator."]
        return Table(title="HarnessLLM bug finding (Table 1 layout)", columns=columns, rows=rows, notes=notes)

    def _breakdown_table(self, groups) -> Table:
        outcomes = [o.value for o in Outcome]
        columns = ["model", "method", *outcomes, "TBR sd", "inputs/resp"]
        rows = []
        notes = ["TBR sd: population standard deviation of TBR across the n response indices (runs)."]
        for (model, method), recs in sorted(groups.items()):
            counts = Counter(r.detail.get("outcome") for r in recs)
            row: dict[str, Any] = {"model": model, "method": method}
            for o in outcomes:
                row[o] = 100.0 * counts[o] / len(recs)
            by_run: dict[Any, list[float]] = defaultdict(list)
            for r in recs:
                by_run[r.detail.get("response")].append(r.metrics.get("tbr", 0.0))
            run_rates = [sum(v) / len(v) for v in by_run.values()]
            row["TBR sd"] = statistics.pstdev(run_rates) if len(run_rates) > 1 else 0.0
            row["inputs/resp"] = self._mean(recs, "n_inputs")
            reasons = Counter(r.detail.get("reason") for r in recs if r.detail.get("reason"))
            if reasons:
                notes.append(f"{method} ({model}) reasons: "
                             + ", ".join(f"{k} ({v})" for k, v in reasons.most_common(6)))
            rows.append(row)
        return Table(title="Outcomes per response (%), spread over runs",
                     columns=columns, rows=rows, notes=notes)

    def _variant_table(self, groups, prefix: str, title: str) -> Table | None:
        keys = sorted({m.split("@")[1] for recs in groups.values() for r in recs for m in r.metrics
                       if m.startswith("tbr@") and m.split("@")[1].startswith(prefix)},
                      key=lambda s: int(s[1:]))
        if not keys:
            return None
        rows = []
        columns = ["model", "method", "dataset"]
        for key in keys:
            columns += [f"{prefix}={key[1:]} TBR"] + ([f"{prefix}={key[1:]} ITR", f"{prefix}={key[1:]} tests"]
                                                       if prefix == "r" else [])
        for (model, method), recs in sorted(groups.items()):
            for ds in sorted({r.detail.get("dataset", "benchmark") for r in recs}):
                sub = [r for r in recs if r.detail.get("dataset", "benchmark") == ds]
                row: dict[str, Any] = {"model": model, "method": method, "dataset": ds}
                for key in keys:
                    row[f"{prefix}={key[1:]} TBR"] = self._mean(sub, f"tbr@{key}")
                    if prefix == "r":
                        row[f"{prefix}={key[1:]} ITR"] = self._mean(sub, f"itr@{key}")
                        row[f"{prefix}={key[1:]} tests"] = self._mean(sub, f"n_inputs@{key}")
                rows.append(row)
        return Table(title=title, columns=columns, rows=rows)

    def _diversity_table(self, groups) -> Table:
        pools: dict[tuple[str, str], dict[str, list[tuple[int, str]]]] = {}
        for key, recs in groups.items():
            per_problem: dict[str, list[tuple[int, str]]] = defaultdict(list)
            for r in recs:
                per_problem[r.problem_id].extend((int(n), h) for n, h in r.detail.get("inputs", []))
            pools[key] = per_problem
        problems = {p for pp in pools.values() for p, items in pp.items() if items}
        least = {p: min(len(pp[p]) for pp in pools.values() if pp.get(p)) for p in problems}
        rows = []
        for key, per_problem in sorted(pools.items()):
            vals = defaultdict(list)
            for p, items in sorted(per_problem.items()):
                if not items:
                    continue
                rng = random.Random(f"{self.params.seed}:{p}:{key}")
                sample = rng.sample(items, least[p]) if len(items) > least[p] else items
                for name, v in _diversity(sample).items():
                    vals[name].append(v)
            rows.append({"model": key[0], "method": key[1], "problems": len(vals["unique_ratio"]),
                         "Unique ratio": _avg(vals["unique_ratio"]), "Length range": _avg(vals["length_range"]),
                         "Length std": _avg(vals["length_std"])})
        return Table(title="Input diversity (Figure 5 / Table 5 layout)",
                     columns=["model", "method", "problems", "Unique ratio", "Length range", "Length std"], rows=rows,
                     notes=["Per problem, the evaluated inputs of all responses, downsampled (seeded) to the "
                            "smallest count among the rows; lengths in characters, natural log; averaged over problems."])


def _avg(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else float("nan")

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

=====================  =========================================================  ====  ===  ===
outcome                rule (checked in this order)                               GI    ITR  TBR
=====================  =========================================================  ====  ===  ===
format_error           no usable test (no/broken harness, no inputs, bad JSON)
invalid                g has a runtime error on an input, or g's output fails           x
                       the oracle and no input separates f from g
good_input_invalid     some input separates f from g, but g's output fails the    x     x
                       oracle (a wrong assertion / expected output)
no_separation          g passes; f(x) = g(x) on every input
good_input             g passes; some input separates f and g, but f passes too   x
true_bug               g passes every test and f fails one                        x          x
=====================  =========================================================  ====  ===  ===

An input *separates* f and g when g runs cleanly on it and f's output differs (by the
problem's comparator; values for functional problems) or f fails to run (crash, time,
memory). Inputs on which g runs out of time are left out, as the authors' evaluation
does. The *oracle* is ``check_output`` for harness suites (a failed assertion, a crash
and a timeout all fail it; the reason is kept), the expected output for input-output
suites, the reference program's output for REFERENCE_PROGRAM suites.

    GI  = 100 · #{responses with outcome in good_input_invalid, good_input, true_bug} / #responses
    ITR = 100 · #{responses with outcome in invalid, good_input_invalid} / #responses
    TBR = 100 · #{responses with outcome true_bug} / #responses

averaged over all responses of a dataset (every triplet has the same n responses, so
this is the paper's "average of 8 runs"); format errors count in the denominator.

RL reward (Eq. 1): 1 for true_bug; 0.1 for good_input and good_input_invalid (all inputs
valid — g never crashed — and one separates f from g); 0 otherwise (``format_penalty``,
default 0 as in the paper; the authors' code uses -1).

Options: ``ks`` also evaluates the first k tests for each k (Tables 6/7); ``repeats``
scales the number of tests (Figure 4, Table 10): for R rounds, harness generators run
again with seeds seed+1 .. seed+R-1, each round adding up to ``per_generator`` inputs
per generator; the pooled inputs are deduplicated and capped at R·k. An input-output
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

from methods.harness_exec import (
    Check,
    GeneratedInput,
    check_with_expected,
    check_with_harness,
    dedupe_inputs,
    execute,
    generator_names,
    input_key,
    run_generators,
    same_output,
    signature_of,
)
from tczoo.runner import Runner, Table, TaskSpec
from tczoo.schema import Language, OracleKind, Problem, Program, ScoreRecord, Setting, Task, TestSuite


class Outcome(str, Enum):
    FORMAT_ERROR = "format_error"
    INVALID = "invalid"
    GOOD_INPUT_INVALID = "good_input_invalid"
    NO_SEPARATION = "no_separation"
    GOOD_INPUT = "good_input"
    TRUE_BUG = "true_bug"

    @property
    def gi(self) -> bool:
        return self in (Outcome.GOOD_INPUT_INVALID, Outcome.GOOD_INPUT, Outcome.TRUE_BUG)

    @property
    def itr(self) -> bool:
        return self in (Outcome.INVALID, Outcome.GOOD_INPUT_INVALID)

    @property
    def tbr(self) -> bool:
        return self is Outcome.TRUE_BUG


def reward(outcome: Outcome | str, *, format_penalty: float = 0.0) -> float:
    """HarnessLLM's RL reward r(o; f, g) (Eq. 1) for one response's outcome."""
    outcome = Outcome(outcome)
    if outcome is Outcome.TRUE_BUG:
        return 1.0
    if outcome in (Outcome.GOOD_INPUT, Outcome.GOOD_INPUT_INVALID):
        return 0.1
    if outcome is Outcome.FORMAT_ERROR:
        return format_penalty
    return 0.0


# --------------------------------------------------------------------------- classification

CRASHES = {"RE", "MLE", "OLE", "CE"}  # g failing to run: the input is invalid
SKIPPED = {"TLE", "SE"}  # g out of time (the authors skip such inputs), or our sandbox failing


@dataclass
class Evidence:
    """Everything one response's classification needs, index-aligned with the probes."""

    g_runs: list  # Execution
    f_runs: list  # Execution
    differs: list[bool]
    g_checks: list[Check | None]  # None where g did not run cleanly
    f_checks: list[Check | None]  # None where f's output was not checked (no difference, or f failed)


def classify(ev: Evidence, indices: list[int]) -> tuple[Outcome, str, int | None]:
    """(outcome, reason, index of the deciding probe) for the tests ``indices``."""
    if not indices:
        return Outcome.FORMAT_ERROR, "no_inputs", None
    for i in indices:
        if ev.g_runs[i].verdict in CRASHES:
            return Outcome.INVALID, f"ground_truth_{ev.g_runs[i].verdict}", i
    live = [i for i in indices if ev.g_runs[i].ok]
    separating = [i for i in live if ev.differs[i]]
    for i in live:
        check = ev.g_checks[i]
        if check is not None and not check.ok:
            outcome = Outcome.GOOD_INPUT_INVALID if separating else Outcome.INVALID
            return outcome, f"ground_truth_check_{check.kind}", i
    if not separating:
        return Outcome.NO_SEPARATION, "" if live else "ground_truth_timeout_everywhere", None
    for i in separating:
        if not ev.f_runs[i].ok:
            return Outcome.TRUE_BUG, f"target_{ev.f_runs[i].verdict}", i
        check = ev.f_checks[i]
        if check is not None and not check.ok:
            return Outcome.TRUE_BUG, f"target_check_{check.kind}", i
    return Outcome.GOOD_INPUT, "", separating[0]


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
    format_penalty: float = 0.0
    seed: int = 0


def oracle_kind(suite: TestSuite) -> str:
    """harness | expected | reference | none"""
    kind = suite.oracle.kind
    if kind is OracleKind.CHECKER_PROGRAM and suite.oracle.program is not None:
        return "harness"
    if kind is OracleKind.REFERENCE_PROGRAM and suite.oracle.program is not None:
        return "reference"
    if kind is OracleKind.EXPECTED_OUTPUT and suite.tests and all(t.output is not None for t in suite.tests):
        return "expected"
    return "none"


def _format_reason(suite: TestSuite) -> str:
    for stage in ("parse", "llm", "method", "generator"):
        for f in suite.provenance.failures:
            if f.stage == stage:
                return f"{stage}:{f.reason}"
    return "no_tests"


def neutral_target(program: Program) -> Program:
    """The program under test as a method may see it: code and language, nothing that
    names or describes its bug."""
    return Program(code=program.code, language=program.language, name="target", flags=program.flags)


class BugfindRunner(Runner):
    name = "bugfind"
    paper = "HarnessLLM (Liu et al., 2025)"
    summary = "GI / ITR / TBR over (problem, buggy, ground-truth) triplets, first-k and re-seeded scaling"
    Params = BugfindParams

    # ------------------------------------------------------------------ triplets

    def ground_truth_index(self, problem: Problem) -> int | None:
        sols = problem.solutions
        if not sols:
            return None
        if self.params.ground_truth:
            for i, s in enumerate(sols):
                if s.name == self.params.ground_truth:
                    return i
            raise ValueError(f"problem {problem.id} has no accepted solution named {self.params.ground_truth!r}")
        if problem.entry_point:
            return next((i for i, s in enumerate(sols) if s.language is Language.PYTHON), 0)
        return next((i for i, s in enumerate(sols) if s.language is Language.CPP), 0)

    def wrong_indices(self, problem: Problem) -> list[int]:
        idx = list(range(len(problem.wrong_solutions)))
        if self.params.wrong:
            idx = [i for i in idx if any(w == problem.wrong_solutions[i].name or w in problem.wrong_solutions[i].name
                                         for w in self.params.wrong)]
        if self.params.max_triplets is not None:
            idx = idx[: self.params.max_triplets]
        return idx

    def tasks(self, problem: Problem, method_cls: type, *, samples: int, seed: int) -> list[TaskSpec]:
        g = self.ground_truth_index(problem)
        if g is None:
            return []
        n = self.params.responses or (samples if samples > 1 else 8)
        k = self.params.first_k or getattr(method_cls, "first_k", self.params.max_tests)
        setting = method_cls.setting
        specs = []
        for j in self.wrong_indices(problem):
            f = problem.wrong_solutions[j]
            if setting is Setting.SPEC_TARGET:
                task = Task.from_problem(problem, setting, budget=self.params.max_tests, seed=seed,
                                         target=neutral_target(f))
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

    def _extra_rounds(self, problem: Problem, f: Program, suite: TestSuite, rounds: int) -> list[GeneratedInput]:
        code = suite.oracle.program.code
        params = suite.provenance.params or {}
        names = generator_names(code, int(params.get("max_generators", 5)))
        base = suite.tests[0].meta.get("seed", suite.provenance.seed) if suite.tests else suite.provenance.seed
        functional = problem.entry_point is not None
        signature = signature_of(f.code, problem.entry_point) if functional else None
        out: list[GeneratedInput] = []
        for r in range(1, rounds):
            run = run_generators(self.sandbox, code, names, seed=int(base) + r, functional=functional,
                                 signature=signature, per_generator=int(params.get("per_generator", 4)),
                                 time_ms=self.params.generator_time_ms, round_=r)
            out.extend(run.inputs)
        return out

    def evaluate(self, problem: Problem, f: Program, g: Program, suite: TestSuite, sets: dict[str, list[int]],
                 probes: list[tuple[str, str | None]]) -> tuple[dict[str, tuple[Outcome, str, int | None]], Evidence]:
        """Run f and g on the probes, check their outputs, classify every test set."""
        functional = problem.entry_point is not None
        kind = oracle_kind(suite)
        inputs = [p[0] for p in probes]
        limits = {"entry_point": problem.entry_point, "time_ms": problem.time_limit_ms,
                  "memory_mb": problem.memory_limit_mb}
        g_runs = execute(self.sandbox, g, inputs, **limits)
        f_runs = execute(self.sandbox, f, inputs, **limits)
        differs = []
        for gr, fr in zip(g_runs, f_runs):
            if not gr.ok or fr.verdict == "SE":
                differs.append(False)
            elif not fr.ok:
                differs.append(True)
            else:
                differs.append(not same_output(fr.output, gr.output, functional=functional,
                                               comparator=problem.checker))
        g_idx = [i for i, r in enumerate(g_runs) if r.ok]
        f_idx = [i for i, r in enumerate(f_runs) if differs[i] and r.ok]
        g_checks: list[Check | None] = [None] * len(probes)
        f_checks: list[Check | None] = [None] * len(probes)
        pairs = [(inputs[i], g_runs[i].output) for i in g_idx] + [(inputs[i], f_runs[i].output) for i in f_idx]
        if kind == "harness":
            checks = check_with_harness(self.sandbox, suite.oracle.program.code, pairs, functional=functional,
                                        time_ms=self.params.checker_time_ms)
        else:
            if kind == "reference":
                ref = execute(self.sandbox, suite.oracle.program, inputs, **limits)
                expected = [r.output if r.ok else None for r in ref]
            else:
                expected = [p[1] for p in probes]
            checks = []
            for i, (_, out) in zip(g_idx + f_idx, pairs):
                if expected[i] is None:
                    checks.append(Check(False, "no_reference_output"))
                else:
                    checks += check_with_expected([(out, expected[i])], functional=functional,
                                                  comparator=problem.checker)
        for i, c in zip(g_idx, checks[: len(g_idx)]):
            g_checks[i] = c
        for i, c in zip(f_idx, checks[len(g_idx):]):
            f_checks[i] = c
        ev = Evidence(g_runs, f_runs, differs, g_checks, f_checks)
        return {name: classify(ev, idx) for name, idx in sets.items()}, ev

    def score(self, problem: Problem, spec: TaskSpec, suite: TestSuite) -> ScoreRecord:
        ctx = spec.context
        f = problem.wrong_solutions[ctx["wrong"]]
        g = problem.solutions[ctx["ground_truth"]]
        k = int(ctx.get("k") or self.params.first_k or self.params.max_tests)
        functional = problem.entry_point is not None
        kind = oracle_kind(suite)
        detail: dict[str, Any] = {
            "dataset": problem.source or "benchmark", "target": f.name, "target_language": f.language.value,
            "ground_truth": g.name, "k": k, "oracle": kind, "response": ctx.get("response", spec.sample),
        }
        tests = list(suite.tests[: self.params.max_tests]) if kind != "none" else []
        base = [(t.input, t.output) for t in tests]
        sets_src: dict[str, list[tuple[str, str | None]]] = {"main": base[:k]}
        for kk in self.params.ks:
            sets_src[f"k{kk}"] = base[:kk]
        if self.params.repeats and tests:
            extra: list[GeneratedInput] = []
            if kind == "harness" and max(self.params.repeats) > 1:
                extra = self._extra_rounds(problem, f, suite, max(self.params.repeats))
            pool = [GeneratedInput(t.input, t.origin, 0) for t in tests] + extra
            for R in self.params.repeats:
                if kind == "harness":
                    chosen = dedupe_inputs([p for p in pool if p.round < R], functional, R * k)
                    sets_src[f"r{R}"] = [(p.text, None) for p in chosen]
                else:
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
        if probes:
            results, _ = self.evaluate(problem, f, g, suite, sets, probes)
        else:
            results = {name: (Outcome.FORMAT_ERROR, "no_inputs", None) for name in sets}
        if not tests:
            why = f"unsupported_oracle:{suite.oracle.kind.value}" if suite.tests else _format_reason(suite)
            results = {name: (Outcome.FORMAT_ERROR, why, None) for name in sets}
        metrics: dict[str, float] = {}
        for name, (outcome, reason, at) in results.items():
            suffix = "" if name == "main" else f"@{name}"
            metrics[f"gi{suffix}"] = 100.0 * outcome.gi
            metrics[f"itr{suffix}"] = 100.0 * outcome.itr
            metrics[f"tbr{suffix}"] = 100.0 * outcome.tbr
            metrics[f"n_inputs{suffix}"] = float(len(sets[name]))
            detail.setdefault("outcomes", {})[name] = {"outcome": outcome.value, "reason": reason, "at": at}
        main_outcome, main_reason, _ = results["main"]
        metrics["format_error"] = 100.0 * (main_outcome is Outcome.FORMAT_ERROR)
        metrics["reward"] = reward(main_outcome, format_penalty=self.params.format_penalty)
        detail["outcome"] = main_outcome.value
        detail["reason"] = main_reason
        detail["inputs"] = [[len(probes[i][0]), hashlib.sha1(probes[i][0].encode()).hexdigest()[:16]]
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
        columns = ["model", "method", *outcomes, "TBR sd", "reward", "inputs/resp"]
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
            row["reward"] = self._mean(recs, "reward")
            row["inputs/resp"] = self._mean(recs, "n_inputs")
            reasons = Counter(r.detail.get("reason") for r in recs if r.detail.get("reason"))
            if reasons:
                notes.append(f"{method} ({model}) reasons: "
                             + ", ".join(f"{k} ({v})" for k, v in reasons.most_common(6)))
            rows.append(row)
        return Table(title="Outcomes per response (%), spread over runs, mean RL reward (Eq. 1)",
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


# --------------------------------------------------------------------------- RL reward


def response_reward(response: str, problem: Problem, *, sandbox, method: str = "harness", wrong: int = 0,
                    ground_truth: int | None = None, seed: int = 0, first_k: int | None = None,
                    format_penalty: float = 0.0) -> tuple[float, Outcome]:
    """Eq. 1 for one model answer on the triplet (problem, wrong solution ``wrong``, g):
    the answer is parsed and its generators run exactly as the method does, then judged
    as the runner does. ``first_k`` defaults to all tests (up to 20): during RL the
    paper lets the model choose how many tests to write."""
    from methods.harness import HarnessParams, build_harness_suite
    from methods.io import InputOutputParams, build_io_suite
    from tczoo.schema import Provenance

    if method not in ("harness", "io"):
        raise ValueError(f"response_reward knows the harness and io answer formats, not {method!r}")
    runner = BugfindRunner(sandbox, first_k=first_k, format_penalty=format_penalty)
    g = runner.ground_truth_index(problem) if ground_truth is None else ground_truth
    task = Task.from_problem(problem, Setting.SPEC_TARGET, budget=runner.params.max_tests, seed=seed,
                             target=neutral_target(problem.wrong_solutions[wrong]))
    suite = TestSuite(problem_id=problem.id, provenance=Provenance(method=method, seed=seed))
    if method == "harness":
        params = HarnessParams()
        suite.provenance.params = params.model_dump()
        build_harness_suite(response, task, sandbox, suite, params)
    else:
        build_io_suite(response, task, suite, InputOutputParams())
    spec = TaskSpec(key="reward", task=task, context={"wrong": wrong, "ground_truth": g,
                                                      "k": first_k or runner.params.max_tests})
    record = runner.score(problem, spec, suite)
    return record.metrics["reward"], Outcome(record.detail["outcome"])

"""Counterexamples to given wrong programs: TCGBench's Valid@k and Success@k, REFUTE's
success rate (docs/counterexample.md).

TCGBench (Cao et al., 2025, arXiv:2506.06821) asks a model for a *generator* of test
inputs: for a problem alone (Task 1: a valid generator) or for a problem and one
erroneous program (Task 2: a targeted generator, whose input must make the program fail
while a correct program passes). REFUTE (Sinha et al., 2025, arXiv:2502.19414) asks for
one *counterexample*: a valid input on which an incorrect submission's output differs
from a correct one's. Both score each attempt (a response) as a success or not and
report the share of targets some attempt breaks.

Tasks. Every wrong program f of a problem is a *target*, paired with the ground truth g
(an accepted solution: ``ground_truth`` by name, else the first C++ one, as bug finding
chooses). A ``spec+target`` method gets one task per target, ``responses`` times (each a
fresh sample); a spec-only method (TCGBench's Task 1, and every method a comparison
cross-scores) one task per problem, ``responses`` times, whose response is judged on
every target at once; a ``spec+correct`` method is handed the accepted solutions other
than g. ``budget`` is the number of tests a method is asked for (REFUTE: one
counterexample; a TCGBench generator makes one input per call) and, for a method aimed
at a target, the number of a response's tests that count: one that returns more gets no
more shots at it (a spec-only suite counts whole).

Per response (its tests in the order the method made them; the first ``budget`` for a
targeted one, or ``max_tests``):

- *valid*: it holds at least one input and the kernel's input screen (the problem's own
  input validators, ``tczoo.execution.score_suite``) rejected none of them; with no
  input at all it is a *format error* (invalid too);
- *success* on a target f (only for a valid response): some input on which g runs
  cleanly makes f fail — a crash, a timeout, running out of memory, or an output the
  problem's comparator (or output validator) does not accept against g's. Where f
  agreed with g, f is run again ``target_runs - 1`` times (REFUTE's evaluation runs the
  incorrect code 5 times: a submission that is right only sometimes is refuted by one
  wrong run). An input g itself fails on refutes nothing (REFUTE: "failed to test").

Programs run under the method's protocol (``time_ms``): REFUTE's evaluation gives every
program 20 s; TCGBench judges with the problem's limits.

Metrics (``summarize``), per (model, method), with n responses of a unit of which c
succeeded: pass@k = 1 - C(n-c, k) / C(n, k) (the unbiased estimator; a unit with n < k
is left out of @k and counted), averaged over units:

    Success@k   units: targets (problem, wrong program)
    Valid@k     units: targets for spec+target methods, problems for spec-only ones

REFUTE's success rate is Success@1 with one attempt per target (its default). A target
whose judgement a sandbox failure left open is undetermined: never scored as a failure.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from math import comb
from typing import Annotated, Any, Literal

from pydantic import Field

from tczoo.errors import InfrastructureFailure, UserError
from tczoo.execution import (
    INVALID_INPUT,
    Limits,
    Verdict,
    ground_truth_index,
    outputs_match,
    position,
    run_programs,
)
from tczoo.runner import Matrix, Runner, RunnerParams, Table, TaskSpec
from tczoo.schema import Problem, Program, ScoreRecord, Setting, Task, TestCase, TestSuite
from tczoo.submissions import CandidatePool

REJECTED = "INV"  # the run browser's code of a test the problem's input check rejected


class CounterexampleParams(RunnerParams):
    responses: int | None = Field(None, ge=1, description="responses per target (spec+target) or per problem "
                                                          "(spec-only); None: the run's samples when above 1, else "
                                                          "the method's protocol (TCGBench, REFUTE: 1)")
    ks: list[Annotated[int, Field(ge=1)]] = Field(default_factory=lambda: [1],
                                                  description="k of Valid@k and Success@k (each needs n >= k "
                                                              "responses)")
    budget: int = Field(1, ge=1, description="tests a method is asked for per response (REFUTE: one "
                                             "counterexample; a TCGBench generator makes one input per call)")
    max_tests: int | None = Field(None, ge=1, description="tests of a response that count, the first ones "
                                                          "(None: a targeted response's budget; a spec-only one's all)",
                                     json_schema_extra={"paper": "— (ours)"})
    ground_truth: str | None = Field(None, description="the accepted solution that plays g, by name (default: "
                                                       "the first C++ one)",
                                     json_schema_extra={"paper": "the benchmark's one correct solution (REFUTE: its C++ "
                                                                 "one first; ours: the first C++ accepted)"})
    wrong: list[str] | None = Field(None, description="only these wrong programs (names or name parts)",
                                    json_schema_extra={"paper": "— (ours)"})
    max_targets: int | None = Field(None, ge=1, description="at most this many wrong programs per problem",
                                    json_schema_extra={"paper": "— (ours)"})
    time_ms: int | Literal["problem"] | None = Field(
        None, description="CPU time of every program run: a number, 'problem' (the problem's limit), or None: the "
                          "method's protocol (REFUTE's evaluation: 20 s for every program; TCGBench: the problem's)")
    target_runs: int | None = Field(None, ge=1, le=20, description="runs of a wrong program on an input where it "
                                                                   "agreed with g (None: the method's protocol: "
                                                                   "REFUTE's evaluation 5, else 1)")
    candidates: str | None = Field(None, description="a candidates file (tczoo candidates): its labelled wrong "
                                                     "programs are targets too",
                                     json_schema_extra={"paper": "— (ours)"})


def pass_at_k(n: int, c: int, k: int) -> float | None:
    """The unbiased pass@k of n attempts with c successes (None when n < k)."""
    if n < k or k < 1:
        return None
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def as_generated(suite: TestSuite) -> list[TestCase]:
    """The suite's tests in the order the method made them, the rejected ones (marked
    ``meta[INVALID_INPUT]``) back in their places."""
    kept, rejected = list(suite.tests), list(suite.rejected or [])
    placed = [(position(t, i), 0, i, t) for i, t in enumerate(kept)]
    placed += [(position(t, len(kept) + i), 1, i, t) for i, t in enumerate(rejected)]
    return [t for *_, t in sorted(placed, key=lambda p: p[:3])]


def _format_reason(suite: TestSuite) -> str:
    for stage in ("parse", "llm", "generator", "method", "agent"):
        for f in suite.provenance.failures:
            if f.stage == stage:
                return f"{stage}:{f.reason}"
    return "no_tests"


def _code(run) -> str:
    return "AC" if run.ok else run.verdict.value


class CounterexampleRunner(Runner):
    name = "counterexample"
    paper = "TCGBench (Cao et al., 2025) Valid@k / Success@k; REFUTE (Sinha et al., 2025) success rate"
    summary = "inputs aimed at given wrong programs: valid (input validators) and successful (the program fails, g passes)"
    headline = "success"
    Params = CounterexampleParams
    scores_empty_suites = True  # a response without an input is a format error, in the denominator

    def __init__(self, sandbox: Any = None, **params: Any):
        super().__init__(sandbox, **params)
        self.pool = CandidatePool(self.params.candidates)

    def label(self, method: str) -> str:
        return method

    # ------------------------------------------------------------------ tasks

    def targets(self, problem: Problem) -> list[int]:
        idx = list(range(len(problem.wrong_solutions)))
        if self.params.wrong:
            idx = [i for i in idx if any(w == problem.wrong_solutions[i].name or w in problem.wrong_solutions[i].name
                                         for w in self.params.wrong)]
        return idx[: self.params.max_targets] if self.params.max_targets is not None else idx

    def budget(self, problem: Problem) -> int:
        return self.params.budget

    def protocol(self, method_cls: Any) -> dict[str, Any]:
        """The evaluation protocol of the method's paper, where the options leave it open."""
        time_ms = self.params.time_ms if self.params.time_ms is not None else getattr(method_cls, "program_time_ms",
                                                                                      None)
        runs = self.params.target_runs or getattr(method_cls, "target_runs", None) or 1
        return {"time_ms": None if time_ms == "problem" else time_ms, "target_runs": int(runs)}

    def tasks(self, problem: Problem, method_cls: type, *, samples: int, seed: int) -> list[TaskSpec]:
        problem = self.pool.problem(problem)
        g = ground_truth_index(problem, self.params.ground_truth)
        targets = self.targets(problem)
        if g is None or not targets:
            return []
        n = self.params.responses or (samples if samples > 1 else int(getattr(method_cls, "responses", 1) or 1))
        base = {"ground_truth": g, "responses": n, **self.protocol(method_cls)}
        setting = method_cls.setting
        budget = self.budget(problem)
        if setting is Setting.SPEC_CORRECT_WRONG:
            raise UserError(f"counterexample cannot give method {method_cls.name} wrong submissions to study: the "
                            "ones a spec+correct+wrong task shows may include the program to be broken")
        if setting is Setting.SPEC_TARGET:
            specs = []
            for j in targets:
                f = problem.wrong_solutions[j]
                task = Task.from_problem(problem, setting, budget=budget, seed=seed, target=f)
                label = f.name or f"wrong-{j}"
                specs += [TaskSpec(key=f"{label}/s{i}", task=task, sample=i,
                                   context={**base, "wrong": j, "response": i}) for i in range(n)]
            return specs
        correct = None
        if setting is Setting.SPEC_CORRECT:
            correct = [s for i, s in enumerate(problem.solutions) if i != g]
            if not correct:
                return []  # g itself must not be handed to the method
        task = Task.from_problem(problem, setting, budget=budget, seed=seed, correct=correct)
        return [TaskSpec(key="" if n == 1 else f"s{i}", task=task, sample=i,
                         context={**base, "targets": targets, "response": i}) for i in range(n)]

    # ------------------------------------------------------------------ scoring

    def _targets_of(self, problem: Problem, spec: TaskSpec) -> list[int]:
        ctx = spec.context
        if "wrong" in ctx:
            return [int(ctx["wrong"])]
        if "targets" in ctx:
            return [int(j) for j in ctx["targets"]]
        task = spec.task
        if task is not None and task.target is not None:  # a task built elsewhere: its program under test
            same = [j for j, w in enumerate(problem.wrong_solutions) if w.code == task.target.code]
            if not same:
                raise UserError(f"{problem.id}: the task's program under test is none of the problem's wrong programs")
            return same[:1]
        return self.targets(problem)

    def score(self, problem: Problem, spec: TaskSpec, suite: TestSuite) -> ScoreRecord:
        problem = self.pool.problem(problem)
        ctx = spec.context
        g_index = ctx.get("ground_truth")
        if g_index is None:
            g_index = ground_truth_index(problem, self.params.ground_truth)
        if g_index is None:
            raise UserError(f"{problem.id} has no accepted solution to judge counterexamples with")
        g = problem.solutions[int(g_index)]
        targets = self._targets_of(problem, spec)
        proto = {k: ctx[k] for k in ("time_ms", "target_runs") if k in ctx} or self.protocol(object)
        time_ms = proto.get("time_ms") or problem.time_limit_ms
        runs = int(proto.get("target_runs") or 1)
        limits = Limits(time_ms=int(time_ms), memory_mb=problem.memory_limit_mb)
        made = as_generated(suite)
        # at a target, the tests asked for count, not more: a method that returns twenty inputs
        # where one was asked for would get twenty shots at it (a spec-only suite, aimed at no
        # target, counts whole)
        limit = self.params.max_tests
        if limit is None and spec.task is not None and spec.task.setting is Setting.SPEC_TARGET:
            limit = spec.task.budget
        tests = made[:limit] if limit is not None else made
        rejected = [t for t in tests if INVALID_INPUT in t.meta]
        inputs = [t.input for t in tests if INVALID_INPUT not in t.meta]
        single = "wrong" in ctx or spec.task is not None and spec.task.setting is Setting.SPEC_TARGET
        detail: dict[str, Any] = {
            "ground_truth": g.name, "response": ctx.get("response", spec.sample), "n_inputs": len(tests),
            "rejected_inputs": len(rejected), "time_ms": int(time_ms), "time_source": "protocol"
            if proto.get("time_ms") else "problem", "target_runs": runs, "single_target": bool(single),
            "dataset": problem.source or "benchmark",
        }
        if len(made) > len(tests):
            detail["ignored_inputs"] = len(made) - len(tests)
        names = [problem.wrong_solutions[j].name or f"wrong-{j}" for j in targets]
        results: dict[str, dict[str, Any]] = {}
        if not tests:
            detail["valid"], detail["reason"] = False, f"format_error:{_format_reason(suite)}"
            results = {n: {"success": False, "reason": "no_valid_response"} for n in names}
        elif rejected:
            detail["valid"] = False
            detail["reason"] = f"invalid_input: {str(rejected[0].meta.get(INVALID_INPUT, ''))[:200]}"
            results = {n: {"success": False, "reason": "no_valid_response"} for n in names}
            detail["per_test"] = [{"g": REJECTED, "f": {}} if INVALID_INPUT in t.meta else {"g": "-", "f": {}}
                                  for t in tests]
        else:
            detail["valid"], detail["reason"] = True, ""
            results, per_test = self._judge(problem, g, [problem.wrong_solutions[j] for j in targets], names,
                                            inputs, limits, runs)
            detail["per_test"] = per_test
        detail["targets"] = results
        decided = [r["success"] for r in results.values() if r["success"] is not None]
        metrics: dict[str, float] = {
            "valid": 100.0 * bool(detail["valid"]), "format_error": 100.0 * (not tests),
            "n_inputs": float(len(tests)), "n_targets": float(len(names)),
        }
        if decided:
            metrics["success"] = 100.0 * sum(decided) / len(decided)
        if single:
            detail["target"] = names[0] if names else None
        return ScoreRecord(runner=self.name, method=suite.provenance.method, model=suite.provenance.model,
                           problem_id=problem.id, metrics=metrics, detail=detail,
                           n_valid=len(inputs) if detail["valid"] else 0)

    def _judge(self, problem: Problem, g: Program, wrong: list[Program], names: list[str], inputs: list[str],
               limits: Limits, runs: int) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
        """Run g and every target on the inputs; for each target whether some input on
        which g runs cleanly breaks it."""
        functional = problem.entry_point is not None
        table = run_programs(self.sandbox, [g, *wrong], inputs, limits=limits, entry_point=problem.entry_point)
        if any(r.verdict is Verdict.SE for row in table for r in row):
            raise InfrastructureFailure("a run of g or a target met a sandbox error after retries")
        g_runs = [row[0] for row in table]
        per_test: list[dict[str, Any]] = [{"g": _code(r), "f": {}} for r in g_runs]
        results: dict[str, dict[str, Any]] = {}
        for k, (f, name) in enumerate(zip(wrong, names), 1):
            f_runs = [row[k] for row in table]
            result = self._breaks(problem, g_runs, f_runs, inputs, functional)
            for i, code in enumerate(result.pop("codes")):
                per_test[i]["f"][name] = code
            extra = runs - 1
            while result["success"] is False and extra > 0 and result.get("agreed"):
                # REFUTE's evaluation: a program right only sometimes is refuted by one wrong run
                again = [row[0] for row in run_programs(self.sandbox, [f], [inputs[i] for i in result["agreed"]],
                                                        limits=limits, entry_point=problem.entry_point)]
                if any(r.verdict is Verdict.SE for r in again):
                    raise InfrastructureFailure("a run of a target met a sandbox error after retries")
                full = [None] * len(inputs)
                for i, r in zip(result["agreed"], again):
                    full[i] = r
                retry = self._breaks(problem, g_runs, full, inputs, functional)
                retry.pop("codes")
                if retry["success"]:
                    retry["reason"] = f"{retry['reason']} (run {runs - extra + 1} of {runs})"
                    result = retry
                extra -= 1
            result.pop("agreed", None)
            results[name] = result
        return results, per_test

    def _breaks(self, problem: Problem, g_runs: list, f_runs: list, inputs: list[str],
                functional: bool) -> dict[str, Any]:
        live = [i for i, (gr, fr) in enumerate(zip(g_runs, f_runs)) if gr.ok and fr is not None]
        codes = ["-" if fr is None else _code(fr) for fr in f_runs]
        for i in live:
            if not f_runs[i].ok:
                return {"success": True, "reason": f"target_{f_runs[i].verdict.value}", "at": i, "codes": codes}
        both = [i for i in live if f_runs[i].ok]
        same = outputs_match(self.sandbox, [(inputs[i], f_runs[i].output, g_runs[i].output) for i in both],
                             comparator=problem.checker, validator=problem.output_validator, functional=functional)
        undecided = False
        agreed = []
        for i, ok in zip(both, same):
            if ok is False:
                codes[i] = "WA"
                return {"success": True, "reason": "target_WA", "at": i, "codes": codes}
            if ok is None:
                undecided = True
            else:
                agreed.append(i)
        if not live and not any(r is None for r in f_runs):
            failed = Counter(r.verdict.value for r in g_runs if not r.ok)
            return {"success": False, "reason": "ground_truth_failed:" + ",".join(sorted(failed)), "at": None,
                    "codes": codes}
        if undecided:
            return {"success": None, "reason": "output_validator_failed", "at": None, "codes": codes,
                    "agreed": agreed}
        return {"success": False, "reason": "no_separation", "at": None, "codes": codes, "agreed": agreed}

    # ------------------------------------------------------------------ report header

    def settings_used(self, scores: list[ScoreRecord]) -> list[tuple[str, str]]:
        scores = [s for s in scores if s.runner == self.name and "targets" in s.detail]
        if not scores:
            return []
        parts = []
        for method in sorted({s.method for s in scores}):
            mine = [s for s in scores if s.method == method]
            units = Counter(self._unit(s) for s in mine)
            each = "/".join(str(k) for k in sorted(set(units.values())))
            times = sorted({(s.detail.get("time_source"), s.detail.get("time_ms")) for s in mine})
            when = "; ".join(f"{t} ms ({src})" for src, t in times)
            runs = "/".join(str(r) for r in sorted({s.detail.get("target_runs", 1) for s in mine}))
            parts.append(f"{method}: {each} response(s) per unit over {len(units)} unit(s); programs under {when}; "
                         f"{runs} run(s) of a target that agreed")
        return [("responses, limits", "; ".join(parts))]

    @staticmethod
    def _unit(s: ScoreRecord) -> tuple[str, str]:
        return s.problem_id, str(s.detail.get("target") or "") if s.detail.get("single_target") else ""

    # ------------------------------------------------------------------ browser

    def matrices(self, record: ScoreRecord, suite: TestSuite) -> list[Matrix]:
        per_test = record.detail.get("per_test")
        if not isinstance(per_test, list) or not per_test:
            return []
        names = sorted({n for cell in per_test for n in cell.get("f", {})})[:8]
        rows: list[tuple[str, list[list[str]]]] = []
        g_cells = []
        for cell in per_test:
            code = cell.get("g", "-")
            g_cells.append([code, "the problem's input check rejects this input: never run" if code == REJECTED
                            else ("g ran cleanly" if code == "AC" else "g failed: this input refutes nothing")])
        rows.append((f"g: {record.detail.get('ground_truth', '')}", g_cells))
        for name in names:
            cells = []
            for cell in per_test:
                code = cell.get("f", {}).get(name, "-")
                cells.append([code, {"AC": "same answer as g", "WA": "the answer differs from g's: broken",
                                     "-": "not run"}.get(code, "the target failed to run: broken")])
            rows.append((f"f: {name}", cells))
        return [Matrix(title="ground truth and targets (counterexamples)", tests=list(range(len(per_test))),
                       rows=rows, notes=[f"valid: {record.detail.get('valid')}; {record.detail.get('reason', '')}"])]

    # ------------------------------------------------------------------ tables

    def summarize(self, scores: list[ScoreRecord]) -> list[Table]:
        scores = [s for s in scores if s.runner == self.name and "targets" in s.detail]
        if not scores:
            return []
        ks = sorted({*self.params.ks})
        groups: dict[tuple[str, str], list[ScoreRecord]] = defaultdict(list)
        for s in scores:
            groups[(s.model, s.method)].append(s)
        rows, breakdown = [], []
        short: Counter = Counter()
        undetermined = 0
        for (model, method), recs in sorted(groups.items()):
            valid: dict[tuple[str, str], list[bool]] = defaultdict(list)
            success: dict[tuple[str, str], list[bool]] = defaultdict(list)
            reasons: Counter = Counter()
            for r in recs:
                valid[self._unit(r)].append(bool(r.detail.get("valid")))
                for name, res in r.detail["targets"].items():
                    if res.get("success") is None:
                        undetermined += 1
                        continue
                    success[(r.problem_id, name)].append(bool(res["success"]))
                    reasons[str(res.get("reason", "")).split(" (run")[0] or "?"] += 1
                if not r.detail.get("valid"):
                    reasons[str(r.detail.get("reason", "")).split(":")[0]] += 1
            row: dict[str, Any] = {"model": model, "method": self.label(method), "problems":
                                   len({r.problem_id for r in recs}), "targets": len(success),
                                   "responses": len(recs)}
            for k in ks:
                row[f"Valid@{k}"] = self._mean_at(valid, k, short, (method, "valid", k))
                row[f"Success@{k}"] = self._mean_at(success, k, short, (method, "success", k))
            row["format err"] = 100.0 * sum(r.metrics.get("format_error", 0.0) > 0 for r in recs) / len(recs)
            row["invalid"] = 100.0 * sum(not r.detail.get("valid") for r in recs) / len(recs)
            rows.append(row)
            total = sum(reasons.values()) or 1
            breakdown.append({"model": model, "method": self.label(method),
                              **{k: 100.0 * v / total for k, v in reasons.items()}})
        columns = ["model", "method", "problems", "targets", "responses",
                   *[c for k in ks for c in (f"Valid@{k}", f"Success@{k}")], "format err", "invalid"]
        notes = ["Success@k: the unbiased pass@k over each target's responses (a target: a (problem, wrong program) "
                 "pair), averaged over targets; a response succeeds on a target when all its inputs are valid and one "
                 "on which the ground truth runs cleanly makes the target fail (crash, time, memory, or an answer the "
                 "problem's comparator does not accept against the ground truth's). Valid@k: the same over the "
                 "responses' validity (every input accepted by the problem's input check), per target for spec+target "
                 "methods, per problem for spec-only ones. REFUTE's success rate is Success@1 with one attempt per "
                 "target. format err / invalid: % of responses."]
        if short:
            notes.append("units left out of an @k for having fewer than k responses: "
                         + ", ".join(f"{m} {what}@{k}: {n}" for (m, what, k), n in sorted(short.items())))
        if undetermined:
            notes.append(f"{undetermined} (response, target) judgement(s) undetermined (the problem's output validator "
                         "failed itself): left out, never counted as a failure")
        keys = sorted({k for row in breakdown for k in row if k not in ("model", "method")})
        return [Table(title="Counterexamples: TCGBench Valid@k / Success@k, REFUTE success rate (%)", columns=columns,
                      rows=rows, notes=notes),
                Table(title="Why responses and targets ended as they did (% of judgements per method)",
                      columns=["model", "method", *keys], rows=breakdown,
                      notes=["target_X: the target failed with verdict X (WA: a different answer) on an input g passes; "
                             "no_separation: every input gave the target's and g's answers alike; "
                             "ground_truth_failed: g failed on every input; invalid_input / format_error: the "
                             "response itself (no target judged)"])]

    @staticmethod
    def _mean_at(units: dict[Any, list[bool]], k: int, short: Counter, key: tuple) -> float | None:
        values = []
        for outcomes in units.values():
            v = pass_at_k(len(outcomes), sum(outcomes), k)
            if v is None:
                short[key] += 1
            else:
                values.append(100.0 * v)
        return sum(values) / len(values) if values else None

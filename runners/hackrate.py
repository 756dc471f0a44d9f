"""TC-Bench scoring: PassRate, HackRate and its AC/WA/RE/TLE breakdown (paper §3.1.2).

Per problem:

1. *Validators*: up to 8 correct codes, sampled (seeded) from those within the fastest
   20% after min-max normalisation of their mean runtime on the golden tests (on the
   samples when a benchmark has no golden tests).
2. *Validity*: a test that brings its own expected output is valid when every
   validator's output matches it; a test without one (outputs come from correct code)
   is valid when every validator runs cleanly and they all agree — the agreed output
   becomes its expected output. PassRate = valid / generated.
3. *Hacking*: each wrong code runs on the valid tests in order and stops at its first
   non-AC verdict; it is excluded when there is one. HackRate = excluded / wrong codes;
   the breakdown counts each wrong code by its first failure (AC = not excluded).
   MLE and OLE count as RE, CE as RE.
4. Both rates are macro-averaged over problems (the paper's formulas).

Test budget: ``scale`` × rank tests (TC-Bench's unit), rank taken from the benchmark; a
problem without a rank uses ``default_budget``. ``scales`` scores seeded subsets of
size k × rank for each k as well (test-time scaling, Figure 5), from one generation
of max(k) × rank tests.

Deliberate option, off by default and flagged in reports: ``consensus_outputs`` replaces a
predicted output with the validators' consensus output before validity is decided, as
the reference repository's evaluation script does.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tczoo.errors import UserError
from tczoo.paths import cached_json
from tczoo.runner import Matrix, Runner, Table, TaskSpec
from tczoo.sandbox import Job, Limits, Verdict, compare_outputs
from tczoo.schema import OracleKind, Problem, Program, ScoreRecord, TestSuite

BREAKDOWN = ("ac", "wa", "re", "tle")


class HackRateParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scale: int = Field(1, ge=1, description="test budget = scale x rank")
    scales: list[int] = Field(default_factory=list, description="also score subsets at k x rank")
    default_budget: int = Field(10, ge=1, description="budget when a problem has no rank")
    validators: int = Field(8, ge=1, description="correct codes used to validate tests")
    fastest_fraction: float = Field(0.2, gt=0, le=1)
    consensus_outputs: bool = False
    seed: int = 0


def _first_failure(verdict: Verdict) -> str:
    if verdict is Verdict.WA:
        return "wa"
    if verdict is Verdict.TLE:
        return "tle"
    return "re"  # RE, MLE, OLE, CE, SE


class HackRateRunner(Runner):
    name = "hackrate"
    paper = "TC-Bench (How Many Code and Test Cases Are Enough?)"
    summary = "PassRate / HackRate with AC-WA-RE-TLE breakdown, macro-averaged over problems"
    headline = "hack_rate"
    Params = HackRateParams

    # ------------------------------------------------------------------ budget

    def budget(self, problem: Problem) -> int:
        k = max([self.params.scale, *self.params.scales])
        return k * problem.rank if problem.rank else self.params.default_budget * k

    # ------------------------------------------------------------------ validators

    def validators(self, problem: Problem) -> list[Program]:
        """Up to N correct codes from the fastest fraction after min-max normalisation."""
        solutions = problem.solutions
        if len(solutions) <= 1:
            return list(solutions)
        runtimes = self._runtimes(problem)
        lo, hi = min(runtimes), max(runtimes)
        span = hi - lo
        fast = [s for s, r in zip(solutions, runtimes) if span == 0 or (r - lo) / span <= self.params.fastest_fraction]
        rng = random.Random(f"{self.params.seed}:{problem.id}")
        if len(fast) > self.params.validators:
            fast = rng.sample(fast, self.params.validators)
        return fast

    def _runtimes(self, problem: Problem) -> list[float]:
        """Mean CPU ms of each correct code on the golden tests (samples if none); cached."""
        inputs = [t.input for t in problem.golden_tests] or [s.input for s in problem.samples]
        if not inputs:
            return [0.0] * len(problem.solutions)
        def measure() -> list[float]:
            limits = self._limits(problem)
            jobs = [Job(program=s, stdin=i, limits=limits, tag=k)
                    for k, s in enumerate(problem.solutions) for i in inputs]
            totals = [0.0] * len(problem.solutions)
            for job, res in zip(jobs, self.sandbox.run_many(jobs)):
                # A failing run counts as the full limit: such a code is not a fast validator.
                totals[job.tag] += res.cpu_ms if res.ok else float(limits.time_ms)
            return [t / len(inputs) for t in totals]

        return cached_json("runtimes", [[s.digest for s in problem.solutions], inputs, problem.time_limit_ms],
                           measure)

    @staticmethod
    def _limits(problem: Problem) -> Limits:
        return Limits.of(problem)

    # ------------------------------------------------------------------ scoring

    def validate(self, problem: Problem, suite: TestSuite) -> tuple[list[tuple[str, str]], list[dict]]:
        """(valid tests as (input, expected output), per-test detail)."""
        validators = self.validators(problem)
        tests = suite.tests
        if not validators:
            raise ValueError(f"problem {problem.id} has no correct code to validate tests with")
        limits = self._limits(problem)
        jobs = [Job(program=v, stdin=t.input, limits=limits) for t in tests for v in validators]
        results = list(self.sandbox.run_many(jobs)) if jobs else []
        own_outputs = suite.oracle.kind is OracleKind.EXPECTED_OUTPUT
        valid: list[tuple[str, str]] = []
        detail = []
        for i, test in enumerate(tests):
            runs = results[i * len(validators) : (i + 1) * len(validators)]
            clean = all(r.ok for r in runs)
            outs = [r.stdout for r in runs]
            agree = clean and all(compare_outputs(o, outs[0], problem.checker) for o in outs[1:])
            expected = test.output if own_outputs else None
            if own_outputs and expected is not None and self.params.consensus_outputs and agree:
                expected = outs[0]
            if expected is not None:
                ok = clean and all(compare_outputs(o, expected, problem.checker) for o in outs)
            else:
                ok = agree
                expected = outs[0] if agree else None
            reason = "valid" if ok else ("validator_failed" if not clean else ("outputs_disagree" if expected is None else "wrong_output"))
            detail.append({"test": i, "valid": ok, "reason": reason})
            if ok:
                valid.append((test.input, expected))
        return valid, detail

    def hack(self, problem: Problem, valid: list[tuple[str, str]],
             first: dict[int, tuple[int, str]] | None = None) -> tuple[list[str], int]:
        """First-failure category per wrong code ("ac" if none) and executions made;
        ``first`` (when given) receives, per excluded wrong code, the index into
        ``valid`` of its first failing test and the verdict there.

        Round by round: test i runs for every wrong code still standing, so the early
        exit is exact and each round still fills the worker pool."""
        wrongs = problem.wrong_solutions
        outcome = ["ac"] * len(wrongs)
        alive = list(range(len(wrongs)))
        limits = self._limits(problem)
        executions = 0
        for round_, (inp, expected) in enumerate(valid):
            if not alive:
                break
            jobs = [
                Job(program=wrongs[w], stdin=inp, expected=expected, comparator=problem.checker, limits=limits, tag=w)
                for w in alive
            ]
            executions += len(jobs)
            still = []
            for job, res in zip(jobs, self.sandbox.run_many(jobs)):
                if res.verdict is Verdict.AC:
                    still.append(job.tag)
                else:
                    outcome[job.tag] = _first_failure(res.verdict)
                    if first is not None:
                        first[job.tag] = (round_, res.verdict.value)
            alive = still
        return outcome, executions

    def _metrics(self, problem: Problem, n_generated: int, valid: list[tuple[str, str]]) -> tuple[dict[str, float], dict[str, Any]]:
        first: dict[int, tuple[int, str]] = {}
        outcome, executions = self.hack(problem, valid, first)
        n_wrong = len(outcome)
        counts = Counter(outcome)
        metrics = {
            "pass_rate": 100.0 * len(valid) / n_generated if n_generated else 0.0,
            "hack_rate": 100.0 * (n_wrong - counts["ac"]) / n_wrong if n_wrong else 0.0,
            **{k: (100.0 * counts[k] / n_wrong if n_wrong else 0.0) for k in BREAKDOWN},
            "n_tests": float(n_generated),
            "n_valid": float(len(valid)),
        }
        detail = {
            "wrong": {w.name or str(i): o for i, (w, o) in enumerate(zip(problem.wrong_solutions, outcome))},
            # per excluded wrong code: [index among the valid tests, verdict] of its first failure
            "first_failure": {w.name or str(i): list(first[i]) for i, w in enumerate(problem.wrong_solutions)
                              if i in first},
            "executions": executions,
            "executions_full": n_wrong * len(valid),
        }
        return metrics, detail

    def score(self, problem: Problem, spec: TaskSpec, suite: TestSuite) -> ScoreRecord:
        budget = self.budget(problem)
        tests = suite.tests[:budget]  # a method that over-delivers is held to the budget
        trimmed = suite.model_copy(update={"tests": tests})
        valid_all, detail_tests = self.validate(problem, trimmed)
        metrics, detail = self._metrics(problem, len(tests), valid_all)
        detail["tests"] = detail_tests
        detail["budget"] = budget
        detail["consensus_outputs"] = self.params.consensus_outputs
        if self.params.scales:
            valid_flags = [d["valid"] for d in detail_tests]
            per_test = []
            j = 0
            for flag in valid_flags:
                per_test.append(valid_all[j] if flag else None)
                j += flag
            unit = problem.rank or self.params.default_budget
            for k in sorted(set(self.params.scales)):
                rng = random.Random(f"{self.params.seed}:{problem.id}:{k}")
                idx = sorted(rng.sample(range(len(tests)), min(len(tests), k * unit)))
                subset_valid = [per_test[i] for i in idx if per_test[i] is not None]
                m, _ = self._metrics(problem, len(idx), subset_valid)
                metrics[f"pass_rate@{k}x"] = m["pass_rate"]
                metrics[f"hack_rate@{k}x"] = m["hack_rate"]
        return ScoreRecord(runner=self.name, method=suite.provenance.method, model=suite.provenance.model,
                           problem_id=problem.id, metrics=metrics, detail=detail)

    # ------------------------------------------------------------------ tables

    def summarize(self, scores: list[ScoreRecord]) -> list[Table]:
        groups: dict[tuple[str, str], list[ScoreRecord]] = {}
        for s in scores:
            groups.setdefault((s.model, s.method), []).append(s)
        rows = []
        for (model, method), recs in sorted(groups.items()):
            per_problem: dict[str, list[ScoreRecord]] = {}
            for r in recs:
                per_problem.setdefault(r.problem_id, []).append(r)

            def avg(key: str) -> float:
                # Macro average over problems (samples of one problem averaged first).
                vals = [sum(r.metrics.get(key, 0.0) for r in rs) / len(rs) for rs in per_problem.values()]
                return sum(vals) / len(vals) if vals else 0.0

            row = {"model": model, "method": method.upper(), "problems": len(per_problem),
                   "PR": avg("pass_rate"), "AC": avg("ac"), "WA": avg("wa"), "RE": avg("re"),
                   "TLE": avg("tle"), "HR": avg("hack_rate")}
            for key in sorted({k for r in recs for k in r.metrics if k.startswith("hack_rate@")}):
                row["HR " + key.split("@")[1]] = avg(key)
            rows.append(row)
        columns = ["model", "method", "problems", "PR", "AC", "WA", "RE", "TLE", "HR"]
        columns += sorted({k for r in rows for k in r if k.startswith("HR ")}, key=lambda c: int(c[3:-1]))
        notes = []
        if any(s.detail.get("consensus_outputs") for s in scores):
            notes.append("consensus_outputs was ON: predicted outputs were replaced by the validators' "
                         "consensus (reference-repo behaviour, not the paper's definition)")
        execs = sum(s.detail.get("executions", 0) for s in scores)
        full = sum(s.detail.get("executions_full", 0) for s in scores)
        if full:
            notes.append(f"early exit ran {execs} of {full} wrong-code executions ({100 * (1 - execs / full):.0f}% saved)")
        return [Table(title="TC-Bench HackRate (Table 1 layout; %, macro over problems)", columns=columns, rows=rows, notes=notes)]

    # ------------------------------------------------------------------ browser

    def matrices(self, record: ScoreRecord, suite: TestSuite) -> list[Matrix]:
        """Validity per test, then each wrong code's verdicts up to its first failure
        (the early exit: later tests never ran on it)."""
        tests = record.detail.get("tests")
        if not isinstance(tests, list):
            return []
        columns = [int(t["test"]) for t in tests]
        rows = [("validity", [["valid" if t.get("valid") else "invalid", t.get("reason", "")] for t in tests])]
        valid_cols = [j for j, t in enumerate(tests) if t.get("valid")]
        first = record.detail.get("first_failure")
        for name, outcome in record.detail.get("wrong", {}).items():
            cells = [["-", "invalid test: not run"] for _ in tests]
            if first is None and outcome != "ac":
                cells = [["?", f"first failure {outcome.upper()}; which test was not recorded"] for _ in tests]
            else:
                stop = first.get(name) if first else None
                for k, j in enumerate(valid_cols):
                    if stop is not None and k > stop[0]:
                        cells[j] = ["-", "not run: an earlier test already failed it"]
                    elif stop is not None and k == stop[0]:
                        cells[j] = [stop[1], "first failure: the wrong code is excluded here"]
                    else:
                        cells[j] = ["AC", "passed"]
            rows.append((name, cells))
        return [Matrix(title="validity and wrong codes (HackRate)", tests=columns, rows=rows,
                       notes=["a wrong code stops at its first failing valid test (TC-Bench's early exit)"])]

    # ------------------------------------------------------------------ external tests

    @classmethod
    def score_external(cls, *, benchmark: str, tests_path: Path, scale: int | None = None,
                       detail_path: Path | None = None, sandbox=None) -> dict[str, Any]:
        """Score tests produced anywhere: JSONL lines {"problem_id", "input", "output"?}."""
        from tczoo.benchmarks import load_benchmark
        from tczoo.sandbox import Sandbox
        from tczoo.schema import Oracle, Provenance, TestCase

        by_problem: dict[str, list[TestCase]] = {}
        with tests_path.open() as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                    pid, inp = rec["problem_id"], rec["input"]
                except (json.JSONDecodeError, KeyError, TypeError) as exc:
                    raise UserError(f"{tests_path}:{n}: need a JSON object with problem_id and input ({exc})") from exc
                by_problem.setdefault(str(pid), []).append(TestCase(input=inp, output=rec.get("output"), origin="external"))
        own = sandbox is None
        sandbox = sandbox or Sandbox()
        try:
            problems = {p.id: p for p in load_benchmark(benchmark, sandbox=sandbox)}
            unknown = sorted(set(by_problem) - set(problems))
            if unknown:
                raise UserError(f"tests name problems not in {benchmark}: {', '.join(unknown[:5])}")
            runner = cls(sandbox, **({"scale": scale} if scale else {}))
            records = []
            for pid, tests in by_problem.items():
                with_outputs = all(t.output is not None for t in tests)
                suite = TestSuite(
                    problem_id=pid,
                    tests=tests,
                    oracle=Oracle(kind=OracleKind.EXPECTED_OUTPUT if with_outputs else OracleKind.REFERENCE_PROGRAM,
                                  program=None if with_outputs else problems[pid].solutions[0]),
                    provenance=Provenance(method="external"),
                )
                records.append(runner.score(problems[pid], TaskSpec(key="", task=None), suite))  # type: ignore[arg-type]
        finally:
            if own:
                sandbox.close()
        row = runner.summarize(records)[0].rows[0]
        result = {"pass_rate": row["PR"], "hack_rate": row["HR"], "ac": row["AC"], "wa": row["WA"],
                  "re": row["RE"], "tle": row["TLE"], "problems": row["problems"]}
        per_problem = {r.problem_id: {"metrics": r.metrics, "detail": r.detail} for r in records}
        if detail_path is None:
            detail_path = tests_path.with_suffix(".detail.json")
        detail_path.write_text(json.dumps(per_problem, indent=1))
        result["detail_file"] = str(detail_path)
        return result

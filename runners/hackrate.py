"""TC-Bench scoring: PassRate, HackRate and its AC/WA/RE/TLE breakdown (paper §3.1.2,
Appendix A.4; the reference scripts ``filter_testcases.py`` and ``get_rank_result.py``).

Per problem and generated suite:

1. *Validators*: the problem's correct codes as TC-Bench publishes them (its 8, chosen
   at construction from the fastest 20%); for a benchmark of raw solutions the same
   choice is made here (``tczoo.benchmarks.correct_codes.select_fastest``). They run on
   every generated test under the reference's limits (time limit's whole seconds + 3 s,
   5 x memory). A validator that runs cleanly on no test at all is dropped, as the
   reference drops correct codes that fail every test.
2. *Validity*, test by test, by the test's own oracle: a given output is valid when
   every validator runs cleanly and prints it; a test without an output is valid when
   every validator runs cleanly and they agree, and their output becomes its expected
   output. PassRate = valid / generated.
3. *Budget* (A.4 and ``get_rank_result.py``): a method is asked for 5 x R' tests
   (``ask_scale``: the pool the reference draws its 1x-5x prefixes from); the valid
   tests are shuffled once (seeded) and HackRate at k x rank uses the prefix of k x R'
   of them, so the prefixes are nested and 1x holds R' *valid* tests whenever the
   method wrote that many; the main columns use ``scale`` x R' (1x, the paper's
   Table 1), or every valid test when ``scale`` is None (external test files).
4. *Hacking*: each wrong code runs on the shuffled valid tests in that order and stops
   at its first non-AC verdict; it is excluded at k when that verdict falls within the
   k x R' prefix, and that verdict is its AC/WA/RE/TLE category (MLE/OLE/CE count as
   RE). A sandbox error (SE) is our failure, not the program's: the wrong code is left
   out of the rates from that test on and counted apart.
5. Both rates are macro-averaged over problems. As the reference does, PassRate
   averages the problems with at least one generated test and HackRate every problem
   (one without valid tests scores 0); the report prints PassRate counting empty
   problems as 0 beside it.

Options that change the paper's definition are off by default and flagged in reports:
``consensus_outputs`` (the reference filter's rule that a test every validator
"fails" with one agreed output is kept with that output), ``validator_limits`` /
``wrong_limits`` = "problem" (the judge's own limits instead of the reference's margin).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field

from tczoo.benchmarks.correct_codes import FASTEST_FRACTION, VALIDATORS, reference_limits, select_fastest
from tczoo.errors import UserError
from tczoo.execution import (REJECTED_NOTE, Execution, Limits, Sandbox, Verdict, as_generated, rejected_columns,
                             rejected_detail, run_programs, same_output, score_suite)
from tczoo.sandbox.types import Job
from tczoo.runner import Matrix, Runner, RunnerParams, Table, TaskSpec
from tczoo.schema import Problem, Program, ScoreRecord, Setting, Task, TestSuite

BREAKDOWN = ("ac", "wa", "re", "tle")
PUBLISHED = "published"  # Problem.meta["validators"]: the solutions are the paper's validator set


class UnscorableInput(UserError, ValueError):
    """Tests or a benchmark that cannot be scored (one line, exit 2; a run records it)."""


class HackRateParams(RunnerParams):
    model_config = ConfigDict(extra="forbid")

    scale: int | None = Field(1, ge=1, description="main columns: the first scale x rank valid tests (None: all)")
    scales: list[int] = Field(default_factory=list, description="also score the k x rank prefix for each k")
    ask_scale: int | None = Field(5, ge=1, description="methods are asked for ask_scale x rank tests, or the "
                                                       "largest k x rank scored when larger (5: the pool "
                                                       "get_rank_result.py draws 1x-5x from; None: only the "
                                                       "largest k x rank scored)")
    default_unit: int = Field(10, ge=1, description="tests per 1x when a problem has no rank")
    validators: int = Field(VALIDATORS, ge=1, description="correct codes that validate tests")
    fastest_fraction: float = Field(FASTEST_FRACTION, gt=0, le=1,
                                    description="validators are drawn from this fastest fraction of the correct codes")
    validator_pool: Literal["auto", "published", "fastest"] = Field(
        "auto", description="auto: the published set on TC-Bench data, else the fastest fraction")
    validator_limits: Literal["reference", "problem"] = Field(
        "reference", description="validators run under the reference's margin, or the problem's own limits (flagged)")
    wrong_limits: Literal["reference", "problem"] = Field(
        "reference", description="wrong codes run under the reference's margin, or the problem's own limits (flagged)")
    consensus_outputs: bool = Field(False, description="keep a test every validator 'fails' with one agreed output, "
                                                        "with that output (the reference filter's rule; flagged)")
    method_correct: int = Field(1, ge=1, description="correct codes given to a spec+correct method")
    seed: int = Field(0, description="seed of the valid tests' shuffle and the validators' draw")


def category(verdict: Verdict) -> str:
    """A wrong code's exclusion category from its first non-AC verdict."""
    if verdict is Verdict.WA:
        return "wa"
    if verdict is Verdict.TLE:
        return "tle"
    if verdict is Verdict.SE:
        return "se"
    return "re"  # RE, MLE, OLE, CE


UNDECIDED = ("sandbox_error", "judge_error")  # infrastructure, not the test: left out of PassRate


@dataclass
class TestJudgement:
    index: int
    valid: bool
    # given_output_ok, from_validators, consensus | wrong_output, validator_failed, outputs_disagree |
    # sandbox_error, judge_error (the problem's output validator failed) | no_working_validator
    reason: str
    expected: str | None = None


def judge_test(index: int, given: str | None, runs: list[Execution], accepted: list[Verdict],
               agreed: list[Verdict] | None = None, *, consensus: bool = False) -> TestJudgement:
    """Validity of one test from its validators' runs, by the test's own oracle.

    ``accepted[j]``: the given output judged with run j's output as the reference answer,
    or, for a test without one, run j's output judged with run 0's as the answer (AC, WA,
    or SE when the problem's output validator failed); empty when some run was not clean. ``agreed[j]``: run j's output against run
    0's, needed only for ``consensus`` on a test with a given output."""
    if any(r.verdict is Verdict.SE for r in runs):
        return TestJudgement(index, False, "sandbox_error")
    if not runs or not all(r.ok for r in runs):
        return TestJudgement(index, False, "validator_failed")
    if any(v is Verdict.SE for v in accepted):
        return TestJudgement(index, False, "judge_error")
    ok = all(v is Verdict.AC for v in accepted)
    if given is not None:
        if ok:
            return TestJudgement(index, True, "given_output_ok", given)
        if consensus and agreed is not None and all(v is Verdict.AC for v in agreed):
            return TestJudgement(index, True, "consensus", runs[0].output)
        return TestJudgement(index, False, "wrong_output")
    if ok:
        return TestJudgement(index, True, "from_validators", runs[0].output)
    return TestJudgement(index, False, "outputs_disagree")


@dataclass
class WrongOutcome:
    position: int | None  # index in the shuffled valid tests of the first non-AC verdict
    category: str  # its category; "ac" when none within the tests run
    verdict: str = ""  # the verdict itself (WA, TLE, MLE, SE ...)

    def at(self, n: int) -> str:
        """The outcome on the first ``n`` shuffled valid tests: ac, wa, re, tle, or se
        (a sandbox error came first: not known)."""
        return self.category if self.position is not None and self.position < n else "ac"


class HackRateRunner(Runner):
    name = "hackrate"
    paper = "TC-Bench (How Many Code and Test Cases Are Enough?)"
    summary = "PassRate / HackRate with AC-WA-RE-TLE breakdown at k x rank, macro-averaged over problems"
    headline = "hack_rate"
    # A method that produced no test for a problem is a result: the reference scores every
    # problem of the benchmark (HackRate 0) and leaves it out of PassRate's average.
    scores_empty_suites = True
    Params = HackRateParams

    def __init__(self, sandbox: Sandbox | None = None, **params: Any):
        super().__init__(sandbox, **params)
        self.memo: dict[tuple, Execution] | None = None  # analyses re-score one suite many ways

    # ------------------------------------------------------------------ budget and tasks

    def unit(self, problem: Problem) -> int:
        """Tests per 1x: the rank R' (A.4), or ``default_unit`` for a problem without one."""
        return problem.rank or self.params.default_unit

    def budget(self, problem: Problem) -> int:
        """How many tests a method is asked for: enough for the largest prefix scored."""
        k = max([self.params.ask_scale or 0, self.params.scale or 0, *self.params.scales, 1])
        return k * self.unit(problem)

    def tasks(self, problem: Problem, method_cls: type, *, samples: int, seed: int) -> list[TaskSpec]:
        """As every runner's, except that a spec+correct method (LCB, HT) is given
        ``method_correct`` correct code(s) — the paper's "the correct code" — chosen
        outside the validator set when the problem has more solutions than validators."""
        if method_cls.setting is not Setting.SPEC_CORRECT or not problem.solutions:
            return super().tasks(problem, method_cls, samples=samples, seed=seed)
        correct = self.method_correct_codes(problem)
        return [
            TaskSpec(key="" if samples == 1 else f"s{i}", sample=i,
                     task=Task.from_problem(problem, Setting.SPEC_CORRECT, budget=self.budget(problem),
                                            seed=seed + i, correct=correct))
            for i in range(samples)
        ]

    def method_correct_codes(self, problem: Problem) -> list[Program]:
        validators = {p.digest for p in self.validators(problem)}
        outside = [p for p in problem.solutions if p.digest not in validators]
        pool = outside or list(problem.solutions)
        rng = random.Random(f"{self.params.seed}:{problem.id}:method-correct")
        return rng.sample(pool, min(self.params.method_correct, len(pool)))

    # ------------------------------------------------------------------ validators

    def validator_mode(self, problem: Problem) -> str:
        mode = self.params.validator_pool
        if mode == "auto":
            mode = "published" if problem.meta.get("validators") == PUBLISHED else "fastest"
        return mode

    def validators(self, problem: Problem) -> list[Program]:
        """The correct codes that validate tests (see the module docstring)."""
        if self.validator_mode(problem) == "published":
            chosen = list(problem.solutions)
            if len(chosen) > self.params.validators:
                chosen = random.Random(f"{self.params.seed}:{problem.id}").sample(chosen, self.params.validators)
            return chosen
        if len(problem.solutions) <= 1:
            return list(problem.solutions)
        return select_fastest(problem, self.sandbox, n=self.params.validators,
                              fraction=self.params.fastest_fraction, seed=self.params.seed,
                              limits=self.validator_limits(problem)).chosen

    def validator_limits(self, problem: Problem) -> Limits:
        return reference_limits(problem) if self.params.validator_limits == "reference" else Limits.of(problem)

    def wrong_code_limits(self, problem: Problem) -> Limits:
        return reference_limits(problem) if self.params.wrong_limits == "reference" else Limits.of(problem)

    # ------------------------------------------------------------------ execution

    def _run(self, programs: list[Program], inputs: list[str], limits: Limits,
             entry_point: str | None) -> list[list[Execution]]:
        """``run_programs``, through the memo when an analysis turned it on."""
        if self.memo is None:
            return run_programs(self.sandbox, programs, inputs, limits=limits, entry_point=entry_point)
        lim = tuple(limits.model_dump().values())
        keys = [[(p.digest, i, lim, entry_point) for p in programs] for i in inputs]
        todo_inputs = [i for i, row in zip(inputs, keys) if any(k not in self.memo for k in row)]
        if todo_inputs:
            fresh = run_programs(self.sandbox, programs, todo_inputs, limits=limits, entry_point=entry_point)
            for i, row in zip(todo_inputs, fresh):
                for p, ex in zip(programs, row):
                    self.memo[(p.digest, i, lim, entry_point)] = ex
        return [[self.memo[k] for k in row] for row in keys]

    def check_outputs(self, problem: Problem, triples: list[tuple[str, str, str]]) -> list[Verdict]:
        """(input, output, answer) -> AC when the output is right for that answer, else WA;
        SE when the problem's output validator itself failed. A problem with an output
        validator (Kattis ``validation: custom``) asks it, in one sandbox batch; the
        others compare with the problem's comparator."""
        validator = problem.output_validator
        if validator is None:
            functional = problem.entry_point is not None
            return [Verdict.AC if same_output(o, a, comparator=problem.checker, functional=functional) else Verdict.WA
                    for _, o, a in triples]
        from tczoo.sandbox import validators as kattis

        memo = self.memo if self.memo is not None else {}
        todo = list(dict.fromkeys(t for t in triples if ("check",) + t not in memo))
        jobs = [kattis.output_validator_job(validator, i, a, o) for i, o, a in todo]
        for t, run in zip(todo, self.sandbox.run_many(jobs) if jobs else []):
            memo[("check",) + t] = kattis.output_judgement(run, validator.program.name).verdict
        return [memo[("check",) + t] for t in triples]

    def validate(self, problem: Problem, suite: TestSuite,
                 validators: list[Program] | None = None) -> tuple[list[TestJudgement], dict[str, Any]]:
        """Judge every test of the suite; also says which validators were used or dropped."""
        validators = self.validators(problem) if validators is None else validators
        info: dict[str, Any] = {"validators": [v.name for v in validators], "validators_dropped": [],
                                "validators_used": 0}
        tests = suite.tests
        if not validators:  # the benchmark is broken for this problem: a run records it as unscorable
            raise UnscorableInput(f"problem {problem.id} has no correct code to validate tests with")
        runs = self._run(validators, [t.input for t in tests], self.validator_limits(problem), problem.entry_point)
        # A correct code that runs cleanly on none of the tests is broken here (a CE, a
        # crash on every input): dropped, as the reference drops one failing every test.
        keep = [j for j in range(len(validators))
                if not tests or any(row[j].ok for row in runs)
                or all(row[j].verdict is Verdict.SE for row in runs)]
        info["validators_dropped"] = [
            {"name": validators[j].name, "verdict": runs[0][j].verdict.value, "detail": runs[0][j].detail[-200:]}
            for j in range(len(validators)) if j not in keep
        ]
        info["validators_used"] = len(keep)
        if not keep:
            return [TestJudgement(i, False, "no_working_validator") for i in range(len(tests))], info
        kept = [[row[j] for j in keep] for row in runs]
        clean = [i for i, row in enumerate(kept) if all(r.ok for r in row)]
        # A given output is judged with each validator's output as the reference answer (an
        # output validator may accept several answers); without one, each validator's
        # output is judged with the first validator's as the answer (they must agree).
        def pair(i: int, r: Execution) -> tuple[str, str, str]:
            given = tests[i].output
            return (tests[i].input, given, r.output) if given is not None else (tests[i].input, r.output,
                                                                               kept[i][0].output)
        flat = iter(self.check_outputs(problem, [pair(i, r) for i in clean for r in kept[i]]))
        accepted = {i: [next(flat) for _ in kept[i]] for i in clean}
        agreed: dict[int, list[Verdict]] = {}
        if self.params.consensus_outputs:
            rejected = [i for i in clean if tests[i].output is not None
                        and not all(v is Verdict.AC for v in accepted[i])]
            flat = iter(self.check_outputs(problem, [(tests[i].input, r.output, kept[i][0].output)
                                                     for i in rejected for r in kept[i]]))
            agreed = {i: [next(flat) for _ in kept[i]] for i in rejected}
        judged = [judge_test(i, t.output, kept[i], accepted.get(i, []), agreed.get(i),
                             consensus=self.params.consensus_outputs)
                  for i, t in enumerate(tests)]
        return judged, info

    def shuffled(self, problem: Problem, key: str, valid: list[TestJudgement]) -> list[TestJudgement]:
        """The valid tests in one seeded random order; every budget is a prefix of it."""
        order = list(valid)
        random.Random(f"{self.params.seed}:{problem.id}:{key}").shuffle(order)
        return order

    def hack(self, problem: Problem, tests: list[tuple[str, str]]) -> tuple[list[WrongOutcome], int]:
        """Each wrong code on ``tests`` in order until its first non-AC verdict.

        Round by round (test i for every wrong code still standing), so the early exit
        is exact and each round still fills the worker pool."""
        wrongs = problem.wrong_solutions
        outcome = [WrongOutcome(None, "ac") for _ in wrongs]
        alive = list(range(len(wrongs)))
        executions = 0
        for pos, (inp, expected) in enumerate(tests):
            if not alive:
                break
            verdicts = self._judge(problem, [wrongs[w] for w in alive], inp, expected)
            executions += len(alive)
            still = []
            for w, verdict in zip(alive, verdicts):
                if verdict is Verdict.AC:
                    still.append(w)
                else:
                    outcome[w] = WrongOutcome(pos, category(verdict), verdict.value)
            alive = still
        return outcome, executions

    def _judge(self, problem: Problem, programs: list[Program], inp: str, expected: str) -> list[Verdict]:
        """Each program's verdict on one test: the sandbox's judge (comparator or the
        problem's output validator) for stdin problems; run and compare for functional ones."""
        limits = self.wrong_code_limits(problem)
        if problem.entry_point is not None:
            [row] = self._run(programs, [inp], limits, problem.entry_point)
            verdicts = [ex.verdict for ex in row]
            outs = [ex.output for ex, v in zip(row, verdicts) if v is Verdict.AC]
            checks = iter(self.check_outputs(problem, [(inp, o, expected) for o in outs]))
            return [next(checks) if v is Verdict.AC else v for v in verdicts]
        memo = self.memo if self.memo is not None else {}
        lim = tuple(limits.model_dump().values())
        keys = [("judge", p.digest, inp, expected, lim) for p in programs]
        todo = [(k, p) for k, p in zip(keys, programs) if k not in memo]
        jobs = [Job(program=p, stdin=inp, expected=expected, comparator=problem.checker,
                    output_validator=problem.output_validator, limits=limits) for _, p in todo]
        for (k, _), res in zip(todo, self.sandbox.run_many(jobs) if jobs else []):
            memo[k] = res.verdict
        return [memo[k] for k in keys]

    # ------------------------------------------------------------------ scoring

    @staticmethod
    def _rates(outcomes: list[WrongOutcome], n: int) -> dict[str, float]:
        """HackRate and breakdown on the first ``n`` tests; SE'd wrong codes left out."""
        cats = Counter(o.at(n) for o in outcomes)
        judged = len(outcomes) - cats["se"]
        out = {"n_wrong_sandbox_errors": float(cats["se"])}
        if judged:
            out["hack_rate"] = 100.0 * (judged - cats["ac"]) / judged
            out.update({k: 100.0 * cats[k] / judged for k in BREAKDOWN})
        return out

    def score(self, problem: Problem, spec: TaskSpec, suite: TestSuite,
              validators: list[Program] | None = None) -> ScoreRecord:
        judged, info = self.validate(problem, suite, validators)
        valid = [j for j in judged if j.valid]
        n_se = sum(j.reason in UNDECIDED for j in judged)
        # tests whose input the problem's input check rejected (tczoo.execution.screen):
        # generated, never valid, never run on a wrong code
        n_rejected = len(suite.rejected)
        n_generated = len(judged) + n_rejected
        unit = self.unit(problem)
        order = self.shuffled(problem, spec.key, valid)
        main_n = self.params.scale * unit if self.params.scale else len(order)
        sizes = {k: k * unit for k in sorted(set(self.params.scales))}
        run_n = min(len(order), max([main_n, *sizes.values()]))
        outcomes, executions = self.hack(problem, [(suite.tests[j.index].input, j.expected) for j in order[:run_n]])

        metrics: dict[str, float] = {"n_tests": float(n_generated), "n_test_sandbox_errors": float(n_se),
                                     "n_wrong": float(len(outcomes)), "unit": float(unit)}
        if n_rejected:
            metrics["n_invalid_input"] = float(n_rejected)
        if info["validators_used"] == 0 and judged:
            metrics["no_validator"] = 1.0  # nothing can be said about this problem: reported apart
        elif judged and n_se == len(judged) and not n_rejected:
            metrics["undecided"] = 1.0  # every test met a sandbox error: likewise
        else:
            decided = n_generated - n_se
            if decided:
                metrics["pass_rate"] = 100.0 * len(valid) / decided
            metrics.update(self._rates(outcomes, main_n))
            metrics["n_used"] = float(min(main_n, len(order)))
            metrics["n_wanted"] = float(main_n)
            for k, n in sizes.items():
                for key, value in self._rates(outcomes, n).items():
                    metrics[f"{key}@{k}x"] = value
                metrics[f"n_used@{k}x"] = float(min(n, len(order)))
                metrics[f"n_wanted@{k}x"] = float(n)
        names = [w.name or f"wrong-{i}" for i, w in enumerate(problem.wrong_solutions)]
        detail = {
            "wrong": {name: o.at(main_n) for name, o in zip(names, outcomes)},
            # per wrong code that failed: [position in "order", verdict] (the run browser's matrix)
            "first_failure": {name: [o.position, o.verdict] for name, o in zip(names, outcomes)
                              if o.position is not None},
            "tests": [{"test": j.index, "valid": j.valid, "reason": j.reason} for j in judged],
            # the rejected inputs: their position as generated, and why (never run)
            "rejected": rejected_detail(suite.rejected),
            "order": [j.index for j in order],
            "tests_run": run_n,
            "asked": getattr(spec.task, "budget", None),  # tests the method was asked for
            "executions": executions,
            "executions_full": len(outcomes) * run_n,
            "scale": self.params.scale,
            "consensus_outputs": self.params.consensus_outputs,
            "limits": {"validators": self.params.validator_limits, "wrong": self.params.wrong_limits},
            **info,
        }
        return ScoreRecord(runner=self.name, method=suite.provenance.method, model=suite.provenance.model,
                           problem_id=problem.id, metrics=metrics, detail=detail, n_valid=len(valid))

    # ------------------------------------------------------------------ tables

    def settings_used(self, scores: list[ScoreRecord]) -> list[tuple[str, str]]:
        """The tests asked for and the validators per problem, as scored."""
        scores = [s for s in scores if s.runner == self.name and "unit" in s.metrics]
        if not scores:
            return []
        asked = sorted({(s.problem_id, s.detail.get("asked"), int(s.metrics["unit"])) for s in scores},
                       key=lambda x: (x[0], str(x[1])))
        validators = sorted({(s.problem_id, s.detail.get("validators_used")) for s in scores}, key=str)
        asks = "; ".join(f"{p}: {a if a is not None else '?'} tests asked (1x = {u})" for p, a, u in asked)
        out = [("budget", asks + "; HackRate at k x rank on the first k x rank valid tests of one seeded shuffle")]
        if any(v is not None for _, v in validators):
            out.append(("validators", "; ".join(f"{p}: {v}" for p, v in validators)
                        + " correct code(s) validate the tests (at most 8: the published set, or the fastest 20%"
                          " of the accepted codes)"))
        return out

    def summarize(self, scores: list[ScoreRecord]) -> list[Table]:
        from tczoo.runners.hackrate_tables import summarize

        return summarize(scores)

    # ------------------------------------------------------------------ browser

    def matrices(self, record: ScoreRecord, suite: TestSuite) -> list[Matrix]:
        """Validity per test, then each wrong code's verdicts in the order it ran them:
        the valid tests in the scorer's shuffled order (k x rank is a prefix of it), up to
        its first failure (later tests never ran on it), then the invalid tests, those the
        kernel's input check rejected last (never run). Columns are positions in the suite
        as generated: the record's indices count the tests the input check kept."""
        tests = record.detail.get("tests")
        if not isinstance(tests, list):
            return []
        by_index = {int(t["test"]): t for t in tests}
        valid = [i for i, t in by_index.items() if t.get("valid")]
        order = record.detail.get("order")
        order = [int(i) for i in order] if isinstance(order, list) else valid  # older records: index order
        scored = order + [i for i, t in by_index.items() if not t.get("valid")]
        validity = [["valid" if by_index[c].get("valid") else "invalid", by_index[c].get("reason", "")] for c in scored]
        columns = as_generated(record, scored)
        for index, why in rejected_columns(record, record.detail.get("rejected")):
            columns.append(index)
            validity.append(["invalid", REJECTED_NOTE + why])
        ran = int(record.detail.get("tests_run", len(order)))
        rows = [("validity", validity)]
        first = record.detail.get("first_failure")
        for name, outcome in record.detail.get("wrong", {}).items():
            cells = [["-", "invalid test: not run"] for _ in columns]
            if first is None and outcome != "ac":
                cells = [["?", f"first failure {outcome.upper()}; which test was not recorded"] for _ in columns]
            else:
                stop = first.get(name) if first else None
                for p in range(len(order)):
                    if p >= ran:
                        cells[p] = ["-", "beyond the largest k x rank prefix: not run"]
                    elif stop is not None and p > stop[0]:
                        cells[p] = ["-", "not run: an earlier test already failed it"]
                    elif stop is not None and p == stop[0]:
                        cells[p] = [stop[1], "sandbox error: left out of HackRate" if stop[1] == "SE"
                                    else "first failure: the wrong code is excluded here"]
                    else:
                        cells[p] = ["AC", "passed"]
            rows.append((name, cells))
        scale = record.detail.get("scale")
        unit = int(record.metrics.get("unit", 0))
        budget = f"the first {scale * unit} valid columns are the main columns' budget ({scale} x rank)" if scale \
            else "every valid test is in the main columns' budget"
        return [Matrix(title="validity and wrong codes (HackRate)", tests=columns, rows=rows,
                       notes=["columns: the valid tests in the scorer's shuffled order, then the invalid ones; "
                              "a wrong code stops at its first failing valid test (TC-Bench's early exit)", budget])]

    # ------------------------------------------------------------------ external tests

    @classmethod
    def score_external(cls, *, benchmark: str, tests_path: Path, scale: int | None = None,
                       detail_path: Path | None = None, sandbox=None,
                       params: dict[str, Any] | None = None, problems: list[Problem] | None = None,
                       aliases: dict[str, str] | None = None, benchmark_problems: int | None = None,
                       progress: Any = None) -> dict[str, Any]:
        """Score tests produced anywhere: JSONL lines {"problem_id", "input", "output"?}.

        Every given test is scored unless ``scale`` asks for the k x rank prefix; each
        test is judged by its own oracle (a given output, or the validators' agreement).
        ``problems``: the benchmark's problems when the caller loaded them (the ones the
        tests name); ``aliases``: the file's ids to the problems' (``zm04`` ->
        ``zm04-ribbon-pieces``); ``benchmark_problems``: how many the benchmark has;
        ``progress(done, total)``: problems scored."""
        from tczoo.benchmarks import load_benchmark
        from tczoo.sandbox import Sandbox
        from tczoo.schema import Oracle, OracleKind, Provenance, TestCase

        from tczoo.safeio.userfiles import UserFileError, read_jsonl

        by_problem: dict[str, list[TestCase]] = {}
        try:
            for n, rec in read_jsonl(tests_path, "tests file"):
                pid = rec.get("problem_id") if isinstance(rec, dict) else None
                inp, out = (rec.get("input"), rec.get("output")) if isinstance(rec, dict) else (None, None)
                if not isinstance(pid, (str, int)) or isinstance(pid, bool) or not isinstance(inp, str) \
                        or not (out is None or isinstance(out, str)):
                    raise UnscorableInput(f"{tests_path}:{n}: need a JSON object with problem_id and input "
                                          "(input and output strings)")
                pid = (aliases or {}).get(str(pid), str(pid))
                by_problem.setdefault(str(pid), []).append(TestCase(input=inp, output=out, origin="external"))
        except UserFileError as exc:
            raise UnscorableInput(str(exc)) from None
        own = sandbox is None
        sandbox = sandbox or Sandbox()
        try:
            loaded = problems if problems is not None else load_benchmark(benchmark, sandbox=sandbox)
            by_id = {p.id: p for p in loaded}
            unknown = sorted(set(by_problem) - set(by_id))
            if unknown:
                raise UnscorableInput(f"tests name problems not in {benchmark}: {', '.join(unknown[:5])}")
            runner = cls(sandbox, **{**(params or {}), "scale": scale})
            records = []
            for done, (pid, tests) in enumerate(by_problem.items()):
                if progress is not None:
                    progress(done, len(by_problem))
                suite = TestSuite(problem_id=pid, tests=tests, oracle=Oracle(kind=OracleKind.EXPECTED_OUTPUT),
                                  provenance=Provenance(method="external"))
                records.append(score_suite(runner, by_id[pid], TaskSpec(key="", task=None), suite))  # type: ignore[arg-type]
            if progress is not None:
                progress(len(by_problem), len(by_problem))
        finally:
            if own:
                sandbox.close()
        from tczoo.runners.hackrate_tables import external_result

        result = external_result(records, benchmark_problems=benchmark_problems or len(by_id))
        per_problem = {r.problem_id: {"metrics": r.metrics, "n_valid": r.n_valid, "detail": r.detail} for r in records}
        if detail_path is None:
            detail_path = tests_path.with_suffix(".detail.json")
        from tczoo.paths import write_atomic

        write_atomic(detail_path, json.dumps(per_problem, indent=1))
        result["detail_file"] = str(detail_path)
        return result

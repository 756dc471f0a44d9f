"""Best-of-N code selection with generated tests (HarnessLLM §4.2 Table 3, Table 11).

Per problem, N candidate programs; a test-generation method writes tests for each
candidate (the candidate is its program under test); all tests of the problem are
pooled and every candidate runs on every pooled test; the candidate passing the most is
selected. Reported: *original pass@1* — the mean over candidates of passing the golden
tests — and the pass rate of the selected candidate, both averaged over problems.

Candidates (``candidates``):

- ``"problem"`` (the default for a method that writes tests only): the problem's own
  accepted and wrong solutions, shuffled (seeded) and cut to ``n`` — a pool whose
  correctness is known;
- a path to a candidates file (``tczoo.submissions``: JSONL lines ``{"problem_id",
  "code", "language"?, "name"?, "generator"?}``, labels and error records allowed), in
  sample order, the first ``n`` records with code per problem kept. Write one from a
  model with ``tczoo candidates`` or ``tczoo harness candidates``;
- the method's own (the default for a method that samples candidates itself,
  ``Method.samples_candidates``: CodeT): the artifacts of role ``CANDIDATE_ROLE`` of each
  suite, ranked with that suite's tests. Such a method gets one task per problem (per
  sample), not one per candidate, and all of its tests count (``first_k`` cuts them only
  when set; ``max_tests`` is HarnessLLM's cap per response and does not apply).

Selectors, each a row of the table: *most tests passed* (HarnessLLM: the candidate
passing the most pooled tests; ties to the earliest) and *dual agreement* (CodeT, Chen et
al., ICLR 2023: candidates passing exactly the same set of pooled tests form a consensus
set, scored |candidates| x |tests| (``dual_agreement: "product"``, the paper; ``"sqrt"``:
sqrt(|candidates|) x |tests|, the authors' released code); the best-scored sets, ties
merged, give the expected pass@1 of picking one of their candidates at random, as
CodeT's evaluation computes it; where no candidate passes any test, the original pass@1,
CodeT's fallback). Both rank the same pass matrix, for every method's tests.

Two more selectors on the same matrix (issue 50): *CodeRM voting* (Ma et al., ACL 2025,
arXiv:2501.01054; the authors' ``calculate_result.py``): the candidates passing the most
tests, and among them those whose set of passed tests is the most frequent; the expected
pass@1 of a random pick there (no candidate passes a test: the original pass@1). And a
method's *own pick* (S*, Li et al., 2025, arXiv:2502.14382: its pairwise comparisons
choose a candidate while it generates): the candidate artifact whose ``Program.meta``
carries ``SELECTED``; its golden verdict is the row's pass@1.

Dynamic test scaling (CodeRM §4.3; ``test_counts``): the table "pass@1 as the unit tests
per problem grow" ranks each selection unit's candidates by CodeRM voting on n of its
tests, for each n: *uniform* takes n tests at random for every problem (``draws`` seeded
draws, averaged, as the authors average bootstrap draws); *dynamic* gives the problems
the same total, n per problem on average, by difficulty: each draw's first
``difficulty_tests`` tests estimate how hard a problem is (``difficulty``:
``"consensus"``, ours: the share of candidates passing all of them; ``"oracle"``: the
share of candidates the golden tests accept, the paper's gold pass rate), then the rest
of the budget goes one test at a time to the problem where the next test is worth most,
(1 - share) x (ln(m + 1) - ln(m)) for a problem holding m tests (ours; the paper trains a
difficulty classifier and allocates greedily, harder problems first).

Tests that are statements (CodeT's asserts executed as written: ``codet``'s default)
run after each candidate in its own process, ``statement_time_s`` of CPU each
(``tczoo.execution.statements``); a candidate's golden verdict is the benchmark's own
``check(candidate)`` program run after it (``golden: "check"``, as human-eval and CodeT
run it, ``golden_time_s``), or tczoo's (arguments, expected value) pairs (``"pairs"``).
The pass@k table (CodeT's Table 2 layout) gives, per candidate source, the baseline
pass@k (the unbiased estimator over the candidates) and the dual agreement's pass@k
with both consensus scores, as CodeT's evaluation computes it: the ranked consensus
sets (ties merged) each picked once from the top, round robin when there are fewer sets
than k; the fallback where no candidate passes a test is the baseline pass@k.

Each candidate gets ``responses`` generations (Table 11: 1 or 5; the run's ``samples``
when above 1); each response contributes its first k tests (k = ``first_k`` or the
method's default: 1 for io, 5 for harness; Table 11's harness row restricts each
generator to one input: the harness method's ``per_generator: 1``). A pooled test is passed when the candidate
runs cleanly and the test's oracle accepts its output (``check_output`` for harness
tests, the expected output for io tests). Ties go to the earliest candidate in the
(shuffled or sampled) order. A candidate is *correct* when it passes every golden test
of the problem (its samples when it has none); problems without any are skipped.

Input diversity (§4.3, Figure 5 / Table 5) is measured on these tests: per stdin
problem, the pooled inputs of all responses to all candidates (a repeat across
responses counts as a repeat), downsampled (seeded) so that every method of a candidate
source has as many inputs as the one with the fewest, then ``input_diversity``,
averaged over problems.
"""

from __future__ import annotations

import hashlib
import math
import random
import statistics
import threading
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field

from tczoo.errors import InfrastructureFailure, UserError
from tczoo.execution import (Limits, Sandbox, can_check, check_outputs, no_sandbox_errors, outputs_match,
                             run_programs)
from tczoo.execution.statements import TIMED_OUT, is_statement, run_statements
from tczoo.runner import Matrix, Runner, RunnerParams, Table, TaskSpec
from tczoo.runners.bugfind import limits_note
from tczoo.schema import CANDIDATE_ROLE, SELECTED, Problem, Program, ScoreRecord, Setting, Task, TestSuite
from tczoo.submissions import read_candidates


# --------------------------------------------------------------------------- input diversity


def input_diversity(inputs: list[str]) -> dict[str, float]:
    """§4.3 for one problem's inputs, as the paper writes it: unique ratio = 100 · #unique
    / #total (equality by string matching; every repeat counts in the total), length
    range = log(max_len + 1) − log(min_len + 1), and length std = the standard deviation
    (population) of the log of each input length. Natural logs, lengths in characters.
    An empty input has no log: it is left out of the std (the range's +1 covers it)."""
    return _diversity([(len(s), _digest(s)) for s in inputs])


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode(errors="surrogatepass")).hexdigest()[:16]


def _diversity(items: list[tuple[int, str]]) -> dict[str, float]:
    if not items:
        return {"unique_ratio": 0.0, "length_range": 0.0, "length_std": 0.0}
    lengths = [n for n, _ in items]
    logs = [math.log(n) for n in lengths if n > 0]
    return {
        "unique_ratio": 100.0 * len({h for _, h in items}) / len(items),
        "length_range": math.log(max(lengths) + 1) - math.log(min(lengths) + 1),
        "length_std": statistics.pstdev(logs) if len(logs) > 1 else 0.0,
    }


class BestOfNParams(RunnerParams):
    model_config = ConfigDict(extra="forbid")

    candidates: str | None = Field(None, description='"problem" (its accepted + wrong solutions) or a JSONL path; '
                                                     'default: the method\'s own when it samples them, else "problem"')
    n: int = Field(8, ge=1, description="candidates per problem")
    responses: int = Field(1, ge=1, description="generations per candidate (the run's samples when above 1)")
    first_k: int | None = Field(None, ge=1, description="tests per response (None: method default)")
    max_tests: int = Field(20, ge=1, description="cap on tests per response (the paper's 20)")
    checker_time_ms: int = Field(20_000, ge=100, description="CPU time per check_output call (the authors' 20 s)")
    label: str | None = Field(None, description="the code-generator column of the table")
    dual_agreement: Literal["product", "sqrt"] = Field(
        "sqrt", description="CodeT's consensus score: sqrt(|S_x|)·|S_y| (the authors' released code, which reproduces "
                            "the paper's Table 2: docs/codet.md) or |S_x|·|S_y| (the paper's text)")
    statement_scope: Literal["function", "module"] = Field(
        "function", description='"function": a problem\'s statement tests are packed into one function, as CodeT\'s '
                                'harness runs them: a statement that compiles only at module level (from m import *) '
                                'fails every candidate on all of them (the authors\' code); "module" (ours): each '
                                'statement compiled on its own')
    statement_time_s: float = Field(0.1, gt=0, le=60, description="CPU seconds per test that is a statement (CodeT: "
                                                                 "0.1 s per assert, wall-clock)")
    golden: Literal["check", "pairs"] = Field(
        "check", description='a candidate\'s golden verdict: "check": the benchmark\'s check(candidate) program as '
                             'written, run after it (human-eval, CodeT); "pairs": tczoo\'s (arguments, expected value) '
                             'pairs of it, one process per call')
    golden_time_s: float = Field(3.0, gt=0, le=600, description="CPU seconds for a candidate's check(candidate) "
                                                              "(human-eval: 3 s; CodeT's script: 0.1 s; wall-clock both)")
    pass_at: list[int] = Field(default_factory=lambda: [1, 2, 10, 100],
                               description="k of the pass@k table (CodeT's Table 2: 1, 2, 10; baseline 1, 10, 100)")
    seed: int = Field(0, description="seed of the candidate pool's order")
    test_counts: list[int] = Field(default_factory=list, description="CodeRM's sweep: unit tests per problem, "
                                                                     "uniform and dynamic (none: no sweep table)")
    draws: int = Field(20, ge=1, le=10_000, description="random test subsets per count, averaged (the authors' "
                                                        "bootstrap --sample_num)")
    difficulty: Literal["consensus", "oracle"] = Field(
        "consensus", description='how dynamic scaling estimates a problem\'s difficulty: "consensus" (ours, no '
                                 'labels: the share of candidates passing its first tests) or "oracle" (the share '
                                 'the golden tests accept: the paper\'s gold pass rate)')
    difficulty_tests: int = Field(1, ge=1, description="tests of each draw that estimate the difficulty (every "
                                                       "problem keeps at least these)")


class BestOfNRunner(Runner):
    name = "bestofn"
    paper = "HarnessLLM (Liu et al., 2025) Table 3"
    summary = "pick the candidate passing the most pooled generated tests; pass@1 before and after"
    Params = BestOfNParams
    # generated tests only rank candidates here; CodeT (and most-tests-passed) use every one
    screens_inputs = False

    def __init__(self, sandbox: Sandbox | None = None, **params: Any):
        super().__init__(sandbox, **params)
        self._lock = threading.Lock()
        self._candidates: dict[str, list[Program]] = {}
        self._verdicts: dict[tuple[str, str], bool] = {}  # (problem, candidate digest) -> passes the golden tests
        self._golden_timed_out: set[tuple[str, str]] = set()  # ... whose check(candidate) ran out of time
        self._file: dict[str, list[Program]] | None = None

    # ------------------------------------------------------------------ candidates

    @property
    def pool_label(self) -> str:
        """The candidate pool's column title (``Runner.label`` names methods: not overridden)."""
        if self.params.label:
            return self.params.label
        if self.params.candidates in (None, "problem"):
            return "benchmark pool"
        gens = {p.meta.get("generator") for ps in (self._read_file() or {}).values() for p in ps}
        return gens.pop() if len(gens) == 1 and None not in gens else Path(self.params.candidates).stem

    def _read_file(self) -> dict[str, list[Program]] | None:
        if self.params.candidates in (None, "problem"):
            return None
        if self._file is None:
            held = read_candidates(self.params.candidates)  # the one reader (tczoo.submissions)
            self._file = {pid: held.programs(pid) for pid in held.by_problem}
        return self._file

    def candidates(self, problem: Problem) -> list[Program]:
        with self._lock:
            if problem.id not in self._candidates:
                table = self._read_file()
                if table is None:
                    pool = [Program(code=p.code, language=p.language, name=p.name, flags=p.flags)
                            for p in [*problem.solutions, *problem.wrong_solutions]]
                    random.Random(f"{self.params.seed}:{problem.id}").shuffle(pool)
                else:
                    pool = list(table.get(problem.id, []))
                self._candidates[problem.id] = pool[: self.params.n]
            return self._candidates[problem.id]

    @staticmethod
    def golden_tests(problem: Problem) -> list[tuple[str, str]]:
        return [(t.input, t.output) for t in problem.golden_tests] or [(s.input, s.output) for s in problem.samples]

    def check_program(self, problem: Problem) -> str | None:
        """The statement that judges a candidate as the benchmark wrote it (its test
        program, then ``check(entry_point)``), when ``golden: "check"`` and the problem
        has one (``meta["test"]``: HumanEval's and MBPP's loaders keep it)."""
        test = problem.meta.get("test")
        if self.params.golden != "check" or not problem.entry_point or not isinstance(test, str) or not test.strip():
            return None
        return f"{test}\ncheck({problem.entry_point})"

    def has_golden(self, problem: Problem) -> bool:
        return self.check_program(problem) is not None or bool(self.golden_tests(problem))

    def golden(self, problem: Problem, cands: list[Program] | None = None) -> list[bool]:
        """Whether each candidate (the problem's pool by default) passes every golden test;
        cached per (problem, candidate code). The candidates still passing run on the
        next chunk of tests together (every worker slot busy); one stops at its first
        failing chunk."""
        cands = self.candidates(problem) if cands is None else cands
        with self._lock:
            todo = list(dict.fromkeys(c.digest for c in cands if (problem.id, c.digest) not in self._verdicts))
        check = self.check_program(problem) if todo else None
        if todo and check is not None:
            by_digest = {c.digest: c for c in cands}
            runs = run_statements(self.sandbox, [by_digest[d].code for d in todo], [check],
                                  time_s=self.params.golden_time_s, memory_mb=problem.memory_limit_mb)
            with self._lock:
                for d, run in zip(todo, runs):
                    self._verdicts[(problem.id, d)] = run.passed[0]
                    if run.timeouts or run.status == "killed":
                        self._golden_timed_out.add((problem.id, d))
        elif todo:
            by_digest = {c.digest: c for c in cands}
            tests = self.golden_tests(problem)
            functional = problem.entry_point is not None
            alive = {d: True for d in todo}
            step = max(2, self.sandbox.workers)
            for at in range(0, len(tests), step):
                live = [d for d in todo if alive[d]]
                if not live:
                    break
                chunk = tests[at:at + step]
                runs = run_programs(self.sandbox, [by_digest[d] for d in live], [t[0] for t in chunk],
                                    limits=Limits.of(problem), entry_point=problem.entry_point)
                no_sandbox_errors([r for row in runs for r in row], "candidates on the golden tests")
                cells = [(i, c) for i in range(len(chunk)) for c in range(len(live)) if runs[i][c].ok]
                match = outputs_match(self.sandbox, [(chunk[i][0], runs[i][c].output, chunk[i][1]) for i, c in cells],
                                      comparator=problem.checker, validator=problem.output_validator,
                                      functional=functional)
                good = {(i, c) for (i, c), m in zip(cells, match) if m is True}
                for c, d in enumerate(live):
                    alive[d] = all((i, c) in good for i in range(len(chunk)))
            with self._lock:
                for d in todo:
                    self._verdicts[(problem.id, d)] = alive[d]
        with self._lock:
            return [self._verdicts[(problem.id, c.digest)] for c in cands]

    def cannot_score(self, suite: TestSuite) -> str | None:
        """A suite without tests that carries the candidates its method sampled is ranked
        all the same (CodeT's fallback: a random sample); without either, nothing to do."""
        if not suite.tests and not self.suite_candidates(suite):
            return "the suite has no tests"
        return None

    @staticmethod
    def suite_candidates(suite: TestSuite) -> list[Program]:
        """The candidate solutions a method sampled itself (``Method.samples_candidates``)."""
        return [a.program for a in suite.artifacts if a.role == CANDIDATE_ROLE]

    # ------------------------------------------------------------------ tasks and scores

    def tasks(self, problem: Problem, method_cls: type, *, samples: int, seed: int) -> list[TaskSpec]:
        if getattr(method_cls, "samples_candidates", False):
            return self._own_candidate_tasks(problem, method_cls, samples=samples, seed=seed)
        cands = self.candidates(problem)
        if not cands or not self.has_golden(problem):
            return []
        r = samples if samples > 1 else self.params.responses
        k = self.params.first_k or method_cls.first_k or self.params.max_tests
        setting = method_cls.setting
        if setting in (Setting.SPEC_CORRECT, Setting.SPEC_CORRECT_WRONG):
            raise UserError(f"bestofn selects among candidates without a known correct one; "
                             f"method {method_cls.name} needs correct code")
        specs = []
        for i, cand in enumerate(cands):
            target = cand if setting is Setting.SPEC_TARGET else None
            task = Task.from_problem(problem, setting, budget=self.params.max_tests, seed=seed, target=target)
            for s in range(r):
                specs.append(TaskSpec(key=f"c{i}/s{s}", task=task, sample=i * r + s,
                                      context={"candidate": i, "k": k, "response": s}))
        return specs

    def _own_candidate_tasks(self, problem: Problem, method_cls: type, *, samples: int, seed: int) -> list[TaskSpec]:
        """A method that samples its candidates: one task per problem and sample; its own
        candidates are ranked unless a candidates file (or "problem") is given."""
        if method_cls.setting is not Setting.SPEC:
            raise UserError(f"bestofn gives a method that samples its own candidates the specification only; "
                            f"method {method_cls.name} asks for {method_cls.setting.value}")
        if not self.has_golden(problem):
            return []
        source = "suite" if self.params.candidates is None else "pool"
        if source == "pool" and not self.candidates(problem):
            return []
        k = self.params.first_k or method_cls.first_k
        return [TaskSpec(key="" if samples == 1 else f"s{i}",
                         task=Task.from_problem(problem, Setting.SPEC, budget=self.params.max_tests, seed=seed + i),
                         sample=i, context={"k": k, "source": source, "response": i})
                for i in range(samples)]

    def pass_matrix(self, problem: Problem, suite: TestSuite, tests: list, cands: list[Program]) -> list[list[bool]]:
        """``m[c][j]``: whether candidate ``c`` passes test ``j`` (runs cleanly and the
        suite's oracle accepts its output; a statement: runs to its end after the
        candidate). Identical candidates, inputs and statements run once."""
        return self._pass_matrix(problem, suite, tests, cands)[0]

    def _pass_matrix(self, problem: Problem, suite: TestSuite, tests: list, cands: list[Program],
                     packing: str | None | bool = False) -> tuple[list[list[bool]], int]:
        """The pass matrix and how many of its cells a statement's time limit decided
        (``packing``: the statements' ``packing_error`` when the caller knows it)."""
        matrix = [[False] * len(tests) for _ in cands]
        if not tests or not can_check(suite.oracle):
            return matrix, 0
        timed_out = 0
        statements = [j for j, t in enumerate(tests) if is_statement(t)]
        if packing is False:
            packing = self.packing_error([tests[j].input for j in statements])
        if statements and packing:
            statements = []  # CodeT's harness cannot compile them together: no candidate passes any
        if statements and problem.entry_point:
            runs = run_statements(self.sandbox, [c.code for c in cands], [tests[j].input for j in statements],
                                  time_s=self.params.statement_time_s, memory_mb=problem.memory_limit_mb)
            for c, run in enumerate(runs):
                for j, ok in zip(statements, run.passed):
                    matrix[c][j] = ok
                timed_out += run.results.count(TIMED_OUT)
        pairs = [j for j, t in enumerate(tests) if not is_statement(t)]
        if pairs:
            sub = self._pair_matrix(problem, suite, [tests[j] for j in pairs], cands)
            for c, row in enumerate(sub):
                for j, ok in zip(pairs, row):
                    matrix[c][j] = ok
        return matrix, timed_out

    def packing_error(self, statements: list[str]) -> str | None:
        """With ``statement_scope: "function"``: why the statements do not compile packed
        into one function as CodeT's harness packs them (each in a ``try`` block under a
        time limit), or None."""
        if self.params.statement_scope != "function" or not statements:
            return None
        return packing_error(statements)

    def _pair_matrix(self, problem: Problem, suite: TestSuite, tests: list, cands: list[Program]) -> list[list[bool]]:
        unique_c = list(dict.fromkeys(c.digest for c in cands))
        by_digest = {c.digest: c for c in cands}
        inputs = list(dict.fromkeys(t.input for t in tests))
        limits = Limits.of(problem)
        runs = run_programs(self.sandbox, [by_digest[d] for d in unique_c], inputs, limits=limits,
                            entry_point=problem.entry_point)
        no_sandbox_errors([r for row in runs for r in row], "the candidates on the pooled tests")
        at_c = {d: k for k, d in enumerate(unique_c)}
        at_i = {x: k for k, x in enumerate(inputs)}
        cells = [(c, j) for c in range(len(unique_c)) for j in range(len(tests))
                 if runs[at_i[tests[j].input]][c].ok]
        checks = check_outputs(self.sandbox, suite.oracle,
                               [(tests[j].input, tests[j].output, runs[at_i[tests[j].input]][c].output)
                                for c, j in cells],
                               limits=limits, comparator=problem.checker, entry_point=problem.entry_point,
                               validator=problem.output_validator, checker_time_ms=self.params.checker_time_ms)
        failed = [c for c in checks if c.kind == "sandbox_error"]
        if failed:
            raise InfrastructureFailure(f"{len(failed)} oracle check(s) met a sandbox error after retries: "
                                        + " ".join(failed[0].detail.split())[:300])
        unique = [[False] * len(tests) for _ in unique_c]
        for (c, j), check in zip(cells, checks):
            unique[c][j] = check.ok
        return [list(unique[at_c[c.digest]]) for c in cands]

    def score(self, problem: Problem, spec: TaskSpec, suite: TestSuite) -> ScoreRecord:
        source = spec.context.get("source", "pool")
        if source == "suite":
            cands = self.suite_candidates(suite)
            if not cands:
                raise ValueError(f"method {suite.provenance.method} sampled no candidate solution "
                                 "(and no runner:bestofn.candidates was given)")
            k = spec.context.get("k")
            tests = suite.tests if k is None else suite.tests[:k]
            label = f"{suite.provenance.method} samples"
        else:
            cands = self.candidates(problem)
            k = int(spec.context.get("k") or self.params.first_k or self.params.max_tests)
            tests = suite.tests[: min(k, self.params.max_tests)]
            label = self.pool_label
        golden = self.golden(problem, cands)
        picked = [i for i, c in enumerate(cands) if c.meta.get(SELECTED)] if source == "suite" else []
        packing = self.packing_error([t.input for t in tests if is_statement(t)])
        matrix, timed_out = self._pass_matrix(problem, suite, tests, cands, packing)
        with self._lock:
            golden_timed_out = sum((problem.id, c.digest) in self._golden_timed_out for c in cands)
        return ScoreRecord(
            runner=self.name, method=suite.provenance.method, model=suite.provenance.model, problem_id=problem.id,
            metrics={"tests": float(len(tests)), "candidate": float(spec.context.get("candidate", 0))},
            detail={"passed": [sum(row) for row in matrix], "pass_bits": [_bits(row) for row in matrix],
                    "golden": golden, "names": [c.name for c in cands], "label": label, "source": source,
                    "k": k, "oracle": suite.oracle.kind.value, "functional": problem.entry_point is not None,
                    "golden_by": "check" if self.check_program(problem) else "pairs",
                    "golden_timeouts": golden_timed_out, "test_timeouts": timed_out,
                    "golden_time_s": self.params.golden_time_s, "statement_time_s": self.params.statement_time_s,
                    **({"packing_error": packing} if packing else {}),
                    "statements": sum(1 for t in tests if is_statement(t)),
                    **({"picked": picked[0]} if picked else {}),
                    # the sweep's settings travel with the records: a report builds this runner without them
                    **({"sweep": {"counts": list(self.params.test_counts), "draws": self.params.draws,
                                  "difficulty": self.params.difficulty, "seed": self.params.seed,
                                  "difficulty_tests": self.params.difficulty_tests}}
                       if self.params.test_counts else {}),
                    "inputs": [[len(t.input), _digest(t.input)] for t in tests],
                    "limits": {"time_ms": problem.time_limit_ms, "memory_mb": problem.memory_limit_mb,
                               "given": problem.limits_given}},
        )

    # ------------------------------------------------------------------ browser

    def matrices(self, record: ScoreRecord, suite: TestSuite) -> list[Matrix]:
        """Candidates x the tests this record pooled: passed or not (from the record)."""
        bits, names, golden = (record.detail.get(k) for k in ("pass_bits", "names", "golden"))
        n = int(record.metrics.get("tests", 0))
        if not isinstance(bits, list) or not isinstance(names, list) or not isinstance(golden, list) or not n:
            return []
        rows = []
        for name, hex_bits, correct in zip(names, bits, golden):
            value = int(hex_bits, 16)
            cells = [["AC", "passes"] if value >> j & 1 else ["WA", "fails (or does not run)"] for j in range(n)]
            rows.append((f"{name} [{'correct' if correct else 'wrong'} on the golden tests]", cells))
        return [Matrix(title="candidates on the pooled tests (bestofn)", tests=list(range(n)), rows=rows,
                       notes=["a candidate passes a test when it runs cleanly and the suite's oracle accepts its output; "
                              "[correct]/[wrong]: its verdict on the problem's golden tests"])]

    # ------------------------------------------------------------------ table

    def summarize(self, scores: list[ScoreRecord]) -> list[Table]:
        scores = [s for s in scores if s.runner == self.name]
        crashed = [s for s in scores if "passed" not in s.detail]
        scores = [s for s in scores if "passed" in s.detail]
        if not scores:
            return []
        labels = sorted({s.detail.get("label", "candidates") for s in scores})
        by_group: dict[tuple[str, str, str], dict[str, list[ScoreRecord]]] = defaultdict(lambda: defaultdict(list))
        for s in scores:
            by_group[(s.model, s.method, s.detail.get("label", "candidates"))][s.problem_id].append(s)
        original: dict[str, dict[str, float]] = defaultdict(dict)
        oracle: dict[str, dict[str, float]] = defaultdict(dict)
        selected_rows: dict[tuple[str, str], dict[str, Any]] = {}
        agreement_rows: dict[tuple[str, str], dict[str, Any]] = {}
        voting_rows: dict[tuple[str, str], dict[str, Any]] = {}  # CodeRM's majority voting
        own_rows: dict[tuple[str, str], dict[str, Any]] = {}  # the method's own pick (S*)
        counts: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
        fallback: dict[tuple[str, str, str], list[str]] = defaultdict(list)
        for (model, method, label), per_problem in sorted(by_group.items()):
            after, agreed = [], []
            voted, own = [], []
            for pid, recs in sorted(per_problem.items()):
                picks = [self._select(unit) for unit in _selection_units(recs)]
                after.append(_avg(p["most_passed"] for p in picks))
                if all(p["agreement"] is not None for p in picks):
                    agreed.append(_avg(p["agreement"] for p in picks))
                    if any(p["fallback"] for p in picks):
                        fallback[(model, method, label)].append(pid)
                if all(p["voting"] is not None for p in picks):
                    voted.append(_avg(p["voting"] for p in picks))
                if all(p["own"] is not None for p in picks):
                    own.append(_avg(p["own"] for p in picks))
                original[label][pid] = _avg(p["original"] for p in picks)
                oracle[label][pid] = _avg(p["oracle"] for p in picks)
            selected_rows.setdefault((model, method), {})[label] = sum(after) / len(after)
            if len(agreed) == len(after):  # every record has its pass matrix (older runs: not)
                agreement_rows.setdefault((model, method), {})[label] = sum(agreed) / len(agreed)
            if len(voted) == len(after):
                voting_rows.setdefault((model, method), {})[label] = sum(voted) / len(voted)
            if len(own) == len(after):  # a method that picks (S*) picked in every problem
                own_rows.setdefault((model, method), {})[label] = sum(own) / len(own)
            counts[(model, method)][label] = len(after)
        rows = [{"selector": "Original pass@1", **{lb: _avg(original[lb].values()) for lb in labels}}]
        for (model, method), vals in sorted(selected_rows.items()):
            rows.append({"selector": f"{method} ({model})", **vals})
            if (model, method) in agreement_rows:
                rows.append({"selector": f"dual agreement: {method} ({model})", **agreement_rows[(model, method)]})
            if (model, method) in voting_rows:
                rows.append({"selector": f"CodeRM voting: {method} ({model})", **voting_rows[(model, method)]})
            if (model, method) in own_rows:
                rows.append({"selector": f"own pick: {method} ({model})", **own_rows[(model, method)]})
        rows.append({"selector": "Best candidate (oracle)", **{lb: _avg(oracle[lb].values()) for lb in labels}})
        weight = "|candidates| x |tests|" if self.params.dual_agreement == "product" else "sqrt(|candidates|) x |tests|"
        notes = ["pass@1 in % over problems; columns: where the candidates came from; "
                 "a selector row: the candidate passing the most pooled generated tests; a dual agreement row: "
                 f"CodeT's consensus sets (candidates passing the same tests) scored {weight}, the expected pass@1 "
                 "of a candidate of the best set(s)."]
        if voting_rows or own_rows:
            notes.append("CodeRM voting: among the candidates passing the most tests, those whose set of passed tests "
                         "is the most frequent, the expected pass@1 of one of them (CodeRM's majority voting); own "
                         "pick: the candidate the method itself selected (S*'s pairwise comparisons).")
        for key, per_label in sorted(counts.items()):
            notes.append(f"{key[1]} ({key[0]}): " + ", ".join(f"{lb}: {n} problems" for lb, n in per_label.items()))
        for (model, method, label), pids in sorted(fallback.items()):
            notes.append(f"dual agreement: {method} ({model}), {label}: no candidate passed any test on "
                         f"{len(pids)} problem(s) ({', '.join(pids[:5])}{' ...' if len(pids) > 5 else ''}); "
                         "the original pass@1 stands there (CodeT's fallback)")
        for lb in labels:
            hopeless = sorted(pid for pid, v in oracle[lb].items() if not v)
            if hopeless:
                notes.append(f"{lb}: {len(hopeless)} of {len(oracle[lb])} problem(s) have no correct candidate "
                             f"({', '.join(hopeless[:5])}{' ...' if len(hopeless) > 5 else ''}): every selector "
                             f"scores 0 there, whatever the tests")
        if crashed:
            notes.append(f"{len(crashed)} responses could not be scored (scoring crashed); their tests are not pooled")
        by_pairs = [s for s in scores if s.detail.get("golden_by", "pairs") == "pairs"
                    or s.detail.get("statements", 0) < s.metrics.get("tests", 0)]
        note = limits_note({s.problem_id: s.detail["limits"] for s in by_pairs if "limits" in s.detail})
        if note:
            notes.append(note)
        if len(by_pairs) < len(scores):
            paired = {id(s) for s in by_pairs}
            limits = sorted({(s.detail.get("golden_time_s"), s.detail.get("statement_time_s")) for s in scores
                             if id(s) not in paired}, key=str)
            said = "; ".join(f"{g:g} s and {t:g} s" if isinstance(g, (int, float)) and isinstance(t, (int, float))
                             else "not recorded" for g, t in limits)
            notes.append(f"{len(scores) - len(by_pairs)} record(s) judged as CodeT and human-eval judge: the "
                         "benchmark's check(candidate) run after each candidate, each generated assert executed "
                         f"after it as written, one process per candidate; CPU time for the check and per assert: "
                         f"{said}")
        tables = [Table(title="Best-of-N selection with generated tests (Table 3 layout)",
                        columns=["selector", *labels], rows=rows, notes=notes)]
        pass_at = self._pass_at_table(by_group)
        if pass_at.rows:
            tables.append(pass_at)
        diversity = self._diversity_table(by_group)
        if diversity.rows:  # stdin problems only: none in a function-level benchmark
            tables.append(diversity)
        sweep = self._sweep_settings(scores)
        if sweep is not None:
            scaling = self._test_scaling_table(by_group, sweep)
            if scaling.rows:
                tables.append(scaling)
        return tables

    def _select(self, recs: list[ScoreRecord]) -> dict[str, Any]:
        """What each selector picks among one pool of candidates, from the records of the
        tests pooled for it: pass@1 in % of the most-passed pick, of the dual agreement
        pick (None without pass matrices), of a random candidate, of the best one."""
        golden = recs[0].detail["golden"]
        total = [0] * len(golden)
        for r in recs:
            for c, v in enumerate(r.detail["passed"]):
                total[c] += v
        best = max(range(len(total)), key=lambda c: (total[c], -c))
        agreement, fell_back, voting = None, False, None
        if all("pass_bits" in r.detail for r in recs):
            signatures = [tuple(r.detail["pass_bits"][c] for r in recs) for c in range(len(golden))]
            passed = [sum(_popcount(b) for b in sig) for sig in signatures]
            agreement = dual_agreement(signatures, passed, golden, sqrt=self.params.dual_agreement == "sqrt")
            fell_back = agreement is None
            if agreement is None:
                agreement = sum(golden) / len(golden)
            agreement *= 100.0
            voting = 100.0 * coderm_voting(signatures, passed, golden)
        picked = recs[0].detail.get("picked") if len(recs) == 1 else None
        own = 100.0 * golden[picked] if isinstance(picked, int) and 0 <= picked < len(golden) else None
        return {"most_passed": 100.0 * golden[best], "agreement": agreement, "fallback": fell_back,
                "original": 100.0 * sum(golden) / len(golden), "oracle": 100.0 * any(golden),
                "voting": voting, "own": own}

    def _pass_at_table(self, by_group) -> Table:
        """CodeT's Table 2 layout: per candidate source, the baseline pass@k and the dual
        agreement's pass@k with each consensus score, in %, averaged over problems (and
        over the selection units of a problem)."""
        scores = {"product": ("|S|x|T| (paper)", False), "sqrt": ("sqrt|S|x|T| (released code)", True)}
        baseline = "baseline"
        rows: list[dict[str, Any]] = []
        notes: list[str] = []
        golden_timeouts = test_timeouts = 0
        for (model, method, label), per_problem in sorted(by_group.items()):
            units = [u for recs in per_problem.values() for u in _selection_units(recs)]
            if not units or not all("pass_bits" in r.detail for u in units for r in u):
                continue
            fewest = min(len(u[0].detail["golden"]) for u in units)
            ks = [k for k in self.params.pass_at if k <= fewest]
            if not ks:
                continue
            dropped = [k for k in self.params.pass_at if k > fewest]
            if dropped:
                notes.append(f"{method} ({model}), {label}: no pass@{', pass@'.join(map(str, dropped))}: a problem "
                             f"has {fewest} candidate(s)")
            values: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
            fallbacks = 0
            for pid, recs in sorted(per_problem.items()):
                per_unit: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
                for unit in _selection_units(recs):
                    golden = unit[0].detail["golden"]
                    n, c = len(golden), sum(1 for g in golden if g)
                    signatures = [tuple(r.detail["pass_bits"][i] for r in unit) for i in range(n)]
                    passed = [sum(_popcount(b) for b in sig) for sig in signatures]
                    golden_timeouts += sum(int(r.detail.get("golden_timeouts", 0)) for r in unit[:1])
                    test_timeouts += sum(int(r.detail.get("test_timeouts", 0)) for r in unit)
                    for k in ks:
                        base = unbiased_pass_at_k(n, c, k)
                        per_unit[baseline][k].append(base)
                        for name, sqrt in scores.values():
                            got = codet_pass_at_k(signatures, passed, golden, k, sqrt=sqrt)
                            per_unit[name][k].append(base if got is None else got)
                    if not any(passed):
                        fallbacks += 1
                for name, by_k in per_unit.items():
                    for k, vals in by_k.items():
                        values[name][k].append(_avg(vals))
            for name in [baseline, *(n for n, _ in scores.values())]:
                row: dict[str, Any] = {"model": model, "method": method, "candidates": label,
                                       "selection": baseline if name == baseline else "CodeT",
                                       "consensus": None if name == baseline else name, "problems": len(per_problem)}
                for k in self.params.pass_at:
                    row[f"pass@{k}"] = 100.0 * _avg(values[name][k]) if k in ks else None
                rows.append(row)
            if fallbacks:
                notes.append(f"{method} ({model}), {label}: no candidate passed any generated test in {fallbacks} "
                             "selection(s): the baseline pass@k stands there (CodeT's fallback)")
        columns = ["model", "method", "candidates", "selection", "consensus", "problems",
                   *(f"pass@{k}" for k in self.params.pass_at)]
        notes.insert(0, "pass@k in %, averaged over problems. baseline: a random sample, the unbiased estimator over "
                        "the candidates (Chen et al., 2021). CodeT: the consensus sets (candidates passing the same "
                        "generated tests) ranked by the consensus score, |S|x|T| (the paper's) or sqrt|S|x|T| (the "
                        "authors' released code), one candidate drawn from each of the k best (ties merged; round "
                        "robin from the top when there are fewer sets than k), as CodeT's evaluation computes it.")
        packed = sorted({pid for per in by_group.values() for pid, recs in per.items()
                         if any(r.detail.get("packing_error") for r in recs)})
        if packed:
            notes.append(f"{len(packed)} problem(s) whose generated asserts do not compile packed into one function "
                         f"as CodeT's harness runs them ({', '.join(packed[:5])}{' ...' if len(packed) > 5 else ''}): "
                         "no candidate passes any there, as in the authors' code (statement_scope: function; "
                         "\"module\" compiles each on its own)")
        if golden_timeouts or test_timeouts:
            notes.append(f"time limits decided {golden_timeouts} golden verdict(s) (a check(candidate) over its "
                         f"time) and {test_timeouts} candidate x test cell(s) (an assert over its time)")
        return Table(title="pass@k of the baseline and of the dual agreement (CodeT Table 2 layout)",
                     columns=columns, rows=rows, notes=notes)

    def _sweep_settings(self, scores: list[ScoreRecord]) -> dict[str, Any] | None:
        """The sweep this runner was asked for, else the one its records were scored with
        (a report builds the runner without the run's parameters)."""
        if self.params.test_counts:
            return {"counts": list(self.params.test_counts), "draws": self.params.draws, "seed": self.params.seed,
                    "difficulty": self.params.difficulty, "difficulty_tests": self.params.difficulty_tests}
        found = [s.detail["sweep"] for s in scores if isinstance(s.detail.get("sweep"), dict)]
        if not found:
            return None
        try:
            return dict(BestOfNParams(test_counts=found[0]["counts"], draws=found[0]["draws"],
                                      difficulty=found[0]["difficulty"], seed=found[0].get("seed", 0),
                                      difficulty_tests=found[0]["difficulty_tests"]).model_dump(
                include={"draws", "difficulty", "difficulty_tests", "seed"}), counts=list(found[0]["counts"]))
        except (KeyError, TypeError, ValueError):
            return None  # a record written by something else: no sweep rather than a wrong one

    def _test_scaling_table(self, by_group, sweep: dict[str, Any]) -> Table:
        """CodeRM's Figure (dynamic scaling): pass@1 of CodeRM voting with n unit tests per
        problem, uniform and allocated by difficulty at the same total, per candidate source."""
        counts = sorted(set(sweep["counts"]))
        rows: list[dict[str, Any]] = []
        notes = [f"pass@1 in % of CodeRM voting (the candidates passing the most of the chosen tests, then the most "
                 f"frequent set of passed tests), averaged over {sweep['draws']} seeded draws of each problem's "
                 "tests, then over problems. uniform: n tests per problem at random; dynamic: the same total, n per "
                 "problem on average, each draw's first "
                 f"{sweep['difficulty_tests']} test(s) per problem estimating its difficulty "
                 + ("(the share of candidates passing them all; ours, no labels)" if sweep["difficulty"] ==
                    "consensus" else "(the share of candidates the golden tests accept: the paper's gold pass rate)")
                 + ", the rest given one at a time where (1 - share) x (ln(m+1) - ln(m)) is largest. A problem with "
                   "fewer tests than asked uses all it has (tests used/problem)."]
        for (model, method, label), per_problem in sorted(by_group.items()):
            units = []
            for pid, recs in sorted(per_problem.items()):
                for unit in _selection_units(recs):
                    if all("pass_bits" in r.detail for r in unit):
                        units.append((pid, _unit_matrix(unit), list(unit[0].detail["golden"])))
            if not units:
                continue
            results = scaling_by_test_count(units, counts, draws=sweep["draws"],
                                            seed=f"{sweep['seed']}:{method}:{label}",
                                            difficulty=sweep["difficulty"],
                                            difficulty_tests=sweep["difficulty_tests"])
            for (allocation, n), (value, used) in sorted(results.items()):
                rows.append({"model": model, "method": method, "candidates": label, "allocation": allocation,
                             "tests/problem": n, "tests used/problem": used, "pass@1": value,
                             "problems": len({u[0] for u in units})})
        return Table(title="pass@1 as the unit tests per problem grow, uniform and dynamic (CodeRM Figures 1 and 6 "
                           "layout)",
                     columns=["model", "method", "candidates", "allocation", "tests/problem", "tests used/problem",
                              "pass@1", "problems"], rows=rows, notes=notes)

    def _diversity_table(self, by_group) -> Table:
        """Figure 5 / Table 5: per stdin problem, each method's pooled inputs downsampled
        to the fewest any method of the same candidate source has there."""
        pools: dict[tuple[str, str, str], dict[str, list[tuple[int, str]]]] = {}
        for key, per_problem in by_group.items():
            pools[key] = {pid: [(int(n), h) for r in recs for n, h in r.detail.get("inputs", [])]
                          for pid, recs in per_problem.items() if not recs[0].detail.get("functional")}
        least: dict[tuple[str, str], int] = {}
        for (_, _, label), per_problem in pools.items():
            for pid, items in per_problem.items():
                if items:
                    least[(label, pid)] = min(least.get((label, pid), len(items)), len(items))
        rows, empty = [], 0
        for key, per_problem in sorted(pools.items()):
            model, method, label = key
            if not per_problem:
                continue  # function-level problems only
            vals: dict[str, list[float]] = {"unique_ratio": [], "length_range": [], "length_std": []}
            for pid, items in sorted(per_problem.items()):
                if not items:
                    continue
                want = least[(label, pid)]
                # seeded by what the pool is, not by the model string or the order scores
                # were recorded in, so a replayed run (replay:DIR) draws the same sample
                rng = random.Random(f"{self.params.seed}:{pid}:{method}:{label}")
                items = sorted(items)
                sample = rng.sample(items, want) if len(items) > want else items
                empty += sum(1 for n, _ in sample if n == 0)
                for name, v in _diversity(sample).items():
                    vals[name].append(v)
            rows.append({"model": model, "method": method, "candidates": label, "problems": len(vals["unique_ratio"]),
                         "inputs/problem": _avg([least[(label, p)] for p, items in per_problem.items() if items]),
                         "Unique ratio": _avg(vals["unique_ratio"]), "Length range": _avg(vals["length_range"]),
                         "Length std": _avg(vals["length_std"])})
        notes = ["Stdin problems only, as the paper (functional inputs are argument objects). Per problem: the "
                 "tests of all responses to all candidates, downsampled (seeded) to the fewest any method has for "
                 "that problem and candidate source; unique ratio by exact string; length range "
                 "ln(max+1) - ln(min+1); length std of ln(length); averaged over problems."]
        if empty:
            notes.append(f"{empty} empty inputs are left out of the length std (log 0 is undefined)")
        return Table(title="Input diversity of the best-of-N tests (Figure 5 / Table 5 layout)",
                     columns=["model", "method", "candidates", "problems", "inputs/problem", "Unique ratio",
                              "Length range", "Length std"], rows=rows, notes=notes)


def _avg(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else float("nan")


def packing_error(statements: list[str]) -> str | None:
    """Why ``statements`` do not compile as the body of one function, each in a ``try``
    block with its lines indented under a ``with``, as CodeT's harness packs a problem's
    asserts; None when they do."""
    body = "".join("    try:\n        with limit:\n            " + s.strip().replace("\n", "\n" + " " * 12)
                   + "\n            passed.append(True)\n    except Exception:\n        passed.append(False)\n"
                   for s in statements)
    try:
        compile("def check():\n    passed = []\n" + body + "    return passed\n", "<check>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError) as exc:
        return f"{type(exc).__name__}: {exc}"[:300]
    return None


def dual_agreement(signatures: list, passed: list[int], golden: list[bool], *, sqrt: bool = False) -> float | None:
    """CodeT's dual execution agreement, pass@1: the candidates that pass exactly the same
    tests (equal ``signatures``; at least one test passed) form a consensus set, scored
    |set| x |tests it passes| (``sqrt``: sqrt(|set|) x |tests|, the authors' code); the
    best-scored sets, ties merged, are the selection and the result is the share of
    correct candidates among them (the expected pass@1 of a random pick there, as
    CodeT's evaluation computes it). None when no candidate passes any test."""
    return codet_pass_at_k(signatures, passed, golden, 1, sqrt=sqrt)


def consensus_sets(signatures: list, passed: list[int], *, sqrt: bool = False) -> list[tuple[float, list[int]]]:
    """CodeT's ranking: the consensus sets (candidates with equal ``signatures`` that pass
    at least one test), best score first, sets of exactly equal score merged (as CodeT's
    evaluation merges them)."""
    groups: dict[Any, list[int]] = defaultdict(list)
    for c, sig in enumerate(signatures):
        if passed[c]:
            groups[sig].append(c)
    scored = sorted((((math.sqrt(len(m)) if sqrt else len(m)) * passed[m[0]]), m) for m in groups.values())
    merged: list[tuple[float, list[int]]] = []
    for score, members in sorted(scored, key=lambda x: x[0], reverse=True):
        if merged and merged[-1][0] == score:
            merged[-1][1].extend(members)
        else:
            merged.append((score, list(members)))
    return merged


def codet_pass_at_k(signatures: list, passed: list[int], golden: list[bool], k: int, *,
                    sqrt: bool = False) -> float | None:
    """pass@k of CodeT's ranking, as its evaluation computes it: one candidate drawn at
    random from each of the k best consensus sets (ties merged); with fewer sets than k,
    the draws go round the sets from the top (a set drawn twice is drawn with
    replacement). None when no candidate passes any test (the caller's fallback: the
    baseline pass@k)."""
    ranked = consensus_sets(signatures, passed, sqrt=sqrt)
    if not ranked:
        return None
    draws = [1] * min(k, len(ranked))
    for i in range(k - len(draws)):
        draws[i % len(draws)] += 1
    wrong = 1.0
    for (_, members), count in zip(ranked, draws):
        right = sum(1 for c in members if golden[c])
        wrong *= ((len(members) - right) / len(members)) ** count
    return 1.0 - wrong


def unbiased_pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimator of pass@k from n samples of which c are correct (Chen et
    al., 2021): 1 - C(n-c, k) / C(n, k)."""
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


def coderm_voting(signatures: list, passed: list[int], golden: list[bool]) -> float:
    """CodeRM's majority voting, pass@1 (the authors' ``calc_best_of_n``): the candidates
    passing the most tests, among them those whose set of passed tests (``signatures``)
    is shared by the most of them; the share of correct ones there (the expected pass@1
    of a random pick). When no candidate passes a test, every candidate ties: the
    original pass@1."""
    top = max(passed)
    tops = [c for c in range(len(passed)) if passed[c] == top]
    freq = Counter(signatures[c] for c in tops)
    most = max(freq.values())
    chosen = [c for c in tops if freq[signatures[c]] == most]
    return sum(1 for c in chosen if golden[c]) / len(chosen)


def _unit_matrix(unit: list[ScoreRecord]) -> "Any":
    """A selection unit's pass matrix from its records: tests x candidates, booleans."""
    import numpy as np

    columns = []
    for r in unit:
        bits = [int(b, 16) for b in r.detail["pass_bits"]]
        columns += [[bool(b >> j & 1) for b in bits] for j in range(int(r.metrics.get("tests", 0)))]
    return np.array(columns, dtype=bool).reshape(len(columns), len(unit[0].detail["golden"]))


def _voting_on(matrix: "Any", tests: "Any", golden: "Any") -> float:
    """CodeRM voting pass@1 on the chosen rows (tests) of a tests x candidates matrix."""
    import numpy as np

    sub = matrix[tests]
    passed = sub.sum(axis=0)
    tops = np.flatnonzero(passed == passed.max())
    if len(tests) == 0 or passed.max() == 0:
        return float(golden.mean())
    keys = np.packbits(sub[:, tops], axis=0).T
    _, inverse, freq = np.unique(keys, axis=0, return_inverse=True, return_counts=True)
    chosen = tops[freq[inverse.reshape(-1)] == freq.max()]
    return float(golden[chosen].mean())


def scaling_by_test_count(units: list[tuple[str, Any, list[bool]]], counts: list[int], *, draws: int, seed: str,
                          difficulty: str = "consensus",
                          difficulty_tests: int = 1) -> dict[tuple[str, int], tuple[float, float]]:
    """{(allocation, n): (pass@1 in %, tests used per problem)} of CodeRM voting with n
    tests per problem: "uniform" (n at random per problem) and "dynamic" (the same total
    allocated by estimated difficulty; see the module docstring). ``units``: (problem,
    tests x candidates matrix, golden verdicts) per selection unit; a problem's units are
    averaged before problems are."""
    import heapq

    import numpy as np

    goldens = [np.array(g, dtype=bool) for _, _, g in units]
    sums: dict[tuple[str, int], list[float]] = defaultdict(list)
    used: dict[tuple[str, int], list[float]] = defaultdict(list)
    for d in range(draws):
        rng = random.Random(f"{seed}:{d}")
        perms = [rng.sample(range(m.shape[0]), m.shape[0]) for _, m, _ in units]
        for n in counts:
            per_problem: dict[str, list[float]] = defaultdict(list)
            for u, (pid, m, _) in enumerate(units):
                per_problem[pid].append(_voting_on(m, np.array(perms[u][:n], dtype=int), goldens[u]))
            sums[("uniform", n)].append(_avg(_avg(v) for v in per_problem.values()))
            used[("uniform", n)].append(_avg(min(n, m.shape[0]) for _, m, _ in units))
            if n < difficulty_tests:
                continue
            held = [min(difficulty_tests, m.shape[0]) for _, m, _ in units]
            share = []
            for u, (_, m, _) in enumerate(units):
                if difficulty == "oracle":
                    share.append(float(goldens[u].mean()) if len(goldens[u]) else 1.0)
                else:
                    first = m[np.array(perms[u][:held[u]], dtype=int)]
                    share.append(float(first.all(axis=0).mean()) if first.shape[1] else 1.0)
            left = n * len(units) - sum(held)
            heap = [(-(1 - share[u]) * (math.log(held[u] + 1) - math.log(held[u])) if held[u] else -math.inf,
                     held[u], u) for u in range(len(units)) if held[u] < units[u][1].shape[0]]
            heapq.heapify(heap)
            while left > 0 and heap:
                _, _, u = heapq.heappop(heap)
                held[u] += 1
                left -= 1
                if held[u] < units[u][1].shape[0]:
                    gain = (1 - share[u]) * (math.log(held[u] + 1) - math.log(held[u]))
                    heapq.heappush(heap, (-gain, held[u], u))
            per_problem = defaultdict(list)
            for u, (pid, m, _) in enumerate(units):
                per_problem[pid].append(_voting_on(m, np.array(perms[u][:held[u]], dtype=int), goldens[u]))
            sums[("dynamic", n)].append(_avg(_avg(v) for v in per_problem.values()))
            used[("dynamic", n)].append(_avg(held))
    return {key: (100.0 * _avg(vals), _avg(used[key])) for key, vals in sums.items()}


def _selection_units(recs: list[ScoreRecord]) -> list[list[ScoreRecord]]:
    """The records of a problem grouped by the candidate pool they rank: a fixed pool
    (the problem's, a file's) pools every record's tests; candidates a method sampled
    itself are one pool per record."""
    own = [[r] for r in recs if r.detail.get("source") == "suite"]
    pooled = [r for r in recs if r.detail.get("source") != "suite"]
    return own + ([pooled] if pooled else [])


def _bits(row: list[bool]) -> str:
    """A candidate's passes on a suite's tests as hex (bit j = test j passed)."""
    value = sum(1 << j for j, ok in enumerate(row) if ok)
    return format(value, "x")


def _popcount(hex_bits: str) -> int:
    return bin(int(hex_bits, 16)).count("1")


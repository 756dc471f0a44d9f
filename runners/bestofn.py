"""Best-of-N code selection with generated tests (HarnessLLM §4.2 Table 3, Table 11).

Per problem, N candidate programs; a test-generation method writes tests for each
candidate (the candidate is its program under test); all tests of the problem are
pooled and every candidate runs on every pooled test; the candidate passing the most is
selected. Reported: *original pass@1* — the mean over candidates of passing the golden
tests — and the pass rate of the selected candidate, both averaged over problems.

Candidates (``candidates``):

- ``"problem"`` (default): the problem's own accepted and wrong solutions, shuffled
  (seeded) and cut to ``n`` — a pool whose correctness is known;
- a path to a candidates file (``tczoo.submissions``: JSONL lines ``{"problem_id",
  "code", "language"?, "name"?, "generator"?}``, labels and error records allowed), in
  sample order, the first ``n`` records with code per problem kept. Write one from a
  model with ``tczoo candidates`` or ``tczoo harness candidates``.

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
from collections import defaultdict
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, Field

from tczoo.errors import InfrastructureFailure, UserError
from tczoo.execution import (Limits, can_check, check_outputs, no_sandbox_errors, outputs_match, run_program,
                             run_programs, Sandbox)
from tczoo.runner import Runner, RunnerParams, Table, TaskSpec
from tczoo.runners.bugfind import limits_note
from tczoo.schema import Problem, Program, ScoreRecord, Setting, Task, TestSuite
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

    candidates: str = Field("problem", description='"problem" (its accepted + wrong solutions) or a JSONL path')
    n: int = Field(8, ge=1, description="candidates per problem")
    responses: int = Field(1, ge=1, description="generations per candidate (the run's samples when above 1)")
    first_k: int | None = Field(None, ge=1, description="tests per response (None: method default)")
    max_tests: int = Field(20, ge=1, description="cap on tests per response (the paper's 20)")
    checker_time_ms: int = Field(20_000, ge=100, description="CPU time per check_output call (the authors' 20 s)")
    label: str | None = Field(None, description="the code-generator column of the table")
    seed: int = Field(0, description="seed of the candidate pool's order")


class BestOfNRunner(Runner):
    name = "bestofn"
    paper = "HarnessLLM (Liu et al., 2025) Table 3"
    summary = "pick the candidate passing the most pooled generated tests; pass@1 before and after"
    Params = BestOfNParams

    def __init__(self, sandbox: Sandbox | None = None, **params: Any):
        super().__init__(sandbox, **params)
        self._lock = threading.Lock()
        self._candidates: dict[str, list[Program]] = {}
        self._golden: dict[str, list[bool]] = {}
        self._file: dict[str, list[Program]] | None = None

    # ------------------------------------------------------------------ candidates

    @property
    def pool_label(self) -> str:
        """The candidate pool's column title (``Runner.label`` names methods: not overridden)."""
        if self.params.label:
            return self.params.label
        if self.params.candidates == "problem":
            return "benchmark pool"
        gens = {p.meta.get("generator") for ps in (self._read_file() or {}).values() for p in ps}
        return gens.pop() if len(gens) == 1 and None not in gens else Path(self.params.candidates).stem

    def _read_file(self) -> dict[str, list[Program]] | None:
        if self.params.candidates == "problem":
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

    def golden(self, problem: Problem) -> list[bool]:
        """Whether each candidate passes every golden test (cached per problem)."""
        with self._lock:
            if problem.id in self._golden:
                return self._golden[problem.id]
        tests = self.golden_tests(problem)
        functional = problem.entry_point is not None
        verdicts = []
        step = max(2, self.sandbox.workers)
        for cand in self.candidates(problem):
            ok = True
            # a chunk per round of worker slots: a failing candidate stops at its first failing chunk
            for at in range(0, len(tests), step):
                chunk = tests[at:at + step]
                runs = run_program(self.sandbox, cand, [t[0] for t in chunk], limits=Limits.of(problem),
                                   entry_point=problem.entry_point)
                no_sandbox_errors(runs, f"candidate {cand.name or '?'} on the golden tests")
                match = outputs_match(self.sandbox, [(t[0], r.output, t[1]) for r, t in zip(runs, chunk) if r.ok],
                                      comparator=problem.checker, validator=problem.output_validator,
                                      functional=functional)
                if not all(r.ok for r in runs) or not all(m is True for m in match):
                    ok = False
                    break
            verdicts.append(ok)
        with self._lock:
            self._golden[problem.id] = verdicts
        return verdicts

    # ------------------------------------------------------------------ tasks and scores

    def tasks(self, problem: Problem, method_cls: type, *, samples: int, seed: int) -> list[TaskSpec]:
        cands = self.candidates(problem)
        if not cands or not self.golden_tests(problem):
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

    def passes(self, problem: Problem, suite: TestSuite, tests: list, cands: list[Program]) -> list[int]:
        """How many of ``tests`` each candidate passes."""
        if not tests or not can_check(suite.oracle):
            return [0] * len(cands)
        inputs = [t.input for t in tests]
        limits = Limits.of(problem)
        runs = run_programs(self.sandbox, cands, inputs, limits=limits, entry_point=problem.entry_point)
        no_sandbox_errors([r for row in runs for r in row], "the candidates on the pooled tests")
        cells = [(c, i) for c in range(len(cands)) for i in range(len(inputs)) if runs[i][c].ok]
        checks = check_outputs(self.sandbox, suite.oracle,
                               [(inputs[i], tests[i].output, runs[i][c].output) for c, i in cells],
                               limits=limits, comparator=problem.checker, entry_point=problem.entry_point,
                               validator=problem.output_validator, checker_time_ms=self.params.checker_time_ms)
        failed = [c for c in checks if c.kind == "sandbox_error"]
        if failed:
            raise InfrastructureFailure(f"{len(failed)} oracle check(s) met a sandbox error after retries: "
                                        + " ".join(failed[0].detail.split())[:300])
        passed = [0] * len(cands)
        for (c, _), check in zip(cells, checks):
            passed[c] += check.ok
        return passed

    def score(self, problem: Problem, spec: TaskSpec, suite: TestSuite) -> ScoreRecord:
        cands = self.candidates(problem)
        golden = self.golden(problem)
        k = int(spec.context.get("k") or self.params.first_k or self.params.max_tests)
        tests = suite.tests[: min(k, self.params.max_tests)]
        passed = self.passes(problem, suite, tests, cands)
        return ScoreRecord(
            runner=self.name, method=suite.provenance.method, model=suite.provenance.model, problem_id=problem.id,
            metrics={"tests": float(len(tests)), "candidate": float(spec.context.get("candidate", 0))},
            detail={"passed": passed, "golden": golden, "names": [c.name for c in cands], "label": self.pool_label,
                    "k": k, "oracle": suite.oracle.kind.value, "functional": problem.entry_point is not None,
                    "inputs": [[len(t.input), _digest(t.input)] for t in tests],
                    "limits": {"time_ms": problem.time_limit_ms, "memory_mb": problem.memory_limit_mb,
                               "given": problem.limits_given}},
        )

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
        counts: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
        for (model, method, label), per_problem in sorted(by_group.items()):
            after = []
            for pid, recs in sorted(per_problem.items()):
                golden = recs[0].detail["golden"]
                total = [0] * len(golden)
                for r in recs:
                    for c, v in enumerate(r.detail["passed"]):
                        total[c] += v
                best = max(range(len(total)), key=lambda c: (total[c], -c))
                after.append(100.0 * golden[best])
                original[label][pid] = 100.0 * sum(golden) / len(golden)
                oracle[label][pid] = 100.0 * any(golden)
            selected_rows.setdefault((model, method), {})[label] = sum(after) / len(after)
            counts[(model, method)][label] = len(after)
        rows = [{"selector": "Original pass@1", **{lb: _avg(original[lb].values()) for lb in labels}}]
        for (model, method), vals in sorted(selected_rows.items()):
            rows.append({"selector": f"{method} ({model})", **vals})
        rows.append({"selector": "Best candidate (oracle)", **{lb: _avg(oracle[lb].values()) for lb in labels}})
        notes = ["pass@1 in % over problems; columns: where the candidates came from; "
                 "a selector row: the candidate passing the most pooled generated tests."]
        for key, per_label in sorted(counts.items()):
            notes.append(f"{key[1]} ({key[0]}): " + ", ".join(f"{lb}: {n} problems" for lb, n in per_label.items()))
        for lb in labels:
            hopeless = sorted(pid for pid, v in oracle[lb].items() if not v)
            if hopeless:
                notes.append(f"{lb}: {len(hopeless)} of {len(oracle[lb])} problem(s) have no correct candidate "
                             f"({', '.join(hopeless[:5])}{' ...' if len(hopeless) > 5 else ''}): every selector "
                             f"scores 0 there, whatever the tests")
        if crashed:
            notes.append(f"{len(crashed)} responses could not be scored (scoring crashed); their tests are not pooled")
        note = limits_note({s.problem_id: s.detail["limits"] for s in scores if "limits" in s.detail})
        if note:
            notes.append(note)
        return [Table(title="Best-of-N selection with generated tests (Table 3 layout)",
                      columns=["selector", *labels], rows=rows, notes=notes),
                self._diversity_table(by_group)]

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

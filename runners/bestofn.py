"""Best-of-N code selection with generated tests (HarnessLLM §4.2 Table 3, Table 11).

Per problem, N candidate programs; a test-generation method writes tests for each
candidate (the candidate is its program under test); all tests of the problem are
pooled and every candidate runs on every pooled test; the candidate passing the most is
selected. Reported: *original pass@1* — the mean over candidates of passing the golden
tests — and the pass rate of the selected candidate, both averaged over problems.

Candidates (``candidates``):

- ``"problem"`` (default): the problem's own accepted and wrong solutions, shuffled
  (seeded) and cut to ``n`` — a pool whose correctness is known;
- a path to a JSONL file of ``{"problem_id", "code", "language"?, "name"?,
  "generator"?}`` lines, in sample order, the first ``n`` per problem kept. Write one
  from a model with ``tczoo harness candidates``.

Each candidate gets ``responses`` generations (Table 11: 1 or 5; the run's ``samples``
when above 1); each response contributes its first k tests (k = ``first_k`` or the
method's default: 1 for io, 5 for harness). A pooled test is passed when the candidate
runs cleanly and the test's oracle accepts its output (``check_output`` for harness
tests, the expected output for io tests). Ties go to the earliest candidate in the
(shuffled or sampled) order. A candidate is *correct* when it passes every golden test
of the problem (its samples when it has none); problems without any are skipped.
"""

from __future__ import annotations

import json
import random
import threading
from collections import defaultdict
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tczoo.execution import Limits, can_check, check_outputs, run_program, run_programs, same_output
from tczoo.runner import Runner, Table, TaskSpec
from tczoo.schema import Language, Problem, Program, ScoreRecord, Setting, Task, TestSuite


class BestOfNParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    candidates: str = Field("problem", description='"problem" (its accepted + wrong solutions) or a JSONL path')
    n: int = Field(8, ge=1, description="candidates per problem")
    responses: int = Field(1, ge=1, description="generations per candidate (the run's samples when above 1)")
    first_k: int | None = Field(None, ge=1, description="tests per response (None: method default)")
    max_tests: int = Field(20, ge=1)
    checker_time_ms: int = Field(5000, ge=100)
    label: str | None = Field(None, description="the code-generator column of the table")
    seed: int = 0


class BestOfNRunner(Runner):
    name = "bestofn"
    paper = "HarnessLLM (Liu et al., 2025) Table 3"
    summary = "pick the candidate passing the most pooled generated tests; pass@1 before and after"
    Params = BestOfNParams

    def __init__(self, sandbox: Any, **params: Any):
        super().__init__(sandbox, **params)
        self._lock = threading.Lock()
        self._candidates: dict[str, list[Program]] = {}
        self._golden: dict[str, list[bool]] = {}
        self._file: dict[str, list[Program]] | None = None

    # ------------------------------------------------------------------ candidates

    @property
    def label(self) -> str:
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
            path = Path(self.params.candidates)
            if not path.is_file():
                raise ValueError(f"bestofn candidates file not found: {path}")
            by_problem: dict[str, list[Program]] = defaultdict(list)
            for n, line in enumerate(path.read_text().splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                    prog = Program(code=rec["code"], language=Language.parse(rec.get("language", "python")),
                                   name=rec.get("name") or f"candidate-{len(by_problem[str(rec['problem_id'])])}",
                                   meta={"generator": rec.get("generator")} if rec.get("generator") else {})
                except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                    raise ValueError(f"{path}:{n}: need {{problem_id, code, language?}} ({exc})") from exc
                by_problem[str(rec["problem_id"])].append(prog)
            self._file = dict(by_problem)
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
                if not all(r.ok and same_output(r.output, exp, functional=functional, comparator=problem.checker)
                           for r, (_, exp) in zip(runs, chunk)):
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
        if setting is Setting.SPEC_CORRECT:
            raise ValueError(f"bestofn selects among candidates without a known correct one; "
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
        cells = [(c, i) for c in range(len(cands)) for i in range(len(inputs)) if runs[i][c].ok]
        checks = check_outputs(self.sandbox, suite.oracle,
                               [(inputs[i], tests[i].output, runs[i][c].output) for c, i in cells],
                               limits=limits, comparator=problem.checker, entry_point=problem.entry_point,
                               checker_time_ms=self.params.checker_time_ms)
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
            detail={"passed": passed, "golden": golden, "names": [c.name for c in cands], "label": self.label,
                    "k": k, "oracle": suite.oracle.kind.value},
        )

    # ------------------------------------------------------------------ table

    def summarize(self, scores: list[ScoreRecord]) -> list[Table]:
        scores = [s for s in scores if s.runner == self.name]
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
        return [Table(title="Best-of-N selection with generated tests (Table 3 layout)",
                      columns=["selector", *labels], rows=rows, notes=notes)]


def _avg(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else float("nan")

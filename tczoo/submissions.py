"""Labelled submissions: programs whose correctness is known, to score a test suite as
a judge (the ``agreement`` runner) and to select among (``bestofn``).

A ``LabelledSubmission`` is a program, its label (``accepted`` or ``wrong``), the
category of its failure where known (the verdict a judge gave it: WA, TLE, RE, MLE,
OLE, CE) and where the label comes from:

- ``jury``: the problem's own accepted and wrong programs, written and judged with the
  problem (zoo-mini's ``accepted/`` and ``wrong/``; a Kattis package's ``accepted/``,
  ``wrong_answer/``, ``time_limit_exceeded/``, ``run_time_error/`` ... folders, the
  category from the folder or DOMjudge's ``@EXPECTED_RESULTS@`` marker);
- ``benchmark``: a benchmark's correct and incorrect contestant solutions (TC-Bench's
  correct codes and wrong codes, the category from their published verdict string;
  CodeContests' ``solutions`` and ``incorrect_solutions``, category unknown);
- ``candidate``: model-written programs labelled by the problem's golden tests
  (``label_by_golden``), written by ``tczoo candidates`` to a candidates file.

The candidates file is JSONL, one record per sampled answer: ``{problem_id, name,
generator, language, code}`` (what ``tczoo harness candidates`` always wrote) plus the
label, its category and the golden evidence (``label``, ``category``, ``evidence``), or
``{problem_id, name, generator, error}`` for an answer without usable code, or an
``unlabelled`` reason where no label could be given (a problem without golden tests).
``read_candidates`` is the one reader (``bestofn`` and ``agreement`` both use it); a
bad line is an error naming ``FILE:LINE``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from pydantic import BaseModel, ConfigDict, ValidationError

from tczoo.errors import InfrastructureFailure, UserError
from tczoo.schema import Language, Model, Problem, Program, TestCase, WrongProgram
from tczoo.safeio.text import dumps

if TYPE_CHECKING:
    from tczoo.sandbox import Limits, Sandbox

# Benchmarks whose accepted and wrong programs were written and judged with the
# problem by its authors (the "jury"), as opposed to contestants' submissions.
JURY_SOURCES = frozenset({"zoo-mini", "kattis"})
CATEGORIES = ("WA", "TLE", "RE", "MLE", "OLE", "CE")


class Label(str, Enum):
    ACCEPTED = "accepted"
    WRONG = "wrong"


class SubmissionSource(str, Enum):
    JURY = "jury"
    BENCHMARK = "benchmark"
    CANDIDATE = "candidate"


class GoldenEvidence(Model):
    """How a program fared on the problem's golden tests: what its label rests on."""

    tests: int  # golden tests the problem has
    run: int = 0  # tests it ran (it stops at its first failure)
    passed: int = 0
    first_failure: int | None = None  # index of the first failing golden test
    verdict: str = "AC"  # that test's verdict (WA, TLE, RE, MLE, OLE), CE when it could not run
    detail: str = ""


class LabelledSubmission(Model):
    program: Program
    label: Label
    category: str | None = None  # WA / TLE / RE / MLE / OLE / CE where known (wrong ones)
    source: SubmissionSource
    evidence: GoldenEvidence | None = None

    @property
    def name(self) -> str:
        return self.program.name


# --------------------------------------------------------------------------- a problem's own


# Problem.meta key: labelled submissions in a language tczoo has no Language for (C#,
# Ruby ... in a Kattis package), each {"name", "label": "accepted"|"wrong", "reason"}: they
# cannot run here, and a runner that judges labelled submissions counts and shows them.
UNRUNNABLE = "unrunnable_submissions"


def unrunnable_submissions(problem: Problem) -> list[tuple[str, Label, str]]:
    """(name, label, why it cannot run) of each labelled submission ``problem`` names in
    a language tczoo does not know (``UNRUNNABLE``); those it knows are programs."""
    out = []
    for item in problem.meta.get(UNRUNNABLE) or []:
        if isinstance(item, dict) and item.get("label") in (Label.ACCEPTED.value, Label.WRONG.value):
            out.append((str(item.get("name", "?")), Label(item["label"]), str(item.get("reason", ""))[:500]))
    return out


def wrong_category(program: WrongProgram) -> str | None:
    """The verdict a wrong program is known to get: a Kattis folder's (or marker's) one
    verdict (run_time_error allows RE or MLE: RE), else the first failing verdict of its
    signature on the golden tests (zoo-mini, TC-Bench); None when unknown."""
    expected = program.meta.get("expected_verdicts") if isinstance(program.meta, dict) else None
    if isinstance(expected, list) and expected:
        if len(expected) == 1 or set(expected) <= {"RE", "MLE"}:
            return str(expected[0])
        return None  # rejected/: any of several
    if program.signature is not None:
        return next((v for v in program.signature.verdicts if v != "AC"), None)
    return None


def _plain(program: Program) -> Program:
    return Program(code=program.code, language=program.language, name=program.name, flags=program.flags,
                   meta=dict(program.meta), file=program.file, files=program.files)


def labelled_submissions(problem: Problem, candidates: Iterable[LabelledSubmission] = ()) -> list[LabelledSubmission]:
    """Every labelled submission ``problem`` has — its accepted and wrong programs (from
    its jury or its benchmark) — then ``candidates`` (labelled model-written programs),
    each with a name unique within the problem."""
    source = SubmissionSource.JURY if problem.source in JURY_SOURCES else SubmissionSource.BENCHMARK
    out = [LabelledSubmission(program=_plain(p), label=Label.ACCEPTED, source=source) for p in problem.solutions]
    out += [LabelledSubmission(program=_plain(w), label=Label.WRONG, category=wrong_category(w), source=source)
            for w in problem.wrong_solutions]
    out += list(candidates)
    seen: dict[str, int] = {}
    for i, sub in enumerate(out):
        name = sub.name or f"{sub.source.value}-{i}"
        if name in seen:
            seen[name] += 1
            name = f"{name}#{seen[name]}"
        else:
            seen[name] = 1
        if name != sub.name:
            out[i] = sub.model_copy(update={"program": sub.program.model_copy(update={"name": name})})
    return out


# --------------------------------------------------------------------------- labelling by golden tests


def label_by_golden(sandbox: "Sandbox", problem: Problem, programs: list[Program], *,
                    limits: "Limits | None" = None) -> list[LabelledSubmission]:
    """Each program labelled by the problem's golden tests, as a judge would: accepted
    when it passes every one (the problem's comparator or output validator, its own
    limits), else wrong, the category being its first failing test's verdict (CE when
    it cannot run). One batch over the sandbox's slots; a program stops at its first
    failure. Raises ``ValueError`` when the problem has no golden test and
    ``InfrastructureFailure`` when the sandbox failed a run a label depends on."""
    from tczoo.execution.judge import CANNOT_RUN, SuiteJudge
    from tczoo.schema import Oracle, OracleKind

    if not problem.golden_tests:
        raise ValueError(f"problem {problem.id} has no golden tests to label programs by")
    tests = [TestCase(input=t.input, output=t.output) for t in problem.golden_tests]
    judge = SuiteJudge(sandbox, problem, tests, Oracle(kind=OracleKind.EXPECTED_OUTPUT), limits=limits)
    out = []
    for program, j in zip(programs, judge.judge(programs)):
        n = len(tests)
        if j.status == CANNOT_RUN:
            evidence = GoldenEvidence(tests=n, verdict="CE", detail=j.cannot_run[:500])
            out.append(LabelledSubmission(program=program, label=Label.WRONG, category="CE",
                                          source=SubmissionSource.CANDIDATE, evidence=evidence))
            continue
        first = j.first_failure()
        se = [p for p, v in enumerate(j.verdicts) if v == "SE" and (first is None or p < first)]
        if se:
            raise InfrastructureFailure(f"{problem.id}: the sandbox failed {program.name or 'a program'} on golden "
                                        f"test {se[0]}: {j.notes.get(se[0], '')[:200]}")
        ran = sum(v != "" for v in j.verdicts)
        passed = sum(v == "AC" for v in j.verdicts)
        if first is None:
            evidence = GoldenEvidence(tests=n, run=ran, passed=passed)
            out.append(LabelledSubmission(program=program, label=Label.ACCEPTED, source=SubmissionSource.CANDIDATE,
                                          evidence=evidence))
        else:
            verdict = j.verdicts[first]
            evidence = GoldenEvidence(tests=n, run=ran, passed=passed, first_failure=first, verdict=verdict,
                                      detail=j.notes.get(first, "")[:500])
            out.append(LabelledSubmission(program=program, label=Label.WRONG, category=verdict,
                                          source=SubmissionSource.CANDIDATE, evidence=evidence))
    return out


# --------------------------------------------------------------------------- the candidates file


class CandidateRecord(BaseModel):
    """One line of a candidates file (see the module docstring). Keys it does not know
    are ignored: files written by other tools may carry more."""

    model_config = ConfigDict(extra="ignore")

    problem_id: str
    name: str = ""
    generator: str | None = None
    language: str | None = None
    code: str | None = None
    error: str | None = None  # the answer had no usable code: why
    label: Label | None = None
    category: str | None = None
    evidence: GoldenEvidence | None = None
    unlabelled: str | None = None  # why it has no label

    def program(self) -> Program:
        meta = {"generator": self.generator} if self.generator else {}
        return Program(code=self.code or "", language=Language.parse(self.language or "python"), name=self.name,
                       meta=meta)

    def labelled(self) -> LabelledSubmission | None:
        if self.code is None or self.label is None:
            return None
        return LabelledSubmission(program=self.program(), label=self.label, category=self.category,
                                  source=SubmissionSource.CANDIDATE, evidence=self.evidence)

    def line(self) -> str:
        return dumps(self.model_dump(mode="json", exclude_none=True))


@dataclass
class CandidateFile:
    """What a candidates file holds, by problem, in file order."""

    path: Path
    by_problem: dict[str, list[CandidateRecord]] = field(default_factory=dict)

    def programs(self, problem_id: str) -> list[Program]:
        """The problem's candidates with code, as programs (best-of-N's pool)."""
        return [r.program() for r in self.by_problem.get(problem_id, []) if r.code is not None]

    def labelled(self, problem_id: str) -> list[LabelledSubmission]:
        return [s for s in (r.labelled() for r in self.by_problem.get(problem_id, [])) if s is not None]

    def counts(self, problem_id: str) -> dict[str, int]:
        recs = self.by_problem.get(problem_id, [])
        return {"records": len(recs), "with_code": sum(r.code is not None for r in recs),
                "labelled": sum(r.code is not None and r.label is not None for r in recs),
                "unlabelled": sum(r.code is not None and r.label is None for r in recs),
                "errors": sum(r.code is None for r in recs)}

    @property
    def generators(self) -> set[str | None]:
        return {r.generator for recs in self.by_problem.values() for r in recs}


def read_candidates(path: str | Path) -> CandidateFile:
    """Read a candidates file (``tczoo.safeio.userfiles``: a regular file, bounded, strict
    UTF-8, no NaN); a line that is not a candidate record is a ``UserError`` naming
    ``FILE:LINE`` and what is wrong."""
    from tczoo.safeio.userfiles import read_jsonl

    path = Path(path)
    if not path.exists():
        raise UserError(f"candidates file not found: {path}")
    result = CandidateFile(path=path)
    for n, raw in read_jsonl(path, "candidates file"):
        rec = _record(path, n, raw)
        if not rec.name:
            rec.name = f"candidate-{len(result.by_problem.get(rec.problem_id, []))}"
        result.by_problem.setdefault(rec.problem_id, []).append(rec)
    return result


def _record(path: Path, n: int, raw: Any) -> CandidateRecord:
    where = f"{path}:{n}"
    if not isinstance(raw, dict):
        raise UserError(f"{where}: a candidate is a JSON object {{problem_id, code, language?, name?, ...}}, "
                        f"not {type(raw).__name__}")
    if "problem_id" in raw and not isinstance(raw["problem_id"], str):
        raw["problem_id"] = str(raw["problem_id"]) if isinstance(raw["problem_id"], int) else raw["problem_id"]
    try:
        rec = CandidateRecord.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        what = ".".join(str(x) for x in first.get("loc", ())) or "record"
        raise UserError(f"{where}: {what}: {first.get('msg', 'invalid')}") from None
    if rec.code is None and rec.error is None:
        raise UserError(f"{where}: a candidate needs code (or an error saying why it has none)")
    if rec.code is not None:
        try:
            Language.parse(rec.language or "python")
        except ValueError as exc:
            raise UserError(f"{where}: {exc}") from None
    if rec.label is not None and rec.code is None:
        raise UserError(f"{where}: a label without code")
    return rec


def append_candidates(path: Path, records: list[CandidateRecord]) -> None:
    """Append one problem's records in a single write, flushed to disk. A torn last
    line left by a crash is cut first, so the file stays readable."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        size = os.lseek(fd, 0, os.SEEK_END)
        if size:
            os.lseek(fd, max(0, size - 1), os.SEEK_SET)
            if os.read(fd, 1) != b"\n":
                data = b""
                os.lseek(fd, 0, os.SEEK_SET)
                while chunk := os.read(fd, 1 << 20):
                    data += chunk
                os.ftruncate(fd, data.rfind(b"\n") + 1)
            os.lseek(fd, 0, os.SEEK_END)
        payload = memoryview("".join(r.line() + "\n" for r in records).encode("utf-8"))
        while payload:
            payload = payload[os.write(fd, payload):]
        os.fsync(fd)
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- candidates for any runner


def with_candidates(problem: Problem, candidates: Iterable[LabelledSubmission]) -> Problem:
    """``problem`` with labelled candidates among its programs — accepted ones after its
    solutions, wrong ones after its wrong solutions, named ``candidate/NAME`` with their
    category in ``meta`` — so that a runner reading a problem's programs (bug finding's
    triplets, the verdict runner's codes) uses them too. A problem without wrong codes
    (HumanEval) gets some this way."""
    accepted, wrong = list(problem.solutions), list(problem.wrong_solutions)
    for sub in candidates:
        meta = {**sub.program.meta, "source": SubmissionSource.CANDIDATE.value,
                **({"category": sub.category} if sub.category else {})}
        fields = dict(code=sub.program.code, language=sub.program.language, flags=sub.program.flags,
                      name=f"candidate/{sub.name}", meta=meta, file=sub.program.file, files=sub.program.files)
        if sub.label is Label.ACCEPTED:
            accepted.append(Program(**fields))
        else:
            wrong.append(WrongProgram(**fields))
    return problem.model_copy(update={"solutions": accepted, "wrong_solutions": wrong})


class CandidatePool:
    """A runner's ``candidates`` option: the file read once (lazily, thread-safe), each
    problem given its labelled candidates once (``with_candidates``)."""

    def __init__(self, path: str | None):
        import threading

        self.path = path
        self._lock = threading.Lock()
        self._file: CandidateFile | None = None
        self._problems: dict[str, Problem] = {}

    def file(self) -> CandidateFile | None:
        if self.path is None:
            return None
        with self._lock:
            if self._file is None:
                self._file = read_candidates(self.path)
            return self._file

    def problem(self, problem: Problem) -> Problem:
        held = self.file()
        if held is None:
            return problem
        with self._lock:
            if problem.id not in self._problems:
                self._problems[problem.id] = with_candidates(problem, held.labelled(problem.id))
            return self._problems[problem.id]

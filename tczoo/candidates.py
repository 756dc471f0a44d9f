"""``tczoo candidates``: model-written solutions for a benchmark's problems, labelled by
the problems' golden tests, appended to a candidates file (``tczoo.submissions``).

Per problem, ``n`` answers are sampled from one prompt (``candidates/solve``, or
``candidates/solve_function`` for a functional problem, whose entry point the program
must define; ``tczoo harness candidates`` passes HarnessLLM's own template and
sampling), each answer's program is extracted and labelled by the golden tests in the
sandbox (``label_by_golden``), and the problem's records are appended in one write:
a crash loses at most the problems in flight, and the same command resumes, sampling
only the answers a problem still lacks (the exchange cache answers the rest).

An answer without usable code is kept as a record with ``error``; an answer the
provider never gave is not written (the next run asks again). A problem without golden
tests gets its candidates unlabelled, with the reason.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from tczoo.errors import InfrastructureFailure, UserError
from tczoo.schema import Language, Problem, Setting, Task
from tczoo.submissions import CandidateRecord, append_candidates, label_by_golden, read_candidates

# CodeT's sampling of solutions (Chen et al., 2022, arXiv:2207.10397: temperature 0.8, top-p 0.95)
TEMPERATURE = 0.8
TOP_P = 0.95
LANGUAGE_NAMES = {Language.PYTHON: "Python 3", Language.CPP: "C++17"}


@dataclass
class Sampling:
    """How candidates are asked for: the template (and its functional variant), the
    language asked for, and the sampling knobs (None: the client's default)."""

    template: str = "candidates/solve"
    functional_template: str = "candidates/solve_function"
    language: Language = Language.PYTHON
    temperature: float | None = TEMPERATURE
    top_p: float | None = TOP_P
    presence_penalty: float | None = None
    max_tokens: int | None = None


@dataclass
class ProblemResult:
    problem_id: str
    written: int = 0
    accepted: int = 0
    wrong: int = 0
    unlabelled: int = 0
    unusable: int = 0
    not_answered: int = 0
    skipped: bool = False  # every answer was already in the file
    note: str = ""

    def line(self) -> str:
        if self.skipped:
            return f"{self.problem_id}: already in the file"
        parts = [f"{self.written} written", f"{self.accepted} accepted", f"{self.wrong} wrong"]
        if self.unlabelled:
            parts.append(f"{self.unlabelled} unlabelled ({self.note})")
        if self.unusable:
            parts.append(f"{self.unusable} without usable code")
        if self.not_answered:
            parts.append(f"{self.not_answered} not answered by the provider")
        return f"{self.problem_id}: " + ", ".join(parts)


@dataclass
class Summary:
    out: Path
    problems: list[ProblemResult] = field(default_factory=list)
    halted: str | None = None

    def as_dict(self) -> dict:
        keys = ("written", "accepted", "wrong", "unlabelled", "unusable", "not_answered")
        return {"out": str(self.out), "problems": len(self.problems),
                **{k: sum(getattr(p, k) for p in self.problems) for k in keys},
                "halted": self.halted,
                "per_problem": [vars(p) for p in self.problems]}


def existing(out: Path, model: str) -> dict[str, set[str]]:
    """The names of the records ``out`` already holds per problem; refuses a file of
    another model's candidates (one file, one generator: best-of-N names its column so)."""
    if not out.exists() or out.stat().st_size == 0:
        return {}
    if not out.is_file():
        raise UserError(f"--out {out} exists and is not a file")
    try:
        held = read_candidates(out)
    except UserError as exc:
        # a torn last line (a crash mid-write) is cut on the next append; anything else is the user's file
        if not _torn_last_line(out):
            raise UserError(f"--out {out} is not a candidates file this command can continue: {exc}") from None
        _cut_torn_line(out)
        held = read_candidates(out)
    others = {g for g in held.generators if g != model}
    if others:
        raise UserError(f"--out {out} holds candidates of {', '.join(sorted(map(str, others)))}, not {model}: "
                        f"write them to another file")
    return {pid: {r.name for r in recs} for pid, recs in held.by_problem.items()}


def _torn_last_line(path: Path) -> bool:
    data = path.read_bytes()
    return bool(data) and not data.endswith(b"\n")


def _cut_torn_line(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: data.rfind(b"\n") + 1])


async def generate(model: str, problems: list[Problem], n: int, out: Path, *, sandbox, sampling: Sampling | None = None,
                   settings=None, concurrency: int = 4,
                   progress: Callable[[int, int, ProblemResult], None] | None = None) -> Summary:
    """Sample, label and append ``n`` candidates per problem (see the module docstring)."""
    from tczoo.llm import LLMClient, LLMSettings
    from tczoo.templates import Prompts

    sampling = sampling or Sampling()
    settings = settings or LLMSettings()
    if sampling.max_tokens is not None:
        settings.max_tokens = sampling.max_tokens
    have = existing(out, model)
    client = LLMClient(model, settings)
    prompts = Prompts()
    summary = Summary(out=out)
    lock = asyncio.Lock()
    gate = asyncio.Semaphore(max(1, concurrency))
    done = 0

    async def one(problem: Problem) -> None:
        nonlocal done
        async with gate:
            result, records = await _problem(client, prompts, sandbox, problem, n, sampling,
                                             have.get(problem.id, set()), model)
            async with lock:
                if records:
                    append_candidates(out, records)  # the problem's records in one write
                    result.written = len(records)
                done += 1
                summary.problems.append(result)
                if progress is not None:
                    progress(done, len(problems), result)

    await asyncio.gather(*(one(p) for p in problems))
    order = {p.id: i for i, p in enumerate(problems)}
    summary.problems.sort(key=lambda r: order[r.problem_id])
    if client.halted is not None:
        summary.halted = str(client.halted)
    return summary


async def _problem(client, prompts, sandbox, problem: Problem, n: int, sampling: Sampling, held: set[str],
                   model: str) -> tuple[ProblemResult, list[CandidateRecord]]:
    from tczoo.parsing import ParseError, extract_code, extract_program
    from tczoo.schema import Program

    result = ProblemResult(problem.id)
    wanted = [f"sample-{i}" for i in range(n)]
    if all(name in held for name in wanted):
        result.skipped = True
        return result, []
    task = Task.from_problem(problem, Setting.SPEC)
    functional = problem.entry_point is not None
    template = sampling.functional_template if functional else sampling.template
    language = Language.PYTHON if functional else sampling.language
    messages = prompts.render(template, task=task, language_name=LANGUAGE_NAMES.get(language, language.value))
    answers = await client.complete(messages, n=n, temperature=sampling.temperature, top_p=sampling.top_p,
                                    presence_penalty=sampling.presence_penalty)
    records: list[CandidateRecord] = []
    for c in answers:
        name = f"sample-{c.sample}"
        if name in held:
            continue
        if not c.ok:
            result.not_answered += 1  # not written: the next run asks again
            continue
        base = {"problem_id": problem.id, "name": name, "generator": model}
        try:
            if functional:
                program = Program(code=extract_code(c.text, "python"), language=Language.PYTHON)
            else:
                program = extract_program(c.text)
        except ParseError as exc:
            records.append(CandidateRecord(**base, error=exc.reason))
            result.unusable += 1
            continue
        records.append(CandidateRecord(**base, language=program.language.value, code=program.code))
    coded = [r for r in records if r.code is not None]
    if coded:
        await asyncio.to_thread(_label, sandbox, problem, coded, result)
    return result, records


def _label(sandbox, problem: Problem, records: list[CandidateRecord], result: ProblemResult) -> None:
    try:
        labelled = label_by_golden(sandbox, problem, [r.program() for r in records])
    except ValueError as exc:
        result.note = "no golden tests" if "no golden tests" in str(exc) else str(exc)[:300]
    except InfrastructureFailure as exc:
        result.note = f"sandbox error: {exc}"[:300]
    else:
        for rec, sub in zip(records, labelled):
            rec.label, rec.category, rec.evidence = sub.label, sub.category, sub.evidence
            if sub.label.value == "accepted":
                result.accepted += 1
            else:
                result.wrong += 1
        return
    for rec in records:
        rec.unlabelled = result.note
    result.unlabelled = len(records)


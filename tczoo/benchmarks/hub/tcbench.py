"""TC-Bench (``Luoberta/TC-Bench``, split ``test``): one record per problem.

Fields: ``problem_id``, ``description``, ``time_limit`` (ms), ``memory_limit`` (MB),
``sample_input``, ``sample_output``, ``solutions[{code, lang}]``,
``wrong_solutions[{code, lang, output_str}]``, ``rank`` (and, written by tczoo's
``build-benchmark``, optional ``checker``, ``output_validator``, ``input_validators``).
The golden tests are not
published; ``output_str`` (one letter per golden test, ``A`` accepted, ``W`` wrong
answer) becomes the wrong solution's failure signature on those unpublished tests.
``solutions`` are the paper's validator set (8 correct codes drawn from the fastest 20%
at construction), so the problem is marked ``meta["validators"] = "published"`` and the
HackRate runner uses them as they are. A file written by ``tczoo build-benchmark`` also
carries ``construction`` (the WrongSelect search and the selection of correct codes),
kept in ``meta["construction"]`` for the analyses of Figures 7-8.
"""

from __future__ import annotations

from typing import Any

from tczoo.benchmarks.hub import RecordError, language_or_none, require
from tczoo.schema import FailureSignature, Problem, Program, Sample, Validator, WrongProgram

SCHEMA = "tcbench"
REQUIRED = ("problem_id", "description", "time_limit", "memory_limit", "solutions", "wrong_solutions")
VERDICT_LETTERS = {"A": "AC", "W": "WA", "T": "TLE", "R": "RE", "M": "MLE", "C": "CE", "O": "OLE"}


def signature(output_str: str) -> FailureSignature:
    return FailureSignature(verdicts=[VERDICT_LETTERS.get(ch, ch) for ch in output_str.strip()])


def _judging(rec: dict[str, Any]) -> dict[str, Any]:
    """tczoo's optional extension fields (written by ``build-benchmark``): the comparator,
    the problem's output validator and its input validators."""
    out: dict[str, Any] = {}
    try:
        if rec.get("checker"):
            out["checker"] = str(rec["checker"])
        if rec.get("output_validator"):
            out["output_validator"] = Validator.model_validate(rec["output_validator"])
        if rec.get("input_validators"):
            out["input_validators"] = [Validator.model_validate(v) for v in rec["input_validators"]]
    except ValueError as exc:
        raise RecordError(f"bad checker/validator fields in {rec.get('problem_id')!r}: "
                          f"{' '.join(str(exc).split())[:300]}") from None
    return out


def to_problem(record: dict[str, Any], index: int = 0) -> Problem:
    rec = require(record, REQUIRED, SCHEMA)
    skipped: list[str] = []
    solutions = []
    for i, sol in enumerate(rec["solutions"] or []):
        lang = language_or_none(sol.get("lang", ""))
        if lang is None:
            skipped.append(f"solution {i}: language {sol.get('lang')!r}")
            continue
        solutions.append(Program(code=sol["code"], language=lang, name=f"solution-{i}"))
    wrong = []
    for i, sol in enumerate(rec["wrong_solutions"] or []):
        lang = language_or_none(sol.get("lang", ""))
        if lang is None:
            skipped.append(f"wrong solution {i}: language {sol.get('lang')!r}")
            continue
        out = sol.get("output_str") or ""
        wrong.append(
            WrongProgram(
                code=sol["code"], language=lang, name=f"wrong-{i}",
                signature=signature(out) if out else None,
            )
        )
    sample_in, sample_out = rec.get("sample_input") or "", rec.get("sample_output") or ""
    try:
        time_ms, memory_mb = int(rec["time_limit"]), int(rec["memory_limit"])
    except (TypeError, ValueError):
        raise RecordError(f"time_limit/memory_limit must be integers (ms, MB) in {rec['problem_id']!r}") from None
    meta: dict[str, Any] = {"signatures": "upstream output_str on TC-Bench's unpublished golden tests",
                            "validators": "published"}
    if isinstance(rec.get("construction"), dict):
        meta["construction"] = rec["construction"]
    if skipped:
        meta["skipped_programs"] = skipped
    judging = _judging(rec)
    return Problem(
        **judging,
        id=str(rec["problem_id"]),
        title=str(rec["problem_id"]),
        statement=rec["description"] or "",
        time_limit_ms=time_ms,
        memory_limit_mb=memory_mb,
        samples=[Sample(input=sample_in, output=sample_out)] if (sample_in or sample_out) else [],
        solutions=solutions,
        wrong_solutions=wrong,
        rank=int(rec["rank"]) if rec.get("rank") is not None else None,
        source=SCHEMA,
        meta=meta,
    )

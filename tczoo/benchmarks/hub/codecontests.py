"""CodeContests (``deepmind/code_contests``; splits ``train``, ``valid``, ``test``).

Fields used: ``name``, ``description``, ``public_tests`` / ``private_tests`` /
``generated_tests`` (``{input: [...], output: [...]}``), ``solutions`` /
``incorrect_solutions`` (``{language: [int], solution: [str]}``), ``time_limit``
(``{seconds, nanos}`` or null), ``memory_limit_bytes``, ``difficulty``, ``source``,
``cf_contest_id``, ``cf_index``, ``cf_points``, ``cf_rating``, ``cf_tags``,
``is_description_translated``, ``input_file``, ``output_file``.

Language enum (contest_problem.proto): 0 UNKNOWN_LANGUAGE, 1 PYTHON (Python 2),
2 CPP, 3 PYTHON3, 4 JAVA. Python 2 and unknown programs are skipped (tczoo runs
Python 3); how many is recorded in ``meta["skipped_programs"]``.
"""

from __future__ import annotations

import math
from typing import Any

from tczoo.benchmarks.hub import RecordError, require
from tczoo.schema import GoldenTest, Language, Problem, Program, Sample, WrongProgram

SCHEMA = "codecontests"
REQUIRED = ("name", "description", "public_tests", "private_tests", "solutions", "incorrect_solutions")
LANGUAGES = {2: Language.CPP, 3: Language.PYTHON, 4: Language.JAVA}
LANGUAGE_NAMES = {0: "UNKNOWN_LANGUAGE", 1: "PYTHON", 2: "CPP", 3: "PYTHON3", 4: "JAVA"}
SOURCES = {0: "UNKNOWN_SOURCE", 1: "CODECHEF", 2: "CODEFORCES", 3: "HACKEREARTH", 4: "CODEJAM", 5: "ATCODER", 6: "AIZU"}
DIFFICULTIES = {
    0: "UNKNOWN_DIFFICULTY", 1: "EASY", 2: "MEDIUM", 3: "HARD", 4: "HARDER", 5: "HARDEST", 6: "EXTERNAL",
    **{7 + i: chr(ord("A") + i) for i in range(22)},  # 7 A ... 28 V (Codeforces indices)
}
DEFAULT_TIME_MS = 2000
DEFAULT_MEMORY_MB = 256


def _tests(block: Any, kind: str, problem: str) -> list[tuple[str, str]]:
    if not block:
        return []
    if not isinstance(block, dict) or "input" not in block or "output" not in block:
        raise RecordError(f"{problem}: {kind} must be {{input: [...], output: [...]}}")
    inputs, outputs = block["input"] or [], block["output"] or []
    if len(inputs) != len(outputs):
        raise RecordError(f"{problem}: {kind} has {len(inputs)} inputs but {len(outputs)} outputs")
    return list(zip(inputs, outputs))


def _programs(block: Any, kind: str, problem: str, limit: int | None, skipped: dict[str, int]):
    if not block:
        return []
    if not isinstance(block, dict) or "language" not in block or "solution" not in block:
        raise RecordError(f"{problem}: {kind} must be {{language: [...], solution: [...]}}")
    out = []
    for i, (lang_id, code) in enumerate(zip(block["language"], block["solution"])):
        lang = LANGUAGES.get(int(lang_id))
        if lang is None:
            key = f"{kind}:{LANGUAGE_NAMES.get(int(lang_id), lang_id)}"
            skipped[key] = skipped.get(key, 0) + 1
            continue
        if limit is not None and len(out) >= limit:
            break
        out.append((f"{kind}-{i}", code, lang))
    return out


def time_limit_ms(value: Any) -> int | None:
    if not value:
        return None
    if isinstance(value, dict):
        ms = int(value.get("seconds") or 0) * 1000 + int(value.get("nanos") or 0) // 1_000_000
        return ms or None
    return int(value)


def to_problem(
    record: dict[str, Any],
    index: int = 0,
    *,
    include_generated: bool = True,
    max_solutions: int | None = None,
) -> Problem:
    rec = require(record, REQUIRED, SCHEMA)
    name = str(rec["name"])
    public = _tests(rec["public_tests"], "public_tests", name)
    golden = [
        GoldenTest(input=i, output=o, name=f"{kind}-{n}")
        for kind, tests in (
            ("public", public),
            ("private", _tests(rec["private_tests"], "private_tests", name)),
            ("generated", _tests(rec.get("generated_tests"), "generated_tests", name) if include_generated else []),
        )
        for n, (i, o) in enumerate(tests)
    ]
    skipped: dict[str, int] = {}
    solutions = [
        Program(code=code, language=lang, name=label)
        for label, code, lang in _programs(rec["solutions"], "solutions", name, max_solutions, skipped)
    ]
    wrong = [
        WrongProgram(code=code, language=lang, name=label)
        for label, code, lang in _programs(rec["incorrect_solutions"], "incorrect_solutions", name, max_solutions, skipped)
    ]
    tl = time_limit_ms(rec.get("time_limit"))
    mem = rec.get("memory_limit_bytes")
    mem_mb = math.ceil(int(mem) / 2**20) if mem else None
    meta: dict[str, Any] = {
        "source": SOURCES.get(int(rec.get("source") or 0), str(rec.get("source"))),
        "difficulty": DIFFICULTIES.get(int(rec.get("difficulty") or 0), str(rec.get("difficulty"))),
    }
    for key in ("cf_contest_id", "cf_index", "cf_points", "cf_rating", "is_description_translated",
                "input_file", "output_file"):
        if rec.get(key) not in (None, "", 0):
            meta[key] = rec[key]
    if tl is None:
        meta["time_limit_default"] = True
    if mem_mb is None:
        meta["memory_limit_default"] = True
    if skipped:
        meta["skipped_programs"] = skipped
    return Problem(
        id=name,
        title=name,
        statement=rec["description"] or "",
        time_limit_ms=tl or DEFAULT_TIME_MS,
        memory_limit_mb=mem_mb or DEFAULT_MEMORY_MB,
        samples=[Sample(input=i, output=o) for i, o in public],
        solutions=solutions,
        wrong_solutions=wrong,
        golden_tests=golden,
        tags=list(rec.get("cf_tags") or []),
        source=SCHEMA,
        meta=meta,
    )

"""LiveCodeBench evaluation output: a model's code samples per problem with their grades.

LiveCodeBench's runner writes, per evaluated model, a JSON list (``*_eval_all.json``)
with one record per problem: the problem's ``question_title``, ``question_content``,
``platform``, ``question_id``, ``contest_id``, ``contest_date``, ``starter_code``,
``difficulty``, plus ``code_list`` (the extracted code of each sample), ``graded_list``
(whether each sample passed all of the problem's hidden tests), ``output_list``,
``pass@1`` and ``metadata`` (the grading's per-sample details, not the problem's).

This is the data TRAILS evaluates on (§3.1: samples of a code model graded by the
benchmark's tests): a sample graded True is an accepted solution, one graded False a
wrong solution — labels from LiveCodeBench's own tests, never from a model. Functional
(LeetCode) problems call the method named in the starter code (``class Solution: def
name(self, ...)``), or ``metadata["func_name"]`` when the record carries the problem's
own metadata. The data states no limits (``limits_given`` False). Samples with empty
code (the extraction failed) are skipped and counted in ``meta["empty_codes"]``.

LiveCodeBench's judge runs every sample after a block of standard-library imports
(``typing``, ``collections``, ``math`` ... star-imported, and a raised recursion limit),
which samples rely on (``List[int]`` in a signature without importing it). The samples
get the same block (``HEADER``) in front, so they run as they were graded; every
method sees it as part of the code.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tczoo.benchmarks.hub import RecordError, require
from tczoo.schema import Language, Problem, Program, WrongProgram

SCHEMA = "livecodebench-eval"
REQUIRED = ("question_id", "question_content", "code_list", "graded_list")
_DEF = re.compile(r"^\s*def\s+([A-Za-z_]\w*)\s*\(", re.M)
_STAR = ("string", "re", "datetime", "collections", "heapq", "bisect", "copy", "math", "random", "statistics",
         "itertools", "functools", "operator", "io", "sys", "json", "builtins", "typing")
HEADER = "".join(f"from {m} import *\n" for m in _STAR) + "".join(f"import {m}\n" for m in _STAR) + \
    "sys.setrecursionlimit(50000)\n"


def entry_point(record: dict[str, Any]) -> str | None:
    meta = record.get("metadata")
    if isinstance(meta, str):
        try:
            meta = json.loads(meta)
        except json.JSONDecodeError:
            meta = None
    if isinstance(meta, dict) and meta.get("func_name"):
        return str(meta["func_name"])
    names = _DEF.findall(record.get("starter_code") or "")
    return names[-1] if names else None


def to_problem(record: dict[str, Any], index: int = 0) -> Problem:
    rec = require(record, REQUIRED, SCHEMA)
    qid = str(rec["question_id"])
    codes, grades = rec["code_list"], rec["graded_list"]
    if not isinstance(codes, list) or not isinstance(grades, list):
        raise RecordError(f"{qid}: code_list and graded_list must be lists")
    if len(codes) != len(grades):
        raise RecordError(f"{qid}: {len(codes)} codes but {len(grades)} grades")
    accepted, wrong, empty = [], [], 0
    for i, (code, grade) in enumerate(zip(codes, grades)):
        if not isinstance(grade, bool):
            raise RecordError(f"{qid}: grade {i} is {grade!r}, not true/false")
        if not isinstance(code, str) or not code.strip():
            empty += 1
            continue
        if grade:
            accepted.append(Program(code=HEADER + code, language=Language.PYTHON, name=f"sample-{i}"))
        else:
            wrong.append(WrongProgram(code=HEADER + code, language=Language.PYTHON, name=f"sample-{i}"))
    entry = entry_point(rec) if (rec.get("platform") == "leetcode" or (rec.get("starter_code") or "").strip()) \
        else None
    return Problem(
        id=qid,
        title=str(rec.get("question_title") or qid),
        statement=str(rec["question_content"] or ""),
        limits_given=False,
        solutions=accepted,
        wrong_solutions=wrong,
        entry_point=entry,
        tags=[t for t in (rec.get("platform"), rec.get("difficulty")) if t],
        source="livecodebench",
        meta={"platform": rec.get("platform", ""), "contest_date": str(rec.get("contest_date", "")),
              "difficulty": rec.get("difficulty", ""), "starter_code": rec.get("starter_code") or "",
              "empty_codes": empty, "pass@1": rec.get("pass@1")},
    )

"""CoCoClaNeL (Bouras et al., 2025; github.com/msv-lab/CoCoClaNeL): Codeforces problems
(January-June 2024) with human Python submissions labelled by Codeforces' verdicts.

The files (``CoCoClaNeL_experiments.json``, ``_pilot.json``, ``_total.json``) are JSON
lists of problem-solution pairs: ``description`` (the problem in Markdown, examples
included), ``generated_code`` (the submission), ``correct`` (accepted on Codeforces),
``task_id`` / ``task_name`` (the problem, e.g. ``1919_A``), ``unique_id``,
``counterexample`` (``{input, output, expected}`` or null), ``test_passed``, ``hard``
(the problem's rating), ``LOC``, ``dataset``, ``model``, ``depth``.

Pairs are grouped by ``task_id`` into one problem each: correct submissions become
accepted solutions, the others wrong solutions (their counterexample and tests passed
kept in ``meta``, which no method sees). The labels are Codeforces', never a model's.
Every program reads standard input; the data states no limits (``limits_given`` False).
"""

from __future__ import annotations

from typing import Any

from tczoo.benchmarks.hub import RecordError, require
from tczoo.schema import Language, Problem, Program, WrongProgram

SCHEMA = "cococlanel"
REQUIRED = ("description", "generated_code", "correct", "task_id")


def _program(rec: dict[str, Any], name: str) -> Program:
    code = rec["generated_code"]
    if not isinstance(code, str):
        raise RecordError(f"{name}: generated_code is {type(code).__name__}, not a string")
    if rec["correct"] is True:
        return Program(code=code, language=Language.PYTHON, name=name)
    meta = {k: rec[k] for k in ("counterexample", "test_passed") if rec.get(k) is not None}
    return WrongProgram(code=code, language=Language.PYTHON, name=name, meta=meta)


def to_problems(records: list[Any]) -> list[Problem]:
    """One problem per ``task_id``, in order of first appearance."""
    groups: dict[str, list[tuple[int, dict]]] = {}
    for index, record in enumerate(records):
        try:
            rec = require(record, REQUIRED, SCHEMA)
        except RecordError as exc:
            raise RecordError(f"record {index}: {exc}") from None
        if not isinstance(rec["correct"], bool):
            raise RecordError(f"record {index}: correct is {rec['correct']!r}, not true/false")
        groups.setdefault(str(rec["task_id"]), []).append((index, rec))
    problems = []
    for task_id, members in groups.items():
        first = members[0][1]
        used: set[str] = set()
        accepted, wrong = [], []
        for index, rec in members:
            name = str(rec.get("unique_id") or f"{task_id}-{index}")
            if name in used:
                name = f"{name}#{index}"
            used.add(name)
            prog = _program(rec, name)
            (accepted if rec["correct"] else wrong).append(prog)
        problems.append(Problem(
            id=task_id,
            title=str(first.get("task_name") or task_id),
            statement=str(first["description"]),
            limits_given=False,
            solutions=accepted,
            wrong_solutions=wrong,
            source=SCHEMA,
            meta={"rating": first.get("hard"), "dataset": first.get("dataset", ""),
                  "descriptions": len({str(r["description"]) for _, r in members})},
        ))
    return problems

"""REFUTE (Sinha et al., 2025, arXiv:2502.19414; the hub's ``bethgelab/REFUTE``, split
``train``): one record per (problem, incorrect submission) sample, as the authors' code
reads it (``refute/utils/dataset_parser.py``, ``code_exec.py``):

``problem_id`` (Codeforces', e.g. ``1975F``); the statement in parts — ``statement``,
``input``, ``output``, ``example_input``, ``example_output``, ``note`` (each may be
null); ``time_limit`` (ms) and ``memory_limit`` (MB); the incorrect submission
``wrong_code`` in ``wrong_code_lang`` (a Codeforces language name); the correct solutions
``correct_cpp`` and ``correct_python`` (either may be null; the authors judge with the
C++ one when there is one); ``validator``, a Python 3 program that reads an input on
stdin and ends normally when the input is valid (any other end rejects it).

The result is a Problem with the incorrect submission as its one wrong solution, the
correct ones as its solutions (C++ first: the ground truth tczoo picks is the authors'),
the samples from the examples, outputs compared as Kattis's default validator does
(tokens, case-insensitive: the authors' checker compares tokens exactly except YES/NO
answers, which it reads in any case — so a case difference is never a refutation here,
where theirs would count one outside YES/NO), and the validator as its input validator: wrapped so
that it speaks the Kattis protocol the kernel's input screen uses (exit 42 when the
program ended normally, 43 otherwise), under the 20 s the authors give every program.
Languages follow the authors' rule: any C++, Python 3 (PyPy included); a record in
another language is refused. Other fields (a rating, tags) are kept in ``meta``;
``tags`` also become the problem's tags.
"""

from __future__ import annotations

from typing import Any

from tczoo.benchmarks.hub import RecordError, require
from tczoo.parsing import contest_language
from tczoo.schema import Language, Problem, Program, Sample, Validator, WrongProgram

SCHEMA = "refute"
REQUIRED = ("problem_id", "wrong_code", "wrong_code_lang", "validator")
VALIDATOR_TIME_MS = 20_000  # the authors' run_code: 20 s for every program, the validator included
KNOWN = {"problem_id", "statement", "input", "output", "example_input", "example_output", "note", "time_limit",
         "memory_limit", "wrong_code", "wrong_code_lang", "correct_cpp", "correct_python", "validator"}

# The authors' validator passes an input when it ends normally (exit 0). The kernel's
# screen runs input validators under the Kattis protocol (42 accepts), so the program
# runs inside this driver: its own exit status 0 (or none) becomes 42, anything else 43.
KATTIS_DRIVER = '''import sys
_SOURCE = {source!r}
try:
    exec(compile(_SOURCE, "validator.py", "exec"), {{"__name__": "__main__", "__builtins__": __builtins__}})
except SystemExit as _end:
    if _end.code not in (None, 0):
        sys.exit(43)
except BaseException:
    import traceback
    traceback.print_exc()
    sys.exit(43)
sys.stdout.flush()
sys.exit(42)
'''


def _text(record: dict[str, Any], key: str) -> str:
    value = record.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise RecordError(f"{key} must be a string, not {type(value).__name__}")
    return value.replace("$$$", "$")  # Codeforces' formula marks, as the authors' desc_problem reads them


def _positive(record: dict[str, Any], key: str, default: int) -> int:
    value = record.get(key)
    if value is None:
        return default
    try:
        number = float(value) if not isinstance(value, bool) else float("nan")
    except (TypeError, ValueError):
        raise RecordError(f"{key} must be a positive number, not {value!r}") from None
    if not number > 0 or number != number or number > 3_600_000:
        raise RecordError(f"{key} must be a positive number, not {value!r}")
    return int(number)


def statement(record: dict[str, Any]) -> str:
    parts = [_text(record, "statement").strip()]
    for key, title in (("input", "Input"), ("output", "Output"), ("note", "Note")):
        body = _text(record, key).strip()
        if body:
            parts.append(f"## {title}\n\n{body}")
    return "\n\n".join(p for p in parts if p)


def to_problem(record: dict[str, Any], index: int = 0) -> Problem:
    require(record, REQUIRED, SCHEMA)
    pid = str(record["problem_id"]).strip()
    if not pid:
        raise RecordError("problem_id is empty")
    wrong_lang = contest_language(record["wrong_code_lang"])
    if wrong_lang is None:
        raise RecordError(f"wrong_code_lang {str(record['wrong_code_lang'])[:60]!r} is neither C++ nor Python 3 "
                          "(REFUTE's languages)")
    wrong = _text(record, "wrong_code")
    if not wrong.strip():
        raise RecordError("wrong_code is empty")
    solutions = [Program(code=_text(record, key), language=lang, name=key)
                 for key, lang in (("correct_cpp", Language.CPP), ("correct_python", Language.PYTHON))
                 if _text(record, key).strip()]
    if not solutions:
        raise RecordError("neither correct_cpp nor correct_python holds a program")
    source = _text(record, "validator")
    if not source.strip():
        raise RecordError("validator is empty")
    samples = []
    if _text(record, "example_input").strip():
        samples.append(Sample(input=_text(record, "example_input"), output=_text(record, "example_output")))
    body = statement(record)
    if not body:
        raise RecordError("the record has no statement (statement, input and output are all empty)")
    tags = record.get("tags")
    extra = {k: v for k, v in record.items() if k not in KNOWN}
    return Problem(
        id=pid,
        statement=body,
        time_limit_ms=_positive(record, "time_limit", 2000),
        memory_limit_mb=_positive(record, "memory_limit", 256),
        limits_given=record.get("time_limit") is not None and record.get("memory_limit") is not None,
        samples=samples,
        solutions=solutions,
        wrong_solutions=[WrongProgram(code=wrong, language=wrong_lang, name="wrong_code",
                                      meta={"language": str(record["wrong_code_lang"])})],
        input_validators=[Validator(program=Program(code=KATTIS_DRIVER.format(source=source),
                                                    language=Language.PYTHON, name="validator"),
                                    time_limit_ms=VALIDATOR_TIME_MS)],
        # the authors' checker compares tokens exactly, but YES/NO answers in any case: the
        # Kattis default (tokens, case-insensitive) never counts a case difference as a refutation
        checker="kattis",
        tags=[str(t) for t in tags] if isinstance(tags, list) else [],
        source=SCHEMA,
        meta={"refute": {"problem_id": pid, "index": index, **extra}},
    )

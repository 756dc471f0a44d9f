"""TCGBench (Cao et al., 2025, arXiv:2506.06821): competition problems (NOIP and Luogu's
"canonical" set) with a standard solver and erroneous solvers each.

**The release's own field names could not be read here** (no copy of its data card or
repository was reachable; docs/tcgbench.md says what was looked for). This converter
reads one record per problem holding the components the paper describes, under these
names (first match wins), and refuses a record without them in one line:

- ``problem_id`` / ``id`` / ``pid``; ``title`` (optional);
- the statement: ``statement`` / ``description`` / ``problem``, with ``input_format`` /
  ``output_format`` / ``note`` appended as sections when given;
- ``samples``: ``[{"input", "output"}]`` (optional);
- ``time_limit`` (ms; ``time_limit_s`` in seconds) and ``memory_limit`` (MB), optional;
- the standard solver: ``std_solver`` / ``standard_solver`` / ``solution`` — a code
  string (C++ unless ``std_language`` says otherwise) or ``{"code", "language"}``;
- the erroneous solvers: ``wrong_solvers`` / ``erroneous_solvers`` / ``wrong_codes`` — a
  list of code strings or ``{"code", "language"?, "name"?, "instruction"?}`` (the paper's
  target instruction, an error analysis, is kept in the program's meta, never shown to
  a method);
- ``validator`` (optional): a Python program that ends normally on a valid input (the
  protocol REFUTE's validators use; ``validator_protocol: "kattis"`` for one that exits
  42), run by the kernel's input screen; without one, validity is judged by nothing and
  every report says so;
- ``dataset`` (``NOIP`` / ``Canonical``), kept as the problem's source.
"""

from __future__ import annotations

from typing import Any

from tczoo.benchmarks.hub import RecordError
from tczoo.benchmarks.hub.refute import KATTIS_DRIVER, VALIDATOR_TIME_MS
from tczoo.schema import Language, Problem, Program, Sample, Validator, WrongProgram

SCHEMA = "tcgbench"
REQUIRED = ("problem_id", "statement", "std_solver", "wrong_solvers")
ALIASES = {
    "problem_id": ("problem_id", "id", "pid"),
    "statement": ("statement", "description", "problem"),
    "std_solver": ("std_solver", "standard_solver", "solution"),
    "wrong_solvers": ("wrong_solvers", "erroneous_solvers", "wrong_codes"),
}


def _field(record: dict[str, Any], name: str) -> Any:
    for key in ALIASES[name]:
        if record.get(key) is not None:
            return record[key]
    raise RecordError(f"not a {SCHEMA} record: no {name} (any of {', '.join(ALIASES[name])})")


def _language(value: Any, default: Language, where: str) -> Language:
    if value is None:
        return default
    try:
        return Language.parse(str(value))
    except ValueError:
        raise RecordError(f"{where}: unknown language {str(value)[:40]!r}") from None


def _program(value: Any, where: str, default: Language) -> tuple[str, Language, dict[str, Any]]:
    if isinstance(value, str):
        code, lang, rest = value, default, {}
    elif isinstance(value, dict) and isinstance(value.get("code"), str):
        code, lang = value["code"], _language(value.get("language"), default, where)
        rest = {k: v for k, v in value.items() if k not in ("code", "language")}
    else:
        raise RecordError(f"{where} must be a code string or {{code, language}}")
    if not code.strip():
        raise RecordError(f"{where} is empty")
    return code, lang, rest


def _number(record: dict[str, Any], key: str, scale: float = 1.0) -> int | None:
    value = record.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value * scale <= 3_600_000:
        raise RecordError(f"{key} must be a positive number, not {value!r}")
    return int(value * scale)


def to_problem(record: dict[str, Any], index: int = 0) -> Problem:
    if not isinstance(record, dict):
        raise RecordError(f"not a {SCHEMA} record: expected a JSON object, got {type(record).__name__}")
    pid = str(_field(record, "problem_id")).strip()
    body = _field(record, "statement")
    if not isinstance(body, str) or not body.strip() or not pid:
        raise RecordError("the problem id and the statement must be non-empty strings")
    parts = [body.strip()]
    for key, title in (("input_format", "Input"), ("output_format", "Output"), ("note", "Note")):
        if isinstance(record.get(key), str) and record[key].strip():
            parts.append(f"## {title}\n\n{record[key].strip()}")
    std_lang = _language(record.get("std_language"), Language.CPP, "std_language")
    code, lang, _ = _program(_field(record, "std_solver"), "std_solver", std_lang)
    wrong_list = _field(record, "wrong_solvers")
    if not isinstance(wrong_list, list) or not wrong_list:
        raise RecordError("wrong_solvers must be a non-empty list")
    wrong = []
    for j, item in enumerate(wrong_list):
        wcode, wlang, rest = _program(item, f"wrong_solvers[{j}]", std_lang)
        name = str(rest.pop("name", f"wrong-{j}"))
        wrong.append(WrongProgram(code=wcode, language=wlang, name=name, meta=rest))
    samples = []
    for j, s in enumerate(record.get("samples") or []):
        if not isinstance(s, dict) or not isinstance(s.get("input"), str) or not isinstance(s.get("output"), str):
            raise RecordError(f"samples[{j}] must be {{input, output}} strings")
        samples.append(Sample(input=s["input"], output=s["output"]))
    validators = []
    source = record.get("validator")
    if source is not None:
        if not isinstance(source, str) or not source.strip():
            raise RecordError("validator must be a Python program")
        kattis = record.get("validator_protocol") == "kattis"
        validators.append(Validator(program=Program(code=source if kattis else KATTIS_DRIVER.format(source=source),
                                                    language=Language.PYTHON, name="validator"),
                                    time_limit_ms=VALIDATOR_TIME_MS))
    time_ms = _number(record, "time_limit") or _number(record, "time_limit_s", 1000.0)
    memory_mb = _number(record, "memory_limit")
    dataset = str(record.get("dataset") or "")
    return Problem(
        id=pid, title=str(record.get("title") or ""), statement="\n\n".join(parts),
        time_limit_ms=time_ms or 1000, memory_limit_mb=memory_mb or 256,
        limits_given=time_ms is not None and memory_mb is not None,
        samples=samples, solutions=[Program(code=code, language=lang, name="std_solver")], wrong_solutions=wrong,
        input_validators=validators, source=f"{SCHEMA}:{dataset}" if dataset else SCHEMA,
        meta={"tcgbench": {"index": index, "dataset": dataset}},
    )

"""``tczoo stab boundary FILE [-f json]``: constraints, unparsed sentences and boundary."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from .constraints import ParseResult, parse_constraints
from .saturator import Saturation, saturate


def boundary_report(text: str, *, time_limit_s: float = 2.0, objective: str = "leximin") -> dict[str, Any]:
    """Everything the command prints, as a JSON-ready dict (also for other code)."""
    parsed: ParseResult = parse_constraints(text)
    result: Saturation = saturate(parsed.constraints, time_limit_s=time_limit_s, objective=objective)  # type: ignore[arg-type]
    return {
        "constraints": [record.model_dump(mode="json") for record in parsed.constraints],
        "unparsed": [item.model_dump(mode="json") for item in parsed.unparsed],
        "boundary": result.boundary,
        "options": [option.model_dump(mode="json") for option in result.options],
        "objective": result.objective,
        # Beyond the four keys the issue asks for: what a reader needs to trust them.
        "ignored": [item.model_dump(mode="json") for item in parsed.ignored],
        "unbounded": result.unbounded,
        "components": [c.model_dump(mode="json") for c in result.components],
        "violations": result.violations,
    }


def boundary_command(file: Path, as_json: bool, *, objective: str = "leximin") -> int:
    """Print the report for the statement in *file*; 0 on success, 1 if the file
    cannot be read, 2 if the boundary violates a parsed constraint (a bug)."""
    from tczoo.safeio.read import ReadLimits, Refused, read_file

    try:  # undecodable bytes become U+FFFD rather than a traceback; a FIFO or device is refused
        text = read_file(Path(file), cap=ReadLimits.from_env().file_bytes).decode("utf-8", errors="replace")
    except Refused as error:
        print(f"cannot read {error}", file=sys.stderr)
        return 1
    report = boundary_report(text, objective=objective)
    if as_json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        print_report(report)
    return 2 if report["violations"] else 0


def print_report(report: dict[str, Any]) -> None:
    print("constraints:")
    for record in report["constraints"]:
        fields = {k: v for k, v in record.items() if k not in ("kind", "text") and v is not None}
        print(f"  {record['kind']:<14} {fields}")
    if report["unparsed"]:
        print("unparsed:")
        for item in report["unparsed"]:
            print(f"  {item['text']!r}  ({item['reason']})")
    if report["ignored"]:
        print("ignored:")
        for item in report["ignored"]:
            print(f"  {item['text']!r}  ({item['reason']})")
    print("boundary:")
    for var, value in report["boundary"].items():
        print(f"  {var} = {value}")
    for option in report["options"]:
        values = ", ".join(f"{k}={v}" for k, v in option["boundary"].items())
        print(f"option {option['name']}: {values}")
    if report["unbounded"]:
        print("unbounded (no upper bound found): " + ", ".join(report["unbounded"]))
    for violation in report["violations"]:
        print(f"VIOLATION: {violation}")

"""`tczoo judge`: run one program file under the sandbox and print the result."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from pydantic import ValidationError

from tczoo.schema import Language, Program
from tczoo.sandbox.sandbox import Sandbox
from tczoo.sandbox.types import Limits

SHOWN = 4000  # characters of stdout/stderr printed


OPTION = {"time_ms": "--time-limit", "memory_mb": "--memory-limit"}


def limits_error(e: ValidationError) -> str:
    """One line for a user: which option, what it must be, what was given."""
    parts = []
    for err in e.errors():
        field = str(err["loc"][0]) if err.get("loc") else "limits"
        parts.append(f"{OPTION.get(field, field)} {err['input']!r}: {err['msg'].lower()}")
    return "; ".join(parts)


def _clip(text: str) -> str:
    return text if len(text) <= SHOWN else text[:SHOWN] + f"... [{len(text) - SHOWN} more]"


def judge_command(file: Path, lang: str, input: Path | None = None, expected: Path | None = None,
                  time_limit: int = 2000, memory_limit: int = 256, as_json: bool = True,
                  comparator: str | None = None, sandbox: Sandbox | None = None) -> int:
    """Exit status: 0 for AC, 1 for any other verdict, 2 for a usage error."""
    try:
        limits = Limits(time_ms=time_limit, memory_mb=memory_limit)
    except ValidationError as e:
        print(f"tczoo judge: {limits_error(e)}", file=sys.stderr)
        return 2
    try:
        language = Language.parse(lang)
        program = Program(code=Path(file).read_text(), language=language, name=Path(file).name)
        stdin = Path(input).read_text() if input else ""
        want = Path(expected).read_text() if expected else None
    except (OSError, ValueError) as e:
        print(f"tczoo judge: {e}", file=sys.stderr)
        return 2
    own = sandbox is None
    sb = sandbox or Sandbox(workers=1)
    try:
        if want is None:
            r = sb.run(program, stdin, limits)
        else:
            r = sb.judge(program, stdin, want, limits, comparator)
        record = {
            "verdict": r.verdict.value, "cpu_ms": r.cpu_ms, "wall_ms": r.wall_ms,
            "memory_kb": r.memory_kb, "exit_code": r.exit_code, "signal": r.signal,
            "stdout": _clip(r.stdout), "stderr": _clip(r.stderr),
            "stdout_truncated": r.stdout_truncated or len(r.stdout) > SHOWN,
            "message": _clip(r.message), "isolation": sb.isolation_level,
        }
    finally:
        if own:
            sb.close()
    if as_json:
        print(json.dumps(record))
    else:
        print(f"{record['verdict']}  cpu {r.cpu_ms:.0f} ms  wall {r.wall_ms:.0f} ms  "
              f"mem {r.memory_kb} KB  exit {r.exit_code}  signal {r.signal}")
        if r.message:
            print(r.message)
        if r.stdout:
            print(record["stdout"])
    return 0 if r.verdict.value == "AC" else 1

"""The one place user-supplied JSON, JSONL and YAML files are read (docs/security.md).

``SCHEMA:PATH`` benchmarks, ``scripted:`` rules, ``replay:`` directories, ``--tests``,
``--params``, candidate files, WrongSelect matrices, ``config.json``, every record of a run
directory and its ``grid.json`` (``tczoo.store``): whatever is in
them, reading ends in plain data or in one ``UserFileError`` line ``FILE:LINE: reason``
(exit 2, before any work starts), never a traceback and never a hang:

- only regular files (a FIFO or a device is refused before it is opened), at most
  ``MAX_FILE_BYTES`` for a whole JSON/YAML document and ``MAX_LINE_BYTES`` a JSONL line;
- strict UTF-8 (the line of the first bad byte is named);
- no ``NaN``/``Infinity`` and no number that overflows to infinity (JSON has neither);
- nesting at most ``MAX_DEPTH`` deep; YAML through ``tczoo.safeio.yamlload`` (no aliases);
- ``expect(...)`` checks a value's type and ``number(...)`` a number's range, with the
  same ``FILE:LINE`` prefix.

The defaults: ``TCZOO_READ_FILE_MB`` (256) bounds a JSON document and a JSONL line
alike; a YAML document is at most ``MAX_YAML_BYTES`` (16 MiB).
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, Iterator

from tczoo.errors import UserError
from tczoo.safeio.read import ReadLimits, Refused, brief, iter_lines, read_file

MAX_DEPTH = 100
MAX_YAML_BYTES = 16 << 20  # YAML is parsed in Python: a larger document takes minutes


class UserFileError(UserError, ValueError):
    """A user's file that cannot be used: one line, ``FILE:LINE: reason``."""


class NotJSON(UserFileError):
    """Text that is no JSON value: a syntax error, or UTF-8 cut inside its last
    character, as a record a killed writer tore reads. A bad byte elsewhere, NaN,
    overflow and nesting are refused as plain ``UserFileError``."""


def where(path: str | os.PathLike[str] | None, line: int | None = None) -> str:
    name = str(path) if path is not None else "<input>"
    return f"{name}:{line}" if line else name


def _limit() -> int:
    return ReadLimits.from_env().file_bytes


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text[:40]} overflows to infinity")
    return value


def _depth_ok(value: Any, max_depth: int) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            if depth > max_depth:
                return False
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            if depth > max_depth:
                return False
            stack.extend((v, depth + 1) for v in item)
    return True


def decode(data: bytes, origin: str | os.PathLike[str] | None, first_line: int = 1) -> str:
    """Strict UTF-8, or the line of the first byte that is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = first_line + data[: exc.start].count(b"\n")
        cut = exc.end == len(data) and exc.reason == "unexpected end of data"  # a write torn mid-character
        raise (NotJSON if cut else UserFileError)(
            f"{where(origin, line)}: not UTF-8 (byte 0x{data[exc.start]:02x})") from None


def loads(text: str | bytes, origin: str | os.PathLike[str] | None = None, *, line: int | None = None,
          max_depth: int = MAX_DEPTH) -> Any:
    """One JSON value; ``line`` is the line it starts on (a JSONL record), else errors
    name the line inside ``text``."""
    if isinstance(text, bytes):
        text = decode(text, origin, line or 1)
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite)
    except json.JSONDecodeError as exc:
        at = (line or 1) + exc.lineno - 1
        what = "not a JSON record" if line else "not JSON"
        raise NotJSON(f"{where(origin, at)}: {what} ({exc.msg}, column {exc.colno})") from None
    except RecursionError:
        raise UserFileError(f"{where(origin, line or 1)}: nested deeper than {max_depth} levels") from None
    except ValueError as exc:  # NaN, Infinity, 1e999, an integer of 5000 digits
        raise UserFileError(f"{where(origin, line or 1)}: {' '.join(str(exc).split())[:160]}") from None
    # fewer brackets than levels cannot nest deeper (a count costs a tenth of the walk)
    if text.count("[") + text.count("{") > max_depth and not _depth_ok(value, max_depth):
        raise UserFileError(f"{where(origin, line or 1)}: nested deeper than {max_depth} levels")
    return value


def _bytes(path: Path, what: str) -> bytes:
    try:
        return read_file(path, cap=_limit(), name=str(path))
    except Refused as exc:
        raise UserFileError(f"{what} {exc}" if what else str(exc)) from None


def read_json(path: str | os.PathLike[str], what: str = "") -> Any:
    """A JSON document (a regular file, bounded)."""
    path = Path(path)
    return loads(_bytes(path, what), path)


def read_jsonl(path: str | os.PathLike[str], what: str = "") -> Iterator[tuple[int, Any]]:
    """(line number, value) of each non-blank line, streamed."""
    path = Path(path)
    try:
        for lineno, raw in iter_lines(path, max_line=_limit(), name=str(path)):
            if raw.strip():
                yield lineno, loads(raw, path, line=lineno)
    except Refused as exc:
        raise UserFileError(f"{what} {exc}" if what else str(exc)) from None


def read_yaml(path: str | os.PathLike[str], what: str = "") -> Any:
    """A YAML document, bounded (``tczoo.safeio.yamlload``); JSON is YAML too, but a ``.json``
    file is read as JSON."""
    from tczoo.safeio.yamlload import YAMLRefused, load_yaml

    path = Path(path)
    data = _bytes(path, what)
    if path.suffix == ".json":
        return loads(data, path)
    try:
        value = load_yaml(data, max_bytes=MAX_YAML_BYTES)
    except YAMLRefused as exc:
        raise UserFileError(f"{where(path, exc.line)}: {exc.reason}") from None
    if not _depth_ok(value, MAX_DEPTH):
        raise UserFileError(f"{where(path, 1)}: nested deeper than {MAX_DEPTH} levels")
    _no_nan(value, path)
    return value


def _no_nan(value: Any, path: Path) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            raise UserFileError(f"{where(path)}: {item} is not a number tczoo accepts")
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


# --------------------------------------------------------------------------- checking values


_TYPES = {dict: "an object", list: "a list", str: "a string", int: "a whole number", float: "a number",
          bool: "true or false", type(None): "null"}


def type_name(value: Any) -> str:
    return _TYPES.get(type(value), type(value).__name__)


def expect(value: Any, types: type | tuple[type, ...], what: str, origin: Any = None, line: int | None = None) -> Any:
    """``value`` if it is one of ``types`` (bool is not a number), else one line."""
    types = types if isinstance(types, tuple) else (types,)
    ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
    if not ok:
        want = " or ".join(_TYPES.get(t, t.__name__) for t in types)
        raise UserFileError(f"{where(origin, line)}: {what} must be {want}, not {type_name(value)} {brief(value, 40)}")
    return value


def number(value: Any, what: str, origin: Any = None, line: int | None = None, *, low: float | None = None,
           high: float | None = None, low_open: bool = False, integer: bool = False) -> float:
    """A finite number in [low, high] (``low_open``: above ``low``)."""
    expect(value, (int,) if integer else (int, float), what, origin, line)
    if isinstance(value, float) and not math.isfinite(value):
        raise UserFileError(f"{where(origin, line)}: {what} must be a finite number, not {value}")
    if low is not None and (value <= low if low_open else value < low):
        raise UserFileError(f"{where(origin, line)}: {what} must be {'above' if low_open else 'at least'} {low:g}, "
                            f"not {brief(value, 40)}")
    if high is not None and value > high:
        raise UserFileError(f"{where(origin, line)}: {what} must be at most {high:g}, not {brief(value, 40)}")
    return value

"""Text that a model or a program produced, stored losslessly and shown safely.

Anything an LLM answers or a program prints may hold lone surrogates (bytes that were
not UTF-8, decoded with ``surrogateescape``, or a model's broken ``\\udcff`` escapes),
NUL, and terminal control sequences (ESC ``[``..., OSC ``]``... that retitle a window or
rewrite the screen). tczoo keeps such text exactly:

- ``dumps`` writes JSON that is always valid UTF-8: characters UTF-8 cannot carry
  are written as ``\\uXXXX`` escapes, which ``json.loads`` reads back to the same
  string (pydantic's own JSON writer refuses lone surrogates, so records go through
  ``model_line``);
- ``printable`` is the same text for a terminal: control characters and lone
  surrogates are shown as escapes, never sent raw.
"""

from __future__ import annotations

import json
import re
from typing import Any

_CONTROL = {i: f"\\x{i:02x}" for i in range(32) if chr(i) not in "\n\t"}
_CONTROL[0x7F] = "\\x7f"
_CONTROL.update({i: f"\\x{i:02x}" for i in range(0x80, 0xA0)})  # C1 controls (0x9b is a CSI)


def printable(text: Any, *, newlines: bool = True) -> str:
    """``text`` safe for a terminal: control characters (ESC, BEL, NUL, C1 ...) and lone
    surrogates are written as escapes; everything else is kept. With
    ``newlines=False`` line breaks and tabs are escaped too (one-line fields)."""
    s = text if isinstance(text, str) else str(text)
    out = s.translate(_CONTROL)
    if not newlines:
        out = out.replace("\n", "\\n").replace("\t", "\\t")
    try:
        out.encode("utf-8")
    except UnicodeEncodeError:
        out = out.encode("utf-8", "backslashreplace").decode("utf-8")
    return out


def to_bytes(text: str) -> bytes:
    """``text`` as the bytes a program reads: UTF-8, with surrogate escapes turned back
    into the bytes they stand for (``surrogateescape``); any other lone surrogate is
    written as its 3-byte form rather than refused."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def from_bytes(data: bytes) -> str:
    """Bytes a program wrote, as text that keeps every byte: invalid UTF-8 becomes
    surrogate escapes (``to_bytes`` gives the bytes back)."""
    return data.decode("utf-8", "surrogateescape")


_C1 = re.compile("[\x80-\x9f]")
_C1_ESCAPES = {i: f"\\u{i:04x}" for i in range(0x80, 0xA0)}


def dumps(data: Any, **kwargs: Any) -> str:
    """JSON text that encodes to valid UTF-8 whatever strings ``data`` holds, and that a
    terminal shows as text: JSON escapes C0 controls (ESC, BEL) itself, and C1 controls
    (U+009B is a CSI to many terminals) are written as ``\\u009b`` escapes too, which
    ``json.loads`` reads back to the same string."""
    text = json.dumps(data, ensure_ascii=False, **kwargs)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(data, ensure_ascii=True, **kwargs)
    if _C1.search(text):  # outside strings JSON is ASCII: only string contents change
        text = text.translate(_C1_ESCAPES)
    return text


def model_line(model: Any) -> str:
    """A pydantic model as one line of JSON (lossless for any string it holds)."""
    return dumps(model.model_dump(mode="json"))

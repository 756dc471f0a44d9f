"""Reading the three methods' answers: verdicts, scenario lists, inputs, state descriptions.

Models rarely end exactly as asked. ``read_verdict`` looks at the tail first (where the
answer was asked to end), then anywhere for a labelled verdict, then for bare keywords
near the end; it returns None only when nothing says which way the answer went (the
caller then asks once more). All regular expressions here are linear in the text and
run on bounded slices, so a huge or hostile answer costs little.
"""

from __future__ import annotations

import json
import re
from typing import Any

from tczoo.parsing import ParseError, as_stdin, code_blocks, json_cut_off, parse_json

TAIL = 600  # characters at the end of an answer where the verdict is expected
STATE_CAP = 1500  # characters kept of one state description (prompts stay bounded)

_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_EMPHASIS = re.compile(r"[*`#>]+|(?<!\w)_+|_+(?!\w)")
_WORDS = {
    "true": True, "correct": True, "yes": True, "right": True, "conforming": True, "conforms": True,
    "false": False, "incorrect": False, "no": False, "wrong": False, "not correct": False,
    "non-conforming": False, "nonconforming": False, "n't correct": False,
}
_VALUE = r"(not\s+correct|non-?conforming|incorrect|correct|true|false|yes|no|wrong|right|conforming|conforms)"
_LABELLED = re.compile(
    r"\b(?:correctness|verdict|final\s+verdict|final\s+answer|answer|conclusion|label|decision)"
    r"[ \t]*(?:is)?[ \t]*[:=\-][ \t]*\[?[ \t]*" + _VALUE + r"\b", re.I)
_KEYWORD = re.compile(r"((?:\bnot|n't)\s+correct|\bnon-?conforming|\bincorrect|\bcorrect|\btrue|\bfalse|\bwrong)\b",
                      re.I)


def _unthink(text: str) -> str:
    text = _THINK.sub(" ", text or "")
    low = text.lower()
    if "<think>" in low:  # an unterminated reasoning block: only what follows it counts
        text = text[low.rfind("<think>") + 7:]
    return text


def _clean(text: str) -> str:
    """Without reasoning blocks and markdown emphasis (``**True**``, ``__x__``, `` `y` ``)."""
    return _EMPHASIS.sub("", _unthink(text))


def _value(word: str) -> bool:
    return _WORDS[" ".join(word.lower().split())]


def read_verdict(text: str) -> bool | None:
    """True (correct), False (incorrect) or None (the answer says neither)."""
    clean = _clean(text)
    tail = clean[-TAIL:]
    for scope in (tail, clean):
        found = list(_LABELLED.finditer(scope))
        if found:
            return _value(found[-1].group(1))
    found = list(_KEYWORD.finditer(tail))
    if found:
        return _value(found[-1].group(1))
    return None


# --------------------------------------------------------------------------- scenarios

_ITEM = re.compile(r"^\s*(?:\d+\s*[.):]|[-*•]|scenario\s*\d+\s*[:.)-]?)\s*(.+)$", re.I)


def read_scenarios(text: str, limit: int) -> list[str]:
    """At most ``limit`` scenario descriptions: a JSON list (of strings or of objects,
    whose fields are joined), else a numbered or bulleted list."""
    try:
        data = parse_json(_unthink(text))
    except ParseError:
        data = None
    if isinstance(data, dict):
        data = next((v for v in data.values() if isinstance(v, list)), [data])
    out: list[str] = []
    if isinstance(data, list):
        for item in data:
            if isinstance(item, dict):
                parts = [f"{k}: {v}" if k not in ("name", "title") else str(v)
                         for k, v in item.items() if isinstance(v, (str, int, float)) and str(v).strip()]
                desc = "; ".join(parts)
            else:
                desc = str(item) if isinstance(item, (str, int, float)) else ""
            if desc.strip():
                out.append(desc.strip()[:STATE_CAP])
    if not out:
        current: list[str] = []
        for line in _unthink(text).splitlines():
            m = _ITEM.match(line)
            if m and len(m.group(1).strip()) > 3:
                if current:
                    out.append(" ".join(current)[:STATE_CAP])
                current = [m.group(1).strip()]
            elif current and line.strip():
                current.append(line.strip())
            elif current:
                out.append(" ".join(current)[:STATE_CAP])
                current = []
        if current:
            out.append(" ".join(current)[:STATE_CAP])
    return out[:limit]


# --------------------------------------------------------------------------- inputs

INPUT_LANGS = ("input", "stdin", "text", "txt", "plaintext", "")


def read_inputs(text: str, *, functional: bool) -> tuple[list[str], list[str]]:
    """(inputs, problems) from an answer that puts each input in its own fenced block
    (stdin text; for functional problems a JSON object of arguments), or, failing that,
    one JSON list of inputs. Functional inputs come back as canonical JSON text."""
    text = _unthink(text)
    problems: list[str] = []
    blocks = [b for b in code_blocks(text) if b.closed or b.code.strip()]
    raw: list[Any] = []
    if functional:
        for b in blocks:
            if b.lang in ("json", "python", *INPUT_LANGS):
                if json_cut_off(b.code):  # a cut-off argument list is not the arguments meant
                    problems.append("truncated: " + b.code[:200])
                    continue
                try:
                    raw.append(parse_json(b.code))
                except ParseError as exc:
                    problems.append(f"bad_json: {exc.detail[:200]}")
    else:
        raw = [b.code for b in blocks if b.lang in INPUT_LANGS or b.lang not in ("json", "python", "cpp", "c")]
        if not raw and any(b.lang == "json" for b in blocks):
            try:
                value = parse_json(text)
                raw = value if isinstance(value, list) else [value]
            except ParseError as exc:
                problems.append(f"bad_json: {exc.detail[:200]}")
    if not raw and not blocks:
        try:
            value = parse_json(text)
            raw = value if isinstance(value, list) else [value]
        except ParseError:
            problems.append("no_input_blocks")
    inputs: list[str] = []
    for value in raw:
        if functional:
            if isinstance(value, dict) and len(value) == 1 and isinstance(next(iter(value.values())), (dict, list)) \
                    and next(iter(value)) in ("input", "args", "arguments", "input_args"):
                value = next(iter(value.values()))
            if not isinstance(value, (dict, list)):
                problems.append(f"not_arguments: {repr(value)[:200]}")
                continue
            inputs.append(json.dumps(value, ensure_ascii=False))
        else:
            try:
                inputs.append(as_stdin(value))
            except ParseError as exc:
                problems.append(f"{exc.reason}: {exc.detail[:200]}")
    return inputs, problems


# --------------------------------------------------------------------------- states

_STATE_MARKERS = re.compile(r"(?:output\s+state|postcondition|precondition|state|functionality)\s*:", re.I)


def read_state(text: str) -> str:
    """The state description an answer ends with: what follows its last
    ``Output State:`` (or ``Precondition:``) marker, else its last paragraph; "" when
    the answer is empty."""
    clean = _unthink(text).replace("**", "").strip()
    marks = list(_STATE_MARKERS.finditer(clean))
    if marks:
        state = clean[marks[-1].end():]
    else:
        paragraphs = [p for p in re.split(r"\n\s*\n", clean) if p.strip()]
        state = paragraphs[-1] if paragraphs else ""
    return " ".join(state.split())[:STATE_CAP]

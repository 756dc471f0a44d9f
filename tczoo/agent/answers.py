"""Reading an agent's answers: programs, command lists, edits, probe inputs, scenarios.

An answer is text a model wrote, so every reader salvages what it can and raises
``ParseError`` (with a reason a suite records) when nothing usable is there. The forms
accepted, beside the ones the built-in prompts ask for:

- a **program**: a fenced Python block (or bare Python, or a JSON string) defining the
  function the step needs (``generate``, ``validate_input``, ``check_output``);
- **commands**: one argument line per line in a fenced block labelled ``commands`` (or a
  bucket's name, ``small``, ``random`` ...), or a JSON list under ``commands`` /
  ``command_list`` / ``add_commands``; a line may name its bucket (``small: n=3``);
  lines drop a leading ``./gen``; blank lines and ``#`` comments are skipped;
- **removals**: the same, in a block labelled ``remove`` (or JSON ``remove_commands`` /
  ``replace_command_list``);
- **edits**: ``<<<<<<< SEARCH`` / ``=======`` / ``>>>>>>> REPLACE`` blocks applied to the
  current program in order (CodeContests-O's search/replace form); an edit whose search
  text is not in the program is left out and reported;
- **probes**: ``{"valid": [...], "invalid": [...]}`` (AutoCode's valid and near-valid
  inputs; an invalid item may be ``{"input": ..., "why": ...}``);
- **scenarios**: ``[{"input": ..., "output": ..., "correct": true|false}, ...]``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tczoo.parsing import ParseError, as_stdin, code_blocks, extract_function, parse_json

COMMAND_KEYS = ("commands", "command_list", "add_commands", "add_command_list", "new_commands")
REMOVE_KEYS = ("remove", "remove_commands", "replace_command_list", "replace_commands", "drop_commands")
_EDIT = re.compile(r"<{5,9} ?SEARCH[ \t]*\n(.*?)\n?={5,9}[ \t]*\n(.*?)\n?>{5,9} ?REPLACE", re.S)
_GEN_PREFIX = re.compile(r"^(?:\./gen\b|gen\b|python3? +gen\w*\.py\b)\s*")


def program_in(text: str, function: str) -> str:
    """The Python program in ``text`` that defines ``function`` (``ParseError`` if none)."""
    return extract_function(text, (function,))


def has_program(text: str, function: str) -> bool:
    try:
        program_in(text, function)
        return True
    except ParseError:
        return False


@dataclass
class Commands:
    """Command lines by bucket, in the order given (``""``: the only bucket)."""

    lines: list[tuple[str, str]] = field(default_factory=list)  # (bucket, argument line)

    def texts(self) -> list[str]:
        return [command_text(b, line) for b, line in self.lines]


def command_text(bucket: str, line: str) -> str:
    return f"{bucket}: {line}" if bucket else line


def split_command(text: str, buckets: tuple[str, ...]) -> tuple[str, str]:
    """(bucket, argument line) of a stored command ``"small: n=3"`` or ``"n=3"``."""
    head, sep, rest = text.partition(":")
    if sep and head.strip().lower() in buckets and head.strip():
        return head.strip().lower(), rest.strip()
    return (buckets[0] if len(buckets) == 1 else ""), text.strip()


def commands_in(text: str, buckets: tuple[str, ...] = ("",), *, labels: tuple[str, ...] = ("commands",),
                keys: tuple[str, ...] = COMMAND_KEYS) -> Commands:
    """Command lines in an answer (see the module doc). Lines of a ``commands`` block
    without a bucket prefix go to the first bucket."""
    out = Commands()
    named = {b for b in buckets if b}
    for block in code_blocks(text):
        lang = block.lang.lower()
        if lang in labels:
            for line in _lines(block.code):
                out.lines.append(split_command(line, buckets) if named else ("", line))
        elif lang in named and "commands" in labels:
            out.lines += [(lang, line) for line in _lines(block.code)]
    if out.lines:
        return out
    try:
        data = parse_json(text)
    except ParseError:
        return out
    if not isinstance(data, dict):
        return out
    for key in keys:
        value = data.get(key)
        if isinstance(value, list):
            for item in value:
                if isinstance(item, str) and _clean(item):
                    out.lines.append(split_command(_clean(item), buckets) if named else ("", _clean(item)))
        elif isinstance(value, dict) and named:
            for bucket, items in value.items():
                b = str(bucket).strip().lower()
                if b in named and isinstance(items, list):
                    out.lines += [(b, _clean(i)) for i in items if isinstance(i, str) and _clean(i)]
        if out.lines:
            break
    return out


def removals_in(text: str, buckets: tuple[str, ...] = ("",)) -> Commands:
    return commands_in(text, buckets, labels=("remove", "removed", "drop"), keys=REMOVE_KEYS)


def _clean(line: str) -> str:
    line = line.strip().strip("`").strip()
    if line.startswith(("- ", "* ")):
        line = line[2:].strip()
    return _GEN_PREFIX.sub("", line).strip()


def _lines(code: str) -> list[str]:
    out = []
    for raw in code.splitlines():
        line = _clean(raw)
        if line and not line.startswith("#"):
            out.append(line)
    return out


def edits_in(text: str) -> list[tuple[str, str]]:
    """(search, replace) pairs of the answer's search/replace blocks, in order."""
    return [(m.group(1), m.group(2)) for m in _EDIT.finditer(text)]


def apply_edits(code: str, edits: list[tuple[str, str]]) -> tuple[str, list[str]]:
    """``code`` with each edit applied once, in order; the search texts not found (as
    given, then with trailing whitespace per line ignored) come back unapplied."""
    unmatched = []
    for search, replace in edits:
        if search and search in code:
            code = code.replace(search, replace, 1)
            continue
        loose = "\n".join(line.rstrip() for line in search.splitlines())
        flat = "\n".join(line.rstrip() for line in code.splitlines())
        if loose and loose in flat:
            code = flat.replace(loose, replace, 1) + ("\n" if code.endswith("\n") else "")
            continue
        unmatched.append(search)
    return code, unmatched


def probes_in(text: str) -> tuple[list[str], list[str]]:
    """(valid inputs, invalid inputs) of a probes answer."""
    try:
        data = parse_json(text)
    except ParseError as exc:
        raise ParseError(exc.reason, exc.detail) from None
    if not isinstance(data, dict):
        raise ParseError("not_an_object", "the probes answer is not an object with valid and invalid inputs")

    def inputs(key: str) -> list[str]:
        value = next((data[k] for k in data if str(k).lower().startswith(key)), [])
        out = []
        for item in value if isinstance(value, list) else []:
            if isinstance(item, dict):
                item = item.get("input", item.get("text"))
            if item is None:
                continue
            try:
                out.append(as_stdin(item))
            except ParseError:
                continue
        return out

    valid, invalid = inputs("valid"), inputs("invalid") or inputs("illegal") or inputs("near")
    if not valid and not invalid:
        raise ParseError("no_probes", "the answer lists no valid and no invalid input")
    return valid, invalid


@dataclass
class Scenario:
    input: str
    output: str
    correct: bool


def scenarios_in(text: str) -> list[Scenario]:
    """The labelled (input, output) scenarios of a checker-scenarios answer."""
    data = parse_json(text)
    if isinstance(data, dict):
        data = next((v for v in data.values() if isinstance(v, list)), None)
    if not isinstance(data, list):
        raise ParseError("not_a_list", "the scenarios answer is not a list")
    out = []
    for item in data:
        if not isinstance(item, dict) or "input" not in item or "output" not in item:
            continue
        verdict = item.get("correct", item.get("accept", item.get("expected_verdict")))
        if isinstance(verdict, str):
            verdict = verdict.strip().lower() in ("true", "yes", "accept", "accepted", "ac", "correct", "ok")
        if not isinstance(verdict, bool):
            continue
        try:
            out.append(Scenario(input=as_stdin(item["input"]), output=as_stdin(item["output"]), correct=verdict))
        except ParseError:
            continue
    if not out:
        raise ParseError("no_scenarios", "no scenario with an input, an output and a verdict")
    return out

"""Constraint extraction (STAB §3.1): statement text -> typed constraint records.

The paper's parser is a set of regular expressions over the statement. Ours works in
stages, each form handled in exactly one place:

1. *sections* (:func:`split_sections`): the Input/Constraints text is read; Output,
   Examples and Notes never are (their comparators are not input limits). Markdown,
   plain and LaTeX headers (``\\section*{Input}``, ``\\begin{Output}``) are known;
2. *sentences* (:func:`split_sentences`): one formula broken over lines
   (``$0 \\le t, c,`` / ``o, d, i \\le 10$``) and wrapped prose are joined back;
3. *normalise* (:mod:`.normalize`): LaTeX, Unicode, ASCII, number spellings and
   comparator words become one canonical text;
4. *chains* (:mod:`.chains`): one tokeniser and a left-to-right scan for comparator
   chains whose terms may be formulas; each becomes records (:mod:`.records`).

Trust comes from refusing rather than guessing: every sentence with a comparator
that produced no record (or left one unexplained) is reported in
:attr:`ParseResult.unparsed` with the reason. Sentences that are recognisably not
input constraints (subtask limits, "print ..." rules, index ranges such as
``1 ≤ i ≤ n``, legend formulas) go to :attr:`ParseResult.ignored`.

Every stage is linear in the text (``bench/stab_parser.py`` measures it on generated
worst cases for each pattern; ``tests/methods/test_stab_attacks.py`` checks results).
"""

from __future__ import annotations

import re
from typing import Literal

from .chains import Pending, parse_sentence
from .records import (  # re-exported: the records are this module's API
    Bound,
    Chain,
    Constraint,
    IndexedRange,
    Monomial,
    NotEqual,
    ParseResult,
    Poly,
    ProductBound,
    Relation,
    ScalarRange,
    Skipped,
    StringLength,
    SumBound,
    SumOver,
    _Record,
    base_name,
    is_indexed,
    is_length,
)
from .normalize import normalize

__all__ = [
    "Bound", "Chain", "Constraint", "IndexedRange", "Monomial", "NotEqual", "ParseResult", "Poly",
    "ProductBound", "Relation", "ScalarRange", "Skipped", "StringLength", "SumBound", "SumOver",
    "base_name", "expand_macros", "input_part", "is_indexed", "is_length", "normalize", "parse_constraints",
    "parse_sentence", "split_sections", "split_sentences",
]

_I = re.IGNORECASE

# --------------------------------------------------------------------------- sections

# A header line: markdown (``## Input``), plain (``Input:``), or LaTeX
# (``\section*{Input}``, ``\begin{Input}``); ``\end{...}`` closes an environment.
_LATEX_HEAD = re.compile(r"\\(?:(?:sub)*section\*?|paragraph\*?|begin|textbf)\s?\{([^{}]{1,60})\}\s?:?", _I)
_LATEX_END = re.compile(r"\\end\s?\{([^{}]{1,60})\}", _I)

_SKIP_SECTION = re.compile(
    r"(?:#+\s?)?(?:output(?:\s+format)?|outputs?|examples?|samples?|sample\s+(?:input|output|test)s?(?:\s*\d+)?|"
    r"(?:input|output)\s+example(?:\s*\d+)?|example\s+(?:input|output)(?:\s*\d+)?|notes?|explanations?|"
    r"hints?|tutorial|editorial|standard\s+output|interaction|aftersample|figure)\s?:?", _I)
_TERMINAL_SECTION = re.compile(r"(?:#+\s?)?(?:examples?|samples?|sample\s.{0,40}|notes?|explanations?|"
                               r"hints?|tutorial|editorial|(?:input|output)\s+example.{0,20}|example\s.{0,40}|"
                               r"aftersample)\s?:?", _I)
_INPUT_SECTION = re.compile(
    r"(?:#+\s?)?(?:input(?:\s+format)?|inputs?|constraints?|limits|standard\s+input)\s?:?", _I)
_LEGEND_SECTION = re.compile(r"(?:#+\s?)?(?:problem(?:\s+statement)?|statement|legend|description)\s?:?", _I)


def _header(line: str) -> str | None:
    """The section name a line announces (lower-case), or None for an ordinary line."""
    head = line.strip()
    if len(head) > 80:
        return None
    latex = _LATEX_HEAD.fullmatch(head)
    if latex:
        head = latex.group(1)
    else:
        end = _LATEX_END.fullmatch(head)
        if end:  # \end{Input} closes the input; \end{itemize} closes nothing that matters
            return "end" if _INPUT_SECTION.fullmatch(end.group(1)) else None
    if _TERMINAL_SECTION.fullmatch(head):
        return "terminal"
    if _SKIP_SECTION.fullmatch(head):
        return "skip"
    if _INPUT_SECTION.fullmatch(head):
        return "constraints" if re.match(r"(?:#+\s?)?(?:constraints?|limits)", head, _I) else "input"
    if _LEGEND_SECTION.fullmatch(head):
        return "legend"
    return None


def split_sections(text: str) -> tuple[str, str]:
    """``(input, legend)``: the text whose constraints bound the input, and the legend.

    Section headers are lines of their own (``Input``, ``## Constraints``, ``Output``,
    ``Examples``, ``Sample Input 1``, ``Note``, ``\\section*{Input}``,
    ``\\begin{Output}``). Output, example and note sections are dropped: their
    comparators are not input limits. Once examples or notes start, only a
    ``Constraints`` header re-enables parsing (an ``Input`` header there introduces
    sample data). When the text has an Input or Constraints section, the legend before
    it is returned separately (formal definitions such as "pairs (l, r) with
    1 ≤ l ≤ r ≤ n" live there); otherwise the legend is the input. ``\\end{Input}``
    ends the input section.
    """
    parts: dict[str, list[str]] = {"input": [], "legend": []}
    mode = "legend"
    seen_input = False
    for line in text.splitlines():
        kind = _header(line)
        if kind == "terminal":
            mode = "terminal"
        elif kind == "skip":
            mode = "skip" if mode != "terminal" else mode
        elif kind in ("input", "constraints"):
            if mode != "terminal" or kind == "constraints":
                mode, seen_input = "input", True
        elif kind == "legend":
            mode = "legend" if mode != "terminal" else mode
        elif kind == "end":
            mode = "skip" if mode == "input" else mode
        elif mode in parts:
            parts[mode].append(line)
    if not seen_input:
        return "\n".join(parts["legend"]), ""
    return "\n".join(parts["input"]), "\n".join(parts["legend"])


_NEWCOMMAND = re.compile(r"\\(?:re)?newcommand\s?\{?\\([A-Za-z]{1,30})\}?\s?\{([^{}\n]{0,200})\}")
_MAX_MACROS = 50


def expand_macros(text: str) -> str:
    """Expand a LaTeX statement's own argument-free macros (``\\newcommand{\\maxn}{500}``),
    one pass, at most 50 of them (each a linear substitution), so that ``n \\le \\maxn``
    reads as the bound it is. Macros with arguments are left alone."""
    if "newcommand" not in text:
        return text
    macros = {name: body for name, body in _NEWCOMMAND.findall(text)[:_MAX_MACROS]}
    text = _NEWCOMMAND.sub("", text)
    for name, body in macros.items():
        text = re.sub(r"\\" + name + r"(?![A-Za-z])(?:\{\})?", lambda _m, body=body: body, text)
    return text


def input_part(text: str) -> str:
    """The text :func:`parse_constraints` reads by default (see :func:`split_sections`)."""
    return split_sections(text)[0]


# A line whose formula stops at an operator goes on in the next line ("$1 \le n \le$").
_ENDS_IN_OPERATOR = re.compile(r"(?:[+*=≤≥<>]|\\(?:le|leq|ge|geq|lt|gt|cdot|times|ne|neq))\s?\$?$")
_BULLET = re.compile(r"^\s*(?:[-*•·]|\d{1,2}[.)]|\\item\b)\s?")
_CONTINUES = re.compile(r"(?:and|or|but|nor)\b")


def split_sentences(text: str) -> list[str]:
    """Sentences and list items; a line that continues a sentence or a formula is joined."""
    lines: list[list[str]] = []  # pieces of each logical line (joined once, at the end)
    open_math = False
    dollars = 0  # "$" signs in the current logical line so far
    for raw in text.splitlines():
        line = _BULLET.sub("", raw, count=1).strip() if not open_math else raw.strip()
        if not line:
            if not open_math:
                lines.append([])
            continue
        previous = lines[-1][-1].rstrip() if lines and lines[-1] else ""
        joins = bool(previous) and (
            open_math
            or _ENDS_IN_OPERATOR.search(previous) is not None
            or _CONTINUES.match(line) and not previous.endswith((".", ";", ":"))
            or (previous[-1].isalpha() or previous[-1] == ",") and re.match(r"[a-z]{2,}\b|\(", line)
            or previous.endswith(",") and re.match(r"\$?\s?[A-Za-z](?:_\w+)?\s?(?:,|\$|\\le|≤|<)", line)
        )
        if joins:
            lines[-1].append(line)
            dollars += line.count("$")
        else:
            lines.append([line])
            dollars = line.count("$")
        open_math = dollars % 2 == 1  # the logical line so far ends inside a $..$ formula
    out: list[str] = []
    for pieces in lines:
        if not pieces:
            continue
        line = " ".join(pieces)
        # "!" glued to a word or ")" is a factorial ("n! ≤ 10^6"), not a sentence end.
        for piece in re.split(r"(?<![.\d])[.;](?=\s|$)|(?<![\w)])[!?](?=\s|$)|(?<=\d)\.(?=\s+[A-Z$]|$)", line):
            if piece.strip():
                out.append(piece.strip())
    return out


# --------------------------------------------------------------------------- whole statements

_COUNT_TEXT = re.compile(r"number\s+of\s+(?:test\s*cases|tests|testcases|queries|input\s+sets|data\s+sets|scenarios)", _I)


def parse_constraints(text: str, *, sections: Literal["input", "all"] = "input") -> ParseResult:
    """Parse a statement (or any text) into constraint records.

    ``sections="input"`` reads only the Input/Constraints sections when the text has
    them (see :func:`split_sections`); legend sentences that look like constraints are
    listed in ``ignored``. Text without headers is parsed whole either way; Output,
    Examples and Notes sections are never read.
    """
    result = ParseResult()
    input_text, legend = split_sections(expand_macros(text))
    if sections == "input":
        text = input_text
        for sentence in split_sentences(legend):
            got, unparsed, _ = parse_sentence(sentence)
            if got or unparsed:  # looked like a constraint: say why it is not used
                result.ignored.append(Skipped(text=sentence, reason="in the legend, outside the Input/Constraints sections"))
    else:
        text = "\n".join(part for part in (legend, input_text) if part)
    pending: list[Pending] = []
    records: list[_Record] = []
    for sentence in split_sentences(text):
        got, unparsed, ignored = parse_sentence(sentence)
        for record in got:
            (pending if isinstance(record, Pending) else records).append(record)
        if unparsed:
            result.unparsed.append(unparsed)
        if ignored:
            result.ignored.append(ignored)
    records += _resolve_sums(pending, records)
    result.constraints = _dedupe(records)
    return result


def _resolve_sums(pending: list[Pending], records: list[_Record]) -> list[_Record]:
    """Decide, with the whole statement in view, what each ∑ ranges over."""
    scalars = {r.var for r in records if isinstance(r, ScalarRange)}
    scalars |= {v for r in records if isinstance(r, Chain) for v in r.variables() if not is_indexed(v)}
    count_var = next((r.var for r in records if isinstance(r, ScalarRange) and _COUNT_TEXT.search(r.text)), None)
    if count_var is None:
        count_var = next((v for v in ("t", "T") if v in scalars), None)
    lengths = {r.var: r.length_var for r in records if isinstance(r, IndexedRange) and r.length_var}
    out: list[_Record] = []
    for item in pending:
        atoms, op = item.term.atoms, item.term.op
        if item.term.limit and item.term.limit == count_var or all(not a.indexed for a in atoms):
            over_tests = True
        else:
            over_tests = all(a.indexed and a.base in scalars and a.base != count_var for a in atoms)
        if over_tests:
            keys = [("|" + a.base + "|" if a.length else a.base) if a.indexed else a.key for a in atoms]
            out.append(SumOver(over="test_cases", vars=keys, op=op, upper=item.upper,
                               count_var=count_var, text=item.text))
        else:
            keys = [a.key for a in atoms]
            count = item.term.limit or next((lengths[k] for k in keys if k in lengths), None)
            out.append(SumOver(over="elements", vars=keys, op=op, upper=item.upper,
                               count_var=count, text=item.text))
    return out


def _dedupe(records: list[_Record]) -> list[_Record]:
    seen: set[str] = set()
    out = []
    for record in records:
        key = record.model_dump_json(exclude={"text"})
        if key not in seen:
            seen.add(key)
            out.append(record)
    return out

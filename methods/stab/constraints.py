"""Constraint extraction (STAB §3.1): statement text -> typed constraint records.

The paper's parser is a set of regular expressions over the statement. Ours works in
three regex-driven stages so that every form is handled in exactly one place:

1. *normalise* a sentence: LaTeX (``$..$``, ``\\le``, ``\\cdot``, ``\\,``, ``\\{``),
   Unicode (``≤ ⋅ · × ⁵``), ASCII (``<=``) and number spellings become one canonical
   text; comparator words ("at most", "does not exceed", "between 1 and 10^5
   inclusive"), lengths ("the length of s") and aggregate sums ("the sum of n over all
   test cases") are rewritten into symbols (``≤``, ``|s|``, ``∑(n)``);
2. *tokenise* it with one regex (numbers, identifiers with subscripts, comparators...);
3. *parse comparator chains* ``term (cmp term)+`` and turn each into records.

Trust comes from refusing rather than guessing: a chain whose neighbours show it is
part of a larger formula (``2n ≤ ...``, ``m ≤ n(n-1)/2``, ``a_1 = 3 < ...``) yields no
record, and every sentence with a comparator that produced no record (or left a
comparator unexplained) is reported in :attr:`ParseResult.unparsed`. Sentences that
are recognisably not input constraints (subtask limits, "if ... print" rules, index
ranges such as ``1 ≤ i ≤ n``) go to :attr:`ParseResult.ignored`, with the reason.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Annotated, Literal, Union

from pydantic import Field

from tczoo.schema import Model

from .numbers import ATOM, evaluate, normalize_numbers

Bound = int | None

# --------------------------------------------------------------------------- records


class _Record(Model):
    text: str = ""  # the source sentence, so every record can be traced back

    def variables(self) -> list[str]:
        raise NotImplementedError

    def render(self) -> str:
        raise NotImplementedError


def _range_text(var: str, lower: Bound, upper: Bound) -> str:
    parts = ([f"{lower} ≤"] if lower is not None else []) + [var]
    return " ".join(parts + ([f"≤ {upper}"] if upper is not None else []))


class ScalarRange(_Record):
    """``1 ≤ n ≤ 10^5`` (bounds inclusive; strict comparators are already adjusted)."""

    kind: Literal["scalar_range"] = "scalar_range"
    var: str
    lower: Bound = None
    upper: Bound = None

    def variables(self) -> list[str]:
        return [self.var]

    def render(self) -> str:
        return _range_text(self.var, self.lower, self.upper)


class IndexedRange(_Record):
    """``1 ≤ a_i ≤ 10^9``: every element of an indexed family.

    ``var`` is canonical (``a_i``, ``a_{i,j}``) whatever index letters the statement
    used. ``order`` records sortedness stated as ``a_1 ≤ a_2 ≤ ... ≤ a_n``;
    ``length_var`` is the count when the statement wrote ``a_1, ..., a_n``.
    """

    kind: Literal["indexed_range"] = "indexed_range"
    var: str
    lower: Bound = None
    upper: Bound = None
    order: Literal["non-decreasing", "increasing"] | None = None
    length_var: str | None = None

    def variables(self) -> list[str]:
        return [self.var]

    def render(self) -> str:
        text = _range_text(self.var, self.lower, self.upper)
        return text + (f" ({self.order})" if self.order else "")


class StringLength(_Record):
    """``1 ≤ |s| ≤ 2·10^5`` or "the length of s is at most 10^5"; ``var`` is ``|s|``."""

    kind: Literal["string_length"] = "string_length"
    var: str
    lower: Bound = None
    upper: Bound = None

    def variables(self) -> list[str]:
        return [self.var]

    def render(self) -> str:
        return _range_text(self.var, self.lower, self.upper)


class Chain(_Record):
    """``1 ≤ l ≤ r ≤ n``: ascending terms (variables or integers).

    ``strict[k]`` tells whether ``terms[k] < terms[k+1]`` (else ``≤``).
    """

    kind: Literal["chain"] = "chain"
    terms: list[int | str]
    strict: list[bool]

    def variables(self) -> list[str]:
        return [t for t in self.terms if isinstance(t, str)]

    def render(self) -> str:
        out = [str(self.terms[0])]
        for term, strict in zip(self.terms[1:], self.strict):
            out += ["<" if strict else "≤", str(term)]
        return " ".join(out)


class ProductBound(_Record):
    """``n·m ≤ 10^6``."""

    kind: Literal["product"] = "product"
    vars: list[str]
    lower: Bound = None
    upper: Bound = None

    def variables(self) -> list[str]:
        return list(self.vars)

    def render(self) -> str:
        return _range_text("·".join(self.vars), self.lower, self.upper)


class SumBound(_Record):
    """``n + m ≤ 2·10^5``."""

    kind: Literal["sum"] = "sum"
    vars: list[str]
    lower: Bound = None
    upper: Bound = None

    def variables(self) -> list[str]:
        return list(self.vars)

    def render(self) -> str:
        return _range_text(" + ".join(self.vars), self.lower, self.upper)


class SumOver(_Record):
    """An aggregate bound: Σ over test cases (``over="test_cases"``) or over elements.

    ``vars`` combined with ``op`` is the summed expression: ``["n"]`` for "the sum of
    n over all test cases", ``["n", "m"]`` with ``"*"`` for Σ n·m. ``count_var`` is
    how many terms the sum has: the number-of-tests variable (``t``) for test cases,
    the length (``n``) for ``∑_{i=1}^{n} a_i``; None when the statement does not say.
    """

    kind: Literal["sum_over"] = "sum_over"
    over: Literal["test_cases", "elements"]
    vars: list[str]
    op: Literal["+", "*"] = "+"
    upper: int
    count_var: str | None = None

    def variables(self) -> list[str]:
        return list(self.vars) + ([self.count_var] if self.count_var else [])

    def render(self) -> str:
        expr = f" {self.op} ".join(self.vars) if self.op == "+" else "·".join(self.vars)
        where = "over test cases" if self.over == "test_cases" else "over elements"
        count = f", {self.count_var} terms" if self.count_var else ""
        return f"∑({expr}) ≤ {self.upper} ({where}{count})"


class NotEqual(_Record):
    """``u_i ≠ v_i``."""

    kind: Literal["not_equal"] = "not_equal"
    vars: list[str]

    def variables(self) -> list[str]:
        return list(self.vars)

    def render(self) -> str:
        return " ≠ ".join(self.vars)


Constraint = Annotated[
    Union[ScalarRange, IndexedRange, StringLength, Chain, ProductBound, SumBound, SumOver, NotEqual],
    Field(discriminator="kind"),
]


class Skipped(Model):
    """A sentence the parser did not turn into records, and why."""

    text: str
    reason: str


class ParseResult(Model):
    constraints: list[Constraint] = Field(default_factory=list)
    unparsed: list[Skipped] = Field(default_factory=list)  # looked like a constraint; no record
    ignored: list[Skipped] = Field(default_factory=list)  # recognised as not an input constraint

    def variables(self) -> list[str]:
        """Every variable, in order of first appearance."""
        seen: dict[str, None] = {}
        for record in self.constraints:
            for var in record.variables():
                seen.setdefault(var, None)
        return list(seen)


# --------------------------------------------------------------------------- keys


def is_indexed(key: str) -> bool:
    """``a_i`` / ``a_{i,j}`` / ``|s_i|``: a family of values, not one value."""
    return bool(re.search(r"_(?:i|\{i(?:,[jkl])+\})\|?$", key))


def is_length(key: str) -> bool:
    return key.startswith("|")


def base_name(key: str) -> str:
    return key.strip("|").split("_", 1)[0]


# --------------------------------------------------------------------------- normalise

_LATEX_SUBS: list[tuple[str, str]] = [
    (r"\$\s+\$", " ; "),  # "$a$ $b$": two formulas side by side are two statements
    (r"\$+|\\[()\[\]]", " "),
    (r"\\(?:displaystyle|limits|nolimits|left|right|big|Big|bigg|Bigg)(?![A-Za-z])", ""),
    (r"\\(?:text|textrm|textit|textbf|textsf|texttt|mathrm|mathit|mathbf|mathsf|mathtt|"
     r"operatorname|mbox|emph|boldsymbol)\s*\{([^{}]*)\}", r"\1"),
    (r"\\(?:ldots|cdots|dots|dotsc|dotsb|dotsm|vdots)(?![A-Za-z])", "..."),
    (r"\\(?:leqslant|leqq|leq|le)(?![A-Za-z])", "≤"),
    (r"\\(?:geqslant|geqq|geq|ge)(?![A-Za-z])", "≥"),
    (r"\\lt(?![A-Za-z])", "<"),
    (r"\\gt(?![A-Za-z])", ">"),
    (r"\\(?:neq|ne)(?![A-Za-z])", "≠"),
    (r"\\in(?![A-Za-z])", "∈"),
    (r"\\(?:cdot|times|ast)(?![A-Za-z])", "*"),
    (r"\\(?:lvert|rvert|vert|mid)(?![A-Za-z])|\\\|", "|"),
    (r"\\(?:lbrace|\{)", "⦃"),
    (r"\\(?:rbrace|\})", "⦄"),
    (r"\\(?:sum)(?![A-Za-z])", "∑"),
    (r"\\[,;:! ]|~", " "),  # thin spaces; digit groups are glued later
    (r"\\([A-Za-z]+)", r" \1 "),  # \max, \log ... become words
    (r"\\.", " "),
]
_CHAR_SUBS = {
    "≦": "≤", "⩽": "≤", "≧": "≥", "⩾": "≥", "−": "-", "∗": "*", "·": "*", "⋅": "*",
    "×": "*", "∙": "*", "✕": "*", "…": "...", "Σ": "∑", "\u00a0": " ", "\u2009": " ",
    "\u202f": " ", "\u200a": " ", "\u2002": " ", "\u2003": " ",
}
_ASCII_SUBS = [("<=>", "⇔"), ("<=", "≤"), (">=", "≥"), ("=<", "≤"), ("!=", "≠"), ("=>", "⇒"),
               ("->", "→"), ("<-", "←"), ("<<", "≪"), (">>", "≫"), ("==", "=")]


def _strip_group_braces(text: str) -> str:
    """Drop ``{ }`` used for grouping; keep those of sub/superscripts (``a_{i,j}``)."""
    out: list[str] = []
    keep: list[bool] = []
    for index, char in enumerate(text):
        if char == "{":
            kept = index > 0 and text[index - 1] in "_^"
            keep.append(kept)
            if kept:
                out.append(char)
        elif char == "}":
            if keep and keep.pop():
                out.append(char)
        else:
            out.append(char)
    return "".join(out)


def normalize(sentence: str) -> str:
    """Canonical text of a sentence: symbols instead of LaTeX, Unicode, ASCII, words."""
    text = sentence
    for pattern, repl in _LATEX_SUBS:
        text = re.sub(pattern, repl, text)
    text = "".join(_CHAR_SUBS.get(c, c) for c in text)
    for old, new in _ASCII_SUBS:
        text = text.replace(old, new)
    text = re.sub(r"\.\s\.\s\.", "...", text)
    text = normalize_numbers(text)
    text = _strip_group_braces(text)
    text = re.sub(r"\s+", " ", text).strip()
    return _rewrite_words(text)


# A variable as it appears in prose: a letter with an optional subscript.
_VAR = r"(?<![A-Za-z0-9_])[A-Za-z](?:_(?:\{[^{}]{1,20}\}|[A-Za-z0-9]+))?(?![A-Za-z0-9])"
_BOUND = r"(?:-?\s*\d[\d^*.eE+\-]*|" + _VAR + r")"
_I = re.IGNORECASE

_LE_WORDS = (
    r"less\s+than\s+or\s+equal\s+to|(?:not|no)\s+(?:greater|more|larger|bigger)\s+than|"
    r"at\s+most|(?:does|do|did|will|must|should|shall|can|would)\s*(?:not|n't)\s+exceed|"
    r"cannot\s+exceed|not\s+exceeding|not\s+exceed|never\s+exceeds?|up\s+to(?=\s*-?\d)"
)
_GE_WORDS = (
    r"greater\s+than\s+or\s+equal\s+to|(?:not|no)\s+(?:less|smaller|fewer)\s+than|at\s+least"
)
_LT_WORDS = r"(?:strictly\s+)?(?:less|smaller)\s+than"
_GT_WORDS = r"(?:strictly\s+)?(?:greater|larger|bigger)\s+than|exceeds"
_COPULA = r"(?:(?:is|are|will\s+be|must\s+be|should\s+be|can\s+be|be)\s+)?"
_TESTS = (
    r"(?:test\s*cases?|tests?|testcases|queries|input\s+sets|sets\s+of\s+input\s+data|"
    r"data\s+sets|scenarios)"
)


def _rewrite_words(text: str) -> str:
    # Aggregates first: their phrases contain words the comparator rules would eat.
    over_tests = (
        r"\b(?:the\s+)?(?:total\s+)?sum\s+of\s+(?:all\s+)?(?:the\s+)?(?:values?\s+(?:of\s+)?)?"
        r"(?P<x>[^,;]{1,40}?)\s+(?:over|for|in|across|among|of)\s+(?:all\s+|each\s+|every\s+)?"
        r"(?:the\s+)?(?:given\s+)?" + _TESTS +
        r"\b(?:\s+in\s+(?:one|a\s+single|the|each)\s+(?:test|input)(?:\s+file)?)?"
        r"(?:\s+(?:given\s+)?in\s+the\s+input)?"
    )
    two_sums = (
        r"\b(?:the\s+)?sums?\s+of\s+(" + _VAR + r")\s+and\s+(?:the\s+sum\s+of\s+)?(" + _VAR
        + r")\s+over\s+all\s+(?:the\s+)?" + _TESTS + r"\b"
    )
    text = re.sub(two_sums, r"∑(\1), ∑(\2)", text, flags=_I)
    text = re.sub(over_tests, lambda m: f"∑({m['x'].strip()})", text, flags=_I)
    text = re.sub(
        r"\b(?:the\s+)?(?:total|summary|summarized|combined|overall)\s+lengths?\s+of\s+"
        r"(?:all\s+)?(?:the\s+)?(?:given\s+)?(?:strings?\s+)?(" + _VAR + ")",
        r"∑|\1|", text, flags=_I)
    text = re.sub(r"\b(?:the\s+)?(?:total\s+)?sum\s+of\s+(?:all\s+)?(?:the\s+)?"
                  r"(?:values\s+(?:of\s+)?)?(?=[A-Za-z|(])", "∑ ", text, flags=_I)
    # Comparator words.
    text = re.sub(r"\b" + _COPULA + r"(?:" + _LE_WORDS + r")\b", " ≤ ", text, flags=_I)
    text = re.sub(r"\b" + _COPULA + r"(?:" + _GE_WORDS + r")\b", " ≥ ", text, flags=_I)
    text = re.sub(r"\b" + _COPULA + r"(?:" + _LT_WORDS + r")\b", " < ", text, flags=_I)
    text = re.sub(r"\b" + _COPULA + r"(?:" + _GT_WORDS + r")\b", " > ", text, flags=_I)
    text = re.sub(r"\b(?:is|are|will\s+be|must\s+be|should\s+be|can\s+be|be)\s+(?=[≤≥<>≠∈])",
                  "", text, flags=_I)
    # "n is at least 1 and at most 10^5" -> "n ≥ 1, n ≤ 10^5"
    text = re.sub(
        r"(?P<x>\|?" + _VAR + r"\|?)\s*(?P<c1>[≤≥<>])\s*(?P<a>" + _BOUND + r")\s*,?\s*(?:and|but)\s*(?P<c2>[≤≥<>])",
        lambda m: f"{m['x']} {m['c1']} {m['a']}, {m['x']} {m['c2']}", text, flags=_I)
    # "k ≤ min(n, 100)" is two upper bounds; anything fancier inside min stays unparsed.
    text = re.sub(
        r"(?P<x>\|?" + _VAR + r"\|?)\s*(?P<c>[≤<])\s*min\s*\(\s*(?P<a>" + _BOUND + r")\s*,\s*(?P<b>" + _BOUND + r")\s*\)",
        lambda m: f"{m['x']} {m['c']} {m['a']}, {m['x']} {m['c']} {m['b']}", text, flags=_I)
    # Ranges in words and as intervals or sets.
    text = re.sub(
        r"(?P<x>\|?" + _VAR + r"\|?)\s+(?:(?:is|are|lies|lie)\s+)?(?:between|from)\s+"
        r"(?P<a>" + _BOUND + r")\s+(?:and|to)\s+(?P<b>" + _BOUND + r")"
        r"(?:\s*,?\s*\(?(?:both\s+)?inclusive(?:ly)?\)?)?",
        # "a road of length w between u and v" is prose, not a range: a range in words
        # has at least one numeric end ("between 1 and n").
        lambda m: f"{m['a']} ≤ {m['x']} ≤ {m['b']}" if re.search(r"\d", m["a"] + m["b"]) else m[0],
        text, flags=_I)
    text = re.sub(
        r"(?P<x>\|?" + _VAR + r"\|?)\s*(?:∈|(?:(?:is|are|lies|lie)\s+)?in\s+the\s+(?:range|interval|segment))"
        r"\s*\[\s*(?P<a>" + _BOUND + r")\s*[,;]\s*(?P<b>" + _BOUND + r")\s*\]",
        lambda m: f"{m['a']} ≤ {m['x']} ≤ {m['b']}", text, flags=_I)
    text = re.sub(
        r"(?P<x>\|?" + _VAR + r"\|?)\s*∈\s*⦃\s*(?P<a>" + _BOUND + r")\s*,(?:\s*" + _BOUND +
        r"\s*,)*\s*\.\.\.\s*,\s*(?P<b>" + _BOUND + r")\s*⦄",
        lambda m: f"{m['a']} ≤ {m['x']} ≤ {m['b']}", text, flags=_I)
    # Lengths.
    text = re.sub(
        r"\b(?:the\s+)?lengths\s+of\s+(?:the\s+)?(?:strings\s+)?(" + _VAR + r")\s+and\s+(" + _VAR + ")",
        r"|\1|, |\2|", text, flags=_I)
    text = re.sub(
        r"\b(?:the\s+)?length\s+of\s+(?:the\s+|each\s+|every\s+)*(?:given\s+)?"
        r"(?:strings?\s+|words?\s+|arrays?\s+|sequences?\s+|permutations?\s+)?(" + _VAR + ")",
        r"|\1|", text, flags=_I)
    text = re.sub(r"(?<![|\w])(" + _VAR + r")(?:'s\s+length|\s+(?:has|of|with)\s+(?:a\s+)?length)\s*(?=[≤≥<>])",
                  r"|\1| ", text, flags=_I)
    return re.sub(r"\s+", " ", text).strip()


# --------------------------------------------------------------------------- tokens

_TOKEN = re.compile(
    r"(?P<SUM>∑(?:\s*_\s*(?:\{[^{}]*\}|[A-Za-z0-9]))?(?:\s*\^\s*(?:\{[^{}]*\}|[A-Za-z0-9]+))?)"
    r"|(?P<NUM>" + ATOM + r")"
    r"|(?P<IDENT>(?<![A-Za-z0-9_'])[A-Za-z](?:_(?:\{[^{}]{1,20}\}|[A-Za-z0-9]+)|\[[^\[\]]{1,12}\])?"
    r"(?![A-Za-z0-9_']))"
    r"|(?P<WORD>[A-Za-z][A-Za-z0-9_']*)"
    r"|(?P<CMP>[≤≥<>≠])"
    r"|(?P<EQ>[=∈∉⊆])"
    r"|(?P<OP>[-+*/^%])"
    r"|(?P<COMMA>,)"
    r"|(?P<DOTS>\.\.\.)"
    r"|(?P<PIPE>\|)"
    r"|(?P<LP>[(\[])"
    r"|(?P<RP>[)\]])"
    r"|(?P<WS>\s+)"
    r"|(?P<OTHER>.)"
)


@dataclass(frozen=True)
class _Tok:
    kind: str
    text: str
    glued: bool = False  # no space before it: "n(n-1)" is a formula, "n (the size)" is not


def _tokenize(text: str) -> list[_Tok]:
    out = []
    last_end = -1
    for m in _TOKEN.finditer(text):
        if m.lastgroup != "WS":
            out.append(_Tok(m.lastgroup or "OTHER", m.group(), glued=m.start() == last_end))
            last_end = m.end()
    return out


@dataclass(frozen=True)
class _Atom:
    """One variable occurrence: ``n``, ``a_i``, ``a_1``, ``|s|``."""

    key: str
    base: str
    sub: str | None  # raw subscript, for lists (a_1..a_n) and order (a_i ≤ a_{i+1})
    length: bool = False

    @property
    def indexed(self) -> bool:
        return is_indexed(self.key)


def _make_atom(ident: str, length: bool = False) -> _Atom:
    match = re.fullmatch(r"([A-Za-z])(?:_\{?([^{}]*)\}?|\[([^\]]*)\])?", ident)
    assert match, ident
    base, sub = match[1], (match[2] if match[2] is not None else match[3])
    key = base
    if sub is not None:
        sub = sub.replace(" ", "")
        parts = sub.split(",") if "," in sub else (list(sub) if re.fullmatch(r"[a-z]{2,3}", sub) and sub not in _WORD_SUBS else [sub])
        if all(re.fullmatch(r"[a-z](?:[+-]\d+)?", p) for p in parts):
            key = f"{base}_i" if len(parts) == 1 else base + "_{" + ",".join("ijkl"[: len(parts)]) + "}"
        else:  # a_1, x_{max}: a single named value
            key = f"{base}_{sub}" if len(sub) == 1 else f"{base}_{{{sub}}}"
    if length:
        key = f"|{key}|"
    return _Atom(key, base, sub, length)


_WORD_SUBS = {"max", "min", "sum", "len", "cnt", "tot", "all", "end", "beg", "new", "old"}

# --------------------------------------------------------------------------- chains


@dataclass
class _Term:
    kind: Literal["num", "vars", "expr", "sum", "dots"]
    value: int = 0
    atoms: list[_Atom] = field(default_factory=list)
    op: str = "+"
    sums: list["_Term"] = field(default_factory=list)  # for a list of sums
    limit: str | None = None  # upper limit of ∑ (a count variable), if written


class _Fail(Exception):
    """A chain that cannot be trusted; its sentence is reported as unparsed."""


_NO_NEIGHBOUR = {"OP", "EQ", "NUM", "IDENT", "PIPE", "SUM", "DOTS", "CMP"}


class _ChainParser:
    def __init__(self, toks: list[_Tok]):
        self.toks = toks

    def kind(self, i: int) -> str | None:
        return self.toks[i].kind if 0 <= i < len(self.toks) else None

    def text(self, i: int) -> str:
        return self.toks[i].text if 0 <= i < len(self.toks) else ""

    def atom(self, i: int) -> tuple[_Atom, int] | None:
        if self.kind(i) == "IDENT":
            return _make_atom(self.text(i)), i + 1
        if self.kind(i) == "PIPE" and self.kind(i + 1) == "IDENT" and self.kind(i + 2) == "PIPE":
            return _make_atom(self.text(i + 1), length=True), i + 3
        return None

    def number(self, i: int) -> tuple[int, int] | None:
        parts: list[str] = []
        j = i
        if self.text(j) == "-" and self.kind(j + 1) == "NUM":
            parts.append("-")
            j += 1
        if self.kind(j) != "NUM":
            return None
        parts.append(self.text(j))
        j += 1
        while self.text(j) in ("+", "-", "*") and self.kind(j + 1) == "NUM":
            parts += [self.text(j), self.text(j + 1)]
            j += 2
        value = evaluate(parts)
        if value is None:
            raise _Fail("number that is not an integer bound")
        return value, j

    def expr(self, i: int) -> tuple[_Term, int] | None:
        """An atom, or atoms joined by one operator (``n*m``, ``n + m``)."""
        first = self.atom(i)
        if first is None:
            return None
        atoms, j = [first[0]], first[1]
        op = self.text(j)
        if op in ("+", "*") and self.atom(j + 1):
            while self.text(j) == op and (nxt := self.atom(j + 1)):
                atoms.append(nxt[0])
                j = nxt[1]
            return _Term("expr", atoms=atoms, op=op), j
        return _Term("vars", atoms=atoms), j

    def summation(self, i: int) -> tuple[_Term, int] | None:
        if self.kind(i) != "SUM":
            return None
        limit = re.search(r"\^\s*\{?\s*([A-Za-z])\s*\}?\s*$", self.text(i))
        j = i + 1
        if self.kind(j) == "LP":
            inner = self.expr(j + 1)
            if inner is None or self.kind(inner[1]) != "RP":
                raise _Fail("sum of an expression the parser does not know")
            term, j = inner[0], inner[1] + 1
        else:
            inner = self.expr(j)
            if inner is None:
                raise _Fail("sum of something that is not a variable")
            term, j = inner
        return _Term("sum", atoms=term.atoms, op=term.op, limit=limit[1] if limit else None), j

    def term(self, i: int, allow_list: bool) -> tuple[_Term, int] | None:
        if self.kind(i) == "DOTS":
            return _Term("dots"), i + 1
        if self.kind(i) == "NUM" or (self.text(i) == "-" and self.kind(i + 1) == "NUM"):
            got = self.number(i)
            return (_Term("num", value=got[0]), got[1]) if got else None
        if self.kind(i) == "SUM":
            first = self.summation(i)
            assert first
            sums, j = [first[0]], first[1]
            while allow_list and self.kind(j) == "COMMA" and self.kind(j + 1) == "SUM":
                nxt = self.summation(j + 1)
                assert nxt
                sums.append(nxt[0])
                j = nxt[1]
            if len(sums) == 1:
                return sums[0], j
            return _Term("sum", sums=sums), j
        got = self.expr(i)
        if got is None:
            return None
        term, j = got
        if term.kind == "vars" and allow_list:
            items: list[_Atom | None] = list(term.atoms)  # None marks "..."
            ends = [j]
            while True:
                k = j + 1 if self.kind(j) == "COMMA" else j
                if self.kind(k) == "DOTS":
                    items.append(None)
                    j = k + 1
                    ends.append(j)
                    continue
                nxt = self.atom(k) if k != j else None
                if nxt is None:
                    break
                items.append(nxt[0])
                j = nxt[1]
                ends.append(j)
            # "1 ≤ n, m, n·m ≤ 10^6": the last item starts the next formula.
            if len(items) > 1 and items[-1] is not None and self.text(j) in ("*", "+"):
                items.pop()
                ends.pop()
                j = ends[-1]
            term = _Term("vars", atoms=_collapse_list(items))
        return term, j

    def chain(self, i: int) -> tuple[list[_Term], list[str], int] | None:
        prev = self.kind(i - 1)
        allow_list = not (prev in ("IDENT", "NUM") or self.text(i - 1).lower() in ("and", "or"))
        first = self.term(i, allow_list)
        if first is None or first[0].kind == "dots":
            return None
        terms, j = [first[0]], first[1]
        ops: list[str] = []
        while self.kind(j) == "CMP":
            allow = len(terms) == 1 and terms[0].kind == "num"
            nxt = self.term(j + 1, allow)
            if nxt is None:
                raise _Fail(f"comparator {self.text(j)!r} not followed by a number or variable")
            ops.append(self.text(j))
            terms.append(nxt[0])
            j = nxt[1]
        if not ops:
            return None
        if prev in _NO_NEIGHBOUR or (prev == "OTHER" and self.text(i - 1) in "'′!"):
            raise _Fail(f"preceded by {self.text(i - 1)!r}: part of a larger formula")
        if self.kind(j) in _NO_NEIGHBOUR or (self.kind(j) == "LP" and self.toks[j].glued):
            raise _Fail(f"followed by {self.text(j)!r}: part of a larger formula")
        if all(t.kind == "num" for t in terms):
            return None  # "1 < 2": no variable, nothing to record
        return terms, ops, j


def _collapse_list(items: list[_Atom | None]) -> list[_Atom]:
    """``a_1, a_2, ..., a_n`` -> one indexed atom; plain lists stay as they are."""
    if None not in items:
        return [a for a in items if a is not None]
    bases: dict[str, list[_Atom]] = {}
    for atom in items:
        if atom is not None:
            bases.setdefault(atom.base, []).append(atom)
    out = []
    for base, atoms in bases.items():
        if not all(a.sub is not None for a in atoms):
            raise _Fail("an ellipsis list of variables without subscripts")
        length = "|" if atoms[0].length else ""
        key = f"{length}{base}_i{length}"
        out.append(_Atom(key, base, atoms[-1].sub, atoms[0].length))
    return out


# --------------------------------------------------------------------------- records from chains


@dataclass
class _Pending:
    """A sum whose meaning (over tests or elements) needs the whole statement."""

    term: _Term
    upper: int
    text: str


def _flip(op: str) -> str:
    return {"≥": "≤", ">": "<", "≤": "≥", "<": ">"}.get(op, op)


def _records(terms: list[_Term], ops: list[str], text: str) -> list[_Record | _Pending]:
    if "≠" in ops:
        if len(terms) != 2 or not all(t.kind == "vars" and len(t.atoms) == 1 for t in terms):
            raise _Fail("≠ between something other than two variables")
        return [NotEqual(vars=[terms[0].atoms[0].key, terms[1].atoms[0].key], text=text)]
    if all(op in "≥>" for op in ops):
        terms, ops = terms[::-1], [_flip(op) for op in ops[::-1]]
    elif not all(op in "≤<" for op in ops):
        raise _Fail("a chain that goes up and down")
    strict = [op == "<" for op in ops]

    variable_terms = [t for t in terms if t.kind != "num"]
    if any(t.kind == "dots" for t in terms) or _same_family(variable_terms):
        return [_ordered_family(terms, strict, text)]

    if len(variable_terms) == 1:
        k = next(i for i, t in enumerate(terms) if t.kind != "num")
        lower = terms[k - 1].value + strict[k - 1] if k > 0 else None
        upper = terms[k + 1].value - strict[k] if k + 1 < len(terms) else None
        return _unary(terms[k], lower, upper, text)

    if any(t.kind not in ("num", "vars") for t in terms):
        raise _Fail("an expression inside a chain of several variables")
    out: list[_Record | _Pending] = []
    choices = [[t.value] if t.kind == "num" else [a.key for a in t.atoms] for t in terms]
    for combo in itertools.product(*choices):
        out.append(Chain(terms=list(combo), strict=strict, text=text))
    return out


def _same_family(terms: list[_Term]) -> bool:
    atoms = [a for t in terms for a in t.atoms]
    # x_1 ≤ x_2 are two named values; a_i ≤ a_{i+1} and a_1 ≤ ... ≤ a_n are one family.
    return (len(terms) >= 2 and all(t.kind == "vars" and len(t.atoms) == 1 for t in terms)
            and all(a.indexed and a.base == atoms[0].base and a.length == atoms[0].length
                    for a in atoms))


def _ordered_family(terms: list[_Term], strict: list[bool], text: str) -> IndexedRange:
    """``1 ≤ a_1 < a_2 < ... < a_n ≤ 10^9`` or ``a_i ≤ a_{i+1}``: a sorted family."""
    inner = [i for i, t in enumerate(terms) if t.kind != "num"]
    atoms = [a for t in terms for a in t.atoms]
    family = bool(atoms) and all(
        a.sub is not None and a.base == atoms[0].base and a.length == atoms[0].length for a in atoms)
    if not family or any(t.kind not in ("num", "vars", "dots") for t in terms) or any(
        terms[i].kind == "num" for i in range(inner[0], inner[-1])
    ):
        raise _Fail("an ellipsis chain that is not one sorted sequence")
    first, last = inner[0], inner[-1]
    lower = terms[first - 1].value + strict[first - 1] if first > 0 else None
    upper = terms[last + 1].value - strict[last] if last + 1 < len(terms) else None
    between = strict[first:last]
    order = "increasing" if all(between) else "non-decreasing" if not any(between) else None
    if order is None:
        raise _Fail("a sequence that is partly strict")
    last_sub = atoms[-1].sub or ""
    length_var = last_sub if re.fullmatch(r"[A-Za-z]", last_sub) and last_sub not in "ijk" else None
    key = f"{atoms[0].base}_i"
    return IndexedRange(var=key, lower=lower, upper=upper, order=order, length_var=length_var, text=text)


def _unary(term: _Term, lower: Bound, upper: Bound, text: str) -> list[_Record | _Pending]:
    if term.kind == "vars":
        out: list[_Record | _Pending] = []
        for atom in term.atoms:
            if atom.length:
                out.append(StringLength(var=atom.key, lower=lower, upper=upper, text=text))
            elif atom.indexed:
                length_var = atom.sub if atom.sub and re.fullmatch(r"[A-Za-z]", atom.sub) and atom.sub not in "ijkl" else None
                out.append(IndexedRange(var=atom.key, lower=lower, upper=upper, length_var=length_var, text=text))
            else:
                out.append(ScalarRange(var=atom.key, lower=lower, upper=upper, text=text))
        return out
    if term.kind == "expr":
        keys = [a.key for a in term.atoms]
        cls = ProductBound if term.op == "*" else SumBound
        return [cls(vars=keys, lower=lower, upper=upper, text=text)]
    if term.kind == "sum":
        if upper is None:
            raise _Fail("a lower bound on a sum")
        return [_Pending(s, upper, text) for s in (term.sums or [term])]
    raise _Fail("nothing to bound")


# --------------------------------------------------------------------------- sentences

_SKIP_SECTION = re.compile(
    r"(?:#+\s*)?(?:output(?:\s+format)?|outputs?|examples?|samples?|sample\s+(?:input|output|test)s?(?:\s*\d+)?|"
    r"(?:input|output)\s+example(?:\s*\d+)?|example\s+(?:input|output)(?:\s*\d+)?|notes?|explanations?|"
    r"hints?|tutorial|editorial|standard\s+output)\s*:?", _I)
_TERMINAL_SECTION = re.compile(r"(?:#+\s*)?(?:examples?|samples?|sample\s+.*|notes?|explanations?|"
                               r"hints?|tutorial|editorial|(?:input|output)\s+example.*|example\s+.*)\s*:?", _I)
_INPUT_SECTION = re.compile(
    r"(?:#+\s*)?(?:input(?:\s+format)?|inputs?|constraints?|limits|interaction|standard\s+input)\s*:?", _I)
_LEGEND_SECTION = re.compile(r"(?:#+\s*)?(?:problem(?:\s+statement)?|statement|legend|description)\s*:?", _I)


def split_sections(text: str) -> tuple[str, str]:
    """``(input, legend)``: the text whose constraints bound the input, and the legend.

    Section headers are lines of their own (``Input``, ``## Constraints``, ``Output``,
    ``Examples``, ``Sample Input 1``, ``Note``). Output, example and note sections are
    dropped: their comparators are not input limits. Once examples or notes start,
    only a ``Constraints`` header re-enables parsing (an ``Input`` header there
    introduces sample data). When the text has an Input or Constraints section, the
    legend before it is returned separately (formal definitions such as "pairs
    (l, r) with 1 ≤ l ≤ r ≤ n" live there); otherwise the legend is the input.
    """
    parts: dict[str, list[str]] = {"input": [], "legend": []}
    mode = "legend"
    seen_input = False
    for line in text.splitlines():
        head = line.strip()
        if _TERMINAL_SECTION.fullmatch(head):
            mode = "terminal"
        elif _SKIP_SECTION.fullmatch(head):
            mode = "skip" if mode != "terminal" else mode
        elif _INPUT_SECTION.fullmatch(head):
            if mode != "terminal" or re.match(r"(?:#+\s*)?constraints?", head, _I):
                mode, seen_input = "input", True
        elif _LEGEND_SECTION.fullmatch(head):
            mode = "legend" if mode != "terminal" else mode
        elif mode in parts:
            parts[mode].append(line)
    if not seen_input:
        return "\n".join(parts["legend"]), ""
    return "\n".join(parts["input"]), "\n".join(parts["legend"])


def input_part(text: str) -> str:
    """The text :func:`parse_constraints` reads by default (see :func:`split_sections`)."""
    return split_sections(text)[0]


def split_sentences(text: str) -> list[str]:
    """Sentences and list items; a line that starts in lower case continues a sentence."""
    lines: list[str] = []
    for raw in text.splitlines():
        line = re.sub(r"^\s*(?:[-*•·]|\d{1,2}[.)])\s+", "", raw).strip()
        if not line:
            lines.append("")
            continue
        # Join wrapped prose ("...over all test cases\ndoes not exceed"), not a list of
        # formulas where a line happens to start in lower case.
        previous = lines[-1].rstrip() if lines else ""
        if previous and re.match(r"(?:and|or|but|nor)\b", line) and not previous.endswith((".", ";", ":")) \
                or previous and (previous[-1].isalpha() or previous[-1] == ",") \
                and re.match(r"[a-z]{2,}\b|\(", line):
            lines[-1] += " " + line
        else:
            lines.append(line)
    out: list[str] = []
    for line in lines:
        for piece in re.split(r"(?<![.\d])[.;!?](?=\s|$)|(?<=\d)\.(?=\s+[A-Z$]|$)", line):
            if piece.strip():
                out.append(piece.strip())
    return out


_SUBTASK = re.compile(r"\b(?:subtasks?|sub-tasks?|points?|scored?|groups?\s+\d|easy\s+version|hard\s+version)\b", _I)
# "print k (1 ≤ k ≤ n)", "if k > n, output -1": output format, stated with comparators.
_OUTPUT_VERB = re.compile(r"\b(?:print|prints|printed|output|outputs)\b", _I)
_INDEX_LETTERS = {"i", "j"}


def parse_sentence(sentence: str) -> tuple[list[_Record | _Pending], Skipped | None, Skipped | None]:
    """Records of one sentence, plus its unparsed or ignored report (if any)."""
    text = normalize(sentence)
    toks = _tokenize(text)
    comparators = [i for i, t in enumerate(toks) if t.kind == "CMP" or t.text in "∈∉⊆"]
    if not comparators:
        return [], None, None
    if _SUBTASK.search(sentence):
        return [], None, Skipped(text=sentence, reason="subtask/version-specific bound; the full problem's bounds are used")
    if _OUTPUT_VERB.search(sentence):
        return [], None, Skipped(text=sentence, reason="describes the output, not the input")

    parser = _ChainParser(toks)
    records: list[_Record | _Pending] = []
    consumed: set[int] = set()
    problems: list[str] = []
    index_ranges = False
    i = 0
    while i < len(toks):
        try:
            got = parser.chain(i)
        except _Fail as failure:
            problems.append(str(failure))
            i += 1
            continue
        if got is None:
            i += 1
            continue
        terms, ops, end = got
        try:
            new = _records(terms, ops, sentence)
        except _Fail as failure:
            problems.append(str(failure))
            i = end
            continue
        if _is_index_range(new):
            index_ranges = True
        else:
            records += new
        consumed.update(range(i, end))
        i = end

    leftover = [toks[c].text for c in comparators if c not in consumed]
    if not records and index_ranges and not leftover:
        return [], None, Skipped(text=sentence, reason="range of an index (i, j), not of an input value")
    if leftover:
        reason = "; ".join(dict.fromkeys(problems)) or f"comparator {leftover[0]!r} with no recognised operands"
        if "∈" in leftover or "∉" in leftover or "⊆" in leftover:
            reason = "set membership is not a supported constraint form" if not problems else reason
        return records, Skipped(text=sentence, reason=reason), None
    return records, None, None


def _is_index_range(records: list[_Record | _Pending]) -> bool:
    return bool(records) and all(
        isinstance(r, Chain) and any(v in _INDEX_LETTERS for v in r.variables())
        or isinstance(r, ScalarRange) and r.var in _INDEX_LETTERS and r.upper is None
        for r in records)


# --------------------------------------------------------------------------- whole statements

_COUNT_TEXT = re.compile(r"number\s+of\s+(?:test\s*cases|tests|testcases|queries|input\s+sets|data\s+sets|scenarios)", _I)


def parse_constraints(text: str, *, sections: Literal["input", "all"] = "input") -> ParseResult:
    """Parse a statement (or any text) into constraint records.

    ``sections="input"`` reads only the Input/Constraints sections when the text has
    them (see :func:`split_sections`); legend sentences that look like constraints are
    listed in ``ignored``. Text without headers is parsed whole either way.
    """
    result = ParseResult()
    if sections == "input":
        text, legend = split_sections(text)
        for sentence in split_sentences(legend):
            got, unparsed, _ = parse_sentence(sentence)
            if got or unparsed:  # looked like a constraint: say why it is not used
                result.ignored.append(Skipped(text=sentence, reason="in the legend, outside the Input/Constraints sections"))
    pending: list[_Pending] = []
    records: list[_Record] = []
    for sentence in split_sentences(text):
        got, unparsed, ignored = parse_sentence(sentence)
        for record in got:
            (pending if isinstance(record, _Pending) else records).append(record)
        if unparsed:
            result.unparsed.append(unparsed)
        if ignored:
            result.ignored.append(ignored)
    records += _resolve_sums(pending, records)
    result.constraints = _dedupe(records)
    return result


def _resolve_sums(pending: list[_Pending], records: list[_Record]) -> list[_Record]:
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

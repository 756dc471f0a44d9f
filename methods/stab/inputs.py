"""Read a generated input back into named values, so it can be checked against the
parsed constraints (STAB generator synthesis, issue 7 point 6).

A generator returns stdin text; the constraint records speak of variables (``n``,
``a_i``, ``|s|``). This module bridges the two with an :class:`InputLayout` inferred
from the statement's Input section, sentence by sentence:

* ``The first line contains two integers n and k``            -> a line of scalars
* ``The second line contains n integers a_1, a_2, ..., a_n``  -> an array of n values
* ``Each of the next m lines contains three integers u_i, v_i, w_i``
                                                              -> m rows, one value of
                                                                 u, v, w per row
* ``... contains a string s of length n`` / ``one rhythm s: a non-empty string``
                                                              -> one string token
* ``Each test case consists of ...`` after ``... t — the number of test cases``
                                                              -> everything after it
                                                                 repeats t times

The ordinal words (first, second, next, last) are not used: lines are read in the
order the sentences describe them. Reading is token based (whitespace-separated), so
a generator's line breaks do not matter, only the order and number of tokens.

Trust: a layout is used only if it reads **every sample input of the problem**
exactly (all tokens consumed, every integer where one is expected, every stated
string length right). A layout that cannot be inferred, or that misreads a sample,
is not used (:func:`checker_for` says why) and generated inputs are then only
checked for being non-empty and within the size cap. Likewise a constraint record
that a sample violates is wrong (a parser slip), and is left out of the check rather
than rejecting valid inputs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Sequence, Union

from .constraints import Constraint, expand_macros, split_sections
from .check import check_multitest, check_values

# --------------------------------------------------------------------------- layout


@dataclass
class Field:
    """One value or run of values on the input: a scalar, an array, or a string."""

    name: str  # base name: "n", "a" (for a_i), "s"
    kind: str = "int"  # "int" | "str"
    count: str | int | None = None  # array length (a variable or a number); None = one value
    length: str | int | None = None  # a string's exact length, when stated


@dataclass
class Repeat:
    """``count`` repetitions of ``body``; rows=True: indexed fields collect one value
    per repetition (``Each of the next m lines contains u_i v_i w_i``); rows=False:
    each repetition is a separate test case."""

    count: str | int
    body: list["Item"]
    rows: bool = True


Item = Union[Field, Repeat]


@dataclass
class InputLayout:
    items: list[Item]
    multitest: str | None = None  # the test-count variable when the input holds test cases

    def describe(self) -> str:
        def one(item: Item) -> str:
            if isinstance(item, Repeat):
                inner = " ".join(one(i) for i in item.body)
                return f"{item.count}×[{inner}]" + ("" if item.rows else " (test cases)")
            if item.count is not None:
                return f"{item.name}[{item.count}]"
            return item.name + (":str" if item.kind == "str" else "")

        return " ".join(one(i) for i in self.items)


class LayoutError(ValueError):
    pass


_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "single": 1, "a single": 1, "two": 2, "three": 3, "four": 4,
                 "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_LINE_START = re.compile(
    r"\b(?:the\s+)?(?:first|second|third|fourth|fifth|sixth|next|last|following|only)\s+line"
    r"(?:\s+of\s+(?:each|every|the)\s+test(?:\s+case)?)?\s+contains?\b"
    # Kattis/BAPC: "- One line with a single integer n", "one line containing ..."
    r"|(?<![\w,])(?:one|a)\s+line\s+(?:with|containing)\b", re.I)
_ROWS = re.compile(r"\b(?:each|the\s+[a-z]\s*-?\s*th)\s+of\s+the\s+(?:next|following)\s+"
                   r"(\w+(?:\s*[−-]\s*\d+)?)\s+lines?\s+(?:contains?|describes?|has)\b"
                   # Kattis/BAPC: "n lines, each with a string s and an integer a"
                   r"|(?<![\w-])(\w+(?:\s*[−-]\s*\d+)?)\s+(?:more\s+|further\s+)?lines?,\s+each\s+(?:with|containing)\b",
                   re.I)
_TESTS = re.compile(r"\b(?:each|every)\s+(?:test\s*case|test|query\s+set|data\s*set)\b"
                    r"|\bthe\s+(?:test\s+cases|descriptions?\s+of\s+(?:the\s+)?test\s+cases)\s+follow", re.I)
_COUNT_OF_TESTS = re.compile(r"number\s+of\s+(?:test\s*cases|tests|testcases)", re.I)
_LETTER = "A-Za-zα-ωΑ-Ωℓ"
_IDENT = r"[" + _LETTER + r"](?:_(?:\{?[A-Za-z0-9]+(?:,[A-Za-z0-9]+)*\}?))?"
# "a string s", "an integer a", "two integers n and k": one typed group of fields.
_TYPED = re.compile(
    r"\b(?:(a\s+single|an?|one|two|three|four|five|six|seven|eight|nine|ten|\d+)\s+)?"
    r"(?:(?:positive|non-negative|nonnegative|space-separated|lowercase|uppercase)\s+)*"
    r"(integers?|numbers?|strings?|words?)\s+(" + _IDENT + r"(?:\s*(?:,|,?\s*and)\s*" + _IDENT + r")*)(?![\w])",
    re.I)


_GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "lambda": "λ", "mu": "μ", "pi": "π",
          "sigma": "σ", "tau": "τ", "phi": "φ", "omega": "ω"}


def _plain(text: str) -> str:
    """LaTeX and typography out, so the sentence patterns see plain words."""
    text = text.replace("$", " ").replace("`", " ")
    text = re.sub(r"\\(?:ldots|cdots|dots)|…", "...", text)
    text = re.sub(r"\\(?:le|leq)\b", "≤", text)
    text = re.sub(r"\\(?:ge|geq)\b", "≥", text)
    text = re.sub(r"\\cdot|\\times", "*", text)
    text = re.sub(r"\\ell\b", "ℓ", text)
    text = re.sub(r"\\(" + "|".join(_GREEK) + r")\b", lambda m: _GREEK[m[1]], text)
    text = re.sub(r"\\[a-zA-Z]+", " ", text)
    text = re.sub(r"_\{\s*([A-Za-z0-9]+)\s*\}", r"_\1", text)
    return re.sub(r"[ \t]+", " ", text)


def _strip_asides(text: str) -> str:
    """Parentheticals and dash/colon explanations hold constraints and prose, not fields
    — except that ``one rhythm s: a non-empty string`` names the kind after the colon."""
    return re.split(r"\s[—–-]\s|\s--\s|,\s+(?:the|which|where|describing|denoting)\b", _drop_parentheses(text))[0]


def _drop_parentheses(text: str) -> str:
    """Remove balanced ``( … )`` groups, nested ones included, in one pass (an
    unbalanced ``(`` stays, as the old innermost-first rewriting left it)."""
    out: list[str] = []
    opened: list[int] = []  # positions in ``out`` where an unclosed "(" was written
    for char in text:
        if char == "(":
            opened.append(len(out))
            out.append(char)
        elif char == ")" and opened:
            del out[opened.pop():]
            out.append(" ")
        else:
            out.append(char)
    return "".join(out)


def _count_of(word: str) -> str | int | None:
    """A count: a number (word or digits), a variable, or ``var-k`` (``n − 1`` lines)."""
    word = re.sub(r"\s*[−-]\s*", "-", word.strip())
    if re.fullmatch(r"[a-z]-\d+", word, re.I):
        return word
    if word.lower() in _NUMBER_WORDS:
        word = word.lower()
    if word in _NUMBER_WORDS:
        return _NUMBER_WORDS[word]
    if word.isdigit():
        return int(word)
    if re.fullmatch(r"[a-z]", word, re.I):
        return word
    return None


def _base(ident: str) -> str:
    return ident if ident.startswith("_") else ident.split("_", 1)[0]


def _fields(desc: str) -> list[Field]:
    """The fields one line description names, in order; [] when none are recognisable."""
    desc = _strip_asides(desc).strip()
    groups = list(_TYPED.finditer(desc))
    if len(groups) >= 2 and not re.search(r"_1\b.*?\.\.\.", desc):
        # Several typed groups on one line: "a string s and an integer a".
        out: list[Field] = []
        for group in groups:
            names = [x for x in re.split(r"\s*(?:,|\band\b)\s*", group.group(3)) if x]
            kind = "str" if group.group(2).lower().startswith(("string", "word")) else "int"
            out += [Field(name=_base(n), kind=kind) for n in names]
        return out
    low = desc.lower()
    if "string" in low or "characters" in low or re.search(r"\bword\b", low):
        m = re.search(r"\bstrings?\s+(" + _IDENT + r")\b", desc)
        name = m.group(1) if m else None
        if name is None:
            m = re.search(r"\b(" + _IDENT + r")\s*:", desc) or re.search(r"\brhythm\s+(" + _IDENT + r")\b", desc)
            name = m.group(1) if m else "_str"
        length = None
        m = re.search(r"\b(?:of\s+)?(?:length|exactly)\s+(\w+)(?:\s+characters)?", desc)
        if m:
            length = _count_of(m.group(1))
        return [Field(name=_base(name), kind="str", length=length)]
    # An array: "n integers a_1, a_2, ..., a_n", "k distinct integers s_1, ..., s_k".
    m = re.search(r"\b(\w+)\s+(?:(?:distinct|positive|non-negative|nonnegative|pairwise\s+distinct|space-separated)\s+)*"
                  r"(?:integers|numbers)\s+([A-Za-z])_1\b.*?\.\.\.", desc)
    if m:
        count = _count_of(m.group(1))
        if isinstance(count, str) or m.group(1).isdigit():
            return [Field(name=m.group(2), count=count)]
    # Scalars: "two integers n and k", "three integers u_i, v_i, w_i", "one integer q".
    m = re.search(r"\b(?:(a\s+single|an?|one|two|three|four|five|six|seven|eight|nine|ten|\d+)\s+)?"
                  r"(?:(?:positive|non-negative|nonnegative|space-separated)\s+)*(?:integers?|numbers?)\s+"
                  r"(" + _IDENT + r"(?:\s*(?:,|,?\s*and)\s*" + _IDENT + r")*)\b", desc)
    if not m:
        return []
    names = [x for x in re.split(r"\s*(?:,|\band\b)\s*", m.group(2)) if x]
    if m.group(1):
        want = _count_of(m.group(1))
        if isinstance(want, int) and want != len(names):
            return []
    return [Field(name=_base(n)) for n in names]


def infer_layout(statement: str) -> InputLayout:
    """The layout of the statement's Input section; raises :class:`LayoutError` when a
    line description cannot be turned into fields (the caller then checks nothing)."""
    section, _ = split_sections(expand_macros(statement))
    text = _plain(section)
    # Sentences; list items (- the first line ...) become sentences of their own.
    text = re.sub(r"(?m)^\s*[-*•]\s+", ". ", text)
    sentences = [s.strip() for s in re.split(r"(?<=[.;:])\s+(?=[A-Z.]|the\b)|\n\s*\n", text) if s.strip()]
    top: list[Item] = []
    target = top
    multitest: str | None = None
    scalars_seen: dict[str, str] = {}
    for sentence in sentences:
        rows = _ROWS.search(sentence)
        if rows:
            count = _count_of(rows.group(1) or rows.group(2))
            fields = _fields(sentence[rows.end():])
            if count is None or not fields:
                raise LayoutError(f"cannot read the rows of: {sentence!r}")
            if multitest is None and count in scalars_seen and _COUNT_OF_TESTS.search(scalars_seen[count]):
                multitest = str(count)
                target.append(Repeat(count=count, body=fields, rows=False))
            else:
                target.append(Repeat(count=count, body=fields, rows=True))
            continue
        starts = list(_LINE_START.finditer(sentence))
        if not starts and _TESTS.search(sentence) and multitest is None:
            count = next((v for v, s in scalars_seen.items() if _COUNT_OF_TESTS.search(s)),
                         "t" if "t" in scalars_seen else "T" if "T" in scalars_seen else None)
            if count is None:
                raise LayoutError(f"test cases without a test count: {sentence!r}")
            body: list[Item] = []
            target.append(Repeat(count=count, body=body, rows=False))
            target = body
            multitest = count
            continue
        for k, start in enumerate(starts):
            end = starts[k + 1].start() if k + 1 < len(starts) else len(sentence)
            fields = _fields(sentence[start.end():end])
            if not fields:
                raise LayoutError(f"cannot read the fields of: {sentence[start.start():end]!r}")
            for f in fields:
                if f.count is None and f.kind == "int":
                    scalars_seen[f.name] = sentence
            target.extend(fields)
    if not top:
        raise LayoutError("the Input section describes no lines")
    return InputLayout(items=top, multitest=multitest)


# --------------------------------------------------------------------------- reading


@dataclass
class Reading:
    """Values of one input: ``values`` (top level) and, for a multi-test input, one
    dict per test case in ``tests``."""

    values: dict[str, Any] = field(default_factory=dict)
    tests: list[dict[str, Any]] | None = None


def _int(token: str, name: str) -> int:
    if not re.fullmatch(r"[+-]?\d+", token):
        raise LayoutError(f"expected an integer for {name}, got {token[:20]!r}")
    return int(token)


def read_input(text: str, layout: InputLayout, *, max_tokens: int = 50_000_000) -> Reading:
    """Read ``text`` with ``layout``; raises :class:`LayoutError` on a format error."""
    tokens = text.split()
    if len(tokens) > max_tokens:
        raise LayoutError(f"{len(tokens)} tokens")
    pos = 0
    reading = Reading()

    def resolve(count: str | int, scope: dict[str, Any], *, is_length: bool = False) -> int:
        offset = 0
        if isinstance(count, str) and "-" in count:
            count, k = count.split("-")
            offset = int(k)
        value = count if isinstance(count, int) else scope.get(count, reading.values.get(count))
        if isinstance(value, int):
            value -= offset
        if not isinstance(value, int):
            raise LayoutError(f"count {count} is not known when it is needed")
        if value < 0 or not is_length and value > len(tokens):  # a repetition reads ≥ 1 token
            raise LayoutError(f"count {count} = {value} does not fit the input")
        return value

    def take(name: str) -> str:
        nonlocal pos
        if pos >= len(tokens):
            raise LayoutError(f"the input ends before {name}")
        pos += 1
        return tokens[pos - 1]

    def read_items(items: list[Item], scope: dict[str, Any], row_lists: bool) -> None:
        for item in items:
            if isinstance(item, Repeat):
                times = resolve(item.count, scope)
                if item.rows:
                    for sub in item.body:
                        if isinstance(sub, Field):
                            scope.setdefault(sub.name, [])
                    for _ in range(times):
                        read_items(item.body, scope, row_lists=True)
                else:
                    reading.tests = []
                    for _ in range(times):
                        test: dict[str, Any] = {}
                        read_items(item.body, test, row_lists=False)
                        reading.tests.append(test)
                continue
            if item.count is not None:
                n = resolve(item.count, scope)
                if n > len(tokens) - pos:
                    raise LayoutError(f"{item.name} needs {n} values, {len(tokens) - pos} left")
                value: Any = [_int(take(item.name), item.name) for _ in range(n)]
            elif item.kind == "str":
                value = take(item.name)
                if item.length is not None:
                    want = resolve(item.length, scope, is_length=True)
                    if len(value) != want:
                        raise LayoutError(f"string {item.name} has length {len(value)}, expected {item.length} = {want}")
            else:
                value = _int(take(item.name), item.name)
            if row_lists:
                scope.setdefault(item.name, []).append(value)
            else:
                scope[item.name] = value

    read_items(layout.items, reading.values, row_lists=False)
    if pos != len(tokens):
        raise LayoutError(f"{len(tokens) - pos} extra tokens after the input ({tokens[pos][:20]!r} ...)")
    return reading


def violations(reading: Reading, constraints: Sequence[Constraint]) -> list[str]:
    """Constraint violations of a read input (empty = valid)."""
    out = check_values(reading.values, constraints)
    if reading.tests is not None:
        out += check_multitest(reading.tests, constraints)
    return out


# --------------------------------------------------------------------------- the checker


@dataclass
class InputChecker:
    """What a method uses: ``check(text)`` -> list of reasons (empty = accepted)."""

    layout: InputLayout | None
    constraints: list[Constraint]
    dropped: list[str] = field(default_factory=list)  # records the samples contradict
    note: str = ""  # why there is no layout, when there is none

    @property
    def active(self) -> bool:
        return self.layout is not None

    def check(self, text: str) -> list[str]:
        if not text.strip():
            return ["empty input"]
        if self.layout is None:
            return []
        try:
            reading = read_input(text, self.layout)
        except LayoutError as exc:
            return [f"format: {exc}"]
        return violations(reading, self.constraints)


def checker_for(statement: str, constraints: Sequence[Constraint], samples: Sequence[str]) -> InputChecker:
    """An :class:`InputChecker` whose layout reads every sample (else no layout) and
    whose constraints no sample violates (the others are dropped, and listed)."""
    constraints = list(constraints)
    try:
        layout = infer_layout(statement)
    except LayoutError as exc:
        return InputChecker(layout=None, constraints=constraints, note=f"no input layout: {exc}")
    if not samples:
        return InputChecker(layout=None, constraints=constraints,
                            note=f"layout {layout.describe()} could not be verified: no samples")
    readings = []
    for k, sample in enumerate(samples, 1):
        try:
            readings.append(read_input(sample, layout))
        except LayoutError as exc:
            return InputChecker(layout=None, constraints=constraints,
                                note=f"layout {layout.describe()} misreads sample {k}: {exc}")
    kept, dropped = [], []
    for record in constraints:
        if any(violations(r, [record]) for r in readings):
            dropped.append(record.render())
        else:
            kept.append(record)
    return InputChecker(layout=layout, constraints=kept, dropped=dropped)

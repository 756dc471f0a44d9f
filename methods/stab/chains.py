"""Comparator chains in one normalised sentence -> constraint records (STAB §3.1).

A sentence (already canonical, see :mod:`.normalize`) is tokenised with one regex and
scanned left to right for chains ``term (cmp term)+``. A term is a number, a variable
(``n``, ``a_i``, ``|s|``), a list of variables (``n, m``; ``a_1, ..., a_n``), a sum
(``∑ n``, ``∑_{i=1}^{n} a_i``, ``a_1 + ... + a_n``), ``min(..)``/``max(..)``, or any
polynomial in variables and numbers (``n − 1``, ``2n``, ``n(n−1)/2``, ``s + e``).

Records: the familiar shapes keep their kinds (``1 ≤ n ≤ 10^5`` is a scalar range,
``1 ≤ l ≤ r ≤ n`` a chain, ``n·m ≤ 10^6`` a product bound); a chain with a formula in
it becomes one record per neighbouring pair, and a pair of formulas is a
:class:`~.records.Relation` (``n − 1 ≤ m``). ``m ≤ min(a, b)`` is two bounds and
``max(a, b) ≤ m`` too; the other placements are disjunctions and are refused.

Trust comes from refusing rather than guessing: a chain glued to something it does
not cover (``a_1 = 3 < a_2``), a variable exponent, a division by a variable, a
number beyond the size limits or a set that is not a contiguous range yields no
record, and the sentence is reported as unparsed with the reason.

The scan is linear in the sentence: every start position is tried once, a start
glued to the previous token is skipped without parsing, and after a chain (or a
failed one, or a term with no comparator after it) the scan resumes after what was
consumed, so a long list is parsed once, not once per element.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from .normalize import LETTER, normalize
from .numbers import ATOM, MAX_EXPONENT, NUMBER_LIMIT, TooLarge, atom_value
from .records import (
    Bound,
    Chain,
    IndexedRange,
    NotEqual,
    Poly,
    ProductBound,
    Relation,
    ScalarRange,
    Skipped,
    StringLength,
    SumBound,
    _Record,
    is_indexed,
)

# --------------------------------------------------------------------------- tokens

_L = LETTER
_TOKEN = re.compile(
    r"(?P<SUM>∑(?: ?_ ?(?:\{[^{}]{0,40}\}|[A-Za-z0-9]))?(?: ?\^ ?(?:\{[^{}]{0,40}\}|[A-Za-z0-9]{1,20}))?)"
    r"|(?P<NUM>" + ATOM + r")"
    r"|(?P<IDENT>(?<![" + _L + r"_'])[" + _L + r"](?:_(?:\{[^{}]{1,20}\}|[A-Za-z0-9]{1,20})|\[[^\[\]]{1,12}\])?"
    r"(?![" + _L + r"0-9_']))"
    r"|(?P<WORD>[" + _L + r"][" + _L + r"0-9_']*)"
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


def tokenize(text: str) -> list[_Tok]:
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


_WORD_SUBS = {"max", "min", "sum", "len", "cnt", "tot", "all", "end", "beg", "new", "old"}


def _make_atom(ident: str, length: bool = False) -> _Atom:
    match = re.fullmatch(r"([" + _L + r"])(?:_\{?([^{}]*)\}?|\[([^\]]*)\])?", ident)
    assert match, ident
    base, sub = match[1], (match[2] if match[2] is not None else match[3])
    key = base
    if sub is not None:
        sub = sub.replace(" ", "")
        parts = sub.split(",") if "," in sub else (
            list(sub) if re.fullmatch(r"[a-z]{2,3}", sub) and sub not in _WORD_SUBS else [sub])
        if all(re.fullmatch(r"[a-z](?:[+-]\d+)?", p) for p in parts):
            key = f"{base}_i" if len(parts) == 1 else base + "_{" + ",".join("ijkl"[: len(parts)]) + "}"
        else:  # a_1, x_{max}: a single named value
            key = f"{base}_{sub}" if len(sub) == 1 else f"{base}_{{{sub}}}"
    if length:
        key = f"|{key}|"
    return _Atom(key, base, sub, length)


# --------------------------------------------------------------------------- terms

Coefs = dict[tuple[str, ...], Fraction]
Shape = Literal["num", "atom", "product", "sum", "poly", "min", "max"]


@dataclass
class _Val:
    """A parsed expression: its polynomial and what it looks like."""

    coefs: Coefs
    shape: Shape
    atoms: list[_Atom] = field(default_factory=list)  # for atom / product / sum shapes
    args: list["_Val"] = field(default_factory=list)  # for min / max

    @classmethod
    def number(cls, value: Fraction) -> "_Val":
        return cls({(): value} if value else {}, "num")

    @classmethod
    def variable(cls, atom: _Atom) -> "_Val":
        return cls({(atom.key,): Fraction(1)}, "atom", [atom])

    def constant(self) -> Fraction | None:
        return None if any(k for k in self.coefs) or self.shape in ("min", "max") else self.coefs.get((), Fraction(0))

    def poly(self) -> Poly:
        return Poly.of(self.coefs)


def _bounded(coefs: Coefs) -> Coefs:
    """Coefficients stay within the number limits (``2*2*...*2`` of 4,000 factors is
    not a bound, and computing it on would cost quadratic time)."""
    for v in coefs.values():
        if abs(v.numerator) > NUMBER_LIMIT or v.denominator > NUMBER_LIMIT:
            raise _Fail(f"a number beyond 10^{MAX_EXPONENT}: not an input bound")
    return coefs


def _add(a: Coefs, b: Coefs, sign: int = 1) -> Coefs:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, Fraction(0)) + sign * v
    return _bounded({k: v for k, v in out.items() if v})


def _mul(a: Coefs, b: Coefs, order: dict[str, int]) -> Coefs:
    """Product of two polynomials; a monomial's variables are kept in the order they
    first appeared in the sentence (``order``), so equal monomials share one key."""
    out: Coefs = {}
    if len(a) * len(b) > 64:
        raise _Fail("a formula too large to be a bound")
    for ka, va in a.items():
        for kb, vb in b.items():
            key = tuple(sorted(ka + kb, key=lambda v: order.get(v, len(order))))
            if len(key) > 6:
                raise _Fail("a formula of too high a degree")
            out[key] = out.get(key, Fraction(0)) + va * vb
    return _bounded({k: v for k, v in out.items() if v})


@dataclass
class _Term:
    kind: Literal["num", "vars", "expr", "poly", "minmax", "sum", "dots"]
    value: int = 0
    atoms: list[_Atom] = field(default_factory=list)
    op: str = "+"
    sums: list["_Term"] = field(default_factory=list)  # for a list of sums
    limit: str | None = None  # upper limit of ∑ (a count variable), if written
    val: _Val | None = None  # the expression behind expr / poly / minmax / vars terms


class _Fail(Exception):
    """A chain that cannot be trusted; its sentence is reported as unparsed."""


_NO_NEIGHBOUR = {"OP", "EQ", "NUM", "IDENT", "PIPE", "SUM", "DOTS", "CMP"}
_MAX_POWER = 6
_MAX_DEPTH = 30


class _ChainParser:
    def __init__(self, toks: list[_Tok]):
        self.toks = toks
        self.furthest = 0  # the first token not consumed by the current attempt
        self.depth = 0  # parentheses and min/max nest this deep at most (recursion)
        self.order: dict[str, int] = {}  # variable -> rank of its first appearance

    def kind(self, i: int) -> str | None:
        return self.toks[i].kind if 0 <= i < len(self.toks) else None

    def text(self, i: int) -> str:
        return self.toks[i].text if 0 <= i < len(self.toks) else ""

    def glued(self, i: int) -> bool:
        return 0 <= i < len(self.toks) and self.toks[i].glued

    def took(self, j: int) -> int:
        self.furthest = max(self.furthest, j)
        return j

    # ------------------------------------------------------------------ atoms, numbers

    def atom(self, i: int) -> tuple[_Atom, int] | None:
        if self.kind(i) == "IDENT":
            atom, j = _make_atom(self.text(i)), i + 1
        elif self.kind(i) == "PIPE" and self.kind(i + 1) == "IDENT" and self.kind(i + 2) == "PIPE":
            atom, j = _make_atom(self.text(i + 1), length=True), i + 3
        else:
            return None
        self.order.setdefault(atom.key, len(self.order))
        return atom, self.took(j)

    def _number(self, i: int) -> Fraction:
        try:
            return atom_value(self.text(i))
        except TooLarge as exc:
            raise _Fail(f"{exc}: not an input bound") from None

    # ------------------------------------------------------------------ expressions

    def expr(self, i: int) -> tuple[_Val, int] | None:
        """``product (('+'|'-') product)*``, also ``a_1 + a_2 + ... + a_n``."""
        first = self.product(i)
        if first is None:
            return None
        vals, j = [first[0]], first[1]
        signs = [1]
        dots = False
        while self.text(j) in ("+", "-"):
            if self.text(j) == "+" and self.kind(j + 1) == "DOTS" and self.text(j + 2) == "+":
                dots = True
                j = self.took(j + 2)
                continue
            nxt = self.product(j + 1)
            if nxt is None:
                break
            signs.append(1 if self.text(j) == "+" else -1)
            vals.append(nxt[0])
            j = nxt[1]
        if len(vals) == 1 and not dots:
            return vals[0], j
        if any(v.shape in ("min", "max") for v in vals):
            raise _Fail("min/max inside a formula")
        coefs: Coefs = {}
        for sign, val in zip(signs, vals):
            coefs = _add(coefs, val.coefs, sign)
        atoms = [a for v in vals for a in v.atoms]
        plain = all(v.shape == "atom" for v in vals) and all(s == 1 for s in signs)
        if dots:
            if not plain:
                raise _Fail("an ellipsis sum of something other than variables")
            return _Val(coefs, "sum", atoms + [_Atom("...", "...", None)]), j
        distinct = len({a.key for a in atoms}) == len(atoms)
        return _Val(coefs, "sum" if plain and distinct else "poly", atoms), j

    def product(self, i: int) -> tuple[_Val, int] | None:
        """``power (('*' | '/' | juxtaposition) power)*``: ``2n``, ``n(n-1)/2``, ``n·m``."""
        first = self.power(i)
        if first is None:
            return None
        val, j = first
        factors = [val]
        explicit = True
        while True:
            op = self.text(j)
            if op in ("*", "/") and self.kind(j) == "OP":
                nxt = self.power(j + 1)
                if nxt is None:
                    break
                if op == "/":
                    divisor = nxt[0].constant()
                    if divisor is None:
                        raise _Fail("a division by a variable")
                    if divisor == 0:
                        raise _Fail("a division by zero")
                    nxt = (_Val.number(1 / divisor), nxt[1])
                    explicit = False
                factors.append(nxt[0])
                j = nxt[1]
                continue
            # Juxtaposition: "2n", "n(n-1)", "(n+1)(m+1)" - only when glued to the left.
            implicit = self.glued(j) and (
                self.kind(j) == "LP" or self.kind(j) == "IDENT" and self.kind(j - 1) in ("NUM", "RP"))
            if not implicit:
                break
            nxt = self.power(j)
            if nxt is None:
                break
            factors.append(nxt[0])
            explicit = False
            j = nxt[1]
        if len(factors) == 1:
            return val, j
        if any(v.shape in ("min", "max") for v in factors):
            raise _Fail("min/max inside a formula")
        coefs: Coefs = {(): Fraction(1)}
        for v in factors:
            coefs = _mul(coefs, v.coefs, self.order)
        atoms = [a for v in factors for a in v.atoms]
        distinct = len({a.key for a in atoms}) == len(atoms)
        shape: Shape = "product" if explicit and distinct and all(v.shape == "atom" for v in factors) else "poly"
        if not any(k for k in coefs):
            shape = "num"
        return _Val(coefs, shape, atoms if shape == "product" else []), j

    def power(self, i: int) -> tuple[_Val, int] | None:
        base = self.unary(i)
        if base is None:
            return None
        val, j = base
        if self.text(j) != "^":
            return val, j
        if self.kind(j + 1) == "NUM":
            exponent, k = self._number(j + 1), j + 2
        elif self.text(j + 1) == "{" and self.kind(j + 2) == "NUM" and self.text(j + 3) == "}":
            exponent, k = self._number(j + 2), j + 4
        else:
            raise _Fail("a power with a variable exponent")
        if exponent.denominator != 1 or not 0 <= exponent <= _MAX_POWER:
            raise _Fail("a power that is not a small whole number")
        if val.shape in ("min", "max"):
            raise _Fail("min/max inside a formula")
        coefs: Coefs = {(): Fraction(1)}
        for _ in range(int(exponent)):
            coefs = _mul(coefs, val.coefs, self.order)
        return _Val(coefs, "num" if not any(coefs) or val.constant() is not None else "poly"), self.took(k)

    def unary(self, i: int) -> tuple[_Val, int] | None:
        if self.text(i) == "-" and self.kind(i) == "OP":
            inner = self.power(i + 1)
            if inner is None:
                return None
            val = inner[0]
            shape: Shape = "num" if val.constant() is not None else "poly"
            return _Val({k: -v for k, v in val.coefs.items()}, shape), inner[1]
        return self.primary(i)

    def primary(self, i: int) -> tuple[_Val, int] | None:
        if self.depth > _MAX_DEPTH:
            self.took(i)  # the scan resumes here, not at every bracket before it
            raise _Fail("a formula nested too deeply")
        self.depth += 1
        try:
            return self._primary(i)
        finally:
            self.depth -= 1

    def _primary(self, i: int) -> tuple[_Val, int] | None:
        kind = self.kind(i)
        if kind == "NUM":
            return _Val.number(self._number(i)), self.took(i + 1)
        got = self.atom(i)
        if got is not None:
            return _Val.variable(got[0]), got[1]
        if kind == "LP" and self.text(i) == "(":
            inner = self.expr(i + 1)
            if inner is None or self.text(inner[1]) != ")":
                return None  # a parenthesis of prose, not of a formula
            val = inner[0]
            if val.shape in ("min", "max"):
                return val, self.took(inner[1] + 1)
            shape = val.shape if val.shape in ("num", "atom") else "poly"
            return _Val(val.coefs, shape, val.atoms if shape == "atom" else []), self.took(inner[1] + 1)
        if kind == "WORD" and self.text(i).lower() in ("min", "max") and self.text(i + 1) == "(":
            args = []
            j = i + 2
            while True:
                got_arg = self.expr(j)
                if got_arg is None:
                    raise _Fail(f"{self.text(i)}( of something that is not a formula")
                args.append(got_arg[0])
                j = got_arg[1]
                if self.text(j) == ",":
                    j += 1
                    continue
                if self.text(j) == ")":
                    break
                raise _Fail(f"an unclosed {self.text(i)}(")
            if any(a.shape in ("min", "max") for a in args):
                raise _Fail("nested min/max")
            return _Val({}, self.text(i).lower(), args=args), self.took(j + 1)  # type: ignore[arg-type]
        return None

    # ------------------------------------------------------------------ sums

    def summation(self, i: int) -> tuple[_Term, int] | None:
        if self.kind(i) != "SUM":
            return None
        limit = re.search(r"\^ ?\{? ?([" + _L + r"]) ?\}? ?$", self.text(i))
        j = i + 1
        if self.text(j) == "(":
            inner = self._simple(j + 1)
            if inner is None or self.text(inner[1]) != ")":
                raise _Fail("sum of an expression the parser does not know")
            term, j = inner[0], inner[1] + 1
        else:
            inner = self._simple(j)
            if inner is None:
                raise _Fail("sum of something that is not a variable")
            term, j = inner
        return _Term("sum", atoms=term.atoms, op=term.op, limit=limit[1] if limit else None), self.took(j)

    def _simple(self, i: int) -> tuple[_Term, int] | None:
        """Atoms joined by one operator (what a ∑ may range over): ``n``, ``n·m``."""
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

    # ------------------------------------------------------------------ terms and chains

    def term(self, i: int, allow_list: bool) -> tuple[_Term, int] | None:
        if self.kind(i) == "DOTS":
            return _Term("dots"), self.took(i + 1)
        if self.kind(i) == "SUM":
            first = self.summation(i)
            assert first
            sums, j = [first[0]], first[1]
            while allow_list and self.kind(j) == "COMMA" and self.kind(j + 1) == "SUM":
                nxt = self.summation(j + 1)
                assert nxt
                sums.append(nxt[0])
                j = nxt[1]
            return (sums[0], j) if len(sums) == 1 else (_Term("sum", sums=sums), j)
        got = self.expr(i)
        if got is None:
            return None
        val, j = got
        term = _term_of(val)
        if term.kind == "vars" and allow_list:
            items: list[_Atom | None] = list(term.atoms)  # None marks "..."
            ends = [j]
            while True:
                k = j + 1 if self.kind(j) == "COMMA" else j
                if self.kind(k) == "DOTS":
                    items.append(None)
                    j = self.took(k + 1)
                    ends.append(j)
                    continue
                nxt = self.atom(k) if k != j else None
                if nxt is None:
                    break
                items.append(nxt[0])
                j = nxt[1]
                ends.append(j)
            # "1 ≤ n, m, n·m ≤ 10^6": the last item starts the next formula.
            if len(items) > 1 and items[-1] is not None and self.text(j) in ("*", "+", "-", "/", "^") \
                    or len(items) > 1 and items[-1] is not None and self.kind(j) == "LP" and self.glued(j):
                items.pop()
                ends.pop()
                j = ends[-1]
            term = _Term("vars", atoms=_collapse_list(items))
        return term, j

    def members(self, j: int) -> tuple[int, _Term, int]:
        """``∈ ⦃a, a+1, ..., b⦄`` after a term: the range's ends (a contiguous set only)."""
        items: list[_Val | None] = []
        k = j + 2
        while True:
            if self.kind(k) == "DOTS":
                items.append(None)
                k += 1
            else:
                got = self.expr(k)
                if got is None:
                    raise _Fail("a set of something other than numbers and variables")
                items.append(got[0])
                k = got[1]
            if self.text(k) == ",":
                k += 1
                continue
            if self.text(k) == "⦄":
                break
            raise _Fail("an unclosed set")
        self.took(k + 1)
        if items.count(None) != 1 or items[-1] is None or items[0] is None:
            raise _Fail("set membership is not a supported constraint form")
        dots = items.index(None)
        first = [v.constant() for v in items[:dots]]
        if any(c is None or c.denominator != 1 for c in first) or any(
                b != a + 1 for a, b in zip(first, first[1:])):  # type: ignore[operator]
            raise _Fail("a set that is not a contiguous range")
        last = _term_of(items[-1])  # type: ignore[arg-type]
        if dots != len(items) - 2 or last.kind not in ("num", "vars") or len(last.atoms) > 1:
            raise _Fail("a set that is not a contiguous range")
        return int(first[0]), last, k + 1  # type: ignore[arg-type]

    def chain(self, i: int) -> tuple[list[_Term], list[str], int] | tuple[None, None, int] | None:
        """A chain starting at token ``i``: (terms, comparators, end); (None, None, end)
        when a term was read but no comparator follows; None when nothing starts here."""
        prev = self.kind(i - 1)
        allow_list = not (prev in ("IDENT", "NUM") or self.text(i - 1).lower() in ("and", "or"))
        first = self.term(i, allow_list)
        if first is None or first[0].kind == "dots":
            return None
        terms, j = [first[0]], first[1]
        ops: list[str] = []
        if self.text(j) == "∈" and self.text(j + 1) == "⦃":
            low, high, j = self.members(j)
            terms, ops = [_Term("num", value=low), terms[0], high], ["≤", "≤"]
        while self.kind(j) == "CMP":
            allow = len(terms) == 1 and terms[0].kind == "num"
            nxt = self.term(j + 1, allow)
            if nxt is None:
                raise _Fail(f"comparator {self.text(j)!r} not followed by a number, variable or formula")
            ops.append(self.text(j))
            terms.append(nxt[0])
            j = self.took(nxt[1])
        if not ops:
            return None, None, j
        if self.kind(j) in _NO_NEIGHBOUR or (self.kind(j) == "LP" and self.glued(j)) or self.text(j) in ("∈", "⦃") \
                or self.text(j) in ("!", "'", "′") and self.glued(j):
            raise _Fail(f"followed by {self.text(j)!r}: part of a larger formula")
        if all(t.kind == "num" for t in terms):
            return None, None, j  # "1 < 2": no variable, nothing to record
        return terms, ops, j


def _term_of(val: _Val) -> _Term:
    if val.shape in ("min", "max"):
        return _Term("minmax", op=val.shape, val=val)
    constant = val.constant()
    if constant is not None:
        if constant.denominator != 1:
            raise _Fail("a number that is not an integer bound")
        return _Term("num", value=int(constant), val=val)
    if val.shape == "atom":
        return _Term("vars", atoms=list(val.atoms), val=val)
    if val.shape == "sum" and val.atoms and val.atoms[-1].key == "...":
        family = _collapse_list(val.atoms[:-1] + [None])
        if len(family) != 1 or not family[0].indexed:
            raise _Fail("an ellipsis sum that is not one indexed family")
        last = val.atoms[-2].sub or ""
        limit = last if re.fullmatch(r"[" + _L + r"]", last) and last not in "ijk" else None
        return _Term("sum", atoms=family, limit=limit)
    if val.shape in ("product", "sum"):
        return _Term("expr", atoms=list(val.atoms), op="*" if val.shape == "product" else "+", val=val)
    return _Term("poly", val=val)


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
class Pending:
    """A sum whose meaning (over tests or elements) needs the whole statement."""

    term: _Term
    upper: int
    text: str


def _flip(op: str) -> str:
    return {"≥": "≤", ">": "<", "≤": "≥", "<": ">"}.get(op, op)


def records_of(terms: list[_Term], ops: list[str], text: str) -> list[_Record | Pending]:
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
    formulas = any(t.kind in ("poly", "minmax") for t in terms) or (
        any(t.kind == "expr" for t in terms) and len(variable_terms) > 1)
    if formulas:
        return _pairwise(terms, strict, text)

    if any(t.kind == "dots" for t in terms) or _same_family(variable_terms):
        return [_ordered_family(terms, strict, text)]

    if len(variable_terms) == 1:
        k = next(i for i, t in enumerate(terms) if t.kind != "num")
        lower = terms[k - 1].value + strict[k - 1] if k > 0 else None
        upper = terms[k + 1].value - strict[k] if k + 1 < len(terms) else None
        return _unary(terms[k], lower, upper, text)

    if any(t.kind not in ("num", "vars") for t in terms):
        raise _Fail("an expression inside a chain of several variables")
    out: list[_Record | Pending] = []
    choices = [[t.value] if t.kind == "num" else [a.key for a in t.atoms] for t in terms]
    for combo in itertools.product(*choices):
        out.append(Chain(terms=list(combo), strict=strict, text=text))
    return out


def _alternatives(term: _Term, side: Literal["left", "right"]) -> list[_Val]:
    """The values a side of ``≤`` stands for: each of a list, each argument of
    ``min`` on the right / ``max`` on the left (the other placements are a choice)."""
    if term.kind in ("dots", "sum"):
        raise _Fail("a sum or an ellipsis inside a formula chain")
    if term.kind == "minmax":
        assert term.val is not None
        if (term.op == "min") != (side == "right"):
            raise _Fail(f"{term.op}(…) on the {side} of ≤ is a disjunction, not a bound")
        return term.val.args
    if term.kind == "num":
        return [_Val.number(Fraction(term.value))]
    if term.kind == "vars":
        return [_Val.variable(a) for a in term.atoms]
    assert term.val is not None
    return [term.val]


def _pairwise(terms: list[_Term], strict: list[bool], text: str) -> list[_Record | Pending]:
    """One record per neighbouring pair of a chain with formulas in it; plain-variable
    bounds of the chain are merged into one range record per variable."""
    out: list[_Record | Pending] = []
    unary: dict[str, list] = {}  # key -> [atom, lower, upper]
    for k, is_strict in enumerate(strict):
        for left in _alternatives(terms[k], "left"):
            for right in _alternatives(terms[k + 1], "right"):
                lc, rc = left.constant(), right.constant()
                if lc is not None and rc is not None:
                    continue
                if left.shape == "atom" and rc is not None:
                    bound = _floor(rc) - (is_strict and rc.denominator == 1)
                    _bound(unary, out, left.atoms[0], upper=bound)
                elif right.shape == "atom" and lc is not None:
                    bound = _ceil(lc) + (is_strict and lc.denominator == 1)
                    _bound(unary, out, right.atoms[0], lower=bound)
                elif left.shape in ("product", "sum") and rc is not None:
                    cls = ProductBound if left.shape == "product" else SumBound
                    out.append(cls(vars=[a.key for a in left.atoms],
                                   upper=_floor(rc) - (is_strict and rc.denominator == 1), text=text))
                elif right.shape in ("product", "sum") and lc is not None:
                    cls = ProductBound if right.shape == "product" else SumBound
                    out.append(cls(vars=[a.key for a in right.atoms],
                                   lower=_ceil(lc) + (is_strict and lc.denominator == 1), text=text))
                elif left.shape == "atom" and right.shape == "atom":
                    out.append(Chain(terms=[left.atoms[0].key, right.atoms[0].key], strict=[is_strict], text=text))
                else:
                    out.append(Relation(left=left.poly(), right=right.poly(), strict=is_strict, text=text))
    for atom, lower, upper in unary.values():
        out += _unary(_Term("vars", atoms=[atom]), lower, upper, text)
    return out


def _floor(value: Fraction) -> int:
    return value.numerator // value.denominator


def _ceil(value: Fraction) -> int:
    return -((-value.numerator) // value.denominator)


def _bound(unary: dict[str, list], out: list, atom: _Atom, lower: int | None = None, upper: int | None = None) -> None:
    entry = unary.setdefault(atom.key, [atom, None, None])
    if lower is not None:
        entry[1] = lower if entry[1] is None else max(entry[1], lower)
    if upper is not None:
        entry[2] = upper if entry[2] is None else min(entry[2], upper)


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
    length_var = last_sub if re.fullmatch(r"[" + _L + r"]", last_sub) and last_sub not in "ijk" else None
    key = f"{atoms[0].base}_i"
    return IndexedRange(var=key, lower=lower, upper=upper, order=order, length_var=length_var, text=text)


def _unary(term: _Term, lower: Bound, upper: Bound, text: str) -> list[_Record | Pending]:
    if term.kind == "vars":
        out: list[_Record | Pending] = []
        for atom in term.atoms:
            if atom.length:
                out.append(StringLength(var=atom.key, lower=lower, upper=upper, text=text))
            elif atom.indexed:
                length_var = atom.sub if atom.sub and re.fullmatch(r"[" + _L + r"]", atom.sub) \
                    and atom.sub not in "ijkl" else None
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
        return [Pending(s, upper, text) for s in (term.sums or [term])]
    raise _Fail("nothing to bound")


# --------------------------------------------------------------------------- sentences

_SUBTASK = re.compile(r"\b(?:subtasks?|sub-tasks?|points?|scored?|groups?\s+\d|easy\s+version|hard\s+version)\b",
                      re.IGNORECASE)
# "print k (1 ≤ k ≤ n)", "if k > n, output -1": output format, stated with comparators.
_OUTPUT_VERB = re.compile(r"\b(?:print|prints|printed|output|outputs)\b", re.IGNORECASE)
_INDEX_LETTERS = {"i", "j"}
TRACE_CHARS = 500


def parse_sentence(sentence: str) -> tuple[list[_Record | Pending], Skipped | None, Skipped | None]:
    """Records of one sentence, plus its unparsed or ignored report (if any).

    Records and reports quote the sentence (cut to :data:`TRACE_CHARS`), so that a
    long hostile sentence does not make every one of its records as long."""
    text = normalize(sentence)
    sentence = sentence if len(sentence) <= TRACE_CHARS else sentence[: TRACE_CHARS - 1] + "…"
    toks = tokenize(text)
    comparators = [i for i, t in enumerate(toks) if t.kind == "CMP" or t.text in ("∈", "∉", "⊆")]
    if not comparators:
        return [], None, None
    if _SUBTASK.search(sentence):
        return [], None, Skipped(text=sentence, reason="subtask/version-specific bound; the full problem's bounds are used")
    if _OUTPUT_VERB.search(sentence):
        return [], None, Skipped(text=sentence, reason="describes the output, not the input")

    parser = _ChainParser(toks)
    records: list[_Record | Pending] = []
    consumed: set[int] = set()
    problems: list[str] = []
    index_ranges = False
    i = 0
    while i < len(toks):
        # A start glued to the token before it is inside a larger formula: never a chain.
        if parser.kind(i - 1) in _NO_NEIGHBOUR or parser.text(i - 1) in ("'", "′", "!"):
            i += 1
            continue
        parser.furthest = i
        try:
            got = parser.chain(i)
        except _Fail as failure:
            problems.append(str(failure))
            i = max(i + 1, parser.furthest)
            continue
        if got is None:
            i += 1
            continue
        terms, ops, end = got
        if terms is None or ops is None:
            i = max(i + 1, end)  # a term without a comparator: its inner starts are suffixes
            continue
        try:
            new = records_of(terms, ops, sentence)
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
        if any(c in ("∈", "∉", "⊆") for c in leftover) and not problems:
            reason = "set membership is not a supported constraint form"
        return records, Skipped(text=sentence, reason=reason), None
    return records, None, None


def _is_index_range(records: list[_Record | Pending]) -> bool:
    return bool(records) and all(
        isinstance(r, Chain) and any(v in _INDEX_LETTERS for v in r.variables())
        or isinstance(r, ScalarRange) and r.var in _INDEX_LETTERS and r.upper is None
        for r in records)

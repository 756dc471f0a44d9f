"""Typed constraint records: what the parser (:mod:`.constraints`) produces and the
saturator, the input checker and any other method (a WEDGE baseline, say) consume.

All bounds are inclusive integers (``x < 2^{30}`` is stored as ``upper = 2^30 − 1``);
every record keeps its source sentence in ``text``. Variables are keys: ``n``, an
indexed family ``a_i`` / ``a_{i,j}``, a length ``|s|`` / ``|s_i|``, a named value
``x_1``. :class:`Relation` holds any polynomial inequality between variables
(``n − 1 ≤ m``, ``m ≤ n(n−1)/2``, ``s + e < d``) that the simpler kinds cannot.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Annotated, Literal, Union

from pydantic import Field

from tczoo.schema import Model

Bound = int | None


class _Record(Model):
    text: str = ""  # the source sentence, so every record can be traced back

    def variables(self) -> list[str]:
        raise NotImplementedError

    def render(self) -> str:
        raise NotImplementedError


def _range_text(var: str, lower: Bound, upper: Bound) -> str:
    parts = ([f"{lower} ≤"] if lower is not None else []) + [var]
    return " ".join(parts + ([f"≤ {upper}"] if upper is not None else []))


class _Ranged(_Record):
    """One variable between two optional inclusive bounds (the three range kinds)."""

    var: str
    lower: Bound = None
    upper: Bound = None

    def variables(self) -> list[str]:
        return [self.var]

    def render(self) -> str:
        return _range_text(self.var, self.lower, self.upper)


class ScalarRange(_Ranged):
    """``1 ≤ n ≤ 10^5`` (bounds inclusive; strict comparators are already adjusted)."""

    kind: Literal["scalar_range"] = "scalar_range"


class IndexedRange(_Ranged):
    """``1 ≤ a_i ≤ 10^9``: every element of an indexed family.

    ``var`` is canonical (``a_i``, ``a_{i,j}``) whatever index letters the statement
    used. ``order`` records sortedness stated as ``a_1 ≤ a_2 ≤ ... ≤ a_n``;
    ``length_var`` is the count when the statement wrote ``a_1, ..., a_n``.
    """

    kind: Literal["indexed_range"] = "indexed_range"
    order: Literal["non-decreasing", "increasing"] | None = None
    length_var: str | None = None

    def render(self) -> str:
        return super().render() + (f" ({self.order})" if self.order else "")


class StringLength(_Ranged):
    """``1 ≤ |s| ≤ 2·10^5`` or "the length of s is at most 10^5"; ``var`` is ``|s|``."""

    kind: Literal["string_length"] = "string_length"


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


# --------------------------------------------------------------------------- polynomials


class Monomial(Model):
    """``coef · Π vars`` (``vars`` in the order written, repeated for powers: ``n^2`` is
    ``["n", "n"]``)."""

    coef: int
    vars: list[str] = Field(default_factory=list)


class Poly(Model):
    """A polynomial with rational coefficients: ``Σ terms / den`` (``den`` ≥ 1)."""

    terms: list[Monomial] = Field(default_factory=list)
    den: int = 1

    @classmethod
    def of(cls, coefs: Mapping[tuple[str, ...], Fraction]) -> Poly:
        """From ``{(vars...): coefficient}``; zero terms dropped, one common denominator.
        Equal monomials must already be combined under one key (the parser orders each
        key's variables by first appearance, so ``n·m`` and ``m·n`` are one key)."""
        items = [(tuple(k), Fraction(v)) for k, v in coefs.items() if v]
        den = 1
        for _, v in items:
            den = den * v.denominator // _gcd(den, v.denominator)
        # Terms keep the order they were written in: "100000 - m", "n^2 - n".
        terms = [Monomial(coef=int(v * den), vars=list(k)) for k, v in items]
        return cls(terms=terms, den=den)

    def coefficients(self) -> dict[tuple[str, ...], Fraction]:
        return {tuple(t.vars): Fraction(t.coef, self.den) for t in self.terms}

    def variables(self) -> list[str]:
        return list(dict.fromkeys(v for t in self.terms for v in t.vars))

    def constant(self) -> Fraction | None:
        """The value when the polynomial has no variable, else None."""
        if any(t.vars for t in self.terms):
            return None
        return Fraction(sum(t.coef for t in self.terms), self.den)

    def evaluate(self, values: Mapping[str, int]) -> Fraction:
        total = Fraction(0)
        for t in self.terms:
            product = t.coef
            for var in t.vars:
                product *= values[var]
            total += product
        return total / self.den

    def render(self) -> str:
        if not self.terms:
            return "0"
        out: list[str] = []
        for k, t in enumerate(self.terms):
            names = _monomial_text(t.vars)
            magnitude = abs(t.coef)
            body = names if names and magnitude == 1 else (
                f"{magnitude}·{names}" if names else str(magnitude))
            sign = "-" if t.coef < 0 else "+"
            out.append(("-" if t.coef < 0 else "") + body if k == 0 else f" {sign} {body}")
        text = "".join(out)
        return f"({text})/{self.den}" if self.den != 1 else text


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


def _monomial_text(vars_: list[str]) -> str:
    parts = []
    for var in dict.fromkeys(vars_):
        power = vars_.count(var)
        parts.append(var if power == 1 else f"{var}^{power}")
    return "·".join(parts)


class Relation(_Record):
    """A polynomial inequality among variables: ``left ≤ right`` (``<`` when strict).

    ``n − 1 ≤ m``, ``m ≤ n(n−1)/2``, ``s + e < d``, ``2n ≤ 10^5``. The saturator hands
    it to CP-SAT as it is (products of variables through multiplication equalities);
    the checker evaluates it on an input (indexed variables elementwise).
    """

    kind: Literal["relation"] = "relation"
    left: Poly
    right: Poly
    strict: bool = False

    def variables(self) -> list[str]:
        return list(dict.fromkeys(self.left.variables() + self.right.variables()))

    def difference(self) -> Poly:
        """``left − right``; the relation holds when it is ``≤ 0`` (``≤ −1`` if strict)."""
        coefs = self.left.coefficients()
        for key, value in self.right.coefficients().items():
            coefs[key] = coefs.get(key, Fraction(0)) - value
        return Poly.of(coefs)

    def holds(self, values: Mapping[str, int]) -> bool:
        left, right = self.left.evaluate(values), self.right.evaluate(values)
        return left < right if self.strict else left <= right

    def render(self) -> str:
        return f"{self.left.render()} {'<' if self.strict else '≤'} {self.right.render()}"


Constraint = Annotated[
    Union[ScalarRange, IndexedRange, StringLength, Chain, ProductBound, SumBound, SumOver, NotEqual,
          Relation],
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

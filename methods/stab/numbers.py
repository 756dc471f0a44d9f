"""Number forms found in constraint sentences, and their exact integer values.

Statements write the same bound many ways: ``10^5``, ``10^{5}``, ``10⁵``, ``1e5``,
``2·10^5``, ``2 \\cdot 10^5``, ``2×10^5``, ``2*10^5``, ``200 000``, ``200,000``,
``2^{30}``, ``2^{31}-1``, ``-10^9``. :func:`normalize_numbers` rewrites the spellings
that need context (superscripts, braces, digit groups) into one canonical form, and
:func:`evaluate` computes the value of a canonical number expression exactly (with
fractions, so ``1.5e5`` is 150000 and ``2.5`` is rejected rather than truncated).

Whether a number is a *bound* is decided by the parser from its context (it must sit
next to a comparator): ``10^9+7`` in "modulo 10^9+7" is a number, not a bound.
"""

from __future__ import annotations

import re
from fractions import Fraction

_SUPERSCRIPT_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")

# One atom: a decimal (optionally in e-notation) or an integer power. Signs and the
# arithmetic between atoms are tokens of their own, so "2*10^5" is 2 × (10^5).
ATOM = r"\d+(?:\.\d+)?(?:[eE]\+?\d+)?(?:\^\d+)?"
ATOM_RE = re.compile(ATOM)

# Exponents beyond this are not input bounds; refusing them keeps "10^99999" from
# costing time or memory.
_MAX_EXPONENT = 200

# Digit groups: "200 000", "200 000" (nbsp/thin space), "200,000", "1 000 000".
# Only one separator character is allowed between groups, and a comma group must not
# be followed by a space-separated word of digits; "1 ≤ n, m ≤ 1000" has ", m" and
# "100, 1 ≤" has a 1-digit group, so neither is glued.
_GROUPED = re.compile(
    r"(?<![\d.,^])(\d{1,3})((?:,\d{3})+|(?:[ \u00a0\u2009\u202f]\d{3})+)(?![\d^]|\.\d|,\d)"
)


def normalize_numbers(text: str) -> str:
    """Rewrite number spellings into the canonical form that :data:`ATOM` matches."""
    text = text.replace("**", "^")
    text = re.sub(
        r"(\d)\s*([⁰¹²³⁴⁵⁶⁷⁸⁹]+)",
        lambda m: f"{m[1]}^{m[2].translate(_SUPERSCRIPT_DIGITS)}",
        text,
    )
    # 10^{5}, 10^{ 5 }, 10 ^ 5 -> 10^5
    text = re.sub(r"(\d)\s*\^\s*\{\s*(\d+)\s*\}", r"\1^\2", text)
    text = re.sub(r"(\d)\s*\^\s*(\d)", r"\1^\2", text)
    # "200{,}000" is how LaTeX writes a grouping comma without the space after it.
    text = re.sub(r"(\d)\{,\}(\d{3})", r"\1,\2", text)
    return _GROUPED.sub(lambda m: m[1] + re.sub(r"[^\d]", "", m[2]), text)


def atom_value(atom: str) -> Fraction | None:
    """Exact value of one :data:`ATOM` (``2^30``, ``1e5``, ``12``); None if absurd."""
    base, _, exponent = atom.partition("^")
    value = Fraction(base)
    if exponent:
        power = int(exponent)
        if power > _MAX_EXPONENT:
            return None
        value = value**power
    return value


def evaluate(tokens: list[str]) -> int | None:
    """Value of an alternating list ``[atom, op, atom, ...]`` with ops ``+ - *``.

    A leading ``"-"`` is a sign. ``*`` binds tighter than ``+``/``-``. Returns None
    when the result is not an integer (a real-valued bound is not something an
    integer boundary can use) or an atom is out of range.
    """
    sign = 1
    if tokens and tokens[0] == "-":
        sign, tokens = -1, tokens[1:]
    if not tokens or len(tokens) % 2 == 0:
        return None
    total = Fraction(0)
    term: Fraction | None = None
    pending_sign = sign
    for index, token in enumerate(tokens):
        if index % 2 == 0:
            value = atom_value(token)
            if value is None:
                return None
            term = value if term is None else term * value
            continue
        if token == "*":
            continue
        if token not in "+-" or term is None:
            return None
        total += pending_sign * term
        pending_sign, term = (1 if token == "+" else -1), None
    assert term is not None
    total += pending_sign * term
    if total.denominator != 1:
        return None
    return int(total)


def parse_number(text: str) -> int | None:
    """Integer value of a whole number expression such as ``"2 \\cdot 10^{5}"``.

    A convenience for tests and callers holding a single number; the parser itself
    works on tokens. Returns None when *text* is not exactly one number expression.
    """
    text = text.strip().replace("$", "")
    text = re.sub(r"\\(?:cdot|times|ast)(?![A-Za-z])", "*", text)
    text = re.sub(r"[·⋅×∙]", "*", text)
    text = text.replace("\\,", " ").replace("−", "-")
    text = normalize_numbers(text)
    tokens = re.findall(ATOM + r"|[-+*]|\S", text)
    if any(not (ATOM_RE.fullmatch(t) or t in "+-*") for t in tokens):
        return None
    return evaluate(tokens)

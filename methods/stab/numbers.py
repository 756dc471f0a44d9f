"""Number forms found in constraint sentences, and their exact integer values.

Statements write the same bound many ways: ``10^5``, ``10^{5}``, ``10⁵``, ``1e5``,
``2·10^5``, ``2 \\cdot 10^5``, ``2×10^5``, ``2*10^5``, ``200 000``, ``200,000``,
``2^{30}``, ``2^{31}-1``, ``-10^9``. :func:`normalize_numbers` rewrites the spellings
that need context (superscripts, braces, digit groups) into one canonical form, and
:func:`evaluate` computes the value of a canonical number expression exactly (with
fractions, so ``1.5e5`` is 150000 and ``2.5`` is rejected rather than truncated).

Every value is bounded: a number written with more than :data:`MAX_DIGITS` digits,
an exponent above :data:`MAX_EXPONENT` or a value beyond ``10^MAX_EXPONENT`` is *too
large* (:class:`TooLarge`), never computed. Python refuses to turn more than 4,300
digits into an int, and ``10^99999999`` would take the machine: neither is an input
bound, so the parser reports such a sentence as unparsed.

Whether a number is a *bound* is decided by the parser from its context (it must sit
next to a comparator): ``10^9+7`` in "modulo 10^9+7" is a number, not a bound.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

_SUPERSCRIPT_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")

# One atom: a decimal (optionally in e-notation) or an integer power. Signs and the
# arithmetic between atoms are tokens of their own, so "2*10^5" is 2 × (10^5).
ATOM = r"\d+(?:\.\d+)?(?:[eE]\+?\d+)?(?:\^\d+)?"
ATOM_RE = re.compile(ATOM)
_ATOM_PARTS = re.compile(r"(\d+)(?:\.(\d+))?(?:[eE]\+?(\d+))?(?:\^(\d+))?")

# Limits on what counts as a number at all. Input bounds in real statements stay far
# below 10^100; the limits only keep hostile text from costing time or raising.
MAX_DIGITS = 200
MAX_EXPONENT = 200
NUMBER_LIMIT = 10**MAX_EXPONENT  # the largest magnitude a bound may have


class TooLarge(ValueError):
    """A number beyond :data:`MAX_DIGITS` digits or :data:`MAX_EXPONENT` (not computed)."""


def _check_size(value: Fraction) -> Fraction:
    if abs(value.numerator) > NUMBER_LIMIT * value.denominator or value.denominator > NUMBER_LIMIT:
        raise TooLarge(f"a number beyond 10^{MAX_EXPONENT}")
    return value


def atom_value(atom: str) -> Fraction:
    """Exact value of one :data:`ATOM` (``2^30``, ``1e5``, ``12``); :class:`TooLarge`
    when it would exceed the size limits (checked before anything big is computed)."""
    match = _ATOM_PARTS.fullmatch(atom)
    if match is None:
        raise ValueError(f"not a number: {atom[:40]!r}")
    whole, frac, e_exp, power = match.groups()
    if len(whole) + len(frac or "") > MAX_DIGITS:
        raise TooLarge(f"a number of more than {MAX_DIGITS} digits")
    for exponent in (e_exp, power):
        if exponent is not None and (len(exponent) > 4 or int(exponent) > MAX_EXPONENT):
            raise TooLarge(f"an exponent above {MAX_EXPONENT}")
    value = Fraction(int(whole + (frac or "")), 10 ** len(frac or ""))
    if e_exp is not None:
        value *= 10 ** int(e_exp)
    if power is not None:
        # Check base^power against the limit by its logarithm before computing it.
        if abs(value) > 1 and math.log10(abs(value)) * int(power) > MAX_EXPONENT + 1e-9:
            raise TooLarge(f"a number beyond 10^{MAX_EXPONENT}")
        value = value ** int(power)
    return _check_size(value)


def normalize_numbers(text: str) -> str:
    """Rewrite number spellings into the canonical form that :data:`ATOM` matches."""
    text = text.replace("**", "^")
    text = re.sub(
        r"(\d)\s*([⁰¹²³⁴⁵⁶⁷⁸⁹]+)",
        lambda m: f"{m[1]}^{m[2].translate(_SUPERSCRIPT_DIGITS)}",
        text,
    )
    # 10^{5}, 10^{ 5 }, 10 ^ 5 -> 10^5
    text = re.sub(r"(\d)\s?\^\s?\{\s?(\d+)\s?\}", r"\1^\2", text)
    text = re.sub(r"(\d)\s?\^\s?(\d)", r"\1^\2", text)
    # "200{,}000" is how LaTeX writes a grouping comma without the space after it.
    text = re.sub(r"(\d)\{,\}(\d{3})", r"\1,\2", text)
    return _glue_digit_groups(text)


# A maximal run of digit groups with single separators between them. Every character
# is consumed once, so finding the runs is linear; which groups form one number is
# then decided in Python (a backtracking regex for it was quadratic on "1 000 1 000 …").
_RUN = re.compile(r"\d+(?:[, \u00a0\u2009\u202f]\d+)*")


def _glue_digit_groups(text: str) -> str:
    """Digit groups: "200 000", "200 000" (nbsp/thin space), "200,000", "1 000 000".

    A number is a first group of 1-3 digits followed by groups of exactly 3 digits,
    all with the same kind of separator (comma, or a space-like character). A comma
    group must be the whole run ("1 ≤ n, m ≤ 1000" has ", m"; "100, 1 ≤" has a one-digit
    group: neither is glued), and nothing glues after a decimal point or exponent.
    """
    out: list[str] = []
    last = 0
    for match in _RUN.finditer(text):
        start, end = match.span()
        before = text[start - 1] if start else ""
        if before and (before in ".^" or before.isalpha() or before == "_"):
            continue
        after = text[end : end + 2]
        run = match.group()
        glued = _glue_run(run, trailing=after)
        if glued != run:
            out.append(text[last:start])
            out.append(glued)
            last = end
    out.append(text[last:])
    return "".join(out)


def _glue_run(run: str, trailing: str) -> str:
    parts = re.split(r"([, \u00a0\u2009\u202f])", run)
    groups, seps = parts[0::2], parts[1::2]
    if len(groups) < 2:
        return run
    decimal_after = trailing[:1] == "." and trailing[1:2].isdigit()
    if trailing[:1] == "^" or decimal_after:
        return run
    if any(s == "," for s in seps):
        # Commas: all separators commas, first group 1-3 digits, the rest exactly 3.
        if all(s == "," for s in seps) and 1 <= len(groups[0]) <= 3 and all(len(g) == 3 for g in groups[1:]):
            return "".join(groups)
        return run
    # Spaces: glue greedily from each group that can start a number.
    pieces: list[str] = []
    i = 0
    while i < len(groups):
        j = i
        if 1 <= len(groups[i]) <= 3:
            while j + 1 < len(groups) and len(groups[j + 1]) == 3:
                j += 1
        pieces.append("".join(groups[i : j + 1]))
        i = j + 1
    return " ".join(pieces)


def evaluate(tokens: list[str]) -> int | None:
    """Value of an alternating list ``[atom, op, atom, ...]`` with ops ``+ - *``.

    A leading ``"-"`` is a sign. ``*`` binds tighter than ``+``/``-``. Returns None
    when the result is not an integer (a real-valued bound is not something an
    integer boundary can use); raises :class:`TooLarge` for oversized numbers.
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
            term = value if term is None else _check_size(term * value)
            continue
        if token == "*":
            continue
        if token not in "+-" or term is None:
            return None
        total += pending_sign * term
        pending_sign, term = (1 if token == "+" else -1), None
    assert term is not None
    total = _check_size(total + pending_sign * term)
    if total.denominator != 1:
        return None
    return int(total)


def parse_number(text: str) -> int | None:
    """Integer value of a whole number expression such as ``"2 \\cdot 10^{5}"``.

    A convenience for tests and callers holding a single number; the parser itself
    works on tokens. Returns None when *text* is not exactly one number expression
    or is too large to be a bound.
    """
    text = text.strip().replace("$", "")
    text = re.sub(r"\\(?:cdot|times|ast)(?![A-Za-z])", "*", text)
    text = re.sub(r"[·⋅×∙]", "*", text)
    text = text.replace("\\,", " ").replace("−", "-")
    text = normalize_numbers(text)
    tokens = re.findall(ATOM + r"|[-+*]|\S", text)
    if any(not (ATOM_RE.fullmatch(t) or t in "+-*") for t in tokens):
        return None
    try:
        return evaluate(tokens)
    except TooLarge:
        return None

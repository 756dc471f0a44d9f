"""Output comparison: tokens (default), exact, numeric tolerance, or Kattis's default validator.

``None`` / ``"tokens"``  whitespace-insensitive: the outputs split into the same tokens.
``"exact"``              byte-for-byte equal (after decoding).
``"float:ABS[:REL]"``    same token count; a token pair where both parse as numbers
                         matches when ``|a-e| <= ABS`` or ``|a-e| <= REL*|e|``; any
                         other pair must be equal as strings.
``"kattis[:FLAGS]"``     the Kattis/ICPC default output validator (problemtools'
                         ``default_validator``) with its ``validator_flags``:
                         ``case_sensitive``, ``space_change_sensitive``,
                         ``float_tolerance E``, ``float_absolute_tolerance E``,
                         ``float_relative_tolerance E``; flags are separated by spaces
                         or commas, a value may also follow ``=``
                         (``kattis:float_tolerance 1e-6`` = ``kattis:float_tolerance=1e-6``).
``"program"``            the problem's own output validator program decides
                         (:class:`tczoo.schema.Validator`); no string comparison can
                         stand in for it, so :func:`compare_outputs` refuses it.

The Kattis mode differs from ``tokens`` exactly where the format's default validator
does: tokens compare case-*insensitively* (ASCII) unless ``case_sensitive``; with a
float tolerance, an expected token that is a finite C-style float requires a float
within the absolute *or* relative tolerance (a tolerance not given is not applied);
``space_change_sensitive`` requires every whitespace run, leading and trailing ones
included, to be identical.

The TC-Bench reference judge differs: it strips each line, joins the lines with single
spaces and compares the strings, allowing 1e-6 only when the whole output is one
decimal number. Ours treats any whitespace run (inside a line too) as a separator and
applies the tolerance per token, only when asked for.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

KATTIS_FLAGS = ("case_sensitive", "space_change_sensitive")
KATTIS_VALUED = ("float_tolerance", "float_absolute_tolerance", "float_relative_tolerance")
PROGRAM = "program"


class ValidatorRequired(ValueError):
    """Outputs of this problem are judged by its output validator program, not by a string rule."""


@dataclass(frozen=True)
class Comparator:
    """A parsed comparator spec. ``abs_tol``/``rel_tol`` of None: that tolerance is not applied."""

    mode: str  # "tokens" | "exact" | "float" | "kattis" | "program"
    abs_tol: float | None = None
    rel_tol: float | None = None
    case_sensitive: bool = True
    space_change_sensitive: bool = False

    @property
    def uses_floats(self) -> bool:
        return self.abs_tol is not None or self.rel_tol is not None


def kattis_comparator(flags: str | list[str] | None) -> str:
    """The comparator spec for a Kattis default validator with these ``validator_flags``
    (validated: a bad flag raises ValueError)."""
    text = " ".join(flags) if isinstance(flags, list) else (flags or "")
    spec = f"kattis:{' '.join(text.split())}" if text.strip() else "kattis"
    parse_comparator(spec)
    return spec


def _kattis(spec: str, flags_text: str) -> Comparator:
    words = [w for w in re.split(r"[\s,]+", flags_text.replace("=", " ")) if w]
    abs_tol = rel_tol = None
    case_sensitive = space_sensitive = False
    i = 0
    while i < len(words):
        word = words[i]
        if word == "case_sensitive":
            case_sensitive = True
        elif word == "space_change_sensitive":
            space_sensitive = True
        elif word in KATTIS_VALUED:
            value = _c_float(words[i + 1]) if i + 1 < len(words) else None
            if value is None or value < 0:
                raise ValueError(f"bad comparator {spec!r}: {word} needs a non-negative number")
            if word != "float_relative_tolerance":
                abs_tol = value
            if word != "float_absolute_tolerance":
                rel_tol = value
            i += 1
        else:
            raise ValueError(
                f"bad comparator {spec!r}: unknown validator flag {word!r} "
                f"(known: {', '.join(KATTIS_FLAGS + KATTIS_VALUED)})"
            )
        i += 1
    return Comparator("kattis", abs_tol, rel_tol, case_sensitive, space_sensitive)


def parse_comparator(comparator: str | None) -> Comparator:
    if comparator in (None, "", "tokens"):
        return Comparator("tokens")
    if comparator == "exact":
        return Comparator("exact")
    if comparator == PROGRAM:
        return Comparator(PROGRAM)
    if comparator == "kattis" or comparator.startswith("kattis:"):
        return _kattis(comparator, comparator[len("kattis:"):] if ":" in comparator else "")
    if comparator.startswith("float"):
        parts = comparator.split(":")
        try:
            abs_tol = float(parts[1]) if len(parts) > 1 and parts[1] else 1e-6
            rel_tol = float(parts[2]) if len(parts) > 2 and parts[2] else 0.0
        except ValueError:
            raise ValueError(f"bad comparator {comparator!r}: want float:ABS[:REL]") from None
        if len(parts) > 3:
            raise ValueError(f"bad comparator {comparator!r}: want float:ABS[:REL]")
        return Comparator("float", abs_tol, rel_tol)
    raise ValueError(
        f"unknown comparator {comparator!r} (tokens, exact, float:ABS[:REL], kattis[:FLAGS], program)"
    )


def _number(tok: str) -> float | None:
    try:
        return float(tok)
    except ValueError:
        return None


# What C's strtod reads as a whole token (the default validator's sscanf("%lf%10s") == 1):
# decimal or hexadecimal floating point, optionally signed. inf/nan are not floats there.
_DEC = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_HEX = r"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?"
_C_FLOAT = re.compile(f"(?:{_DEC}|{_HEX})")


def _c_float(tok: str) -> float | None:
    if len(tok) > 4096 or not _C_FLOAT.fullmatch(tok):
        return None
    try:
        value = float.fromhex(tok) if "x" in tok or "X" in tok else float(tok)
    except (ValueError, OverflowError):
        return None
    return value if math.isfinite(value) else None


def _close(a: float, e: float, abs_tol: float, rel_tol: float) -> bool:
    if math.isnan(a) or math.isnan(e):
        return math.isnan(a) and math.isnan(e)
    if math.isinf(a) or math.isinf(e):
        return a == e
    diff = abs(a - e)
    return diff <= abs_tol or diff <= rel_tol * abs(e)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_C_SPACE = "[ \t\n\v\f\r]+"  # C's isspace: what the default validator separates tokens by
_C_SPACE_RE = re.compile(_C_SPACE)
_C_SPACE_SPLIT = re.compile(f"({_C_SPACE})")


def _kattis_token_ok(got: str, want: str, c: Comparator) -> bool:
    if c.uses_floats:
        expected = _c_float(want)
        if expected is not None:
            actual = _c_float(got)
            if actual is None:
                return False
            diff = abs(expected - actual)
            return (c.abs_tol is not None and diff <= c.abs_tol) or (
                c.rel_tol is not None and diff <= c.rel_tol * abs(expected))
    if c.case_sensitive:
        return got == want
    return got.translate(_ASCII_LOWER) == want.translate(_ASCII_LOWER)


def _kattis_equal(actual: str, expected: str, c: Comparator) -> bool:
    if c.space_change_sensitive:
        # Alternating token / whitespace-run pieces; the runs must match exactly.
        got, want = _C_SPACE_SPLIT.split(actual), _C_SPACE_SPLIT.split(expected)
        if len(got) != len(want):
            return False
        return all(g == w if i % 2 else (g == w or (g != "" and w != "" and _kattis_token_ok(g, w, c)))
                   for i, (g, w) in enumerate(zip(got, want)))
    got = [t for t in _C_SPACE_RE.split(actual) if t]
    want = [t for t in _C_SPACE_RE.split(expected) if t]
    return len(got) == len(want) and all(_kattis_token_ok(g, w, c) for g, w in zip(got, want))


def compare_outputs(actual: str, expected: str, comparator: str | None = None) -> bool:
    c = parse_comparator(comparator)
    if c.mode == PROGRAM:
        raise ValidatorRequired(
            "this problem's outputs are judged by its output validator program: "
            "use Sandbox.judge(..., output_validator=...) or Sandbox.validate_output"
        )
    if c.mode == "exact":
        return actual == expected
    if c.mode == "kattis":
        return _kattis_equal(actual, expected, c)
    got, want = actual.split(), expected.split()
    if c.mode == "tokens" or len(got) != len(want):
        return got == want
    for g, w in zip(got, want):
        if g == w:
            continue
        a, e = _number(g), _number(w)
        if a is None or e is None or not _close(a, e, c.abs_tol or 0.0, c.rel_tol or 0.0):
            return False
    return True

"""Constraint sentences to one canonical text (STAB §3.1, first stage of the parser).

LaTeX (``$..$``, ``\\le``, ``\\cdot``, ``\\,``, ``\\{``, ``\\frac``), Unicode (``≤ ⋅ ·
× ⁵``), ASCII (``<=``) and number spellings become one canonical text; comparator
words ("at most", "does not exceed", "between 1 and 10^5 inclusive"), lengths ("the
length of s") and aggregate sums ("the sum of n over all test cases") are rewritten
into symbols (``≤``, ``|s|``, ``∑(n)``). Greek letters and ``\\ell`` become one-letter
variables (``ℓ``).

Every pattern here is linear in the text: whitespace is collapsed first, so no
``\\s*`` can split a run of spaces several ways, and every variable-length piece is
either bounded (``{1,40}``) or cannot overlap what follows it. ``bench/stab_parser.py``
measures it on generated worst cases.
"""

from __future__ import annotations

import re

from .numbers import normalize_numbers

_I = re.IGNORECASE

# Letters a variable may be named with: ASCII, lower-case Greek and ℓ (capital sigma
# is the sum sign and stays out).
LETTER = "A-Za-zα-ωΑ-ΡΤ-Ωℓ"
_GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "θ", "iota": "ι", "kappa": "κ",
    "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π", "rho": "ρ", "varrho": "ρ",
    "tau": "τ", "upsilon": "υ", "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ",
    "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ",
    "Pi": "Π", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω", "ell": "ℓ", "sigma": "σ",
}

_LATEX_SUBS: list[tuple[str, str]] = [
    (r"\\(?:displaystyle|limits|nolimits|left|right|big|Big|bigg|Bigg)(?![A-Za-z])", ""),
    (r"\\(?:text|textrm|textit|textbf|textsf|texttt|mathrm|mathit|mathbf|mathsf|mathtt|"
     r"operatorname|mbox|emph|boldsymbol)\s?\{([^{}]*)\}", r"\1"),
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
    (r"\\(" + "|".join(sorted(_GREEK, key=len, reverse=True)) + r")(?![A-Za-z])", "\x00\\1\x00"),
    (r"\\([A-Za-z]+)", r" \1 "),  # \max, \log ... become words
    (r"\\.", " "),
]
_CHAR_SUBS = {
    "≦": "≤", "⩽": "≤", "≧": "≥", "⩾": "≥", "−": "-", "–": "-", "∗": "*", "·": "*", "⋅": "*",
    "×": "*", "∙": "*", "✕": "*", "…": "...", "Σ": "∑", "\u00a0": " ", "\u2009": " ",
    "\u202f": " ", "\u200a": " ", "\u2002": " ", "\u2003": " ", "⩵": "=",
}
_ASCII_SUBS = [("<=>", "⇔"), ("<=", "≤"), (">=", "≥"), ("=<", "≤"), ("!=", "≠"), ("=>", "⇒"),
               ("->", "→"), ("<-", "←"), ("<<", "≪"), (">>", "≫"), ("==", "=")]

# What ends or starts an operand, to decide whether two adjacent $..$ pieces are one
# formula ("$1$ $\le$ $n$") or two ("$1 \le n \le 5$ $1 \le m \le 5$").
_OPERATOR_EDGE = set("≤≥<>≠=∈+-*/^,(|⦃") | {"\\le", "\\leq", "\\ge", "\\geq", "\\lt", "\\gt", "\\ne",
                                            "\\neq", "\\cdot", "\\times", "\\in"}


def _math_edge(piece: str, last: bool) -> str:
    """The last (or first) token of a math piece, as far as joining is concerned."""
    piece = piece.strip()
    if not piece:
        return ""
    match = re.search(r"(\\[A-Za-z]+|\S)$" if last else r"^(\\[A-Za-z]+|\S)", piece)
    return match.group(1) if match else ""


def _join_math(text: str) -> str:
    """Remove ``$`` delimiters; two math pieces separated only by spaces are one
    formula when the first ends or the second starts with an operator, else two
    statements (a ``;`` between them)."""
    if "$" not in text:
        return text
    parts = re.split(r"\$+", text)  # even indices: prose, odd indices: math
    out: list[str] = [parts[0]]
    for k in range(1, len(parts)):
        piece = parts[k]
        if k % 2 == 0 and k + 1 < len(parts) and not piece.strip() and piece != "":
            left = _math_edge(parts[k - 1], last=True)
            right = _math_edge(parts[k + 1], last=False)
            joins = left in _OPERATOR_EDGE or right in _OPERATOR_EDGE
            out.append(" " if joins else " ; ")
            continue
        out.append(" " + piece + " " if k % 2 else piece)
    return "".join(out)


def _frac(text: str) -> str:
    """``\\frac{a}{b}`` -> ``(a)/(b)``, innermost first (a formula nests a few levels)."""
    pattern = re.compile(r"\\[dt]?frac\s?\{([^{}]*)\}\s?\{([^{}]*)\}")
    for _ in range(4):
        new = pattern.sub(r"((\1)/(\2))", text)
        if new == text:
            break
        text = new
    return text


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
    text = re.sub(r"\s+", " ", sentence)
    text = _join_math(text)
    text = re.sub(r"\\[()\[\]]", " ", text)
    text = _frac(text)
    for pattern, repl in _LATEX_SUBS:
        text = re.sub(pattern, repl, text)
    text = re.sub("\x00([A-Za-z]+)\x00", lambda m: _GREEK[m[1]], text)
    text = "".join(_CHAR_SUBS.get(c, c) for c in text)
    for old, new in _ASCII_SUBS:
        text = text.replace(old, new)
    text = re.sub(r"\. ?\. ?\.", "...", text)
    text = re.sub(r"\s+", " ", text)
    text = normalize_numbers(text)
    text = _strip_group_braces(text)
    text = re.sub(r"\s+", " ", text).strip()
    return _rewrite_words(text)


# A variable as it appears in prose: a letter with an optional subscript.
VAR = (r"(?<![" + LETTER + r"0-9_])[" + LETTER + r"](?:_(?:\{[^{}]{1,20}\}|[A-Za-z0-9]{1,20}))?"
       r"(?![" + LETTER + r"0-9])")
_BOUND = r"(?:-?\d[\d^*.eE+\-]{0,40}|" + VAR + r")"

_LE_WORDS = (
    r"less\s+than\s+or\s+equal\s+to|(?:not|no)\s+(?:greater|more|larger|bigger)\s+than|"
    r"at\s+most|(?:does|do|did|will|must|should|shall|can|would)\s?(?:not|n't)\s+exceed|"
    r"cannot\s+exceed|not\s+exceeding|not\s+exceed|never\s+exceeds?|up\s+to(?=\s?-?\d)"
)
_GE_WORDS = (
    r"greater\s+than\s+or\s+equal\s+to|(?:not|no)\s+(?:less|smaller|fewer)\s+than|at\s+least"
)
_LT_WORDS = r"(?:strictly\s+)?(?:less|smaller)\s+than"
_GT_WORDS = r"(?:strictly\s+)?(?:greater|larger|bigger)\s+than|exceeds"
_COPULA = r"(?:(?:is|are|will\s+be|must\s+be|should\s+be|can\s+be|be)\s+)?"
TESTS = (
    r"(?:test\s?cases?|tests?|testcases|queries|input\s+sets|sets\s+of\s+input\s+data|"
    r"data\s+sets|scenarios)"
)


def _rewrite_words(text: str) -> str:
    # Aggregates first: their phrases contain words the comparator rules would eat.
    over_tests = (
        r"\b(?:the\s+)?(?:total\s+)?sum\s+of\s+(?:all\s+)?(?:the\s+)?(?:values?\s+(?:of\s+)?)?"
        r"(?P<x>[^,;]{1,40}?)\s+(?:over|for|in|across|among|of)\s+(?:all\s+|each\s+|every\s+)?"
        r"(?:the\s+)?(?:given\s+)?" + TESTS +
        r"\b(?:\s+in\s+(?:one|a\s+single|the|each)\s+(?:test|input)(?:\s+file)?)?"
        r"(?:\s+(?:given\s+)?in\s+the\s+input)?"
    )
    two_sums = (
        r"\b(?:the\s+)?sums?\s+of\s+(" + VAR + r")\s+and\s+(?:the\s+sum\s+of\s+)?(" + VAR
        + r")\s+over\s+all\s+(?:the\s+)?" + TESTS + r"\b"
    )
    text = re.sub(two_sums, r"∑(\1), ∑(\2)", text, flags=_I)
    text = re.sub(over_tests, lambda m: f"∑({m['x'].strip()})", text, flags=_I)
    text = re.sub(
        r"\b(?:the\s+)?(?:total|summary|summarized|combined|overall)\s+lengths?\s+of\s+"
        r"(?:all\s+)?(?:the\s+)?(?:given\s+)?(?:strings?\s+)?(" + VAR + ")",
        r"∑|\1|", text, flags=_I)
    text = re.sub(r"\b(?:the\s+)?(?:total\s+)?sum\s+of\s+(?:all\s+)?(?:the\s+)?"
                  r"(?:values\s+(?:of\s+)?)?(?=[" + LETTER + r"|(])", "∑ ", text, flags=_I)
    # Comparator words.
    text = re.sub(r"\b" + _COPULA + r"(?:" + _LE_WORDS + r")\b", " ≤ ", text, flags=_I)
    text = re.sub(r"\b" + _COPULA + r"(?:" + _GE_WORDS + r")\b", " ≥ ", text, flags=_I)
    text = re.sub(r"\b" + _COPULA + r"(?:" + _LT_WORDS + r")\b", " < ", text, flags=_I)
    text = re.sub(r"\b" + _COPULA + r"(?:" + _GT_WORDS + r")\b", " > ", text, flags=_I)
    text = re.sub(r"\b(?:is|are|will\s+be|must\s+be|should\s+be|can\s+be|be)\s+(?=[≤≥<>≠∈])",
                  "", text, flags=_I)
    text = re.sub(r"\s+", " ", text)
    # "n is a positive integer ≤ 10^5": the kind of number in between says nothing more.
    text = re.sub(r"(?P<x>" + VAR + r") (?:is|are) (?:an? )?(?P<k>positive|non-?negative) "
                  r"(?:integers?|numbers?) (?=[≤<])",
                  lambda m: f"{m['x']} ≥ {1 if m['k'] == 'positive' else 0}, {m['x']} ", text, flags=_I)
    # "n is at least 1 and at most 10^5" -> "n ≥ 1, n ≤ 10^5"
    text = re.sub(
        r"(?P<x>\|?" + VAR + r"\|?) ?(?P<c1>[≤≥<>]) ?(?P<a>" + _BOUND + r") ?,? ?(?:and|but) ?(?P<c2>[≤≥<>])",
        lambda m: f"{m['x']} {m['c1']} {m['a']}, {m['x']} {m['c2']}", text, flags=_I)
    # Ranges in words and as intervals.
    text = re.sub(
        r"(?P<x>\|?" + VAR + r"\|?) (?:(?:is|are|lies|lie) )?(?:between|from) "
        r"(?P<a>" + _BOUND + r") (?:and|to) (?P<b>" + _BOUND + r")"
        r"(?: ?,? ?\(?(?:both )?inclusive(?:ly)?\)?)?",
        # "a road of length w between u and v" is prose, not a range: a range in words
        # has at least one numeric end ("between 1 and n").
        lambda m: f"{m['a']} ≤ {m['x']} ≤ {m['b']}" if re.search(r"\d", m["a"] + m["b"]) else m[0],
        text, flags=_I)
    text = re.sub(
        r"(?P<x>\|?" + VAR + r"\|?) ?(?:∈|(?:(?:is|are|lies|lie) )?in the (?:range|interval|segment)) ?"
        r"\[ ?(?P<a>" + _BOUND + r") ?[,;] ?(?P<b>" + _BOUND + r") ?\]",
        lambda m: f"{m['a']} ≤ {m['x']} ≤ {m['b']}", text, flags=_I)
    # Lengths.
    text = re.sub(
        r"\b(?:the )?lengths of (?:the )?(?:strings )?(" + VAR + r") and (" + VAR + ")",
        r"|\1|, |\2|", text, flags=_I)
    text = re.sub(
        r"\b(?:the )?length of (?:the |each |every ){0,2}(?:given )?"
        r"(?:strings? |words? |arrays? |sequences? |permutations? )?(" + VAR + ")",
        r"|\1|", text, flags=_I)
    text = re.sub(r"(?<![|\w])(" + VAR + r")(?:'s length| (?:has|of|with) (?:a )?length) ?(?=[≤≥<>])",
                  r"|\1| ", text, flags=_I)
    return re.sub(r"\s+", " ", text).strip()

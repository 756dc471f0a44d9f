"""STAB constraint parser: the forms real statements use (issue 14, item 10), each
recognised form with the records a careful reader gets from it, and near-misses
that must not parse (reported in ``unparsed`` with a reason, never guessed).
"""

from __future__ import annotations

import pytest

from tczoo.methods.stab.constraints import Relation, input_part, parse_constraints

FORMS: list[tuple[str, list[str]]] = [
    # linear bounds
    (r"$n - 1 \le m \le 2 \cdot 10^5$", ["n - 1 ≤ m", "m ≤ 200000"]),
    ("n − 1 ≤ m ≤ 2·10^5", ["n - 1 ≤ m", "m ≤ 200000"]),
    (r"$2n \le 10^5$", ["2·n ≤ 100000"]),
    (r"$n \le 10^5 - m$", ["n ≤ 100000 - m"]),
    # m ≤ n(n−1)/2 and min(...)
    ("m ≤ n(n−1)/2", ["m ≤ (n^2 - n)/2"]),
    (r"$m \le \frac{n(n-1)}{2}$", ["m ≤ (n^2 - n)/2"]),
    (r"$0 \le m \le \min(2 \cdot 10^5, \frac{n(n-1)}{2})$", ["m ≤ (n^2 - n)/2", "0 ≤ m ≤ 200000"]),
    ("m ≤ min(2·10^5, n(n−1)/2)", ["m ≤ (n^2 - n)/2", "m ≤ 200000"]),
    (r"$\max(n, m) \le 10^5$", ["n ≤ 100000", "m ≤ 100000"]),
    (r"$n^2 \le 10^9$", ["n^2 ≤ 1000000000"]),
    # |s| with several strings
    (r"$1 \le |s|, |t| \le 10^6$", ["1 ≤ |s| ≤ 1000000", "1 ≤ |t| ≤ 1000000"]),
    (r"$1 \le |s_1|, |s_2|, |s_3| \le 10^6$",
     ["1 ≤ |s_1| ≤ 1000000", "1 ≤ |s_2| ≤ 1000000", "1 ≤ |s_3| ≤ 1000000"]),
    (r"$|s_1| + |s_2| + \ldots + |s_n| \le 10^6$", ["∑(|s_i|) ≤ 1000000 (over elements, n terms)"]),
    (r"$a_1 + a_2 + \dots + a_n \le 10^9$", ["∑(a_i) ≤ 1000000000 (over elements, n terms)"]),
    # bounds in words
    ("n does not exceed 10^5", ["n ≤ 100000"]),
    ("The number $n$ does not exceed $10^5$.", ["n ≤ 100000"]),
    ("n is a positive integer not exceeding 10^5", ["1 ≤ n", "n ≤ 100000"]),
    ("k is a non-negative integer less than 100", ["0 ≤ k", "k ≤ 99"]),
    # LaTeX spellings, $...$ around every piece
    (r"$1 \leq n \leq 2 \times 10^{5}$", ["1 ≤ n ≤ 200000"]),
    (r"$1 \le n \le 2 \cdot 10^{5}$", ["1 ≤ n ≤ 200000"]),
    (r"$1 \le n \le 200\,000$", ["1 ≤ n ≤ 200000"]),
    (r"$1$ $\le$ $n$ $\le$ $10^{5}$", ["1 ≤ n ≤ 100000"]),
    (r"$1$ $\leq$ $n$, $m$ $\leq$ $10^{5}$", ["1 ≤ n ≤ 100000", "1 ≤ m ≤ 100000"]),
    (r"$1 \le n \le 10^5$ $1 \le m \le 10$", ["1 ≤ n ≤ 100000", "1 ≤ m ≤ 10"]),
    # comma lists of variables
    (r"$1 \le N, M \le 5 \cdot 10^5$", ["1 ≤ N ≤ 500000", "1 ≤ M ≤ 500000"]),
    ("1 ≤ N, M ≤ 5·10^5", ["1 ≤ N ≤ 500000", "1 ≤ M ≤ 500000"]),
    # strict bounds
    (r"$0 \le a_i < 2^{30}$", ["0 ≤ a_i ≤ 1073741823"]),
    (r"$1\leq a, b < n$", ["1 ≤ a < n", "1 ≤ b < n"]),
    # one formula broken across lines
    ("$0 \\le t, c,\no, d, i \\le 10$", ["0 ≤ t ≤ 10", "0 ≤ c ≤ 10", "0 ≤ o ≤ 10", "0 ≤ d ≤ 10", "0 ≤ i ≤ 10"]),
    ("$1 \\le n \\le$\n$10^5$", ["1 ≤ n ≤ 100000"]),
    # relations among variables
    (r"$s + e < d$", ["s + e < d"]),
    (r"$0 \le s + e < d \le 10^9$", ["0 ≤ s + e", "s + e < d", "d ≤ 1000000000"]),
    (r"$n \cdot m \le k$", ["n·m ≤ k"]),
    # sets that are contiguous ranges; ℓ and Greek letters as variables
    (r"$p_i \in \{1, 2, \ldots, n\}$", ["1 ≤ p_i ≤ n"]),
    (r"$x \in \{0, 1, 2, \dots, 10^9\}$", ["0 ≤ x ≤ 1000000000"]),
    (r"$1 \le \ell, w \le 100$", ["1 ≤ ℓ ≤ 100", "1 ≤ w ≤ 100"]),
    (r"$1 \le \alpha \le 10$", ["1 ≤ α ≤ 10"]),
]


@pytest.mark.parametrize(("sentence", "expected"), FORMS, ids=[f[0][:40] for f in FORMS])
def test_recognised_forms(sentence: str, expected: list[str]) -> None:
    result = parse_constraints(sentence)
    assert [r.render() for r in result.constraints] == expected
    assert result.unparsed == []


def test_relations_are_relation_records_with_exact_coefficients() -> None:
    [relation] = parse_constraints("m ≤ n(n−1)/2").constraints
    assert isinstance(relation, Relation) and not relation.strict
    # m − (n² − n)/2 ≤ 0, i.e. 2m − n² + n ≤ 0 over the common denominator 2.
    diff = relation.difference()
    assert diff.den == 2 and sorted((t.coef, tuple(t.vars)) for t in diff.terms) == [
        (-1, ("n", "n")), (1, ("n",)), (2, ("m",))]
    assert relation.holds({"m": 6, "n": 4}) and not relation.holds({"m": 7, "n": 4})
    [strict] = parse_constraints("s + e < d").constraints
    assert isinstance(strict, Relation) and strict.strict and strict.variables() == ["s", "e", "d"]


NEAR_MISSES: list[tuple[str, str]] = [
    (r"$m \le \max(n, 5)$", "disjunction"),
    (r"$\min(n, m) \le 5$", "disjunction"),
    (r"$n \le 10^5 / m$", "division by a variable"),
    (r"$2^n \le 10^6$", "variable exponent"),
    (r"$n \le m^{k}$", "variable exponent"),
    (r"$n! \le 10^6$", "comparator"),
    (r"$n \le \log m$", "not followed by"),
    (r"$n \le 10^{5000}$", "exponent above 200"),
    (r"$x \in \{1, 3, \ldots, n\}$", "not a contiguous range"),
    (r"$x \in \{2, 1, \ldots, n\}$", "not a contiguous range"),
    (r"$a_i \in \{0, 1\}$", "set membership"),
    (r"$n \le 10^5 \cdot$", "larger formula"),
    ("0 < p < 2.5", "not an integer"),
    (r"$n \le (m$", "comparator"),
    ("1 ≤ x ≤ y ≥ 3", "up and down"),
]


@pytest.mark.parametrize(("sentence", "why"), NEAR_MISSES, ids=[n[0][:40] for n in NEAR_MISSES])
def test_near_misses_are_reported_not_guessed(sentence: str, why: str) -> None:
    result = parse_constraints(sentence)
    assert result.constraints == [], [r.render() for r in result.constraints]
    assert len(result.unparsed) == 1 and why in result.unparsed[0].reason


def test_number_beyond_python_int_limits_is_unparsed_not_an_error() -> None:
    """A 4,301-digit number made int() raise ValueError; now it is reported."""
    result = parse_constraints("1 ≤ n ≤ " + "9" * 4301)
    assert result.constraints == []
    assert [u.reason for u in result.unparsed] == ["a number of more than 200 digits: not an input bound"]
    assert parse_constraints("1 ≤ n ≤ 1e999999999").unparsed[0].reason == "an exponent above 200: not an input bound"
    # The largest allowed number still parses exactly.
    [record] = parse_constraints("1 ≤ n ≤ 10^{200}").constraints
    assert record.upper == 10**200  # type: ignore[union-attr]


# --------------------------------------------------------------------------- sections

KATTIS_LIKE = r"""\problemname{Clock}

Some legend with $1 \le k \le 3$ in it.

\begin{Input}
  The input consists of:
  \begin{itemize}
    \item One line with six integers $t, c, o, d, i, s$ ($0 \le t, c,
      o, d, i \le 10$, $1 \le s \le 10^9$).
  \end{itemize}
  It is guaranteed that $t + c \le 15$.
\end{Input}

\begin{Output}
  Output two real numbers $\pi$ and $\tau$ ($0 \le \pi,\tau \le 100$) and print $x$ ($1 \le x \le 5$).
  The answer is at most $10^{18}$, with $0 \le y \le 7$.
\end{Output}
"""


def test_latex_environments_bound_the_input_and_output_is_never_read() -> None:
    result = parse_constraints(KATTIS_LIKE)
    assert [r.render() for r in result.constraints] == [
        "0 ≤ t ≤ 10", "0 ≤ c ≤ 10", "0 ≤ o ≤ 10", "0 ≤ d ≤ 10", "0 ≤ i ≤ 10", "1 ≤ s ≤ 1000000000",
        "t + c ≤ 15"]
    assert result.unparsed == []
    assert [i.reason for i in result.ignored] == ["in the legend, outside the Input/Constraints sections"]
    assert "π" not in input_part(KATTIS_LIKE) and "\\pi" not in input_part(KATTIS_LIKE)
    # sections="all" adds the legend, never the Output section.
    everything = [r.render() for r in parse_constraints(KATTIS_LIKE, sections="all").constraints]
    assert everything[0] == "1 ≤ k ≤ 3" and not any("π" in r or "y" in r for r in everything)


@pytest.mark.parametrize("header", ["Output", "## Output", "Output:", r"\section*{Output}", r"\section{Output Format}"])
def test_output_section_bounds_are_not_input_bounds(header: str) -> None:
    text = f"Input\nThe first line contains n ($1 \\le n \\le 10$).\n{header}\nPrint k ($1 \\le k \\le n$), and $0 \\le z \\le 5$.\n"
    result = parse_constraints(text)
    assert [r.render() for r in result.constraints] == ["1 ≤ n ≤ 10"]
    assert result.unparsed == [] and result.ignored == []


def test_section_star_input_header_and_end_of_itemize() -> None:
    text = ("\\section*{Input}\n\\begin{itemize}\n\\item One line with $n$ ($1 \\le n \\le 50$).\n"
            "\\end{itemize}\nAll values $a_i$ satisfy $1 \\le a_i \\le n$.\n\\section*{Output}\nOutput $0 \\le r \\le 9$.\n")
    assert [r.render() for r in parse_constraints(text).constraints] == ["1 ≤ n ≤ 50", "1 ≤ a_i ≤ n"]


def test_a_statements_own_macros_are_expanded() -> None:
    text = ("\\newcommand{\\maxn}{500}\n\\newcommand{\\pair}[2]{(#1, #2)}\n\\begin{Input}\n"
            "One line with $n$ ($3 \\leq n \\leq \\maxn$) and $k$ ($1 \\le k \\le \\maxn{}$).\n\\end{Input}\n")
    assert [r.render() for r in parse_constraints(text).constraints] == ["3 ≤ n ≤ 500", "1 ≤ k ≤ 500"]


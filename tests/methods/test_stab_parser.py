"""STAB constraint parser: a corpus of real-looking constraint sentences (issue 7.1/7.10).

Each case states what a careful human reads in the sentence; records are compared
through ``render()`` (bounds inclusive, strict comparators already adjusted).
"""

from __future__ import annotations

import pytest

from tczoo.methods.stab.constraints import (
    Chain,
    IndexedRange,
    ProductBound,
    ScalarRange,
    StringLength,
    SumBound,
    SumOver,
    input_part,
    parse_constraints,
)
from tczoo.methods.stab.numbers import parse_number

# --------------------------------------------------------------------------- numbers

NUMBERS = [
    ("10^5", 10**5), ("10^{5}", 10**5), ("2·10^5", 2 * 10**5), (r"2 \cdot 10^5", 2 * 10**5),
    ("2×10^5", 2 * 10**5), ("2*10^5", 2 * 10**5), ("1e5", 10**5), ("2e5", 2 * 10**5),
    ("200 000", 200000), ("200,000", 200000), ("10⁵", 10**5), ("2^{30}", 2**30),
    ("-10^9", -(10**9)), ("2^{31}-1", 2**31 - 1), ("1.5e5", 150000), (r"200\,000", 200000),
    ("1 000 000", 10**6), ("10^{18}", 10**18), ("2⋅10^5", 2 * 10**5), (r"2 \times 10^{5}", 2 * 10**5),
]


@pytest.mark.parametrize(("text", "value"), NUMBERS)
def test_number_forms(text: str, value: int) -> None:
    assert parse_number(text) == value


@pytest.mark.parametrize("text", ["2.5", "abc", "10^99999", "n"])
def test_not_integer_numbers(text: str) -> None:
    assert parse_number(text) is None


# --------------------------------------------------------------------------- the corpus

CORPUS: list[tuple[str, list[str]]] = [
    # scalar ranges, every comparator spelling
    ("1 ≤ n ≤ 10^5", ["1 ≤ n ≤ 100000"]),
    (r"$1 \le n \le 10^5$", ["1 ≤ n ≤ 100000"]),
    (r"$1 \leq n \leq 10^{5}$", ["1 ≤ n ≤ 100000"]),
    ("1 <= n <= 100000", ["1 ≤ n ≤ 100000"]),
    (r"$2 \le n \le 2 \cdot 10^5$", ["2 ≤ n ≤ 200000"]),
    (r"$1 \le n \le 2 \times 10^5$", ["1 ≤ n ≤ 200000"]),
    ("1 ≤ n ≤ 2×10^5", ["1 ≤ n ≤ 200000"]),
    ("1 ≤ n ≤ 2*10^5", ["1 ≤ n ≤ 200000"]),
    ("1 ≤ n ≤ 2⋅10^5", ["1 ≤ n ≤ 200000"]),
    ("1 ≤ N ≤ 1e5", ["1 ≤ N ≤ 100000"]),
    ("1 ≤ n ≤ 2e5", ["1 ≤ n ≤ 200000"]),
    ("1 ≤ n ≤ 200 000", ["1 ≤ n ≤ 200000"]),
    ("1 ≤ n ≤ 200,000", ["1 ≤ n ≤ 200000"]),
    (r"$1 \le n \le 200\,000$", ["1 ≤ n ≤ 200000"]),
    ("1 ≤ n ≤ 10⁵", ["1 ≤ n ≤ 100000"]),
    (r"$0 \le x < 2^{30}$", ["0 ≤ x ≤ 1073741823"]),
    (r"$0 \lt k \lt 10$", ["1 ≤ k ≤ 9"]),
    (r"$n \ge 1$", ["1 ≤ n"]),
    (r"$10^5 \geq n \geq 1$", ["1 ≤ n ≤ 100000"]),
    (r"$-10^9 \le x \le 10^9$", ["-1000000000 ≤ x ≤ 1000000000"]),
    ("−10^9 ≤ x ≤ 10^9", ["-1000000000 ≤ x ≤ 1000000000"]),
    (r"$1 \le p \le 10^9 + 7$", ["1 ≤ p ≤ 1000000007"]),
    (r"$0 \le v \le 2^{31} - 1$", ["0 ≤ v ≤ 2147483647"]),
    (r"$1 \le n, m \le 1000$", ["1 ≤ n ≤ 1000", "1 ≤ m ≤ 1000"]),
    ("1 ≤ n, m, k ≤ 100", ["1 ≤ n ≤ 100", "1 ≤ m ≤ 100", "1 ≤ k ≤ 100"]),
    ("1 ≤ n ≤ 10^5, 1 ≤ m ≤ 10^5", ["1 ≤ n ≤ 100000", "1 ≤ m ≤ 100000"]),
    (r"$1 \le n \le 10^5$ $1 \le m \le 10$", ["1 ≤ n ≤ 100000", "1 ≤ m ≤ 10"]),
    ("Constraints\n1 ≤ N ≤ 10^5\n1 ≤ K ≤ 10", ["1 ≤ N ≤ 100000", "1 ≤ K ≤ 10"]),
    ("- 1 ≤ H, W ≤ 500\n- 1 ≤ Q ≤ 10^5", ["1 ≤ H ≤ 500", "1 ≤ W ≤ 500", "1 ≤ Q ≤ 100000"]),
    # words
    ("n is at most 10^5", ["n ≤ 100000"]),
    ("n does not exceed 10^5.", ["n ≤ 100000"]),
    ("The value of k doesn't exceed 50", ["k ≤ 50"]),
    ("m is not exceeding 300", ["m ≤ 300"]),
    ("q is no more than 2·10^5", ["q ≤ 200000"]),
    ("n is at least 2", ["2 ≤ n"]),
    ("k is not less than 3", ["3 ≤ k"]),
    ("n is between 1 and 10^5 inclusive", ["1 ≤ n ≤ 100000"]),
    ("n is between 1 and 10^5", ["1 ≤ n ≤ 100000"]),
    ("n is at least 1 and at most 10 000", ["1 ≤ n", "n ≤ 10000"]),
    ("The integer x is less than 100", ["x ≤ 99"]),
    # indexed ranges
    ("1 ≤ a_i ≤ 10^9", ["1 ≤ a_i ≤ 1000000000"]),
    (r"$1 \le a_i \le 10^9$", ["1 ≤ a_i ≤ 1000000000"]),
    (r"$0 \le a_{i,j} \le 10^9$", ["0 ≤ a_{i,j} ≤ 1000000000"]),
    (r"$1 \le b_{ij} \le 100$", ["1 ≤ b_{i,j} ≤ 100"]),
    ("1 ≤ A[i] ≤ 10^9", ["1 ≤ A_i ≤ 1000000000"]),
    (r"$1 \le x_i, y_i \le 10^9$", ["1 ≤ x_i ≤ 1000000000", "1 ≤ y_i ≤ 1000000000"]),
    (r"The second line contains $n$ integers $a_1, a_2, \ldots, a_n$ ($1 \le a_i \le 10^9$).",
     ["1 ≤ a_i ≤ 1000000000"]),
    (r"$1 \le a_1, a_2, \dots, a_n \le 10^9$", ["1 ≤ a_i ≤ 1000000000"]),
    ("1 ≤ a_1, a_2, …, a_n ≤ 10^9", ["1 ≤ a_i ≤ 1000000000"]),
    (r"$1 \le a_1 < a_2 < \ldots < a_n \le 10^9$", ["1 ≤ a_i ≤ 1000000000 (increasing)"]),
    (r"$a_1 \le a_2 \le \dots \le a_n$", ["a_i (non-decreasing)"]),
    (r"$a_i \in [1, 10^9]$", ["1 ≤ a_i ≤ 1000000000"]),
    (r"$p_i \in \{1, 2, \ldots, n\}$", ["1 ≤ p_i ≤ n"]),
    # chains
    ("1 ≤ l ≤ r ≤ n", ["1 ≤ l ≤ r ≤ n"]),
    (r"$1 \le l_i \le r_i \le n$", ["1 ≤ l_i ≤ r_i ≤ n"]),
    (r"$1 \le k \le n \le 2 \cdot 10^5$", ["1 ≤ k ≤ n ≤ 200000"]),
    (r"$1 \le u_i, v_i \le n$, $u_i \ne v_i$", ["1 ≤ u_i ≤ n", "1 ≤ v_i ≤ n", "u_i ≠ v_i"]),
    ("1 ≤ x_1 < x_2 ≤ 10^9", ["1 ≤ x_1 < x_2 ≤ 1000000000"]),
    ("1 ≤ a_i ≤ n", ["1 ≤ a_i ≤ n"]),
    (r"$1 \le k \le \min(n, 100)$", ["k ≤ n", "1 ≤ k ≤ 100"]),
    # products
    ("n·m ≤ 10^6", ["n·m ≤ 1000000"]),
    (r"$n \cdot m \le 10^6$", ["n·m ≤ 1000000"]),
    (r"$n \times m \leq 10^{6}$", ["n·m ≤ 1000000"]),
    ("n * m * k ≤ 10^7", ["n·m·k ≤ 10000000"]),
    (r"$1 \le n, m$, $n \cdot m \le 10^6$", ["1 ≤ n", "1 ≤ m", "n·m ≤ 1000000"]),
    # sums
    ("n + m ≤ 2·10^5", ["n + m ≤ 200000"]),
    (r"$n + m \le 2 \cdot 10^5$", ["n + m ≤ 200000"]),
    # sums over test cases
    ("the sum of n over all test cases does not exceed 2·10^5",
     ["∑(n) ≤ 200000 (over test cases)"]),
    (r"It is guaranteed that the sum of $n$ over all test cases does not exceed $2 \cdot 10^5$.",
     ["∑(n) ≤ 200000 (over test cases)"]),
    ("∑n ≤ 2·10^5", ["∑(n) ≤ 200000 (over test cases)"]),
    (r"$\sum n \le 2 \cdot 10^5$", ["∑(n) ≤ 200000 (over test cases)"]),
    ("The sum of n·m over all test cases does not exceed 10^6.", ["∑(n·m) ≤ 1000000 (over test cases)"]),
    ("the sum of |s| over all test cases doesn't exceed 10^6", ["∑(|s|) ≤ 1000000 (over test cases)"]),
    ("The sum of the values of n over all testcases in one test does not exceed 3·10^5",
     ["∑(n) ≤ 300000 (over test cases)"]),
    ("It is guaranteed that the sum of n and the sum of m over all test cases do not exceed 2·10^5.",
     ["∑(n) ≤ 200000 (over test cases)", "∑(m) ≤ 200000 (over test cases)"]),
    # sums over elements
    (r"$\sum_{i=1}^{n} a_i \le 10^9$", ["∑(a_i) ≤ 1000000000 (over elements, n terms)"]),
    ("The total length of all strings s_i does not exceed 10^6.", ["∑(|s_i|) ≤ 1000000 (over elements)"]),
    # string lengths
    ("|s| ≤ 10^5", ["|s| ≤ 100000"]),
    ("1 ≤ |s| ≤ 2·10^5", ["1 ≤ |s| ≤ 200000"]),
    (r"$1 \le |s| \le 2 \cdot 10^5$", ["1 ≤ |s| ≤ 200000"]),
    (r"$1 \le \lvert s \rvert \le 10^5$", ["1 ≤ |s| ≤ 100000"]),
    ("the length of s is at most 10^5", ["|s| ≤ 100000"]),
    ("The length of the string s does not exceed 5000.", ["|s| ≤ 5000"]),
    ("The string s has length at most 10^5.", ["|s| ≤ 100000"]),
    ("1 ≤ |s_i| ≤ 10", ["1 ≤ |s_i| ≤ 10"]),
    ("The lengths of s and t are at most 1000", ["|s| ≤ 1000", "|t| ≤ 1000"]),
]


@pytest.mark.parametrize(("sentence", "expected"), CORPUS, ids=[c[0][:40] for c in CORPUS])
def test_corpus(sentence: str, expected: list[str]) -> None:
    result = parse_constraints(sentence)
    assert [r.render() for r in result.constraints] == expected
    assert result.unparsed == []


def test_record_types() -> None:
    text = "\n".join([
        "1 ≤ t ≤ 10^4 — the number of test cases",
        "1 ≤ n ≤ 10^5", "1 ≤ a_i ≤ 10^9", "1 ≤ l ≤ r ≤ n", "n·m ≤ 10^6", "n + m ≤ 2·10^5",
        "|s| ≤ 10^5", "the sum of n over all test cases does not exceed 2·10^5",
    ])
    kinds = [type(r) for r in parse_constraints(text).constraints]
    assert kinds == [ScalarRange, ScalarRange, IndexedRange, Chain, ProductBound, SumBound,
                     StringLength, SumOver]
    total = parse_constraints(text).constraints[-1]
    assert isinstance(total, SumOver) and total.count_var == "t" and total.over == "test_cases"


def test_count_variable_from_description() -> None:
    text = ("The first line contains q (1 ≤ q ≤ 1000) — the number of queries.\n"
            "The sum of n over all queries does not exceed 10^5.")
    total = parse_constraints(text).constraints[-1]
    assert isinstance(total, SumOver) and total.count_var == "q"


def test_list_length_is_recorded() -> None:
    [record] = parse_constraints(r"$1 \le a_1, a_2, \ldots, a_n \le 10^9$").constraints
    assert isinstance(record, IndexedRange) and record.length_var == "n"


def test_records_keep_their_source_sentence() -> None:
    [record] = parse_constraints("Some text. Here 1 ≤ n ≤ 5 holds. More text.").constraints
    assert record.text == "Here 1 ≤ n ≤ 5 holds"


def test_json_round_trip() -> None:
    from tczoo.methods.stab.constraints import ParseResult

    result = parse_constraints("1 ≤ l ≤ r ≤ 10^18. ∑n ≤ 10. 1 ≤ t ≤ 5")
    again = ParseResult.model_validate_json(result.model_dump_json())
    assert again == result
    assert again.constraints[0].terms == [1, "l", "r", 10**18]  # type: ignore[union-attr]


# --------------------------------------------------------------------------- near-misses

NOT_CONSTRAINTS = [
    "Output the answer modulo 10^9+7.",
    r"Print the answer modulo $998\,244\,353$.",
    "If there is no answer, print -1.",
    "In the first line print one integer k.",
    "Each of the next n lines contains two integers u and v.",
    "In 2019, Polycarp ate 3 apples.",
    "Happy New Year 2024! The contest lasts 120 minutes.",
    "3\n1 2 3\n5 100 200",
    "The answer for the first example is 6.",
    "You are given an array a of n integers.",
    "x = 5, y = 10",
    "Note that the answer can be large, so use 64-bit integers.",
]


@pytest.mark.parametrize("sentence", NOT_CONSTRAINTS)
def test_near_misses_yield_nothing(sentence: str) -> None:
    result = parse_constraints(sentence)
    assert result.constraints == [] and result.unparsed == []


IGNORED = [
    "In the first line print k (1 ≤ k ≤ n).",
    "If k > n, output -1.",
    "In subtask 1 (20 points) n ≤ 100.",
    r"For every $i$ ($1 \le i \le n$) the value is given.",
]


@pytest.mark.parametrize("sentence", IGNORED)
def test_recognised_non_constraints_are_ignored_with_reason(sentence: str) -> None:
    result = parse_constraints(sentence)
    assert result.constraints == [] and result.unparsed == []
    assert len(result.ignored) == 1 and result.ignored[0].reason


UNPARSED = [
    "It is guaranteed that the answer does not exceed 10^{18}.",
    "0 < p < 2.5",
    "a_1 = 3 < a_2",
    "1 ≤ x ≤ y ≥ 3",
    r"$a_i \in \{0, 1\}$",
    "the total length of all strings does not exceed 10^6",
    "The number of rhythms is at least 1",
]


@pytest.mark.parametrize("sentence", UNPARSED)
def test_untrusted_forms_are_reported_not_guessed(sentence: str) -> None:
    result = parse_constraints(sentence)
    assert result.constraints == [], [r.render() for r in result.constraints]
    assert len(result.unparsed) == 1 and result.unparsed[0].reason


def test_partial_sentence_reports_leftover() -> None:
    result = parse_constraints("1 ≤ n ≤ 10^5, 1 ≤ m ≤ n!")
    assert [r.render() for r in result.constraints] == ["1 ≤ n ≤ 100000"]
    assert len(result.unparsed) == 1


# --------------------------------------------------------------------------- statements

STATEMENT = r"""You are given an array $a$ of $n$ integers and $q$ queries.

Input

The first line contains a single integer $t$ ($1 \le t \le 10^4$) — the number of test cases.

The first line of each test case contains two integers $n$ and $q$ ($1 \le n, q \le 2 \cdot 10^5$).

The second line contains $n$ integers $a_1, a_2, \ldots, a_n$ ($-10^9 \le a_i \le 10^9$).

Each of the next $q$ lines contains two integers $l$ and $r$ ($1 \le l \le r \le n$).

It is guaranteed that the sum of $n$ over all test cases does not exceed $2 \cdot 10^5$.

Output

For each query print one integer $x$ ($0 \le x \le 10^{18}$).

Examples

Input

1
3 1
1 2 3
1 3

Output

6

Note

In the first test case $a_1 = 1 < a_2 = 2$, so $1 \le 6 \le 10$.
"""


def test_statement_sections() -> None:
    part = input_part(STATEMENT)
    assert "sum of $n$" in part and "Output" not in part and "print" not in part
    assert "1 < a_2" not in part and "3 1" not in part


def test_statement_records() -> None:
    result = parse_constraints(STATEMENT)
    assert [r.render() for r in result.constraints] == [
        "1 ≤ t ≤ 10000", "1 ≤ n ≤ 200000", "1 ≤ q ≤ 200000",
        "-1000000000 ≤ a_i ≤ 1000000000", "1 ≤ l ≤ r ≤ n", "∑(n) ≤ 200000 (over test cases, t terms)",
    ]
    assert result.unparsed == [] and result.ignored == []


def test_wrapped_lines_continue_the_sentence() -> None:
    text = "It is guaranteed that the sum of n over all test cases\ndoes not exceed 2·10^5."
    assert [r.render() for r in parse_constraints(text).constraints] == ["∑(n) ≤ 200000 (over test cases)"]


def test_legend_formulas_are_ignored_when_an_input_section_exists() -> None:
    text = ("Count pairs $(l, r)$ with $1 \\le l \\le r \\le n$.\n\nInput\n\n"
            "The first line contains $n$ ($1 \\le n \\le 10^5$).\n")
    result = parse_constraints(text)
    assert [r.render() for r in result.constraints] == ["1 ≤ n ≤ 100000"]
    assert [i.reason for i in result.ignored] == ["in the legend, outside the Input/Constraints sections"]
    assert [r.render() for r in parse_constraints(text, sections="all").constraints] == [
        "1 ≤ l ≤ r ≤ n", "1 ≤ n ≤ 100000"]


def test_wrapped_connective_joins_and_is_reported() -> None:
    result = parse_constraints("The number of rhythms is at least 1\nand at most 10 000.")
    assert result.constraints == [] and len(result.unparsed) == 1


def test_prose_between_two_variables_is_not_a_range():
    """zm07's statement: "a road of length $w_i$ between $u_i$ and $v_i$" is no constraint."""
    text = ("Each of the next $m$ lines contains three integers $u_i$, $v_i$, $w_i$ "
            "($1 \\le u_i, v_i \\le n$, $1 \\le w_i \\le 10^9$) — a road of length $w_i$ between $u_i$ and $v_i$.")
    result = parse_constraints(text, sections="all")
    chains = [c.terms for c in result.constraints if c.kind == "chain"]
    assert ["u_i", "w_i", "v_i"] not in chains
    assert [1, "u_i", "n"] in chains and [1, "v_i", "n"] in chains
    assert parse_constraints("k is between 1 and n inclusive.", sections="all").constraints[0].terms == [1, "k", "n"]

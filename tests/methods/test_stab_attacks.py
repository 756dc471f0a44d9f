"""STAB's parser and layout reader on generated worst cases (issue 14, item 11).

Each case is a pattern an attacker would try against a regex or the chain scanner
(the three the issue found: a set of repeated items that backtracked exponentially,
a 15 KB list of ``a_1, `` that was quadratic, a 4,301-digit number that raised),
grown to a size where a super-linear parser would take minutes. The tests assert
the result, not the time; ``bench/bench_stab_parser.py`` measures time against
length for the same patterns.
"""

from __future__ import annotations

import pytest

from tczoo.methods.stab.constraints import parse_constraints
from tczoo.methods.stab.inputs import LayoutError, infer_layout
from tczoo.methods.stab.saturator import saturate

# (statement, records, number of unparsed sentences)
CASES: list[tuple[str, str, list[str], int]] = [
    # the 147-byte statement: ~40 items, time doubled per item
    ("set, 147 bytes", r"n ∈ \{1" + ", 2" * 40 + r", \ldots, n\}", [], 1),
    ("set, 20 KB", r"n ∈ \{1" + ", 2" * 7000 + r", \ldots, n\}", [], 1),
    ("contiguous set, 20 KB", r"n ∈ \{0" + "".join(f", {k}" for k in range(1, 3000)) + r", \ldots, m\}",
     ["0 ≤ n ≤ m"], 0),
    # the 15 KB list of a_1 pieces, alone and inside a bound
    ("a_1 list, 15 KB", "a_1, " * 3000, [], 0),
    ("a_1 list bounded, 15 KB", "1 ≤ " + ", ".join(["a_1"] * 3000) + " ≤ 10", ["1 ≤ a_1 ≤ 10"], 0),
    ("a_1 list, trailing comma", "1 ≤ " + "a_1, " * 3000 + "≤ 10", ["1 ≤ a_1"], 1),
    ("ellipsis list", "1 ≤ " + r"a_1, a_2, \ldots, " * 800 + "a_n ≤ 10", ["1 ≤ a_i ≤ 10"], 0),
    ("long chain", "1 ≤ " + "n ≤ " * 3000 + "10", ["1 ≤ " + "n ≤ " * 3000 + "10"], 0),
    ("formulas side by side", "1 ≤ n ≤ 10, " * 3000, ["1 ≤ n ≤ 10"], 0),
    ("formulas without commas", "1 ≤ n ≤ 10 " * 3000, [], 1),
    ("$-wrapped pieces", r"$1$ $\le$ $n$ " * 2000, ["1 ≤ n"], 0),
    ("long sum", "n ≤ " + "1 + " * 4000 + "1", ["n ≤ 4001"], 0),
    ("long product, too large", "n ≤ " + "2*" * 4000 + "1", [], 1),
    ("product within limits", "n ≤ " + "2*" * 100 + "1", [f"n ≤ {2 ** 100}"], 0),
    ("polynomial chain", "m ≤ " + "n(n-1)" * 10 + "/2", [], 1),
    ("unbalanced parentheses", "n ≤ " + "(" * 3000 + "1", [], 1),
    ("balanced parentheses, too deep", "n ≤ " + "(" * 3000 + "1" + ")" * 3000, [], 1),
    ("balanced parentheses, shallow", "n ≤ " + "(" * 10 + "1" + ")" * 10, ["n ≤ 1"], 0),
    ("min arguments", r"m ≤ \min(" + "n, " * 3000 + "1)", ["m ≤ n", "m ≤ 1"], 0),
    ("digit groups", "n ≤ " + "1 000 " * 4000, [], 1),
    ("comma groups", "n ≤ " + "1,000," * 4000 + "0", ["n ≤ 1"], 0),
    ("4,301 digits", "1 ≤ n ≤ " + "9" * 4301, [], 1),
    ("50,000 digits", "1 ≤ n ≤ " + "9" * 50000, [], 1),
    ("huge exponent", "1 ≤ n ≤ 10^" + "9" * 5000, [], 1),
    ("intervals", "n ∈ [1, " * 3000, [], 1),
    ("unclosed braces", "{" * 20000, [], 0),
    ("unclosed \\{", "\\{" * 10000, [], 0),
    ("pipes", "|" * 20000, [], 0),
    ("comparators", "n " + "≤ " * 10000 + "1", [], 1),
    ("sum signs", "∑_" * 10000, [], 0),
    ("sums of", "the sum of " * 2000 + "n", [], 0),
    ("sums over tests", "the sum of n over all test cases " * 1000 + "≤ 5", ["∑(n) ≤ 5 (over test cases)"], 0),
    ("ranges in words", "n between 1 and " * 2000 + "n", ["1 ≤ n ≤ n"], 0),
    ("comparator words", "n " + "is at most " * 2000 + "5", [], 1),
    ("lengths", "the length of " * 2000 + "s", [], 0),
    ("subscripts", "a_{" * 5000, [], 0),
    ("superscripts", "2^{" * 5000, [], 0),
    ("wrapped words", "and\n" * 5000, [], 0),
    ("wrapped commas", "a,\n" * 5000, [], 0),
    ("open math over many lines", "$1 \\le n" + ",\n" * 3000 + "\\le 5$", ["1 ≤ n"], 1),
    ("Greek letters", "1 ≤ " + "\\alpha, " * 2000 + "\\beta ≤ 5", ["1 ≤ α ≤ 5", "1 ≤ β ≤ 5"], 0),
    ("section headers", "Input\nOutput\n" * 5000, [], 0),
    ("LaTeX commands", "\\le\\cdot\\, " * 5000, [], 1),
    ("macro definitions", "".join(f"\\newcommand{{\\m{chr(97 + k % 26) * (1 + k // 26)}}}{{{k}}}\n" for k in range(3000))
     + "$1 \\le n \\le \\ma$", ["1 ≤ n ≤ 0"], 0),
]


@pytest.mark.parametrize(("statement", "records", "unparsed"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_worst_case_statements_parse_to_the_expected_result(statement: str, records: list[str], unparsed: int) -> None:
    result = parse_constraints(statement)
    assert [r.render() for r in result.constraints] == records
    assert len(result.unparsed) == unparsed
    # Reports quote at most 500 characters of a sentence, so output stays linear too.
    assert all(len(r.text) <= 500 for r in result.constraints)
    assert all(len(u.text) <= 500 for u in result.unparsed)


def test_the_boundary_of_a_hostile_statement_is_still_computed() -> None:
    text = "1 ≤ n ≤ 10^5.\n" + "1 ≤ m ≤ " + "9" * 4400 + ".\n" + r"n ∈ \{1" + ", 2" * 40 + r", \ldots, n\}"
    result = parse_constraints(text)
    assert [r.render() for r in result.constraints] == ["1 ≤ n ≤ 100000"]
    assert len(result.unparsed) == 2
    assert saturate(result.constraints).boundary == {"n": 100000}


LAYOUTS: list[tuple[str, str, str | None]] = [
    ("nested asides", "Input\nThe first line contains n " + "(" * 5000 + ".", None),
    ("balanced nesting", "Input\nThe first line contains one integer n " + "(a " * 3000 + " b)" * 3000 + ".", "n"),
    ("long field list", "Input\nThe first line contains integers " + "a_1, " * 3000 + "b.", "a " * 3000 + "b"),
    ("string words", "Input\nThe first line contains a string s " + "of length " * 3000 + "n.", "s:str"),
    ("many lines", "Input\n" + "The first line contains one integer n.\n" * 3000, " ".join(["n"] * 3000)),
]


@pytest.mark.parametrize(("statement", "layout"), [c[1:] for c in LAYOUTS], ids=[c[0] for c in LAYOUTS])
def test_layout_reader_on_worst_cases(statement: str, layout: str | None) -> None:
    if layout is None:
        with pytest.raises(LayoutError):
            infer_layout(statement)
    else:
        assert infer_layout(statement).describe() == layout

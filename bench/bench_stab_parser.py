"""STAB's constraint parser and input-layout reader on generated worst cases: is the
time linear in the statement's length?

    python bench/bench_stab_parser.py [--chars 20000] [--factor 8] [--repeat 3] [--only PATTERN]

Each pattern is a piece repeated to about ``chars`` and ``factor * chars`` characters
(between a prefix and a suffix): the shapes an attacker would try against each regex
and the chain scanner — long lists, long chains, unclosed brackets and sets, runs of
digits, separators and words, nested parentheses. For each, the best of ``repeat`` runs
at both sizes is measured in this process and the ratio printed: a linear parser shows
about ``factor``, a quadratic one ``factor²``. A line whose ratio exceeds twice the
factor and whose large run takes over 0.2 s is marked ``!!``, and the exit status is
then 1. (Below ~10,000 characters the time per character still climbs as the data
outgrow the CPU caches; the default sizes start above that.)
"""

from __future__ import annotations

import argparse
import time

from tczoo.methods.stab.constraints import parse_constraints
from tczoo.methods.stab.inputs import LayoutError, infer_layout

# (name, prefix, piece, suffix[, tail]): the piece (and the tail after the suffix) is
# repeated. The set and list attacks are the ones issue 14 found.
PATTERNS: list[tuple[str, ...]] = [
    ("set of repeated items", "n ∈ \\{1", ", 2", ", \\ldots, n\\}"),
    ("list of a_1 before ≤", "1 ≤ ", "a_1, ", "≤ 10"),
    ("ellipsis list", "1 ≤ ", "a_1, a_2, \\ldots, ", "a_n ≤ 10"),
    ("chain of variables", "1 ≤ ", "n ≤ ", "10"),
    ("formulas side by side", "", "1 ≤ n ≤ 10, ", ""),
    ("formulas without commas", "", "1 ≤ n ≤ 10 ", ""),
    ("$-wrapped pieces", "", "$1$ $\\le$ $n$ ", ""),
    ("long sum", "n ≤ ", "1 + ", "1"),
    ("long product", "n ≤ ", "2*", "1"),
    ("polynomial", "m ≤ ", "n(n-1)", "/2"),
    ("nested parentheses", "n ≤ ", "(", "1"),
    ("balanced nesting", "n ≤ ", "(", "1", ")"),
    ("min arguments", "m ≤ \\min(", "n, ", "1)"),
    ("digit groups", "n ≤ ", "1 000 ", ""),
    ("comma groups", "n ≤ ", "1,000,", "0"),
    ("digits", "n ≤ ", "9", ""),
    ("exponents", "n ≤ ", "10^{5}", ""),
    ("intervals", "", "n ∈ [1, ", ""),
    ("unclosed braces", "", "{", ""),
    ("unclosed \\{", "", "\\{", ""),
    ("pipes", "", "|", ""),
    ("sums of", "", "the sum of ", "n"),
    ("sums over tests", "", "the sum of n over all test cases ", ""),
    ("ranges in words", "", "n between 1 and ", "n"),
    ("comparator words", "n ", "is at most ", "5"),
    ("lengths", "", "the length of ", "s"),
    ("subscripts", "", "a_{", ""),
    ("superscripts", "", "2^{", ""),
    ("comparators", "n ", "≤ ", "1"),
    ("∑ signs", "", "∑_", ""),
    ("newlines", "", "\n", ""),
    ("wrapped words", "", "and\n", ""),
    ("wrapped commas", "", "a,\n", ""),
    ("open math lines", "$1 \\le n", ",\n", "\\le 5$"),
    ("dots", "", ". ", ""),
    ("LaTeX commands", "", "\\le\\cdot\\, ", ""),
    ("Greek letters", "1 ≤ ", "\\alpha, ", "\\beta ≤ 5"),
    ("long word", "", "a", ""),
    ("section headers", "", "Input\nOutput\n", ""),
]

# The layout reader runs on the same statements inside the STAB methods.
LAYOUT_PATTERNS: list[tuple[str, ...]] = [
    ("layout: nested asides", "Input\nThe first line contains n ", "(", ""),
    ("layout: balanced nesting", "Input\nThe first line contains n ", "(a ", "", " b)"),
    ("layout: long field list", "Input\nThe first line contains integers ", "a_1, ", "b."),
    ("layout: many lines", "Input\n", "The first line contains one integer n.\n", ""),
    ("layout: string words", "Input\nThe first line contains a string s ", "of length ", "n."),
]


def statement(prefix: str, piece: str, suffix: str, tail: str, times: int) -> str:
    return prefix + piece * times + suffix + tail * times


def _time(fn, text: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn(text)
        best = min(best, time.perf_counter() - start)
    return best


def _layout(text: str) -> None:
    try:
        infer_layout(text)
    except LayoutError:
        pass


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chars", type=int, default=20000, help="characters of the small statement")
    ap.add_argument("--factor", type=int, default=8, help="how many times longer the large size is")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default=None, help="run the patterns whose name contains this")
    args = ap.parse_args()
    rows = [(*row, parse_constraints) for row in PATTERNS] + [(*row, _layout) for row in LAYOUT_PATTERNS]
    print(f"{'pattern':28} {'chars':>8} {'ms':>9} {'chars':>8} {'ms':>9} {'ratio':>7}   (linear ≈ {args.factor})")
    bad = 0
    for *row, fn in rows:
        name, prefix, piece, suffix = row[:4]
        tail = row[4] if len(row) > 4 else ""
        if args.only and args.only not in name:
            continue
        times = max(1, args.chars // (len(piece) + len(tail)))
        small = statement(prefix, piece, suffix, tail, times)
        large = statement(prefix, piece, suffix, tail, times * args.factor)
        t_small = _time(fn, small, args.repeat)
        t_large = _time(fn, large, args.repeat)
        ratio = t_large / max(t_small, 1e-6)
        flag = " !!" if ratio > 2 * args.factor and t_large > 0.2 else ""
        bad += bool(flag)
        print(f"{name:28} {len(small):8d} {1000 * t_small:9.2f} {len(large):8d} {1000 * t_large:9.2f} {ratio:7.1f}{flag}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""zoo-mini's input validators, run in the real sandbox through ``inputs_valid``.

For every problem the validator must accept every sample and golden test, and reject a
violation set built here from a small valid input: the structural ones every problem shares
(empty, truncated, extra token, extra line, joined or split lines, token syntax), each bound
one past its end, and the problem's global constraints. Each rejection must give the
expected reason, so that an input rejected for another cause (a count that no longer
matches, say) cannot pass for the bound the case is about: an input with n = max + 1 holds
max + 1 items. The lenient cases of the whitespace policy (docs/zoo-mini.md) are accepted.

One ``inputs_valid`` batch per problem: the samples, the golden tests up to 64 KB, the
largest golden test and the cases (small, except the few a bound on a count needs at full
size); every golden test in the e2e test.
"""

from __future__ import annotations

import re

import pytest

from tczoo.benchmarks import load_benchmark
from tczoo.sandbox import inputs_valid

VALID = None  # the expected reason of a case the validator must accept
BIG = 10**9


def text(*lines) -> str:
    return "".join(f"{line}\n" for line in lines)


def row(*values) -> str:
    return " ".join(str(v) for v in values)


def ones(count: int, value: int = 1) -> str:
    return " ".join([str(value)] * count)


# --------------------------------------------------------------------------- shared cases


def structural(base: str) -> list[tuple[str, str, str | None]]:
    """Violations (and the lenient variants) every problem shares, built from ``base``
    (a valid input of at least two lines whose first line starts with a count)."""
    lines = base.rstrip("\n").split("\n")
    assert len(lines) >= 2, base
    first, *rest = lines
    last = lines[-1].split(" ")
    cases = [
        ("empty input", "", "the input is empty"),
        ("only a newline", "\n", "empty line"),
        ("last line dropped", text(*lines[:-1]), "ends before"),
        ("last token dropped", text(*lines[:-1], " ".join(last[:-1])), "ends before|empty line"),
        ("extra token on the last line", text(*lines[:-1], lines[-1] + " 1"), "extra token"),
        ("extra token on the first line", text(first + " 1", *rest), "extra token"),
        ("extra non-empty line at the end", base + "1\n", "extra line"),
        ("empty line at the end", base + "\n", "empty line after the last"),
        ("whitespace line at the end", base + "  \n", "empty line after the last"),
        ("first two lines joined", text(first + " " + rest[0], *rest[1:]), "extra token"),
        ("empty line in the middle", text(first, "", *rest), "empty line"),
        ("leading space", " " + base, "a space where"),
        ("leading '+'", "+" + base, "must not start with '\\+'"),
        ("leading zero", "0" + base, "leading zero"),
        ("a letter for a count", "x" + base[1:], "must be an integer"),
        ("a stray carriage return", base.replace("\n", "\r\n", 1).replace("\r\n", "\r\r\n", 1), "integer"),
        # lenient: the whitespace policy's three exceptions
        ("no final newline", base.rstrip("\n"), VALID),
        ("trailing spaces and tabs", base.replace("\n", " \t \n"), VALID),
        ("CRLF line ends", base.replace("\n", "\r\n"), VALID),
        ("CRLF, trailing spaces, no final newline", base.replace("\n", "  \r\n").rstrip("\r\n "), VALID),
    ]
    spaced = next((i for i, line in enumerate(lines) if " " in line), None)
    if spaced is not None:  # zm09's lines hold one token each
        two = lines[:spaced] + [lines[spaced].replace(" ", "  ", 1)] + lines[spaced + 1:]
        tab = lines[:spaced] + [lines[spaced].replace(" ", "\t", 1)] + lines[spaced + 1:]
        split = lines[:spaced] + lines[spaced].split(" ", 1) + lines[spaced + 1:]
        cases += [
            ("two spaces between tokens", text(*two), "a space where"),
            ("a tab between tokens", text(*tab), "must be an integer"),
            ("a line split in two", text(*split), "line ends before"),
        ]
    return cases


def bounds(make, name: str, lo: int, hi: int, shown: str | None = None) -> list[tuple[str, str, str | None]]:
    """``make(value)`` is a valid input at both ends of [lo, hi] and out of range one past
    each (with the message naming ``shown``, default ``name``)."""
    who = re.escape(shown or name)
    return [
        (f"{name} = {lo} (min)", make(lo), VALID),
        (f"{name} = {hi} (max)", make(hi), VALID),
        (f"{name} = {lo - 1} (min - 1)", make(lo - 1), rf"{who} = {lo - 1} is out of range"),
        (f"{name} = {hi + 1} (max + 1)", make(hi + 1), rf"{who} = {hi + 1} is out of range"),
    ]


# --------------------------------------------------------------------------- per problem


def zm01(lo=1, hi=BIG, nmax=200_000):
    """zm01 and zm03 share their format: n, then n lines "x y"."""
    base = text(3, row(2, 20), row(1, 30), row(1, 50))
    return structural(base) + [
        *bounds(lambda n: text(n, *[row(1, 1)] * n), "n", 1, nmax),
        *bounds(lambda v: text(2, row(1, 1), row(v, 1)), "first value", lo, hi, "_2"),
        *bounds(lambda v: text(2, row(1, v), row(1, 1)), "second value", lo, hi, "_1"),
        ("n says 3, two lines", text(3, row(1, 1), row(1, 1)), "ends before"),
        ("n says 1, two lines", text(1, row(1, 1), row(1, 1)), "extra line"),
        ("a fraction", text(1, row(1, "2.0")), "must be an integer"),
        ("a negative value", text(1, row(-1, 1)), "out of range"),
        ("'-0'", text(1, row("-0", 1)), "'-0'"),
    ]


def multi_case(kmin: int, kmax: int):
    """zm02 and zm12: t test cases "n k" / n integers a_i, the sum of n at most 2e5."""
    base = text(2, row(3, 2), row(1, -2, 3), row(1, kmin), row(-BIG))

    def one(n, k=kmin, a=0):
        return text(1, row(n, k), ones(n, a))

    return structural(base) + [
        *bounds(lambda t: text(t, *[row(1, kmin), "0"] * t), "t", 1, 10_000),
        *bounds(lambda n: one(n), "n", 1, 200_000),
        *bounds(lambda k: one(2, k), "k", kmin, kmax),
        *bounds(lambda a: text(1, row(2, kmin), row(0, a)), "a", -BIG, BIG, "a_2"),
        ("sum of n = 200000", text(2, row(100_000, kmin), ones(100_000), row(100_000, kmin), ones(100_000)), VALID),
        ("sum of n = 200001", text(2, row(100_000, kmin), ones(100_000), row(100_001, kmin), ones(100_001)),
         "sum of n over the test cases reaches 200001"),
        ("t says 3, two cases", text(3, row(1, kmin), "0", row(1, kmin), "0"), "ends before"),
        ("t says 1, two cases", text(1, row(1, kmin), "0", row(1, kmin), "0"), "extra line"),
        ("n - 1 values", text(1, row(3, kmin), ones(2)), "line ends before a_3"),
        ("n + 1 values", text(1, row(3, kmin), ones(4)), "extra token after a_3"),
        ("a value beyond 64 bits", text(1, row(1, kmin), "-" + "9" * 25), "out of range"),
    ]


def zm04():
    base = text(row(3, 7), row(10, 15, 8))
    return structural(base) + [
        *bounds(lambda n: text(row(n, 1), ones(n)), "n", 1, 200_000),
        *bounds(lambda k: text(row(2, k), row(3, 4)), "k", 1, 10**15),
        *bounds(lambda a: text(row(2, 5), row(a, 4)), "a", 1, BIG, "a_1"),
        ("n - 1 values", text(row(3, 1), ones(2)), "line ends before a_3"),
        ("n + 1 values", text(row(3, 1), ones(4)), "extra token after a_3"),
    ]


def zm05():
    base = text(2, row(5, 2), "..#..", row(3, -1, 100, 4, 2), row(1, 1), ".", row(-7))

    def one(n, k=1, s=None, a=0):
        return text(1, row(n, k), s if s is not None else "." * n, ones(n, a))

    return structural(base) + [
        *bounds(lambda t: text(t, *[row(1, 1), ".", "0"] * t), "t", 1, 10_000),
        *bounds(lambda n: one(n), "n", 1, 200_000),
        ("k = 0", one(3, 0), r"k = 0 is out of range \[1, 3\]"),
        ("k = n", one(3, 3), VALID),
        ("k = n + 1", one(3, 4), r"k = 4 is out of range \[1, 3\]"),
        *bounds(lambda a: text(1, row(2, 1), "..", row(0, a)), "a", -BIG, BIG, "a_2"),
        ("s shorter than n", one(4, 1, "..."), "s has 3 characters, n = 4"),
        ("s longer than n", one(2, 1, "..."), "s has 3 characters, n = 2"),
        ("s with another character", one(3, 1, ".x."), "neither '.' nor '#'"),
        ("s with a space", one(3, 1, ". ."), "s has 1 characters"),
        ("s_1 cracked", one(3, 1, "#.."), "s_1 and s_n must be '.'"),
        ("s_n cracked", one(3, 1, "..#"), "s_1 and s_n must be '.'"),
        ("n = 1, '#'", one(1, 1, "#"), "s_1 and s_n must be '.'"),
        ("every inner stone cracked (no path: still valid)", one(4, 1, ".##."), VALID),
        ("sum of n = 200001", text(2, row(100_000, 1), "." * 100_000, ones(100_000),
                                   row(100_001, 1), "." * 100_001, ones(100_001)),
         "sum of n over the test cases reaches 200001"),
        ("t says 2, one case", text(2, row(1, 1), ".", "0"), "ends before"),
        ("a values line missing", text(1, row(2, 1), ".."), "ends before"),
    ]


def zm06():
    base = text(row(3, 4), "0#23", "5041", "2107")
    return structural(base) + [
        *bounds(lambda n: text(row(n, 1), *["0"] * n), "n", 1, 1_000_000),
        *bounds(lambda m: text(row(1, m), "0" * m), "m", 1, 1_000_000),
        ("n * m = 10^6", text(row(1000, 1000), *["9" * 1000] * 1000), VALID),
        ("n * m = 1001 * 1000", text(row(1001, 1000), *["9" * 1000] * 1001), r"n \* m = 1001000 is more than 10\^6"),
        ("start and target shelves (valid: the answer is -1)", text(row(2, 2), "#5", "5#"), VALID),
        ("a row too short", text(row(2, 3), "012", "01"), "row 2 has 2 characters, m = 3"),
        ("a row too long", text(row(2, 3), "0123", "012"), "row 1 has 4 characters, m = 3"),
        ("a letter in a row", text(row(2, 3), "012", "0a2"), r"cell \(2, 2\) is 'a'"),
        ("a '.' in a row", text(row(1, 3), "0.2"), "neither a digit nor '#'"),
        ("spaces between cells", text(row(1, 3), "0 1 2"), "row 1 has 1 characters"),
        ("one row too many", text(row(1, 2), "01", "01"), "extra line"),
        ("one row too few", text(row(2, 2), "01"), "ends before"),
    ]


def zm07():
    base = text(row(6, 6, 2), row(1, 5), row(1, 2, 4), row(2, 3, 3), row(3, 4, 10), row(4, 5, 2), row(5, 5, 7),
                row(2, 5, 20), 5, row(1, 3, 5, 8, 100))

    def graph(n=3, m=None, stations=(1,), roads=None, xs=(0,)):
        roads = [row(1, 2, 1)] if roads is None else roads
        m = len(roads) if m is None else m
        return text(row(n, m, len(stations)), row(*stations), *roads, len(xs), row(*xs))

    return structural(base) + [
        *bounds(lambda n: graph(n=n, roads=[]), "n", 1, 200_000),
        *bounds(lambda m: graph(m=m, roads=[row(1, 2, 1)] * max(m, 0)), "m", 0, 200_000),
        ("k = 0", text(row(3, 0, 0), "", 1, 0), "k = 0 is out of range"),
        ("k = n", graph(stations=(3, 1, 2)), VALID),
        ("k = n + 1", graph(stations=(3, 1, 2, 2)), r"k = 4 is out of range \[1, 3\]"),
        ("a station listed twice", graph(stations=(2, 2)), "junction 2 is listed twice"),
        *bounds(lambda s: graph(stations=(s,)), "s", 1, 3, "s_1"),
        *bounds(lambda u: graph(roads=[row(u, 2, 1)]), "u", 1, 3, "u_1"),
        *bounds(lambda v: graph(roads=[row(1, 1, 1), row(1, v, 1)]), "v", 1, 3, "v_2"),
        *bounds(lambda w: graph(roads=[row(1, 2, w)]), "w", 1, BIG, "w_1"),
        ("loops and repeated roads", graph(roads=[row(2, 2, 5), row(1, 2, 3), row(2, 1, 3)]), VALID),
        *bounds(lambda q: graph(xs=[0] * q), "q", 1, 100_000),
        *bounds(lambda x: graph(xs=(5, x)), "x", 0, 10**18, "x_2"),
        ("m says 2, one road", graph(m=2), "must be an integer|line ends before|extra token"),
        ("q says 3, two distances", text(row(2, 0, 1), 1, 3, row(0, 1)), "line ends before x_3"),
        ("the distances line missing", text(row(2, 0, 1), 1, 1), "ends before"),
    ]


def zm08():
    base = text(5, row(3, -2, 4, -5, 1), row(1, 2), row(2, 3), row(2, 4), row(4, 5))

    def tree(n, a=0, edges=None):
        edges = [row(i, i + 1) for i in range(1, n)] if edges is None else edges
        return text(n, ones(n, a), *edges)

    return structural(base) + [
        *bounds(lambda n: tree(n), "n", 1, 200_000),
        *bounds(lambda a: text(2, row(0, a), row(1, 2)), "a", -BIG, BIG, "a_2"),
        *bounds(lambda u: tree(3, edges=[row(u, 2), row(3, 2) if u != 3 else row(1, 2)]), "u", 1, 3, "u_1"),
        ("a road from a town to itself", tree(3, edges=[row(1, 2), row(3, 3)]), "road 2 joins town 3 to itself"),
        ("a cycle (roads not a tree)", tree(4, edges=[row(1, 2), row(2, 3), row(3, 1)]), "closes a cycle"),
        ("a repeated road", tree(3, edges=[row(1, 2), row(2, 1)]), "closes a cycle"),
        ("n = 1, no roads", tree(1), VALID),
        ("n - 2 roads", tree(4, edges=[row(1, 2), row(2, 3)]), "ends before"),
        ("n roads", tree(3, edges=[row(1, 2), row(2, 3), row(3, 1)]), "extra line"),
        ("a star", tree(5, edges=[row(1, v) for v in range(2, 6)]), VALID),
    ]


def zm09():
    base = text(3, "abaabc", "abaab", "z")
    return structural(base) + [
        *bounds(lambda t: text(t, *["a"] * t), "t", 1, 10_000),
        ("total length 200000", text(2, "a" * 100_000, "b" * 100_000), VALID),
        ("total length 200001", text(2, "a" * 100_000, "b" * 100_001), "total length of the rhythms reaches 200001"),
        ("one rhythm of 200001", text(1, "a" * 200_001), "reaches 200001"),
        ("an uppercase letter", text(1, "abC"), "'C' at position 3, not a lowercase"),
        ("a digit", text(1, "ab1"), "not a lowercase"),
        ("a non-ASCII letter", text(1, "aé"), "not a lowercase"),
        ("a space inside a rhythm", text(1, "ab c"), "extra token after s_1"),
        ("an empty rhythm", text(2, "ab", ""), "empty line"),
        ("t says 2, one rhythm", text(2, "ab"), "ends before s_2"),
    ]


def zm10():
    base = text(4, row(6, 10, 15, 6))
    return structural(base) + [
        *bounds(lambda n: text(n, ones(n)), "n", 1, 200_000),
        *bounds(lambda a: text(2, row(6, a)), "a", 1, 500_000, "a_2"),
        ("n - 1 values", text(3, ones(2)), "line ends before a_3"),
    ]


def zm11():
    base = text(row(7, 6), row(1, 2), row(2, 3), row(3, 1), row(3, 4), row(5, 6), row(6, 7))
    return structural(base) + [
        *bounds(lambda n: text(row(n, 0)), "n", 1, 200_000),
        *bounds(lambda m: text(row(2, m), *[row(1, 2)] * max(m, 0)), "m", 0, 200_000),
        *bounds(lambda u: text(row(3, 2), row(1, 2), row(u, 2)), "u", 1, 3, "u_2"),
        *bounds(lambda v: text(row(3, 1), row(1, v)), "v", 1, 3, "v_1"),
        ("loops and repeated pairs", text(row(3, 3), row(1, 1), row(1, 2), row(2, 1)), VALID),
        ("m says 2, one cable", text(row(3, 2), row(1, 2)), "ends before"),
        ("m says 0, one cable", text(row(3, 0), row(1, 2)), "extra line"),
    ]


PROBLEMS = {
    "zm01": lambda: zm01(),
    "zm02": lambda: multi_case(1, BIG),
    "zm03": lambda: zm01(1, 10_000),
    "zm04": zm04,
    "zm05": zm05,
    "zm06": zm06,
    "zm07": zm07,
    "zm08": zm08,
    "zm09": zm09,
    "zm10": zm10,
    "zm11": zm11,
    "zm12": lambda: multi_case(0, 2 * BIG),
}


@pytest.fixture(scope="module")
def problems(sandbox):
    return {p.id[:4]: p for p in load_benchmark("zoo-mini", sandbox=sandbox)}


def test_every_problem_has_a_validator_and_a_case_list(problems):
    assert sorted(problems) == sorted(PROBLEMS)
    for pid, p in problems.items():
        assert len(p.input_validators) == 1, pid
        code = p.input_validators[0].program.code
        # the shared reader is pasted in: the program the sandbox compiles is one file
        assert '#include "input_validator.h"' not in code.splitlines() and "class Reader" in code, pid


@pytest.mark.parametrize("pid", sorted(PROBLEMS))
def test_validator_accepts_the_jury_inputs_and_rejects_the_violations(pid, problems, sandbox):
    problem = problems[pid]
    cases = PROBLEMS[pid]()
    labels = [label for label, _, _ in cases]
    assert len(labels) == len(set(labels)), "two cases share a label"
    # Every sample, the golden tests up to 64 KB and the largest one (all of them: the e2e test).
    jury = [(f"sample {i + 1}", s.input) for i, s in enumerate(problem.samples)]
    jury += [(t.name, t.input) for t in problem.golden_tests if len(t.input) <= 1 << 16]
    largest = max(problem.golden_tests, key=lambda t: len(t.input))
    jury.append((f"{largest.name} (largest)", largest.input))
    verdicts = inputs_valid(problem, [t for _, t in jury] + [t for _, t, _ in cases], sandbox)

    wrong = [f"{name}: {why}" for (name, _), (ok, why) in zip(jury, verdicts) if not ok]
    for (label, _, want), (ok, why) in zip(cases, verdicts[len(jury):]):
        if want is VALID and not ok:
            wrong.append(f"{label}: rejected ({why})")
        elif want is not VALID and ok:
            wrong.append(f"{label}: accepted")
        elif want is not VALID and not re.search(want, why):
            wrong.append(f"{label}: rejected for another reason ({why!r}, expected /{want}/)")
    assert not wrong, "\n".join(wrong)
    # The reasons are one line each, a rejection is the validator's own (exit 43), not a crash.
    for ok, why in verdicts:
        assert ok or ("rejected it: " in why and "\n" not in why), why


@pytest.mark.e2e
def test_validators_accept_every_golden_test(problems, sandbox):
    for pid, problem in sorted(problems.items()):
        verdicts = inputs_valid(problem, [t.input for t in problem.golden_tests], sandbox)
        bad = [(t.name, why) for t, (ok, why) in zip(problem.golden_tests, verdicts) if not ok]
        assert not bad, (pid, bad)

"""STAB dependency graph and saturator: coupled cases with known optima (issue 7.2/7.3/7.10)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tczoo.methods.stab import saturator as sat
from tczoo.methods.stab.boundary import boundary_command
from tczoo.methods.stab.constraints import parse_constraints
from tczoo.methods.stab.graph import build_graph, components, is_independent
from tczoo.methods.stab.saturator import check_multitest, check_values, saturate, validate


def records(text: str):  # noqa: ANN201 - list of records
    result = parse_constraints(text)
    assert result.unparsed == [], result.unparsed
    return result.constraints


# --------------------------------------------------------------------------- graph


def test_graph_groups_coupled_variables() -> None:
    cons = records("1 ≤ n, m ≤ 10^5. n·m ≤ 10^6. 1 ≤ k ≤ 10. 1 ≤ a_i ≤ 10^9. 1 ≤ l ≤ r ≤ n")
    graph = build_graph(cons)
    assert set(graph.nodes) == {"n", "m", "k", "a_i", "l", "r"}
    assert graph.nodes["a_i"]["role"] == "value" and graph.nodes["n"]["role"] == "size"
    groups = components(graph)
    assert groups == [["n", "m", "l", "r"], ["k"], ["a_i"]]
    assert not is_independent(groups[0], cons) and is_independent(groups[1], cons)


def test_sum_over_tests_links_count_and_size() -> None:
    cons = records("1 ≤ t ≤ 10^4 — the number of test cases. 1 ≤ n ≤ 2·10^5. ∑n ≤ 2·10^5")
    assert components(build_graph(cons)) == [["t", "n"]]


# --------------------------------------------------------------------------- known optima

# The objective (docs/stab-saturator.md): leximin over sizes, then over values, then the
# sum. Each case lists the boundary it must pick.
OPTIMA = [
    ("1 ≤ n ≤ 10^5. 1 ≤ a_i ≤ 10^9", {"n": 100000, "a_i": 10**9}),
    # product: the balanced shape that saturates the product, not 10^5 × 10
    ("1 ≤ n, m ≤ 10^5. n·m ≤ 10^6", {"n": 1000, "m": 1000}),
    ("1 ≤ n ≤ 10, 1 ≤ m ≤ 10^5. n·m ≤ 10^6", {"n": 10, "m": 100000}),
    ("1 ≤ n, m ≤ 10^5. n·m ≤ 10^6. 1 ≤ q ≤ 10. q ≤ n", {"n": 1000, "m": 1000, "q": 10}),
    (r"$1 \le n, m$, $n \cdot m \le 10^6$", {"n": 1000, "m": 1000}),
    ("1 ≤ n, m, k ≤ 1000. n·m·k ≤ 10^6", {"n": 100, "m": 100, "k": 100}),
    # sums
    ("1 ≤ n, m ≤ 2·10^5. n + m ≤ 2·10^5", {"n": 100000, "m": 100000}),
    ("1 ≤ n, m ≤ 10^5. n + m ≤ 2·10^5", {"n": 100000, "m": 100000}),
    ("1 ≤ n ≤ 10^3. 1 ≤ m ≤ 10^6. n + m ≤ 10^5", {"n": 1000, "m": 99000}),
    # chains
    ("1 ≤ n ≤ 10^5. 1 ≤ l ≤ r ≤ n", {"n": 100000, "l": 100000, "r": 100000}),
    ("1 ≤ k ≤ n ≤ 2·10^5", {"k": 200000, "n": 200000}),
    ("1 ≤ n ≤ 10^5. 1 ≤ l < r ≤ n", {"n": 100000, "l": 99999, "r": 100000}),
    ("1 ≤ n ≤ 2·10^5. 1 ≤ a_i ≤ n", {"n": 200000, "a_i": 200000}),
    # element sum with the length known: n first, then the value every element can take
    (r"$1 \le n \le 10^5$. $1 \le a_1, a_2, \ldots, a_n \le 10^9$. $\sum_{i=1}^{n} a_i \le 10^9$",
     {"n": 100000, "a_i": 10000}),
    # large values stay exact (Python ints on the rule path, int64 in CP-SAT)
    ("1 ≤ x ≤ y ≤ 10^18", {"x": 10**18, "y": 10**18}),
]


@pytest.mark.parametrize(("text", "expected"), OPTIMA, ids=[t for t, _ in OPTIMA])
def test_known_optimum(text: str, expected: dict[str, int]) -> None:
    result = saturate(records(text))
    assert result.boundary == expected
    assert result.violations == [] and result.unbounded == []


def test_not_equal_is_respected() -> None:
    cons = records(r"$2 \le n \le 10^5$. $1 \le u_i, v_i \le n$, $u_i \ne v_i$")
    for method in ("auto", "greedy"):
        boundary = saturate(cons, method=method).boundary  # type: ignore[arg-type]
        assert boundary["n"] == 100000
        assert sorted([boundary["u_i"], boundary["v_i"]]) == [99999, 100000]


def test_rule_path_takes_tightest_bound() -> None:
    result = saturate(records("1 ≤ n ≤ 2·10^5. n ≤ 10^5"))
    assert result.boundary == {"n": 100000}
    assert [c.method for c in result.components] == ["rule"]


def test_unbounded_variables_are_reported_not_invented() -> None:
    result = saturate(records("1 ≤ k ≤ n. 1 ≤ m ≤ 5"))
    assert result.boundary == {"m": 5}
    assert result.unbounded == ["k", "n"]


# --------------------------------------------------------------------------- sum over test cases

MULTITEST = ("1 ≤ t ≤ 10^4 — the number of test cases. 1 ≤ n ≤ 2·10^5. 1 ≤ a_i ≤ 10^9. "
             "The sum of n over all test cases does not exceed 2·10^5.")


def test_sum_over_tests_main_boundary_then_tests_max_option() -> None:
    result = saturate(records(MULTITEST))
    options = {o.name: o.boundary for o in result.options}
    # n ≤ 2·10^5 already fills the sum: one test; tests_max: 10^4 tests of 2·10^5 / 10^4.
    assert result.boundary == options["data_max"] == {"t": 1, "n": 200000, "a_i": 10**9}
    assert options["tests_max"] == {"t": 10000, "n": 20, "a_i": 10**9}
    assert result.violations == []


@pytest.mark.parametrize("objective", ["leximin", "weighted"])
@pytest.mark.parametrize("method", ["auto", "greedy"])
def test_sum_over_tests_uses_the_whole_budget(objective: str, method: str) -> None:
    """Issue 14 (9): n ≤ 10^5, ∑n ≤ 2·10^5 is n = 10^5 in t = 2 tests, not t = 1."""
    cons = records("1 ≤ t ≤ 10^4 — the number of test cases. 1 ≤ n ≤ 10^5. "
                   "The sum of n over all test cases does not exceed 2·10^5.")
    result = saturate(cons, objective=objective, method=method)  # type: ignore[arg-type]
    assert result.boundary == {"t": 2, "n": 100000}
    assert {o.name: o.boundary for o in result.options}["tests_max"] == {"t": 10000, "n": 20}
    assert result.violations == [] and result.objective == objective


def test_sum_over_tests_respects_per_test_cap() -> None:
    cons = records("1 ≤ t ≤ 100 — the number of test cases. 1 ≤ n ≤ 1000. The sum of n over all test cases "
                   "does not exceed 10^6.")
    result = saturate(cons)
    # 100 tests of 1000 use 10^5 of the 10^6: both priorities agree, so no options.
    assert result.boundary == {"t": 100, "n": 1000} and result.options == []


def test_many_tests_limited_by_minimum_size() -> None:
    cons = records("1 ≤ t ≤ 10^5 — the number of test cases. 2 ≤ n ≤ 10^5. ∑ n ≤ 10^5")
    result = saturate(cons)
    assert result.boundary == {"t": 1, "n": 100000}
    assert {o.name: o.boundary for o in result.options}["tests_max"] == {"t": 50000, "n": 2}


def test_sum_of_product_over_tests() -> None:
    cons = records("1 ≤ t ≤ 10^4 — the number of test cases. 1 ≤ n, m ≤ 10^5. "
                   "The sum of n·m over all test cases does not exceed 10^6.")
    result = saturate(cons)
    assert result.boundary == {"t": 1, "n": 1000, "m": 1000}
    assert {o.name: o.boundary for o in result.options}["tests_max"] == {"t": 10000, "n": 10, "m": 10}


# --------------------------------------------------------------------------- objectives


def test_weighted_objective_is_the_authors_sum() -> None:
    """The authors' cpsat_solver.py maximises Σ w·x (w = 10^6 for plain sizes): the
    largest sum, n + m = 100010, rather than the balanced leximin shape."""
    cons = records("1 ≤ n, m ≤ 10^5. n·m ≤ 10^6")
    assert saturate(cons).boundary == {"n": 1000, "m": 1000}
    assert saturate(cons, objective="weighted").boundary == {"n": 100000, "m": 10}
    assert saturate(cons, objective="weighted", method="greedy").boundary == {"n": 100000, "m": 10}
    weighted_multi = records("1 ≤ t ≤ 10^4 — the number of test cases. 1 ≤ n, m ≤ 10^5. "
                             "The sum of n·m over all test cases does not exceed 10^6.")
    assert saturate(weighted_multi, objective="weighted").boundary == {"t": 1, "n": 100000, "m": 10}


# --------------------------------------------------------------------------- relations (CP-SAT)

RELATIONS = [
    # linear bound: m ≥ n − 1 and m ≤ 2·10^5, n ≤ 10^5
    ("1 ≤ n ≤ 10^5. n − 1 ≤ m ≤ 2·10^5", {"n": 100000, "m": 200000}),
    # m ≤ n(n−1)/2 binds for small n: 100·99/2 = 4950
    (r"$1 \le n \le 100$. $0 \le m \le \min(10^5, \frac{n(n-1)}{2})$", {"n": 100, "m": 4950}),
    # ... and does not for large n
    ("2 ≤ n ≤ 10^5. 0 ≤ m ≤ min(2·10^5, n(n−1)/2)", {"n": 100000, "m": 200000}),
    # 2n ≤ 10^5 alone: n = 50000
    ("1 ≤ n. 2n ≤ 10^5", {"n": 50000}),
    # n^2 ≤ 10^9: floor(sqrt(10^9)) = 31622
    ("1 ≤ n ≤ 10^5. n^2 ≤ 10^9", {"n": 31622}),
    # n + m ≤ 10^5 written as n ≤ 10^5 − m, with m ≤ 10^3: leximin 5·10^4 each... m is capped
    ("1 ≤ m ≤ 1000. 1 ≤ n. n ≤ 10^5 − m", {"m": 1000, "n": 99000}),
]


@pytest.mark.parametrize(("text", "expected"), RELATIONS, ids=[t for t, _ in RELATIONS])
def test_relations_are_solved_jointly(text: str, expected: dict[str, int]) -> None:
    result = saturate(records(text))
    assert result.boundary == expected
    assert result.violations == [] and result.unbounded == []
    assert all(c.method == "cp-sat" for c in result.components if len(c.vars) > 1 or "n" in c.vars)


def test_relation_among_variables_couples_them() -> None:
    """s + e < d (a relation, not a bound) puts s, e, d in one CP-SAT group; leximin
    then splits d's room between s and e."""
    cons = records(r"$0 \le s, e, d \le 10^9$, $s + e < d$")
    assert components(build_graph(cons)) == [["s", "e", "d"]]
    result = saturate(cons)
    assert result.boundary["d"] == 10**9
    assert sorted([result.boundary["s"], result.boundary["e"]]) == [499999999, 500000000]
    assert result.violations == []
    # The greedy fallback raises a tier as one level, so it finds a valid point, not this one.
    assert saturate(cons, method="greedy").violations == []


# --------------------------------------------------------------------------- fallback


def test_timeout_falls_back_to_valid_greedy(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_time(self, model):  # noqa: ANN001, ANN202
        raise sat._Fallback("timeout")

    monkeypatch.setattr(sat._CpModel, "solve", no_time)
    result = saturate(records("1 ≤ n, m ≤ 10^5. n·m ≤ 10^6. 1 ≤ l ≤ r ≤ n"))
    assert [(c.method, c.status) for c in result.components] == [("greedy", "timeout-fallback")]
    assert result.boundary == {"n": 1000, "m": 1000, "l": 1000, "r": 1000}
    assert result.violations == []


def test_int64_overflow_falls_back_to_greedy() -> None:
    result = saturate(records("1 ≤ a, b, c ≤ 10^9. a·b·c ≤ 10^25"))
    assert result.components[0].method == "greedy"
    assert result.components[0].status == "overflow-fallback"
    assert result.violations == []
    assert result.boundary["a"] * result.boundary["b"] * result.boundary["c"] <= 10**25


@pytest.mark.parametrize(("text", "expected"), OPTIMA, ids=[t for t, _ in OPTIMA])
def test_greedy_follows_the_same_objective(text: str, expected: dict[str, int]) -> None:
    result = saturate(records(text), method="greedy")
    assert result.violations == []
    assert result.boundary == expected


# --------------------------------------------------------------------------- validation


def test_check_values_catches_violations() -> None:
    cons = records(r"$1 \le n \le 5$. $1 \le a_1, a_2, \ldots, a_n \le 10$. $1 \le l \le r \le n$. "
                   r"$|s| \le 3$. $a_1 \le a_2 \le \dots \le a_n$")
    assert check_values({"n": 3, "a": [1, 2, 3], "l": 1, "r": 3, "s": "abc"}, cons) == []
    problems = check_values({"n": 6, "a": [1, 11, 3, 4], "l": 4, "r": 3, "s": "abcd"}, cons)
    text = "\n".join(problems)
    assert "n = 6 > 5" in text and "a_i = 11 > 10" in text and "a_i has 4 elements, n = 6" in text
    assert "l = 4 > r = 3" in text and "|s| = 4 > 3" in text and "not non-decreasing" in text


def test_check_values_elementwise_relations() -> None:
    cons = records(r"$1 \le u_i, v_i \le n$, $u_i \ne v_i$. $1 \le l_i \le r_i \le n$")
    assert check_values({"n": 3, "u": [1, 2], "v": [2, 3], "l": [1, 2], "r": [3, 2]}, cons) == []
    problems = check_values({"n": 3, "u": [1, 2], "v": [1, 3], "l": [3], "r": [2]}, cons)
    assert any("u_i = v_i = 1" in p for p in problems) and any("l_i = 3 > r_i = 2" in p for p in problems)


def test_check_values_on_relations_elementwise() -> None:
    cons = records(r"$1 \le n \le 10$. $s_i + e_i < d_i$. $m \le \frac{n(n-1)}{2}$")
    assert check_values({"n": 4, "m": 6, "s": [1, 2], "e": [1, 0], "d": [3, 3]}, cons) == []
    problems = check_values({"n": 4, "m": 7, "s": [1, 2], "e": [1, 1], "d": [3, 3]}, cons)
    assert problems == ["s_i + e_i < d_i: s_i = 2, e_i = 1, d_i = 3 at position 2",
                        "m ≤ (n^2 - n)/2: m = 7, n = 4"]


def test_validate_uniform_assignment_counts_tests() -> None:
    cons = records(MULTITEST)
    assert validate({"t": 10, "n": 20000}, cons) == []
    assert validate({"t": 11, "n": 20000}, cons) != []


def test_check_multitest() -> None:
    cons = records(MULTITEST)
    assert check_multitest([{"n": 3, "a": [1, 2, 3]}, {"n": 1, "a": [5]}], cons) == []
    big = [{"n": 150000}, {"n": 60000}]
    assert any("total 210000" in p for p in check_multitest(big, cons))
    assert any("t = 10001" in p for p in check_multitest([{"n": 1}] * 10001, cons))


# --------------------------------------------------------------------------- boundary command

STATEMENT = r"""There is a grid of $n$ rows and $m$ columns and a string $s$.

Input

The first line contains an integer $t$ ($1 \le t \le 10^4$) — the number of test cases.

Each test case starts with two integers $n$ and $m$ ($1 \le n, m \le 10^5$, $n \cdot m \le 10^6$).

The next line contains the string $s$ ($1 \le |s| \le 2 \cdot 10^5$).

It is guaranteed that the sum of $n \cdot m$ over all test cases does not exceed $10^6$.

Every cell value is at most one hundred.

Output

Print the answer modulo $10^9+7$ (print $-1$ if $n > m$).

Examples

Input

1
2 3
abc

Output

5
"""


def test_boundary_command_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "statement.md"
    path.write_text(STATEMENT, encoding="utf-8")
    assert boundary_command(path, as_json=True) == 0
    report = json.loads(capsys.readouterr().out)
    assert {"constraints", "unparsed", "boundary", "options"} <= set(report)
    assert [c["kind"] for c in report["constraints"]] == [
        "scalar_range", "scalar_range", "scalar_range", "product", "string_length", "sum_over"]
    assert report["boundary"] == {"t": 1, "n": 1000, "m": 1000, "|s|": 200000}
    assert [o["name"] for o in report["options"]] == ["data_max", "tests_max"]
    assert report["options"][1]["boundary"] == {"t": 10000, "n": 10, "m": 10, "|s|": 200000}
    assert [u["text"] for u in report["unparsed"]] == ["Every cell value is at most one hundred"]
    assert report["violations"] == []


def test_boundary_command_text_and_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.txt"
    path.write_text("1 ≤ n ≤ 10", encoding="utf-8")
    assert boundary_command(path, as_json=False) == 0
    assert "n = 10" in capsys.readouterr().out
    assert boundary_command(tmp_path / "missing.txt", as_json=True) == 1

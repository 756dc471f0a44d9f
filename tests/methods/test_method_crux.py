"""CRUX end to end on zoo-mini zm01 with a scripted model: good answers and the
bad-output corpus (comments and trailing commas, object inputs, truncation, a solution
instead of tests, code inside JSON)."""

from __future__ import annotations

import json

import pytest

from tczoo.methods.crux import Crux
from tcbench_fixtures import failures, hackrate, io, run_method, script, zoo_problem

PROMPT = r"Write \d+ test cases for this problem"

GOOD = json.dumps([
    {"input": "1\n1 5\n", "output": "5\n"},
    {"input": "3\n2 5\n2 5\n2 5\n", "output": "10\n"},
    {"input": "3\n1 1000000000\n2 1000000000\n3 1000000000\n", "output": "3000000000\n"},
    {"input": "2\n1000000000 7\n1 3\n", "output": "10\n"},
    {"input": "2\n1 3\n1 7\n", "output": "10\n"},  # wrong prediction: only one day
])


def test_crux_good_answer_suite_and_hackrate(sandbox, tmp_path):
    problem = zoo_problem(sandbox, "zm01")
    model = script(tmp_path / "m.jsonl", [(PROMPT, "```json\n" + GOOD + "\n```")])
    suite, task = run_method(Crux, problem, model, sandbox, budget=5)
    assert io(suite) == [
        ("1\n1 5\n", "5\n"),
        ("3\n2 5\n2 5\n2 5\n", "10\n"),
        ("3\n1 1000000000\n2 1000000000\n3 1000000000\n", "3000000000\n"),
        ("2\n1000000000 7\n1 3\n", "10\n"),
        ("2\n1 3\n1 7\n", "10\n"),
    ]
    assert failures(suite) == []
    score = hackrate(problem, task, suite, sandbox)
    assert {k: score[k] for k in ("pass_rate", "hack_rate", "ac", "wa", "re", "tle", "n_valid")} == EXPECTED_GOOD
    assert score["wrong"] == EXPECTED_GOOD_WRONG


# Four of five tests are valid (the last predicts a wrong output: PassRate 80); they
# exclude six of the ten wrong codes: overflow, equal fees, day n, an unclamped deadline.
EXPECTED_GOOD = {"pass_rate": 80.0, "hack_rate": 60.0, "ac": 40.0, "wa": 50.0, "re": 10.0, "tle": 0.0, "n_valid": 4.0}
EXPECTED_GOOD_WRONG = {
    "wrong/clamp_off_by_one.cpp": "wa", "wrong/dsu_no_clamp.cpp": "re", "wrong/greedy_by_deadline.cpp": "ac",
    "wrong/greedy_by_profit.cpp": "wa", "wrong/int_total.cpp": "wa", "wrong/recursive_find.py": "ac",
    "wrong/scan_free_day.cpp": "ac", "wrong/set_of_fees.cpp": "wa", "wrong/string_sort.py": "ac",
    "wrong/sweep_no_clamp.cpp": "wa",
}

COMMENTED = """Here are my tests:
```json
[
  // smallest input
  {"input": "1\\n1 5", "output": "5"},
  {"input": {"n": 2, "offers": [[2, 5], [2, 5]]}, "output": 10,},  /* object input */
  {"input": ["2", "1 3", "1 7"], "expected_output": "7"},
  {"output": "3"},
]
```"""

TRUNCATED = '[{"input": "1\\n1 5\\n", "output": "5\\n"}, {"input": "2\\n2 5\\n2 5\\n", "output": "10\\n"}, {"input": "3\\n1 1'

SOLUTION = """```python
import sys, heapq
n = int(input())
offers = sorted(tuple(map(int, input().split())) for _ in range(n))
```"""

CODE_IN_JSON = '[{"input": "1\\n" + "1 5", "output": "5"}]'


@pytest.mark.parametrize("answer, tests, reasons", [
    (COMMENTED,
     [("1\n1 5\n", "5\n"), ("2\n2 5\n2 5\n", "10\n"), ("2\n1 3\n1 7\n", "7\n")],
     [("parse", "missing_input", "round0#3")]),
    (TRUNCATED,
     [("1\n1 5\n", "5\n"), ("2\n2 5\n2 5\n", "10\n")],
     [("parse", "truncated", "round0")]),
    (SOLUTION, [], [("parse", "solution_instead_of_tests", "round0")]),
    (CODE_IN_JSON, [], [("parse", "bad_json", "round0")]),
], ids=["comments-trailing-commas-objects", "truncated", "solution-instead", "code-in-json"])
def test_crux_bad_outputs_are_salvaged_and_recorded(sandbox, tmp_path, answer, tests, reasons):
    problem = zoo_problem(sandbox, "zm01")
    # The second round (top-up) gets nothing usable, so only the first answer counts.
    model = script(tmp_path / "m.jsonl", [(PROMPT, [answer, "[]"])])
    suite, _ = run_method(Crux, problem, model, sandbox, budget=5)
    assert io(suite) == tests
    assert failures(suite) == reasons

"""PSEUDO end to end on zoo-mini zm01 with a scripted model: inputs, ten sampled
candidate solutions (correct, wrong, prose-wrapped, C++, no code, crashing), the
majority vote and its HackRate; then the bad-output corpus for inputs and the vote's
drop reasons."""

from __future__ import annotations

import pytest

from tczoo.methods.pseudo import Pseudo
from tcbench_fixtures import failures, fenced, hackrate, io, run_method, script, zoo_problem

INPUTS = r"Write \d+ test inputs for this problem"
SOLVE = r"Solve this problem"

GOOD = """
import sys, heapq
data = sys.stdin.read().split()
n = int(data[0])
offers = sorted((int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n))
kept = []
for d, p in offers:
    if len(kept) < d:
        heapq.heappush(kept, p)
    elif kept[0] < p:
        heapq.heappushpop(kept, p)
print(sum(kept))
"""
GOOD_CPP = """
#include <bits/stdc++.h>
using namespace std;
int main() {
    int n; scanf("%d", &n);
    vector<pair<long long, long long>> o(n);
    for (auto &x : o) scanf("%lld %lld", &x.first, &x.second);
    sort(o.begin(), o.end());
    priority_queue<long long, vector<long long>, greater<long long>> kept;
    for (auto [d, p] : o) {
        if ((long long)kept.size() < d) kept.push(p);
        else if (kept.top() < p) { kept.pop(); kept.push(p); }
    }
    long long total = 0;
    while (!kept.empty()) { total += kept.top(); kept.pop(); }
    printf("%lld\\n", total);
}
"""
# Earliest deadline first, never swapping a cheap offer out: a plausible wrong solution.
EDF = """
import sys
data = sys.stdin.read().split()
n = int(data[0])
offers = sorted((int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n))
day = total = 0
for d, p in offers:
    if day < d:
        day += 1
        total += p
print(total)
"""
CANDIDATES = [
    fenced(GOOD), fenced(GOOD), fenced(GOOD),
    "Here is my solution:\n" + GOOD + "\nIt runs in O(n log n).",  # unfenced, wrapped in prose
    fenced(GOOD_CPP, "cpp"),
    fenced(GOOD),
    fenced(EDF), fenced(EDF),
    "I am not sure how to solve this problem.",  # no program at all
    fenced("print(1 // 0)"),  # crashes on every input
]
INPUT_ANSWER = """```json
[
  "1\\n1 5",  // one offer
  {"n": 2, "offers": [[2, 5], [2, 5]]},
  "3\\n1 1000000000\\n2 1000000000\\n3 1000000000",
  "2\\n1 3\\n1 7",
  "2\\n1000000000 7\\n1 3",
]
```"""


def test_pseudo_majority_vote_suite_and_hackrate(sandbox, tmp_path):
    problem = zoo_problem(sandbox, "zm01")
    model = script(tmp_path / "m.jsonl", [(INPUTS, [INPUT_ANSWER, "[]"]), (SOLVE, CANDIDATES)])
    suite, task = run_method(Pseudo, problem, model, sandbox, budget=5)
    # The six correct candidates outvote the two EDF ones on "2 / 1 3 / 1 7" (7, not 3).
    assert io(suite) == [
        ("1\n1 5\n", "5\n"),
        ("2\n2 5\n2 5\n", "10\n"),
        ("3\n1 1000000000\n2 1000000000\n3 1000000000\n", "3000000000\n"),
        ("2\n1 3\n1 7\n", "7\n"),
        ("2\n1000000000 7\n1 3\n", "10\n"),
    ]
    assert failures(suite) == [
        ("parse", "no_code_block", "candidate-8"),
        ("candidate", "candidate_re", "candidate-9"),
    ]
    assert [(a.role, a.program.name, a.program.language.value) for a in suite.artifacts][4] == (
        "candidate_solution", "candidate-4", "cpp")
    assert len(suite.artifacts) == 9
    score = hackrate(problem, task, suite, sandbox)
    assert {k: score[k] for k in ("pass_rate", "hack_rate", "ac", "wa", "re", "tle", "n_valid")} == {
        "pass_rate": 100.0, "hack_rate": 60.0, "ac": 40.0, "wa": 50.0, "re": 10.0, "tle": 0.0, "n_valid": 5.0}
    assert sorted(w for w, o in score["wrong"].items() if o != "ac") == [
        "wrong/clamp_off_by_one.cpp", "wrong/dsu_no_clamp.cpp", "wrong/greedy_by_profit.cpp",
        "wrong/int_total.cpp", "wrong/set_of_fees.cpp", "wrong/sweep_no_clamp.cpp"]


FOUR_GOOD = [fenced(GOOD)] * 4


@pytest.mark.parametrize("answer, tests, reasons", [
    # Code inside JSON: evaluated in the sandbox, every item kept (not just the first).
    ('["1\\n" + "1 5", "2\\n" + "\\n".join(["1 3", "1 7"]), "1\\n1 " + str(2 * 3)]',
     [("1\n1 5\n", "5\n"), ("2\n1 3\n1 7\n", "7\n"), ("1\n1 6\n", "6\n")],
     [("parse", "code_in_json", "inputs/round0")]),
    # Truncated mid-list: the complete items are kept.
    ('```json\n["1\\n1 5", "2\\n2 5\\n2 5", "3\\n1 1',
     [("1\n1 5\n", "5\n"), ("2\n2 5\n2 5\n", "10\n")],
     [("parse", "truncated", "inputs/round0")]),
    # A solution instead of tests: nothing to salvage, recorded as such.
    (fenced(GOOD), [], [("parse", "solution_instead_of_tests", "inputs/round0")]),
    # Objects with an input key, and inputs as lists of lines.
    ('{"tests": [{"stdin": "1\\n1 5"}, {"input": ["2", "2 5", "2 5"]}]}',
     [("1\n1 5\n", "5\n"), ("2\n2 5\n2 5\n", "10\n")], []),
], ids=["code-in-json", "truncated", "solution-instead", "objects"])
def test_pseudo_bad_input_answers(sandbox, tmp_path, answer, tests, reasons):
    problem = zoo_problem(sandbox, "zm01")
    model = script(tmp_path / "m.jsonl", [(INPUTS, [answer, "[]"]), (SOLVE, FOUR_GOOD)])
    suite, _ = run_method(Pseudo, problem, model, sandbox, budget=3)
    assert io(suite) == tests
    assert failures(suite) == reasons


def test_pseudo_plain_majority_and_the_min_agree_option(sandbox, tmp_path):
    problem = zoo_problem(sandbox, "zm01")
    answer = '["1\\n1 5", "2\\n1 3\\n1 7", "3\\n2 5\\n2 5\\n2 5", "1\\n1 1000000001"]'
    candidates = [fenced(GOOD), fenced(GOOD), fenced(EDF), fenced(EDF), fenced("print(5)")]
    model = script(tmp_path / "m.jsonl", [(INPUTS, answer), (SOLVE, candidates)])
    # The paper's vote: the most frequent output wins. "2 / 1 3 / 1 7" splits 7,7 | 3,3 | 5:
    # a tie, won by the earliest candidate's 7 (the right answer here, by luck of order).
    suite, _ = run_method(Pseudo, problem, model, sandbox, budget=4, candidates=5)
    assert io(suite) == [("1\n1 5\n", "5\n"), ("2\n1 3\n1 7\n", "7\n"), ("3\n2 5\n2 5\n2 5\n", "10\n"),
                         ("1\n1 1000000001\n", "1000000001\n")]
    assert failures(suite) == []
    # min_agree=5 (our option): 5/5 agree on "5"; 2-2-1 and 4-of-5 are too few; the last
    # input breaks the constraints but every candidate still answers it: 1000000001 x4, "5" x1.
    strict, _ = run_method(Pseudo, problem, model, sandbox, budget=4, candidates=5, min_agree=5)
    assert io(strict) == [("1\n1 5\n", "5\n")]
    assert failures(strict) == [("oracle", "too_few_agree", f"input#{i}") for i in (1, 2, 3)]


def test_pseudo_without_candidates_gives_no_tests(sandbox, tmp_path):
    problem = zoo_problem(sandbox, "zm01")
    model = script(tmp_path / "m.jsonl", [(INPUTS, '["1\\n1 5"]'), (SOLVE, ["no idea", "```\n\n```"])])
    suite, _ = run_method(Pseudo, problem, model, sandbox, budget=1, candidates=2)
    assert suite.tests == []
    assert [r for _, r, _ in failures(suite)] == ["no_code_block", "no_code_block", "no_candidates"]

"""LCB end to end on zoo-mini zm05 with a scripted model: two random-input generators
and two edge-case generators (the paper's "multiple"; incl. a maximum-size input),
outputs from the correct code; exact suite and HackRate. Then: a failing generator
costs only itself, inputs the correct code cannot answer stay without an output (no
refill: the scorer's validators judge them and PassRate sees them), and answers in odd
shapes still parse."""

from __future__ import annotations

import hashlib
import json

from tczoo.methods.lcb import Lcb
from tcbench_fixtures import failures, fenced, hackrate, io, run_method, script, zoo_problem

RANDOM = r"different calls exercise different scales"
EDGE = r"generate_edge_cases"

GENERATE = """
import random

def generate():
    t = random.randint(1, 3)
    lines = [str(t)]
    for _ in range(t):
        n = random.randint(1, 8)
        k = random.randint(1, n)
        cracks = [random.choice(".#") for _ in range(n - 2)]
        s = "." + "".join(cracks) + "." if n > 1 else "."
        lines += [f"{n} {k}", s, " ".join(str(random.randint(-10, 10)) for _ in range(n))]
    return "\\n".join(lines) + "\\n"
"""
EDGE_CASES = """
def generate_edge_cases():
    big = 200000
    return [
        "1\\n1 1\\n.\\n-1000000000\\n",
        "2\\n3 1\\n.#.\\n1 2 3\\n2 1\\n..\\n-5 -5\\n",
        "1\\n%d %d\\n%s\\n%s\\n" % (big, big, "." * big, " ".join(["1000000000"] * big)),
        "1\\n5 2\\n.....\\n-1 -1 -1 -1 -1\\n",
    ]
"""
EDGE_CASES_2 = """
def generate_edge_cases():
    return ["1\\n2 2\\n..\\n1000000000 1000000000\\n", "1\\n3 1\\n...\\n-1 -1 -1\\n"]
"""


def short(suite):
    """Inputs over 200 characters by their length and hash (the maximum-size one)."""
    return [(i if len(i) < 200 else f"{len(i)}:{hashlib.sha256(i.encode()).hexdigest()[:12]}", o) for i, o in io(suite)]


def test_lcb_random_and_edge_generators_suite_and_hackrate(sandbox, tmp_path):
    problem = zoo_problem(sandbox, "zm05")
    model = script(tmp_path / "m.jsonl", [(EDGE, [fenced(EDGE_CASES), fenced(EDGE_CASES_2)]),
                                          (RANDOM, fenced(GENERATE))])
    suite, task = run_method(Lcb, problem, model, sandbox, budget=8)
    # Edge and random inputs alternate: four edge cases (half the budget, round-robin over
    # the two edge generators, so edge-0's maximum-size input is not reached), four random.
    assert short(suite) == EXPECTED_SUITE
    assert [t.origin for t in suite.tests] == ["lcb:edge", "lcb:random"] * 4
    assert failures(suite) == []
    assert [(a.role, a.program.name, a.ok, a.note) for a in suite.artifacts] == [
        ("generator", "edge-0", True, "4 inputs from 1 calls"),
        ("generator", "edge-1", True, "2 inputs from 1 calls"),
        ("generator", "random-0", True, "2 inputs from 2 calls"),  # 4 needed over two generators
        ("generator", "random-1", True, "2 inputs from 2 calls"),
    ]
    score = hackrate(problem, task, suite, sandbox)
    assert {k: score[k] for k in ("pass_rate", "hack_rate", "ac", "wa", "re", "tle", "n_valid")} == {
        "pass_rate": 100.0, "hack_rate": 70.0, "ac": 30.0, "wa": 70.0, "re": 0.0, "tle": 0.0, "n_valid": 8.0}
    # without a maximum-size input the overflow and the two slow codes survive
    assert sorted(w for w, o in score["wrong"].items() if o == "ac") == [
        "wrong/int_overflow.cpp", "wrong/naive_nk.cpp", "wrong/window_scan.py"]


EXPECTED_SUITE = [
    ("1\n1 1\n.\n-1000000000\n", "-1000000000\n"),
    ("3\n3 3\n.#.\n10 -4 -3\n8 4\n..#.#.#.\n-4 -7 3 2 3 -2 -9 -6\n6 6\n...#..\n4 -6 -1 2 -3 -4\n", "7\n-8\n0\n"),
    ("1\n2 2\n..\n1000000000 1000000000\n", "2000000000\n"),
    ("3\n1 1\n.\n9\n7 4\n..#....\n4 -2 10 5 3 7 -4\n7 3\n.#.#...\n-9 5 -6 10 -6 9 -2\n", "9\n15\n-8\n"),
    ("2\n3 1\n.#.\n1 2 3\n2 1\n..\n-5 -5\n", "IMPOSSIBLE\n-10\n"),
    ("1\n2 1\n..\n5 -3\n", "2\n"),
    ("1\n3 1\n...\n-1 -1 -1\n", "-3\n"),
    ("3\n6 2\n.#..#.\n0 2 3 3 1 5\n6 4\n.#.##.\n1 -7 9 8 -10 -9\n6 1\n.#.#..\n-9 -6 -9 7 -4 -8\n",
     "11\n1\nIMPOSSIBLE\n"),
]


def test_lcb_failing_generator_and_unanswerable_inputs(sandbox, tmp_path):
    problem = zoo_problem(sandbox, "zm05")
    # The edge-case generator hangs; random inputs fill the whole budget. Some random
    # inputs break the constraints (n = 0) and the correct code crashes on them: dropped.
    bad_random = GENERATE.replace("n = random.randint(1, 8)", "n = random.randint(0, 3)").replace(
        "k = random.randint(1, n)", "k = max(n, 1)")
    model = script(tmp_path / "m.jsonl", [(EDGE, fenced("def generate_edge_cases():\n    while True:\n        pass\n")),
                                          (RANDOM, fenced(bad_random))])
    suite, task = run_method(Lcb, problem, model, sandbox, budget=6, generator_time_ms=500)
    # Six distinct random inputs, three each from the two random generators. The correct
    # code crashes on the three with n = 0: they stay, without an output, and count.
    assert short(suite) == [
        ("3\n1 1\n.\n10\n2 2\n..\n10 -4\n1 1\n.\n5\n", "10\n6\n5\n"),
        ("3\n0 1\n.\n\n1 1\n.\n9\n3 3\n.#.\n-3 -1 8\n", None),
        ("1\n0 1\n.\n\n", None),
        ("3\n2 2\n..\n-6 8\n3 3\n...\n-5 5 0\n3 3\n.#.\n3 1 5\n", "2\n0\n8\n"),
        ("2\n2 2\n..\n-2 -8\n3 3\n...\n8 -7 -8\n", "-10\n0\n"),
        ("3\n1 1\n.\n3\n0 1\n.\n\n1 1\n.\n1\n", None),
    ]
    assert failures(suite) == [("generator", "timeout", "edge-0"), ("generator", "timeout", "edge-1")] + [
        ("oracle", "correct_code_re", "lcb:random")] * 3
    assert [(a.program.name, a.ok, a.note) for a in suite.artifacts] == [
        ("edge-0", False, "0 inputs from 1 calls; retired: timeout"),
        ("edge-1", False, "0 inputs from 1 calls; retired: timeout"),
        ("random-0", True, "3 inputs from 3 calls"),
        ("random-1", True, "3 inputs from 3 calls"),
    ]
    # the validators crash on n = 0 as well: 3 of 6 generated tests are valid
    score = hackrate(problem, task, suite, sandbox)
    assert (score["pass_rate"], score["n_valid"], score["n_tests"]) == (50.0, 3.0, 6.0)

def test_lcb_answers_in_odd_shapes(sandbox, tmp_path):
    problem = zoo_problem(sandbox, "zm05")
    edge_in_json = json.dumps({"function": "def generate_edge_cases():\n    return ['1\\n1 1\\n.\\n5\\n', {'t': 1, 'n_k': [2, 2], 's': '..', 'a': [1, 2]}]\n"})
    random_is_solution = fenced("import sys\nt = int(input())\nfor _ in range(t):\n    print(0)\n")
    model = script(tmp_path / "m.jsonl", [(EDGE, "Here you go:\n" + edge_in_json), (RANDOM, random_is_solution)])
    suite, _ = run_method(Lcb, problem, model, sandbox, budget=4)
    assert io(suite) == [("1\n1 1\n.\n5\n", "5\n"), ("1\n2 2\n..\n1 2\n", "3\n")]
    assert failures(suite) == [("parse", "solution_instead_of_generator", "random-0"),
                               ("parse", "solution_instead_of_generator", "random-1")]

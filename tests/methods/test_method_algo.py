"""ALGO end to end on zoo-mini zm09 with a scripted model: the paper's one oracle, used
even when it fails the samples (recorded; its wrong outputs cost PassRate), and our
option to demand a sample-passing oracle (a second one sampled); a seeded small-input
generator; exact suite and HackRate. Then generators that hang, crash, print too much,
return structured values, come inside JSON, or are a solution instead."""

from __future__ import annotations

import json

import pytest

from tczoo.methods.algo import Algo
from tcbench_fixtures import failures, fenced, hackrate, io, run_method, script, zoo_problem

ORACLE = r"brute-force program for this problem"
GENERATOR = r"exhaustive search over the input finishes instantly"

BRUTE = """
import sys

def smallest_period(t):
    for p in range(1, len(t) + 1):
        if all(t[i] == t[i + p] for i in range(len(t) - p)):
            return p

data = sys.stdin.read().split()
for s in data[1:1 + int(data[0])]:
    print(sum(smallest_period(s[:i]) for i in range(1, len(s) + 1)))
"""
# Sums the prefix lengths (takes every period to be the whole prefix): fails sample 1.
NOT_AN_ORACLE = """
import sys
data = sys.stdin.read().split()
for s in data[1:]:
    print(len(s) * (len(s) + 1) // 2)
"""
GENERATE = """
import random

def generate():
    t = random.randint(1, 3)
    rhythms = ["".join(random.choice("ab") for _ in range(random.randint(1, 6))) for _ in range(t)]
    return "\\n".join([str(t)] + rhythms) + "\\n"
"""


def test_algo_uses_its_one_oracle_even_a_wrong_one(sandbox, tmp_path):
    problem = zoo_problem(sandbox, "zm09")
    model = script(tmp_path / "m.jsonl", [
        (ORACLE, [fenced(NOT_AN_ORACLE), "Sure! Here is a brute force:\n" + BRUTE]),
        (GENERATOR, fenced(GENERATE)),
    ])
    suite, task = run_method(Algo, problem, model, sandbox, budget=8)
    # NOT_AN_ORACLE prints len(s)(len(s)+1)/2: right only for strings whose every prefix
    # has no shorter period ("ab", "a"); the other six outputs are wrong.
    assert io(suite) == [
        ("1\naaba\n", "10\n"),
        ("3\nbbbba\naa\naa\n", "15\n3\n3\n"),
        ("3\nb\nbaaaaa\nb\n", "1\n21\n1\n"),
        ("1\nab\n", "3\n"),
        ("1\na\n", "1\n"),
        ("2\nabab\nb\n", "10\n1\n"),
        ("1\nbbabbb\n", "21\n"),
        ("3\naaaaab\naaba\naab\n", "21\n10\n6\n"),
    ]
    assert failures(suite) == [("oracle", "oracle_fails_samples", "oracle-0")]
    assert [(a.role, a.program.name, a.ok) for a in suite.artifacts] == [
        ("oracle", "oracle-0", False), ("generator", "generator", True)]
    score = hackrate(problem, task, suite, sandbox)
    # "3 / b / baaaaa / b" is right by luck too (b, ba, baa... have no shorter period): 3 of 8 valid
    assert (score["pass_rate"], score["n_valid"]) == (37.5, 3.0)
    # three tiny valid tests catch two logic bugs of ten
    assert score["hack_rate"] == 20.0
    assert sorted(w for w, o in score["wrong"].items() if o != "ac") == [
        "wrong/first_step_unrolled.cpp", "wrong/no_reset_total.cpp"]


def test_algo_option_retries_an_oracle_that_fails_the_samples(sandbox, tmp_path):
    problem = zoo_problem(sandbox, "zm09")
    model = script(tmp_path / "m.jsonl", [
        (ORACLE, [fenced(NOT_AN_ORACLE), "Sure! Here is a brute force:\n" + BRUTE]),  # 2nd: unfenced
        (GENERATOR, fenced(GENERATE)),
    ])
    suite, task = run_method(Algo, problem, model, sandbox, budget=8, require_sample_pass=True, oracle_retries=1)
    assert io(suite) == [
        ("1\naaba\n", "8\n"),
        ("3\nbbbba\naa\naa\n", "9\n2\n2\n"),
        ("3\nb\nbaaaaa\nb\n", "1\n21\n1\n"),
        ("1\nab\n", "3\n"),
        ("1\na\n", "1\n"),
        ("2\nabab\nb\n", "7\n1\n"),
        ("1\nbbabbb\n", "15\n"),
        ("3\naaaaab\naaba\naab\n", "11\n8\n5\n"),
    ]
    assert failures(suite) == [("oracle", "oracle_fails_samples", "oracle-0")]
    assert [(a.role, a.program.name, a.ok) for a in suite.artifacts] == [
        ("oracle", "oracle-0", False), ("oracle", "oracle-1", True), ("generator", "generator", True)]
    assert suite.artifacts[0].note == "sample 1: printed '15\\n', expected '12\\n'"
    score = hackrate(problem, task, suite, sandbox)
    # Tiny strings catch the logic bugs; overflow, the 2^64 hash and the slow codes survive.
    assert {k: score[k] for k in ("pass_rate", "hack_rate", "ac", "wa", "re", "tle", "n_valid")} == {
        "pass_rate": 100.0, "hack_rate": 60.0, "ac": 40.0, "wa": 60.0, "re": 0.0, "tle": 0.0, "n_valid": 8.0}
    assert sorted(w for w, o in score["wrong"].items() if o == "ac") == [
        "wrong/hash_u64.cpp", "wrong/naive_tle.cpp", "wrong/overflow_int.cpp", "wrong/slicing_tle.py"]


def test_algo_option_gives_up_when_no_oracle_passes_the_samples(sandbox, tmp_path):
    problem = zoo_problem(sandbox, "zm09")
    model = script(tmp_path / "m.jsonl", [(ORACLE, [fenced(NOT_AN_ORACLE), fenced("while True: pass")]),
                                          (GENERATOR, fenced(GENERATE))])
    suite, _ = run_method(Algo, problem, model, sandbox, budget=4, oracle_time_ms=300, require_sample_pass=True,
                          oracle_retries=1)
    assert suite.tests == []
    assert failures(suite) == [("oracle", "oracle_fails_samples", "oracle-0"),
                               ("oracle", "oracle_fails_samples", "oracle-1"),
                               ("oracle", "no_usable_oracle", "")]
    assert suite.provenance.failures[1].detail.startswith("sample 1: TLE")


HANGS = "def generate():\n    while True:\n        pass\n"
CRASHES = "def generate():\n    return 1 // 0\n"
FLOODS = "def generate():\n    print('x' * 10**7)\n    return '1\\nab\\n'\n"
HUGE = "def generate():\n    return '1\\n' + 'a' * 1500000 + '\\n'\n"
STRUCTURED = "import random\n\ndef generate():\n    return [1, ''.join(random.choice('ab') for _ in range(3))]\n"
FIXED = "def generate():\n    return '1\\naab\\n'\n"


@pytest.mark.parametrize("answer, tests, reasons", [
    (fenced(HANGS), [], [("generator", "timeout", "generator")]),
    (fenced(CRASHES), [], [("generator", "crash", "generator")]),
    (fenced(FLOODS), [], [("generator", "output_too_large", "generator")]),
    (fenced(HUGE), [], [("generator", "input_too_large", "generator")]),
    # A list is taken as the lines of one input.
    (fenced(STRUCTURED), [("1\naba\n", "5\n"), ("1\nbbb\n", "3\n"), ("1\nabb\n", "6\n")], []),
    # A deterministic generator gives one input, then is stopped (not a failure).
    (fenced(FIXED), [("1\naab\n", "5\n")], []),
    # The generator inside a JSON string.
    (json.dumps({"generator": GENERATE}), None, []),
    # Truncated: what parses is kept and the cut recorded; cut inside generate(): nothing.
    ("```python\ndef generate():\n    return '1\\nab\\n'\n\ndef unused(x):\n    return [x,",
     [("1\nab\n", "3\n")], [("parse", "truncated", "generator")]),
    ("```python\nimport random\n\ndef generate():\n    t = random.randint(1,", [],
     [("parse", "truncated", "generator")]),
    # A solution instead of a generator.
    (fenced(BRUTE), [], [("parse", "solution_instead_of_generator", "generator")]),
], ids=["hangs", "crashes", "floods-stdout", "input-too-large", "structured", "deterministic",
        "json-string", "truncated-salvaged", "truncated-lost", "solution-instead"])
def test_algo_generator_failures_cost_only_the_generator(sandbox, tmp_path, answer, tests, reasons):
    problem = zoo_problem(sandbox, "zm09")
    model = script(tmp_path / "m.jsonl", [(ORACLE, fenced(BRUTE)), (GENERATOR, answer)])
    suite, _ = run_method(Algo, problem, model, sandbox, budget=3, generator_time_ms=500, max_input_kb=1024)
    if tests is None:  # same generator as the good run: same first three inputs
        tests = [("1\naaba\n", "8\n"), ("3\nbbbba\naa\naa\n", "9\n2\n2\n"), ("3\nb\nbaaaaa\nb\n", "1\n21\n1\n")]
    assert io(suite) == tests
    assert failures(suite) == reasons
    assert suite.artifacts[0].role == "oracle" and suite.artifacts[0].ok

"""HT end to end with a scripted model: the validator, then LLMGen inputs, RPGen and
HackGen code inside a JSON answer (zoo-mini zm01); every input validated, outputs where
all correct codes agree; exact suite and HackRate. Then SPGen for a multi-category
problem with code in fenced blocks (zm05), and validators that do not work."""

from __future__ import annotations

import json

from tczoo.methods.ht import Ht
from tcbench_fixtures import ZM01_VALIDATOR, failures, fenced, hackrate, io, run_method, script, zoo_problem

VALIDATOR_PROMPT = r"validate_input\(input_str: str\) -> bool"
GENERATORS_PROMPT = r"Produce four kinds of inputs"

VALIDATOR = ZM01_VALIDATOR
RPGEN = """import random

def gen_random_input():
    n = random.randint(1, 8)
    return "\\n".join([str(n)] + ["%d %d" % (random.randint(1, n), random.randint(1, 20)) for _ in range(n)])
"""
HACKGEN = """
def gen_hack_input_overflow():
    return "3\\n1 1000000000\\n2 1000000000\\n3 1000000000\\n"

def gen_hack_input_equal_fees():
    return "3\\n2 5\\n2 5\\n2 5\\n"

def gen_hack_input_huge_deadline():
    return "2\\n1000000000 7\\n1 3\\n"

def gen_hack_input_zero_deadline():
    return "1\\n0 5\\n"  # breaks the constraints: the validator must reject it
"""
ANSWER = json.dumps({
    "llmgen_inputs": ["1\n1 1\n", [2, [1, 9], [1, 4]], "2\n1 5\n1 5\n", "1\n1 0\n"],
    "multi_category": False,
    "programmed_generators": RPGEN,
    "hack_generators": HACKGEN,
}, indent=1)


def test_ht_validator_families_suite_and_hackrate(sandbox, tmp_path):
    problem = zoo_problem(sandbox, "zm01")
    model = script(tmp_path / "m.jsonl", [
        (GENERATORS_PROMPT, "# Analysis\nA greedy by deadline fails ...\n\n# Result\n" + fenced(ANSWER, "json")),
        (VALIDATOR_PROMPT, fenced(VALIDATOR)),
    ])
    suite, task = run_method(Ht, problem, model, sandbox, budget=10)
    assert len(task.correct_programs) == 1  # the paper's "the correct code"
    # Round-robin over LLMGen, HackGen and RPGen; "1 / 1 0" (fee 0) and "1 / 0 5"
    # (deadline 0) were rejected by the validator.
    assert [(i, o, t.origin) for (i, o), t in zip(io(suite), suite.tests)] == [
        ("1\n1 1\n", "1\n", "ht:llmgen"),
        ("3\n2 5\n2 5\n2 5\n", "10\n", "ht:hackgen"),
        ("5\n5 9\n3 15\n3 18\n3 12\n3 13\n", "55\n", "ht:rpgen"),
        ("2\n1 9\n1 4\n", "9\n", "ht:llmgen"),
        ("2\n1000000000 7\n1 3\n", "10\n", "ht:hackgen"),
        ("2\n2 7\n2 7\n", "14\n", "ht:rpgen"),
        ("2\n1 5\n1 5\n", "5\n", "ht:llmgen"),
        ("3\n1 1000000000\n2 1000000000\n3 1000000000\n", "3000000000\n", "ht:hackgen"),
        ("3\n1 16\n3 8\n1 15\n", "24\n", "ht:rpgen"),
        ("8\n3 15\n2 4\n4 12\n2 16\n1 10\n8 16\n2 20\n5 5\n", "84\n", "ht:rpgen"),
    ]
    assert failures(suite) == [("validator", "invalid_input", "ht:llmgen"), ("validator", "invalid_input", "ht:hackgen")]
    assert [(a.role, a.program.name) for a in suite.artifacts] == [
        ("validator", "validator-0"), ("generator", "gen_random_input"),
        ("generator", "gen_hack_input_equal_fees"), ("generator", "gen_hack_input_huge_deadline"),
        ("generator", "gen_hack_input_overflow"), ("generator", "gen_hack_input_zero_deadline")]
    score = hackrate(problem, task, suite, sandbox)
    assert {k: score[k] for k in ("pass_rate", "hack_rate", "ac", "wa", "re", "tle", "n_valid")} == {
        "pass_rate": 100.0, "hack_rate": 70.0, "ac": 30.0, "wa": 60.0, "re": 10.0, "tle": 0.0, "n_valid": 10.0}
    assert sorted(w for w, o in score["wrong"].items() if o == "ac") == [
        "wrong/recursive_find.py", "wrong/scan_free_day.cpp", "wrong/string_sort.py"]


ZM05_VALIDATOR = """
def validate_input(input_str):
    data = input_str.split()
    t = int(data[0]); pos = 1; total = 0
    for _ in range(t):
        n, k = int(data[pos]), int(data[pos + 1]); s = data[pos + 2]
        a = data[pos + 3:pos + 3 + n]; pos += 3 + n
        if not (1 <= k <= n) or len(s) != n or s[0] != "." or s[-1] != "." or len(a) != n:
            return False
        total += n
    return pos == len(data) and total <= 200000
"""
SPGEN = """
import random

def gen_category_input_reachable():
    n = random.randint(2, 6)
    return "1\\n%d %d\\n%s\\n%s\\n" % (n, n - 1, "." * n, " ".join(str(random.randint(-9, 9)) for _ in range(n)))

def gen_category_input_impossible():
    n = random.randint(4, 6)
    return "1\\n%d 1\\n.%s.\\n%s\\n" % (n, "#" * (n - 2), " ".join("1" for _ in range(n)))
"""
HACK_CRASHES = """
def gen_hack_input_negative_window():
    return undefined_name
"""


def test_ht_spgen_in_fenced_blocks_and_a_crashing_hackgen(sandbox, tmp_path):
    problem = zoo_problem(sandbox, "zm05")
    # No JSON at all: LLMGen is lost, the code comes as fenced blocks.
    answer = "Multi-category: a score or IMPOSSIBLE.\n" + fenced(SPGEN) + "\nHacking:\n" + fenced(HACK_CRASHES)
    model = script(tmp_path / "m.jsonl", [(GENERATORS_PROMPT, answer), (VALIDATOR_PROMPT, fenced(ZM05_VALIDATOR))])
    suite, _ = run_method(Ht, problem, model, sandbox, budget=4)
    assert [(i, o, t.origin) for (i, o), t in zip(io(suite), suite.tests)] == [
        ("1\n4 1\n.##.\n1 1 1 1\n", "IMPOSSIBLE\n", "ht:spgen"),
        ("1\n6 5\n......\n3 -4 1 -2 6 -5\n", "5\n", "ht:spgen"),
        ("1\n5 1\n.###.\n1 1 1 1 1\n", "IMPOSSIBLE\n", "ht:spgen"),
        ("1\n2 1\n..\n3 -1\n", "2\n", "ht:spgen"),
    ]
    assert failures(suite) == [("generator", "crash", "gen_hack_input_negative_window")]
    assert "NameError" in suite.provenance.failures[0].detail


def test_ht_without_a_working_validator(sandbox, tmp_path):
    problem = zoo_problem(sandbox, "zm01")
    rejects_all = fenced("def validate_input(input_str):\n    return False\n")
    crashes = "Here:\n" + json.dumps({"validator": "def validate_input(s):\n    return int(s.split()[99]) > 0\n"})
    model = script(tmp_path / "m.jsonl", [
        (GENERATORS_PROMPT, fenced(ANSWER, "json")),
        (VALIDATOR_PROMPT, [rejects_all, crashes]),
    ])
    suite, _ = run_method(Ht, problem, model, sandbox, budget=4)
    assert suite.tests == []
    assert [r for _, r, _ in failures(suite)] == [
        "validator_rejects_samples", "validator_rejects_samples", "no_usable_validator"]
    assert "IndexError" in suite.provenance.failures[1].detail
    # Opting out of the validator: every input goes to the correct code.
    suite, _ = run_method(Ht, problem, model, sandbox, budget=4, require_validator=False)
    assert [r for _, r, _ in failures(suite)] == [
        "validator_rejects_samples", "validator_rejects_samples", "validator_unusable"]
    assert [(i, t.origin) for (i, _), t in zip(io(suite), suite.tests)] == [
        ("1\n1 1\n", "ht:llmgen"), ("3\n2 5\n2 5\n2 5\n", "ht:hackgen"),
        ("5\n5 9\n3 15\n3 18\n3 12\n3 13\n", "ht:rpgen"), ("2\n1 9\n1 4\n", "ht:llmgen")]


def test_ht_answer_with_other_keys_and_fenced_code_in_a_string(sandbox, tmp_path):
    problem = zoo_problem(sandbox, "zm01")
    answer = json.dumps({
        "LLMGen_input": ["1\n1 1\n"],
        "is_multi_category_output_problem": False,
        "RPGen_SPGen_input_generator": fenced(RPGEN),
        "HackGen_input_generator": None,
    })
    model = script(tmp_path / "m.jsonl", [(GENERATORS_PROMPT, answer), (VALIDATOR_PROMPT, fenced(VALIDATOR))])
    suite, _ = run_method(Ht, problem, model, sandbox, budget=3)
    assert [(i, t.origin) for (i, _), t in zip(io(suite), suite.tests)] == [
        ("1\n1 1\n", "ht:llmgen"), ("5\n5 9\n3 15\n3 18\n3 12\n3 13\n", "ht:rpgen"), ("2\n2 7\n2 7\n", "ht:rpgen")]
    assert failures(suite) == []


def test_ht_runs_only_its_one_correct_code_and_keeps_what_it_cannot_answer(sandbox, tmp_path):
    """HT never sees the scorer's validators: the runner hands it one correct code (zm01:
    slow.py, outside the validators fast.cpp/slow.cpp). An input that code crashes on
    stays without an output, for the scorer's validators to judge (it counts in PassRate)."""
    problem = zoo_problem(sandbox, "zm01")
    answer = json.dumps({"llmgen_inputs": ["oops", "1\n1 1\n"], "multi_category": False,
                         "programmed_generators": None, "hack_generators": None})
    model = script(tmp_path / "m.jsonl", [
        (GENERATORS_PROMPT, answer), (VALIDATOR_PROMPT, fenced("def validate_input(input_str):\n    return False\n"))])
    suite, task = run_method(Ht, problem, model, sandbox, budget=2, require_validator=False)
    assert [p.name for p in task.correct_programs] == ["accepted/slow.py"]
    assert io(suite) == [("oops\n", None), ("1\n1 1\n", "1\n")]
    assert failures(suite)[-1] == ("oracle", "correct_code_re", "ht:llmgen")
    score = hackrate(problem, task, suite, sandbox)
    # The C++ validators read no number from "oops" and agree on printing 0: by the paper's
    # definition (accepted by every correct code) that test is valid.
    assert (score["pass_rate"], score["n_valid"]) == (100.0, 2.0)


def test_ht_reads_a_validators_answer_as_hardtestgen_and_saga_do(sandbox, tmp_path):
    """One rule for every model-written validator (tczoo.execution.filter_inputs): a truthy
    answer accepts, a tuple by its first element; the rejection says what it returned."""
    problem = zoo_problem(sandbox, "zm01")
    tupled = fenced(VALIDATOR.replace("def validate_input(", "def _strict(") +
                    "\n\ndef validate_input(input_str):\n"
                    "    return (True, 'ok') if _strict(input_str) else (False, 'breaks a constraint')\n")
    plain = script(tmp_path / "p.jsonl", [(GENERATORS_PROMPT, fenced(ANSWER, "json")),
                                          (VALIDATOR_PROMPT, fenced(VALIDATOR))])
    model = script(tmp_path / "m.jsonl", [(GENERATORS_PROMPT, fenced(ANSWER, "json")), (VALIDATOR_PROMPT, tupled)])
    suite, _ = run_method(Ht, problem, model, sandbox, budget=10)
    # the same suite as the plain validator's: a (False, why) is a no although a tuple is truthy
    assert io(suite) == io(run_method(Ht, problem, plain, sandbox, budget=10)[0]) and len(suite.tests) == 10
    rejected = [f for f in suite.provenance.failures if f.reason == "invalid_input"]
    assert [f.item for f in rejected] == ["ht:llmgen", "ht:hackgen"]
    assert rejected[0].detail.startswith("AssertionError: returned (False, 'breaks a constraint'); input ")

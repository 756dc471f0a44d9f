"""evalplus-mut: seed answers read into argument lists, the evalplus library's mutator on
plain data with our seeded random, coverage reduction, and the method scored by the
agreement runner (with its "beyond the jury's tests" table) through the real CLI."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("evalplus.gen.type_mut", reason="evalplus is installed by scripts/install.sh (--no-deps)")

from tczoo.methods.evalplus import _one_mutant, _seeded, mutator, read_inputs  # noqa: E402

FIXTURE = Path(__file__).parents[1] / "fixtures" / "humaneval" / "mini.jsonl"


def test_seed_answers_become_argument_lists():
    answer = ("Here are inputs:\n```python\n[1.0, 2.0]\n[]  # empty\nspan([3.0, 1.0])\n[2 * 3]\nnot an input\n"
              "\n[float('inf')]\n```\nand more prose")
    read, bad = read_inputs(answer, "span", 10_000)
    assert read == [("[[1.0, 2.0]]", [[1.0, 2.0]]), ("[[]]", [[]]), ("[[3.0, 1.0]]", [[3.0, 1.0]]),
                    ("[[6]]", [[6]])]
    assert bad == 2  # prose, and a call JSON and literals cannot carry
    two, _ = read_inputs("```\n'ab', 3\n(1, 2), {5: 'x'}\n```", "f", 10_000)
    assert two == [('["ab", 3]', ["ab", 3]), ("[(1, 2), {5: 'x'}]", [(1, 2), {5: "x"}])]
    assert read_inputs("```\n" + repr("x" * 50) + "\n```", "f", 20) == ([], 1)  # over max_input_chars


def test_the_librarys_mutator_runs_on_plain_data_with_our_seeded_random():
    gen_a = mutator()([[[1, 2, 3], "ab"], [[0], ""]], "f", "raise SystemExit('never executed')")
    gen_b = mutator()([[[1, 2, 3], "ab"], [[0], ""]], "f", "raise SystemExit('never executed')")

    def grow(gen, seed):
        rng = random.Random(seed)
        with _seeded(rng):
            return [_one_mutant(gen, rng) for _ in range(30)]

    import evalplus.gen.type_mut as type_mut

    before = type_mut.random
    a, b = grow(gen_a, 7), grow(gen_b, 7)
    assert type_mut.random is before  # the module's random is given back
    assert a == b and len({repr(x) for x in a}) > 10  # deterministic, and it does mutate
    assert all(isinstance(x, list) for x in a)


def _candidates(tmp_path: Path) -> Path:
    """Labelled candidates for Mini/0 (span): the golden tests accept `tricky` (it is
    wrong only on unsorted lists of four or more values) and reject `maximum`."""
    correct = "def span(values):\n    return max(values) - min(values) if values else 0.0\n"
    tricky = ("def span(values):\n    if not values:\n        return 0.0\n    if len(values) > 3:\n"
              "        return values[-1] - values[0]\n    return max(values) - min(values)\n")
    maximum = "def span(values):\n    return max(values) if values else 0.0\n"
    path = tmp_path / "cands.jsonl"
    with path.open("w") as fh:
        for name, code, label in (("correct", correct, "accepted"), ("tricky", tricky, "accepted"),
                                  ("maximum", maximum, "wrong")):
            fh.write(json.dumps({"problem_id": "Mini/0", "name": name, "generator": "hand", "language": "python",
                                 "code": code, "label": label}) + "\n")
    return path


def test_evalplus_through_the_cli_catches_what_the_original_tests_let_through(tmp_path):
    rules = tmp_path / "rules.jsonl"
    seeds = ["```\n[3.0, 1.0, 2.0, 0.5]\n[]\nthis is not an input\n```", "```\n[7.0, 7.0]\n[-1.5]\n```"]
    rules.write_text(json.dumps({"match": "function under test", "responses": seeds}) + "\n")
    params = {"evalplus-mut": {"llm_rounds": 2, "mutants": 12, "batch": 6},
              "runner:agreement": {"candidates": str(_candidates(tmp_path))}}
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "run", "--method", "evalplus-mut", "--benchmark",
                           f"humaneval:{FIXTURE}", "--problems", "Mini/0", "--model", f"scripted:{rules}",
                           "--params", json.dumps(params), "--out", str(out), "-f", "json"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    [gen] = [json.loads(x) for x in (out / "generations.jsonl").read_text().splitlines()]
    tests = gen["suite"]["tests"]
    llm = [(t["input"], t["output"]) for t in tests if t["origin"] == "llm"]
    # the ground truth's answers (differential testing); the prose line is counted, not a test
    assert llm == [("[[3.0, 1.0, 2.0, 0.5]]", "2.5"), ("[[]]", "0.0"), ("[[7.0, 7.0]]", "0.0"), ("[[-1.5]]", "0.0")]
    assert sum(t["origin"] == "mutation" for t in tests) == 12
    failures = {(f["stage"], f["reason"]) for f in gen["suite"]["provenance"]["failures"]}
    assert ("parse", "unreadable_input_line") in failures
    # the prompt showed the ground truth and the docstring's examples as argument lists
    first = json.loads((out / "exchanges.jsonl").read_text().splitlines()[0])["messages"][-1]["content"]
    assert "return max(values) - min(values)" in first and "[1.0, 4.0, 2.5]" in first
    tables = {t["title"]: t for t in json.loads(proc.stdout)}
    beyond = next(t for title, t in tables.items() if title.startswith("Beyond the jury's tests"))
    row, jury = beyond["rows"]
    assert jury["method"] == "jury tests" and jury["tests/suite"] == 5.0  # Mini/0's five golden tests
    assert (row["accepted by jury tests"], row["rejected by the suite"], row["labelled accepted"]) == (2, 1, 1)
    assert row["rejected %"] == 50.0
    [score] = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
    status = {s["name"]: s["status"] for s in score["detail"]["submissions"]}
    assert status == {"correct": "accept", "tricky": "reject", "maximum": "reject"}


def test_coverage_reduction_keeps_a_test_per_new_line(tmp_path, sandbox):
    import asyncio

    from tczoo.execution import Limits
    from tczoo.llm import LLMClient, LLMSettings, Session
    from tczoo.method import Context
    from tczoo.methods.evalplus import reduce_by_coverage
    from tczoo.schema import Language, Program, Provenance, TestCase, TestSuite
    from tczoo.templates import Prompts

    truth = Program(code="def sign(x):\n    if x > 0:\n        return 1\n    if x < 0:\n        return -1\n"
                         "    return 0\n", language=Language.PYTHON)
    tests = [TestCase(input=f"[{x}]", output=repr((x > 0) - (x < 0))) for x in (5, 7, -2, 0, 9, -8)]
    rules = tmp_path / "r.jsonl"
    rules.write_text('{"match": "", "response": "-"}\n')
    ctx = Context(llm=Session(LLMClient(f"scripted:{rules}", LLMSettings(cache=False))), sandbox=sandbox,
                  prompts=Prompts(), method="evalplus-mut")
    suite = TestSuite(problem_id="p", provenance=Provenance(method="evalplus-mut"))
    kept = asyncio.run(reduce_by_coverage(ctx, suite, truth, tests, Limits(time_ms=2000), "sign"))
    assert [t.input for t in kept] == ["[5]", "[-2]", "[0]"]  # one per branch, the first of each
    assert all(t.meta["reduced"] == "coverage" for t in kept)


def test_the_beyond_table_from_records_alone():
    from tczoo.runners.agreement_tables import summarize
    from tczoo.schema import ScoreRecord

    def rec(pid, statuses, reference, tests):
        subs = [{"name": n, "label": label, "status": st} for n, (label, st) in statuses.items()]
        return ScoreRecord(runner="agreement", method="evalplus-mut", model="m", problem_id=pid,
                           metrics={"n_tests": float(tests), "n_valid": float(tests)},
                           detail={"submissions": subs, "coverage": [1],
                                   "reference": {"tests": 4, "submissions": {n: [v, None] for n, v in reference.items()}}})

    records = [rec("p1", {"a": ("accepted", "accept"), "b": ("accepted", "reject"), "w": ("wrong", "reject")},
                   {"a": "accept", "b": "accept", "w": "reject"}, 10),
               rec("p2", {"c": ("accepted", "accept"), "x": ("wrong", "reject")},
                   {"c": "accept", "x": "accept"}, 20)]
    beyond = next(t for t in summarize(records) if t.title.startswith("Beyond the jury's tests"))
    ours, jury = beyond.rows
    # accepted by the jury's tests: a, b, c, x; rejected by the suite: b (labelled accepted), x (labelled wrong)
    assert (ours["accepted by jury tests"], ours["rejected by the suite"], ours["labelled accepted"],
            ours["labelled wrong"], ours["rejected %"], ours["tests/suite"]) == (4, 2, 1, 1, 50.0, 15.0)
    assert (jury["method"], jury["tests/suite"]) == ("jury tests", 4.0)


# --------------------------------------------------------------------------- admission (issue 45)

COUNT_UP = {
    "task_id": "Contract/0", "entry_point": "count_up",
    "prompt": "from typing import List\n\n\ndef count_up(n: int, items: List[int]) -> int:\n"
              "    \"\"\" n plus the number of items; n is never negative.\n    >>> count_up(1, [5])\n    2\n"
              "    \"\"\"\n",
    "canonical_solution": "    return n + len(items) if n else len(items)\n",
    "test": "\n\ndef check(candidate):\n    assert candidate(1, [5]) == 2\n    assert candidate(0, []) == 0\n",
}
CONTRACT = "    assert isinstance(n, int) and n >= 0, \"invalid inputs\"  # $_CONTRACT_$\n"


def _admission_run(tmp_path: Path, record: dict, seeds: str, **params) -> dict:
    tmp_path.mkdir(parents=True, exist_ok=True)
    data = tmp_path / "he.jsonl"
    data.write_text(json.dumps(record) + "\n")
    rules = tmp_path / "rules.jsonl"
    rules.write_text(json.dumps({"match": "function under test", "response": seeds}) + "\n")
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "run", "--method", "evalplus-mut", "--benchmark",
                           f"humaneval:{data}", "--model", f"scripted:{rules}", "--runner", "agreement",
                           "--params", json.dumps({"evalplus-mut": {"llm_rounds": 1, "mutants": 0, **params}}),
                           "--out", str(out), "-f", "json"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    [gen] = [json.loads(x) for x in (out / "generations.jsonl").read_text().splitlines()]
    return gen


def test_inputs_that_break_the_signature_or_the_contract_are_never_tests(tmp_path):
    """EvalPlus admits an input only when it is one of the function's (types kept by its
    mutation, asserted by HumanEval+'s contracts) and the ground truth runs on it: a
    string for an int, a float for an int and a list holding a string all run here
    without an error, and are still turned away; -2 breaks the contract only."""
    seeds = "```\n3, [1, 2]\n-2, [1]\n'x', [1]\n2.5, [1]\n1, [1, 'a']\n0, []\n```"
    gen = _admission_run(tmp_path, {**COUNT_UP, "contract": CONTRACT}, seeds)
    assert [t["input"] for t in gen["suite"]["tests"]] == ["[3, [1, 2]]", "[0, []]"]
    failures = {f["reason"]: f for f in gen["suite"]["provenance"]["failures"]}
    assert failures["type_mismatch"]["detail"].startswith("inputs that break the function's signature")
    assert failures["type_mismatch"]["item"].startswith("3 llm input(s); e.g. argument ")
    assert failures["contract_violation"]["detail"].startswith("inputs that violate the problem's input contract")
    assert failures["contract_violation"]["item"].startswith("1 llm input(s); e.g. ")
    # without a contract (HumanEval's own file) the out-of-domain -2 gets in; the types still keep the rest out
    loose = _admission_run(tmp_path / "loose", dict(COUNT_UP), seeds)
    assert [t["input"] for t in loose["suite"]["tests"]] == ["[3, [1, 2]]", "[-2, [1]]", "[0, []]"]
    assert "contract_violation" not in {f["reason"] for f in loose["suite"]["provenance"]["failures"]}


def test_seed_instructions_are_drawn_as_the_library_draws_them_or_in_turn(tmp_path):
    def kinds(sub: str, how: str) -> list[str]:
        _admission_run(tmp_path / sub, dict(COUNT_UP), "```\n1, [1]\n```", llm_rounds=9, instructions=how)
        import re

        words = {"complex": r"Write new,\s+complex", "corner": r"Write new corner-case", "difficult": r"Write new,\s+difficult"}
        out = []
        for line in (tmp_path / sub / "run" / "exchanges.jsonl").read_text().splitlines():
            text = json.loads(line)["messages"][-1]["content"]
            out += [k for k, w in words.items() if re.search(w, text)]
        return out

    turn = kinds("turn", "in_turn")
    assert turn == ["complex", "corner", "difficult"] * 3
    drawn = kinds("drawn", "random")
    assert len(drawn) == 9 and drawn != turn  # seeded random.choice per request (the library's)
    assert kinds("again", "random") == drawn

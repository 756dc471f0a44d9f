"""The bug-finding runner: classification rules, GI/ITR/TBR on hand-checked triplets,
first-k, re-seeded scaling, diversity, the RL reward, functional and TC-Bench data, and
the SFT export."""

from __future__ import annotations

import asyncio
import json
import math
import random

import pytest

from harness_fixtures import (
    BUGGY,
    EMPTY,
    SAMPLE,
    SEPARATING,
    fenced,
    harness,
    io_answer,
    score_answers,
    script,
    zm01,
)
from tczoo.execution import Check, Execution, Verdict
from tczoo.methods.harnessllm.harness import Harness
from tczoo.methods.harnessllm.reward import response_reward, reward
from tczoo.execution import Evidence, Outcome, call_seed, classify
from tczoo.runners.bugfind import BugfindRunner, input_diversity
from tczoo.llm import LLMSettings
from tczoo.schema import RunConfig

# --------------------------------------------------------------------------- pure rules


def ev(g: list[str], f: list[str], differs: list[bool], g_checks: list[str | None], f_checks: list[str | None]):
    def check(kind):
        return None if kind is None else Check(kind == "pass", kind)

    return Evidence([Execution(verdict=Verdict(v)) for v in g], [Execution(verdict=Verdict(v)) for v in f], differs,
                    [check(c) for c in g_checks], [check(c) for c in f_checks])


@pytest.mark.parametrize("evidence, outcome, reason", [
    (ev(["AC"], ["AC"], [False], ["pass"], [None]), Outcome.NO_SEPARATION, ""),
    (ev(["AC"], ["AC"], [True], ["pass"], ["assertion"]), Outcome.TRUE_BUG, "target_check_assertion"),
    (ev(["AC"], ["AC"], [True], ["pass"], ["crash"]), Outcome.TRUE_BUG, "target_check_crash"),
    (ev(["AC"], ["TLE"], [True], ["pass"], [None]), Outcome.TRUE_BUG, "target_TLE"),
    (ev(["AC"], ["AC"], [True], ["pass"], ["pass"]), Outcome.GOOD_INPUT, ""),
    (ev(["AC", "AC"], ["AC", "AC"], [True, False], ["pass", "assertion"], ["assertion", None]),
     Outcome.GOOD_INPUT_INVALID, "ground_truth_check_assertion"),
    (ev(["AC"], ["AC"], [False], ["timeout"], [None]), Outcome.INVALID, "ground_truth_check_timeout"),
    # a ground-truth runtime error makes the response invalid even when another input separates
    (ev(["AC", "RE"], ["WA", "AC"], [True, False], ["pass", None], ["assertion", None]),
     Outcome.INVALID, "ground_truth_RE"),
    # inputs on which g runs out of time are left out
    (ev(["TLE", "AC"], ["AC", "AC"], [False, False], [None, "pass"], [None, None]), Outcome.NO_SEPARATION, ""),
])
def test_classification_rules(evidence, outcome, reason):
    got, why, _ = classify(evidence, list(range(len(evidence.g_runs))))
    assert (got, why) == (outcome, reason)


def test_outcome_flags_and_reward_follow_the_paper():
    assert [o.value for o in Outcome if o.gi] == ["good_input_invalid", "good_input", "true_bug"]
    assert [o.value for o in Outcome if o.itr] == ["invalid", "good_input_invalid"]
    assert [o.value for o in Outcome if o.tbr] == ["true_bug"]
    assert [reward(o) for o in Outcome] == [0.0, 0.0, 0.1, 0.0, 0.1, 1.0]
    assert reward("format_error", format_penalty=-1.0) == -1.0


def test_input_diversity_by_hand():
    d = input_diversity(["a", "a", "abc"])
    assert d["unique_ratio"] == pytest.approx(200 / 3)
    assert d["length_range"] == pytest.approx(math.log(4) - math.log(2))
    logs = [math.log(2), math.log(2), math.log(4)]
    mean = sum(logs) / 3
    assert d["length_std"] == pytest.approx(math.sqrt(sum((x - mean) ** 2 for x in logs) / 3))
    assert input_diversity([]) == {"unique_ratio": 0.0, "length_range": 0.0, "length_std": 0.0}


# --------------------------------------------------------------------------- real triplets


def test_first_k_decides_what_counts(tmp_path, sandbox):
    answer = harness(SAMPLE, extra="\ndef generate_input_2():\n    return [" + repr(SEPARATING) + "]\n")
    [(suite, rec)] = score_answers(Harness, zm01(), [answer], tmp_path, sandbox, first_k=1, ks=[2, 5])
    assert [t.input for t in suite.tests] == [SAMPLE, SEPARATING]
    assert rec.detail["outcome"] == "no_separation" and rec.metrics["n_inputs"] == 1
    assert rec.metrics["tbr@k2"] == 100.0 and rec.metrics["tbr@k5"] == 100.0 and rec.metrics["n_inputs@k5"] == 2
    assert rec.detail["outcomes"]["k2"]["at"] is not None


def test_reseeded_rounds_scale_the_number_of_tests(tmp_path, sandbox):
    # only the call seeded for round 1 (call index 1 of generate_input_2) draws the separating input
    lucky = random.Random(call_seed(0, "generate_input_2", 1)).randint(0, 2**40)
    gen = ("\ndef generate_input_2():\n    if random.randint(0, 2**40) == " + str(lucky) + ":\n"
           "        return [" + repr(SEPARATING) + "]\n"
           "    return ['1\\n%d 5\\n' % random.randint(1, 10**6)]\n")
    answer = harness(extra=gen)  # generate_input_1 returns [] (recorded, gives nothing)
    [(suite, rec)] = score_answers(Harness, zm01(), [answer], tmp_path, sandbox, first_k=1, repeats=[1, 3])
    assert len(suite.tests) == 1 and suite.tests[0].input != SEPARATING
    assert rec.metrics["n_inputs@r1"] == 1 and rec.metrics["n_inputs@r3"] == 3
    assert rec.metrics["tbr@r1"] == 0.0 and rec.metrics["tbr@r3"] == 100.0
    table = next(t for t in BugfindRunner(None).summarize([rec]) if t.title.startswith("scaling"))
    assert table.rows[0]["r=3 TBR"] == 100.0 and table.rows[0]["r=3 tests"] == 3


def test_ground_truth_runtime_error_is_an_invalid_test(tmp_path, sandbox):
    [(_, rec)] = score_answers(Harness, zm01(), [harness(EMPTY, SEPARATING)], tmp_path, sandbox,
                               ground_truth="accepted/fast.py")
    assert (rec.detail["outcome"], rec.detail["reason"]) == ("invalid", "ground_truth_RE")
    assert rec.detail["ground_truth"] == "accepted/fast.py"


def test_python_target(tmp_path, sandbox):
    # string_sort.py orders deadline 10 before 2: 13 instead of 14
    case = "4\n10 1\n2 5\n2 6\n2 7\n"
    [(_, rec)] = score_answers(Harness, zm01(), [harness(SAMPLE, case)], tmp_path, sandbox, wrong="string_sort")
    assert rec.detail["target_language"] == "python" and rec.detail["outcome"] == "true_bug"


def test_reward_of_single_answers(sandbox):
    problem = zm01()
    j = next(i for i, w in enumerate(problem.wrong_solutions) if BUGGY in w.name)
    assert response_reward(harness(SEPARATING), problem, sandbox=sandbox, wrong=j) == (1.0, Outcome.TRUE_BUG)
    assert response_reward(harness(SEPARATING, checker="weak"), problem, sandbox=sandbox, wrong=j)[0] == 0.1
    assert response_reward(io_answer((SAMPLE, "70")), problem, sandbox=sandbox, wrong=j, method="io")[0] == 0.0
    assert response_reward("no code", problem, sandbox=sandbox, wrong=j, format_penalty=-1.0)[0] == -1.0


def test_summary_tables(tmp_path, sandbox):
    answers = [harness(SEPARATING), harness(SAMPLE), harness(SEPARATING, checker="weak")]
    records = [r for _, r in score_answers(Harness, zm01(), answers, tmp_path, sandbox)]
    tables = {t.title.split(" (")[0]: t for t in BugfindRunner(None).summarize(records)}
    row = tables["HarnessLLM bug finding"].rows[0]
    assert (row["zoo-mini GI"], row["zoo-mini ITR"], row["zoo-mini TBR"]) == pytest.approx((200 / 3, 0.0, 100 / 3))
    outcomes = tables["Outcomes per response"].rows[0]
    assert outcomes["true_bug"] == outcomes["no_separation"] == outcomes["good_input"] == pytest.approx(100 / 3)
    div = tables["Input diversity"].rows[0]
    # inputs SEPARATING, SAMPLE, SEPARATING: 2 of 3 distinct
    assert div["Unique ratio"] == pytest.approx(200 / 3) and div["problems"] == 1


# --------------------------------------------------------------------------- other data


def _run(tmp_path, sandbox, model, benchmark, methods, **runner_params):
    from tczoo.run import run

    config = RunConfig(methods=methods, model=model, benchmark=benchmark, samples=1,
                       params={"runner:bugfind": {"responses": 1, **runner_params}})
    return asyncio.run(run(config, tmp_path / "run", settings=LLMSettings(cache=False, retries=0), sandbox=sandbox))


FN_HARNESS = '''
def generate_input_1():
    return [{"nums": [1, 1, 2]}, {"nums": [3]}]

def check_output(generated_input, captured_output):
    distinct = sorted(set(generated_input["nums"]))
    assert captured_output == (distinct[1] if len(distinct) > 1 else None)
'''


def test_functional_triplets_from_the_harnessllm_schema(tmp_path, sandbox):
    """MBPP-style call-based problems: arguments as JSON objects, values compared."""
    model = script(tmp_path / "fn.jsonl", [
        ("\\*\\*test harness\\*\\*.*second_smallest", fenced(FN_HARNESS)),
        ("\\*\\*test cases\\*\\*.*countEven", json.dumps([{"input_args": {"nums": [1, 2, 4]}, "expected_output": 2}])),
        ("\\*\\*test harness\\*\\*.*countEven", fenced("def generate_input_1():\n    return [{'nums': [2]}]\n"
                                           "def check_output(generated_input, captured_output):\n"
                                           "    assert captured_output == 1")),
        ("\\*\\*test cases\\*\\*.*second_smallest", json.dumps([{"input_args": {"nums": [5, 5, 7]}, "expected_output": None}])),
    ])
    store = _run(tmp_path, sandbox, model, "harnessllm:tests/fixtures/loaders/harnessllm_mbpp_hard.jsonl",
                 ["harness", "io"], first_k=5)
    got = {(s.method, s.problem_id): (s.detail["outcome"], s.detail["reason"]) for s in store.scores()}
    assert got == {
        ("harness", "mbpp-hard-3"): ("true_bug", "target_check_assertion"),  # bad gives 1 on [1, 1, 2], not 2
        ("harness", "lcb-fn-8"): ("true_bug", "target_check_assertion"),  # Solution().countEven([2]): 0, not 1
        ("io", "lcb-fn-8"): ("true_bug", "target_check_mismatch"),  # bad counts odd values: 1, not 2
        ("io", "mbpp-hard-3"): ("good_input_invalid", "ground_truth_check_mismatch"),  # 7 is right, not None
    }


def test_tcbench_schema_data_with_cpp_targets(tmp_path, sandbox):
    model = script(tmp_path / "tcb.jsonl", [
        ("TCB-0001|a \\+ b", harness("1000000000000 1\n").replace(
            "int(captured_output.strip()) == _best(generated_input)",
            "int(captured_output) == sum(map(int, generated_input.split()))")),
        (".", "no idea"),
    ])
    store = _run(tmp_path, sandbox, model, "tcbench:tests/fixtures/loaders/tcbench.jsonl", ["harness"],
                 max_triplets=1)
    got = {s.problem_id: s.detail for s in store.scores()}
    assert got["TCB-0001"]["outcome"] == "true_bug" and got["TCB-0001"]["target_language"] == "cpp"
    assert all(d["outcome"] == "format_error" for pid, d in got.items() if pid != "TCB-0001")


def test_sft_export_keeps_responses_that_exposed_the_bug(tmp_path, sandbox):
    import typer
    from typer.testing import CliRunner

    from tczoo.methods.harnessllm.cli import register

    model = script(tmp_path / "sft.jsonl", [("test harness", [harness(SEPARATING), harness(SAMPLE), "nothing"])])
    from tczoo.run import run

    config = RunConfig(methods=["harness"], model=model, benchmark="zoo-mini", problems=["zm01"], samples=3,
                       params={"runner:bugfind": {"wrong": [BUGGY]}})
    asyncio.run(run(config, tmp_path / "run", settings=LLMSettings(cache=False, retries=0), sandbox=sandbox))
    app = typer.Typer()

    @app.callback()
    def _root() -> None:
        pass

    register(app)
    out = tmp_path / "sft.out.jsonl"
    res = CliRunner().invoke(app, ["harness", "sft", str(tmp_path / "run"), "--out", str(out)])
    assert res.exit_code == 0, res.output
    [rec] = [json.loads(line) for line in out.read_text().splitlines()]
    assert rec["outcome"] == "true_bug" and rec["task"].endswith("/s0")
    assert rec["messages"][-1] == {"role": "assistant", "content": harness(SEPARATING)}
    assert any("test harness" in m["content"] for m in rec["messages"][:-1])

"""The bug-finding runner: classification rules, GI/ITR/TBR on hand-checked triplets,
first-k, both scaling protocols (re-seeded generators pooled generator by generator;
Table 10's groups of one-test io responses), the limits of data without limits, the RL
reward, functional and TC-Bench data, and the SFT export."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from harness_fixtures import (
    BUGGY,
    EMPTY,
    REFERENCE,
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
from tczoo.runners.bugfind import BugfindRunner, combine_outcomes
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
    # Eq. 1: g must pass every test. An input on which g runs out of time is an invalid test
    # (was: left out, as the authors' evaluation does; that is ground_truth_timeout="drop")
    (ev(["TLE", "AC"], ["AC", "AC"], [False, False], [None, "pass"], [None, None]), Outcome.INVALID,
     "ground_truth_TLE"),
    # ... and f crashing on another input no longer earns a true bug (was 1.0; Eq. 1 gives 0)
    (ev(["TLE", "AC"], ["AC", "RE"], [False, True], [None, "pass"], [None, None]), Outcome.INVALID,
     "ground_truth_TLE"),
    # a checker that breaks on g's output (crash, time) is a broken test, not the assertion
    # failure Eq. 1's 0.1 allows (its footnote): invalid even where an input separates (was
    # good_input_invalid)
    (ev(["AC", "AC"], ["AC", "AC"], [True, False], ["pass", "crash"], ["assertion", None]),
     Outcome.INVALID, "ground_truth_check_crash"),
    (ev(["AC", "AC"], ["AC", "AC"], [True, False], ["pass", "timeout"], ["assertion", None]),
     Outcome.INVALID, "ground_truth_check_timeout"),
    (ev(["AC", "AC"], ["AC", "AC"], [True, False], ["pass", "mismatch"], ["pass", None]),
     Outcome.GOOD_INPUT_INVALID, "ground_truth_check_mismatch"),  # a wrong expected output: a verdict
])
def test_classification_rules(evidence, outcome, reason):
    got, why, _ = classify(evidence, list(range(len(evidence.g_runs))))
    assert (got, why) == (outcome, reason)


def test_the_authors_evaluation_leaves_ground_truth_timeouts_out_as_an_option():
    evidence = ev(["TLE", "AC"], ["AC", "RE"], [False, True], [None, "pass"], [None, None])
    assert classify(evidence, [0, 1], ground_truth_timeout="drop")[:2] == (Outcome.TRUE_BUG, "target_RE")
    only = ev(["TLE"], ["AC"], [False], [None], [None])
    assert classify(only, [0], ground_truth_timeout="drop")[:2] == (Outcome.NO_SEPARATION,
                                                                     "ground_truth_timeout_everywhere")
    with pytest.raises(ValueError, match="ground_truth_timeout"):
        classify(only, [0], ground_truth_timeout="skip")


def test_an_input_the_problems_check_rejects_makes_the_response_invalid_whatever_separates():
    # Eq. 1's 0.1 needs every input valid: a rejected input is the stricter twin of g crashing
    separating = ev(["AC"], ["AC"], [True], ["pass"], ["assertion"])
    assert classify(separating, [0])[0] is Outcome.TRUE_BUG
    assert classify(separating, [0], rejected=[(1, "n out of range")]) == (Outcome.INVALID, "invalid_input", None)
    assert classify(separating, [], rejected=[(0, "empty input")]) == (Outcome.INVALID, "invalid_input", None)
    assert classify(separating, [])[:2] == (Outcome.FORMAT_ERROR, "no_inputs")


def test_outcome_flags_and_reward_follow_the_paper():
    assert [o.value for o in Outcome if o.gi] == ["good_input_invalid", "good_input", "true_bug"]
    assert [o.value for o in Outcome if o.itr] == ["invalid", "good_input_invalid"]
    assert [o.value for o in Outcome if o.tbr] == ["true_bug"]
    assert [reward(o) for o in Outcome] == [0.0, 0.0, 0.1, 0.0, 0.1, 1.0]
    assert reward("format_error", format_penalty=-1.0) == -1.0


F, I, GII, NS, GI, TB = (Outcome.FORMAT_ERROR, Outcome.INVALID, Outcome.GOOD_INPUT_INVALID,
                          Outcome.NO_SEPARATION, Outcome.GOOD_INPUT, Outcome.TRUE_BUG)


@pytest.mark.parametrize("group, combined", [
    ([F, F, F], F),
    ([F, NS, F], NS),  # a format error next to a usable response counts for nothing
    ([NS, I], I),
    ([F, TB], TB),
    ([NS, TB, GI], TB),
    ([GI, NS], GI),
    ([TB, I], GII),  # the authors' rule: a good input next to an invalid response is good_input_invalid
    ([TB, GII], GII),
    ([GI, GII, F], GII),
])
def test_groups_of_responses_combine_as_the_authors_evaluation(group, combined):
    assert combine_outcomes(group) is combined


# --------------------------------------------------------------------------- real triplets


def test_first_k_decides_what_counts(tmp_path, sandbox):
    answer = harness(SAMPLE, extra="\ndef generate_input_2():\n    return [" + repr(SEPARATING) + "]\n")
    [(suite, rec)] = score_answers(Harness, zm01(), [answer], tmp_path, sandbox, first_k=1, ks=[2, 5])
    assert [t.input for t in suite.tests] == [SAMPLE, SEPARATING]
    assert rec.detail["outcome"] == "no_separation" and rec.metrics["n_inputs"] == 1
    assert rec.metrics["tbr@k2"] == 100.0 and rec.metrics["tbr@k5"] == 100.0 and rec.metrics["n_inputs@k5"] == 2
    assert rec.detail["outcomes"]["k2"]["at"] is not None
    # the run browser's matrix: g passes both tests; f matches g on the sample only
    from tczoo.runners.bugfind import BugfindRunner

    [matrix] = BugfindRunner(None).matrices(rec, suite)
    (g_label, g_cells), (f_label, f_cells) = matrix.rows
    assert g_label.startswith("g: ") and [c[0] for c in g_cells] == ["AC", "AC"]
    assert f_cells[0] == ["AC", "same output as g"] and f_cells[1][0] != "AC"


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


def test_inputs_of_reseeded_rounds_pass_the_input_check_too(tmp_path, sandbox):
    # round 1 of generate_input_2 draws an input zm01's validator rejects: the scaled set
    # that holds it is invalid (never run), the response's own round is not
    lucky = random.Random(call_seed(0, "generate_input_2", 1)).randint(0, 2**40)
    gen = ("\ndef generate_input_2():\n    if random.randint(0, 2**40) == " + str(lucky) + ":\n"
           "        return ['three\\n']\n"
           "    return ['1\\n%d 5\\n' % random.randint(1, 10**6)]\n")
    [(suite, rec)] = score_answers(Harness, zm01(), [harness(extra=gen)], tmp_path, sandbox, first_k=1, repeats=[1, 3])
    assert len(suite.tests) == 1
    assert rec.detail["outcomes"]["r1"]["outcome"] == "no_separation"
    assert (rec.detail["outcomes"]["r3"]["outcome"], rec.detail["outcomes"]["r3"]["reason"]) == ("invalid",
                                                                                              "invalid_input")
    assert rec.metrics["itr@r3"] == 100.0 and rec.metrics["n_inputs@r3"] == 3


def _random_generators(count: int, lucky_call: int) -> str:
    """``count`` generators, each returning 4 distinct random single-offer inputs (f and
    g agree on them: one offer, its fee); call ``lucky_call`` of generate_input_1 (its
    round ``lucky_call``) returns SEPARATING first instead."""
    lucky = random.Random(call_seed(0, "generate_input_1", lucky_call)).randint(0, 2**40)
    code = REFERENCE
    for i in range(1, count + 1):
        code += (f"\ndef generate_input_{i}():\n    hit = random.randint(0, 2**40) == {lucky}\n"
                 "    out = ['1\\n%d %d\\n' % (random.randint(1, 10**6), random.randint(1, 10**9)) for _ in range(4)]\n")
        if i == 1:
            code += f"    if hit:\n        out[0] = {SEPARATING!r}\n"
        code += "    return out\n"
    return fenced(code + "\ndef check_output(generated_input, captured_output):\n"
                         "    assert int(captured_output.strip()) == _best(generated_input)\n")


def test_harness_scaling_pools_generator_by_generator_so_every_round_counts(tmp_path, sandbox):
    """5 generators x 4 inputs, k = 5 (the harness default). Hand-computed pools, in the
    authors' order (each generator's rounds 0..R-1, then the next generator), capped at R*k:
    R=1: g1 r0 (4) + g2 r0 (1)                      -> 5 tests, by round [5]
    R=3: g1 r0-r2 (12) + g2 r0 (3)                  -> 15 tests, by round [7, 4, 4]
    R=5: g1 r0-r4 (20) + g2 r0 (4) + g2 r1 (1)      -> 25 tests, by round [8, 5, 4, 4, 4]
    The separating input comes from g1's round 3 only: found at R=5, not before. (Pooled
    round by round instead, R=5 was round 0's 20 inputs + 5 of round 1: rounds 2-4 lost.)"""
    [(suite, rec)] = score_answers(Harness, zm01(), [_random_generators(5, lucky_call=3)], tmp_path, sandbox,
                                   repeats=[1, 3, 5])
    assert len(suite.tests) == 20 and rec.detail["repeat_by"] == "generators" and rec.detail["k"] == 5
    got = {R: (rec.metrics[f"n_inputs@r{R}"], rec.detail["outcomes"][f"r{R}"]["by_round"], rec.metrics[f"tbr@r{R}"])
           for R in (1, 3, 5)}
    assert got == {1: (5, [5], 0.0), 3: (15, [7, 4, 4], 0.0), 5: (25, [8, 5, 4, 4, 4], 100.0)}
    table = next(t for t in BugfindRunner(None).summarize([rec]) if t.title.startswith("scaling"))
    row = table.rows[0]
    assert (row["r=1 TBR"], row["r=5 TBR"], row["r=5 tests"]) == (0.0, 100.0, 25)
    assert "generator by generator" in table.notes[0]


def test_table10_controlled_harness_one_generator_one_input_per_round(tmp_path, sandbox):
    """Appendix C.3: a single input generator, one input per call, k = 1: R rounds are R
    tests, one from each round; the separating input is round 3's."""
    [(suite, rec)] = score_answers(Harness, zm01(), [_random_generators(1, lucky_call=3)], tmp_path, sandbox,
                                   method_params={"max_generators": 1, "per_generator": 1}, first_k=1,
                                   repeats=[1, 3, 5])
    assert len(suite.tests) == 1
    assert [rec.detail["outcomes"][f"r{R}"]["by_round"] for R in (1, 3, 5)] == [[1], [1, 1, 1], [1, 1, 1, 1, 1]]
    assert [rec.metrics[f"tbr@r{R}"] for R in (1, 3, 5)] == [0.0, 0.0, 100.0]


def test_table10_io_protocol_groups_one_test_responses(tmp_path, sandbox):
    """n = 2 responses per triplet, repeats [1, 3]: 6 responses of one test each, grouped
    (0..2) and (3..5) at R=3. Hand-computed outcomes per response:
    0 SAMPLE->70 no_separation, 1 SEPARATING->4 good_input_invalid (g prints 5),
    2 no JSON format_error, 3 SEPARATING->5 true_bug, 4 SAMPLE->70 no_separation, 5 format_error.
    R=1 (responses 0, 1): GI 50, ITR 50, TBR 0, 1 test each.
    R=3: (0,1,2) -> good_input_invalid, (3,4,5) -> true_bug: GI 100, ITR 50, TBR 50, 2 tests each."""
    from tczoo.report import run_tables
    from tczoo.distributed import LocalCluster
    from tczoo.run import RunOptions, run

    answers = [io_answer((SAMPLE, "70")), io_answer((SEPARATING, "4")), "no tests today",
               io_answer((SEPARATING, "5")), io_answer((SAMPLE, "70")), "nothing"]
    model = script(tmp_path / "io.jsonl", [("\\*\\*test cases\\*\\*", answers)])
    config = RunConfig(methods=["io"], model=model, benchmark="zoo-mini", problems=["zm01"], samples=1,
                       params={"runner:bugfind": {"wrong": [BUGGY], "responses": 2, "repeats": [1, 3]}})
    store = asyncio.run(run(config, tmp_path / "run", RunOptions(settings=LLMSettings(cache=False, retries=0)), cluster=LocalCluster(sandbox)))
    scores = sorted(store.scores(), key=lambda s: s.detail["response"])
    assert [s.detail["outcome"] for s in scores] == ["no_separation", "good_input_invalid", "format_error",
                                                    "true_bug", "no_separation", "format_error"]
    assert [s.detail["extra"] for s in scores] == [False, False, True, True, True, True]
    assert all("exactly one test case" in e["messages"][-1]["content"] for e in store.exchanges())
    _, tables = run_tables(store.root)
    main = next(t for t in tables if t.title.startswith("HarnessLLM bug finding")).rows[0]
    assert (main["zoo-mini GI"], main["zoo-mini ITR"], main["zoo-mini TBR"], main["responses"]) == (50, 50, 0, 2)
    row = next(t for t in tables if t.title.startswith("scaling")).rows[0]
    assert [row[f"r=1 {c}"] for c in ("GI", "ITR", "TBR", "tests")] == [50, 50, 0, 1]
    assert [row[f"r=3 {c}"] for c in ("GI", "ITR", "TBR", "tests")] == [100, 50, 50, 2]


@pytest.mark.e2e
def test_data_without_limits_run_under_the_authors_20_seconds(tmp_path, sandbox):
    """A HarnessLLM-schema triplet whose buggy program spends ~2.5 s of CPU before the right
    answer: under the data's missing limits (the authors' 20 s) it is not a bug; the same
    triplet with a stated 2 s limit is a true bug by TLE. The model is never told the
    stand-in limit, and the table says what the programs ran under."""
    from tczoo.report import run_tables

    slow = ("import time\nt = time.process_time()\nwhile time.process_time() - t < 2.5:\n    pass\n"
            "s = input().strip()\nprint(s[0])\n")
    rec = {"description": "Read a positive integer and print its first digit.",
           "good_code": "s = input().strip()\nprint(s[0])\n", "bad_code": slow}
    data = tmp_path / "slow.jsonl"
    data.write_text(json.dumps({**rec, "uid": "nolimits"}) + "\n"
                    + json.dumps({**rec, "uid": "stated", "time_limit_ms": 2000, "memory_limit_mb": 256}) + "\n")
    model = script(tmp_path / "m.jsonl", [("\\*\\*test cases\\*\\*", io_answer(("12\n", "1")))])
    store = _run(tmp_path, sandbox, model, f"harnessllm:{data}", ["io"])
    got = {s.problem_id: (s.detail["outcome"], s.detail["reason"], s.detail["limits"]) for s in store.scores()}
    assert got == {
        "nolimits": ("no_separation", "", {"time_ms": 20000, "memory_mb": 1024, "given": False}),
        "stated": ("true_bug", "target_TLE", {"time_ms": 2000, "memory_mb": 256, "given": True}),
    }
    prompts = [e["messages"][-1]["content"] for e in store.exchanges()]
    assert sum("Time limit:" in p for p in prompts) == 1 and "Time limit: 2000 ms" in "".join(prompts)
    _, tables = run_tables(store.root)
    notes = next(t for t in tables if t.title.startswith("HarnessLLM bug finding")).notes
    assert any("1 of 2 problems state none" in n and "20 s CPU / 1024 MB" in n for n in notes)


@pytest.mark.parametrize("params", [{"repeats": [0]}, {"repeats": [5, 10**6]}, {"ks": [-1]},
                                    {"repeat_by": "rounds"}])
def test_nonsense_scaling_options_are_refused(params):
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        BugfindRunner(None, **params)


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
    assert "Input diversity" not in tables  # the paper measures it on the best-of-N tests (bestofn runner)
    assert not any("limits" in n for n in tables["HarnessLLM bug finding"].notes)  # zoo-mini states its limits


# --------------------------------------------------------------------------- other data


def _run(tmp_path, sandbox, model, benchmark, methods, **runner_params):
    from tczoo.distributed import LocalCluster
    from tczoo.run import RunOptions, run

    config = RunConfig(methods=methods, model=model, benchmark=benchmark, samples=1,
                       params={"runner:bugfind": {"responses": 1, **runner_params}})
    return asyncio.run(run(config, tmp_path / "run", RunOptions(settings=LLMSettings(cache=False, retries=0)), cluster=LocalCluster(sandbox)))


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
        ("\\*\\*test cases\\*\\*.*countEven",
         "```json\n" + json.dumps([{"input_args": {"nums": [1, 2, 4]}, "expected_output": 2}]) + "\n```"),
        ("\\*\\*test harness\\*\\*.*countEven", fenced("def generate_input_1():\n    return [{'nums': [2]}]\n"
                                           "def check_output(generated_input, captured_output):\n"
                                           "    assert captured_output == 1")),
        ("\\*\\*test cases\\*\\*.*second_smallest",
         "```json\n" + json.dumps([{"input_args": {"nums": [5, 5, 7]}, "expected_output": None}]) + "\n```"),
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
    from tczoo.distributed import LocalCluster
    from tczoo.run import RunOptions, run

    config = RunConfig(methods=["harness"], model=model, benchmark="zoo-mini", problems=["zm01"], samples=3,
                       params={"runner:bugfind": {"wrong": [BUGGY]}})
    asyncio.run(run(config, tmp_path / "run", RunOptions(settings=LLMSettings(cache=False, retries=0)), cluster=LocalCluster(sandbox)))
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


def test_sft_export_judges_all_tests_of_a_response(tmp_path, sandbox):
    """Rejection sampling on every test, not the first k = 5: response 0's sixth input
    separates (first five: no separation) and is kept; response 1 exposes the bug in its
    first five but its checker rejects g's output on the sixth, so it is not."""
    import typer
    from typer.testing import CliRunner

    from tczoo.methods.harnessllm.cli import register
    from tczoo.distributed import LocalCluster
    from tczoo.run import RunOptions, run

    quiet = ["1\n1 5\n", "1\n1 6\n", "1\n2 7\n", "1\n1 8\n", "1\n1 9\n"]
    late = harness(*quiet[:4], extra=f"\ndef generate_input_2():\n    return {[quiet[4], SEPARATING]!r}\n")
    wrong_later = harness(SEPARATING, *quiet[1:4], extra=f"\ndef generate_input_2():\n    return {[quiet[4], quiet[0]]!r}\n")
    wrong_later = wrong_later.replace(
        "def check_output(generated_input, captured_output):\n",
        f"def check_output(generated_input, captured_output):\n    assert generated_input != {quiet[0]!r}\n")
    model = script(tmp_path / "sft.jsonl", [("test harness", [late, wrong_later])])
    config = RunConfig(methods=["harness"], model=model, benchmark="zoo-mini", problems=["zm01"], samples=2,
                       params={"runner:bugfind": {"wrong": [BUGGY]}})
    store = asyncio.run(run(config, tmp_path / "run", RunOptions(settings=LLMSettings(cache=False, retries=0)), cluster=LocalCluster(sandbox)))
    judged = {s.detail["response"]: (s.detail["outcome"], s.detail["outcomes"]["all"]["outcome"]) for s in store.scores()}
    assert judged == {0: ("no_separation", "true_bug"), 1: ("true_bug", "good_input_invalid")}
    app = typer.Typer()

    @app.callback()
    def _root() -> None:
        pass

    register(app)
    out = tmp_path / "sft.out.jsonl"
    res = CliRunner().invoke(app, ["harness", "sft", str(tmp_path / "run"), "--out", str(out)])
    assert res.exit_code == 0, res.output
    [rec] = [json.loads(line) for line in out.read_text().splitlines()]
    assert rec["task"].endswith("/s0") and rec["messages"][-1]["content"] == late


# --------------------------------------------------------------------------- checkers as attackers (issue 42)

MEMO_CHECKER = '''
SEEN = {}

def check_output(generated_input, captured_output):
    first = SEEN.setdefault(generated_input, captured_output)  # the first output seen is taken for g's
    assert captured_output == first, "not the first output seen"
'''

# the old batch's request file held every case of the batch, g's outputs first
READING_CHECKER = '''
import json, os

def check_output(generated_input, captured_output):
    firsts = []
    for name in os.listdir("."):
        try:
            with open(name) as fh:
                cases = json.load(fh)["args"][0]
            firsts += [out for given, out, *_ in cases if given == generated_input]
        except Exception:
            pass
    assert not firsts or captured_output == firsts[0], "not the first output of the batch"
'''

SLEEPING_CHECKER = '''
import time

def check_output(generated_input, captured_output):
    time.sleep(1000)
    assert captured_output
'''


def _harness_with(checker: str, *inputs: str) -> str:
    return fenced("def generate_input_1():\n    return " + repr(list(inputs)) + "\n\n" + checker)


def test_a_checker_that_cannot_tell_g_from_f_earns_a_good_input_not_a_true_bug(tmp_path, sandbox):
    """A checker that takes the first output it sees per input for g's (in memory, or in
    the batch's request file) found true bugs when g's and f's outputs were checked in one
    process, g's first (eq1 1.0, TBR 50 on zm04): now each output is checked alone, and
    such a checker earns what a checker that accepts anything earns."""
    answers = [_harness_with(MEMO_CHECKER, SEPARATING), _harness_with(READING_CHECKER, SEPARATING),
               harness(SEPARATING, checker="weak")]
    records = score_answers(Harness, zm01(), answers, tmp_path, sandbox, first_k=20)
    assert [r.detail["outcome"] for _, r in records] == ["good_input"] * 3
    problem, f = zm01(), [i for i, w in enumerate(zm01().wrong_solutions) if BUGGY in w.name][0]
    for answer in answers[:2]:
        assert response_reward(answer, problem, sandbox=sandbox, wrong=f) == (0.1, Outcome.GOOD_INPUT)
    # an honest checker that knows the answer still finds the bug
    assert response_reward(harness(SEPARATING), problem, sandbox=sandbox, wrong=f) == (1.0, Outcome.TRUE_BUG)


def test_a_sleeping_checker_is_an_invalid_test_bounded_per_check(tmp_path, sandbox):
    import time

    problem, f = zm01(), [i for i, w in enumerate(zm01().wrong_solutions) if BUGGY in w.name][0]
    start = time.monotonic()
    got = response_reward(_harness_with(SLEEPING_CHECKER, SEPARATING, SAMPLE), problem, sandbox=sandbox, wrong=f,
                          checker_time_ms=300)
    assert got == (0.0, Outcome.INVALID)  # the check of g's output never ends: a broken test
    assert time.monotonic() - start < 60


def test_rejected_inputs_count_where_they_were_generated(tmp_path, sandbox):
    """The kernel's input screen hands bugfind the tests it rejected beside those it kept
    (score_suite): "the first k tests" counts them where the method put them, each makes
    the response invalid (never a good input: Eq. 1's 0.1 needs every input valid), and
    they show in the run browser."""
    from tczoo.execution import score_suite

    bad = "three\n"  # not a number: zm01's input validator rejects it
    runner = BugfindRunner(sandbox, wrong=[BUGGY], responses=2, first_k=1)
    answers = [harness(bad, SEPARATING), harness(SEPARATING, bad)]
    out = []
    for spec in runner.tasks(zm01(), Harness, samples=1, seed=0):
        rules = script(tmp_path / f"r{spec.sample}.jsonl", [(".", answers[spec.sample])])
        from harness_fixtures import generate

        suite = generate(Harness, zm01(), spec, rules, sandbox)
        out.append(score_suite(runner, zm01(), spec, suite))
    first, second = out
    assert first.input_check.rejected == 1 and second.input_check.rejected == 1
    assert (first.detail["outcome"], first.detail["reason"]) == ("invalid", "invalid_input")
    assert first.detail["outcomes"]["all"]["outcome"] == "invalid" and first.metrics["itr"] == 100.0
    assert (second.detail["outcome"], second.detail["outcomes"]["all"]["outcome"]) == ("true_bug", "invalid")
    assert [c[0] for c in first.detail["per_test"]] == ["INV", "AC"]
    assert [c[0] for c in second.detail["per_test"]] == ["AC", "INV"]
    assert first.metrics["n_inputs"] == 1.0 and first.detail["rejected_inputs"] == 1

"""RL rewards (``tczoo.rewards``, ``tczoo rl export``): the evaluation's number by
construction, bounded, and never a score where there is none.

- On recorded answers (``results/recordings``), a replayed ``tczoo run`` scores each
  answer with its runner; the reward of the same answer, rebuilt from a reference,
  finds the same runner metrics and the kind's number of them.
- The exported prompt is the one the method sends a model in a real run.
- Hostile completions (a fork bomb, an infinite loop) are contained and never rewarded;
  a sample past its time budget gets the floor within the budget; a sandbox that keeps
  failing (the host, not the completion) gives "no reward".
- Configuration errors (a multi-turn method, a changed prompt or problem, a package the
  worker lacks) are errors, never rewards.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness_fixtures import BUGGY, SEPARATING, fenced, harness, script
from tczoo.execution import Outcome
from tczoo.llm import LLMSettings
from tczoo.llm.backends import prompt_digest
from tczoo.rewards import (
    KINDS,
    NotSingleTurn,
    RewardConfigError,
    RewardReference,
    RewardScorer,
    kind_for_runner,
)
from tczoo.rl.export import collect, export
from tczoo.distributed import LocalCluster
from tczoo.run import RunOptions, run
from tczoo.schema import RunConfig
from tczoo.store import RunStore

ROOT = Path(__file__).resolve().parents[2]
RECORDINGS = ROOT / "results" / "recordings"


@pytest.fixture(scope="module")
def scorer(sandbox):
    with RewardScorer(sandbox=sandbox) as s:
        yield s


# --------------------------------------------------------------------------- recorded answers


def _replay(recording: str, method: str, extra: dict, tmp_path: Path, sandbox):
    """The recording's run of ``method`` replayed (its answers, no model), with ``extra``
    params on top of the recorded ones: (config, params, store)."""
    from tczoo.registry import get_method

    folder = RECORDINGS / recording
    grid = json.loads((folder / "grid.json").read_text())
    runner = get_method(method).runner
    params = {k: v for k, v in grid["params"].items() if k in (method, f"runner:{runner}")}
    for key, value in extra.items():
        params[key] = {**params.get(key, {}), **value}
    [cell] = folder.glob(f"*/{method}")
    config = RunConfig(methods=[method], model=f"replay:{cell}", benchmark=grid["benchmark"],
                       problems=grid["problems"], samples=grid["samples"], seed=grid["seed"], params=params)
    settings = LLMSettings(temperature=grid["llm"]["temperature"], max_tokens=grid["llm"]["max_tokens"], cache=False)
    asyncio.run(run(config, tmp_path / "run", RunOptions(settings=settings), cluster=LocalCluster(sandbox)))
    return config, params, RunStore.open(tmp_path / "run")


def _expected(kind: str, metrics: dict, detail: dict, n_valid: int | None) -> float:
    """Each kind's number, computed here from the runner's record by its definition (docs/rl.md)."""
    if kind == "eq1":
        from tczoo.methods.harnessllm.reward import reward as eq1  # the paper's Eq. 1, as the method package has it

        return eq1(detail["outcome"])
    if kind == "quality":
        validity = n_valid / (metrics["n_tests"] - metrics["n_test_sandbox_errors"])
        return validity * metrics["hack_rate"] / 100 - 1.0 * (1 - validity)
    if kind == "slowdown":
        rates = [v for k, v in metrics.items() if k.startswith("asr:") and not k.startswith("asr:ref:")]
        return sum(rates) / len(rates) / 100
    return float(bool(metrics["pred"]) == bool(metrics["label"]))


RECORDED = [  # (recording, method, the method's single-turn params and runner options on top of the recorded ones)
    ("harness-zm04", "harness", {}),
    ("harness-zm04", "io", {}),
    ("tcbench-fig5-zm04", "crux", {"crux": {"max_rounds": 1}}),
    ("trails-zm04", "cot", {"cot": {"parse_retries": 0}}),
    # STAB's single call (batch generation, no retry), recorded for this test: on zm04 and
    # zm10 the model's first answer lacked a generator; zm01 (seed 1) answered whole
    ("stab-zm01", "stab", {"stab": {"generation": "batch", "retries": 0},
                           "runner:efficiency": {"languages": ["cpp"]}}),
]


@pytest.mark.parametrize("recording,method,extra", RECORDED, ids=[m for _, m, _ in RECORDED])
def test_the_reward_is_the_runners_metric_on_recorded_answers(recording, method, extra, tmp_path, sandbox, scorer):
    config, params, store = _replay(recording, method, extra, tmp_path, sandbox)
    exchanges = {e["key"]: e for e in store.exchanges()}
    generations = {(g.method, g.problem_id, g.task): g for g in store.generations()}
    scores = store.scores()
    assert scores and all(s.error is None for s in scores)
    runner = config.runner or __import__("tczoo.registry", fromlist=["get_method"]).get_method(method).runner
    kind = kind_for_runner(runner)
    for score in scores:
        generation = generations[(score.method, score.problem_id, score.task)]
        [key] = generation.suite.provenance.exchanges  # one model call: the completion
        exchange = exchanges[key]
        ref = RewardReference(benchmark=config.benchmark, problem=score.problem_id, method=method, runner=runner,
                              task=score.task, samples=config.samples, seed=config.seed, params=params, kind=kind,
                              prompt_sha=prompt_digest(exchange["messages"]))
        got = scorer.score(ref.dumps(), exchange["text"])
        assert got.ok, got.reason
        metrics = dict(got.parts["metrics"])
        if kind == "slowdown":
            # Efficiency is measured: whether an input makes a code "slow" is a timing, and
            # two measurements on a shared machine can put an input on either side of the
            # threshold (a clean-clone CI run saw 1 vs 2 of 5 inputs). What must agree
            # exactly is everything not timed, and the reward must be the runner's formula
            # on what the reward measured.
            timed = (":exposed", ":tle", "asr:")  # :exposed_flagged, :tle_invalid too
            assert metrics.keys() == score.metrics.keys()
            assert {k: v for k, v in metrics.items() if not any(t in k for t in timed)} == \
                {k: v for k, v in score.metrics.items() if not any(t in k for t in timed)}
            assert got.score == pytest.approx(_expected(kind, metrics, score.detail, score.n_valid))
            continue
        # the verdict runner counts the model's tokens; a trainer's completion carries none
        assert {k: v for k, v in metrics.items() if k != "tokens"} == \
            {k: v for k, v in score.metrics.items() if k != "tokens"}
        assert got.score == pytest.approx(_expected(kind, score.metrics, score.detail, score.n_valid))


# --------------------------------------------------------------------------- export


CRUX_ANSWER = json.dumps([{"input": f"{n} {n + 1}\n", "output": "?\n"} for n in range(60)])


def test_the_exported_prompt_is_the_one_the_method_sends(tmp_path, sandbox, scorer):
    import pyarrow.parquet as pq

    model = script(tmp_path / "crux.jsonl", [(".", CRUX_ANSWER)])
    config = RunConfig(methods=["crux"], model=model, benchmark="zoo-mini", problems=["zm04"])
    asyncio.run(run(config, tmp_path / "run", RunOptions(settings=LLMSettings(cache=False)), cluster=LocalCluster(sandbox)))
    store = RunStore.open(tmp_path / "run")
    [sent] = [e["messages"] for e in store.exchanges()]  # sixty tests: one call fills the budget (5 x rank 11)
    [score] = store.scores()

    summary = export("zoo-mini", "crux", fmt="verl", out=tmp_path / "verl", problems=["zm04"], sandbox=sandbox)
    [row] = pq.read_table(tmp_path / "verl" / "train.parquet").to_pylist()
    assert row["prompt"] == [{"role": m["role"], "content": m["content"]} for m in sent]
    assert row["reward_model"]["ground_truth"] == row["extra_info"]["tczoo"]
    assert row["ability"] == "test-generation" and row["data_source"] == "tczoo/quality"
    manifest = json.loads((tmp_path / "verl" / "manifest.json").read_text())
    assert manifest["rows"] == summary["rows"] == 1 and manifest["params"]["crux"] == {"max_rounds": 1}
    got = scorer.score(row["extra_info"]["tczoo"], CRUX_ANSWER)
    assert got.parts["metrics"] == score.metrics  # the run's number for the same answer

    export("zoo-mini", "crux", fmt="trl", out=tmp_path / "trl", problems=["zm04"], sandbox=sandbox)
    [trl_row] = pq.read_table(tmp_path / "trl" / "train.parquet").to_pylist()
    assert trl_row["prompt"] == row["prompt"] and trl_row["tczoo"] == row["extra_info"]["tczoo"]
    with pytest.raises(Exception, match="not an empty folder"):
        export("zoo-mini", "crux", fmt="trl", out=tmp_path / "trl", problems=["zm04"], sandbox=sandbox)


def test_an_export_keeps_one_prompt_per_task_and_leaves_out_what_has_no_reward(tmp_path, sandbox):
    # bugfind makes 8 responses per triplet, one prompt; a problem without wrong codes
    # has no HackRate whatever the answer
    data = collect("zoo-mini", "io", problems=["zm01"], sandbox=sandbox)
    assert data.tasks == 8 * len(data.items) and len({i.reference.prompt_sha for i in data.items}) == len(data.items)
    assert all(i.reference.params["runner:bugfind"] == {"first_k": 20} for i in data.items)  # Eq. 1's RL setting
    from kattis_fixtures import ADD_PY, make_package

    make_package(tmp_path / "contest", submissions={"accepted/add.py": ADD_PY})
    lonely = collect(f"kattis:{tmp_path / 'contest'}", "crux", sandbox=sandbox)
    assert not lonely.items and "no wrong code" in lonely.skipped[0]["reason"]


def test_a_multi_turn_method_is_refused_with_the_single_turn_ones_named(sandbox):
    with pytest.raises(RewardConfigError, match=r"pseudo asks the model more than once.*crux.*harness.*io"):
        collect("zoo-mini", "pseudo", problems=["zm04"], sandbox=sandbox)


# --------------------------------------------------------------------------- safety


@pytest.fixture(scope="module")
def harness_ref(sandbox):
    """The zm01 triplet with the greedy bug; generators and checks get one CPU second."""
    data = collect("zoo-mini", "harness", problems=["zm01"], sandbox=sandbox,
                   params={"harness": {"generator_time_ms": 1000},
                           "runner:bugfind": {"wrong": [BUGGY], "checker_time_ms": 1000}})
    [item] = data.items
    return item.reference


FORK_BOMB = "import os\n    while True:\n        os.fork()\n"
LOOP = "    while True:\n        pass\n"


def _harness_code(generate_body: str, check_body: str = "    assert captured_output.strip()") -> str:
    return fenced("def generate_input_1():\n" + generate_body + "\n    return ['1\\n1 1\\n']\n\n"
                  "def check_output(generated_input, captured_output):\n" + check_body + "\n")


@pytest.mark.parametrize("name,answer", [
    ("fork bomb in a generator", _harness_code("    " + FORK_BOMB)),
    ("infinite loop in a generator", _harness_code(LOOP)),
    ("fork bomb in check_output", _harness_code("    pass", "    " + FORK_BOMB + "    assert True")),
    ("infinite loop in check_output", _harness_code("    pass", LOOP + "    assert True")),
])
def test_a_hostile_completion_is_contained_and_never_rewarded(name, answer, harness_ref, scorer):
    started = time.monotonic()
    got = scorer.score(harness_ref, answer)
    assert got.score == 0.0, (name, got.as_dict())  # a format error or an invalid test: Eq. 1's 0
    assert time.monotonic() - started < 30
    # the pool is still sound: the true bug right after is rewarded
    assert scorer.score(harness_ref, harness(SEPARATING)).score == 1.0


def test_a_sample_past_its_time_budget_gets_the_floor_within_the_budget(harness_ref, sandbox):
    """A sleeping checker is the completion's own doing: the floor, never "no reward" (an
    escape from a low reward), and the call ends at the budget, the runs in flight cut to it."""
    slow = harness(SEPARATING).replace("assert int(captured_output", "while True: pass\n    assert int(captured_output")
    sleepy = harness(SEPARATING).replace("assert int(captured_output",
                                         "import time; time.sleep(600)\n    assert int(captured_output")
    # harness_ref's checks get 1 s of CPU each (one case, one process), so a looping checker
    # meets its own limit before a 2 s budget; with the authors' 20 s the budget comes first.
    bugfind = {**harness_ref.params["runner:bugfind"], "checker_time_ms": 20_000}
    long_checks = RewardReference.parse(
        harness_ref.model_copy(update={"params": {**harness_ref.params, "runner:bugfind": bugfind}}).dumps())
    with RewardScorer(sandbox=sandbox, time_budget_s=2.0) as budgeted:
        for ref in (harness_ref, long_checks):  # within budget: the floor (and each task's set-up)
            assert budgeted.score(ref, "no code").score == 0.0
        started = time.monotonic()
        own = budgeted.score(harness_ref, slow)
        raced = own.reason.startswith("time_budget") and time.monotonic() - started >= 2.0  # 1 s of CPU, slow wall
        # the checker ran out of its CPU time on g's output: the oracle broke, an invalid test (Eq. 1's 0)
        assert own.score == 0.0 and (raced or (own.reason, own.parts["outcome"], own.parts["why"])
                                     == ("", Outcome.INVALID.value, "ground_truth_check_timeout")), own.as_dict()
        for answer in (slow, sleepy):
            started = time.monotonic()
            got = budgeted.score(long_checks, answer)
            took = time.monotonic() - started
            assert got.score == 0.0 and got.reason.startswith("time_budget"), got.as_dict()
            assert took < 2.0 + 1.5, took  # the budget and the grace, nothing after it
        assert budgeted.counts["floor:time_budget"] == 2 + raced
        # the pool is sound after the cut runs: the true bug is rewarded
        assert budgeted.score(long_checks, harness(SEPARATING)).score == 1.0


def test_a_sandbox_that_keeps_failing_gives_no_reward(harness_ref, sandbox):
    from sandbox_fixtures import DyingFor

    from tczoo.benchmarks import load_benchmark

    f_code = next(w.code for w in load_benchmark("zoo-mini", ["zm01"])[0].wrong_solutions if BUGGY in w.name)
    with RewardScorer(sandbox=DyingFor(sandbox, f_code)) as dying:
        got = dying.score(harness_ref, harness(SEPARATING))  # scored, f's SE would look like a true bug
    assert got.score is None and got.reason.startswith("infrastructure"), got.as_dict()


def test_a_completion_the_method_cannot_use_gets_the_kinds_floor(harness_ref, scorer):
    assert scorer.score(harness_ref, "").score == 0.0
    ref = RewardReference.parse(harness_ref.model_copy(update={"kind_params": {"format_penalty": -1.0}}).dumps())
    got = scorer.score(ref, "```python\nimport os\n```")
    assert got.score == -1.0 and got.parts["outcome"] == Outcome.FORMAT_ERROR.value


# --------------------------------------------------------------------------- configuration errors


def test_configuration_errors_are_errors_never_rewards(harness_ref, scorer, sandbox, tmp_path):
    with pytest.raises(RewardConfigError, match="not JSON"):
        scorer.score("{nope", "x")
    with pytest.raises(RewardConfigError, match="another prompt"):
        scorer.score(harness_ref.model_copy(update={"prompt_sha": "0" * 64}), harness(SEPARATING))
    with pytest.raises(RewardConfigError, match="differs from the one exported"):
        scorer.score(harness_ref.model_copy(update={"problem_sha": "0" * 64, "task": harness_ref.task + "x"}), "x")
    with pytest.raises(RewardConfigError, match="no task"):
        scorer.score(harness_ref.model_copy(update={"task": "nope/s0", "problem_sha": None}), "x")
    # a method asked to top up a short answer asks twice: not a single-turn setting
    [item] = collect("zoo-mini", "crux", problems=["zm04"], params={"crux": {"max_rounds": 2}},
                     sandbox=sandbox).items
    with pytest.raises(NotSingleTurn, match="asked the model 2 times"):
        scorer.score(item.reference, json.dumps([{"input": "1 2\n", "output": "3\n"}]))


def test_a_kattis_package_exports_and_a_worker_without_it_says_so(tmp_path, sandbox):
    from kattis_fixtures import ADD_CPP, ADD_PY, CRASH_PY, WRONG_PY, make_package

    make_package(tmp_path / "contest", submissions={"accepted/add.py": ADD_PY, "accepted/add.cpp": ADD_CPP,
                                                    "wrong_answer/off_by_seven.py": WRONG_PY,
                                                    "run_time_error/asserts.py": CRASH_PY})
    spec = f"kattis:{tmp_path / 'contest'}"
    [item] = collect(spec, "crux", sandbox=sandbox).items
    hacks = json.dumps([{"input": "7 1\n", "output": "8\n"}])  # both wrong codes fail it
    wrong = json.dumps([{"input": "7 1\n", "output": "9\n"}])  # a correct code fails it
    # an empty expected output, on which asserts.py crashes: the crash is not rewarded
    crash = json.dumps([{"input": "7 1\n", "output": ""}])
    with RewardScorer(sandbox=sandbox) as s:
        assert s.score(item.reference, hacks).score == pytest.approx(1.0)
        assert s.score(item.reference, wrong).score == pytest.approx(-1.0)
        got = s.score(item.reference, crash)
        assert got.score == pytest.approx(-1.0) and got.parts["validity"] == 0.0
    (tmp_path / "contest").rename(tmp_path / "elsewhere")
    with RewardScorer(sandbox=sandbox) as s:
        with pytest.raises(RewardConfigError, match="cannot load problem .* on this machine"):
            s.score(item.reference, hacks)
    with RewardScorer(sandbox=sandbox, benchmarks={spec: f"kattis:{tmp_path / 'elsewhere'}"}) as s:
        assert s.score(item.reference, hacks).score == pytest.approx(1.0)


def test_the_cli_exports_and_scores_one_completion(tmp_path):
    tczoo = [sys.executable, "-m", "tczoo.cli"]
    done = subprocess.run([*tczoo, "rl", "export", "-b", "zoo-mini", "-m", "io", "-p", "zm01", "--layout", "trl",
                           "-o", str(tmp_path / "ds"), "--params", json.dumps({"runner:bugfind": {"wrong": [BUGGY]}})],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "1 prompts (trl layout)" in done.stdout
    answer = tmp_path / "answer.txt"
    answer.write_text("```json\n" + json.dumps([{"input_str": SEPARATING, "expected_output": "5"}]) + "\n```")
    done = subprocess.run([*tczoo, "rl", "score", str(tmp_path / "ds"), "-c", str(answer), "-f", "json"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["score"] == 1.0 and out["parts"]["outcome"] == "true_bug"
    bad = subprocess.run([*tczoo, "rl", "export", "-m", "pseudo", "--layout", "trl", "-o", str(tmp_path / "x")],
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and bad.stderr.startswith("error: ") and len(bad.stderr.strip().splitlines()) == 1


def test_every_kind_names_its_runner():
    assert {k.runner for k in KINDS.values()} == {"bugfind", "hackrate", "efficiency", "verdict", "outputpred"}
    with pytest.raises(RewardConfigError, match="no reward kind"):
        kind_for_runner("bestofn")


def test_the_test_cap_cuts_an_answer_that_ignores_the_budget_and_says_so(sandbox):
    [item] = collect("zoo-mini", "crux", problems=["zm04"], sandbox=sandbox).items
    answer = json.dumps([{"input": f"1 {n}\n1\n", "output": "1\n"} for n in range(1, 4)])
    with RewardScorer(sandbox=sandbox, max_tests=2) as capped:
        got = capped.score(item.reference, answer)
    assert got.parts["capped"] == 3 and got.parts["metrics"]["n_tests"] == 2

"""A sandbox error that outlives the sandbox's retries is reported as an infrastructure
failure by every runner, never scored as a program's behaviour (issue 12, item 10).

The sandbox retries an SE on fresh slots (tests/kernel/test_sandbox_state.py kills a jail
under a run and gets the real verdict); what reaches a runner is an SE that persisted.
A worker that dies on every attempt cannot be produced on demand, so these tests wrap
the real sandbox: every run of one chosen program comes back SE, as it would from a
jail that keeps dying; all other runs are real.
"""

from __future__ import annotations

import asyncio

import pytest

from sandbox_fixtures import DyingFor
from harness_fixtures import BUGGY, SAMPLE, SEPARATING, harness, io_answer, score_answers, script, zm01
from tczoo.errors import InfrastructureFailure
from tczoo.execution import Execution, Verdict, no_sandbox_errors
from tczoo.llm import LLMSettings
from tczoo.methods.harnessllm.harness import Harness
from tczoo.sandbox import RunResult
from tczoo.schema import RunConfig


def test_no_sandbox_errors_names_the_failure():
    no_sandbox_errors([Execution(verdict=Verdict.AC), Execution(verdict=Verdict.WA)], "x")
    with pytest.raises(InfrastructureFailure, match=r"2 run\(s\) of the programs .*WorkerDied"):
        no_sandbox_errors([Execution(verdict=Verdict.SE, detail="WorkerDied"), Execution(verdict=Verdict.AC),
                           RunResult(verdict=Verdict.SE, message="other")], "the programs")


def test_bugfind_does_not_score_a_target_the_sandbox_failed(tmp_path, sandbox):
    # f fails every run: scored, it would be a true bug found on the separating input
    problem = zm01()
    f_code = next(w.code for w in problem.wrong_solutions if w.name.endswith(BUGGY + ".cpp"))
    dying = DyingFor(sandbox, f_code)
    answer = harness(SAMPLE, SEPARATING)
    with pytest.raises(InfrastructureFailure, match="sandbox error"):
        score_answers(Harness, problem, [answer], tmp_path, dying)
    assert dying.failed > 0
    [(_, rec)] = score_answers(Harness, problem, [answer], tmp_path, sandbox)  # the real sandbox: a true bug
    assert rec.detail["outcome"] == "true_bug"


@pytest.mark.e2e
def test_bestofn_through_the_run_loop_reports_the_failure_apart(tmp_path, sandbox):
    """A candidate the sandbox cannot run: its problem's units are not scored; the
    report counts them as failed with reason score/infrastructure, no table shows a
    pass rate for them."""
    from tczoo.report import run_report
    from tczoo.distributed import LocalCluster
    from tczoo.run import RunOptions, run

    problem = zm01()
    f_code = next(w.code for w in problem.wrong_solutions if w.name.endswith(BUGGY + ".cpp"))
    model = script(tmp_path / "m.jsonl", [("\\*\\*test harness\\*\\*", harness(SEPARATING, SAMPLE)),
                                          ("\\*\\*test cases\\*\\*", io_answer((SEPARATING, "4")))])
    config = RunConfig(methods=["io"], model=model, benchmark="zoo-mini", problems=["zm01"], samples=1,
                       runner="bestofn", params={"runner:bestofn": {"n": 100}})  # every candidate
    dying = DyingFor(sandbox, f_code)
    store = asyncio.run(run(config, tmp_path / "run", RunOptions(settings=LLMSettings(cache=False, retries=0)), cluster=LocalCluster(dying)))
    scores = store.scores()
    assert scores and dying.failed > 0
    assert all(s.infrastructure and "InfrastructureFailure" in s.error for s in scores)
    _, tables, summary = run_report(store.root)
    assert summary.score_errors == len(scores)
    failures = next(t for t in tables if t.title == "failures by stage and reason")
    assert [(r["stage"], r["reason"], r["failed units"]) for r in failures.rows] == [
        ("score", "infrastructure", len(scores))]
    assert "WorkerDied" in failures.rows[0]["example"]
    assert not any(t.title.startswith("Best-of-N") for t in tables)  # no pass rate from unscored units
    [row] = next(t for t in tables if "nothing could be scored" in t.title).rows
    assert row["failed"] == row["units"] == len(scores)


def test_efficiency_leaves_a_sandbox_error_unscored(tmp_path, monkeypatch):
    """ASR: an SE on a generated test is neither a crash nor a runtime; an SE on an
    original test does not exclude the problem as if its solution had failed."""
    from test_efficiency import GEN, TimedSandbox, _problem, _suite, _times
    from tczoo.runners.efficiency import EfficiencyRunner
    from tczoo.runner import TaskSpec

    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path))
    times = _times()
    times[("cpp-a", "t4")] = [(0, "SE")]
    runner = EfficiencyRunner(TimedSandbox(times), tests=4, random_refs=3)
    with pytest.raises(InfrastructureFailure, match="reference solutions"):
        runner.score(_problem(), TaskSpec(key="", task=None), _suite(GEN))
    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path / "again"))  # the originals are timed again
    times = _times()
    times[("py-b", "g2")] = [(0, "SE")]
    runner = EfficiencyRunner(TimedSandbox(times), tests=4, random_refs=3)
    with pytest.raises(InfrastructureFailure):
        runner.score(_problem(), TaskSpec(key="", task=None), _suite(GEN))

"""Rewards at training scale (issue 51, items 2-3): a reward process opens its share of
the machine, and rewards are awaited from a trainer's own event loop.

- ``tczoo.machine.machine_share`` on cgroup trees written here (v1 and v2 quotas along
  the path, unlimited ones), with ``LOCAL_WORLD_SIZE``/``LOCAL_RANK`` as ``torchrun`` and
  ``accelerate launch`` set them: ranks together open as many slots as there are cores;
  a ``RewardScorer`` opens its share (``ranks``), ``workers`` overrides it.
- ``RewardScorer.ascore_many`` from another loop: the caller's loop keeps running while
  rewards are computed; concurrent calls share one gate and pool; identical samples in
  flight are scored once and each caller gets its own copy; a sleeper's budget holds per
  completion (it gets the floor at its deadline, the others their own rewards).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from harness_fixtures import BUGGY, SAMPLE, SEPARATING, harness
from tczoo.machine import cgroup_quota, machine_share
from tczoo.rewards import RewardConfigError, RewardScorer, areward, arewards, close_scorers, resolve_options
from tczoo.rl.export import collect


# --------------------------------------------------------------------------- the machine's share


def _v1(tmp_path: Path, quotas: dict[str, tuple[int, int]]) -> tuple[Path, Path]:
    """A cgroup v1 tree (cpu controller) with ``quotas`` {path: (quota_us, period_us)};
    the process sits in the deepest path."""
    root = tmp_path / "cg"
    for rel, (quota, period) in quotas.items():
        d = root / "cpu,cpuacct" / rel.strip("/")
        d.mkdir(parents=True, exist_ok=True)
        (d / "cpu.cfs_quota_us").write_text(f"{quota}\n")
        (d / "cpu.cfs_period_us").write_text(f"{period}\n")
    deepest = max(quotas, key=len)
    proc = tmp_path / "proc-cgroup"
    proc.write_text(f"4:memory:/x\n3:cpu,cpuacct:{deepest}\n0::/\n")
    return root, proc


def test_the_share_is_the_cores_split_among_the_ranks_on_the_node(tmp_path):
    none = tmp_path / "no-cgroup"
    none.write_text("")
    # eight ranks on a 32-CPU node: 4 slots each, 32 in all (not 8 x 32)
    shares = [machine_share(environ={"LOCAL_WORLD_SIZE": "8", "LOCAL_RANK": str(r)}, proc_cgroup=none, cpus=32)
              for r in range(8)]
    assert [s.workers for s in shares] == [4] * 8 and shares[0].ranks_from == "LOCAL_WORLD_SIZE"
    # 3 ranks on 8 cores: 3, 3, 2 (the remainder goes to the first ranks), 8 in all
    assert [machine_share(environ={"LOCAL_WORLD_SIZE": "3", "LOCAL_RANK": str(r)}, proc_cgroup=none, cpus=8).workers
            for r in range(3)] == [3, 3, 2]
    # more ranks than cores: one slot each; no ranks said: the whole machine
    assert machine_share(environ={"LOCAL_WORLD_SIZE": "8"}, proc_cgroup=none, cpus=2).workers == 1
    assert machine_share(environ={}, proc_cgroup=none, cpus=6).workers == 6
    # the option wins over the environment (verl: reward.num_workers over the nodes)
    got = machine_share(4, environ={"LOCAL_WORLD_SIZE": "8"}, proc_cgroup=none, cpus=16)
    assert got.workers == 4 and got.ranks_from == "option"
    with pytest.raises(ValueError, match="LOCAL_WORLD_SIZE='x' is not an integer"):
        machine_share(environ={"LOCAL_WORLD_SIZE": "x"}, proc_cgroup=none, cpus=4)


def test_a_cgroup_quota_cuts_the_cores(tmp_path):
    # a container of 6 CPUs (600 ms per 100 ms) on a 64-CPU host, inside a parent capped at 10
    root, proc = _v1(tmp_path, {"/": (-1, 100000), "/kubepods": (1000000, 100000), "/kubepods/pod1": (600000, 100000)})
    assert cgroup_quota(root, proc) == pytest.approx(6.0)
    share = machine_share(environ={"LOCAL_WORLD_SIZE": "2", "LOCAL_RANK": "1"}, cgroup_root=root, proc_cgroup=proc,
                          cpus=64)
    assert (share.cores, share.workers, share.quota) == (6, 3, 6.0)
    assert "rank 1 of 2" in share.describe() and "quota 6 CPUs" in share.describe()
    # a fractional quota rounds down, never below one core
    root, proc = _v1(tmp_path / "b", {"/job": (150000, 100000)})
    assert machine_share(environ={}, cgroup_root=root, proc_cgroup=proc, cpus=8).workers == 1
    # cgroup v2: cpu.max along the path; "max" is no limit
    v2 = tmp_path / "v2"
    (v2 / "a" / "b").mkdir(parents=True)
    (v2 / "cgroup.controllers").write_text("cpu memory\n")
    (v2 / "a" / "cpu.max").write_text("max 100000\n")
    (v2 / "a" / "b" / "cpu.max").write_text("400000 100000\n")
    proc2 = tmp_path / "proc2"
    proc2.write_text("0::/a/b\n")
    assert cgroup_quota(v2, proc2) == pytest.approx(4.0)
    (v2 / "a" / "b" / "cpu.max").write_text("max 100000\n")
    assert cgroup_quota(v2, proc2) is None


def test_a_scorer_opens_its_share_and_workers_overrides_it(monkeypatch):
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "64")  # more ranks than this machine has cores: one slot each
    monkeypatch.setenv("LOCAL_RANK", "5")
    with RewardScorer() as s:
        assert s.share is not None and s.share.ranks == 64 and s.sandbox.workers == 1 == s.share.workers
        assert s.concurrency == 2
    with RewardScorer(workers=3) as s:
        assert s.share is None and s.sandbox.workers == 3
    with RewardScorer(ranks=1) as s:
        assert s.share.ranks_from == "option" and s.sandbox.workers == s.share.cores
    with pytest.raises(RewardConfigError, match="ranks must be at least 1"):
        RewardScorer(ranks=0)
    # the adapters' options: ranks and coalesce, also from the environment
    monkeypatch.setenv("TCZOO_RL_RANKS", "2")
    monkeypatch.setenv("TCZOO_RL_COALESCE", "0")
    assert resolve_options({}) == {"ranks": 2, "coalesce": False}
    monkeypatch.setenv("TCZOO_RL_COALESCE", "maybe")
    with pytest.raises(RewardConfigError, match="TCZOO_RL_COALESCE='maybe'"):
        resolve_options({})


# --------------------------------------------------------------------------- awaited from a trainer's loop


@pytest.fixture(scope="module")
def io_refs(sandbox):
    """zm01's io tasks with the greedy bug (one triplet: its 8 responses share a prompt)."""
    data = collect("zoo-mini", "io", problems=["zm01"], sandbox=sandbox,
                   params={"runner:bugfind": {"wrong": [BUGGY]}})
    return [item.reference for item in data.items]


def _io(inp: str, out: str) -> str:
    import json

    return "```json\n" + json.dumps([{"input_str": inp, "expected_output": out}]) + "\n```"


TRUE_BUG, NO_SEPARATION = _io(SEPARATING, "5"), _io(SAMPLE, "70")


@pytest.fixture(scope="module")
def harness_ref(sandbox):
    """zm01's harness task with the greedy bug; generators and checks get one CPU second."""
    data = collect("zoo-mini", "harness", problems=["zm01"], sandbox=sandbox,
                   params={"harness": {"generator_time_ms": 1000},
                           "runner:bugfind": {"wrong": [BUGGY], "checker_time_ms": 1000}})
    [item] = data.items
    return item.reference


def test_rewards_are_awaited_from_another_loop_without_blocking_it(io_refs, harness_ref, sandbox):
    """A slow reward (its checker spins 0.4 s per case) awaited on the trainer's loop:
    the loop keeps ticking all along; io answers awaited beside it get theirs."""
    [ref] = io_refs
    slow = harness(SEPARATING).replace("assert int(captured_output",
                                       "import time\n    t = time.time()\n    while time.time() - t < 0.4: pass\n"
                                       "    assert int(captured_output")
    with RewardScorer(sandbox=sandbox) as scorer:
        scorer.score(harness_ref, "no code")  # the task's set-up
        expected = scorer.score_many([ref, ref], [TRUE_BUG, NO_SEPARATION])

        async def trainer():
            ticks: list[float] = []
            done = asyncio.Event()

            async def ticker():
                while not done.is_set():
                    ticks.append(time.monotonic())
                    await asyncio.sleep(0.01)

            beat = asyncio.ensure_future(ticker())
            started = time.monotonic()
            # verl's reward loop: one call per response, all at once
            calls = [scorer.ascore_many([harness_ref], [slow])]
            calls += [scorer.ascore_many([ref], [text]) for text in [TRUE_BUG, NO_SEPARATION] * 4]
            got = await asyncio.gather(*calls)
            took = time.monotonic() - started
            done.set()
            await beat
            return [g[0] for g in got], ticks, took

        got, ticks, took = asyncio.run(trainer())
    assert got[0].score == 1.0, got[0].as_dict()
    assert [g.score for g in got[1:]] == [e.score for e in expected] * 4 == [1.0, 0.0] * 4
    assert took > 0.4  # a checker case at least (cases run side by side on the slots)
    gaps = [b - a for a, b in zip(ticks, ticks[1:])]
    assert len(ticks) > 10 and max(gaps) < took / 2, (len(ticks), max(gaps), took)  # never blocked for long


def test_identical_samples_in_flight_are_scored_once_and_each_caller_gets_its_own(io_refs, sandbox):
    [ref] = io_refs
    with RewardScorer(sandbox=sandbox) as scorer:
        scorer.score(ref, "warm-up: the task's set-up")
        before = dict(scorer.counts)

        async def group():  # a GRPO group whose policy wrote the same answer 6 times
            return await asyncio.gather(*(scorer.ascore_many([ref], [TRUE_BUG]) for _ in range(6)))

        got = [g[0] for g in asyncio.run(group())]
        assert [g.score for g in got] == [1.0] * 6
        assert scorer.coalesced == 5  # one computed, five handed on
        assert scorer.counts["scored"] - before.get("scored", 0) == 6  # every reward delivered is counted
        got[0].parts["metrics"]["n_inputs"] = -1  # a caller's copy is its own
        assert got[1].parts["metrics"]["n_inputs"] != -1
    with RewardScorer(sandbox=sandbox, coalesce=False) as plain:
        plain.score(ref, "warm-up")
        assert [r.score for r in plain.score_many([ref] * 3, [TRUE_BUG] * 3)] == [1.0] * 3
        assert plain.coalesced == 0


def test_the_budget_holds_per_completion_in_concurrent_async_calls(harness_ref, sandbox):
    """A sleeping checker among honest answers, all awaited at once: the sleeper gets the
    floor at its own deadline; the others are not held back to it, nor given its floor."""
    sleepy = harness(SEPARATING).replace("assert int(captured_output",
                                         "import time; time.sleep(600)\n    assert int(captured_output")
    with RewardScorer(sandbox=sandbox, time_budget_s=3.0) as scorer:
        scorer.score(harness_ref, "no code")  # the task's set-up, outside any budget

        async def trainer():
            started = time.monotonic()

            async def one(text):
                r = await scorer.ascore_many([harness_ref], [text])
                return r[0], time.monotonic() - started

            return await asyncio.gather(one(sleepy), one(harness(SEPARATING)), one(harness(SAMPLE)))

        (slept, t_slept), (bug, t_bug), (miss, _) = asyncio.run(trainer())
    assert slept.score == 0.0 and slept.reason.startswith("time_budget"), slept.as_dict()
    assert t_slept < 3.0 + 2.0, t_slept  # the budget and the grace (plus a loaded machine's slack)
    assert bug.score == 1.0 and miss.score == 0.0 and not bug.reason


def test_the_module_level_async_functions_use_the_processes_scorer(io_refs):
    [ref] = io_refs

    async def trainer():
        one = await areward(ref, TRUE_BUG, workers=1)
        many = await arewards([ref, ref], [TRUE_BUG, NO_SEPARATION], workers=1)
        return one, many

    try:
        one, many = asyncio.run(trainer())
    finally:
        close_scorers()
    assert one.score == 1.0 and [m.score for m in many] == [1.0, 0.0]

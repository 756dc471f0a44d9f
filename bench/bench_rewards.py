"""RL reward throughput (issue 31): rewards per second for a batch of 64, and how it
scales with sandbox workers. A script, not a test.

    python bench/bench_rewards.py [--batch 64] [--workers 1,2,4] [--rounds 3] [--kinds eq1,quality]

Workloads (zoo-mini zm01, commission deadlines; references from ``tczoo rl export``'s
``collect``, completions written here):

- ``eq1``: the ``io`` method's answers (JSON tests) on zm01's ten (problem, wrong code,
  ground truth) triplets, scored by ``bugfind`` (HarnessLLM Eq. 1, every test counts);
  a quarter expose greedy_by_deadline's bug, a quarter are the sample, a quarter carry a
  wrong expected output, a quarter are no JSON at all;
- ``quality``: ``crux`` answers (three tests with outputs) scored by ``hackrate`` on the
  problem's wrong codes (validity x HackRate).

For each worker count a fresh ``RewardScorer`` (its own sandbox pool) scores one warm-up
batch (tasks rebuilt, programs compiled: per process, once), then ``--rounds`` timed
batches. Printed per count: the median wall time of a batch, rewards per second, CPU
seconds per reward (this process and everything it ran: the jailed programs are counted
when the pool's workers are reaped at close), and the speed-up over the first count.

On a shared machine wall-clock figures move with the load; the CPU per reward does not
(much). The quiet-machine figures in docs/rl.md come from the same command with nothing
else running.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import time

SEPARATING = "3\n1 1\n2 3\n2 2\n"  # greedy_by_deadline prints 4, the answer is 5
SAMPLE = "4\n2 20\n1 30\n1 50\n2 10\n"  # 70

IO_ANSWERS = [
    "```json\n" + json.dumps([{"input_str": SEPARATING, "expected_output": "5"},
                              {"input_str": SAMPLE, "expected_output": "70"}]) + "\n```",
    "```json\n" + json.dumps([{"input_str": SAMPLE, "expected_output": "70"}]) + "\n```",
    "```json\n" + json.dumps([{"input_str": SEPARATING, "expected_output": "4"}]) + "\n```",
    "I cannot write tests for this.",
]
CRUX_ANSWERS = [
    json.dumps([{"input": SEPARATING, "output": "5\n"}, {"input": SAMPLE, "output": "70\n"},
                {"input": "1\n1 9\n", "output": "9\n"}]),
    json.dumps([{"input": SAMPLE, "output": "70\n"}, {"input": "1\n1 9\n", "output": "9\n"}]),
    json.dumps([{"input": SEPARATING, "output": "4\n"}]),
    "no tests",
]


def cpu_s() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def workload(kind: str, batch: int) -> tuple[list[str], list[str]]:
    from tczoo.rl.export import collect
    from tczoo.sandbox import Sandbox

    method, answers = ("io", IO_ANSWERS) if kind == "eq1" else ("crux", CRUX_ANSWERS)
    with Sandbox() as sb:
        items = collect("zoo-mini", method, problems=["zm01"], sandbox=sb).items
    refs = [items[i % len(items)].reference.dumps() for i in range(batch)]
    texts = [answers[i % len(answers)] for i in range(batch)]
    return refs, texts


def measure(refs: list[str], texts: list[str], workers: int, rounds: int) -> dict:
    from tczoo.rewards import RewardScorer

    cpu0 = cpu_s()
    scorer = RewardScorer(workers=workers)
    try:
        warm = scorer.score_many(refs, texts)
        times = []
        for _ in range(rounds):
            t = time.perf_counter()
            got = scorer.score_many(refs, texts)
            times.append(time.perf_counter() - t)
            assert [g.score for g in got] == [g.score for g in warm], "rewards changed between rounds"
    finally:
        scorer.close()
    cpu = cpu_s() - cpu0  # warm-up included: per-process set-up, then rounds
    nones = sum(g.score is None for g in warm)
    return {"workers": workers, "batch_s": statistics.median(times), "rewards_per_s": len(refs) / statistics.median(times),
            "cpu_s_per_reward": cpu / (len(refs) * (rounds + 1)), "no_reward": nones,
            "mean_reward": statistics.fmean(g.score for g in warm if g.score is not None) if nones < len(warm) else None}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--workers", default="1,2,4")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--kinds", default="eq1,quality")
    args = ap.parse_args()
    counts = [int(w) for w in args.workers.split(",")]
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} (wall figures move with it)")
    for kind in args.kinds.split(","):
        refs, texts = workload(kind, args.batch)
        print(f"\n{kind}: a batch of {args.batch} rewards, {len(set(refs))} distinct tasks")
        print(f"{'workers':>8} {'batch s':>9} {'rewards/s':>10} {'CPU s/reward':>13} {'speed-up':>9} {'none':>5} "
              f"{'mean':>6}")
        base = None
        for w in counts:
            r = measure(refs, texts, w, args.rounds)
            base = base or r["rewards_per_s"]
            mean = "-" if r["mean_reward"] is None else f"{r['mean_reward']:.3f}"
            print(f"{w:>8} {r['batch_s']:>9.2f} {r['rewards_per_s']:>10.1f} {r['cpu_s_per_reward']:>13.4f} "
                  f"{r['rewards_per_s'] / base:>8.2f}x {r['no_reward']:>5} {mean:>6}")


if __name__ == "__main__":
    main()

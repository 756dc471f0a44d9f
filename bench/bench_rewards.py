"""RL reward throughput (issues 31 and 51). A script, not a test.

    python bench/bench_rewards.py [--kinds verl,eq1,quality] [--batch 256] [--workers N] [--rounds 1]

**verl** (issue 51, the default): tczoo's code reward against verl's own local code
reward, on the same completions, the same tests and the same cores, in this one process.
The task is what verl's ``prime_code`` does for ``codecontests``/``apps`` data: judge a
completion's program on a problem's tests. Completions: zoo-mini's Python programs
(every problem's accepted and wrong ones), cycled to ``--batch`` and each made distinct
(a comment with its round and number: nothing is cached between them), fenced as a model
writes them. Tests: each problem's golden tests up to ``--max-input-kb`` (4 KB: about 12
per problem; the large ones take seconds per program in Python). zoo-mini's programs read
``sys.stdin.buffer``, which ``prime_code`` cannot run (it runs programs in its own process
with ``sys.stdin`` patched to a ``StringIO``: the bench shows one as written); both judges
get them with ``sys.stdin.read()`` instead.

- ``verl default``: ``verl.utils.reward_score.default_compute_score("codecontests", ...)``,
  what verl runs on such data without a SandboxFusion URL (``prime_code.compute_score``
  with ``continuous=True``: all tests in one forked process, then, on a failure, the first
  ten one by one), ``--workers`` calls at a time in threads (verl's reward managers call
  it from executor threads; its work is in the processes it forks);
- ``verl binary``: ``prime_code.compute_score(..., continuous=False)`` (the all-tests pass
  only): the cheapest way verl's code can give pass/fail;
- ``tczoo``: ``tczoo.rl.code.CodeScorer`` (the same tests, each in its own process in the
  sandbox: the fork server, a sandboxed job per round of tests forking a child per test;
  ``--per-test`` adds a row with a sandboxed interpreter per test), ``--workers`` slots,
  one call per completion as verl's reward loop makes them, coalesced into batches by the
  scorer.

Printed per side: rewards per second for the batch, latency from submission (p50, p99:
the whole batch is submitted at once), CPU seconds per reward (this process and everything
it forked or ran, the jails included), and the peak memory of the processes the side ran
(the sum of their proportional set sizes, sampled every 20 ms; this process, common to
both, is left out). Then the pass/fail agreement: tczoo's verdict (every test passed)
against verl's (score 1.0), with each disagreement shown.

**eq1**, **quality** (issue 31): rewards per second for a batch of ``--batch`` of
tczoo's own test-generation rewards and how it scales with sandbox workers:

- ``eq1``: the ``io`` method's answers (JSON tests) on zm01's ten (problem, wrong code,
  ground truth) triplets, scored by ``bugfind`` (HarnessLLM Eq. 1, every test counts);
  a quarter expose greedy_by_deadline's bug, a quarter are the sample, a quarter carry a
  wrong expected output, a quarter are no JSON at all;
- ``quality``: ``crux`` answers (three tests with outputs) scored by ``hackrate`` on the
  problem's wrong codes (validity x HackRate).

  For each worker count (``--scaling``, 1,2,4) a fresh ``RewardScorer`` (its own sandbox
  pool) scores one warm-up batch (tasks rebuilt, programs compiled: per process, once),
  then ``--rounds`` timed batches: the median wall time of a batch, rewards per second,
  CPU seconds per reward, and the speed-up over the first count.

On a shared machine wall-clock figures move with the load (printed first); the CPU per
reward does not (much).
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


# --------------------------------------------------------------------------- tczoo vs verl (issue 51)


class PeakMemory:
    """The peak of the summed PSS of this process's descendants started since, sampled in
    a thread (a side's own: what another left running is not counted)."""

    def __init__(self, interval_s: float = 0.02):
        import threading

        self.interval_s = interval_s
        self.peak_kb = 0
        self._before = set(_descendants(os.getpid()))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "PeakMemory":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        me = os.getpid()
        while not self._stop.is_set():
            self.peak_kb = max(self.peak_kb, sum(_pss_kb(pid) for pid in _descendants(me) if pid not in self._before))
            self._stop.wait(self.interval_s)


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                stat = f.read().decode(errors="replace")
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def code_workload(batch: int, max_input_kb: int, round_: int) -> tuple[list[str], list[dict], list[str]]:
    """(completions, tests, names): zoo-mini's Python programs on their small golden tests."""
    from tczoo.benchmarks import load_benchmark
    from tczoo.schema import Language

    pool = []
    for problem in load_benchmark("zoo-mini"):
        small = [t for t in problem.golden_tests if len(t.input) <= max_input_kb * 1024 and t.output is not None]
        tests = {"inputs": [t.input for t in small], "outputs": [t.output for t in small]}
        programs = [*problem.solutions, *problem.wrong_solutions]
        for program in programs:
            if program.language is Language.PYTHON:
                pool.append((f"{problem.id[:4]} {program.name}", readable_by_verl(program.code), tests))
    completions, tests, names = [], [], []
    for i in range(batch):
        name, code, t = pool[i % len(pool)]
        completions.append(f"Here is my solution.\n```python\n{code}\n# round {round_} sample {i}\n```\n")
        tests.append(t)
        names.append(name)
    return completions, tests, names


def readable_by_verl(code: str) -> str:
    return code.replace("sys.stdin.buffer.read()", "sys.stdin.read()")


def _quiet(fn, *args):
    """``fn`` with prime_code's printed tracebacks silenced (once, around a whole side:
    redirecting per call from several threads would leave sys.stdout on a sink)."""
    import contextlib
    import io

    sink = io.StringIO()
    with contextlib.redirect_stderr(sink), contextlib.redirect_stdout(sink):
        return fn(*args)


def run_verl(mode: str, completions: list[str], tests: list[dict], workers: int) -> dict:
    from concurrent.futures import ThreadPoolExecutor

    from verl.utils.reward_score import default_compute_score, prime_code

    raised: dict[str, int] = {}

    def one(i: int) -> tuple[float, float]:
        payload = json.dumps(tests[i])  # verl's ground_truth is JSON text
        try:
            if mode == "default":
                score = float(default_compute_score("codecontests", completions[i], payload))
            else:
                score = float(prime_code.compute_score(completions[i], payload, False)[0] is True)
        except Exception as exc:  # prime_code's continuous=False raises on a failing program (verl 0.9.1)
            raised[type(exc).__name__] = raised.get(type(exc).__name__, 0) + 1
            score = 0.0
        return score, time.perf_counter()

    def go() -> list:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return _quiet(lambda: list(pool.map(one, range(len(completions)))))

    out = _timed(go, lambda got: [g[0] == 1.0 for g in got])
    out["raised"] = raised
    return out


def run_tczoo(completions: list[str], tests: list[dict], workers: int, fork_server: bool = True) -> dict:
    from tczoo.rl.code import CodeScorer

    scorer = CodeScorer(workers=workers, fork_server=fork_server)  # the pool opens once per process, before the clock

    def go() -> list:
        stamps: list = [None] * len(completions)
        futures = []
        for i, (c, t) in enumerate(zip(completions, tests)):
            f = scorer.submit([c], [t])  # one call per completion, as verl's reward loop makes them
            f.add_done_callback(lambda _f, i=i: stamps.__setitem__(i, time.perf_counter()))
            futures.append(f)
        results = [f.result()[0] for f in futures]
        return [(r, stamp) for r, stamp in zip(results, stamps)]

    try:
        out = _timed(go, lambda got: [g[0].passed for g in got])
        out["batches"] = scorer.batches
        out["no_reward"] = sum(g[0].score is None for g in out["raw"])
    finally:
        cpu0 = cpu_s()
        scorer.close()  # the pool's workers are reaped here: their jails' CPU is counted
        out["cpu_s"] += cpu_s() - cpu0
    return out


def _timed(work, verdicts) -> dict:
    cpu0 = cpu_s()
    with PeakMemory() as memory:
        t0 = time.perf_counter()
        got = work()
        wall = time.perf_counter() - t0
    latencies = sorted(g[1] - t0 for g in got)
    return {"wall_s": wall, "cpu_s": cpu_s() - cpu0, "peak_mb": memory.peak_kb / 1024, "raw": got,
            "passed": verdicts(got), "p50": statistics.median(latencies),
            "p99": latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]}


def bench_verl(args) -> None:
    try:
        import verl.utils.reward_score.prime_code  # noqa: F401 (imported before any clock: torch with it)
    except ImportError:
        print("verl is not installed (pip install 'tczoo[rl]'): no comparison")
        return
    workers = args.workers or len(os.sched_getaffinity(0))
    completions, tests, names = code_workload(args.batch, args.max_input_kb, 0)
    print(f"\ncode reward: a batch of {len(completions)} completions ({len(set(names))} zoo-mini Python programs, "
          f"{len({json.dumps(t) for t in tests})} problems, {statistics.mean(len(t['inputs']) for t in tests):.1f} "
          f"tests each), {workers} workers a side")
    from tczoo.benchmarks import load_benchmark
    from tczoo.schema import Language
    from verl.utils.reward_score import prime_code

    [zm01] = load_benchmark("zoo-mini", ["zm01"])
    fast = next(s for s in zm01.solutions if s.language is Language.PYTHON)
    t = {"inputs": [zm01.samples[0].input], "outputs": [zm01.samples[0].output]}
    as_written = _quiet(prime_code.compute_score, f"```python\n{fast.code}\n```", json.dumps(t), True)[0]
    print(f"  (prime_code on zm01's accepted {fast.name} as written, reading sys.stdin.buffer, on a sample: "
          f"{as_written:g}; below, every program reads sys.stdin.read())")
    rows = []
    for r in range(args.rounds):  # sides interleaved, each round on fresh text (nothing cached across them)
        completions, tests, names = code_workload(args.batch, args.max_input_kb, r)
        row = {"tczoo": run_tczoo(completions, tests, workers)}
        if args.per_test:
            row["tczoo per test"] = run_tczoo(completions, tests, workers, fork_server=False)
        row["verl default"] = run_verl("default", completions, tests, workers)
        row["verl binary"] = run_verl("binary", completions, tests, workers)
        rows.append(row)
    print(f"{'judge':>14} {'batch s':>8} {'rewards/s':>10} {'p50 s':>7} {'p99 s':>7} {'CPU s/reward':>13} "
          f"{'peak MB':>8} {'passed':>7}")
    med = {side: {k: statistics.median(row[side][k] for row in rows) for k in ("wall_s", "cpu_s", "peak_mb",
                                                                                 "p50", "p99")}
           for side in rows[0]}
    n = len(completions)
    for side, m in med.items():
        print(f"{side:>14} {m['wall_s']:>8.2f} {n / m['wall_s']:>10.1f} {m['p50']:>7.2f} {m['p99']:>7.2f} "
              f"{m['cpu_s'] / n:>13.4f} {m['peak_mb']:>8.0f} {sum(bool(x) for x in rows[-1][side]['passed']):>7}")
    for side in ("verl default", "verl binary"):
        print(f"tczoo vs {side}: {med[side]['wall_s'] / med['tczoo']['wall_s']:.2f}x rewards/s, "
              f"{med[side]['cpu_s'] / med['tczoo']['cpu_s']:.2f}x less CPU, "
              f"{med[side]['peak_mb'] / max(1.0, med['tczoo']['peak_mb']):.2f}x less memory")
    last = rows[-1]
    print(f"tczoo: {last['tczoo']['batches']} batches for {n} calls; {last['tczoo']['no_reward']} without a reward")
    for side in ("verl default", "verl binary"):
        if last[side]["raised"]:
            print(f"{side}: calls that raised (counted as fail): "
                  + ", ".join(f"{k} x{v}" for k, v in last[side]["raised"].items()))
    for side in ("verl default", "verl binary"):
        differ = [i for i in range(n) if last["tczoo"]["passed"][i] is not None
                  and bool(last["tczoo"]["passed"][i]) != last[side]["passed"][i]]
        judged = sum(p is not None for p in last["tczoo"]["passed"])
        print(f"pass/fail, tczoo vs {side}: {judged - len(differ)} of {judged} agree, {len(differ)} differ")
        shown = {}
        for i in differ:
            shown.setdefault(names[i], (i, last["tczoo"]["raw"][i][0]))
        for name, (i, r) in sorted(shown.items()):
            print(f"  {name}: tczoo {'pass' if r.passed else 'fail'} {' '.join(v or '.' for v in r.verdicts)}; "
                  f"verl {last[side]['raw'][i][0]:g}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kinds", default="verl", help="verl (tczoo vs verl's code reward), eq1, quality")
    ap.add_argument("--batch", type=int, default=None, help="rewards per batch (verl: 256; eq1, quality: 64)")
    ap.add_argument("--workers", type=int, default=None, help="verl: workers a side (default: the CPUs)")
    ap.add_argument("--scaling", default="1,2,4", help="eq1, quality: the worker counts compared")
    ap.add_argument("--rounds", type=int, default=None, help="timed batches (verl: 1; eq1, quality: 3)")
    ap.add_argument("--max-input-kb", type=int, default=4, help="verl: the largest golden test used")
    ap.add_argument("--per-test", action="store_true",
                    help="verl: also tczoo with one sandboxed process per test (fork_server=False)")
    args = ap.parse_args()
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} (wall figures move with it)")
    for kind in args.kinds.split(","):
        if kind == "verl":
            bench_verl(argparse.Namespace(**{**vars(args), "batch": args.batch or 256, "rounds": args.rounds or 1}))
            continue
        batch, rounds = args.batch or 64, args.rounds or 3
        refs, texts = workload(kind, batch)
        print(f"\n{kind}: a batch of {batch} rewards, {len(set(refs))} distinct tasks")
        print(f"{'workers':>8} {'batch s':>9} {'rewards/s':>10} {'CPU s/reward':>13} {'speed-up':>9} {'none':>5} "
              f"{'mean':>6}")
        base = None
        for w in [int(x) for x in args.scaling.split(",")]:
            r = measure(refs, texts, w, rounds)
            base = base or r["rewards_per_s"]
            mean = "-" if r["mean_reward"] is None else f"{r['mean_reward']:.3f}"
            print(f"{w:>8} {r['batch_s']:>9.2f} {r['rewards_per_s']:>10.1f} {r['cpu_s_per_reward']:>13.4f} "
                  f"{r['rewards_per_s'] / base:>8.2f}x {r['no_reward']:>5} {mean:>6}")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

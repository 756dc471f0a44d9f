"""The local worker pool against Ray, on this machine (issue 20). A script, not a test.

    python bench/bench_ray.py [--rounds 3] [--trivial 400] [--problems zm01,zm09] [--address auto|HOST:PORT]

Two workloads, each one ``Sandbox.run_many`` batch per round
(``tczoo.execution.run_programs``):

- *trivial*: a C++ a+b program ``--trivial`` times: all overhead, where a backend's
  cost per run shows;
- *hackrate*: what HackRate runs: every program of zoo-mini problems (correct and
  wrong, C++ and Python) on their golden tests. Programs that time out are left out
  (a TLE run costs its time limit whatever runs it, and would only dilute the
  overhead measured).

Runs per second for

1. the local worker pool (``Sandbox()``: one slot per core);
2. Ray (``--executor ray``): one actor per node holding the node's own Sandbox, jobs
   sent in chunks (the default: 32 runs per actor call, or twice a node's slots);
3. Ray with one actor call per job (``chunk=1``), the design the chunks replace.

Rounds are interleaved (machine noise hits all three alike); the best round of each
is reported, with the ratio to the local pool. Without ``--address`` Ray is a private
instance on this machine, on the same cores as the local pool: the ratio is then the
price of going through Ray, not a speed-up (that needs more machines). The time to
import Ray and to start the instance and its actors is printed too.
"""

from __future__ import annotations

import argparse
import os
import time

from tczoo.benchmarks import load_benchmark
from tczoo.distributed import ExecutionOptions, open_cluster
from tczoo.execution import run_programs
from tczoo.sandbox import Limits, Sandbox, Verdict
from tczoo.schema import Language, Program


ADD = '#include <cstdio>\nint main(){ long long a, b; scanf("%lld %lld", &a, &b); printf("%lld\\n", a + b); }\n'


def trivial(n: int):
    program = Program(code=ADD, language=Language.CPP)
    return [([program], [f"{i} {i}" for i in range(n)], Limits(time_ms=1000))]


def hackrate(sandbox: Sandbox, problems: list[str]):
    """(programs, inputs, limits) per problem, without the programs that time out."""
    out = []
    for problem in load_benchmark("zoo-mini", problems, sandbox=sandbox):
        programs = list(problem.solutions) + list(problem.wrong_solutions)
        inputs = [t.input for t in problem.golden_tests] or [s.input for s in problem.samples]
        limits = Limits.of(problem)
        rows = run_programs(sandbox, programs, inputs, limits=limits)
        slow = {p for p in range(len(programs)) if any(row[p].verdict is Verdict.TLE for row in rows)}
        out.append(([p for i, p in enumerate(programs) if i not in slow], inputs, limits))
    return out


def throughput(sandbox: Sandbox, work) -> float:
    started = time.perf_counter()
    runs = 0
    for programs, inputs, limits in work:
        run_programs(sandbox, programs, inputs, limits=limits)
        runs += len(programs) * len(inputs)
    return runs / (time.perf_counter() - started)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--trivial", type=int, default=400, help="runs of the trivial program per round")
    ap.add_argument("--problems", default="zm01,zm09")
    ap.add_argument("--address", default=None, help="a Ray cluster (default: a private instance here)")
    opts = ap.parse_args()
    cores = os.cpu_count() or 1

    with Sandbox() as local:
        workloads = {"trivial": trivial(opts.trivial), "hackrate": hackrate(local, opts.problems.split(","))}
        print(f"cores: {cores}; load average {os.getloadavg()[0]:.1f}; isolation: {local.isolation_level}")
        for name, work in workloads.items():
            shapes = ", ".join(f"{len(p)} programs x {len(i)} inputs" for p, i, _ in work)
            print(f"workload {name}: {sum(len(p) * len(i) for p, i, _ in work)} runs per round ({shapes})")

        t = time.perf_counter()
        import ray  # noqa: F401 - timed: what --executor ray costs before anything runs
        imported = time.perf_counter() - t
        t = time.perf_counter()
        with open_cluster(ExecutionOptions(executor="ray", address=opts.address)) as cluster:
            started = time.perf_counter() - t
            from tczoo.distributed.ray_cluster import RayExecutor

            nodes = cluster.pool.alive()
            print(f"ray {ray.__version__}: import {imported:.1f} s, cluster + {len(nodes)} node actor(s) "
                  f"{started:.1f} s; {sum(n.workers for n in nodes)} slots, chunk {cluster.executor.chunk}")
            per_job = Sandbox(executor=RayExecutor(cluster.ray, cluster.pool, chunk=1))
            boxes = {"local pool": local, "ray (chunks)": cluster.sandbox, "ray (a call per job)": per_job}
            for work in workloads.values():
                throughput(cluster.sandbox, work)  # warm: every node compiles into its own cache
                throughput(local, work)
            best = {(w, b): 0.0 for w in workloads for b in boxes}
            for _ in range(opts.rounds):
                for w, work in workloads.items():
                    for b, box in boxes.items():
                        best[w, b] = max(best[w, b], throughput(box, work))
            per_job.close()
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    for w in workloads:
        base = best[w, "local pool"]
        for b in boxes:
            rate = best[w, b]
            print(f"{w:9s} {b:22s} {rate:8.1f} runs/s   x{rate / base:.2f} of the local pool")


if __name__ == "__main__":
    main()

"""``tczoo benchmarks --check`` at scale: every package's submissions in one pool (what
--check does) against one package after another (the baseline: each package's own pool,
as the check ran before issue 48), in the same process, on the same warm compile cache.

    .venv/bin/python bench/bench_kattis_check.py /work/shared/data/kattis [-p brentering,eszett] [--rounds 1]

Prints, per strategy and round, the wall seconds, the CPU seconds of every run (the
slots' cgroup counters: programs, workers, validators) and of this process, the runs
made, and the ratio of the baselines' wall to the pool's. The load average is printed
too: on a shared machine the wall time is mostly other people's; the CPU seconds are
the work itself.
"""

from __future__ import annotations

import argparse
import os
import time

from tczoo.benchmarks.kattis import load_scan
from tczoo.benchmarks.kattis.check import _check, check_problem
from tczoo.sandbox import Sandbox


def slot_cpu_s(box: Sandbox) -> float:
    return sum(max(0, s.groups.cpu_ns()) for s in box._pool.slots if s.groups) / 1e9


def measure(box: Sandbox, label: str, fn) -> tuple[float, float, int]:
    runs_before = slot_cpu_s(box)
    host = time.process_time()
    start = time.monotonic()
    reports = fn()
    wall = time.monotonic() - start
    cpu = slot_cpu_s(box) - runs_before
    host = time.process_time() - host
    runs = sum(len(s.tests) for r in reports for s in r.submissions)
    bad = sum(r.mismatches for r in reports)
    print(f"{label:10s} wall {wall:7.1f} s  run CPU {cpu:7.1f} s  host CPU {host:6.1f} s  runs {runs:5d}  "
          f"mismatches {bad}  load {os.getloadavg()[0]:.1f}", flush=True)
    return wall, cpu, runs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("path")
    ap.add_argument("-p", "--problems", default="")
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    only = [p for p in args.problems.split(",") if p] or None
    with Sandbox() as box:
        problems = [p for p in load_scan(args.path, sandbox=box, only=only).problems
                    if not only or any(p.id.startswith(q) for q in only)]
        print(f"{len(problems)} package(s), {sum(len(p.solutions) + len(p.wrong_solutions) for p in problems)} "
              f"submissions; compiling (not timed)", flush=True)
        for p in problems:
            for program in [*p.solutions, *p.wrong_solutions]:
                box.compile(program)
        for r in range(args.rounds):
            base = measure(box, f"one by one", lambda: [check_problem(p, box) for p in problems])
            pool = measure(box, f"one pool", lambda: _check(problems, box))
            print(f"round {r + 1}: one pool / one by one: wall {pool[0] / base[0]:.2f}x, "
                  f"run CPU {pool[1] / max(base[1], 1e-9):.2f}x", flush=True)


if __name__ == "__main__":
    main()

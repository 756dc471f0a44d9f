"""HackRate's early exit: executions and time saved against the full code x test matrix.

    python bench/bench_hackrate.py [--problems zm01,zm02] [--tests golden|samples]

For each zoo-mini problem, the golden tests play the part of a (perfect) generated
suite. The runner's round-by-round early exit is timed against running every wrong code
on every valid test, in the same process and over the same sandbox; the script prints
executions avoided and the wall-time ratio.
"""

from __future__ import annotations

import argparse
import time

from tczoo.runners.hackrate import HackRateRunner
from tczoo.benchmarks import load_benchmark
from tczoo.runner import TaskSpec
from tczoo.sandbox import Job, Sandbox
from tczoo.schema import Oracle, OracleKind, Provenance, TestCase, TestSuite


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--problems", default=None)
    args = ap.parse_args()
    ids = args.problems.split(",") if args.problems else None
    with Sandbox() as sandbox:
        problems = load_benchmark("zoo-mini", ids, sandbox=sandbox)
        runner = HackRateRunner(sandbox, scale=None)  # every valid test
        tot_exec = tot_full = 0
        t_early = t_full = 0.0
        print(f"{'problem':28} {'tests':>5} {'wrong':>5} {'exec':>6} {'full':>6} {'saved':>6} {'t_early':>8} {'t_full':>8}")
        for p in problems:
            suite = TestSuite(problem_id=p.id, tests=[TestCase(input=t.input, output=t.output) for t in p.golden_tests],
                              oracle=Oracle(kind=OracleKind.EXPECTED_OUTPUT), provenance=Provenance(method="golden"))
            judged, _ = runner.validate(p, suite)
            valid = [(suite.tests[j.index].input, j.expected) for j in judged if j.valid]
            start = time.perf_counter()
            _, executions = runner.hack(p, valid)
            early = time.perf_counter() - start
            limits = runner.wrong_code_limits(p)
            jobs = [Job(program=w, stdin=i, expected=o, comparator=p.checker, limits=limits)
                    for w in p.wrong_solutions for i, o in valid]
            start = time.perf_counter()
            for _ in sandbox.run_many(jobs):
                pass
            full = time.perf_counter() - start
            tot_exec += executions
            tot_full += len(jobs)
            t_early += early
            t_full += full
            print(f"{p.id:28} {len(valid):5} {len(p.wrong_solutions):5} {executions:6} {len(jobs):6} "
                  f"{100 * (1 - executions / max(1, len(jobs))):5.0f}% {early:8.2f} {full:8.2f}")
        print(f"\ntotal: {tot_exec} of {tot_full} executions ({100 * (1 - tot_exec / max(1, tot_full)):.0f}% avoided); "
              f"wall time early-exit / full matrix = {t_early / max(t_full, 1e-9):.2f}x")


if __name__ == "__main__":
    main()

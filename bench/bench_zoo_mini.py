"""How long zoo-mini takes to load and to build into a TC-Bench benchmark (issue 33).

    python bench/bench_zoo_mini.py [--skip-cold] [--skip-build] [--data DIR]

Each figure runs in a fresh interpreter with an empty tczoo cache (``TCZOO_CACHE``, a
temporary directory: no compiled programs, no timings):

1. load, nothing derived yet: ``TCZOO_DATA`` empty too, so every golden input is
   generated and answered by the reference (what a machine's first load costs);
2. load, golden tests derived before (``TCZOO_DATA`` from step 1, or ``--data``): the
   issue's "from an empty cache" figure, target <= 10 s;
3. ``tczoo build-benchmark --benchmark zoo-mini`` from an empty cache (golden tests as
   in 2): every wrong and correct C/C++ code compiled and judged, target <= 120 s;
   and the same command again, its compiles and timings now cached.

Wall times on a shared machine grow with its load: the script prints the load average
beside each figure, and the CPU the run used (its own and everything it started:
generators, compilers, the jails and the programs they ran).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LOAD = "from tczoo.benchmarks import zoo_mini\nps = zoo_mini.load()\nprint(len(ps), sum(len(p.golden_tests) for p in ps))"


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{done.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout.strip()


def load_average() -> str:
    return "load %.1f %.1f %.1f" % os.getloadavg()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip-cold", action="store_true", help="skip step 1 (needs --data or a derived default)")
    ap.add_argument("--skip-build", action="store_true")
    ap.add_argument("--data", help="TCZOO_DATA holding derived golden tests (default: derive them in step 1)")
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-zoo-mini-") as tmp:
        tmp_path = Path(tmp)
        data = opts.data or str(tmp_path / "data")
        if opts.data is None and opts.skip_cold:
            data = os.environ.get("TCZOO_DATA", "")

        def env(cache: str) -> dict[str, str]:
            e = dict(os.environ, TCZOO_CACHE=str(tmp_path / cache))
            if data:
                e["TCZOO_DATA"] = data
            return e

        print(f"{sys.executable}; {os.cpu_count()} cores")
        if not opts.skip_cold:
            wall, cpu, out = timed([sys.executable, "-c", LOAD], env("cache-cold"))
            print(f"load, nothing derived:            {wall:7.1f} s wall, {cpu:6.1f} s CPU  ({out} tests; {load_average()})")
        wall, cpu, out = timed([sys.executable, "-c", LOAD], env("cache-empty"))
        print(f"load, empty cache (derived data): {wall:7.1f} s wall, {cpu:6.1f} s CPU  (target <= 10 s; "
              f"{load_average()})")
        if not opts.skip_build:
            cmd = [sys.executable, "-m", "tczoo.cli", "build-benchmark", "--benchmark", "zoo-mini",
                   "--out", str(tmp_path / "built.jsonl"), "-f", "json"]
            wall, cpu, _ = timed(cmd, env("cache-build"))
            print(f"build-benchmark, empty cache:     {wall:7.1f} s wall, {cpu:6.1f} s CPU  (target <= 120 s; "
                  f"{load_average()})")
            wall, cpu, _ = timed(cmd, env("cache-build"))
            print(f"build-benchmark, again:           {wall:7.1f} s wall, {cpu:6.1f} s CPU  ({load_average()})")


if __name__ == "__main__":
    main()

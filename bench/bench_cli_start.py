"""How long the command line takes to start, against bare ``import typer, rich, pydantic``.

    python bench/bench_cli_start.py [--repeat 7]

Each command runs in a fresh interpreter (what a user waits for); the baseline is timed
the same way in the same script run. Prints the median wall time of each and its ratio
to the baseline, and which heavy modules each command imported. ``tczoo methods`` is
timed with a warm and a cold method-metadata cache (a cold one imports every method).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HEAVY = ("ortools", "networkx", "pandas", "torch", "litellm", "numpy", "jinja2", "matplotlib")
PROBE = ("import sys, runpy\nsys.argv = ['tczoo', *{args!r}]\n"
         "try:\n    runpy.run_module('tczoo.cli', run_name='__main__')\nexcept SystemExit:\n    pass\n"
         "sys.stderr.write('HEAVY ' + ','.join(m for m in {heavy!r} if m in sys.modules) + '\\n')\n")


def timed(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    return time.perf_counter() - start


def heavy(args: list[str], env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE.format(args=args, heavy=HEAVY)], capture_output=True,
                          text=True, env=env)
    line = [x for x in done.stderr.splitlines() if x.startswith("HEAVY ")]
    return line[-1][6:] if line else "?"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    n = ap.parse_args().repeat
    env = dict(os.environ)
    base = [timed([sys.executable, "-c", "import typer, rich, pydantic"], env) for _ in range(n)]
    baseline = statistics.median(base)
    label = 'python -c "import typer, rich, pydantic"'
    print(f"{label:<42} {baseline:6.3f} s   1.00x")
    cases = [("tczoo --help", ["--help"]), ("tczoo methods (warm cache)", ["methods"]),
             ("tczoo methods -f json (warm)", ["methods", "-f", "json"])]
    for label, args in cases:
        timed([sys.executable, "-m", "tczoo.cli", *args], env)  # warm the metadata cache
        t = statistics.median(timed([sys.executable, "-m", "tczoo.cli", *args], env) for _ in range(n))
        print(f"{label:<42} {t:6.3f} s {t / baseline:6.2f}x   imports: {heavy(args, env) or '-'}")
    cold = []
    for _ in range(max(3, n // 2)):
        with tempfile.TemporaryDirectory() as cache:
            cold.append(timed([sys.executable, "-m", "tczoo.cli", "methods"], dict(env, TCZOO_CACHE=cache)))
    with tempfile.TemporaryDirectory() as cache:
        imported = heavy(["methods"], dict(env, TCZOO_CACHE=cache))
    t = statistics.median(cold)
    print(f"{'tczoo methods (cold cache)':<42} {t:6.3f} s {t / baseline:6.2f}x   imports: {imported or '-'}")


if __name__ == "__main__":
    main()

"""How long the command line takes to start, against bare ``import typer, rich, pydantic``.

    python bench/bench_cli_start.py [--repeat 7]

Each command runs in a fresh interpreter (what a user waits for): the ``tczoo`` console
script, as users run it — once replaying what it printed before (``tczoo.entry``), once
with that off (``TCZOO_CLI_REPLAY=0``: typer builds and renders); the baseline is timed
the same way in the same script run. Prints the median wall time of each and its ratio
to the baseline, and which heavy modules each command imported. ``tczoo methods`` is
timed with a warm and a cold method-metadata cache (a cold one imports every method).

Also timed: the floor any typer command line has, a two-command typer app with one
``--format`` option (``typer_floor``): typer >= 0.2x coerces every option value through a
pydantic ``TypeAdapter`` (``typer._adapters`` imports pydantic in full, and pydantic's
plugin loader ``importlib.metadata``), and renders help with ``typer.rich_utils``
(``rich.markdown``, ``rich.traceback``), none of which ``import typer, rich, pydantic``
loads (pydantic's top-level import is lazy). Each tczoo figure is printed against that
floor too.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEAVY = ("ortools", "networkx", "pandas", "torch", "litellm", "ray", "numpy", "jinja2", "matplotlib", "datasets",
         "sentence_transformers", "llama_cpp")
FLOOR_APP = """import sys, typer
app = typer.Typer(add_completion=False)
@app.command()
def methods(fmt: str = typer.Option("table", "--format", "-f")):
    print(fmt)
@app.command()
def other(n: int = 1):
    pass
try:
    app(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
"""
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
    print(f"{label:<42} {baseline:6.3f} s   1.00x  (target for tczoo: <= 1.5x)")
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(FLOOR_APP)
    floors = {}
    for label, args in (("typer_floor methods", ["methods"]), ("typer_floor --help", ["--help"])):
        floors[args[0]] = statistics.median(timed([sys.executable, f.name, *args], env) for _ in range(n))
        print(f"{label:<42} {floors[args[0]]:6.3f} s {floors[args[0]] / baseline:6.2f}x")
    os.unlink(f.name)
    cases = [("tczoo --help", ["--help"]), ("tczoo run --help", ["run", "--help"]),
             ("tczoo methods (warm cache)", ["methods"]), ("tczoo methods -f json (warm)", ["methods", "-f", "json"])]
    # The command users run: the console script (tczoo.entry), which prints help and the
    # listings again from a record when nothing they depend on changed; and the same
    # with that off (TCZOO_CLI_REPLAY=0: typer builds and renders every time).
    script = str(Path(sys.executable).with_name("tczoo"))
    for replay in ("1", "0"):
        run_env = dict(env, TCZOO_CLI_REPLAY=replay)
        print(f"-- the tczoo command, {'replaying what it printed before' if replay == '1' else 'replay off'}")
        for label, args in cases:
            timed([script, *args], run_env)  # warm the metadata cache and the record
            t = statistics.median(timed([script, *args], run_env) for _ in range(n))
            floor = floors["--help" if "--help" in args else "methods"]
            print(f"{label:<42} {t:6.3f} s {t / baseline:6.2f}x  {t / floor:5.2f}x floor   "
                  f"imports: {heavy(args, env) or '-'}")
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

"""How long the command line takes to start, against bare ``import typer, rich, pydantic``.

    python bench/bench_cli_start.py [--repeat 9] [--instructions]

Every command runs as users run it: the ``tczoo`` console script in a fresh interpreter,
each time with a fresh, empty ``TCZOO_CACHE`` (a first run: nothing is kept between
runs, and the CLI keeps no output anyway). The commands and the baseline are
interleaved, one round after another in the same script run, so a busy machine slows
them alike; the figure is each one's median against the baseline's, in wall time and in
CPU time (the child's user + system time, which other jobs on the machine disturb
less). The load average is printed before and after.

Also timed, as the same kind of figure: the floor any typer command line has
(``typer_floor``), a two-command typer app — its ``--help`` (typer renders help with
``typer.rich_utils``, which imports ``rich.markdown``, ``markdown_it`` and
``rich.traceback``), one command's ``--help`` and one command with an option (typer >=
0.2x coerces every option value through a pydantic ``TypeAdapter``: ``typer._adapters``
imports pydantic in full, and its plugin loader ``importlib.metadata``). ``import typer,
rich, pydantic`` loads none of them (pydantic's top-level import is lazy). Each tczoo
figure is printed against its floor too: the distance that is tczoo's own.

``--instructions`` also counts the instructions each command executes once, under
valgrind's callgrind (about 50x slower, and indifferent to what else the machine runs):
the same ratios, free of the load.
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
         "sentence_transformers", "llama_cpp", "tczoo.method", "tczoo.schema")
FLOOR_APP = """import sys, typer
app = typer.Typer(add_completion=False)
@app.command()
def methods(fmt: str = typer.Option("table", "--format", "-f", help="table or json")):
    \"\"\"List something.\"\"\"
    print(fmt)
@app.command()
def other(n: int = 1):
    \"\"\"Do something else.\"\"\"
try:
    app(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
"""
PROBE = ("import sys\nsys.argv = ['tczoo', *{args!r}]\nfrom tczoo.cli import main\n"
         "try:\n    main()\nexcept SystemExit:\n    pass\n"
         "sys.stderr.write('HEAVY ' + ','.join(m for m in {heavy!r} if m in sys.modules) + '\\n')\n")
TARGETS = {"tczoo --help": 1.5, "tczoo run --help": 1.5, "tczoo methods": 2.5, "tczoo methods -f json": 2.5}


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) of one run."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def heavy(args: list[str], env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE.format(args=args, heavy=HEAVY)], capture_output=True,
                          text=True, env=env)
    line = [x for x in done.stderr.splitlines() if x.startswith("HEAVY ")]
    return (line[-1][6:] or "-") if line else "?"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--instructions", action="store_true", help="also count instructions with valgrind")
    args = ap.parse_args()
    n = args.repeat
    script = str(Path(sys.executable).with_name("tczoo"))
    scratch = Path(tempfile.mkdtemp(prefix="bench-cli-"))
    floor = scratch / "floor.py"
    floor.write_text(FLOOR_APP)
    env = dict(os.environ)
    cases: dict[str, tuple[list[str], str | None]] = {
        'python -c "import typer, rich, pydantic"': ([sys.executable, "-c", "import typer, rich, pydantic"], None),
        "typer_floor --help": ([sys.executable, str(floor), "--help"], None),
        "typer_floor methods --help": ([sys.executable, str(floor), "methods", "--help"], None),
        "typer_floor methods": ([sys.executable, str(floor), "methods"], None),
        "tczoo --help": ([script, "--help"], "typer_floor --help"),
        "tczoo run --help": ([script, "run", "--help"], "typer_floor methods --help"),
        "tczoo methods": ([script, "methods"], "typer_floor methods"),
        "tczoo methods -f json": ([script, "methods", "-f", "json"], "typer_floor methods"),
    }
    try:
        measure(cases, n, env, scratch)
        if args.instructions:
            instructions(cases, env, scratch)
    finally:
        import shutil

        shutil.rmtree(scratch, ignore_errors=True)


def measure(cases: dict[str, tuple[list[str], str | None]], n: int, env: dict[str, str], scratch: Path) -> None:
    wall: dict[str, list[float]] = {k: [] for k in cases}
    cpu: dict[str, list[float]] = {k: [] for k in cases}
    load_before = os.getloadavg()
    for round_ in range(n + 1):
        for label, (cmd, _) in cases.items():
            cache = scratch / f"cache-{round_}-{list(cases).index(label)}"
            w, c = timed(cmd, dict(env, TCZOO_CACHE=str(cache)))  # a fresh, empty cache every run
            if round_:  # the first round warms the file system cache and the bytecode
                wall[label].append(w)
                cpu[label].append(c)
    load_after = os.getloadavg()
    base = next(iter(cases))
    bw, bc = statistics.median(wall[base]), statistics.median(cpu[base])
    print(f"load average before {load_before[0]:.1f} {load_before[1]:.1f} {load_before[2]:.1f}, "
          f"after {load_after[0]:.1f} {load_after[1]:.1f} {load_after[2]:.1f} ({os.cpu_count()} CPUs); "
          f"median of {n} interleaved runs, each with a fresh TCZOO_CACHE")
    print(f"{'':<42} {'wall':>7} {'x base':>7} {'cpu':>7} {'x base':>7} {'x floor (wall/cpu)':>19} {'target':>7}  imports")
    for label, (cmd, floor_of) in cases.items():
        w, c = statistics.median(wall[label]), statistics.median(cpu[label])
        against = ""
        if floor_of:
            against = f"{w / statistics.median(wall[floor_of]):.2f} / {c / statistics.median(cpu[floor_of]):.2f}"
        target = f"<= {TARGETS[label]}" if label in TARGETS else ""
        imported = heavy(cmd[1:], dict(env, TCZOO_CACHE=str(scratch / "probe"))) if label.startswith("tczoo") else ""
        print(f"{label:<42} {w:6.3f}s {w / bw:6.2f}x {c:6.3f}s {c / bc:6.2f}x {against:>19} {target:>7}  {imported}")


def instructions(cases: dict[str, tuple[list[str], str | None]], env: dict[str, str], scratch: Path) -> None:
    import re
    import shutil

    if shutil.which("valgrind") is None:
        print("instructions: valgrind is not installed")
        return
    counts = {}
    for i, (label, (cmd, _)) in enumerate(cases.items()):
        if cmd[0] != sys.executable:  # the console script: run by this interpreter, as its #! line says
            cmd = [sys.executable, *cmd]
        done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
                              capture_output=True, text=True, env=dict(env, TCZOO_CACHE=str(scratch / f"ir-{i}")))
        found = re.search(r"Collected\s*:\s*(\d+)", done.stderr)
        counts[label] = int(found.group(1)) if found else None
    base = next(iter(counts.values()))
    print("instructions (callgrind, one run each)")
    for label, (_, floor_of) in cases.items():
        c = counts[label]
        if c is None or not base:
            print(f"{label:<42} ?")
            continue
        against = f"{c / counts[floor_of]:.2f}x floor" if floor_of and counts.get(floor_of) else ""
        print(f"{label:<42} {c / 1e6:8.0f} M {c / base:6.2f}x  {against}")


if __name__ == "__main__":
    main()

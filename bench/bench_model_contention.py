"""The embedded model beside other work (issue 33, item 5). A script, not a test.

    flock /tmp/tczoo-model.lock python bench/bench_model_contention.py [--tokens 64] [--rounds 2]
        [--variant NAME=ENV,ENV ...] [--quickstart] [--only-quickstart]

llama.cpp's CPU threads meet at a barrier after every operation of the graph (hundreds
per token). When another process holds one of the cores, a thread that reaches the
barrier waits for one that is descheduled, spinning (libgomp's default) while the
other cannot run: the model slows far beyond its fair share of the machine.

For each variant (environment settings for the model process), measured side by side
in this one run:

1. alone: prefill of a fresh ~700-token prompt (s) and decoding speed (tok/s, one
   sequence, ``--tokens`` tokens);
2. beside two busy processes (two CPU-bound loops, as a test suite or a compile
   would be): the same, and the slowdown against 1;
3. two model processes at once (each its own engine, as two tczoo runs would be):
   both must progress; their decoding speeds.

``--quickstart`` also runs the README quickstart (``tczoo run --method crux --problems
zm01,zm03,zm04`` from an empty cache) alone and beside two busy loops, with tczoo's
default settings, and prints the ratio (target <= 2.5x). It takes minutes.
``--only-quickstart`` runs that alone, without the variants.

The variants default to: ``spin`` (libgomp's default waiting, every core a thread: tczoo
before issue 33), ``tczoo`` (what tczoo now sets: see docs/local-model.md), and a few
alternatives. On a machine busy with other work the "alone" figures are not quiet
ones; the script prints the load average beside each.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CHILD = """
import json, os, sys, time
from tczoo.llm.local.engine import EngineConfig, Request, engine_for
from tczoo.llm.local.gguf import embedded_model_path
tokens, rounds, salt = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
statement = "\\n\\n".join(p.read_text() for p in sorted(
    __import__("pathlib").Path(sys.argv[4]).glob("*/statement.md")))[:2600]
engine = engine_for(embedded_model_path(), EngineConfig.from_env())
long = [{"role": "user", "content": "List the integers from 1 to 400 in words, one per line, with no other text."}]
engine.submit(Request(messages=long, temperature=0.8, max_tokens=2, stop=[], seed=1, grammar=None)).result()
out = {"threads": engine.config.n_threads if hasattr(engine, "config") else None, "prefill_s": [], "tok_s": []}
for r in range(rounds):
    messages = [{"role": "system", "content": f"You write test cases. Run {salt}-{r}-{time.time()}."},
                {"role": "user", "content": statement + "\\n\\nWrite one test case."}]
    start = time.perf_counter()
    engine.submit(Request(messages=messages, temperature=0.0, max_tokens=1, stop=[], seed=0, grammar=None)).result()
    out["prefill_s"].append(time.perf_counter() - start)
    start = time.perf_counter()
    a = engine.submit(Request(messages=long, temperature=0.8, max_tokens=tokens, stop=[], seed=100 + r,
                              grammar=None)).result()
    out["tok_s"].append(a.completion_tokens / (time.perf_counter() - start))
engine.close()
print(json.dumps(out))
"""
BUSY = "while True:\n    pass\n"


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def start_child(env: dict[str, str], tokens: int, rounds: int, salt: str) -> subprocess.Popen:
    problems = REPO / "tczoo" / "benchmarks" / "zoo_mini" / "problems"
    return subprocess.Popen([sys.executable, "-c", CHILD, str(tokens), str(rounds), salt, str(problems)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen) -> dict:
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise SystemExit(f"model process failed: {err[-2000:]}")
    return json.loads(out.strip().splitlines()[-1])


class Busy:
    """Two CPU-bound loops, for the length of a ``with``."""

    def __enter__(self):
        self.procs = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(2)]
        time.sleep(0.5)
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            p.kill()
            p.wait()


def summary(r: dict) -> str:
    return f"prefill {statistics.median(r['prefill_s']):6.2f} s, decode {statistics.median(r['tok_s']):5.1f} tok/s"


def quickstart_wall(env: dict[str, str]) -> float:
    from tczoo.llm.local.gguf import EMBEDDED_FILE, embedded_model_path

    gguf = embedded_model_path()
    root = Path(tempfile.mkdtemp(prefix="tczoo-quickstart-"))
    try:
        models = root / "cache" / "models"
        models.mkdir(parents=True)
        (models / EMBEDDED_FILE).symlink_to(gguf)
        shutil.copy(gguf.with_suffix(".verified"), models / gguf.with_suffix(".verified").name)
        tczoo = Path(sys.executable).with_name("tczoo")
        start = time.perf_counter()
        proc = subprocess.run([str(tczoo), "run", "--method", "crux", "--problems", "zm01,zm03,zm04",
                               "--out", str(root / "run")], env=dict(env, TCZOO_CACHE=str(root / "cache")),
                              cwd=REPO, stdout=subprocess.PIPE, text=True)  # its progress: on our stderr
        if proc.returncode != 0:
            raise SystemExit(f"quickstart failed (exit {proc.returncode}; its output above)")
        print(proc.stdout.strip(), flush=True)  # the table
        return time.perf_counter() - start
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--variant", action="append", default=[],
                    help="NAME=VAR=VALUE,VAR=VALUE (repeatable); replaces the default variants")
    ap.add_argument("--quickstart", action="store_true")
    ap.add_argument("--only-quickstart", action="store_true", help="the quickstart pair, no variants")
    opts = ap.parse_args()
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("OMP_", "GOMP_", "TCZOO_LOCAL_THREADS", "TCZOO_LOCAL_WAIT"))}
    variants = {
        "spin (before)": {"TCZOO_LOCAL_WAIT": "spin"},
        "tczoo (now)": {},
        "passive": {"TCZOO_LOCAL_WAIT": "passive"},
        "passive, 1 thread": {"TCZOO_LOCAL_WAIT": "passive", "TCZOO_LOCAL_THREADS": "1"},
    }
    if opts.variant:
        variants = {}
        for spec in opts.variant:
            name, _, rest = spec.partition("=")
            variants[name] = dict(kv.split("=", 1) for kv in rest.split(",") if kv)
    print(f"{os.cpu_count()} cores; load before: {load()}")
    for name, extra in ({} if opts.only_quickstart else variants).items():
        env = dict(base, **extra)
        alone = finish(start_child(env, opts.tokens, opts.rounds, "alone"))
        load_alone = load()
        with Busy():
            busy = finish(start_child(env, opts.tokens, opts.rounds, "busy"))
            load_busy = load()
        a, b = start_child(env, opts.tokens, opts.rounds, "a"), start_child(env, opts.tokens, opts.rounds, "b")
        pair = [finish(a), finish(b)]
        slow_decode = statistics.median(alone["tok_s"]) / statistics.median(busy["tok_s"])
        slow_prefill = statistics.median(busy["prefill_s"]) / statistics.median(alone["prefill_s"])
        print(f"\n{name} {extra or ''}")
        print(f"  alone:              {summary(alone)}   (load {load_alone})")
        print(f"  beside 2 busy loops: {summary(busy)}   slowdown: prefill {slow_prefill:.2f}x, "
              f"decode {slow_decode:.2f}x   (load {load_busy})")
        print(f"  two model jobs:     A {summary(pair[0])} | B {summary(pair[1])}")
    if opts.quickstart or opts.only_quickstart:
        env = dict(base)
        quiet = quickstart_wall(env)
        load_q = load()
        with Busy():
            busy = quickstart_wall(env)
            load_b = load()
        print(f"\nquickstart (tczoo defaults): alone {quiet:.0f} s (load {load_q}), beside 2 busy loops "
              f"{busy:.0f} s (load {load_b}): {busy / quiet:.2f}x (target <= 2.5x)")
    print(f"\nload after: {load()}")


if __name__ == "__main__":
    main()

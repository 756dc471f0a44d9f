"""What one case per process costs a checker (issue 42 item 2). A script, not a test.

    python bench/bench_checkers.py [--cases 200] [--rounds 5] [--workers N]

Untrusted code that judges (HarnessLLM's ``check_output``, a special judge, a model-
written input validator) runs each case in a sandboxed process of its own
(``tczoo.execution.oracle.check_with_checker``). Before, up to 40 cases shared one
process (``batched_checks`` below: the old driver, kept here as the baseline). Measured
in the same process on the same sandbox, rounds interleaved so that load hits both
alike, medians over rounds, for three checkers:

- ``trivial``: asserts on the output's first token;
- ``reference``: HarnessLLM's habit, a brute force (zm01's heap greedy) recomputing the
  answer from the input;
- ``validator``: a model-written ``validate_input`` (``validate_inputs``' wrapper).

Per case: the wall time of the whole call (all the sandbox's workers busy), and the CPU
time the sandbox measured in the checkers' processes. The floor of one process per case
is a bare interpreter start in the same sandbox (``pass``, measured the same way): the
new path's cost per case should be that plus the checker's own work.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from tczoo.execution.calls import with_prelude
from tczoo.execution.oracle import Check, check_with_checker
from tczoo.execution.validate import _WRAPPER
from tczoo.sandbox import Job, Limits, PyCall, Sandbox, Verdict
from tczoo.schema import Language, Program

# --------------------------------------------------------------------------- the old batched path (baseline)

_OLD_TAIL = r'''


class _TczooAlarm(BaseException):
    pass


def _tczoo_check(pairs, limit_s, functional):
    import json, signal, traceback

    def alarm(*_):
        raise _TczooAlarm()

    results = []
    for given, captured, expected in pairs:
        signal.signal(signal.SIGPROF, alarm)
        signal.setitimer(signal.ITIMER_PROF, limit_s)
        try:
            check_output(given, captured)
            res = {"ok": True}
        except _TczooAlarm:
            res = {"ok": False, "kind": "timeout"}
        except AssertionError as e:
            res = {"ok": False, "kind": "assertion", "error": ("AssertionError: %s" % e)[:500]}
        except BaseException:
            res = {"ok": False, "kind": "crash", "error": traceback.format_exc()[-1500:]}
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        results.append(res)
    return results
'''


def batched_checks(sandbox: Sandbox, code: str, pairs: list[tuple[str, str]], *, time_ms: int = 5000,
                   batch: int = 40) -> tuple[list[Check], float]:
    """The old driver: up to ``batch`` distinct cases in one process, in the order given;
    (checks, CPU ms the processes used)."""
    unique = list(dict.fromkeys((i, o, None) for i, o in pairs))
    program = with_prelude(code) + _OLD_TAIL
    chunks = [unique[i:i + batch] for i in range(0, len(unique), batch)]
    calls = [PyCall(code=program, function="_tczoo_check", args=[[list(p) for p in c], time_ms / 1000, False],
                    limits=Limits(time_ms=time_ms * len(c) + 1000, wall_ms=2 * (time_ms * len(c) + 1000) + 2000,
                                  memory_mb=1024)) for c in chunks]
    verdicts, cpu = {}, 0.0
    for chunk, res in zip(chunks, sandbox.call_many(calls)):
        cpu += res.run.cpu_ms
        for p, r in zip(chunk, res.value if res.ok else [{"ok": False, "kind": "crash"}] * len(chunk)):
            verdicts[p] = Check(bool(r.get("ok")), r.get("kind", "pass"))
    return [verdicts[(i, o, None)] for i, o in pairs], cpu


# --------------------------------------------------------------------------- what is checked

REFERENCE = '''
import heapq

def _best(text):
    data = text.split()
    n = int(data[0])
    offers = sorted((int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n))
    kept = []
    for d, p in offers:
        if len(kept) < d:
            heapq.heappush(kept, p)
        elif kept[0] < p:
            heapq.heapreplace(kept, p)
    return sum(kept)

def check_output(generated_input, captured_output):
    assert int(captured_output.strip()) == _best(generated_input)
'''
TRIVIAL = "def check_output(generated_input, captured_output):\n    assert captured_output.split()[0] != 'x'\n"
VALIDATOR = ("def validate_input(text):\n    lines = text.split('\\n')\n    n = int(lines[0])\n"
             "    return 1 <= n <= 1000 and len(lines) >= n + 1\n") + _WRAPPER.format(function="validate_input")


def cases(n: int, seed: int) -> list[tuple[str, str]]:
    """n distinct zm01-shaped inputs (up to 50 offers) with their right answers."""
    import heapq

    rng = random.Random(seed)
    out = []
    for k in range(n):
        m = rng.randint(1, 50)
        offers = [(rng.randint(1, m), rng.randint(1, 10**6) + k) for _ in range(m)]
        kept: list[int] = []
        for d, p in sorted(offers):
            if len(kept) < d:
                heapq.heappush(kept, p)
            elif kept[0] < p:
                heapq.heapreplace(kept, p)
        text = f"{m}\n" + "".join(f"{d} {p}\n" for d, p in offers)
        out.append((text, f"{sum(kept)}\n"))
    return out


def one_per_case(sandbox: Sandbox, code: str, pairs: list[tuple[str, str]]) -> tuple[list[Check], float]:
    """The new path, and the CPU ms its processes used (read from the same runs)."""
    runs: list = []
    real = sandbox.run_many

    def counting(jobs, **kw):
        for r in real(jobs, **kw):
            runs.append(r)
            yield r

    sandbox.run_many = counting  # type: ignore[method-assign]
    try:
        checks = check_with_checker(sandbox, code, pairs, functional=False)
    finally:
        del sandbox.run_many
    return checks, sum(r.cpu_ms for r in runs)


def bare_starts(sandbox: Sandbox, n: int) -> tuple[list, float]:
    program = Program(code="pass\n", language=Language.PYTHON, name="bare")
    runs = list(sandbox.run_many([Job(program=program, stdin=str(i), limits=Limits(time_ms=2000))
                                  for i in range(n)]))
    assert all(r.verdict is Verdict.AC for r in runs)
    return runs, sum(r.cpu_ms for r in runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--workers", type=int, default=None)
    args = ap.parse_args()
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} (wall figures move with it)")
    with Sandbox(workers=args.workers) as sb:
        print(f"sandbox: {sb.workers} workers, {sb.isolation_level}")
        checkers = {"trivial": TRIVIAL, "reference": REFERENCE, "validator": VALIDATOR}
        for name, code in checkers.items():  # warm: compile caches, slots started
            pairs = cases(8, 0) if name != "validator" else [(i, "") for i, _ in cases(8, 0)]
            assert [c.ok for c in one_per_case(sb, code, pairs)[0]] == [c.ok for c in batched_checks(sb, code, pairs)[0]]
        bare_starts(sb, 8)
        n = args.cases
        figures: dict[str, dict[str, list[float]]] = {k: {"new": [], "old": [], "new_cpu": [], "old_cpu": []}
                                                      for k in checkers}
        bare_wall, bare_cpu = [], []
        for r in range(args.rounds):
            t = time.perf_counter()
            _, cpu = bare_starts(sb, n)
            bare_wall.append((time.perf_counter() - t) * 1000 / n)
            bare_cpu.append(cpu / n)
            for name, code in checkers.items():
                pairs = cases(n, 1 + r)
                if name == "validator":
                    pairs = [(i, "") for i, _ in pairs]
                order = [("new", one_per_case), ("old", batched_checks)]
                if r % 2:
                    order.reverse()
                results = {}
                for label, fn in order:
                    t = time.perf_counter()
                    checks, cpu = fn(sb, code, pairs)
                    figures[name][label].append((time.perf_counter() - t) * 1000 / n)
                    figures[name][f"{label}_cpu"].append(cpu / n)
                    results[label] = [c.ok for c in checks]
                assert results["new"] == results["old"], f"{name}: the two paths disagree"
        med = statistics.median
        print(f"\nper case, medians of {args.rounds} rounds of {n} distinct cases "
              f"(wall: the whole call over {sb.workers} workers; CPU: the checkers' processes)")
        print(f"{'checker':>10} {'old wall ms':>12} {'new wall ms':>12} {'new/old':>8} "
              f"{'old CPU ms':>11} {'new CPU ms':>11} {'new-bare CPU':>13}")
        for name, f in figures.items():
            ow, nw, oc, nc = med(f["old"]), med(f["new"]), med(f["old_cpu"]), med(f["new_cpu"])
            print(f"{name:>10} {ow:>12.2f} {nw:>12.2f} {nw / ow:>7.1f}x {oc:>11.2f} {nc:>11.2f} "
                  f"{nc - med(bare_cpu):>13.2f}")
        print(f"{'bare start':>10} {'':>12} {med(bare_wall):>12.2f} {'':>8} {'':>11} {med(bare_cpu):>11.2f}")
        print("\nnew-bare CPU: what the checker's process costs beyond a bare interpreter start in the sandbox "
              "(the driver, the prelude's imports, the checker's own work)")


if __name__ == "__main__":
    main()

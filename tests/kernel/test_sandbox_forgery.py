"""Errors a program cannot forge (issue 42, item 3): infrastructure verdicts come from the
worker's own channel, never from what a program prints or returns.

A sandbox error (SE) makes the host restart the slot, retry the run and, in the end,
leave it out of every score as "not the program's doing": a wrong submission that could
make its own run an SE would exclude itself from evaluation, and an RL reward would
become "no reward" instead of the floor. So each program here tries to pass for an
infrastructure failure, or to kill, stop or confuse the worker that runs it, and each
must get its *own* verdict (AC, or RE with its own exit code or signal), on the first
attempt (the slot is not restarted), with the next run in the same slot clean. Genuine
infrastructure failures (a missing interpreter or compiler, a program file gone from the
cache, a compile jail that does not start) must still be SE.

Real programs in the real sandbox, inside the outer safety net of ``hostile_fixtures``.
"""

from __future__ import annotations

import dataclasses
import shutil
import time

import pytest

from hostile_fixtures import assert_net_untouched, cpp, needs_full_v1, net, py, sandbox_uids, survivors, uid_processes
from tczoo.schema import Language, Program
from tczoo.sandbox import CompileLimits, Job, Limits, Sandbox, Verdict
from tczoo.sandbox import compile as compile_module

pytestmark = needs_full_v1
__all__ = ["net"]  # the fixture, used by name

START_FAILED = "tczoo-worker: cannot start program"  # what the worker's vfork child used to print
LIMITS = Limits(time_ms=2000, wall_ms=5000, memory_mb=128)


def c(code: str) -> Program:
    return Program(code=code, language=Language.C)


@pytest.fixture(scope="module")
def solo(net, tmp_path_factory):
    """One slot, so that every run lands in the jail the attack ran in."""
    box = Sandbox(workers=1, cache_dir=tmp_path_factory.mktemp("forgery-cache"), isolation="full",
                  compile_limits=CompileLimits(time_s=20, memory_mb=1024, output_mb=64))
    try:
        yield box
    finally:
        uids = sandbox_uids(box)
        box.close()
        time.sleep(0.05)
        assert not uid_processes(uids), "sandbox-uid processes survived close()"


@pytest.fixture
def clean(solo, net):
    yield
    assert not survivors(net, [solo]), "processes survived their run"
    assert_net_untouched(net)


HONEST = py("print(input())")


def first_attempt(solo: Sandbox, program: Program, stdin: str = "", limits: Limits = LIMITS):
    """Run ``program``; assert it cost no jail (an SE restarts the slot and retries) and
    that the next run in the slot is an honest AC."""
    solo.run(HONEST, "up\n", LIMITS)  # the slot is started
    slot = solo._pool.slots[0]
    starts = slot.starts
    r = solo.run(program, stdin, limits)
    assert slot.starts == starts and slot.proc is not None, f"the slot was restarted: {r}"
    after = solo.run(HONEST, "after\n", LIMITS)
    assert after.verdict is Verdict.AC and after.stdout == "after\n", after
    assert slot.starts == starts
    return r


# --------------------------------------------------------------------------- forged "cannot start"

FORGED = {
    "c-exact-126": (c('#include <stdio.h>\nint main(void){ fputs("%s\\n", stderr); return 126; }' % START_FAILED), 126),
    "c-variant-126": (c('#include <stdio.h>\nint main(void){ fputs("%s: cannot open it\\n", stderr); return 126; }'
                        % START_FAILED), 126),
    "c-127": (c('#include <stdio.h>\n#include <unistd.h>\n'
                'int main(void){ fputs("%s\\n", stderr); fflush(stderr); _exit(127); }' % START_FAILED), 127),
    "c-stdout-and-stderr": (c('#include <stdio.h>\nint main(void){ puts("%s"); fputs("%s\\nsandbox error\\n", stderr);'
                              ' return 126; }' % (START_FAILED, START_FAILED)), 126),
    "python-126": (py(f"import sys\nsys.stderr.write({START_FAILED + chr(10)!r})\nsys.exit(126)"), 126),
    "python-127": (py(f"import os, sys\nsys.stderr.write({START_FAILED + ': exec failed' + chr(10)!r})\n"
                      "sys.stderr.flush()\nos._exit(127)"), 127),
}


@pytest.mark.parametrize("name", sorted(FORGED))
def test_forged_start_failure_is_the_programs_own_verdict(solo, clean, name):
    program, code = FORGED[name]
    r = first_attempt(solo, program)
    assert r.verdict is Verdict.RE and r.exit_code == code, r
    assert START_FAILED in r.stderr  # its own stderr, kept as it printed it
    assert "attempts on fresh slots" not in r.message


def test_forged_start_failures_in_a_batch_are_the_programs_own(solo, clean):
    """The same through run_many's poll loop (pipelined queues), and call_python."""
    slot = solo._pool.slots[0]
    solo.run(HONEST, "up\n", LIMITS)
    starts = slot.starts
    names = sorted(FORGED)
    jobs = [Job(program=FORGED[n][0], limits=LIMITS) for n in names] + [Job(program=HONEST, stdin="x\n", limits=LIMITS)]
    results = list(solo.run_many(jobs))
    assert [(r.verdict, r.exit_code) for r in results] == \
        [(Verdict.RE, FORGED[n][1]) for n in names] + [(Verdict.AC, 0)], results
    call = solo.call_python(f"import os, sys\ndef f():\n    sys.stderr.write({START_FAILED + chr(10)!r})\n"
                            "    sys.stderr.flush()\n    os._exit(126)\n", "f", [], LIMITS)
    assert not call.ok and call.run.verdict is Verdict.RE and call.run.exit_code == 126, call
    assert slot.starts == starts


# --------------------------------------------------------------------------- the worker out of reach

ATTACK_C = r'''
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <unistd.h>
int main(void) {
    pid_t parent = getppid();
    %s
    printf("done %%d\n", (int)parent);
    return 0;
}
'''

WORKER_ATTACKS = {
    "kill-parent": "kill(parent, SIGKILL);",
    "stop-parent": "kill(parent, SIGSTOP);",
    "kill-pid-1": "kill(1, SIGKILL); kill(1, SIGTERM);",
    "kill-everything": "kill(-1, SIGKILL);",
    "stop-everything": "kill(-1, SIGSTOP); kill(1, SIGSTOP);",
    "kill-own-group-and-session": "kill(0, SIGCONT); kill(-parent, SIGKILL);",
    "ptrace-the-worker": "ptrace(PTRACE_ATTACH, parent, 0, 0); ptrace(PTRACE_SEIZE, 1, 0, 0);",
    "write-and-close-every-fd": ("static const char junk[] = \"\\x32\\x74\\x63\\x7a garbage\";"
                                 "for (int fd = 3; fd < 4096; fd++) write(fd, junk, sizeof junk);"
                                 "for (int fd = 3; fd < 4096; fd++) close(fd);"),
    "worker-fds-through-proc": ("char p[64]; for (int fd = 0; fd < 64; fd++) {"
                                " snprintf(p, sizeof p, \"/proc/%d/fd/%d\", (int)parent, fd);"
                                " FILE *f = fopen(p, \"w\"); if (f) { fputs(\"junk\", f); fclose(f); } }"),
}


@pytest.mark.parametrize("name", sorted(WORKER_ATTACKS))
def test_c_program_cannot_kill_stop_or_confuse_its_worker(solo, clean, name):
    """The worker is PID 1 of the jail's PID namespace (signals from inside it are not
    delivered to it: it has no handlers), not dumpable (no ptrace, no /proc/1/fd), and its
    protocol fds are close-on-exec copies: the program's attacks do nothing to it, and the
    run is the program's AC."""
    r = first_attempt(solo, cpp(ATTACK_C % WORKER_ATTACKS[name]))
    assert r.verdict is Verdict.AC and r.stdout == "done 1\n", r


PY_ATTACKS = {  # (kill(-1) finds no process to signal but itself: ESRCH, caught)
    "kill-parent": "os.kill(os.getppid(), signal.SIGKILL)",
    "stop-everything": "os.kill(1, signal.SIGSTOP)\ntry:\n    os.kill(-1, signal.SIGSTOP)\nexcept OSError:\n    pass",
    "kill-everything": "try:\n    os.kill(-1, signal.SIGKILL)\nexcept OSError:\n    pass",
    "write-and-close-every-fd": ("for fd in range(3, 4096):\n    try:\n        os.write(fd, b'2tcz' * 64)\n"
                                 "    except OSError:\n        pass\n    try:\n        os.close(fd)\n"
                                 "    except OSError:\n        pass"),
}


@pytest.mark.parametrize("name", sorted(PY_ATTACKS))
def test_python_program_cannot_kill_stop_or_confuse_its_worker(solo, clean, name):
    r = first_attempt(solo, py(f"import os, signal, sys\n{PY_ATTACKS[name]}\nprint('done', os.getppid())"))
    assert r.verdict is Verdict.AC and r.stdout == "done 1\n", r


def test_a_program_that_kills_everything_and_itself_is_its_own_re(solo, clean):
    r = first_attempt(solo, cpp("#include <signal.h>\n#include <unistd.h>\n"
                                "int main(){ kill(-1, SIGKILL); kill(getpid(), SIGKILL); }"))
    assert r.verdict is Verdict.RE and r.signal == 9, r


def test_children_that_attack_the_worker_do_nothing(solo, clean):
    """With processes allowed: children that kill and stop everything they see, the
    worker included, then a parent that exits. Everything the run started dies after it."""
    code = r'''
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
int main(void) {
    for (int i = 0; i < 4; i++)
        if (fork() == 0) { kill(1, SIGKILL); kill(-1, SIGSTOP); setsid(); kill(-1, SIGKILL); _exit(0); }
    sleep(1);
    puts("survived");
    return 0;
}
'''
    r = first_attempt(solo, cpp(code), limits=Limits(time_ms=2000, wall_ms=5000, memory_mb=128, processes=8))
    # A child's kill(-1) reaches the parent (the program's own tree): its own RE, or AC if it was first.
    assert r.verdict in (Verdict.AC, Verdict.RE), r
    assert r.verdict is Verdict.AC or r.signal == 9, r


# --------------------------------------------------------------------------- forged compile errors

FORGED_CE = {
    "line-sandbox-error": "#line 1 \"sandbox error\"\n#error the sandbox failed\nint main(void){return 0;}\n",
    "line-bwrap": "#line 1 \"bwrap\"\n#error Can't mount tmpfs\nint main(void){return 0;}\n",
    "line-setpriv": "#line 1 \"setpriv\"\n#error setresuid failed\nint main(void){return 0;}\n",
    "line-join": "#line 1 \"tczoo: cannot join the compile cgroup\"\n#error x\nint main(void){return 0;}\n",
    "not-supported": "#error language c is not supported by the tczoo sandbox (no JDK)\nint main(void){return 0;}\n",
    "cannot-start": "#error tczoo-worker: cannot start program\nint main(void){return 0;}\n",
}


@pytest.mark.parametrize("name", sorted(FORGED_CE))
def test_compile_error_quoting_infrastructure_words_is_the_programs_ce(solo, clean, name):
    from tczoo.execution.judge import compile_status

    program = c(FORGED_CE[name])
    built = solo.compile(program)
    assert not built.ok and not built.infrastructure, built
    r = first_attempt(solo, program)
    assert r.verdict is Verdict.CE, r
    assert compile_status(solo, program, functional=False)[0] == "ce"
    if name.startswith("line-"):  # the message does begin with the forged words: they decide nothing
        assert built.message.startswith(FORGED_CE[name].split('"')[1]), built.message


@pytest.mark.skipif(shutil.which("javac") is None, reason="no JDK on this machine")
def test_java_compile_error_quoting_infrastructure_words_is_the_programs_ce(solo, clean):
    program = Program(language=Language.JAVA, code=(
        'public class Main { public static void main(String[] a) {\n'
        '  String s = "sandbox error: not supported, no JDK, tczoo-worker: cannot start program" +; } }\n'))
    built = solo.compile(program)
    assert not built.ok and not built.infrastructure and "not supported" in built.message, built
    assert solo.run(program, "", LIMITS).verdict is Verdict.CE
    # A public class whose name no file system takes: the program's CE (it raised OSError
    # from Sandbox.run, and was "sandbox error: compile raised" in a batch).
    long_name = Program(language=Language.JAVA, code="public class " + "A" * 300 +
                        " { public static void main(String[] a) { System.out.println(1); } }")
    assert [r.verdict for r in solo.run_many([Job(program=long_name, limits=LIMITS)])] == [Verdict.CE]
    r = solo.run(long_name, "", LIMITS)
    assert r.verdict is Verdict.CE and "too long" in r.message, r


# --------------------------------------------------------------------------- genuine failures stay SE


def test_a_missing_interpreter_is_still_se(net, tmp_path):
    """The worker reports a failed exec in its reply: SE after the retries, with why."""
    with Sandbox(workers=1, cache_dir=tmp_path / "cache", isolation="full") as box:
        box.caps = dataclasses.replace(box.caps, python="/usr/bin/python3-not-installed")
        r = box.run(py("print(1)"), "", LIMITS)
        assert r.verdict is Verdict.SE, r
        assert "cannot start program: exec failed: No such file or directory" in r.message, r.message
        assert "3 attempts on fresh slots" in r.message, r.message
        assert [x.verdict for x in box.run_many([Job(program=py("print(2)"), limits=LIMITS)])] == [Verdict.SE]


def test_a_program_file_gone_from_the_cache_is_still_se(net, tmp_path):
    with Sandbox(workers=1, cache_dir=tmp_path / "cache", isolation="full") as box:
        program = c("int main(void){return 0;}")
        assert box.run(program, "", LIMITS).verdict is Verdict.AC
        (box.cache_dir / box.compiler.artifact(program)).unlink()
        r = box.run(program, "", LIMITS)
        assert r.verdict is Verdict.SE and "cannot open its file" in r.message, r


def test_a_missing_compiler_or_a_broken_compile_jail_is_still_se(net, tmp_path, monkeypatch):
    """Told by the launcher's status pipe: the compiler could not be exec'd, or the jail
    (here a bwrap that exits at once) never reached the launcher."""
    with Sandbox(workers=1, cache_dir=tmp_path / "cache", isolation="full") as box:
        monkeypatch.setitem(compile_module.COMPILERS, Language.C, "gcc-not-installed")
        built = box.compile(c("int main(void){return 0;}"))
        assert built.infrastructure and "cannot start the compiler gcc-not-installed" in built.message, built
        assert box.run(c("int main(void){return 0;}"), "", LIMITS).verdict is Verdict.SE
        monkeypatch.undo()
        box.compiler.caps = dataclasses.replace(box.compiler.caps, bwrap="/bin/false")
        program = c("int main(void){return 1;}")
        built = box.compile(program)
        assert built.infrastructure and "the compile jail did not start" in built.message, built
        assert box.run(program, "", LIMITS).verdict is Verdict.SE
        assert not (box.compiler.entry(box.compiler.key(program)) / "result.json").exists()  # never cached


# --------------------------------------------------------------------------- the jail's own limits

FILE_FILLER = r'''
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#ifndef MOST
#define MOST -1
#endif
int main(void) {
    long most = MOST, n = 0;
    char path[64];
    for (; most < 0 || n < most; n++) {
        snprintf(path, sizeof path, "/tmp/f%ld", n);
        int fd = open(path, O_CREAT | O_WRONLY, 0600);
        if (fd < 0) break;
        close(fd);
    }
    printf("%ld\n", n);
    return 0;
}
'''


def test_a_tiny_program_that_fills_memory_with_files_is_its_own_mle(solo, clean):
    """Empty files until memory runs out: their inodes are charged to the slot's memory
    cgroup, not to any process's RSS, so the OOM killer takes the largest process in the
    slot, bwrap or the worker (where root lacks CAP_SYS_RESOURCE the jail cannot be exempt,
    and the program's +1000 is its own to lower). The jail dies of the run's memory: the
    program's MLE, on the first attempt (it used to be SE after three jails)."""
    slot = solo._pool.slots[0]
    solo.run(HONEST, "up\n", LIMITS)
    starts = slot.starts
    r = solo.run(c(FILE_FILLER), "", Limits(time_ms=5000, memory_mb=64))
    assert r.verdict is Verdict.MLE, r
    assert slot.starts <= starts + 1  # at most the jail it killed was replaced: no retries
    after = solo.run(HONEST, "after\n", LIMITS)
    assert after.verdict is Verdict.AC and after.stdout == "after\n", after
    # the same in a batch (the run behind it in the queue runs on the fresh jail)
    jobs = [Job(program=c(FILE_FILLER), limits=Limits(time_ms=5000, memory_mb=64)),
            Job(program=HONEST, stdin="queued\n", limits=LIMITS)]
    assert [(r.verdict, r.stdout) for r in solo.run_many(jobs)] == [(Verdict.MLE, ""), (Verdict.AC, "queued\n")]


LEAVE_FILES = r'''
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main(void) {  /* files for the worker to delete, then exit just before the wall guard */
    double start = now();
    long n = 0;
    char path[64];
    for (; n < 300000 && now() - start < 2.5; n++) {
        snprintf(path, sizeof path, "/tmp/f%ld", n);
        int fd = open(path, O_CREAT | O_WRONLY, 0600);
        if (fd < 0) break;
        close(fd);
    }
    while (now() - start < 3.8) usleep(10000);
    printf("%ld\n", n);
    return 0;
}
'''


def test_a_worker_slow_to_clean_up_after_its_program_is_waited_for(solo, clean, monkeypatch):
    """A program that leaves a few hundred thousand files, and exits just before its wall
    guard, makes the worker's cleanup outlast the host's patience (cut here to 0.2 s past
    the wall guard to keep the test short; 10 s by default, which a million files
    outlast). A worker whose slot still uses CPU is working, not stuck: the host waits,
    and the run is the program's own AC (it was SE after three jails)."""
    from tczoo.sandbox import sandbox as sandbox_module
    from tczoo.sandbox import slots

    monkeypatch.setattr(sandbox_module, "HOST_SLACK_S", 0.2)
    monkeypatch.setattr(slots, "HOST_SLACK_S", 0.2)
    looks = []
    real = slots.Slot.working

    def working(self):  # the real method, counted
        looks.append(real(self))
        return looks[-1]

    monkeypatch.setattr(slots.Slot, "working", working)
    program = c(LEAVE_FILES)
    limits = Limits(time_ms=4000, wall_ms=4000, memory_mb=768)
    assert solo.compile(program).ok
    r = first_attempt(solo, program, limits=limits)
    assert r.verdict is Verdict.AC and int(r.stdout) > 10_000, r
    assert True in looks, "the cleanup never outlasted the host's first deadline: the test tested nothing"

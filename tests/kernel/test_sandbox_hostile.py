"""Hostile programs against the real sandbox (issue 3, point 7): the classic attacks.

Each must end with the right verdict in bounded time, leave no process behind and
change nothing outside the sandbox. Everything runs inside the outer safety net of
``hostile_fixtures`` (a throwaway cgroup that holds this test process and, through
``TCZOO_CGROUP_PARENT``, the sandbox's own cgroups). The second round of attacks (state
left for the next run, the compile cache, compiler output, child CPU, infrastructure
failures) is in test_sandbox_state.py.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from hostile_fixtures import (
    assert_net_untouched, cpp, needs_full_v1, net, py, sandbox_uids, run_timed, survivors, timed, uid_processes,
)
from tczoo.sandbox import CompileLimits, Limits, Sandbox, Verdict
from tczoo.sandbox import jail

pytestmark = needs_full_v1
__all__ = ["net"]  # the fixture, used by name


@pytest.fixture(scope="module")
def sb(net, tmp_path_factory):
    os.environ["OPENAI_API_KEY"] = "sk-tczoo-hostile-secret"
    os.environ["TCZOO_CANARY_TOKEN"] = "canary-5a1f"
    # No cgroup_parent: TCZOO_CGROUP_PARENT (set by the net) puts the slots inside the net.
    box = Sandbox(workers=2, cache_dir=tmp_path_factory.mktemp("hostile-cache"), isolation="full",
                  compile_limits=CompileLimits(time_s=3, memory_mb=1024, output_mb=64))
    assert all(str(s.groups.pids_dir).startswith(f"/sys/fs/cgroup/pids/{net}/") for s in box._pool.slots)
    try:
        yield box
    finally:
        uids = sandbox_uids(box)
        box.close()
        del os.environ["OPENAI_API_KEY"], os.environ["TCZOO_CANARY_TOKEN"]
        time.sleep(0.05)
        assert not uid_processes(uids), "sandbox-uid processes survived close()"


@pytest.fixture
def clean(sb, net):
    """After each test: no survivor anywhere in the net, its limits never hit."""
    yield
    assert not survivors(net, [sb]), "processes survived their run"
    uids = uid_processes(sandbox_uids(sb))
    # Only the idle jails may remain: an outer bwrap and a worker per started slot.
    started = sum(1 for s in sb._pool.slots if s.proc is not None)
    assert len(uids) <= 2 * started, f"stray sandbox-uid processes: {describe(uids)}"
    assert_net_untouched(net)


def describe(pids) -> dict:
    found = {}
    for pid in pids:
        try:
            found[pid] = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ")[:80].decode() + \
                " | " + next(line.strip() for line in open(f"/proc/{pid}/status") if line.startswith("State"))
        except (OSError, StopIteration):
            found[pid] = "gone"
    return found


# --------------------------------------------------------------------------- processes


@pytest.mark.parametrize("processes", [1, 16])
def test_cpp_fork_bomb(sb, clean, processes):
    code = "#include <unistd.h>\nint main(){ for(;;) fork(); }"
    r, secs = run_timed(sb, cpp(code), "", Limits(time_ms=300, processes=processes))
    assert r.verdict is Verdict.TLE and secs < 5, r


def test_python_fork_bomb(sb, clean):
    code = "import os\nwhile True:\n    os.fork()"
    r, secs = run_timed(sb, py(code), "", Limits(time_ms=1000, processes=8))
    # fork() fails with EAGAIN at the limit: BlockingIOError in every process.
    assert r.verdict in (Verdict.RE, Verdict.TLE) and secs < 5, r
    assert r.verdict is Verdict.TLE or "BlockingIOError" in r.stderr


def test_double_fork_daemon_is_killed(sb, clean, tmp_path):
    code = r"""
#include <unistd.h>
#include <cstdio>
int main(){
    if (fork() == 0) {               // child
        setsid();                    // escape the process group
        if (fork() == 0) {           // grandchild: the daemon
            for (int i = 0; i < 600; i++) { FILE *f = fopen("/tmp/daemon-alive", "w"); if (f) fclose(f); sleep(1); }
            return 0;
        }
        return 0;
    }
    puts("parent done");
    return 0;
}"""
    r, secs = run_timed(sb, cpp(code), "", Limits(time_ms=500, processes=4))
    assert r.verdict is Verdict.AC and r.stdout == "parent done\n" and secs < 3, r
    # The next run in either slot sees no daemon and no file it left behind.
    for _ in range(2):
        r = sb.run(py("import os\nprint(os.path.exists('/tmp/daemon-alive'), len(os.listdir('/proc')))"),
                   "", Limits())
        assert r.stdout.split()[0] == "False"


# --------------------------------------------------------------------------- resources


def test_memory_bomb(sb, clean):
    code = "#include <vector>\n#include <cstdio>\nint main(){ std::vector<std::vector<char>> v;" \
           " for(;;) v.emplace_back(1 << 20, 'x'); }"
    r, secs = run_timed(sb, cpp(code), "", Limits(time_ms=2000, memory_mb=64))
    assert r.verdict is Verdict.MLE and secs < 5, r


def test_python_memory_bomb(sb, clean):
    r, secs = run_timed(sb, py("a = []\nwhile True:\n    a.append(bytearray(1 << 20))"), "",
                    Limits(time_ms=2000, memory_mb=64))
    assert r.verdict is Verdict.MLE and secs < 5, r


def test_cpu_spin(sb, clean):
    r, secs = run_timed(sb, cpp("int main(){ for(;;); }"), "", Limits(time_ms=300))
    assert r.verdict is Verdict.TLE and r.cpu_ms >= 290 and secs < 3, r


def test_long_sleep_stopped_by_wall_guard(sb, clean):
    r, secs = run_timed(sb, py("import time\ntime.sleep(60)"), "", Limits(time_ms=300, wall_ms=600))
    assert r.verdict is Verdict.TLE and r.cpu_ms < 300 and secs < 3, r
    assert "wall" in r.message


def test_output_flood(sb, clean):
    code = "#include <cstdio>\nint main(){ for(;;) fputs(\"flood flood flood flood\\n\", stdout); }"
    r, secs = run_timed(sb, cpp(code), "", Limits(time_ms=2000, output_kb=256))
    assert r.verdict is Verdict.OLE and len(r.stdout) == 256 * 1024 and secs < 5, r


def test_file_size_limit(sb, clean):
    code = "with open('big', 'wb') as f:\n    f.write(b'x' * (4 << 20))"
    r = sb.run(py(code), "", Limits(file_kb=1024))
    assert r.verdict is Verdict.OLE, r


def test_deep_recursion(sb, clean):
    # Legit deep recursion works (the stack limit is the memory limit)...
    deep = "#include <cstdio>\nint f(int n){ volatile int pad[8]; pad[0]=n; return n ? f(n-1) + pad[0] % 2 : 0; }" \
           "\nint main(){ printf(\"%d\\n\", f(1000000)); }"
    r = sb.run(cpp(deep), "", Limits(memory_mb=256))
    assert r.verdict is Verdict.AC, r
    # ...and unbounded recursion ends as a crash or a memory verdict, quickly.
    inf = "int f(int n){ volatile char pad[256]; pad[0]=n; return f(n+1) + pad[0]; }\nint main(){ return f(0); }"
    r, secs = run_timed(sb, cpp(inf), "", Limits(memory_mb=64))
    assert r.verdict in (Verdict.RE, Verdict.MLE) and secs < 5, r
    r, secs = run_timed(sb, py("import sys\nsys.setrecursionlimit(10**8)\ndef f(n): return f(n+1)\nf(0)"),
                    "", Limits(memory_mb=64))
    assert r.verdict in (Verdict.RE, Verdict.MLE) and secs < 5, r


# --------------------------------------------------------------------------- isolation


def test_environment_is_scrubbed(sb, clean):
    code = "import os\nprint(sorted(os.environ.items()))\n" \
           "for p in ('/proc/1/environ', '/proc/self/environ'):\n" \
           "    try: print(open(p, 'rb').read())\n    except OSError as e: print('denied', p)"
    r = sb.run(py(code), "", Limits())
    assert r.verdict is Verdict.AC, r
    assert "sk-tczoo" not in r.stdout and "canary-5a1f" not in r.stdout
    assert "OPENAI_API_KEY" not in r.stdout


def test_cannot_write_outside_its_dir(sb, clean, tmp_path):
    host_tmp_target = tmp_path / "pwned"
    os.chmod(tmp_path, 0o777)  # even a world-writable host dir is out of reach
    targets = ["/work/main/PWNED", "/root/PWNED", "/etc/PWNED", "/usr/PWNED",
               str(host_tmp_target), "/PWNED", "/proc/sys/kernel/PWNED"]
    code = "import sys\nfor t in sys.argv[1:]:\n    try:\n        open(t, 'w').write('x'); print('WROTE', t)\n" \
           "    except OSError as e: print('blocked', t, type(e).__name__)\n" \
           "open('mine.txt', 'w').write('ok'); open('/tmp/also-mine', 'w').write('ok'); print('own dir ok')"
    r = sb.run(py(code), "", Limits(), args=targets)
    assert r.verdict is Verdict.AC and "WROTE" not in r.stdout and "own dir ok" in r.stdout, r
    for t in targets:
        assert not Path(t).exists(), t


def test_no_network(sb, clean):
    code = """
import socket
for host, port in [("1.1.1.1", 80), ("127.0.0.1", 22), ("pypi.org", 443)]:
    try:
        socket.create_connection((host, port), timeout=2).close(); print("CONNECTED", host)
    except OSError as e:
        print("blocked", host, type(e).__name__)
print([name for _, name in socket.if_nameindex()])
"""
    r, secs = run_timed(sb, py(code), "", Limits(time_ms=3000))
    assert r.verdict is Verdict.AC and "CONNECTED" not in r.stdout and secs < 5, r
    assert "eth0" not in r.stdout


def test_cannot_read_home_or_host_files(sb, clean):
    code = """
import os
for p in ["/root", "/root/.bashrc", "/work", "/home", "/etc/shadow", "/etc/passwd", "/var"]:
    try:
        if os.path.isdir(p): print("LISTED", p, os.listdir(p))
        else: print("READ", p, len(open(p).read()))
    except OSError as e:
        print("blocked", p, type(e).__name__)
print("visible root:", sorted(os.listdir("/")))
"""
    r = sb.run(py(code), "", Limits())
    assert r.verdict is Verdict.AC, r
    assert "LISTED" not in r.stdout and "READ" not in r.stdout, r.stdout
    assert "uid" not in r.stdout


def test_runs_as_unprivileged_uid(sb, clean):
    r = sb.run(py("import os\nprint(os.getuid(), os.geteuid(), os.getgroups())"), "", Limits())
    uid, euid = (int(x) for x in r.stdout.split()[:2])
    assert uid != 0 and euid != 0 and uid >= jail.UID_BASE, r


# --------------------------------------------------------------------------- compile bombs


@pytest.mark.e2e
def test_template_bomb_compile_is_bounded(sb, clean):
    code = """
template<int N, int M> struct A {
    typedef typename A<N - 1, 2 * M>::t t1;
    typedef typename A<N - 1, 2 * M + 1>::t t2;
    typedef int t;
    static const int v = A<N - 1, 2 * M>::v + A<N - 1, 2 * M + 1>::v;
};
template<int M> struct A<0, M> { typedef int t; static const int v = 1; };
int main() { return A<40, 0>::v; }
"""
    r, secs = timed(sb.run, cpp(code), "", Limits())
    assert r.verdict is Verdict.CE and secs < 10, (r, secs)


def test_huge_static_array_compile_is_bounded(sb, clean):
    code = "static int a[1 << 29] = {1, 2, 3};\nint main(int c, char**) { return a[c * 12345]; }"
    r, secs = timed(sb.run, cpp(code), "", Limits())
    assert r.verdict is Verdict.CE and secs < 10, (r, secs)
    include = '#include "/etc/shadow"\n#include "/root/.bashrc"\nint main(){}'
    r = sb.run(cpp(include), "", Limits())
    assert r.verdict is Verdict.CE and "No such file" in r.message, r

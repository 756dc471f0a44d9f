"""Hostile programs against the real sandbox (issue 3, point 7).

Each must end with the right verdict in bounded time, leave no process behind and
change nothing outside the sandbox. Everything runs inside an outer safety net: a
throwaway cgroup (pids.max, memory limit) that holds this test process and, nested
under it, the sandbox's own cgroups. If the sandbox has a bug, a bomb hits the net's
limits and the test fails, instead of taking the machine (or CI) down.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tczoo.schema import Language, Program
from tczoo.sandbox import CompileLimits, Limits, Sandbox, Verdict, isolation_report
from tczoo.sandbox import jail

CG = Path("/sys/fs/cgroup")
NET_PIDS = 400
NET_MEMORY = 3 << 30

pytestmark = pytest.mark.skipif(
    isolation_report()["level"] != "full" or isolation_report()["cgroups"] != "v1",
    reason="hostile suite needs full isolation (root + bwrap) and cgroup v1 for its safety net",
)


def cpp(code: str) -> Program:
    return Program(code=code, language=Language.CPP)


def py(code: str) -> Program:
    return Program(code=code, language=Language.PYTHON)


def _tasks(root: Path) -> set[int]:
    found: set[int] = set()
    for dirpath, _, files in os.walk(root):
        if "cgroup.procs" in files:
            found.update(int(x) for x in (Path(dirpath) / "cgroup.procs").read_text().split())
    return found


def _uid_processes(uids: set[int]) -> dict[int, int]:
    """Live processes whose real uid is a sandbox uid: pid -> uid (zombies are dead:
    an orphan killed with its jail waits for the machine's init to reap it)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            for line in open(f"/proc/{entry}/status"):
                if line.startswith("State:") and line.split()[1] in "ZX":
                    break
                if line.startswith("Uid:"):
                    uid = int(line.split()[1])
                    if uid in uids:
                        found[int(entry)] = uid
                    break
        except OSError:
            pass
    return found


@pytest.fixture(scope="module")
def net():
    """The outer safety net: this process and everything below it, capped."""
    name = f"tczoo-test-{os.getpid()}"
    pids_dir, mem_dir = CG / "pids" / name, CG / "memory" / name
    pids_dir.mkdir()
    mem_dir.mkdir()
    (pids_dir / "pids.max").write_text(str(NET_PIDS))
    (mem_dir / "memory.limit_in_bytes").write_text(str(NET_MEMORY))
    me = str(os.getpid())
    old = {}
    for ctrl, d in (("pids", pids_dir), ("memory", mem_dir)):
        old[ctrl] = next(line.split(":", 2)[2] for line in open("/proc/self/cgroup")
                         if line.split(":")[1] == ctrl)
        (d / "cgroup.procs").write_text(me)
    try:
        yield name
    finally:
        for ctrl, d in (("pids", pids_dir), ("memory", mem_dir)):
            (CG / ctrl / old[ctrl].strip().lstrip("/") / "cgroup.procs").write_text(me)
        leftovers = _tasks(pids_dir) | _tasks(mem_dir)
        for pid in leftovers:
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        time.sleep(0.1)
        for d in (pids_dir, mem_dir):
            for sub in sorted((p for p in d.rglob("*") if p.is_dir()), reverse=True):
                sub.rmdir()
            d.rmdir()
        assert not leftovers, f"processes survived in the safety net: {leftovers}"


@pytest.fixture(scope="module")
def sb(net, tmp_path_factory):
    os.environ["OPENAI_API_KEY"] = "sk-tczoo-hostile-secret"
    os.environ["TCZOO_CANARY_TOKEN"] = "canary-5a1f"
    box = Sandbox(workers=2, cache_dir=tmp_path_factory.mktemp("hostile-cache"),
                  isolation="full", cgroup_parent=net,
                  compile_limits=CompileLimits(time_s=3, memory_mb=1024, output_mb=64))
    try:
        yield box
    finally:
        uids = _sandbox_uids(box)
        box.close()
        del os.environ["OPENAI_API_KEY"], os.environ["TCZOO_CANARY_TOKEN"]
        time.sleep(0.05)
        assert not _uid_processes(uids), "sandbox-uid processes survived close()"


def _sandbox_uids(box: Sandbox) -> set[int]:
    # The compile uid is shared by every sandbox on the machine: only the slots' own.
    return {s.uid for s in box._pool.slots if s.uid is not None}


@pytest.fixture
def clean(sb, net):
    """After each test: no stray process, the net never hit its limits."""
    yield
    for slot in sb._pool.slots:
        if slot.groups and slot.proc is not None:
            assert len(slot.groups.pids()) == slot.groups.base_tasks, "stray process in slot"
    uids = _uid_processes(_sandbox_uids(sb))
    # Only the idle jails may remain: an outer bwrap and a worker per started slot.
    started = sum(1 for s in sb._pool.slots if s.proc is not None)
    assert len(uids) <= 2 * started, f"stray sandbox-uid processes: {uids}"
    events = (CG / "pids" / net / "pids.events")
    if events.exists():
        assert "max 0" in events.read_text(), "the safety net's pids.max was hit"
    assert (CG / "memory" / net / "memory.failcnt").read_text().strip() == "0"


def timed(fn, *a, **kw):
    t = time.monotonic()
    r = fn(*a, **kw)
    return r, time.monotonic() - t


# --------------------------------------------------------------------------- processes


@pytest.mark.parametrize("processes", [1, 16])
def test_cpp_fork_bomb(sb, clean, processes):
    code = "#include <unistd.h>\nint main(){ for(;;) fork(); }"
    r, secs = timed(sb.run, cpp(code), "", Limits(time_ms=300, processes=processes))
    assert r.verdict is Verdict.TLE and secs < 5, r


def test_python_fork_bomb(sb, clean):
    code = "import os\nwhile True:\n    os.fork()"
    r, secs = timed(sb.run, py(code), "", Limits(time_ms=1000, processes=8))
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
    r, secs = timed(sb.run, cpp(code), "", Limits(time_ms=500, processes=4))
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
    r, secs = timed(sb.run, cpp(code), "", Limits(time_ms=2000, memory_mb=64))
    assert r.verdict is Verdict.MLE and secs < 5, r


def test_python_memory_bomb(sb, clean):
    r, secs = timed(sb.run, py("a = []\nwhile True:\n    a.append(bytearray(1 << 20))"), "",
                    Limits(time_ms=2000, memory_mb=64))
    assert r.verdict is Verdict.MLE and secs < 5, r


def test_cpu_spin(sb, clean):
    r, secs = timed(sb.run, cpp("int main(){ for(;;); }"), "", Limits(time_ms=300))
    assert r.verdict is Verdict.TLE and r.cpu_ms >= 290 and secs < 3, r


def test_long_sleep_stopped_by_wall_guard(sb, clean):
    r, secs = timed(sb.run, py("import time\ntime.sleep(60)"), "", Limits(time_ms=300, wall_ms=600))
    assert r.verdict is Verdict.TLE and r.cpu_ms < 300 and secs < 3, r
    assert "wall" in r.message


def test_output_flood(sb, clean):
    code = "#include <cstdio>\nint main(){ for(;;) fputs(\"flood flood flood flood\\n\", stdout); }"
    r, secs = timed(sb.run, cpp(code), "", Limits(time_ms=2000, output_kb=256))
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
    r, secs = timed(sb.run, cpp(inf), "", Limits(memory_mb=64))
    assert r.verdict in (Verdict.RE, Verdict.MLE) and secs < 5, r
    r, secs = timed(sb.run, py("import sys\nsys.setrecursionlimit(10**8)\ndef f(n): return f(n+1)\nf(0)"),
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
    r, secs = timed(sb.run, py(code), "", Limits(time_ms=3000))
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

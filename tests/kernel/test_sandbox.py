"""The execution engine on ordinary programs: verdicts, cache, comparators, batches."""

from __future__ import annotations

import asyncio
import hashlib
import threading
import shutil
import time
from pathlib import Path

import pytest

from tczoo.schema import Language, Program
from tczoo.sandbox import (
    CompileLimits, Job, Limits, Sandbox, Verdict, compare_outputs, isolation_report,
)

ADD_CPP = """#include <cstdio>
int main(){ long long a, b; if (scanf("%lld %lld", &a, &b) != 2) return 3; printf("%lld\\n", a + b); }
"""
FAST = Limits(time_ms=1000, memory_mb=128)


def cpp(code: str, **kw) -> Program:
    return Program(code=code, language=Language.CPP, **kw)


def py(code: str) -> Program:
    return Program(code=code, language=Language.PYTHON)


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("compile-cache")


@pytest.fixture(scope="module")
def sb(cache_dir):
    with Sandbox(workers=2, cache_dir=cache_dir) as box:
        yield box


# --------------------------------------------------------------------------- verdicts


def test_cpp_accepted_and_measured(sb):
    r = sb.run(cpp(ADD_CPP), "2 40\n", FAST)
    assert r.verdict is Verdict.AC, r
    assert r.stdout == "42\n" and r.exit_code == 0 and r.signal is None
    assert 0 < r.wall_ms < 1000 and r.memory_kb > 0


def test_judge_wrong_answer_and_accepted(sb):
    assert sb.judge(cpp(ADD_CPP), "1 2", "3", FAST).verdict is Verdict.AC
    assert sb.judge(cpp(ADD_CPP), "1 2", "4", FAST).verdict is Verdict.WA


def test_runtime_errors_keep_exit_code_and_signal(sb):
    r = sb.run(cpp(ADD_CPP), "", FAST)  # scanf fails -> exit 3
    assert r.verdict is Verdict.RE and r.exit_code == 3
    r = sb.run(cpp("#include <cstdlib>\nint main(){ abort(); }"), "", FAST)
    assert r.verdict is Verdict.RE and r.signal == 6


def test_compile_error_message(sb):
    r = sb.run(cpp("int main() { return undefined_name; }"), "", FAST)
    assert r.verdict is Verdict.CE
    assert "undefined_name" in r.message and "error" in r.message


def test_c_is_compiled_as_c(sb):
    # Implicit void* conversion is valid C and invalid C++: proves gcc, not g++.
    code = '#include <stdio.h>\n#include <stdlib.h>\n#include <math.h>\n' \
           'int main(){ int *p = malloc(sizeof(int)); *p = (int)sqrt(49.0); printf("%d\\n", *p); return 0; }'
    r = sb.run(Program(code=code, language=Language.C), "", FAST)
    assert r.verdict is Verdict.AC and r.stdout.strip() == "7", r


def test_flags_override_defaults(sb):
    code = '#include <cstdio>\nint main(){ printf("%d %ld\\n", VALUE, __cplusplus); }'
    r = sb.run(cpp(code, flags=["-O0", "-std=c++14", "-DVALUE=7"]), "", FAST)
    assert r.stdout.split() == ["7", "201402"], r
    assert sb.run(cpp(code), "", FAST).verdict is Verdict.CE  # no -DVALUE by default


def test_python_isolated_mode_and_errors(sb):
    r = sb.run(py("import sys\nprint(sys.flags.isolated, input()[::-1])"), "abc\n", FAST)
    assert r.verdict is Verdict.AC and r.stdout.split() == ["1", "cba"], r
    r = sb.run(py("raise ValueError('boom')"), "", FAST)
    assert r.verdict is Verdict.RE and r.exit_code == 1 and "ValueError: boom" in r.stderr


def test_tle_on_cpu_time(sb):
    spin = cpp("int main(){ volatile unsigned long x = 0; for(;;) x++; }")
    assert sb.compile(spin).ok  # time the run, not g++ on a busy machine
    t = time.monotonic()
    r = sb.run(spin, "", Limits(time_ms=200, memory_mb=64))
    assert r.verdict is Verdict.TLE
    assert 190 <= r.cpu_ms < 1200 and time.monotonic() - t < 3


def test_memory_and_cpu_measurements_are_the_programs(sb):
    code = ("#include <cstdio>\n#include <cstring>\n#include <cstdlib>\n"
            "int main(){ size_t n; scanf(\"%zu\", &n); char *p = (char*)malloc(n); memset(p, 1, n);"
            " volatile unsigned long s = 0; for (unsigned long i = 0; i < 300000000UL; i++) s += i;"
            " printf(\"%d\\n\", p[n / 3]); }")
    r = sb.run(cpp(code), str(100 << 20), Limits(time_ms=5000, memory_mb=256))
    assert r.verdict is Verdict.AC, r
    assert r.memory_kb >= 100 * 1024
    assert r.cpu_ms >= 50  # the loop, not bwrap's few ms


def test_files_args_and_private_tmp(sb):
    code = "import sys, os\nprint(open('data.txt').read(), sys.argv[1:], os.getcwd())\n" \
           "open('/tmp/left-behind', 'w').write('x')"
    r = sb.run(py(code), "", FAST, files={"data.txt": "hello"}, args=["a", "b"])
    assert r.verdict is Verdict.AC, r
    assert "hello ['a', 'b']" in r.stdout
    # Every run starts with a wiped tmp dir, in whichever slot it lands.
    for _ in range(3):
        r = sb.run(py("import os\nprint(os.path.exists('/tmp/left-behind'))"), "", FAST)
        assert r.stdout.strip() == "False"


def test_output_limit(sb):
    r = sb.run(py("import sys\nsys.stdout.write('x' * 5000)"), "", Limits(output_kb=1))
    assert r.verdict is Verdict.OLE and r.stdout_truncated and len(r.stdout) == 1024


# --------------------------------------------------------------------------- compile cache


def test_compile_cache_hits_once_compiled(cache_dir):
    program = cpp(ADD_CPP.replace("%lld\\n", "%lld \\n"))  # a source no other test uses
    with Sandbox(workers=1, cache_dir=cache_dir) as a:
        first = a.compile(program)
        second = a.compile(program)
    assert first.ok and not first.cached
    assert second.ok and second.cached
    with Sandbox(workers=1, cache_dir=cache_dir) as b:  # a new process/session: still cached
        assert b.compile(program).cached
        assert not b.compile(cpp(ADD_CPP, flags=["-O1"])).cached  # flags are in the key


def test_compile_limits_are_configurable(tmp_path):
    with Sandbox(workers=1, cache_dir=tmp_path, compile_limits=CompileLimits(time_s=5)) as box:
        assert box.compiler.limits.time_s == 5


# --------------------------------------------------------------------------- comparators


@pytest.mark.parametrize("actual, expected, comparator, ok", [
    ("1 2\n3\n", "1\n2 3", None, True),
    ("1 2 3", "1 2", None, False),
    ("1 2\n", "1 2\n", "exact", True),
    ("1 2", "1 2\n", "exact", False),
    ("0.3333334 x", "0.333333 x", "float:1e-6", True),
    ("0.334", "0.333", "float:1e-6", False),
    ("1000100", "1000000", "float:1e-9:1e-4", True),
    ("1.0 abc", "1.0 abd", "float:1e-3", False),
    ("nan", "nan", "float:1e-6", True),
    ("1 2", "1 2 3", "float:1e-6", False),
])
def test_compare_outputs(actual, expected, comparator, ok):
    assert compare_outputs(actual, expected, comparator) is ok


def test_unknown_comparator_is_an_error(sb):
    with pytest.raises(ValueError):
        compare_outputs("1", "1", "fuzzy")
    with pytest.raises(ValueError):
        sb.judge(cpp(ADD_CPP), "1 2", "3", FAST, comparator="float:x")


def test_judge_with_float_tolerance(sb):
    r = sb.judge(py("print(1/3)"), "", "0.333333", FAST, comparator="float:1e-6")
    assert r.verdict is Verdict.AC


# --------------------------------------------------------------------------- batches


def test_run_many_keeps_job_order_and_reports_progress(sb):
    # Later jobs finish first; results must still come back in job order.
    jobs = [Job(program=py(f"import time\ntime.sleep({0.05 * (5 - i)})\nprint({i})"),
                limits=FAST, tag=i, expected=str(i) if i % 2 else "wrong")
            for i in range(6)]
    seen = []
    results = list(sb.run_many(jobs, progress=lambda done, total: seen.append((done, total))))
    assert [r.stdout.strip() for r in results] == [str(i) for i in range(6)]
    assert [r.verdict for r in results] == [Verdict.WA, Verdict.AC] * 3
    assert seen[-1] == (6, 6)


def test_long_inputs_shared_by_many_programs_reach_each_one_whole(sb, monkeypatch):
    """A judge matrix runs every test on every program: a long input is encoded once per
    batch (and the copies kept are bounded). Each program still reads exactly the bytes
    of its own input, lone surrogates included, whether its input was kept or not."""
    from tczoo.safeio.text import to_bytes
    from tczoo.sandbox import batch

    monkeypatch.setattr(batch, "MAX_ENCODED", 3 * batch.BIG_STDIN)  # room for two: the third evicts
    inputs = [f"{k}\udcff" + "x" * (batch.BIG_STDIN + 17 * k) + "\n" for k in range(3)]
    programs = [py("import sys, hashlib\nprint(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())"),
                py("import sys, hashlib\nprint(hashlib.sha256(sys.stdin.buffer.read()).hexdigest(), 'b')")]
    jobs = [Job(program=p, stdin=inputs[k], limits=FAST) for _ in range(2) for p in programs for k in (0, 1, 2, 0)]
    results = list(sb.run_many(jobs))
    for job, result in zip(jobs, results):
        digest = hashlib.sha256(to_bytes(job.stdin)).hexdigest()
        assert result.ok and result.stdout.split()[0] == digest, result


def test_run_many_cancel_stops_pending_work(sb):
    made = []

    def jobs():
        for i in range(40):
            made.append(i)
            yield Job(program=py(f"import time\ntime.sleep(0.05)\nprint({i})"), limits=FAST)

    got = []
    for r in sb.run_many(jobs()):
        got.append(r)
        if len(got) == 2:
            sb.cancel()
    assert 2 <= len(got) < 40 and len(made) < 40
    # The sandbox stays usable after a cancelled batch.
    assert [r.verdict for r in sb.run_many([Job(program=cpp(ADD_CPP), stdin="1 1")])] == [Verdict.AC]


def test_run_many_abandoned_midway_gives_its_slots_back(sb):
    slow = [Job(program=py(f"import time\ntime.sleep(0.3)\nprint({i})"), limits=FAST) for i in range(8)]
    stream = sb.run_many(slow)
    assert next(stream).stdout == "0\n"
    stream.close()  # the consumer stops reading: runs in flight finish in the background
    t = time.monotonic()
    again = list(sb.run_many([Job(program=cpp(ADD_CPP), stdin=f"{i} 1", limits=FAST) for i in range(6)]))
    assert [r.stdout for r in again] == [f"{i + 1}\n" for i in range(6)]
    assert time.monotonic() - t < 5


def test_run_many_from_several_threads_at_once(sb):
    """Two batches and single runs share the slots; each gets its own results, in order."""
    out: dict[str, list[str]] = {}

    def batch(tag, n):
        jobs = [Job(program=cpp(ADD_CPP), stdin=f"{i} {tag}", limits=FAST) for i in range(n)]
        out[tag] = [r.stdout.strip() for r in sb.run_many(jobs)]

    def singles(tag, n):
        out[tag] = [sb.run(cpp(ADD_CPP), f"{i} {tag}", FAST).stdout.strip() for i in range(n)]

    threads = [threading.Thread(target=batch, args=("100", 30)), threading.Thread(target=batch, args=("200", 30)),
               threading.Thread(target=singles, args=("300", 10))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for tag, n in (("100", 30), ("200", 30), ("300", 10)):
        assert out[tag] == [str(i + int(tag)) for i in range(n)], tag


def test_threads_share_the_sandbox(sb):
    out: list[str] = []

    def work(i):
        out.append(sb.run(cpp(ADD_CPP), f"{i} 1", FAST).stdout.strip())

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(out, key=int) == [str(i + 1) for i in range(6)]


def test_async_wrappers(sb):
    async def main():
        return await asyncio.gather(sb.arun(cpp(ADD_CPP), "1 2", FAST),
                                    sb.ajudge(cpp(ADD_CPP), "1 2", "3", FAST))

    a, b = asyncio.run(main())
    assert a.stdout == "3\n" and b.verdict is Verdict.AC


# --------------------------------------------------------------------------- call_python


HARNESS = '''
import random
print("chatter before")                # the code's own prints must not confuse us
def generate_input_1():
    print("chatter inside")
    return ["1 2\\n", "3 4\\n"]
def check_output(inp, out):
    a, b = map(int, inp.split())
    assert int(out) == a + b, f"expected {a + b}"
def crash():
    return 1 // 0
def spin():
    while True:
        pass
def weird():
    return {1, 2}
'''


def test_call_python_value(sb):
    r = sb.call_python(HARNESS, "generate_input_1")
    assert r.ok and r.value == ["1 2\n", "3 4\n"], r
    assert "chatter inside" in r.run.stdout


def test_call_python_assertion_versus_crash(sb):
    ok = sb.call_python(HARNESS, "check_output", ["1 2", "3"])
    assert ok.ok and ok.value is None
    bad = sb.call_python(HARNESS, "check_output", ["1 2", "4"])
    assert not bad.ok and bad.error_type == "assertion" and "expected 3" in bad.error
    crash = sb.call_python(HARNESS, "crash")
    assert not crash.ok and crash.error_type == "exception" and "ZeroDivisionError" in crash.error


def test_call_python_timeout_missing_function_bad_return(sb):
    r = sb.call_python(HARNESS, "spin", limits=Limits(time_ms=200))
    assert not r.ok and r.error_type == "timeout" and r.error == "TLE"
    assert sb.call_python(HARNESS, "nope").error_type == "no_function"
    assert sb.call_python(HARNESS, "weird").error_type == "bad_return"
    assert sb.call_python("syntax error here", "f").error_type == "exception"


# --------------------------------------------------------------------------- report and CLI


def test_isolation_report_and_level(sb):
    report = isolation_report()
    for key in ("level", "bwrap", "uid_switching", "cgroups", "warnings"):
        assert key in report
    assert sb.isolation_level.startswith(report["level"])


def test_call_many_batches_seeded_calls_in_order(sandbox):
    from tczoo.sandbox import PyCall

    code = "import random\ndef generate():\n    return str(random.randint(1, 10**9))\ndef boom():\n    assert False, 'nope'\n"
    calls = [PyCall(code=code, function="generate", seed=s) for s in (1, 2, 1)]
    calls.append(PyCall(code=code, function="boom"))
    a, b, c, d = sandbox.call_many(calls)
    assert a.ok and b.ok and c.ok
    assert a.value == c.value != b.value  # same seed, same value: generators are reproducible
    assert not d.ok and d.error_type == "assertion"


JAVA_SUM = """import java.io.*; import java.util.*;
public class Sum { public static void main(String[] a) throws IOException {
  StringTokenizer st = new StringTokenizer(new BufferedReader(new InputStreamReader(System.in)).readLine());
  System.out.println(Long.parseLong(st.nextToken()) + Long.parseLong(st.nextToken())); } }"""


@pytest.mark.skipif(shutil.which("javac") is None, reason="no JDK on this machine")
def test_java_verdicts(sandbox):
    java = lambda code: Program(code=code, language=Language.JAVA)  # noqa: E731
    ok = sandbox.judge(java(JAVA_SUM), "2 40\n", "42\n", Limits(time_ms=3000, memory_mb=256))
    assert ok.verdict is Verdict.AC and ok.memory_kb > 10_000
    assert sandbox.judge(java(JAVA_SUM), "2 40\n", "41\n", Limits(time_ms=3000)).verdict is Verdict.WA
    ce = sandbox.run(java("public class X { public static void main(String[] a) { int x = ; } }"))
    assert ce.verdict is Verdict.CE and "error" in ce.message
    spin = sandbox.run(java("public class S { public static void main(String[] a) { long x = 0; while (true) x++; } }"),
                       "", Limits(time_ms=1000))
    assert spin.verdict is Verdict.TLE
    hog = sandbox.run(java("public class M { public static void main(String[] a) { java.util.List<long[]> l = "
                           "new java.util.ArrayList<>(); while (true) l.add(new long[1 << 20]); } }"),
                      "", Limits(time_ms=5000, memory_mb=128))
    assert hog.verdict in (Verdict.MLE, Verdict.RE)
    spawn = sandbox.run(java("public class F { public static void main(String[] a) throws Exception { "
                             "while (true) new ProcessBuilder(\"/bin/sh\", \"-c\", \"sleep 100\").start(); } }"),
                        "", Limits(time_ms=2000))
    assert spawn.verdict in (Verdict.RE, Verdict.TLE) and spawn.wall_ms < 10_000


# --------------------------------------------------------------------------- bad limits


@pytest.mark.parametrize("bad", [dict(time_ms=-5), dict(time_ms=0), dict(memory_mb=0), dict(memory_mb=-1),
                                 dict(wall_ms=0), dict(processes=0), dict(output_kb=-1),
                                 dict(memory_mb=1 << 40)])
def test_bad_limits_are_a_value_error(bad):
    # They used to become verdicts: -5 ms an SE ("argument out of range"), 0 ms TLE, 0 MB MLE.
    with pytest.raises(ValueError):
        Limits(**bad)


def test_tczoo_judge_refuses_bad_limits(tmp_path):
    import subprocess
    import sys

    src = tmp_path / "add.cpp"
    src.write_text(ADD_CPP)
    exe = Path(sys.executable).parent / "tczoo"
    # The first three are refused by the option's range, the last by Limits itself.
    for flags in (["--time-limit", "-5"], ["--time-limit", "0"], ["--memory-limit", "0"],
                  ["--memory-limit", str(1 << 40)]):
        proc = subprocess.run([str(exe), "judge", str(src), "--lang", "cpp", *flags],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2, (flags, proc.stdout, proc.stderr)
        assert proc.stderr.count("\n") == 1 and flags[0] in proc.stderr and "Traceback" not in proc.stderr


def test_run_many_judges_with_output_validators_as_judge_does(sb):
    """In a batch the validator's run is one more job on the slots; its outcome maps to
    the judged program's verdict exactly as ``judge`` maps it."""
    from tczoo.schema import Validator

    accept = Validator(program=py("import sys\nsys.exit(42 if open('answer').read().split() == "
                                  "sys.stdin.read().split()[::-1] else 43)"))
    broken = Validator(program=Program(code="int main( {", language=Language.CPP, name="v.cpp"))
    silent = Validator(program=py("pass"))
    cases = [("print('b a')", accept), ("print('a b')", accept), ("raise SystemExit(3)", accept),
             ("print('b a')", broken), ("print('b a')", silent)]
    jobs = [Job(program=py(code), stdin="", expected="a b", output_validator=v, limits=FAST) for code, v in cases]
    batch = [(r.verdict, r.message) for r in sb.run_many(jobs)]
    single = [(r.verdict, r.message) for r in
              (sb.judge(j.program, j.stdin, j.expected, j.limits, output_validator=j.output_validator) for j in jobs)]
    assert batch == single
    assert [v for v, _ in batch] == [Verdict.AC, Verdict.WA, Verdict.RE, Verdict.SE, Verdict.SE]


def test_cpp_with_bits_stdcpp_compiles_against_a_precompiled_header(tmp_path, monkeypatch):
    """The precompiled <bits/stdc++.h> (issue 33) makes no difference but speed: the
    binary is byte for byte the plain compile's; other flags, and TCZOO_PCH=0, do
    without it."""
    from tczoo.paths import cache_dir

    code = '#include <bits/stdc++.h>\nint main(){ std::vector<int> v{3, 1, 2}; std::sort(v.begin(), v.end());' \
           ' printf("%d%d%d\\n", v[0], v[1], v[2]); }\n'
    binaries = {}
    for pch in ("1", "0"):
        monkeypatch.setenv("TCZOO_PCH", pch)
        with Sandbox(workers=1, cache_dir=tmp_path / f"compile-{pch}") as box:
            program = cpp(code)
            assert box.run(program, "", FAST).stdout == "123\n"
            binaries[pch] = (tmp_path / f"compile-{pch}" / box.compiler.artifact(program)).read_bytes()
            if pch == "1":
                assert list(cache_dir().glob("pch/*/bits/stdc++.h.gch")), "no precompiled header was built"
            flagged = cpp(code, flags=["-O2", "-std=c++17", "-DX=1"])
            assert box.run(flagged, "", FAST).stdout == "123\n"
    assert binaries["1"] == binaries["0"]


def test_a_long_batch_queues_more_runs_per_slot(sandbox):
    """Each wake-up of the host costs about ten replies' parsing (issue 33): a batch queues
    about QUEUE_MS of work per slot at first (its end stays balanced, a cancel wastes
    little), and in a long batch up to QUEUE_SHARE of its time so far, at most
    MAX_QUEUE_MS and MAX_DEPTH runs."""
    import threading

    from tczoo.sandbox import batch

    driver = batch._Driver(sandbox, iter(()), threading.Event())
    try:
        assert driver.depth() == 1  # nothing answered yet: how long a run takes is unknown
        driver.wall_ms = 0.95  # 1 ms per run with the slack
        assert driver.depth() == int(batch.QUEUE_MS)
        driver.started -= 2.0  # two seconds into the batch: 2% of it is 40 ms (and the test's own time)
        assert int(2000 * batch.QUEUE_SHARE) <= driver.depth() <= int(2000 * batch.QUEUE_SHARE) + 2
        driver.started -= 600.0
        assert driver.depth() == int(batch.MAX_QUEUE_MS)
        driver.wall_ms = 0.01  # very short runs: the cap on runs
        assert driver.depth() == batch.MAX_DEPTH
    finally:
        driver.close()

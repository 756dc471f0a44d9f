"""Line coverage in the sandbox (tczoo.execution.line_coverage): hit counts per line for
Python (tracing) and C/C++ (gcov), functional calls, crashes, hostile programs."""

from __future__ import annotations

import shutil

import pytest

from tczoo.execution import CoverageUnavailable, Limits, Verdict, line_coverage
from tczoo.schema import Language, Program

LIMITS = Limits(time_ms=2000, memory_mb=256)

PY = """n = int(input())
s = 0
for i in range(n):
    s += i
if s > 10:
    print('big')
else:
    print(s)
"""

CPP = """#include <bits/stdc++.h>
using namespace std;
int main() {
    int n; cin >> n;
    long long s = 0;
    for (int i = 0; i < n; i++)
        s += i;
    if (s > 10) cout << "big\\n";
    else cout << s << "\\n";
    if (n == 7) { int *p = nullptr; *p = 1; }
    if (n == 8) return 3;
}
"""

needs_gcov = pytest.mark.skipif(shutil.which("gcov") is None or shutil.which("g++") is None,
                                reason="gcov and g++ are needed for C/C++ coverage")


def test_python_counts_every_line_execution(sandbox):
    small, big = line_coverage(sandbox, Program(code=PY, language=Language.PYTHON), ["3\n", "10\n"], limits=LIMITS)
    assert small.status is Verdict.AC and small.output == "3\n"
    # the loop header runs n + 1 times, its body n times; line 6/8 by branch
    assert small.hits == {1: 1, 2: 1, 3: 4, 4: 3, 5: 1, 8: 1}
    assert big.hits == {1: 1, 2: 1, 3: 11, 4: 10, 5: 1, 6: 1}
    assert small.lines != big.lines and small.measured
    assert set(small.executable) == {1, 2, 3, 4, 5, 6, 8}  # 7 (else:) holds no code


def test_python_crash_keeps_the_lines_run_before_it(sandbox):
    [cov] = line_coverage(sandbox, Program(code=PY, language=Language.PYTHON), ["x\n"], limits=LIMITS)
    assert cov.status is Verdict.RE and cov.hits == {1: 1}
    assert "ValueError" in cov.detail and "target.py" in cov.detail
    assert "_main" not in cov.detail  # the driver's own frame is not shown


def test_python_exit_code_and_syntax_error(sandbox):
    prog = Program(code="import sys\nprint('a')\nsys.exit(3)\nprint('b')\n", language=Language.PYTHON)
    [cov] = line_coverage(sandbox, prog, [""], limits=LIMITS)
    assert cov.status is Verdict.RE and cov.hits == {1: 1, 2: 1, 3: 1} and cov.output == "a\n"
    [ok] = line_coverage(sandbox, Program(code="import sys\nsys.exit(0)\n", language=Language.PYTHON), [""],
                         limits=LIMITS)
    assert ok.status is Verdict.AC
    [bad] = line_coverage(sandbox, Program(code="def f(:\n", language=Language.PYTHON), [""], limits=LIMITS)
    assert bad.status is Verdict.CE and not bad.measured


def test_python_functional_call(sandbox):
    code = "class Solution:\n    def add(self, a, b):\n        if a > b:\n            return a\n        return a + b\n"
    prog = Program(code=code, language=Language.PYTHON)
    one, two = line_coverage(sandbox, prog, ['{"a": 1, "b": 2}', "[5, 2]"], limits=LIMITS, entry_point="add")
    assert (one.output, two.output) == ("3", "5")
    assert 5 in one.hits and 5 not in two.hits and 4 in two.hits


def test_python_hostile_programs(sandbox):
    """A program that forges the report line, exits behind the tracer's back or loops
    forever yields a visible failure, never invented coverage."""
    forge = Program(code="print('\\n@@tczoo-coverage-0000000000000000@@{\"exit\": 0, \"hits\": {\"99\": 1}}')\n",
                    language=Language.PYTHON)
    [cov] = line_coverage(sandbox, forge, [""], limits=LIMITS)
    assert 99 not in cov.hits and cov.hits == {1: 1}
    quit_ = Program(code="import os\nprint('x', flush=True)\nos._exit(0)\n", language=Language.PYTHON)
    [cov] = line_coverage(sandbox, quit_, [""], limits=LIMITS)
    assert cov.status is Verdict.RE and not cov.hits and "without letting the tracer report" in cov.detail
    spin = Program(code="while True:\n    pass\n", language=Language.PYTHON)
    [cov] = line_coverage(sandbox, spin, [""], limits=Limits(time_ms=200, memory_mb=128), slowdown=1.0)
    assert cov.status is Verdict.TLE and not cov.measured


@needs_gcov
def test_cpp_counts_with_gcov(sandbox):
    prog = Program(code=CPP, language=Language.CPP)
    small, big, crash, code3 = line_coverage(sandbox, prog, ["3\n", "10\n", "7\n", "8\n"], limits=LIMITS)
    assert small.status is Verdict.AC and small.output == "3\n"
    assert small.hits[6] == 4 and small.hits[7] == 3 and 9 in small.hits
    assert big.hits[6] == 11 and big.hits[7] == 10 and big.output == "big\n"
    assert small.lines != big.lines
    # a segfault leaves no coverage data, and says so
    assert crash.status is Verdict.RE and crash.hits == {} and "killed before writing" in crash.detail
    # a non-zero exit still writes it
    assert code3.status is Verdict.RE and code3.hits[11] == 1 and "exit code 3" in code3.detail
    assert set(small.executable) >= {4, 5, 6, 7, 8, 9, 10, 11}


@needs_gcov
def test_cpp_build_failure_and_c(sandbox):
    [bad] = line_coverage(sandbox, Program(code="int main() { return x; }", language=Language.CPP), [""],
                          limits=LIMITS)
    assert bad.status is Verdict.CE and "build" in bad.detail and not bad.measured
    c = Program(code="#include <stdio.h>\nint main(void) {\n  int n = 0;\n  scanf(\"%d\", &n);\n"
                     "  for (int i = 0; i < n; i++)\n    printf(\"%d\\n\", i);\n  return 0;\n}\n", language=Language.C)
    [cov] = line_coverage(sandbox, c, ["2\n"], limits=LIMITS)
    assert cov.status is Verdict.AC and cov.output == "0\n1\n" and cov.hits[6] == 2


@needs_gcov
def test_cpp_time_limit_and_huge_output(sandbox):
    prog = Program(code="#include <cstdio>\nint main() {\n  int n; if (scanf(\"%d\", &n) != 1) return 0;\n"
                        "  if (n == 1) while (true) {}\n  if (n == 2) while (true) putchar('x');\n  puts(\"ok\");\n}\n",
                   language=Language.CPP)
    spin, flood, ok = line_coverage(sandbox, prog, ["1\n", "2\n", "3\n"], limits=Limits(time_ms=500, output_kb=64))
    assert spin.status is Verdict.TLE
    assert flood.status is Verdict.OLE and len(flood.output) <= 64 * 1024
    assert ok.status is Verdict.AC and ok.output == "ok\n"


def test_languages_without_a_tracer_are_refused(sandbox):
    with pytest.raises(CoverageUnavailable):
        line_coverage(sandbox, Program(code="class Main {}", language=Language.JAVA), ["1\n"], limits=LIMITS)
    with pytest.raises(CoverageUnavailable):
        line_coverage(sandbox, Program(code=CPP, language=Language.CPP), ["{}"], limits=LIMITS, entry_point="f")
    assert line_coverage(sandbox, Program(code=PY, language=Language.PYTHON), [], limits=LIMITS) == []

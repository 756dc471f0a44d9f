"""Kattis/ICPC problem packages: small packages written here cover each part of the format."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kattis_fixtures import ADD_PY, WRONG_PY, make_package
from tczoo.benchmarks import load_benchmark
from tczoo.benchmarks.kattis import PackageError, load, scan
from tczoo.benchmarks.kattis.check import MISMATCH, OK, check_path, check_problem
from tczoo.benchmarks.loaders import BenchmarkLoadError
from tczoo.sandbox import input_valid
from tczoo.schema import Language

# --------------------------------------------------------------------------- loading


def test_a_default_package_loads_into_one_problem(tmp_path, monkeypatch):
    monkeypatch.setenv("TCZOO_KATTIS_PYTHON", "cpython")
    make_package(tmp_path, files={
        "submissions/accepted/Main.kt": "fun main() {}",
        "submissions/accepted/Main.cs": "class P { static void Main() {} }",
        "submissions/brute_force/slow.py": ADD_PY,
        "submissions/rejected/marked.py": "# @EXPECTED_RESULTS@: WRONG_ANSWER, TIMELIMIT\n" + WRONG_PY,
        "submissions/accepted/old.py": "print(sum(map(int, raw_input().split())))\n",
    })
    [p] = load(tmp_path)
    assert (p.id, p.title, p.time_limit_ms, p.memory_limit_mb) == ("addthem", "Add Them", 1000, 512)
    assert p.checker == "kattis" and p.output_validator is None and p.source == "kattis"
    assert [(s.input, s.output) for s in p.samples] == [("1 2\n", "3\n")]
    # groups nested to any depth, cases and subgroups together in lexicographic order
    assert [t.name for t in p.golden_tests] == [
        "secret/01-small", "secret/10-big", "secret/g2/02-seven", "secret/g2/sub/01-deep"]
    # every language tczoo knows is loaded (Kotlin, Python 2 ...), whether or not it is installed here
    assert sorted(s.name for s in p.solutions) == ["accepted/Main.kt", "accepted/add.cpp", "accepted/add.py",
                                                   "accepted/old.py"]
    assert {s.name: s.language for s in p.solutions} == {
        "accepted/Main.kt": Language.KOTLIN, "accepted/add.cpp": Language.CPP, "accepted/add.py": Language.PYTHON,
        "accepted/old.py": Language.PYTHON2}
    assert {s.name: s.file for s in p.solutions}["accepted/add.py"] == "add.py"  # run under its own name
    expected = {w.name: w.meta["expected_verdicts"] for w in p.wrong_solutions}
    assert expected == {"wrong_answer/off_by_seven.py": ["WA"], "time_limit_exceeded/loops_on_seven.py": ["TLE"],
                        "run_time_error/asserts.py": ["RE", "MLE"], "rejected/marked.py": ["WA", "TLE"]}
    kattis = p.meta["kattis"]
    skipped = {s["path"]: s["reason"] for s in kattis["skipped_submissions"]}
    assert "C#" in skipped["accepted/Main.cs"] and kattis["skipped_languages"] == {"C#": 1}
    assert "not one the format defines" in skipped["brute_force/slow.py"]
    assert "raw_input" in {s.name: s.meta.get("python2") for s in p.solutions}["accepted/old.py"]
    assert kattis["limits"]["time_limit_source"] == ".timelimit"
    assert "512" not in kattis["limits"]["memory_source"] and "problem.yaml" in kattis["limits"]["memory_source"]
    assert p.meta["attribution"]["author"] == "Test Author" and p.meta["attribution"]["license"] == "cc by-sa"
    assert [v.program.name for v in p.input_validators] == ["input_validators/validate.ctd"]


def test_the_statement_keeps_every_formula_and_names_its_images(tmp_path):
    make_package(tmp_path)
    [p] = load(tmp_path)
    text = p.statement
    assert "$0 \\le a, b \\le 10^{9}$" in text  # the package's own macro expanded inside math
    assert "$(a, b)$" in text  # a macro with arguments
    assert "## Input" in text and "## Output" in text
    assert "- One line with two integers $a$ and $b$" in text
    assert "`a+b`" in text and "`impossible`" in text
    assert "[illustration: adder.jpg — An adder. Picture by someone]" in text
    assert "comment" not in text and "\\" not in text.replace("\\le", "")
    assert p.meta["kattis"]["statement"]["images"] == ["adder.jpg"]


def test_stab_reads_the_constraints_of_a_converted_statement(tmp_path):
    from tczoo.methods.stab.constraints import parse_constraints

    make_package(tmp_path)
    [p] = load(tmp_path)
    records = {r.var: (r.lower, r.upper) for r in parse_constraints(p.statement).constraints if hasattr(r, "var")}
    assert records["a"] == (0, 10**9) and records["b"] == (0, 10**9)


def test_float_tolerance_flags_become_the_comparator(tmp_path):
    make_package(tmp_path, yaml="name: F\nvalidator_flags: float_tolerance 1e-6 case_sensitive\n")
    [p] = load(tmp_path)
    assert p.checker == "kattis:float_tolerance 1e-6 case_sensitive"


def test_a_package_that_states_no_time_limit_gets_the_formats_rule(tmp_path, sandbox):
    make_package(tmp_path, timelimit=None, yaml="name: T\nlimits:\n  time_multiplier: 3\n")
    [p] = load(tmp_path, sandbox=sandbox)
    source = p.meta["kattis"]["limits"]["time_limit_source"]
    assert p.time_limit_ms == 1000 and "time_multiplier 3 x slowest accepted run" in source
    assert "time_limit_pending" not in p.meta["kattis"]


def test_check_judges_accepted_submissions_from_their_timing_runs(tmp_path, sandbox, monkeypatch):
    """No repeated runs: a package that states no time limit has its accepted submissions
    run once to time it; the check judges them from those runs (a fresh digest: the timing
    is not in the cache), and runs only the others."""
    import uuid

    from tczoo.benchmarks.kattis.check import check_path

    make_package(tmp_path, timelimit=None, yaml=f"name: T\nuuid: {uuid.uuid4()}\n",
                 submissions={"accepted/add.py": ADD_PY + f"# {uuid.uuid4()}\n", "wrong_answer/w.py": WRONG_PY})
    judged = []
    real = sandbox.judge
    monkeypatch.setattr(sandbox, "judge", lambda program, *a, **kw: judged.append(program.name) or real(program, *a, **kw))
    [report] = check_path(tmp_path, sandbox)
    assert report.mismatches == 0 and "computed on this machine" in report.time_limit_source
    assert "accepted/add.py" not in judged and "wrong_answer/w.py" in judged
    assert len({s.name: s for s in report.submissions}["accepted/add.py"].tests) == 5  # every test, judged once


def test_a_run_times_only_the_packages_it_selected(tmp_path, sandbox):
    from tczoo.benchmarks.kattis import load_scan

    for name in ("addthem", "addmore"):
        make_package(tmp_path, name, timelimit=None, yaml=f"name: {name}\nlimits:\n  time_multiplier: 2\n")
    scan_ = load_scan(tmp_path, sandbox=sandbox, only=["addthem"])
    pending = {p.id: bool(p.meta["kattis"].get("time_limit_pending")) for p in scan_.problems}
    assert pending == {"addthem": False, "addmore": True}
    [p] = load_benchmark(f"kattis:{tmp_path}", ["addmore"], sandbox=sandbox)
    assert p.id == "addmore" and "time_multiplier 2" in p.meta["kattis"]["limits"]["time_limit_source"]


def test_domjudge_ini_states_the_time_limit_when_there_is_no_timelimit_file(tmp_path):
    make_package(tmp_path, timelimit=None, files={"domjudge-problem.ini": "name = x\ntimelimit = '2.5'\n"})
    [p] = load(tmp_path)
    assert p.time_limit_ms == 2500 and p.meta["kattis"]["limits"]["time_limit_source"] == "domjudge-problem.ini"


def test_a_missing_ans_skips_that_test_with_its_reason(tmp_path):
    make_package(tmp_path, tests={"sample/1": ("1 2\n", "3\n"), "secret/1": ("1 1\n", "2\n"),
                                  "secret/2": ("2 2\n", None)})
    [p] = load(tmp_path)
    assert [t.name for t in p.golden_tests] == ["secret/1"]
    assert p.meta["kattis"]["skipped_tests"] == ["secret/2: no .ans file"]


def test_unjudgeable_and_malformed_packages_are_skipped_with_one_line_reasons(tmp_path):
    make_package(tmp_path, "good")
    # interactive without its interactor; a validator's own score; several passes; a custom grader
    make_package(tmp_path, "chatty", yaml="name: C\nvalidation: custom interactive\n")
    make_package(tmp_path, "scorer", yaml="name: S\ntype: scoring\nvalidation: custom score\n")
    make_package(tmp_path, "passes", yaml="name: P\nvalidation: custom multi-pass\n")
    make_package(tmp_path, "grader", yaml="name: G\ntype: scoring\n", files={"data/secret/testdata.yaml":
                                                                            "grading: custom\n"})
    make_package(tmp_path, "broken", yaml="name: [unclosed\nlimits: {memory: 5\n")
    make_package(tmp_path, "badflags", yaml="name: B\nvalidator_flags: float_tolerance\n")
    make_package(tmp_path, "badlimits", yaml="name: B\nlimits:\n  memory: lots\n")
    make_package(tmp_path, "notamap", yaml="- just\n- a list\n")
    make_package(tmp_path, "nosecret", tests={"sample/1": ("1 2\n", "3\n")})
    result = scan(tmp_path)
    assert [p.id for p in result.problems] == ["good"]
    reasons = {s.package: s.reason for s in result.skipped}
    assert reasons["chatty"].startswith("validation: custom interactive needs one output validator")
    assert reasons["scorer"].startswith("custom score") and reasons["passes"].startswith("multi-pass")
    assert reasons["grader"].startswith("custom grader")
    assert reasons["broken"].startswith("malformed package: problem.yaml is not valid YAML at line")
    assert "float_tolerance needs a non-negative number" in reasons["badflags"]
    assert "limits.memory must be a number" in reasons["badlimits"]
    assert "must be a mapping" in reasons["notamap"]
    assert reasons["nosecret"].startswith("no secret test case")
    assert all("\n" not in r for r in reasons.values())


def test_nothing_loadable_is_a_one_line_error_and_exit_code_2(tmp_path):
    make_package(tmp_path, "chatty", yaml="name: C\nvalidation: custom interactive\n")
    with pytest.raises(PackageError, match="no Kattis package loaded.*interactive needs one output validator"):
        load(tmp_path)
    with pytest.raises(BenchmarkLoadError):
        load_benchmark(f"kattis:{tmp_path}")
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "benchmarks", "--check", f"kattis:{tmp_path / 'nope'}"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_packages_of_one_name_in_two_contests_get_distinct_ids(tmp_path):
    make_package(tmp_path / "contest1", "same")
    make_package(tmp_path / "contest2", "same")
    assert sorted(p.id for p in load(tmp_path)) == ["contest2-same", "same"]


# --------------------------------------------------------------------------- validators


# A validator in a folder with its own header (the BAPC validation.h layout).
HEADER = "#pragma once\n#include <cstdlib>\ninline int verdict(bool ok){ return ok ? 42 : 43; }\n"
VALIDATOR_CPP = r"""#include "check.h"
#include <fstream>
#include <iostream>
#include <set>
#include <string>
int main(int argc, char** argv) {
    std::ifstream ans(argv[2]);
    std::multiset<std::string> want, got;
    std::string w;
    while (ans >> w) want.insert(w);
    while (std::cin >> w) got.insert(w);
    if (want != got) std::cerr << "not the same words";
    return verdict(want == got);
}
"""
ANY_ORDER_PY = "w = input().split()\nprint(*reversed(w))\n"


def test_a_custom_validator_with_a_local_header_judges_the_package(tmp_path, sandbox):
    make_package(tmp_path, yaml="name: Words\nvalidation: custom\n",
                 tests={"sample/1": ("a b\n", "a b\n"), "secret/1": ("x y z\n", "x y z\n")},
                 submissions={"accepted/rev.py": ANY_ORDER_PY, "wrong_answer/drop.py": "print(input().split()[0])\n"},
                 files={"output_validators/words/validator.cpp": VALIDATOR_CPP,
                        "output_validators/words/check.h": HEADER})
    [p] = load(tmp_path)
    assert p.checker == "program" and p.output_validator.program.language is Language.CPP
    assert "inline int verdict" in p.output_validator.program.code  # the header is inlined
    [report] = [r for r in check_path(tmp_path, sandbox)]
    assert {s.name: s.status for s in report.submissions} == {"accepted/rev.py": OK, "wrong_answer/drop.py": OK}
    [wrong] = [s for s in report.submissions if s.name == "wrong_answer/drop.py"]
    assert wrong.verdict == "WA" and wrong.failed_on == "sample/1"


def test_a_python_output_validator_gets_the_validator_flags(tmp_path, sandbox):
    validator = ("import sys\nwant = open(sys.argv[2]).read().split()\ngot = sys.stdin.read().split()\n"
                 "ci = 'ignore_case' in sys.argv[4:]\nnorm = (lambda s: s.lower()) if ci else (lambda s: s)\n"
                 "sys.exit(42 if [norm(g) for g in got] == [norm(w) for w in want] else 43)\n")
    make_package(tmp_path, yaml="name: Upper\nvalidation: custom\nvalidator_flags: ignore_case\n",
                 tests={"sample/1": ("a\n", "a\n"), "secret/1": ("b\n", "b\n")},
                 submissions={"accepted/upper.py": "print(input().upper())\n"},
                 files={"output_validators/v.py": validator})
    [p] = load(tmp_path)
    assert p.output_validator.args == ["ignore_case"]
    [report] = check_path(tmp_path, sandbox)
    assert [s.status for s in report.submissions] == [OK]


def test_custom_validation_without_a_runnable_validator_is_skipped(tmp_path):
    make_package(tmp_path, yaml="name: V\nvalidation: custom\n", files={"output_validators/v.cs": "class V {}"})
    [skipped] = scan(tmp_path).skipped
    assert "one output validator the sandbox can run, found 0" in skipped.reason and "C#" in skipped.reason


def test_checktestdata_input_validators_decide_validity(tmp_path, sandbox):
    make_package(tmp_path)
    [p] = load(tmp_path)
    assert input_valid(p, "3 4\n", sandbox)[0]
    ok, why = input_valid(p, "3 -4\n", sandbox)
    assert not ok and "validate.ctd" in why
    assert not input_valid(p, "3 4", sandbox)[0]  # checktestdata is strict: the newline is required
    assert not input_valid(p, "3 4000000000\n", sandbox)[0]


def test_a_broken_checktestdata_script_is_skipped_with_its_reason(tmp_path):
    make_package(tmp_path, files={"input_validators/validate.ctd": "INT(0, 10, a NEWLINE\n"})
    [p] = load(tmp_path)
    assert p.input_validators == []
    [skip] = p.meta["kattis"]["skipped_validators"]
    assert skip["path"] == "input_validators/validate.ctd" and "checktestdata cannot" in skip["reason"]


# --------------------------------------------------------------------------- the check


@pytest.mark.e2e
def test_check_reports_each_submission_against_its_folder(tmp_path, sandbox):
    make_package(tmp_path, files={
        # in the TLE folder, but fast: the check must say so, not hide it
        "submissions/time_limit_exceeded/actually_fast.py": ADD_PY,
        "submissions/accepted/wrong.py": WRONG_PY,
    })
    [report] = check_path(tmp_path, sandbox)
    status = {s.name: s for s in report.submissions}
    for name in ("accepted/add.py", "accepted/add.cpp", "wrong_answer/off_by_seven.py",
                 "time_limit_exceeded/loops_on_seven.py", "run_time_error/asserts.py"):
        assert status[name].status == OK, (name, status[name])
    assert status["time_limit_exceeded/loops_on_seven.py"].verdict == "TLE"
    assert status["time_limit_exceeded/loops_on_seven.py"].failed_on == "secret/g2/02-seven"
    fast = status["time_limit_exceeded/actually_fast.py"]
    assert fast.status == MISMATCH and fast.verdict == "AC" and "fast enough" in fast.explanation
    wrong = status["accepted/wrong.py"]
    assert wrong.status == MISMATCH and "WA on secret/g2/02-seven" in wrong.explanation
    assert report.time_limit_ms == 1000 and report.inputs_checked == 5 and report.inputs_rejected == []
    assert report.mismatches == 2


def test_check_command_exit_codes_and_json(tmp_path):
    make_package(tmp_path, "good", submissions={"accepted/add.py": ADD_PY, "wrong_answer/w.py": WRONG_PY})
    make_package(tmp_path, "chatty", yaml="name: C\nvalidation: custom interactive\n")
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "benchmarks", "--check", f"kattis:{tmp_path}",
                           "--format", "json"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    reports = {r["package"]: r for r in json.loads(proc.stdout)}
    assert reports["chatty"]["loaded"] is False and "interactive needs one output validator" in reports["chatty"]["reason"]
    assert reports["good"]["mismatches"] == 0 and len(reports["good"]["submissions"]) == 2
    # 80 columns, as CI's log is: the reason is printed whole below the table, not folded into a cell
    text = subprocess.run([sys.executable, "-m", "tczoo.cli", "benchmarks", "--check", f"kattis:{tmp_path}"],
                          capture_output=True, text=True, timeout=300, env={**os.environ, "COLUMNS": "80"})
    assert text.returncode == 0 and "skipped: validation: custom interactive" in text.stdout
    assert "wrong_answer/w.py" in text.stdout
    bad = subprocess.run([sys.executable, "-m", "tczoo.cli", "benchmarks", "--check", f"tcbench:{tmp_path}"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "kattis:PATH" in bad.stderr


def test_input_validators_that_reject_a_jury_test_are_reported(tmp_path, sandbox):
    make_package(tmp_path, tests={"sample/1": ("1 2\n", "3\n"), "secret/1": ("1 -2\n", "-1\n")})
    [p] = load(tmp_path)
    report = check_problem(p, sandbox)
    assert report.inputs_checked == 2 and len(report.inputs_rejected) == 1
    assert report.inputs_rejected[0].startswith("secret/1: input validator")


# --------------------------------------------------------------------------- build-benchmark


def test_build_benchmark_from_packages_round_trips_with_the_validator(tmp_path):
    wrongs = {f"wrong_answer/w{k}.py": f"a, b = map(int, input().split())\nprint(a + b + (a == {k}))\n"
              for k in range(1, 7)}
    tests = {"sample/1": ("0 0\n", "0\n")}
    tests.update({f"secret/{k:02d}": (f"{k} 0\n", f"{k}\n") for k in range(1, 8)})
    make_package(tmp_path, yaml="name: W\nvalidation: custom\n", tests=tests,
                 submissions={"accepted/add.py": ADD_PY, **wrongs},
                 files={"output_validators/v.py": "import sys\nsys.exit(42 if open(sys.argv[2]).read().split()"
                                                  " == sys.stdin.read().split() else 43)\n"})
    out = tmp_path / "built.jsonl"
    # the package's codes are Python: the paper's C/C++ filter would keep none of them
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "build-benchmark", "--benchmark", f"kattis:{tmp_path}",
                           "--restarts", "5", "--languages", "all", "--out", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    [record] = [json.loads(line) for line in out.read_text().splitlines()]
    assert record["rank"] == 6 and record["checker"] == "program"
    [problem] = load_benchmark(f"tcbench:{out}")
    assert problem.output_validator is not None and problem.checker == "program"
    assert len(problem.input_validators) == 1 and problem.rank == 6


# --------------------------------------------------------------------------- LaTeX edge cases


def test_latex_conversion_details():
    from tczoo.benchmarks.kattis.latex import latex_to_text

    st = latex_to_text(r"""\problemname{Caf\'e \"Ubung}
\def\n{N}
\newcommand{\opt}[2][x]{#1+#2}
Price 100\,\% -- \emph{not} 5\$; na\"ive \ss{} ``quoted''.\\
$\opt{y}$ and $\opt[z]{y}$ and $$ \n \le 10^5 $$
\begin{enumerate}\item first \item[b)] second\end{enumerate}
\begin{tabular}{|c|c|}\hline a & b \\ 1 & 2 \\\hline\end{tabular}
\begin{verbatim}
  keep   this
\end{verbatim}
\begin{tikzpicture}\draw (0,0) -- (1,1);\end{tikzpicture}
\href{https://x.org}{site} \url{https://y.org}
""")
    assert st.title == "Café Übung"
    text = st.text
    assert "100 % – not 5$; naïve ß \"quoted\"." in text
    assert "$x+y$ and $z+y$" in text and "$$N \\le 10^5$$" in text
    assert "1. first" in text and "2. b) second" in text
    assert "a | b" in text and "1 | 2" in text
    assert "keep   this" in text and "[picture]" in text and "draw" not in text
    assert "site (https://x.org) https://y.org" in text


@pytest.mark.parametrize("source", [
    "{" * 5000 + "deep" + "}" * 5000,  # nesting past the converter's depth
    r"\newcommand{\a}{\a\a}\a",  # a macro bomb
    r"\newcommand{\a}{x\a}\a",  # endless recursion
    r"\begin{itemize}\item never closed",
    r"$unclosed math \frac{1}{",
    "\\" * 10001,
    "\x00\udc80 binary \\ \\begin{",
    r"\newcommand{\b}[3]{#1#2#3}\b{1}",  # too few arguments
])
def test_hostile_latex_never_crashes_and_stays_bounded(source):
    from tczoo.benchmarks.kattis.latex import MAX_SOURCE, latex_to_text

    st = latex_to_text(source)
    assert isinstance(st.text, str) and len(st.text) <= MAX_SOURCE + 100


OVERFLOW_C = r"""#include <stdio.h>
#include <string.h>
int main(void) { char s[8]; char big[64]; scanf("%63s", big); strcpy(s, big); printf("%d\n", (int)strlen(s)); return 0; }
"""


def test_c_programs_are_built_as_judges_build_them(tmp_path, sandbox):
    """A stack-buffer overflow crashes on the judges' (Ubuntu) gcc, which protects the
    stack by default; Debian's does not, so the loader asks for it."""
    make_package(tmp_path, tests={"sample/1": ("ab 1\n", "2\n"), "secret/1": ("abcdefghijklmnopqrstuvwxyz 1\n", "26\n")},
                 submissions={"accepted/len.py": "print(len(input().split()[0]))\n",
                              "run_time_error/overflow.c": OVERFLOW_C},
                 files={"input_validators/validate.ctd": "STRING(s) SPACE INT(1, 1) NEWLINE\nEOF\n"})
    [p] = load(tmp_path)
    [wrong] = p.wrong_solutions
    assert "-fstack-protector-strong" in wrong.flags and wrong.meta["expected_verdicts"] == ["RE", "MLE"]
    [report] = check_path(tmp_path, sandbox)
    status = {s.name: (s.verdict, s.status) for s in report.submissions}
    assert status["run_time_error/overflow.c"] == ("RE", OK)


@pytest.mark.e2e
def test_a_submission_that_cannot_run_is_counted_and_shown(tmp_path, sandbox, monkeypatch):
    """A language tczoo knows but this machine lacks (here Kotlin, its compiler hidden) and
    one tczoo does not know (C#): neither is dropped. --check shows the first as "cannot
    run" (never a mismatch) with each submission's tests; the agreement runner's jury row
    lists both as cannot run and counts them in no rate."""
    from tczoo.runners.agreement import AgreementRunner
    from tczoo.sandbox import compile as compile_module
    from tczoo.sandbox import languages

    real = languages.tool
    monkeypatch.setattr(languages, "tool", lambda lang: None if lang is Language.KOTLIN else real(lang))
    languages.version.cache_clear()
    compile_module.compiler_version.cache_clear()
    try:
        make_package(tmp_path, submissions={"accepted/add.py": ADD_PY, "accepted/Main.kt": "fun main() {}\n",
                                            "accepted/Main.cs": "class P {}\n", "wrong_answer/w.py": WRONG_PY})
        [report] = check_path(tmp_path, sandbox)
        got = {s.name: s for s in report.submissions}
        assert got["accepted/Main.kt"].status == "cannot run" and "Kotlin is not installed" in \
            got["accepted/Main.kt"].explanation
        assert report.cannot_run == 1 and report.mismatches == 0
        assert [t.name for t in got["accepted/add.py"].tests][:2] == ["sample/1", "secret/01-small"]
        assert got["wrong_answer/w.py"].tests[-1].verdict == "WA"
        [p] = load(tmp_path)
        ref = AgreementRunner(sandbox).reference(p)
        assert ref["submissions"]["accepted/Main.kt"][0] == "cannot_run"
        assert ref["submissions"]["accepted/Main.cs"][0] == "cannot_run"
        assert ref["metrics"]["n_cannot_run"] == 2 and ref["metrics"]["tpr"] == 100.0
    finally:
        monkeypatch.undo()
        languages.version.cache_clear()
        compile_module.compiler_version.cache_clear()

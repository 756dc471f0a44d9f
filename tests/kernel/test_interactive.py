"""Interactive problems (issue 48, item 3): the Kattis protocol in the sandbox. The
problem's output validator is the interactor; it and the program run in slots of their
own, connected by two pipes; the interactor's exit code (42/43) is the verdict, anything
else from it a judge error (SE); the time limit binds the program only. Real interactive
programs: a correct one, a wrong one, one that never answers, one that floods the pipe,
one that closes early, one that attacks the interactor."""

from __future__ import annotations

import time

import pytest

from kattis_fixtures import make_package
from tczoo.sandbox import Job, Limits, Verdict
from tczoo.schema import Language, Program, Validator

LIMITS = Limits(time_ms=1000, memory_mb=256)

# Guess a number in [1, 10^9] with at most 40 queries: "? x" answers "higher"/"lower"/"equal",
# "! x" is the final answer. The input file holds the secret.
INTERACTOR = r"""#include <cstdio>
#include <cstring>
int main(int argc, char **argv) {
    FILE *in = fopen(argv[1], "r"); long long secret;
    if (!in || fscanf(in, "%lld", &secret) != 1) return 1;
    for (int q = 0; q < 40; q++) {
        char type[8]; long long x;
        if (scanf("%7s %lld", type, &x) != 2) { fprintf(stderr, "no answer\n"); return 43; }
        if (!strcmp(type, "!")) {
            if (x == secret) { fprintf(stderr, "correct after %d queries\n", q); return 42; }
            fprintf(stderr, "wrong guess %lld\n", x); return 43;
        }
        printf("%s\n", x < secret ? "higher" : x > secret ? "lower" : "equal"); fflush(stdout);
    }
    fprintf(stderr, "too many queries\n"); return 43;
}
"""
GOOD_PY = """lo, hi = 1, 10**9
while True:
    mid = (lo + hi) // 2
    print("?", mid, flush=True)
    r = input()
    if r == "equal":
        print("!", mid, flush=True)
        break
    if r == "higher":
        lo = mid + 1
    else:
        hi = mid - 1
"""
GOOD_CPP = r"""#include <cstdio>
#include <cstring>
int main() { long long lo = 1, hi = 1000000000; char r[16];
  while (true) { long long mid = (lo + hi) / 2; printf("? %lld\n", mid); fflush(stdout);
    if (scanf("%15s", r) != 1) return 0;
    if (!strcmp(r, "equal")) { printf("! %lld\n", mid); return 0; }
    if (!strcmp(r, "higher")) lo = mid + 1; else hi = mid - 1; } }
"""
PROGRAMS = {
    "correct": (GOOD_PY, Verdict.AC),
    "wrong": ('print("! 5", flush=True)\n', Verdict.WA),
    "never answers": ("import time\ntime.sleep(100)\n", Verdict.TLE),
    "spins without answering": ("while True:\n    pass\n", Verdict.TLE),
    # the interactor stops reading after 40 queries and says WA, first: WA, not the SIGPIPE after it
    "floods the pipe": ("import sys\nwhile True:\n    sys.stdout.write('? 1\\n' * 1000)\n", Verdict.WA),
    "closes early": ("import os\nos.close(1)\nos.close(0)\n", Verdict.WA),
    # reads past the interactor's WA: EOFError after the interactor exited first: WA
    "crashes after the verdict": ("for i in range(100):\n    print('? 1', flush=True)\n    input()\n", Verdict.WA),
    "crashes on its own": ("raise SystemExit(3)\n", Verdict.RE),
    # a correct answer, then an exit code of 42: its own exit is a crash, never an accept
    "exits 42": (GOOD_PY + "raise SystemExit(42)\n", Verdict.RE),
    # cannot reach the interactor (another uid, another jail): kills all it can, then answers
    "kills everything": ("import os, signal\ntry:\n    os.kill(-1, signal.SIGKILL)\nexcept OSError:\n    pass\n"
                         + GOOD_PY, Verdict.AC),
}


@pytest.fixture(scope="module")
def interactor():
    return Validator(program=Program(code=INTERACTOR, language=Language.CPP, name="guess"), time_limit_ms=5000)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_interactive_programs_get_the_formats_verdicts(sandbox, interactor, name):
    code, expected = PROGRAMS[name]
    start = time.monotonic()
    r = sandbox.interact(Program(code=code, language=Language.PYTHON, name=name), interactor, "123456789\n", "",
                         LIMITS)
    assert r.verdict is expected, (name, r.verdict, r.message, r.stderr[-300:])
    assert time.monotonic() - start < 30
    if expected is Verdict.WA:
        assert r.message.startswith("interactor guess:")  # the interactor's own words
    assert r.stdout == ""  # the program's output went to the interactor


def test_a_compiled_program_and_the_time_limit_on_the_program_only(sandbox):
    """The interactor thinks for ~1.5 s of CPU before its first answer; the program's limit
    is 1 s of CPU (its wall guard wide: a loaded machine may take long over the thinking):
    AC, the program, blocked on its read, used almost none."""
    slow = INTERACTOR.replace('printf("%s\\n"', 'for (volatile long i = 0; q == 0 && i < 600000000L; i++); printf("%s\\n"')
    assert slow != INTERACTOR
    thinking = Validator(program=Program(code=slow, language=Language.CPP, name="slow"), time_limit_ms=20000)
    r = sandbox.interact(Program(code=GOOD_CPP, language=Language.CPP), thinking, "987654321\n", "",
                         Limits(time_ms=1000, wall_ms=60_000, memory_mb=256))
    assert r.verdict is Verdict.AC and r.cpu_ms < 500, r


@pytest.mark.parametrize("broken,why", [
    ("int main() { return 0; }", "exited 0"),  # not a judgement
    ("#include <cstdlib>\nint main() { abort(); }", "failed"),  # a crash
    ("int main() { for (;;); }", "failed"),  # never ends: its own limits stop it
])
def test_an_interactor_that_fails_is_a_judge_error(sandbox, broken, why):
    bad = Validator(program=Program(code=broken, language=Language.CPP, name="broken"), time_limit_ms=1000)
    r = sandbox.interact(Program(code=GOOD_PY, language=Language.PYTHON), bad, "5\n", "", LIMITS)
    assert r.verdict is Verdict.SE and why in r.message, r


def test_interactive_jobs_in_a_batch_come_back_in_order(sandbox, interactor):
    good = Program(code=GOOD_CPP, language=Language.CPP)
    plain = Program(code="print(int(input()) * 2)\n", language=Language.PYTHON)
    jobs = []
    for k in range(6):
        jobs.append(Job(program=good, stdin=f"{k * 1000 + 1}\n", expected="", limits=LIMITS,
                        output_validator=interactor.model_copy(), interactive=True, tag=("i", k)))
        jobs.append(Job(program=plain, stdin=f"{k}\n", expected=f"{2 * k}\n", limits=LIMITS, tag=("p", k)))
    results = list(sandbox.run_many(jobs))
    assert [r.verdict for r in results] == [Verdict.AC] * 12, [(j.tag, r.verdict, r.message) for j, r in
                                                               zip(jobs, results)]


def test_judge_takes_the_interactive_flag(sandbox, interactor):
    r = sandbox.judge(Program(code=GOOD_PY, language=Language.PYTHON), "77\n", "", LIMITS,
                      output_validator=interactor, interactive=True)
    assert r.verdict is Verdict.AC
    with pytest.raises(ValueError, match="interactor"):
        sandbox.judge(Program(code=GOOD_PY, language=Language.PYTHON), "77\n", "", LIMITS, interactive=True)


# --------------------------------------------------------------------------- a Kattis package

VALIDATOR_FILES = {"output_validators/guess/guess.cpp": INTERACTOR,
                   "input_validators/validate.ctd": "INT(1, 1000000000, n) NEWLINE\nEOF\n"}


def interactive_package(root):
    tests = {f"secret/{k:02d}": (f"{n}\n", "") for k, n in enumerate([1, 2, 1000, 123456, 999999999], 1)}
    return make_package(root, "guess", yaml="name: Guess\nvalidation: custom interactive\n", tests=tests,
                        submissions={"accepted/bisect.py": GOOD_PY, "accepted/bisect.cpp": GOOD_CPP,
                                     "wrong_answer/five.py": PROGRAMS["wrong"][0],
                                     "wrong_answer/floods.py": PROGRAMS["floods the pipe"][0],
                                     "time_limit_exceeded/sleeps.py": PROGRAMS["never answers"][0]},
                        files={**VALIDATOR_FILES, "data/sample/1.interaction": "> ? 5\n< higher\n"})


def test_an_interactive_package_loads_and_checks(tmp_path, sandbox):
    from tczoo.benchmarks.kattis import load
    from tczoo.benchmarks.kattis.check import OK, check_path

    interactive_package(tmp_path)
    [p] = load(tmp_path)
    assert p.interactive and p.output_validator.interactive and p.checker == "program"
    assert p.samples == [] and len(p.golden_tests) == 5  # the .interaction sample is for people
    [report] = check_path(tmp_path, sandbox)
    assert report.interactive and report.mismatches == 0, [(s.name, s.verdict, s.explanation)
                                                          for s in report.submissions]
    assert report.inputs_checked == 5 and report.inputs_rejected == []
    assert {s.name: s.verdict for s in report.submissions} == {
        "accepted/bisect.py": "AC", "accepted/bisect.cpp": "AC", "wrong_answer/five.py": "WA",
        "wrong_answer/floods.py": "WA", "time_limit_exceeded/sleeps.py": "TLE"}
    assert all(s.status == OK for s in report.submissions)


def test_the_jury_reference_row_and_a_methods_inputs_on_an_interactive_problem(tmp_path, sandbox):
    """The agreement runner's jury row judges through the interactor (TPR/TNR 100); a
    method's tests (inputs only, no expected output) become the interactor's input files."""
    from tczoo.benchmarks.kattis import load
    from tczoo.execution import SuiteJudge
    from tczoo.runners.agreement import AgreementRunner
    from tczoo.schema import Oracle, OracleKind, TestCase

    interactive_package(tmp_path)
    [p] = load(tmp_path)
    ref = AgreementRunner(sandbox).reference(p)
    assert ref["metrics"]["tpr"] == 100.0 and ref["metrics"]["tnr"] == 100.0, ref
    generated = [TestCase(input="31337\n"), TestCase(input="1\n")]
    judge = SuiteJudge(sandbox, p, generated, Oracle(kind=OracleKind.EXPECTED_OUTPUT))
    assert judge.usable == [0, 1]
    good, five = judge.judge([p.solutions[0], next(w for w in p.wrong_solutions if w.name.endswith("five.py"))])
    assert good.verdicts == ["AC", "AC"] and five.verdicts[0] == "WA"


def test_an_interactor_never_judges_an_output_after_the_fact(sandbox, interactor):
    """A runner that compares outputs cannot score an interactive problem: the sandbox
    refuses to hand the interactor an output, in one line; judge() and batches with the
    interactor talk to it instead."""
    from tczoo.sandbox.validators import InteractorRequired

    marked = interactor.model_copy(update={"interactive": True})
    with pytest.raises(InteractorRequired, match="interactive problem's interactor"):
        sandbox.validate_output(marked, "5\n", "", "! 5\n")
    assert "interactive" not in interactor.model_dump() and marked.model_dump()["interactive"] is True
    r = sandbox.judge(Program(code=GOOD_PY, language=Language.PYTHON), "5\n", "", LIMITS, output_validator=marked)
    assert r.verdict is Verdict.AC
    job = Job(program=Program(code=GOOD_PY, language=Language.PYTHON), stdin="8\n", expected="", limits=LIMITS,
              output_validator=marked)
    assert [r.verdict for r in sandbox.run_many([job])] == [Verdict.AC]

"""ASR (STAB §4.3) on hand-checked timings: a scripted sandbox whose runtimes are
written in the test, selection with few solutions, the tables; and one real run where
an O(n^2) solution meets a large n."""

from __future__ import annotations

import random
import shutil

import pytest

from tczoo.runners.efficiency import EfficiencyRunner, exposes, median_runtime, select_references
from tczoo.runner import TaskSpec
from tczoo.sandbox import RunResult, Verdict
from tczoo.schema import GoldenTest, Language, Problem, Program, Provenance, TestCase, TestSuite


class TimedSandbox:
    """Answers ``run_many`` from a table: (solution name, stdin) -> list of (cpu_ms, verdict),
    one per repeat, cycling. Counts the runs it was asked for."""

    def __init__(self, table):
        self.table = table
        self.calls: dict[tuple[str, str], int] = {}

    def run_many(self, jobs):
        for job in jobs:
            key = (job.program.name, job.stdin)
            k = self.calls.get(key, 0)
            self.calls[key] = k + 1
            cpu, verdict = self.table[key][k % len(self.table[key])]
            yield RunResult(verdict=Verdict(verdict), cpu_ms=cpu)


def _program(name: str, lang: Language) -> Program:
    return Program(code=f"// {name}", language=lang, name=name)


GOLDEN = ["g1", "g2"]
GEN = ["t1", "t2", "t3", "t4"]


def _problem() -> Problem:
    sols = [_program("cpp-a", Language.CPP), _program("cpp-b", Language.CPP),
            _program("py-a", Language.PYTHON), _program("py-b", Language.PYTHON), _program("py-c", Language.PYTHON)]
    return Problem(id="toy", statement="toy", time_limit_ms=1000, solutions=sols,
                   golden_tests=[GoldenTest(input=g, output="") for g in GOLDEN])


def _times():
    # Golden runtimes (3 repeats, median in brackets):
    #   cpp-a: g1 [10], g2 [20] -> mean 15, τ* = 20     cpp-b: g1 [30], g2 [40] -> mean 35, τ* = 40
    #   py-a:  [100], [200] -> mean 150, τ* = 200       py-b: [300], [100] -> 200, τ* = 300
    #   py-c:  [50], [60] -> mean 55, τ* = 60
    # The third repeat of each is an outlier the median must ignore.
    t = {}
    for name, (a, b) in {"cpp-a": (10, 20), "cpp-b": (30, 40), "py-a": (100, 200), "py-b": (300, 100),
                         "py-c": (50, 60)}.items():
        t[(name, "g1")] = [(a, "AC"), (a, "AC"), (a * 50, "AC")]
        t[(name, "g2")] = [(b, "AC"), (b - 1, "AC"), (b + 1, "AC")]
    # Generated tests (medians): t1 above every τ*; t2 a TLE (not repeated); t3 equal to
    # τ* (not exposed: strictly greater is required); t4 a crash.
    for name, tau in {"cpp-a": 20, "cpp-b": 40, "py-a": 200, "py-b": 300, "py-c": 60}.items():
        t[(name, "t1")] = [(tau + 5, "AC"), (tau + 1, "AC"), (1, "AC")]  # median tau+1
        t[(name, "t2")] = [(1000, "TLE"), (5, "AC"), (5, "AC")]  # stops repeating at the TLE
        t[(name, "t3")] = [(tau, "AC")]
        t[(name, "t4")] = [(3, "RE")]
        t[(name, "t5")] = [(1, "AC")]  # fast: not exposed
    return t


def _suite(inputs):
    return TestSuite(problem_id="toy", tests=[TestCase(input=i) for i in inputs],
                     provenance=Provenance(method="stab", model="scripted:x"))


def test_hand_checked_asr(tmp_path, monkeypatch):
    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path))
    box = TimedSandbox(_times())
    runner = EfficiencyRunner(box, tests=4, random_refs=3)
    refs = runner.references(_problem())
    cpp, py = refs["cpp"], refs["python"]
    assert {k: v["name"] for k, v in cpp["slots"].items()} == {"fast": "cpp-a", "slow": "cpp-b", "r1": "cpp-a", "r2": "cpp-b"}
    assert cpp["overlap"] is True
    # Python: py-c (55) < py-a (150) < py-b (200); the one remaining solution fills R1 only.
    assert {k: v["name"] for k, v in py["slots"].items()} == {"fast": "py-c", "slow": "py-b", "r1": "py-a"}
    assert py["overlap"] is False
    assert {k: v["tau_star"] for k, v in py["slots"].items()} == {"fast": 60, "slow": 300, "r1": 200}
    record = runner.score(_problem(), TaskSpec(key="", task=None), _suite(GEN))
    m = record.metrics
    for lang, slots in (("cpp", ("fast", "slow", "r1", "r2")), ("python", ("fast", "slow", "r1"))):
        for slot in slots:
            assert (m[f"{lang}:{slot}:exposed"], m[f"{lang}:{slot}:tle"], m[f"{lang}:{slot}:crash"],
                    m[f"{lang}:{slot}:n"]) == (2, 1, 1, 4), (lang, slot)
            assert m[f"asr:{lang}:{slot}"] == 50.0
    assert "python:r2:n" not in m
    assert record.detail["languages"]["python"]["slots"]["fast"]["outcomes"] == ["slow", "tle", "no", "crash"]
    # the run browser's matrix, per language: validity (scored without the kernel's input
    # screen here: the record says nothing of one), then one row per reference slot
    python = next(m for m in runner.matrices(record, _suite(GEN)) if m.title.endswith("Python"))
    assert python.tests == [0, 1, 2, 3] and python.rows[0][0] == "validity"
    assert python.rows[0][1][0] == ["?", "not recorded: the record says nothing of an input check"]
    label, cells = python.rows[1]
    assert label == "fast: py-c" and [c[0] for c in cells] == ["slow", "tle", "no", "crash"]
    assert "61.0 ms vs τ* 60.0 ms" in cells[0][1]
    # A TLE is not repeated; everything else runs 3 times; golden timings are cached.
    assert box.calls[("py-a", "t2")] == 1 and box.calls[("py-a", "t1")] == 3
    before = dict(box.calls)
    runner.references(_problem())
    assert box.calls == before


def test_n_gen_counts_generated_tests_only_unless_missing_ones_are_asked_for(tmp_path, monkeypatch):
    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path))
    box = TimedSandbox(_times())
    # the paper's N_gen = sum of |T_gen(p)|: one generated test that exposes is 1 / 1
    paper = EfficiencyRunner(box, tests=4).score(_problem(), TaskSpec(key="", task=None), _suite(["t1"]))
    assert paper.metrics["asr:cpp:fast"] == 100.0 and paper.metrics["cpp:fast:n"] == 1
    # our option: the three tests not delivered count as generated and not exposing
    padded = EfficiencyRunner(box, tests=4, count_missing=True).score(_problem(), TaskSpec(key="", task=None),
                                                                     _suite(["t1"]))
    assert padded.metrics["asr:cpp:fast"] == 25.0 and padded.metrics["cpp:fast:n"] == 4


def test_two_identical_exposing_inputs_are_two_of_n_gen_by_hand(tmp_path, monkeypatch):
    """Issue 26 A.3: five generated tests, two of them the same boundary input that
    exposes every reference; the paper's ASR is 2 / 5. Dropping the repeat and counting
    it as a missing, non-exposing test (the old defaults) made it 1 / 5."""
    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path))
    box = TimedSandbox(_times())
    five = ["t1", "t1", "t3", "t4", "t5"]  # t1 exposes (τ > τ*); t3 = τ*, t4 crashes, t5 is fast: not
    m = EfficiencyRunner(box, tests=5).score(_problem(), TaskSpec(key="", task=None), _suite(five)).metrics
    for lang, slots in (("cpp", ("fast", "slow", "r1", "r2")), ("python", ("fast", "slow", "r1"))):
        for slot in slots:
            assert (m[f"{lang}:{slot}:exposed"], m[f"{lang}:{slot}:n"]) == (2, 5), (lang, slot)
            assert m[f"asr:{lang}:{slot}"] == pytest.approx(100 * 2 / 5)
    old = EfficiencyRunner(box, tests=5, count_missing=True).score(
        _problem(), TaskSpec(key="", task=None), _suite(["t1", "t3", "t4", "t5"])).metrics
    assert old["asr:cpp:fast"] == pytest.approx(100 * 1 / 5)


def test_a_tle_exposes_unless_counted_invalid_as_the_authors_code_does(tmp_path, monkeypatch):
    """The paper's 𝕀[τ(s, t) > τ*(s)]: a TLE runs at least the time limit, above τ*, so it
    exposes; the authors' classify_binary_exceeded counts a timelimit verdict as invalid:
    in N_gen, not exposed (option ``tle="invalid"``)."""
    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path))
    box = TimedSandbox(_times())
    paper = EfficiencyRunner(box, tests=4).score(_problem(), TaskSpec(key="", task=None), _suite(GEN)).metrics
    assert (paper["cpp:fast:exposed"], paper["cpp:fast:tle"], paper["asr:cpp:fast"]) == (2, 1, 50.0)
    rec = EfficiencyRunner(box, tests=4, tle="invalid").score(_problem(), TaskSpec(key="", task=None), _suite(GEN))
    m = rec.metrics
    # t1 exposes; t2 (TLE) is invalid; t3, t4 do not: 1 of 4
    assert (m["cpp:fast:exposed"], m["cpp:fast:tle"], m["cpp:fast:tle_invalid"], m["cpp:fast:n"]) == (1, 0, 1, 4)
    assert m["asr:cpp:fast"] == 25.0
    assert rec.detail["languages"]["cpp"]["slots"]["fast"]["outcomes"] == ["slow", "tle_invalid", "no", "crash"]
    [main, *_] = EfficiencyRunner(None).summarize([rec])
    assert any("classify_binary_exceeded" in n for n in main.notes)


def test_tables_micro_average_over_problems(tmp_path, monkeypatch):
    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path))
    box = TimedSandbox(_times())
    runner = EfficiencyRunner(box, tests=4)
    a = runner.score(_problem(), TaskSpec(key="", task=None), _suite(GEN))  # 2 of 4 exposed everywhere
    b = runner.score(_problem(), TaskSpec(key="", task=None), _suite(["t1", "t1", "t1", "t1"]))  # 4 of 4
    b.problem_id = "toy2"
    tables = EfficiencyRunner(None).summarize([a, b])
    main, per_ref, ablation, tle = tables
    row = main.rows[0]
    assert row["problems"] == 2
    assert row["C++ Fast"] == row["Python Slow"] == 75.0  # (2 + 4) / (4 + 4)
    assert row["Python Random"] == 75.0 and row["Avg"] == 75.0
    assert [r["language"] for r in per_ref.rows] == ["Python", "C++"]
    assert per_ref.rows[0]["R2"] is None and per_ref.rows[0]["Range"] == 0.0
    assert ablation.rows[0] == {"model": "scripted:x", "method": "STAB", "ASR Python": 75.0, "ASR C++": 75.0}
    assert tle.rows[0]["exposed via TLE %"] == pytest.approx(100 / 6)  # 1 TLE of 6 exposures per slot
    assert any("coincide with Fast/Slow" in n for n in main.notes)


def test_selection_and_helpers():
    assert median_runtime([RunResult(verdict=Verdict.AC, cpu_ms=x) for x in (5, 50, 7)]) == (7, "AC")
    assert median_runtime([RunResult(verdict=Verdict.AC, cpu_ms=5), RunResult(verdict=Verdict.TLE, cpu_ms=900)]) == (900, "TLE")
    assert [exposes(10, "AC", 9), exposes(9, "AC", 9), exposes(1, "TLE", 9), exposes(50, "RE", 9)] == ["slow", "no", "tle", "crash"]
    rng = random.Random(0)
    slots, overlap = select_references(list(range(7)), rng)
    assert slots["fast"] == 0 and slots["slow"] == 6 and len({slots["r1"], slots["r2"], slots["r3"]}) == 3
    assert {slots["r1"], slots["r2"], slots["r3"]} <= {1, 2, 3, 4, 5} and not overlap
    assert select_references([4], rng) == ({"fast": 4, "slow": 4, "r1": 4}, True)
    assert select_references([], rng) == ({}, False)


# --------------------------------------------------------------------------- Appendix B, Table 6


def _failing_times(name: str = "py-b"):
    """The toy timings with ``name`` giving a wrong answer on the second original test."""
    t = _times()
    t[(name, "g2")] = [(cpu, "WA") for cpu, _ in t[(name, "g2")]]
    return t


def test_a_problem_whose_selected_solution_fails_an_original_test_is_excluded(tmp_path, monkeypatch):
    """Appendix B: py-b is selected (it is the slowest Python solution) and fails g2, so
    the problem is left out of the ASR, and the tables say which and why."""
    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path))
    runner = EfficiencyRunner(TimedSandbox(_failing_times()), tests=4)
    refs = runner.references(_problem())
    assert refs["python"]["slots"]["slow"]["name"] == "py-b" and refs["python"]["failed"] == ["py-b"]
    assert refs["cpp"]["failed"] == []
    record = runner.score(_problem(), TaskSpec(key="", task=None), _suite(GEN))
    assert record.metrics == {"excluded": 1.0, "n_generated": 4.0}
    assert record.detail == {"excluded": "selected solutions fail an original test (python: py-b)"}
    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path / "other"))  # other timings: another cache
    kept = EfficiencyRunner(TimedSandbox(_times()), tests=4).score(_problem(), TaskSpec(key="", task=None), _suite(GEN))
    kept.problem_id = "toy2"
    main = EfficiencyRunner(None).summarize([record, kept])[0]
    assert main.rows[0]["problems"] == 1 and main.rows[0]["C++ Fast"] == 50.0
    assert any(n.startswith("1 problem(s) excluded as in Appendix B") and "toy: selected solutions fail" in n
               for n in main.notes)


def test_solution_filtering_keeps_the_problem_without_the_failing_solution(tmp_path, monkeypatch):
    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path))
    runner = EfficiencyRunner(TimedSandbox(_failing_times()), tests=4, filtering="solution")
    py = runner.references(_problem())["python"]
    # py-c (55) < py-a (150); py-b is out: Fast py-c, Slow py-a, and R1 repeats one of them.
    assert (py["slots"]["fast"]["name"], py["slots"]["slow"]["name"]) == ("py-c", "py-a")
    assert py["excluded"] == ["py-b"] and py["failed"] == []
    record = runner.score(_problem(), TaskSpec(key="", task=None), _suite(GEN))
    assert record.metrics["asr:python:slow"] == 50.0 and "excluded" not in record.metrics


def test_evalperf_reference_is_a_cpp_solution_passing_every_original_test_and_table_6(tmp_path, monkeypatch):
    from tczoo.methods.evalperf import EvalPerf

    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path))
    problem = _problem()
    problem.statement = "Input\nThe first line contains one integer n (1 ≤ n ≤ 10).\n"
    problem.samples = []
    runner = EfficiencyRunner(TimedSandbox(_failing_times("cpp-a")), tests=4, filtering="solution")
    # cpp-a is the first C++ solution but fails g2: the reference is cpp-b (index 1).
    assert runner.reference(problem) == 1
    [spec] = runner.tasks(problem, EvalPerf, samples=1, seed=0)
    assert spec.context == {"reference": 1} and spec.task.correct_programs[0].code == "// cpp-b"
    record = runner.score(problem, spec, _suite(GEN))
    # On cpp-b itself (τ* = 40): t1 41 > 40, t2 TLE, t3 40 (not >), t4 RE: 2 of 4.
    assert record.metrics["asr:ref:cpp"] == 50.0 and record.detail["reference"]["outcomes"] == [
        "slow", "tle", "no", "crash"]
    table6 = [t for t in EfficiencyRunner(None).summarize([record]) if t.title.startswith("ASR on the reference")]
    assert table6[0].rows == [{"model": "scripted:x", "method": "STAB", "reference": "C++", "problems": 1, "ASR": 50.0}]
    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path / "other"))
    none_pass = EfficiencyRunner(TimedSandbox({**_failing_times("cpp-a"), **{
        ("cpp-b", "g1"): [(30, "RE")]}}), tests=4)
    assert none_pass.reference(problem) is None and none_pass.tasks(problem, EvalPerf, samples=1, seed=0) == []


def test_flagged_tests_are_scored_and_counted(tmp_path, monkeypatch):
    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path))
    suite = _suite(GEN)
    suite.tests[0].meta["violations"] = ["1 ≤ n ≤ 10: n = 11 > 10"]  # t1, which exposes every slot
    suite.tests[2].meta["violations"] = []
    record = EfficiencyRunner(TimedSandbox(_times()), tests=4).score(_problem(), TaskSpec(key="", task=None), suite)
    assert record.metrics["n_flagged"] == 1 and record.detail["flagged"] == [True, False, False, False]
    assert record.metrics["asr:cpp:fast"] == 50.0 and record.metrics["cpp:fast:exposed_flagged"] == 1
    flagged = EfficiencyRunner(None).summarize([record])[-1]
    # 9 slots (4 C++, 3 Python... as selected) each exposed by t1 and t2: half the exposures are t1's.
    assert flagged.rows == [{"model": "scripted:x", "method": "STAB", "generated": 4, "flagged": 1,
                             "flagged %": 25.0, "exposures from flagged %": 50.0}]


# Both print the number of pairs i < j; one counts them in O(n^2).
QUADRATIC = """#include <cstdio>
int main(){long long n; scanf("%lld",&n); volatile long long c=0;
for(long long i=0;i<n;i++) for(long long j=i+1;j<n;j++) c=c+1; printf("%lld\\n",(long long)c);}"""
LINEAR = """#include <cstdio>
int main(){long long n; scanf("%lld",&n); printf("%lld\\n",n*(n-1)/2);}"""


def test_real_runs_expose_a_quadratic_solution_on_a_large_n(sandbox, tmp_path, monkeypatch):
    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path))
    quadratic = Program(code=QUADRATIC, language=Language.CPP, name="quadratic.cpp")
    linear = Program(code=LINEAR, language=Language.CPP, name="linear.cpp")
    golden = [GoldenTest(input=f"{n}\n", output=f"{n * (n - 1) // 2}\n") for n in (1, 10, 6000)]
    problem = Problem(id="pairs", statement="n", time_limit_ms=300, solutions=[quadratic, linear], golden_tests=golden)
    runner = EfficiencyRunner(sandbox, tests=2, repeats=1, languages=["cpp"])
    record = runner.score(problem, TaskSpec(key="", task=None), _suite(["100000\n", "2\n"]))
    cpp = record.detail["languages"]["cpp"]
    assert cpp["excluded"] == [] and cpp["slots"]["slow"]["solution"] == "quadratic.cpp"
    # n = 10^5 is 5·10^9 increments: far past 300 ms; n = 2 is below every original test.
    assert cpp["slots"]["slow"]["outcomes"] == ["tle", "no"]
    assert record.metrics["cpp:slow:tle"] == 1 and record.metrics["cpp:slow:exposed"] == 1


QUADRATIC_JAVA = """import java.util.*;
public class Pairs { public static void main(String[] a) { long n = new Scanner(System.in).nextLong(); long c = 0;
for (long i = 0; i < n; i++) for (long j = i + 1; j < n; j++) c += (i ^ j) & 1; System.out.println(n * (n - 1) / 2 + 0 * c); } }"""
LINEAR_JAVA = """import java.util.*;
public class Fast { public static void main(String[] a) { long n = new Scanner(System.in).nextLong();
System.out.println(n * (n - 1) / 2); } }"""


@pytest.mark.e2e
@pytest.mark.skipif(shutil.which("javac") is None, reason="no JDK on this machine")
def test_java_solutions_are_ranked_and_exposed_too(sandbox, tmp_path, monkeypatch):
    """Java (a JDK is present): real JVM runs in the sandbox, same ASR rules."""
    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path))
    quadratic = Program(code=QUADRATIC_JAVA, language=Language.JAVA, name="Pairs.java")
    linear = Program(code=LINEAR_JAVA, language=Language.JAVA, name="Fast.java")
    # n = 15000 is ~10^8 inner steps: a clear CPU-time gap over JVM start-up noise, which
    # on a loaded machine swamped the ranking at n = 3000; medians of 3 runs on top.
    golden = [GoldenTest(input=f"{n}\n", output=f"{n * (n - 1) // 2}\n") for n in (1, 10, 15000)]
    problem = Problem(id="pairs-java", statement="n", time_limit_ms=1500, solutions=[quadratic, linear],
                      golden_tests=golden)
    runner = EfficiencyRunner(sandbox, tests=2, repeats=3)  # default languages include java
    record = runner.score(problem, TaskSpec(key="", task=None), _suite(["200000\n", "2\n"]))
    java = record.detail["languages"]["java"]
    assert java["excluded"] == [] and java["slots"]["slow"]["solution"] == "Pairs.java"
    assert java["slots"]["slow"]["outcomes"][0] in ("tle", "slow")
    assert java["slots"]["slow"]["outcomes"][1] == "no"


# The pairs problem's input validator (Kattis protocol: exit 42 accepts, 43 rejects):
# one integer n, 1 <= n <= 200000, on its own line.
PAIRS_VALIDATOR = r"""#include <cstdio>
int main(){ long long n; char nl;
 if (scanf("%lld%c", &n, &nl) != 2 || nl != '\n') { fprintf(stderr, "expected one integer n on a line\n"); return 43; }
 if (n < 1 || n > 200000) { fprintf(stderr, "n = %lld is out of [1, 200000]\n", n); return 43; }
 if (getchar() != EOF) { fprintf(stderr, "data after n\n"); return 43; }
 return 42; }"""


def test_the_run_browser_names_each_column_by_its_test_as_generated(sandbox, tmp_path, monkeypatch):
    """The input screen (issue 42) drops rejected tests before the runner times the
    rest, so the record's outcomes count the kept tests: the browser's columns must name
    the tests as generated. The problem's validator rejects t0 (n = 0) and t3 (not a
    number); t1 (n = 10^5) sends the quadratic solution past the limit, t2 (n = 2) does
    not; t4, past the budget of 4, is neither scored nor shown."""
    from tczoo.execution import REJECTED_NOTE, score_suite
    from tczoo.schema import Validator

    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path))
    quadratic = Program(code=QUADRATIC, language=Language.CPP, name="quadratic.cpp")
    linear = Program(code=LINEAR, language=Language.CPP, name="linear.cpp")
    golden = [GoldenTest(input=f"{n}\n", output=f"{n * (n - 1) // 2}\n") for n in (1, 10, 6000)]
    validator = Validator(program=Program(code=PAIRS_VALIDATOR, language=Language.CPP, name="validate.cpp"))
    problem = Problem(id="pairs", statement="n", time_limit_ms=300, solutions=[quadratic, linear], golden_tests=golden,
                      input_validators=[validator])
    runner = EfficiencyRunner(sandbox, tests=4, repeats=1, languages=["cpp"])
    suite = _suite(["0\n", "100000\n", "2\n", "x\n", "-1\n"])
    record = score_suite(runner, problem, TaskSpec(key="", task=None), suite)
    assert record.input_check is not None and record.input_check.kept == [1, 2]
    assert record.metrics["n_generated"] == 4 and record.metrics["n_invalid_input"] == 2
    [matrix] = runner.matrices(record, suite)
    assert matrix.tests == [0, 1, 2, 3]  # in the order generated; t4 lies past the budget
    rows = dict(matrix.rows)
    validity = rows["validity"]
    assert [c[0] for c in validity] == ["invalid", "valid", "valid", "invalid"]
    assert validity[1] == ["valid", "the input check (validator) accepted it"]
    assert validity[0][1] == REJECTED_NOTE + "input validator validate.cpp rejected it: n = 0 is out of [1, 200000]"
    assert validity[3][1] == REJECTED_NOTE + "input validator validate.cpp rejected it: expected one integer n on a line"
    slow = rows["slow: quadratic.cpp"]
    assert [c[0] for c in slow] == ["-", "tle", "no", "-"]
    assert "ms vs τ*" in slow[1][1] and "(TLE)" in slow[1][1]
    for label, cells in matrix.rows[1:]:
        assert cells[0] == cells[3] == ["-", "never run: the input check rejected it (in N_gen, exposing nothing)"]
    # a record made before the runner kept the reasons: positions from input_check, the
    # budget still applied (t4 was rejected too, but never counted)
    old = record.model_copy(update={"detail": {k: v for k, v in record.detail.items() if k != "rejected"}})
    [again] = runner.matrices(old, suite)
    assert again.tests == [0, 1, 2, 3]
    assert dict(again.rows)["validity"][0][1].startswith(REJECTED_NOTE + "not recorded per test")

"""The ``agreement`` runner (a suite as a judge of labelled submissions) and
``tczoo.submissions``: every metric by hand on a small matrix, macro vs micro over
problems, zoo-mini end to end through the real CLI, Fault Exposure with a targeted
method, the Kattis reference row (TPR 100) on a package the test writes, a program
that cannot run, and broken candidates files."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from harness_fixtures import SEPARATING, io_answer, script, zm01
from kattis_fixtures import ADD_PY, make_package
from tczoo.runners.agreement import AgreementRunner, agreement
from tczoo.runners.agreement_tables import REFERENCE, summarize
from tczoo.schema import ScoreRecord

ZM04_SAMPLE_1 = ("3 7\n10 15 8\n", "4\n")
ZM04_SAMPLE_2 = ("2 5\n9 4\n", "2\n")


def row(name: str, label: str, *verdicts: str, cannot_run: str = "") -> dict:
    return {"name": name, "label": label, "cannot_run": cannot_run, "verdicts": list(verdicts)}


# Usable tests at suite indices 0, 1, 3, 4 (suite test 2 cannot be judged). A2 fails
# position 1, so it is not sound: positions 0, 2, 3 are.
MATRIX = [
    row("A1", "accepted", "AC", "AC", "AC", "AC"),
    row("A2", "accepted", "AC", "WA", "AC", "AC"),
    row("A3", "accepted", "", "", "", "", cannot_run="compile error: ..."),
    row("W1", "wrong", "WA", "", "", ""),  # stopped at its first sound failure
    row("W2", "wrong", "AC", "WA", "AC", "AC"),  # fails only the unsound test
    row("W3", "wrong", "AC", "AC", "AC", "TLE"),  # detected by suite test 4
    row("W4", "wrong", "AC", "AC", "AC", "AC"),  # passes everything
    row("W5", "wrong", "AC", "AC", "SE", "AC"),  # a sandbox error on a sound test: undetermined
]
POSITIONS = [0, 1, 3, 4]


def test_every_metric_by_hand_on_a_small_matrix():
    m, facts = agreement(MATRIX, POSITIONS, coverage=(1, 2, 5), targets=["W1", "W2", "W3"])
    assert facts["sound"] == [0, 2, 3]
    # TP = A1; FN = A2; TN = W1 W2 W3; FP = W4; A3 cannot run, W5 undetermined: in no count
    assert (m["tp"], m["fn"], m["tn"], m["fp"]) == (1, 1, 3, 1)
    assert (m["n_cannot_run"], m["n_undetermined"]) == (1, 1)
    assert m["tpr"] == 50.0 and m["tnr"] == 75.0 and m["avg"] == 62.5
    assert m["fpr"] == 25.0 and m["fnr"] == 50.0
    assert m["consistency"] == pytest.approx(100 * 4 / 6)
    assert m["precision"] == 50.0 and m["recall"] == 50.0  # TP / (TP + FP), TP / (TP + FN)
    # DR by sound tests: W1 (test 0) and W3 (test 4) of W1-W4; W5 undetermined
    assert (m["dr_detected"], m["dr_n"], m["dr"]) == (2, 4, 50.0)
    assert "vacc" not in m  # one wrong submission's detection is unknown: VAcc cannot be said
    assert (m["cov@1"], m["cov@2"]) == (20.0, 20.0)  # W1 of all five (W5's SE is at test 3)
    assert (m["cov@5_detected"], m["cov@5_n"], m["cov@5"]) == (2, 4, 50.0)  # W5 unknown by test 5
    assert (m["exposed"], m["exposure_n"]) == (1, 3)  # only W1 fails the first test
    # every usable test detecting (detect_on: all): W2 counts too
    assert agreement(MATRIX, POSITIONS, detect_on="all")[0]["dr"] == 75.0
    # VAcc: 100 when every wrong submission is detected, 0 when one is not
    clean = [r for r in MATRIX if r["name"] in ("A1", "W1", "W3")]
    assert agreement(clean, POSITIONS)[0]["vacc"] == 100.0
    assert agreement([*clean, MATRIX[6]], POSITIONS)[0]["vacc"] == 0.0
    # a rate without a denominator is absent, never 0
    only_wrong, _ = agreement([MATRIX[3]], POSITIONS)
    assert "tpr" not in only_wrong and "precision" not in only_wrong and only_wrong["tnr"] == 100.0


def _record(pid: str, method: str, rows: list[dict], positions: list[int], **detail) -> ScoreRecord:
    metrics, _ = agreement(rows, positions)
    return ScoreRecord(runner="agreement", method=method, model="m", problem_id=pid,
                       metrics={"n_valid": float(len(positions)), **metrics},
                       detail={"coverage": [1, 5, 10, 20], "detect_on": "sound", **detail})


def test_macro_and_micro_averages_as_each_paper_has_them():
    p1 = _record("p1", "x", MATRIX, POSITIONS)  # TPR 50, TNR 75; TP 1 FN 1 TN 3 FP 1
    p2 = _record("p2", "x", [row("a", "accepted", "AC"), row("b", "accepted", "AC"), row("c", "accepted", "AC"),
                             row("w", "wrong", "WA")], [0])  # TPR 100, TNR 100; TP 3 TN 1
    failed = ScoreRecord(runner="agreement", method="x", model="m", problem_id="p3", metrics={"n_valid": 0.0},
                         detail={"failed": "no usable test (no_expected_output)", "coverage": [1, 5, 10, 20]})
    [table, counts] = summarize([p1, p2, failed])
    r = table.rows[0]
    assert (r["problems"], r["suites"]) == (2, 2)  # the failed suite is never a number
    assert r["TPR"] == 75.0 and r["TNR"] == 87.5 and r["Avg"] == pytest.approx(81.25)  # macro
    assert r["Recall"] == 80.0 and r["Precision"] == 80.0  # micro: 4 / 5 and 4 / (4 + 1)
    assert r["FPR"] == 20.0 and r["FNR"] == 20.0 and r["Consistency"] == 80.0  # micro: (4 + 4) / 10
    assert r["DR"] == 75.0 and r["VAcc"] == 100.0  # p1: DR 50, VAcc unknown; p2: 100, 100
    assert counts.rows[0]["failed suites"] == 1 and counts.rows[0]["TP"] == 4
    assert any("no usable test" in n or "without a single usable test" in n for n in table.notes)
    # two suites of one problem count as that problem once (their mean)
    again = summarize([p1, p2, _record("p2", "x", [row("a", "accepted", "WA")], [0])])[0].rows[0]
    assert again["TPR"] == pytest.approx((50 + 50) / 2)


def test_zoo_mini_end_to_end_through_the_cli(tmp_path):
    """CRUX's scripted tests on zm04: sample 1 with its right output, sample 2 with a
    wrong one (3 instead of 2). Every accepted code fails test 2 (TPR 0, FN 4) and so
    does every wrong code (TN 11); test 2 is not sound, so only the wrong code failing
    sample 1 (ceil_count) counts as detected: DR 1/11. The jury's golden tests are the
    reference row: TPR 100, and every wrong code of zm04 fails one (TNR 100)."""
    answer = "```json\n" + json.dumps([{"input": ZM04_SAMPLE_1[0], "output": ZM04_SAMPLE_1[1]},
                                       {"input": ZM04_SAMPLE_2[0], "output": "3\n"}]) + "\n```"
    model = script(tmp_path / "m.jsonl", [(r"Write \d+ test cases for this problem", answer)])
    done = subprocess.run([sys.executable, "-m", "tczoo.cli", "run", "--method", "crux", "--runner", "agreement",
                           "--model", model, "--problems", "zm04", "--out", str(tmp_path / "run"), "-f", "json"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    tables = {t["title"]: t for t in json.loads(done.stdout)}
    main = next(t for title, t in tables.items() if title.startswith("The suite as a judge"))
    crux = next(r for r in main["rows"] if r["method"] == "crux")
    assert (crux["TPR"], crux["TNR"], crux["Avg"], crux["Precision"]) == (0.0, 100.0, 50.0, None)
    assert crux["Consistency"] == pytest.approx(100 * 11 / 15)
    assert crux["DR"] == pytest.approx(100 / 11) and crux["VAcc"] == 0.0 and crux["Cov@1"] == pytest.approx(100 / 11)
    ref = next(r for r in main["rows"] if r["method"] == REFERENCE)
    assert (ref["TPR"], ref["TNR"], ref["DR"], ref["VAcc"], ref["Cov@20"]) == (100.0, 100.0, 100.0, 100.0, 100.0)
    counts = next(t for title, t in tables.items() if title.startswith("Labelled submissions"))
    c = next(r for r in counts["rows"] if r["method"] == "crux")
    assert (c["TP"], c["FN"], c["TN"], c["FP"], c["usable tests"], c["sound tests"]) == (0, 4, 11, 0, 2, 1)


def test_fault_exposure_with_a_targeted_method(sandbox, tmp_path):
    """io is given each wrong program of zm01 as its target and (scripted) answers with
    SEPARATING and its right output 5. A target is exposed when it fails that one test:
    greedy_by_deadline does (it prints 4); the rate is checked against the sandbox's own
    judge of every wrong program on SEPARATING."""
    import asyncio

    from tczoo.report import run_tables
    from tczoo.distributed.cluster import LocalCluster
    from tczoo.run import RunOptions, run
    from tczoo.llm import LLMSettings
    from tczoo.schema import RunConfig

    problem = zm01()
    model = script(tmp_path / "m.jsonl", [(r"\*\*test cases\*\*", io_answer((SEPARATING, "5")))])
    config = RunConfig(methods=["io"], model=model, benchmark="zoo-mini", problems=["zm01"], runner="agreement",
                       params={"runner:agreement": {"reference": False}})
    store = asyncio.run(run(config, tmp_path / "run", RunOptions(settings=LLMSettings(cache=False, retries=0)),
                            cluster=LocalCluster(sandbox)))
    scores = store.scores()
    assert len(scores) == len(problem.wrong_solutions)  # one task per wrong-labelled submission
    assert all("target" in s.detail for s in scores), [s.detail for s in scores if "target" not in s.detail]
    exposed = {s.detail["target"]: s.detail["exposed"] for s in scores}
    assert exposed["wrong/greedy_by_deadline.cpp"] is True
    expected = {w.name: sandbox.judge(w, SEPARATING, "5\n", problem_limits(problem), problem.checker).verdict.value
                != "AC" for w in problem.wrong_solutions}
    assert exposed == expected
    _, tables = run_tables(store.root)
    table = next(t for t in tables if t.title.startswith("Fault Exposure"))
    assert table.rows[0]["Exposure"] == pytest.approx(100 * sum(expected.values()) / len(expected))
    assert table.rows[0]["targets"] == len(expected)


def make_problem_without_golden(problem):
    return problem.model_copy(update={"golden_tests": []})


def problem_limits(problem):
    from tczoo.sandbox import Limits

    return Limits.of(problem)


def test_kattis_reference_row_gives_tpr_100_on_a_package_the_test_writes(sandbox, tmp_path):
    """The jury's own tests accept every accepted submission (TPR 100) and reject the
    wrong answer, the time-limit and the run-time-error submissions; each keeps its
    folder's category. A submission that does not compile is reported, never counted."""
    from tczoo.benchmarks import load_benchmark

    make_package(tmp_path, files={"submissions/wrong_answer/broken.cpp": "int main( { return 0; }\n",
                                  "submissions/accepted/add2.py": ADD_PY.replace("a + b", "b + a")})
    [problem] = load_benchmark(f"kattis:{tmp_path}", sandbox=sandbox)
    runner = AgreementRunner(sandbox)
    subs = {s.name: s for s in runner.submissions(problem)}
    assert {n: (s.label.value, s.category, s.source.value) for n, s in subs.items()} == {
        "accepted/add.cpp": ("accepted", None, "jury"), "accepted/add.py": ("accepted", None, "jury"),
        "accepted/add2.py": ("accepted", None, "jury"),
        "wrong_answer/broken.cpp": ("wrong", "WA", "jury"),
        "wrong_answer/off_by_seven.py": ("wrong", "WA", "jury"),
        "time_limit_exceeded/loops_on_seven.py": ("wrong", "TLE", "jury"),
        "run_time_error/asserts.py": ("wrong", "RE", "jury"),
    }
    ref = runner.reference(problem)
    m = ref["metrics"]
    assert (m["tpr"], m["tnr"], m["tp"], m["tn"], m["n_cannot_run"]) == (100.0, 100.0, 3, 3, 1)
    assert ref["submissions"]["wrong_answer/broken.cpp"][0] == "cannot_run"
    assert ref["submissions"]["time_limit_exceeded/loops_on_seven.py"][0] == "reject"
    # computed once per process: another runner (cross-scoring makes one per cell) needs no sandbox for it
    assert AgreementRunner(None).reference(problem) is ref
    assert "metrics" not in AgreementRunner(None, detect_on="all").reference(make_problem_without_golden(problem))
    # and through a score record: the reference row of the table
    from tczoo.runner import TaskSpec
    from tczoo.schema import Provenance, TestCase, TestSuite

    suite = TestSuite(problem_id=problem.id, tests=[TestCase(input="1 2\n", output="3\n")],
                      provenance=Provenance(method="crux", model="m"))
    record = runner.score(problem, TaskSpec(key="", task=None), suite)  # type: ignore[arg-type]
    table = summarize([record])[0]
    assert next(r for r in table.rows if r["method"] == REFERENCE)["TPR"] == 100.0
    assert any("cannot run here" in n and "broken.cpp" in n for n in table.notes)


def test_candidates_labelled_by_golden_tests_resumed_and_judged(tmp_path):
    """tczoo candidates with a scripted model on zm01: a right program (accepted), a
    wrong one (wrong, its first failing golden verdict as category), an answer without
    code (an error record). The same command again adds nothing; -n 4 adds only the
    fourth. The file then judges suites as the agreement runner's candidates."""
    problem = zm01()
    code = {p.name: p.code for p in [*problem.solutions, *problem.wrong_solutions]}
    fast = "```cpp\n" + code["accepted/fast.cpp"] + "\n```"
    greedy = "```cpp\n" + code["wrong/greedy_by_deadline.cpp"] + "\n```"
    model = script(tmp_path / "solver.jsonl", [("Write a solution in", [fast, greedy, "I give up."])])
    out = tmp_path / "cands.jsonl"

    def cli(*args: str, by: str = model) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "tczoo.cli", "candidates", "--model", by, "-p", "zm01",
                               "--out", str(out), *args], capture_output=True, text=True, timeout=600)

    done = cli("-n", "3")
    assert done.returncode == 0, done.stderr[-2000:]
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert [(r["name"], r.get("label"), r.get("category"), "error" in r) for r in recs] == [
        ("sample-0", "accepted", None, False), ("sample-1", "wrong", "WA", False), ("sample-2", None, None, True)]
    assert recs[0]["evidence"]["passed"] == recs[0]["evidence"]["tests"] == len(problem.golden_tests)
    assert recs[1]["evidence"]["verdict"] == "WA" and recs[1]["generator"] == model
    assert "1 answer(s) had no usable code" in done.stderr and "[1/1] zm01-commission-deadlines" in done.stderr
    before = out.read_text()
    assert cli("-n", "3").returncode == 0 and out.read_text() == before  # resumed: nothing to add
    assert cli("-n", "4").returncode == 0
    assert [json.loads(x)["name"] for x in out.read_text().splitlines()] == [f"sample-{i}" for i in range(4)]
    # another model's file is refused, in one line
    other = cli("-n", "1", by=script(tmp_path / "other.jsonl", [("", "no")]))
    assert other.returncode == 2 and "holds candidates of" in other.stderr
    # the candidates judge a suite: sample 1 of zm01 passes both programs' codes
    runner = AgreementRunner(None, candidates=str(out), sources=["candidate"], reference=False)
    subs = runner.submissions(problem)
    assert [(s.name, s.label.value, s.source.value) for s in subs] == [
        ("sample-0", "accepted", "candidate"), ("sample-1", "wrong", "candidate"),
        ("sample-3", "accepted", "candidate")]


def test_a_broken_candidates_file_is_one_line_naming_file_and_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"problem_id": "zm01", "code": "print(1)"}\n{"problem_id": "zm01", "label": "right"}\n')
    model = script(tmp_path / "m.jsonl", [("", "[]")])
    done = subprocess.run([sys.executable, "-m", "tczoo.cli", "run", "--method", "crux", "--runner", "agreement",
                           "--model", model, "--problems", "zm01",
                           "--out", str(tmp_path / "run"), "--params",
                           json.dumps({"runner:agreement": {"candidates": str(bad)}})],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert f"{bad}:2:" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "run").exists()  # nothing written before the check


def test_a_torn_last_line_is_cut_before_appending(tmp_path):
    from tczoo.submissions import CandidateRecord, append_candidates, read_candidates

    path = tmp_path / "c.jsonl"
    path.write_text('{"problem_id": "p", "name": "a", "code": "print(1)"}\n{"problem_id": "p", "na')
    append_candidates(path, [CandidateRecord(problem_id="q", name="b", code="print(2)", language="python")])
    held = read_candidates(path)
    assert [r.name for r in held.by_problem["p"]] == ["a"] and [r.name for r in held.by_problem["q"]] == ["b"]


def test_a_suite_without_a_usable_test_is_failed_not_a_number(sandbox):
    from tczoo.runner import TaskSpec
    from tczoo.schema import Provenance, TestCase, TestSuite

    problem = zm01()
    suite = TestSuite(problem_id=problem.id, tests=[TestCase(input="1\n1 5\n")],  # no expected output
                      provenance=Provenance(method="crux", model="m"))
    record = AgreementRunner(sandbox, reference=False).score(problem, TaskSpec(key="", task=None), suite)  # type: ignore[arg-type]
    assert record.metrics == {"n_tests": 1.0} and record.n_valid == 0
    assert "no usable test" in record.detail["failed"]
    [table, _] = summarize([record])
    assert table.rows[0]["TPR"] == "no valid tests"


@pytest.mark.parametrize("line, says", [
    ("not json", "not a JSON record"),
    ('["a list"]', "a candidate is a JSON object"),
    ('{"problem_id": "p", "name": "x"}', "needs code"),
    ('{"problem_id": "p", "code": "x", "language": "cobol"}', "unknown language"),
    ('{"problem_id": "p", "error": "no_code_block", "label": "wrong"}', "a label without code"),
    ('{"code": "print(1)"}', "problem_id"),
])
def test_every_broken_candidate_line_names_file_and_line(tmp_path, line, says):
    from tczoo.errors import UserError
    from tczoo.submissions import read_candidates

    path = tmp_path / "c.jsonl"
    path.write_text('{"problem_id": "p", "code": "print(1)"}\n\n' + line + "\n")
    with pytest.raises(UserError, match=says) as err:
        read_candidates(path)
    assert str(err.value).startswith(f"{path}:3:")


def test_benchmark_programs_keep_their_published_verdict_as_category():
    from tczoo.schema import FailureSignature, Language, Problem, Program, WrongProgram
    from tczoo.submissions import labelled_submissions

    problem = Problem(id="p", statement="s", source="tcbench",
                      solutions=[Program(code="a", language=Language.CPP, name="solution-0")],
                      wrong_solutions=[WrongProgram(code="b", language=Language.CPP, name="wrong-0",
                                                    signature=FailureSignature(verdicts=["AC", "TLE", "WA"])),
                                       WrongProgram(code="c", language=Language.CPP, name="wrong-0")])
    subs = labelled_submissions(problem)
    assert [(s.name, s.label.value, s.category, s.source.value) for s in subs] == [
        ("solution-0", "accepted", None, "benchmark"), ("wrong-0", "wrong", "TLE", "benchmark"),
        ("wrong-0#2", "wrong", None, "benchmark")]  # names stay unique within the problem


def test_candidates_of_a_problem_without_golden_tests_stay_unlabelled(sandbox, tmp_path):
    import asyncio

    from tczoo.candidates import generate
    from tczoo.llm import LLMSettings
    from tczoo.schema import Problem
    from tczoo.submissions import read_candidates

    problem = Problem(id="nogolden", statement="Print 1.", source="tcbench")
    model = script(tmp_path / "m.jsonl", [("Write a solution in", "```python\nprint(1)\n```")])
    out = tmp_path / "c.jsonl"
    summary = asyncio.run(generate(model, [problem], 2, out, sandbox=sandbox,
                                   settings=LLMSettings(cache=False, retries=0)))
    assert summary.as_dict()["unlabelled"] == 2 and summary.problems[0].note == "no golden tests"
    held = read_candidates(out)
    assert [(r.name, r.label, r.unlabelled) for r in held.by_problem["nogolden"]] == [
        ("sample-0", None, "no golden tests"), ("sample-1", None, "no golden tests")]
    assert held.labelled("nogolden") == [] and len(held.programs("nogolden")) == 2


@pytest.mark.parametrize("args, says", [
    (["--language", "cobol"], "--language"),
    (["--template", "candidates/nope"], "--template candidates/nope"),
])
def test_candidates_usage_errors_are_one_line(tmp_path, args, says):
    model = script(tmp_path / "m.jsonl", [("", "no")])
    done = subprocess.run([sys.executable, "-m", "tczoo.cli", "candidates", "--model", model, "-p", "zm01",
                           "--out", str(tmp_path / "c.jsonl"), *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and says in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "c.jsonl").exists()


def test_a_run_the_wall_clock_guard_stopped_below_the_cpu_limit_runs_again(sandbox):
    """A loaded machine starves a program until the wall-clock guard stops it, far
    below its CPU limit (a sleep stands in for the starvation here): that is the
    machine's load, not a verdict, so the run gets a ten times wider guard. A program
    that still does not finish keeps its TLE."""
    from tczoo.execution import SuiteJudge
    from tczoo.sandbox import Limits
    from tczoo.schema import Language, Oracle, OracleKind, Problem, Program, TestCase

    problem = Problem(id="p", statement="print 1")
    late = Program(code="import time\ntime.sleep(0.6)\nprint(1)\n", language=Language.PYTHON, name="late")
    never = Program(code="import time\ntime.sleep(60)\nprint(1)\n", language=Language.PYTHON, name="never")
    judge = SuiteJudge(sandbox, problem, [TestCase(input="", output="1\n")], Oracle(kind=OracleKind.EXPECTED_OUTPUT),
                       limits=Limits(time_ms=2000, wall_ms=300))
    [a, b] = judge.judge([late, never])
    assert a.verdicts == ["AC"] and b.verdicts == ["TLE"]


def test_bug_finding_and_verdicts_take_labelled_candidates_too(tmp_path):
    """A candidates file gives bug finding more buggy programs (a wrong candidate is the
    f of a triplet) and the verdict runner more codes to judge, with their labels."""
    from tczoo.methods.harnessllm.io import InputOutput
    from tczoo.runners.bugfind import BugfindRunner
    from tczoo.runners.verdict import VerdictRunner

    problem = zm01()
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [
        {"problem_id": problem.id, "name": "sample-0", "language": "python", "code": "print(0)", "label": "wrong",
         "category": "WA"},
        {"problem_id": problem.id, "name": "sample-1", "language": "python", "code": "print(1)", "label": "accepted"},
        {"problem_id": problem.id, "name": "sample-2", "language": "python", "code": "print(2)"},  # unlabelled
    ]) + "\n")
    own = len(problem.wrong_solutions)
    bugfind = BugfindRunner(None, candidates=str(path), responses=1)
    specs = bugfind.tasks(problem, InputOutput, samples=1, seed=0)
    assert len(specs) == own + 1 and specs[-1].key == "candidate/sample-0/s0"
    assert specs[-1].task.target.code == "print(0)" and specs[-1].context["wrong"] == own
    codes = VerdictRunner(None, candidates=str(path), per_label=None, languages=["python"]).codes(problem)
    names = {(label, name) for label, name, _ in codes}
    assert (False, "candidate/sample-0") in names and (True, "candidate/sample-1") in names
    assert not any("sample-2" in name for _, name in names)
    assert len(VerdictRunner(None, per_label=None, languages=["python"]).codes(problem)) == len(codes) - 2


def test_candidates_for_a_functional_problem_and_the_suite_judging_them(sandbox, tmp_path):
    """A problem with an entry point: the function prompt, the candidates called directly
    and labelled by golden tests given as JSON arguments; the agreement runner then judges
    a suite with them (functional outputs compare as Python values)."""
    import asyncio

    from harness_fixtures import second_largest
    from tczoo.candidates import generate
    from tczoo.llm import LLMSettings
    from tczoo.runner import TaskSpec
    from tczoo.schema import GoldenTest, Provenance, TestCase, TestSuite

    base = second_largest()
    problem = base.model_copy(update={"golden_tests": [GoldenTest(input='{"nums": [5, 5, 3]}', output="3"),
                                                       GoldenTest(input='{"nums": [7]}', output="None")]})
    good, bad = base.solutions[0].code, base.wrong_solutions[0].code
    model = script(tmp_path / "m.jsonl", [("Implement the Python function `second_largest`",
                                           [f"```python\n{good}```", f"```python\n{bad}```", "```cpp\nint main(){}\n```"])])
    out = tmp_path / "c.jsonl"
    asyncio.run(generate(model, [problem], 3, out, sandbox=sandbox, settings=LLMSettings(cache=False, retries=0)))
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert [(r["name"], r.get("label"), r.get("category")) for r in recs] == [
        ("sample-0", "accepted", None), ("sample-1", "wrong", "WA"), ("sample-2", None, None)]
    # a program with a syntax error cannot run: labelled wrong, category CE, never run on a test
    from tczoo.schema import Language, Program
    from tczoo.submissions import label_by_golden

    [broken] = label_by_golden(sandbox, problem, [Program(code="def second_largest(nums:\n", language=Language.PYTHON)])
    assert (broken.label.value, broken.category, broken.evidence.run) == ("wrong", "CE", 0)
    assert "SyntaxError" in broken.evidence.detail
    runner = AgreementRunner(sandbox, candidates=str(out), reference=False)
    suite = TestSuite(problem_id=problem.id, tests=[TestCase(input='{"nums": [5, 5, 3]}', output="3")],
                      provenance=Provenance(method="io", model="m"))
    m = runner.score(problem, TaskSpec(key="", task=None), suite).metrics  # type: ignore[arg-type]
    assert (m["tp"], m["fn"], m["tn"], m["fp"]) == (2, 0, 2, 0)  # good + sample-0; not_distinct + sample-1


def test_dr_and_vacc_at_k_on_the_first_k_tests_by_hand():
    """SAGA's DR@k and VAcc@k (Table 2) judge with the suite's first k tests (suite
    indices, not usable positions): W1 fails suite test 0, W3 suite test 4."""
    m, _ = agreement(MATRIX, POSITIONS, at=(2, 5), coverage=())
    # k = 2: every wrong one is decided (W5's sandbox error is at suite test 3), only W1 detected
    assert (m["cov@2_n"], m["cov@2_detected"], m["cov@2"], m["vacc@2"]) == (5.0, 1.0, 20.0, 0.0)
    # k = 5: W5 is undetermined (left out) and VAcc, which needs every wrong one decided, is absent
    assert (m["cov@5_n"], m["cov@5_detected"], m["cov@5"]) == (4.0, 2.0, 50.0) and "vacc@5" not in m
    clean = [r for r in MATRIX if r["name"] in ("A1", "W1", "W3")]
    m, _ = agreement(clean, POSITIONS, at=(2, 5), coverage=())
    assert (m["cov@2"], m["vacc@2"], m["cov@5"], m["vacc@5"]) == (50.0, 0.0, 100.0, 100.0)
    assert m["vacc"] == 100.0  # the whole suite: the same as k = 5 here


def test_the_tables_say_how_large_the_suites_were_and_who_judged_them():
    def rec(pid, method, rows, n_tests, judged):
        metrics, _ = agreement(rows, POSITIONS, at=(2, 5), coverage=(1,))
        return ScoreRecord(runner="agreement", method=method, model="m", problem_id=pid, n_valid=len(POSITIONS),
                           metrics={"n_tests": float(n_tests), **metrics},
                           detail={"coverage": [1], "at": [2, 5], "detect_on": "sound", "judged": judged,
                                   "submissions": [{**r, "status": "reject"} for r in rows]})

    clean = [r for r in MATRIX if r["name"] in ("A1", "W1", "W3")]
    tables = summarize([rec("p1", "saga", clean, 6, "all"), rec("p2", "saga", MATRIX, 10, "all"),
                        rec("p1", "crux", clean, 5, "held_out")])
    main, counts = tables[0], tables[1]
    assert main.columns[:5] == ["model", "method", "problems", "suites", "tests/suite"]
    assert {"DR@2", "VAcc@2", "DR@5", "VAcc@5"} <= set(main.columns)
    rows = {r["method"]: r for r in main.rows}
    assert rows["saga"]["tests/suite"] == 8.0 and rows["crux"]["tests/suite"] == 5.0
    assert rows["saga"]["DR@2"] == pytest.approx((50.0 + 20.0) / 2)  # macro over problems
    assert rows["saga"]["VAcc@5"] == 100.0  # p2 has none (undetermined): the mean over p1 only
    judged = {r["method"]: r["judged"] for r in counts.rows}
    assert judged == {"saga": "all", "crux": "held out"}
    assert any("DR@k and VAcc@k judge with a suite's first k tests" in n for n in main.notes)


def test_the_run_browser_names_each_column_by_its_test_as_generated(sandbox):
    """The input screen (issue 42) drops rejected tests before the runner numbers the
    rest: the browser's columns must still name the tests as generated. zm04's own
    validator rejects t0 (not numbers) and t4 (n = 0); the runner sees t1 (sample 1,
    right output: sound), t2 (no expected output: unusable) and t3 (sample 2, wrong
    output: usable, not sound), numbered 0, 1, 2 among those kept."""
    from tczoo.benchmarks import load_benchmark
    from tczoo.execution import REJECTED_NOTE, score_suite
    from tczoo.runner import TaskSpec
    from tczoo.schema import Provenance, TestCase, TestSuite

    [problem] = load_benchmark("zoo-mini", ["zm04"])
    generated = [TestCase(input="<script>x</script>\n", output="1\n"),
                 TestCase(input=ZM04_SAMPLE_1[0], output=ZM04_SAMPLE_1[1]),
                 TestCase(input="1 1\n5\n"),
                 TestCase(input=ZM04_SAMPLE_2[0], output="3\n"),
                 TestCase(input="0 1\n\n", output="0\n")]
    suite = TestSuite(problem_id=problem.id, tests=generated, provenance=Provenance(method="crux", model="m"))
    runner = AgreementRunner(sandbox, reference=False)
    record = score_suite(runner, problem, TaskSpec(key="", task=None), suite)  # type: ignore[arg-type]
    assert record.input_check is not None and record.input_check.kept == [1, 2, 3]
    [matrix] = runner.matrices(record, suite)
    # usable ones in suite order, then the unusable one, then those the screen rejected
    assert matrix.tests == [1, 3, 2, 0, 4]
    assert matrix.rows[0][0] == "validity"  # the row the browsers' tests tables read
    named = dict(zip(matrix.tests, matrix.rows[0][1]))
    assert named[1] == ["valid", "usable and sound: every accepted submission passes it"]
    assert named[3] == ["invalid", "usable, not sound: an accepted submission fails it"]
    assert named[2][0] == "invalid" and "cannot judge" in named[2][1]
    for rejected in (0, 4):
        code, note = named[rejected]
        assert code == "invalid" and note.startswith(REJECTED_NOTE + "input validator"), note
    assert named[0][1] != named[4][1]  # each its own reason (not numbers / n out of range)
    # the submissions' verdicts sit under the tests they ran on
    accepted = [cells for label, cells in matrix.rows[1:] if "[accepted" in label]
    assert accepted and all(dict(zip(matrix.tests, cells))[1][0] == "AC" for cells in accepted)
    assert all(dict(zip(matrix.tests, cells))[3][0] == "WA" for cells in accepted)  # the wrong output 3
    for _, cells in matrix.rows[1:]:
        by_test = dict(zip(matrix.tests, cells))
        assert by_test[0][0] == by_test[4][0] == "-" and "input check rejected" in by_test[0][1]
        assert by_test[2][0] == "-"
    # a record made before the runner kept the reasons: the positions from input_check
    old = record.model_copy(update={"detail": {k: v for k, v in record.detail.items() if k != "rejected"}})
    [again] = runner.matrices(old, suite)
    assert again.tests == [1, 3, 2, 0, 4]
    assert "not recorded per test" in again.rows[0][1][3][1] and named[0][1][len(REJECTED_NOTE):] in again.rows[0][1][3][1]


def test_a_suite_whose_every_input_is_rejected_fails_and_shows_them(sandbox):
    from tczoo.benchmarks import load_benchmark
    from tczoo.execution import score_suite
    from tczoo.runner import TaskSpec
    from tczoo.schema import Provenance, TestCase, TestSuite

    [problem] = load_benchmark("zoo-mini", ["zm04"])
    suite = TestSuite(problem_id=problem.id, tests=[TestCase(input="hello\n", output="1\n")],
                      provenance=Provenance(method="crux", model="m"))
    runner = AgreementRunner(sandbox, reference=False)
    record = score_suite(runner, problem, TaskSpec(key="", task=None), suite)  # type: ignore[arg-type]
    assert record.n_valid == 0 and "no test the problem's input check accepts (1 rejected)" in record.detail["failed"]
    [matrix] = runner.matrices(record, suite)
    assert matrix.tests == [0] and matrix.rows == [("validity", [matrix.rows[0][1][0]])]
    assert matrix.rows[0][1][0][0] == "invalid" and "input validator" in matrix.rows[0][1][0][1]


def test_a_broken_rejected_list_in_a_record_is_passed_over_not_shown():
    """A record read back from disk may hold anything: only entries with a position
    (a non-negative int, not a bool) become columns; a missing reason is '?'."""
    from tczoo.execution import REJECTED_NOTE
    from tczoo.schema import InputCheck

    record = _record("zm04", "crux", [row("A1", "accepted", "AC")], [0], tests=[{"test": 0, "usable": True}],
                     submissions=[row("A1", "accepted", "AC")],
                     rejected=[{"index": True}, {"index": -1}, {"index": "2"}, "x", {"index": 2, "reason": None},
                               {"index": 0, "reason": "bad"}])
    record.detail["positions"] = [0]
    record.input_check = InputCheck(by="validator", tests=3, rejected=2, reasons=["bad"], kept=[1])
    [matrix] = AgreementRunner().matrices(record, None)  # type: ignore[arg-type]
    assert matrix.tests == [1, 2, 0]
    assert [c[1] for c in matrix.rows[0][1][1:]] == [REJECTED_NOTE + "?", REJECTED_NOTE + "bad"]


def test_a_rejected_test_takes_its_place_in_the_windows(sandbox):
    """Cov@N and DR@k read the suite's first N tests *as generated*: a test the input
    screen rejected fills its slot and detects nothing, so an invalid first test is a
    failed attempt, not a free second chance for the test after it (docs/agreement.md)."""
    from tczoo.benchmarks import load_benchmark
    from tczoo.execution import score_suite
    from tczoo.runner import TaskSpec
    from tczoo.schema import Provenance, TestCase, TestSuite

    [problem] = load_benchmark("zoo-mini", ["zm04"])
    runner = AgreementRunner(sandbox, reference=False, coverage=[1, 2])

    def scored(tests):
        suite = TestSuite(problem_id=problem.id, tests=tests, provenance=Provenance(method="crux", model="m"))
        return score_suite(runner, problem, TaskSpec(key="", task=None), suite)  # type: ignore[arg-type]

    golden = [TestCase(input=g.input, output=g.output) for g in problem.golden_tests]
    exposing, alone = next((t, r) for t in golden for r in [scored([t])] if r.metrics.get("cov@1", 0) > 0)
    after = scored([TestCase(input="<b>x</b>\n", output="1\n"), exposing])
    assert after.input_check is not None and after.input_check.kept == [1]
    assert after.metrics["cov@1"] == 0.0  # the window of one holds the rejected test
    assert after.metrics["cov@2"] == alone.metrics["cov@1"] > 0  # the exposing test counts from its own place

"""The verdict runner: MCC, P4, stability and overlap against hand-computed confusion
matrices; the (code, label) pairs it draws; the loaders of LiveCodeBench evaluation
output and CoCoClaNeL; the three methods end to end through ``tczoo run`` with a
scripted model, and the ``tczoo trails`` commands."""

from __future__ import annotations

import asyncio
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from trails_fixtures import COT, HOARE_VERDICT, INPUTS, JUDGE, PRECONDITION, PROPERTIES, SCENARIOS, inputs, scenarios
from harness_fixtures import script, zm01
from tczoo.runners.verdict import VerdictRunner, confusion, mcc, p4
from tczoo.schema import ScoreRecord, Setting

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "verdict"

# --------------------------------------------------------------------------- metrics by hand


@pytest.mark.parametrize("cm, want_mcc, want_p4", [
    ((1, 1, 1, 1), 0.0, 0.5),  # TP FP TN FN
    ((2, 0, 2, 0), 1.0, 1.0),
    ((0, 2, 0, 2), -1.0, 0.0),
    ((2, 1, 1, 0), 2 / math.sqrt(12), 8 / 11),
    ((3, 0, 0, 0), 0.0, 0.0),  # one class only: undefined -> 0
    ((0, 0, 0, 0), 0.0, 0.0),
    ((5, 2, 10, 3), (50 - 6) / math.sqrt(7 * 8 * 12 * 13), 4 * 50 / (200 + 15 * 5)),
])
def test_mcc_and_p4(cm, want_mcc, want_p4):
    assert mcc(*cm) == pytest.approx(want_mcc) and p4(*cm) == pytest.approx(want_p4)


def test_p4_is_the_harmonic_mean_of_its_four_rates():
    tp, fp, tn, fn = 5, 2, 10, 3
    rates = [tp / (tp + fp), tp / (tp + fn), tn / (tn + fp), tn / (tn + fn)]
    assert p4(tp, fp, tn, fn) == pytest.approx(4 / sum(1 / r for r in rates))
    assert confusion([(True, True), (True, False), (False, True), (False, False), (False, False)]) == (1, 1, 2, 1)


def rec(method: str, code: str, label: bool, run: int, pred: bool | None = None, score: float | None = None,
        tokens: float = 0.0, dataset: str = "ds", reason: str = "judged") -> ScoreRecord:
    metrics = {"label": float(label), "run": float(run), "tokens": tokens, "decided": 0.0}
    if score is not None:
        pred = score > 0.8
        for tau in (0.6, 0.7, 0.8):
            metrics[f"pred@{tau:g}"] = float(score > tau)
        metrics["score"] = score
    elif pred is not None:
        for tau in (0.6, 0.7, 0.8):
            metrics[f"pred@{tau:g}"] = float(pred)
    if pred is not None:
        metrics["decided"], metrics["pred"] = 1.0, float(pred)
    return ScoreRecord(runner="verdict", method=method, model="m", problem_id="p", task=f"{code}/r{run}",
                       metrics=metrics, detail={"dataset": dataset, "code": code, "label": label, "run": run,
                                                "graded": score is not None, "reason": reason})


# Four codes (c1, c2 correct; w1, w2 incorrect), two runs, three methods.
COT_PREDS = {("c1", 0): True, ("c2", 0): False, ("w1", 0): False, ("w2", 0): True,
             ("c1", 1): True, ("c2", 1): True, ("w1", 1): False, ("w2", 1): False}
TRAILS_SCORES = {("c1", 0): 0.9, ("c2", 0): 0.7, ("w1", 0): 0.5, ("w2", 0): 0.75,
                 ("c1", 1): 1.0, ("c2", 1): 0.65, ("w1", 1): 0.8, ("w2", 1): 0.3}
HOARE_PREDS = {("c1", 0): True, ("c2", 0): None, ("w1", 0): False, ("w2", 0): False,
               ("c1", 1): True, ("c2", 1): False, ("w1", 1): False, ("w2", 1): False}


def records() -> list[ScoreRecord]:
    out = []
    for (code, run), pred in COT_PREDS.items():
        out.append(rec("cot", code, code[0] == "c", run, pred=pred, tokens=1000.0))
    for (code, run), score in TRAILS_SCORES.items():
        out.append(rec("trails", code, code[0] == "c", run, score=score, tokens=20_000.0 + 1000 * run))
    for (code, run), pred in HOARE_PREDS.items():
        out.append(rec("hoareprompt", code, code[0] == "c", run, pred=pred, tokens=5000.0,
                       reason="judged" if pred is not None else "call_budget"))
    return out


def tables():
    t1, t1_wrong, t2, t3, t4 = VerdictRunner(None).summarize(records())
    assert "undecided tasks counted as wrong predictions" in t1_wrong.title  # the other reading, printed beside
    return t1, t2, t3, t4


def test_table1_against_hand_computed_matrices():
    t1, *_ = tables()
    [row] = t1.rows
    # cot: run 0 TP1 FP1 TN1 FN1 (MCC 0, P4 .5); run 1 TP2 TN2 (1, 1)
    assert row["cot MCC"] == pytest.approx(0.5) and row["cot P4"] == pytest.approx(0.75)
    # trails τ=0.6: both runs TP2 FP1 TN1 FN0; τ=0.7: TP1 FP1 TN1 FN1 (0.7 and 0.8 are not above 0.7... 0.8 is)
    r = 2 / math.sqrt(12)
    assert row["trails τ=0.6 MCC"] == pytest.approx(r) and row["trails τ=0.6 P4"] == pytest.approx(8 / 11)
    assert row["trails τ=0.7 MCC"] == pytest.approx(0.0) and row["trails τ=0.7 P4"] == pytest.approx(0.5)
    # τ=0.8: a score of exactly 0.8 is not above it: TP1 FN1 TN2 in both runs
    assert row["trails τ=0.8 MCC"] == pytest.approx(r) and row["trails τ=0.8 P4"] == pytest.approx(8 / 11)
    assert row["trails τ=0.8 MCC Δ%"] == pytest.approx(100 * (r - 0.5) / 0.5)
    assert row["trails τ=0.8 P4 Δ%"] == pytest.approx(100 * (8 / 11 - 0.75) / 0.75)
    # hoareprompt: run 0 without the undecided c2: TP1 TN2 (1, 1); run 1 TP1 FN1 TN2
    assert row["hoareprompt MCC"] == pytest.approx((1 + r) / 2)
    assert row["hoareprompt P4"] == pytest.approx((1 + 8 / 11) / 2)
    assert row["trails tokens (k)"] == pytest.approx(20.5) and row["cot tokens (k)"] == pytest.approx(1.0)
    assert (row["codes"], row["runs"], row["undecided"]) == (4, 2, 1)
    assert "cot MCC Δ%" not in t1.columns  # the baseline has no change against itself
    assert t1.columns.index("trails τ=0.6 MCC") < t1.columns.index("hoareprompt MCC") < t1.columns.index("cot MCC")
    assert t1.decimals == 3


def test_undecided_codes_counted_as_wrong_predictions_by_hand():
    """The paper gives every code a label: with ``undecided="wrong"`` hoareprompt's
    undecided c2 (a correct code) in run 0 is a false negative."""
    dropped, wrong, *_ = VerdictRunner(None).summarize(records())
    [row] = wrong.rows
    # run 0: c1 TP, c2 FN (undecided), w1 TN, w2 TN; run 1 the same matrix: TP1 FN1 TN2 in both
    r = 2 / math.sqrt(12)
    assert row["hoareprompt MCC"] == pytest.approx(r) and row["hoareprompt P4"] == pytest.approx(8 / 11)
    assert row["cot MCC"] == dropped.rows[0]["cot MCC"]  # nothing undecided there: the same numbers
    assert row["undecided"] == 1 and "counted as a wrong prediction" in " ".join(wrong.notes)
    # the option swaps which reading is the main (first) table
    main, other, *_ = VerdictRunner(None, undecided="wrong").summarize(records())
    assert main.rows[0]["hoareprompt MCC"] == pytest.approx(r) and "left out" in other.title
    assert main.title == dropped.title
    # nothing undecided: one Table 1, the two readings being the same
    decided = [r for r in records() if r.metrics.get("decided")]
    assert len(VerdictRunner(None).summarize(decided)) == 4


def test_table2_stability_against_hand_counts():
    _, t2, _, _ = tables()
    [row] = t2.rows
    # trails @0.8: c1 T,T; c2 F,F; w1 F,F; w2 F,F -> correct 1 of reachable {c1}; incorrect {w1,w2} of {c2,w1,w2}
    assert (row["trails correct"], row["trails correct %"]) == (1, pytest.approx(100.0))
    assert (row["trails incorrect"], row["trails incorrect %"]) == (2, pytest.approx(200 / 3))
    # cot: c2 F,T and w2 T,F are unstable; T reachable {c1,c2,w2}, F reachable {c2,w1,w2}
    assert (row["cot correct"], row["cot correct %"]) == (1, pytest.approx(100 / 3))
    assert (row["cot incorrect"], row["cot incorrect %"]) == (1, pytest.approx(100 / 3))
    # hoareprompt: c2 undecided in run 0 is never stable but reaches F in run 1
    assert (row["hoareprompt correct"], row["hoareprompt correct %"]) == (1, pytest.approx(100.0))
    assert (row["hoareprompt incorrect"], row["hoareprompt incorrect %"]) == (2, pytest.approx(200 / 3))


def test_table3_overlap_regions():
    _, _, t3, _ = tables()
    correct, incorrect = t3.rows
    assert correct["label"] == "correct" and incorrect["label"] == "incorrect"
    assert correct["trails∩hoareprompt∩cot"] == 1 and correct["none"] == 1 and correct["codes"] == 2
    assert sum(correct[c] for c in t3.columns[3:-2]) == 1
    # w1: all three; w2: trails and hoareprompt but not cot
    assert incorrect["trails∩hoareprompt∩cot"] == 1 and incorrect["trails∩hoareprompt"] == 1
    assert incorrect["only trails"] == 0 and incorrect["only cot"] == 0 and incorrect["none"] == 0
    assert t3.columns[3:10] == ["only trails", "only hoareprompt", "only cot", "trails∩hoareprompt", "trails∩cot",
                                "hoareprompt∩cot", "trails∩hoareprompt∩cot"]


def test_reasons_table_and_rows_per_dataset():
    *_, t4 = tables()
    hoare = next(r for r in t4.rows if r["method"] == "hoareprompt")
    assert hoare["decided"] == 7 and "call_budget 1" in hoare["reasons"]
    trails = next(r for r in t4.rows if r["method"] == "trails")
    assert trails["score correct"] == pytest.approx((0.9 + 0.7 + 1.0 + 0.65) / 4)
    two = records() + [rec("cot", "c9", True, 0, pred=True, dataset="other")]
    t1 = VerdictRunner(None).summarize(two)[0]
    assert [r["dataset"] for r in t1.rows] == ["ds", "other"]
    assert VerdictRunner(None).summarize([]) == []


def test_score_records_what_the_tables_need():
    from tczoo.schema import CodeVerdict, Provenance, TestSuite, Usage

    runner = VerdictRunner(None, thresholds=[0.5])
    problem = zm01()
    spec = runner.tasks(problem, _FakeVerifier, samples=1, seed=0)[0]
    suite = TestSuite(problem_id=problem.id, provenance=Provenance(method="x", model="m",
                                                                   usage=Usage(prompt_tokens=10, completion_tokens=5)))
    undecided = runner.score(problem, spec, suite)
    assert undecided.metrics["decided"] == 0 and undecided.detail["reason"] == "no_verdict"
    assert undecided.metrics["tokens"] == 15
    suite.verdict = CodeVerdict(correct=True, score=0.6, threshold=0.8)  # a method with its own τ
    got = runner.score(problem, spec, suite)
    assert got.metrics["pred@0.5"] == 1.0 and got.metrics["pred@0.8"] == 0.0 and got.metrics["score"] == 0.6
    assert got.detail["graded"] is True


# --------------------------------------------------------------------------- pairs


class _FakeVerifier:
    name = "fake"
    setting = Setting.SPEC_TARGET


def test_pairs_one_correct_one_incorrect_per_problem_over_runs():
    runner = VerdictRunner(None)
    specs = runner.tasks(zm01(), _FakeVerifier, samples=1, seed=7)
    assert len(specs) == 2 * 3  # one code per label, three runs
    labels = {s.context["label"] for s in specs}
    assert labels == {True, False}
    assert len({s.key for s in specs}) == 6
    assert sorted({s.task.seed for s in specs}) == [7, 8, 9] and {s.sample for s in specs} == {0, 1, 2}
    for s in specs:
        assert s.task.setting is Setting.SPEC_TARGET and s.task.target.name == "target" and not s.task.target.meta
        assert s.context["language"] in ("cpp", "python")
    again = runner.tasks(zm01(), _FakeVerifier, samples=1, seed=7)
    assert [s.key for s in again] == [s.key for s in specs]  # the draw is seeded
    everything = VerdictRunner(None, per_label=None, runs=1).tasks(zm01(), _FakeVerifier, samples=1, seed=0)
    assert len(everything) == len(zm01().solutions) + len(zm01().wrong_solutions)
    py = VerdictRunner(None, per_label=None, runs=1, languages=["python"]).tasks(zm01(), _FakeVerifier, samples=1,
                                                                                seed=0)
    assert {s.context["language"] for s in py} == {"python"}
    only = VerdictRunner(None, only=["fast.py", "greedy_by_deadline"], runs=2).tasks(zm01(), _FakeVerifier,
                                                                                   samples=5, seed=0)
    assert sorted({s.context["code"] for s in only}) == ["accepted/fast.py", "wrong/greedy_by_deadline.cpp"]
    assert len(only) == 4
    assert len(VerdictRunner(None, only=["fast.py"]).tasks(zm01(), _FakeVerifier, samples=4, seed=0)) == 4


def test_methods_that_see_no_code_are_refused():
    from tczoo.methods.crux import Crux

    with pytest.raises(ValueError, match="not given one"):
        VerdictRunner(None).tasks(zm01(), Crux, samples=1, seed=0)


# --------------------------------------------------------------------------- loaders


def test_livecodebench_eval_loader():
    from tczoo.benchmarks import load_benchmark
    from tczoo.benchmarks.hub.livecodebench_eval import HEADER

    stdin, functional = load_benchmark(f"livecodebench-eval:{FIXTURES / 'lcb_eval_all.json'}")
    assert (stdin.id, stdin.entry_point, stdin.limits_given) == ("abc900_b", None, False)
    assert [s.name for s in stdin.solutions] == ["sample-0"] and [w.name for w in stdin.wrong_solutions] == ["sample-1"]
    assert stdin.meta["empty_codes"] == 1 and stdin.source == "livecodebench"
    assert functional.entry_point == "countEvenPairs"
    assert functional.solutions[0].code.startswith(HEADER) and "List[int]" in functional.solutions[0].code
    again = load_benchmark(f"lcb-eval:{FIXTURES / 'lcb_eval_all.json'}")
    assert [p.id for p in again] == ["abc900_b", "9901"]


def test_livecodebench_eval_samples_run_as_graded(sandbox):
    from tczoo.benchmarks import load_benchmark
    from tczoo.execution import Limits, run_program

    _, functional = load_benchmark(f"livecodebench-eval:{FIXTURES / 'lcb_eval_all.json'}")
    good, bad = functional.solutions[0], functional.wrong_solutions[0]
    [g] = run_program(sandbox, good, ['{"nums": [1, 2, 3, 4]}'], limits=Limits(), entry_point=functional.entry_point)
    [b] = run_program(sandbox, bad, ['{"nums": [1, 2, 3, 4]}'], limits=Limits(), entry_point=functional.entry_point)
    assert (g.output, b.output) == ("2", "1")


def test_cococlanel_loader_groups_by_task():
    from tczoo.benchmarks import load_benchmark

    a, b = load_benchmark(f"cococlanel:{FIXTURES / 'cococlanel_sample.json'}")
    assert (a.id, a.title, a.limits_given, a.source) == ("9001_A", "9001_A", False, "cococlanel")
    assert [s.name for s in a.solutions] == ["9001_A_alice_100%", "9001_A_carol_100%"]
    assert [w.name for w in a.wrong_solutions] == ["9001_A_bob_0.00%"]
    assert a.wrong_solutions[0].meta["counterexample"]["expected"] == "2"  # kept from methods by Task.neutral
    assert "print the larger" in a.statement and b.meta["rating"] == 900
    assert len(load_benchmark(f"cococlanel:{FIXTURES / 'cococlanel_sample.json'}", ["9001_B"])) == 1


@pytest.mark.parametrize("records, message", [
    ([{"description": "x", "generated_code": "print(1)", "task_id": "t"}], "missing field"),
    ([{"description": "x", "generated_code": "print(1)", "task_id": "t", "correct": "yes"}], "not true/false"),
    ([{"description": "x", "generated_code": 5, "task_id": "t", "correct": True}], "not a string"),
    (["not a record"], "expected a JSON object"),
])
def test_cococlanel_bad_records_are_one_line_errors(tmp_path, records, message):
    from tczoo.benchmarks import load_benchmark
    from tczoo.benchmarks.loaders import BenchmarkLoadError

    path = tmp_path / "bad.json"
    path.write_text(json.dumps(records))
    with pytest.raises(BenchmarkLoadError, match=message):
        load_benchmark(f"cococlanel:{path}")


@pytest.mark.parametrize("change, message", [
    ({"graded_list": [True]}, "3 codes but 1 grades"),
    ({"graded_list": [1, 0, 0]}, "not true/false"),
    ({"code_list": "x"}, "must be lists"),
])
def test_livecodebench_eval_bad_records(tmp_path, change, message):
    from tczoo.benchmarks import load_benchmark
    from tczoo.benchmarks.loaders import BenchmarkLoadError

    record = json.loads((FIXTURES / "lcb_eval_all.json").read_text())[0]
    record.update(change)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([record]))
    with pytest.raises(BenchmarkLoadError, match=message):
        load_benchmark(f"livecodebench-eval:{path}")


# --------------------------------------------------------------------------- end to end


def verdict_rules() -> list:
    return [
        (SCENARIOS, scenarios("single", "replace")),
        (PROPERTIES, "Properties: n, then n lines `d p`."),
        ("single inputs.*" + INPUTS, inputs("1\n1 5")),
        ("replace inputs.*" + INPUTS, inputs("3\n1 1\n2 3\n2 2")),
        (JUDGE + r".*\n4\n", "5 is required.\nVerdict: INCORRECT"),
        (JUDGE, "Verdict: CORRECT"),
        (PRECONDITION, "Precondition: n offers."),
        (HOARE_VERDICT + ".*heappushpop", "Correctness: True"),
        (HOARE_VERDICT, "Correctness: False"),
        (r"\nLoop:\n", "Output State: **done**"),
        ("State after the branch", "Output State: **merged**"),
        (r"\nCode:\n", "Output State: **updated**"),
        (COT + ".*heappushpop", "Correctness: True"),
        (COT, ["Correctness: False", "Correctness: True"]),  # unstable on the wrong code: run 0 F, run 1 T
    ]


def test_three_methods_end_to_end_through_the_run_loop(tmp_path, sandbox):
    from tczoo.llm import LLMSettings
    from tczoo.report import run_tables
    from tczoo.distributed import LocalCluster
    from tczoo.run import RunOptions, run
    from tczoo.schema import RunConfig

    model = script(tmp_path / "m.jsonl", verdict_rules())
    config = RunConfig(methods=["trails", "hoareprompt", "cot"], model=model, benchmark="zoo-mini", problems=["zm01"],
                       params={"runner:verdict": {"only": ["fast.py", "greedy_by_deadline"], "runs": 2},
                               "trails": {"scenarios": 2}, "hoareprompt": {"unroll": 1}})
    out = tmp_path / "run"
    asyncio.run(run(config, out, RunOptions(settings=LLMSettings(cache=False, retries=0)), cluster=LocalCluster(sandbox)))
    store, found = run_tables(out)
    gens = store.generations()
    assert len(gens) == 3 * 2 * 2 and not any(g.error for g in gens)
    assert all(g.suite.verdict is not None and g.suite.verdict.correct is not None for g in gens), \
        [(g.method, g.task, g.suite.verdict) for g in gens]
    t1, t2, t3, t4 = found
    [row] = t1.rows
    assert row["dataset"] == "zoo-mini" and (row["codes"], row["runs"], row["undecided"]) == (2, 2, 0)
    # trails: fast.py 1.0 > τ, greedy 0.5 -> perfect at every τ; hoareprompt perfect; cot wrong on run 1
    for tau in ("0.6", "0.7", "0.8"):
        assert row[f"trails τ={tau} MCC"] == pytest.approx(1.0)
    assert row["hoareprompt MCC"] == pytest.approx(1.0) and row["cot MCC"] == pytest.approx(0.5)
    [stab] = t2.rows
    assert stab["cot incorrect"] == 0 and stab["trails incorrect"] == 1
    correct, incorrect = t3.rows
    assert correct["trails∩hoareprompt∩cot"] == 1 and incorrect["trails∩hoareprompt"] == 1
    # the report's failure accounting: verdict suites without tests are results, not failures
    assert [(r["method"], r["units"], r["failed"], r["no valid tests"]) for r in t4.rows] == [
        ("trails", 4, 0, 0), ("hoareprompt", 4, 0, 0), ("cot", 4, 0, 0)]
    scored = {(s.method, s.task): s for s in store.scores()}
    assert scored[("trails", "wrong/greedy_by_deadline.cpp/r0")].metrics["score"] == 0.5

    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "trails", "tables", str(out), str(out), "-f", "json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    merged = json.loads(proc.stdout)
    assert [t["title"].split(" (")[0] for t in merged] == ["Correctness verdicts", "Verdict stability over runs",
                                                           "Consistently and correctly labelled codes per method",
                                                           "Verdicts per method: how they were reached"]
    assert {r["tasks"] for r in merged[3]["rows"]} == {8}  # the run read twice: both copies summarised together
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "trails", "show", str(out), "-m", "trails",
                           "--code", "greedy"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "verdict: INCORRECT (judged, score 0.500" in proc.stdout and "INCORRECT: input '3\\n1 1\\n2 3\\n2 2\\n'" \
        in proc.stdout
    bad = subprocess.run([sys.executable, "-m", "tczoo.cli", "trails", "tables", str(tmp_path)], capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 2 and "not a tczoo run directory" in bad.stderr and "Traceback" not in bad.stderr


def test_pairs_from_tcbench_schema_data():
    from tczoo.benchmarks import load_benchmark

    problems = load_benchmark(f"tcbench:{Path(__file__).resolve().parents[1] / 'fixtures' / 'loaders' / 'tcbench.jsonl'}")
    runner = VerdictRunner(None, runs=1, per_label=None)
    for p in problems:
        specs = runner.tasks(p, _FakeVerifier, samples=1, seed=0)
        kept = [x for x in p.solutions + p.wrong_solutions if x.language.value in ("cpp", "python")]
        assert len(specs) == len(kept)
        assert sum(s.context["label"] for s in specs) == sum(x.language.value in ("cpp", "python") for x in p.solutions)


@pytest.mark.parametrize("params", [{"thresholds": []}, {"thresholds": [1.5]}, {"runs": 0}, {"per_label": 0},
                                    {"languages": ["cobol"]}, {"nope": 1}])
def test_bad_runner_parameters_are_refused(params):
    with pytest.raises(ValueError):
        VerdictRunner(None, **params)

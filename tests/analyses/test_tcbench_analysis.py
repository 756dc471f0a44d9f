"""TC-Bench's analyses (Figures 4a, 4c, 6, 7, 8, Appendix A.5) on hand-built runs and
benchmarks whose numbers are worked out by hand in the comments."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tczoo.analyses.tcbench import analyze
from tczoo.schema import (Failure, GenerationRecord, Provenance, RunConfig, ScoreRecord, TestCase, TestSuite,
                          Usage)
from tczoo.store import RunStore

CORRECT = "n = int(input())\nprint(n * n)\n"
# A correct code under the statement's 0 <= n: it refuses negative inputs.
NONNEGATIVE = "n = int(input())\nassert n >= 0\nprint(n * n)\n"


def _run(path: Path, benchmark: str, problem: str, tests, *, params=None, problems=None) -> Path:
    config = RunConfig(methods=["crux"], model="m", benchmark=benchmark, problems=problems,
                       params={"runner:hackrate": {"scale": None, **(params or {})}})
    store = RunStore.open(path, config)
    suite = TestSuite(problem_id=problem, tests=[TestCase(input=i, output=o) for i, o in tests],
                      provenance=Provenance(method="crux", model="m"))
    store.add_generation(GenerationRecord(method="crux", model="m", problem_id=problem, suite=suite))
    return path


def _square_bench(tmp_path: Path) -> str:
    """solution-0..8 are plain; solution-9 refuses negative n (the statement says 0 <= n)."""
    rec = {"problem_id": "square", "description": "Print n squared (0 <= n <= 1000).", "time_limit": 1000,
           "memory_limit": 64, "sample_input": "3\n", "sample_output": "9\n",
           "solutions": [{"code": CORRECT + f"# {i}\n", "lang": "python"} for i in range(9)]
           + [{"code": NONNEGATIVE, "lang": "python"}],
           "wrong_solutions": [{"code": "n = int(input())\nprint(abs(n) * n)\n", "lang": "python", "output_str": "W"},
                               {"code": "n = int(input())\nprint(n * n if n else 1)\n", "lang": "python",
                                "output_str": "W"}],
           "rank": 2}
    path = tmp_path / "square.jsonl"
    path.write_text(json.dumps(rec) + "\n")
    return f"tcbench:{path}"


SQUARE_TESTS = [("-2\n", "4\n"), ("3\n", "9\n"), ("0\n", "0\n")]
# With solution-9 among the validators "-2" is invalid (it crashes): PR 2/3, abs (fails only
# on negatives) survives, zero (fails on 0) does not: HR 1/2. Without it: PR 1, HR 1.


def test_fig6_hackrate_against_the_number_of_correct_codes(sandbox, tmp_path):
    run = _run(tmp_path / "run", _square_bench(tmp_path), "square", SQUARE_TESTS)
    # one seeded order of the ten codes starts solution-0, solution-7, solution-9, ...
    [table] = analyze("fig6", str(run), sandbox, counts=(1, 2, 3, 4))
    assert [(r["correct codes"], r["PR"], r["HR"]) for r in table.rows] == [
        (1, 100.0, 100.0), (2, 100.0, 100.0), (3, pytest.approx(200 / 3), 50.0), (4, pytest.approx(200 / 3), 50.0)]
    # each number with its interval over the run's one problem: exact where it is 0 or 100, none else
    first, last = table.rows[0], table.rows[-1]
    assert first["HR 95% CI"].method == "exact" and first["HR 95% CI"].low == pytest.approx(2.5)
    assert last["HR 95% CI"].method == "none" and last["HR 95% CI"].problems == 1


def test_fig4c_stability_over_draws_of_eight_correct_codes(sandbox, tmp_path):
    run = _run(tmp_path / "run", _square_bench(tmp_path), "square", SQUARE_TESTS)
    # draws 0 and 3 of 8 out of 10 hold solution-9, draws 1 and 2 do not
    [table] = analyze("fig4c", str(run), sandbox, draws=4)
    [row] = table.rows
    assert row["PR mean"] == pytest.approx(250 / 3) and row["PR sd"] == pytest.approx(50 / 3)
    assert (row["PR min"], row["PR max"]) == (pytest.approx(200 / 3), 100.0)
    assert (row["HR mean"], row["HR sd"], row["HR min"], row["HR max"]) == (75.0, 25.0, 50.0, 100.0)
    assert "distinct validator sets per problem: 4-4" in table.notes[0]


def test_fig4a_inflation_on_the_full_pool_vs_the_wrongselect_basis(sandbox, tmp_path):
    from tczoo.benchmarks import load_benchmark

    [problem] = load_benchmark("zoo-mini", ["zm09"], sandbox=sandbox)
    golden = problem.golden_tests
    tests = [(golden[i].input, golden[i].output) for i in (0, 3)]
    run = _run(tmp_path / "run", "zoo-mini", problem.id, tests, problems=["zm09"])
    [table] = analyze("fig4a", str(run), sandbox, restarts=5)
    [row] = table.rows
    # signatures.json: golden test 0 fails first_step_unrolled; test 3 fails chain_stop,
    # divides_length, greedy_jump, no_chain, no_reset_total: 6 of the 10 wrong codes.
    # The basis: the 7 C++ codes that fail only with WA (rank 7); 5 of them are caught.
    assert (row["wrong codes"], row["basis"]) == (10, 7)
    assert row["HR all wrong codes"] == 60.0 and row["HR WrongSelect basis"] == pytest.approx(500 / 7)
    assert row["inflation"] == pytest.approx(60 - 500 / 7)


def _built(tmp_path: Path) -> str:
    """Two problems as build-benchmark writes them, with search histories chosen by hand."""
    def rec(pid, pool, rank, history):
        return {"problem_id": pid, "description": "x", "time_limit": 1000, "memory_limit": 64,
                "solutions": [{"code": CORRECT, "lang": "python"}], "wrong_solutions": [], "rank": rank,
                "construction": {"wrong_pool": pool, "wrong_in_languages": pool - 1, "wrong_only_wa": pool - 2,
                                 "wrong_after_row_filter": pool - 3, "rank": rank,
                                 "wrongselect": {"history": history}}}
    path = tmp_path / "built.jsonl"
    path.write_text(json.dumps(rec("a", 12, 5, [0.5, 0.4, 0.45, 0.3])) + "\n"
                    + json.dumps(rec("b", 60, 7, [0.2, 0.2, 0.1])) + "\n")
    return f"tcbench:{path}"


def test_fig7_convergence_and_fig8_counts_from_the_construction_record(tmp_path):
    spec = _built(tmp_path)
    [conv] = analyze("fig7", spec)
    # best so far: a 0.5 0.4 0.4 0.3, b 0.2 0.2 0.1 (0.1 after its last restart)
    assert [(r["restart"], round(r["mean best F"], 6), r["problems improved"], r["problems at final best"])
            for r in conv.rows] == [(1, 0.35, 2, 0), (2, 0.3, 1, 0), (3, 0.25, 1, 1), (4, 0.2, 1, 2)]
    [counts] = analyze("fig8", spec)
    rows = {r["wrong codes"]: r for r in counts.rows}
    # before: 12 and 60 wrong codes; after: ranks 5 and 7
    assert (rows["1-5"]["problems before"], rows["1-5"]["problems after"], rows["1-5"]["CDF after %"]) == (0, 1, 50.0)
    assert (rows["6-10"]["problems after"], rows["6-10"]["CDF after %"]) == (1, 100.0)
    assert (rows["11-20"]["problems before"], rows["11-20"]["CDF before %"]) == (1, 50.0)
    assert (rows["51-100"]["problems before"], rows["51-100"]["CDF before %"]) == (1, 100.0)
    assert "72 wrong codes before, 12 after" in counts.notes[0]


def test_a5_failure_statistics_from_recorded_reasons(tmp_path):
    store = RunStore.open(tmp_path / "run", RunConfig(methods=["crux", "lcb"], model="m", benchmark="zoo-mini"))

    def gen(method, pid, calls, failures, n_tests, n_valid):
        suite = TestSuite(problem_id=pid, tests=[TestCase(input=f"{i}\n", output="x") for i in range(n_tests)],
                          provenance=Provenance(method=method, model="m", usage=Usage(calls=calls),
                                                failures=[Failure(stage=s, reason=r) for s, r in failures]))
        store.add_generation(GenerationRecord(method=method, model="m", problem_id=pid, suite=suite))
        store.add_score(ScoreRecord(runner="hackrate", method=method, model="m", problem_id=pid,
                                    metrics={"n_valid": float(n_valid)}))

    gen("crux", "p1", 2, [("parse", "solution_instead_of_tests"), ("parse", "bad_json")], 0, 0)
    gen("crux", "p2", 2, [], 3, 2)
    gen("lcb", "p1", 2, [("generator", "timeout"), ("oracle", "correct_code_tle")], 4, 4)
    table, reasons = analyze("a5", str(tmp_path / "run"))
    crux, lcb = table.rows
    # CRUX: 1 of 4 answers a solution, 1 of 4 bad JSON; p1 has no tests and no valid test
    assert (crux["method"], crux["LLM answers"], crux["solution instead of tests %"], crux["format errors %"]) == (
        "CRUX", 4, 25.0, 25.0)
    assert (crux["resource failures %"], crux["no tests %"], crux["no valid tests %"]) == (0.0, 50.0, 50.0)
    # LCB: its one generation met a generator timeout and a correct-code TLE
    assert (lcb["resource failures %"], lcb["no tests %"], lcb["no valid tests %"]) == (100.0, 0.0, 0.0)
    assert {(r["method"], r["reason"], r["count"]) for r in reasons.rows} == {
        ("CRUX", "solution_instead_of_tests", 1), ("CRUX", "bad_json", 1), ("LCB", "timeout", 1),
        ("LCB", "correct_code_tle", 1)}


def test_analyze_command_prints_tables_and_refuses_bad_input(tmp_path):
    spec = _built(tmp_path)
    ok = subprocess.run([sys.executable, "-m", "tczoo.cli", "tcbench", "analyze", "fig8", spec, "-f", "md"],
                        capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert "### Wrong codes per problem before and after WrongSelect (Figure 8)" in ok.stdout
    for args in (["fig9", spec], ["fig4a", str(tmp_path)], ["fig7", "tcbench:" + str(tmp_path / "missing.jsonl")]):
        bad = subprocess.run([sys.executable, "-m", "tczoo.cli", "tcbench", "analyze", *args], capture_output=True,
                             text=True, timeout=120)
        assert bad.returncode == 2 and bad.stderr.startswith("error:") and "Traceback" not in bad.stderr, args

"""WrongSelect (TC-Bench section 2, Algorithm 1) on hand-checked cases."""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pytest

from tczoo.benchmarks.wrongselect import (
    build_benchmark_from_matrix,
    matrix_from_rows,
    matrix_rank_gf2,
    matrix_rank_real,
    mean_pairwise_jaccard,
    naive_wrong_select,
    prefilter,
    wrong_select,
)
from tczoo.schema import FailureSignature, Language, Problem, WrongProgram

FIGURE2 = [[0, 0, 1], [0, 1, 1], [0, 1, 0]]  # "Step 2" of Figure 2, rank 2


# ------------------------------------------------------------------ objective, ranks


def test_jaccard_objective_matches_the_paper_formula():
    # J = |a & b| / (|a| + |b| - |a & b|)
    assert mean_pairwise_jaccard([[0, 0, 1], [0, 1, 1]]) == pytest.approx(0.5)
    assert mean_pairwise_jaccard([[0, 1, 0], [0, 1, 1]]) == pytest.approx(0.5)
    assert mean_pairwise_jaccard([[0, 0, 1], [0, 1, 0]]) == 0.0
    # three rows: pairs (1/3, 1/3, 0) -> mean 2/9
    assert mean_pairwise_jaccard([[1, 1, 0], [0, 1, 1], [1, 0, 0]]) == pytest.approx(
        (1 / 3 + 1 / 2 + 0) / 3
    )
    assert mean_pairwise_jaccard([[1, 0]]) == 0.0


def test_rank_real_and_gf2_differ_where_they_should():
    # each row is the XOR of the other two: dependent over GF(2), independent over R
    m = [[1, 1, 0], [0, 1, 1], [1, 0, 1]]
    assert matrix_rank_real(m) == 3
    assert matrix_rank_gf2(m) == 2
    # and they agree on the paper's example
    assert matrix_rank_real(FIGURE2) == matrix_rank_gf2(FIGURE2) == 2
    assert matrix_rank_gf2(np.zeros((3, 4))) == 0
    assert matrix_rank_real(np.zeros((0, 0))) == 0


def test_search_uses_the_chosen_field():
    m = [[1, 1, 0], [0, 1, 1], [1, 0, 1], [1, 0, 0]]
    real = wrong_select(m, restarts=5, min_rank=0, tau=None)
    gf2 = wrong_select(m, restarts=5, min_rank=0, tau=None, field="gf2")
    assert real.rank == 3 and len(real.basis) == 3
    assert gf2.rank == 3 and len(gf2.basis) == 3  # row 3 restores rank 3 over GF(2)
    # over GF(2) rows 0, 1, 2 are not a basis (0 ^ 1 = 2), so row 3 must be in it
    assert 3 in gf2.basis
    assert matrix_rank_gf2(np.array(m)[gf2.basis]) == 3


# ------------------------------------------------------------------ the paper's example


def test_figure2_step2_reaches_zero_from_the_papers_start():
    res = wrong_select(FIGURE2, initial_bases=[[0, 1]], min_rank=2)
    # start F([001, 011]) = 0.5; the best neighbour swaps 011 out for 010: F = 0
    assert res.rank == 2
    assert res.basis == [0, 2]
    assert res.objective == 0.0
    assert res.moves == 1
    assert res.qualified


def test_figure2_naive_takes_the_same_path():
    res = naive_wrong_select(FIGURE2, initial_bases=[[0, 1]], min_rank=2)
    assert (res.basis, res.objective, res.moves) == ([0, 2], 0.0, 1)


def test_figure2_random_restarts_find_the_optimum():
    res = wrong_select(FIGURE2, restarts=10, seed=3)
    assert res.basis == [0, 2] and res.objective == 0.0
    assert not res.qualified and res.reason == "rank 2 < 5"  # a real benchmark needs rank >= 5


def test_local_optimum_is_a_true_local_optimum():
    rng = np.random.default_rng(7)
    m = (rng.random((25, 9)) < 0.35).astype(np.uint8)
    res = wrong_select(m, restarts=3, tau=None, min_rank=0)
    basis = set(res.basis)
    # no feasible single swap is better (checked by brute force)
    for out in basis:
        for inn in set(range(len(m))) - basis:
            temp = sorted(basis - {out} | {inn})
            if matrix_rank_real(m[temp]) == res.rank and m[inn].any():
                assert mean_pairwise_jaccard(m[temp]) >= res.objective - 1e-9


def test_small_matrix_matches_exhaustive_optimum_often():
    # tiny case where the global optimum is known by enumeration
    m = np.array([[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1], [1, 0, 0, 1], [1, 1, 1, 0], [0, 1, 0, 0]])
    rank = matrix_rank_real(m)
    best = min(
        mean_pairwise_jaccard(m[list(c)])
        for c in combinations(range(len(m)), rank)
        if matrix_rank_real(m[list(c)]) == rank
    )
    res = wrong_select(m, restarts=50, tau=None, min_rank=0)
    assert res.objective == pytest.approx(best)


# ------------------------------------------------------------------ filters


def test_row_filter_drops_rates_strictly_above_tau():
    m = [
        [1, 1, 1, 1, 0],  # 0.8: kept (not above tau)
        [1, 1, 1, 1, 1],  # 1.0: dropped
        [0, 0, 0, 0, 1],
        [0, 0, 0, 0, 0],  # passes everything: not a wrong code on these tests
    ]
    pre = prefilter(m)
    assert pre.kept_rows == [0, 2]
    assert pre.dropped_high_failure == [1]
    assert pre.dropped_no_failure == [3]
    assert pre.keep_problem
    assert prefilter(m, tau=None).kept_rows == [0, 1, 2]


def test_all_ones_column_excludes_the_problem():
    m = [[1, 0, 1], [1, 1, 0], [1, 0, 0]]  # every wrong code fails test 0
    pre = prefilter(m)
    assert not pre.keep_problem and pre.all_ones_columns == [0]
    assert "all-ones column" in pre.reason


def test_column_check_raw_versus_filtered():
    # column 2 is all ones only once the noisy row 0 (rate 5/6 > 0.8) is removed
    m = [[1, 1, 0, 1, 1, 1], [0, 0, 1, 0, 1, 0], [0, 1, 1, 0, 0, 0]]
    assert prefilter(m, column_check="raw").keep_problem  # the paper: look at M
    filtered = prefilter(m, column_check="filtered")  # the reference code: look at M'
    assert not filtered.keep_problem and filtered.all_ones_columns == [2]


def test_min_rank_and_qualification():
    rng = np.random.default_rng(0)
    m = (rng.random((30, 12)) < 0.3).astype(np.uint8)
    m[:, 0] = 0
    res = wrong_select(m, restarts=3, min_rank=5)
    assert res.rank >= 5 and res.qualified and res.reason is None
    assert not wrong_select(m, restarts=3, min_rank=res.rank + 1).qualified


def test_filtered_and_duplicate_rows_never_enter_the_basis():
    m = np.array([
        [1, 1, 1, 1, 1],  # dropped by the row filter
        [1, 0, 0, 0, 0],
        [1, 0, 0, 0, 0],  # duplicate of row 1
        [0, 1, 0, 0, 0],
        [0, 0, 1, 1, 0],
        [0, 0, 0, 0, 0],  # passes all
    ])
    res = wrong_select(m, restarts=5, min_rank=0)
    assert res.rank == 3 and res.basis == [1, 3, 4]
    assert res.candidates == 3


# ------------------------------------------------------------------ fast == naive, seeds


def _structured(n: int, d: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    patterns = (rng.random((4, d)) < 0.3).astype(np.uint8)
    rows = []
    for _ in range(n):
        u = rng.random()
        if u < 0.4:
            rows.append(patterns[rng.integers(4)])
        elif u < 0.8:
            row = patterns[rng.integers(4)] | patterns[rng.integers(4)]
            rows.append(row ^ (rng.random(d) < 0.1))
        else:
            rows.append(rng.random(d) < 0.4)
    return np.array(rows, dtype=np.uint8)


@pytest.mark.parametrize("field", ["real", "gf2"])
@pytest.mark.parametrize("seed", range(12))
def test_fast_equals_naive_from_the_same_starts(seed, field):
    rng = np.random.default_rng(100 + seed)
    m = _structured(int(rng.integers(8, 30)), int(rng.integers(4, 10)), seed)
    fast = wrong_select(m, restarts=3, max_steps=100, seed=seed, field=field, min_rank=0)
    naive = naive_wrong_select(m, restarts=3, max_steps=100, seed=seed, field=field, min_rank=0)
    assert fast.history == pytest.approx(naive.history, abs=1e-12)  # every restart's optimum
    assert fast.basis == naive.basis
    assert fast.objective == pytest.approx(naive.objective, abs=1e-12)
    assert fast.moves == naive.moves


def test_fast_equals_naive_when_steps_are_capped():
    m = _structured(40, 10, 5)
    for steps in (0, 1, 2):
        fast = wrong_select(m, restarts=2, max_steps=steps, seed=1, min_rank=0)
        naive = naive_wrong_select(m, restarts=2, max_steps=steps, seed=1, min_rank=0)
        assert fast.history == pytest.approx(naive.history, abs=1e-12)
        assert fast.basis == naive.basis


def test_deterministic_under_seed():
    m = _structured(60, 12, 9)
    a = wrong_select(m, restarts=8, seed=42)
    b = wrong_select(m, restarts=8, seed=42)
    assert a.to_dict() == b.to_dict()
    # another seed draws other random starts (the searches then take other paths)
    runs = {wrong_select(m, restarts=8, seed=s).moves for s in range(5)}
    assert len(runs) > 1


def test_basis_is_a_basis_of_the_filtered_matrix():
    m = _structured(80, 15, 2)
    res = wrong_select(m, restarts=5, min_rank=0)
    kept = prefilter(m).kept_rows
    assert set(res.basis) <= set(kept)
    assert res.rank == matrix_rank_real(m[kept]) == matrix_rank_real(m[res.basis]) == len(res.basis)
    assert res.objective == pytest.approx(mean_pairwise_jaccard(m[res.basis]))


def test_bad_initial_basis_is_rejected():
    with pytest.raises(ValueError, match="not a basis"):
        wrong_select([[1, 0], [0, 1], [1, 1]], initial_bases=[[0]], min_rank=0, tau=None)


# ------------------------------------------------------------------ matrix parsing, command


def test_matrix_from_rows_accepts_strings_lists_and_verdicts():
    m = matrix_from_rows(["AWWA", [0, 1, 0, 0], ["AC", "TLE", "AC", "RE"]])
    assert m.tolist() == [[0, 1, 1, 0], [0, 1, 0, 0], [0, 1, 0, 1]]
    with pytest.raises(ValueError, match="different lengths"):
        matrix_from_rows(["AW", "AWA"])
    with pytest.raises(ValueError):
        matrix_from_rows([[0, 2]])


def _wrongselect(*args):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "tczoo.cli", "wrongselect", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def test_command_prints_rank_basis_objective_and_qualification(tmp_path):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(["AAW", "AWW", "AWA"]))
    done = _wrongselect(path, "--restarts", 5, "--max-steps", 10, "--format", "json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    # the machine output says what the text says: qualified or not, and why
    assert out == {"rank": 2, "basis": [0, 2], "objective": 0.0, "qualified": False, "reason": "rank 2 < 5"}


def test_command_accepts_01_lists_and_text_output(tmp_path):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(FIGURE2))
    done = _wrongselect(path, "--restarts", 5, "--max-steps", 10)
    assert done.returncode == 0, done.stderr
    assert "basis: [0, 2]" in done.stdout and "NOT qualified: rank 2 < 5" in done.stdout


def test_command_reports_bad_input(tmp_path):
    for path, needle in ((tmp_path / "missing.json", "no such file"), (tmp_path / "bad.json", "not JSON"),
                         (tmp_path / "rows.json", "different lengths")):
        if path.name == "bad.json":
            path.write_text("{")
        if path.name == "rows.json":
            path.write_text(json.dumps(["AW", "AWA"]))
        done = _wrongselect(path, "-f", "json")
        assert done.returncode == 2 and "Traceback" not in done.stderr
        [line] = done.stderr.strip().splitlines()
        assert line.startswith("error:") and needle in line


# ------------------------------------------------------------------ benchmark construction


def _problem(n_wrong: int) -> Problem:
    return Problem(
        id="p1",
        statement="s",
        wrong_solutions=[
            WrongProgram(code=f"// bug {i}", language=Language.CPP, name=f"w{i}") for i in range(n_wrong)
        ],
    )


def test_build_benchmark_keeps_the_selected_wrong_solutions():
    eye = np.eye(6, dtype=np.uint8)
    m = np.vstack([eye, eye[0] | eye[1], np.ones(6, dtype=np.uint8)])  # rows 6: similar, 7: noisy
    out = build_benchmark_from_matrix(_problem(8), m, restarts=10)
    assert out is not None
    assert out.rank == 6
    assert [w.name for w in out.wrong_solutions] == [f"w{i}" for i in range(6)]
    assert out.meta["wrongselect"]["objective"] == 0.0
    assert out.meta["wrongselect"]["source_rows"] == [0, 1, 2, 3, 4, 5]


def test_build_benchmark_from_verdicts_sets_signatures_and_excludes_bad_problems():
    verdicts = [["WA" if i == j else "AC" for j in range(5)] for i in range(5)]
    out = build_benchmark_from_matrix(_problem(5), verdicts, restarts=3)
    assert out is not None and out.rank == 5
    assert out.wrong_solutions[2].signature == FailureSignature(verdicts=verdicts[2])
    # all-ones column -> excluded
    assert build_benchmark_from_matrix(_problem(3), ["WAA", "WWA", "WAW"], restarts=2) is None
    # rank too low -> excluded
    assert build_benchmark_from_matrix(_problem(3), ["WAA", "AWA", "AAW"], restarts=2) is None
    with pytest.raises(ValueError, match="rows"):
        build_benchmark_from_matrix(_problem(2), ["WAA"])


def test_build_benchmark_from_stored_signatures():
    p = _problem(5)
    p = p.model_copy(update={"wrong_solutions": [
        w.model_copy(update={"signature": FailureSignature(verdicts=["WA" if i == j else "AC" for j in range(5)])})
        for i, w in enumerate(p.wrong_solutions)
    ]})
    out = build_benchmark_from_matrix(p, restarts=2)
    assert out is not None and out.rank == 5 and len(out.wrong_solutions) == 5

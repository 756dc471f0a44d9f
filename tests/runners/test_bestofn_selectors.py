"""bestofn's selectors beside CodeT's (issue 50): CodeRM's majority voting, a method's own
pick (S*), and the sweep over unit tests per problem with CodeRM's dynamic allocation,
worked by hand on small pass matrices."""

from __future__ import annotations

import numpy as np
import pytest

from tczoo.runners.bestofn import BestOfNRunner, coderm_voting, scaling_by_test_count
from tczoo.schema import ScoreRecord


def test_coderm_voting_by_hand():
    # c0 and c1 pass 3 tests each but different ones; c2 passes the same 3 as c1: that set wins
    sig = [("7",), ("e",), ("e",), ("1",)]
    assert coderm_voting(sig, [3, 3, 3, 1], [True, False, True, True]) == 0.5  # c1 and c2: one correct
    assert coderm_voting(sig, [3, 2, 2, 1], [True, False, False, False]) == 1.0  # c0 alone on top
    # nobody passes anything: every candidate ties, the original pass@1 (the authors' code does the same)
    assert coderm_voting([("0",)] * 4, [0] * 4, [True, False, False, False]) == 0.25


def _unit(rows: list[list[int]]):
    return np.array(rows, dtype=bool)  # tests x candidates


# unit "easy": both candidates pass all 4 tests, both correct; unit "hard": c0 (correct) passes
# all, c1 (wrong) only test 0 -- two tests or more always single c0 out
EASY = ("easy", _unit([[1, 1]] * 4), [True, True])
HARD = ("hard", _unit([[1, 1], [1, 0], [1, 0], [1, 0]]), [True, False])


def test_the_sweep_by_hand():
    got = scaling_by_test_count([EASY, HARD], [1, 2, 4, 10], draws=40, seed="s", difficulty="oracle")
    assert got[("uniform", 2)] == (100.0, 2.0) and got[("uniform", 4)] == (100.0, 4.0)
    assert got[("uniform", 10)] == (100.0, 4.0)  # a problem uses the tests it has
    # one test: the hard problem's draw is test 0 a quarter of the time (a tie, 50%), else c0 alone
    assert 50.0 < got[("uniform", 1)][0] < 100.0
    # dynamic, one per problem on average: each keeps the one test that estimates it: the same draws
    assert got[("dynamic", 1)] == got[("uniform", 1)]
    # dynamic, two on average: the easy problem (share 1: nothing to gain) keeps 1, the hard gets 3
    value, used = got[("dynamic", 2)]
    assert value == 100.0 and used == 2.0
    assert scaling_by_test_count([EASY, HARD], [1, 2], draws=40, seed="s", difficulty="oracle") == \
        {k: v for k, v in got.items() if k[1] in (1, 2)}  # seeded: the same draws again


def test_dynamic_allocation_gives_harder_problems_more_tests():
    # consensus: the share of candidates passing the first test of each draw
    hard2 = ("hard2", _unit([[1, 0, 0, 0]] * 8), [True, False, False, False])  # share 1/4 whatever the draw
    easy2 = ("easy2", _unit([[1, 1, 1, 1]] * 8), [True, True, True, True])  # share 1
    got = scaling_by_test_count([easy2, hard2], [3], draws=3, seed="s")
    # 6 tests in all: the easy problem keeps its first, the hard one takes the other 5
    assert got[("dynamic", 3)] == (100.0, 3.0)
    assert got[("uniform", 3)] == (100.0, 3.0)


def _record(problem: str, bits: list[str], golden: list[bool], tests: int, picked: int | None = None):
    detail = {"passed": [bin(int(b, 16)).count("1") for b in bits], "pass_bits": bits, "golden": golden,
              "names": [f"c{i}" for i in range(len(bits))], "label": "m samples", "source": "suite", "k": None}
    if picked is not None:
        detail["picked"] = picked
    return ScoreRecord(runner="bestofn", method="m", model="x", problem_id=problem, metrics={"tests": float(tests)},
                       detail=detail)


def test_own_pick_and_voting_rows_from_records_alone():
    recs = [_record("p1", ["3", "3", "1"], [False, True, True], 2, picked=1),
            _record("p2", ["1", "0"], [True, False], 1, picked=1)]
    [table, *_] = BestOfNRunner().summarize(recs)
    rows = {r["selector"]: r["m samples"] for r in table.rows}
    assert rows["own pick: m (x)"] == pytest.approx(50.0)  # right on p1, wrong on p2
    assert rows["CodeRM voting: m (x)"] == pytest.approx(75.0)  # p1: c0 and c1 tie (50%); p2: c0
    assert rows["m (x)"] == pytest.approx(50.0)  # most passed, ties to the earliest: c0 on p1 (wrong)
    # a method that picked in only some problems gets no own-pick row (never a partial average)
    partial = [_record("p1", ["3", "3", "1"], [False, True, True], 2, picked=1),
               _record("p2", ["1", "0"], [True, False], 1)]
    [table, *_] = BestOfNRunner().summarize(partial)
    assert not any(r["selector"].startswith("own pick") for r in table.rows)


def test_the_sweep_table_appears_only_when_asked():
    recs = [_record("p1", ["3", "3", "1"], [False, True, True], 2)]
    assert not any(t.title.startswith("pass@1 as the unit tests") for t in BestOfNRunner().summarize(recs))
    tables = BestOfNRunner(test_counts=[1, 2], draws=4).summarize(recs)
    [sweep] = [t for t in tables if t.title.startswith("pass@1 as the unit tests")]
    assert {(r["allocation"], r["tests/problem"]) for r in sweep.rows} == {("uniform", 1), ("uniform", 2),
                                                                          ("dynamic", 1), ("dynamic", 2)}

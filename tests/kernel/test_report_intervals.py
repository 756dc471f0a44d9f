"""Intervals beside every metric (tczoo.report): the runner's own summarize is the
statistic, resampled by problem. Checked against the same resamples computed by hand:
the exact interval where each problem scores 0 or 100, the bootstrap of a mean, a pooled
(non-mean) metric, samples that travel with their problem; and in every format."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from tczoo import stats
from tczoo.report import CI, N_PROBLEMS, Cell, StatsOptions, add_intervals, cell_intervals, render
from tczoo.runner import Runner, Table
from tczoo.runners.hackrate import HackRateRunner
from tczoo.schema import ScoreRecord

OPTIONS = StatsOptions(resamples=400, seed=7)


def _hr(pid: str, hr: float, pr: float = 50.0, *, model: str = "m", method: str = "crux", task: str = "") -> ScoreRecord:
    return ScoreRecord(runner="hackrate", method=method, model=model, problem_id=pid, task=task, n_valid=2,
                       metrics={"hack_rate": hr, "pass_rate": pr, "ac": 100 - hr, "wa": hr, "re": 0.0, "tle": 0.0,
                                "n_tests": 4.0, "n_wanted": 10.0, "n_used": 2.0})


def test_a_metric_where_each_problem_scores_0_or_100_gets_the_exact_interval():
    records = [_hr(f"p{i}", 100.0 if i < 3 else 0.0) for i in range(10)]
    got = cell_intervals(HackRateRunner(), "hackrate", "m", "crux", records, options=OPTIONS)
    low, high = stats.clopper_pearson(3, 10)
    assert got["HR"].method == "exact" and got["HR"].problems == 10
    assert (got["HR"].low, got["HR"].high) == (pytest.approx(100 * low), pytest.approx(100 * high))
    assert got["HR"].value == pytest.approx(30.0)


def test_a_mean_over_problems_is_bootstrapped_on_the_same_draws_as_by_hand():
    values = [0.0, 12.5, 50.0, 100.0, 33.3, 0.0, 75.0]
    records = [_hr(f"p{i}", v) for i, v in enumerate(values)]
    got = cell_intervals(HackRateRunner(), "hackrate", "m", "crux", records, options=OPTIONS)
    draws = stats.resample_indices(len(values), OPTIONS.resamples, OPTIONS.seed)  # problems sorted: p0..p6
    low, high = np.quantile(np.asarray(values)[draws].mean(axis=1), [0.025, 0.975])
    assert got["HR"].method == "bootstrap" and got["HR"].problems == 7
    assert (got["HR"].low, got["HR"].high) == (pytest.approx(low), pytest.approx(high))
    # PR is 50 on every problem: no spread, and the interval says so
    assert (got["PR"].low, got["PR"].high) == (pytest.approx(50.0), pytest.approx(50.0))


def test_samples_travel_with_their_problem():
    # two samples per problem: the runner averages them first, the bootstrap draws problems
    records = []
    means = []
    for i, (a, b) in enumerate([(0.0, 100.0), (50.0, 50.0), (0.0, 0.0), (100.0, 60.0)]):
        records += [_hr(f"p{i}", a, task="s0"), _hr(f"p{i}", b, task="s1")]
        means.append((a + b) / 2)
    got = cell_intervals(HackRateRunner(), "hackrate", "m", "crux", records, samples=2, options=OPTIONS)
    draws = stats.resample_indices(4, OPTIONS.resamples, OPTIONS.seed)
    low, high = np.quantile(np.asarray(means)[draws].mean(axis=1), [0.025, 0.975])
    assert got["HR"].samples == 2 and got["HR"].problems == 4 and got["HR"].method == "bootstrap"
    assert (got["HR"].low, got["HR"].high) == (pytest.approx(low), pytest.approx(high))


class Pooled(Runner):
    """A runner whose metric is pooled over problems (hits / trials), not a mean of
    per-problem rates: the interval must come from summarising every resample."""

    name = "pooled"

    def score(self, problem, spec, suite):  # pragma: no cover - never scores here
        raise NotImplementedError

    def summarize(self, scores):
        hits = sum(s.metrics["hits"] for s in scores)
        trials = sum(s.metrics["trials"] for s in scores)
        return [Table(title="pooled", columns=["model", "method", "rate"],
                      rows=[{"model": "m", "method": "X", "rate": 100.0 * hits / trials}])]


def test_a_pooled_metric_is_resampled_through_the_runners_summarize():
    counts = [(1, 10), (9, 10), (0, 2), (5, 5), (3, 30)]
    records = [ScoreRecord(runner="pooled", method="x", model="m", problem_id=f"q{i}",
                           metrics={"hits": float(h), "trials": float(t)}) for i, (h, t) in enumerate(counts)]
    got = cell_intervals(Pooled(), "pooled", "m", "x", records, options=OPTIONS)["rate"]
    hits = np.array([h for h, _ in counts], dtype=float)
    trials = np.array([t for _, t in counts], dtype=float)
    draws = stats.resample_indices(5, OPTIONS.resamples, OPTIONS.seed)
    by_hand = 100 * hits[draws].sum(axis=1) / trials[draws].sum(axis=1)
    low, high = np.quantile(by_hand, [0.025, 0.975])
    assert got.method == "bootstrap" and got.value == pytest.approx(100 * hits.sum() / trials.sum())
    assert (got.low, got.high) == (pytest.approx(low), pytest.approx(high))


def test_one_problem_gives_no_bootstrap_interval_but_an_exact_one_when_it_is_a_proportion():
    got = cell_intervals(HackRateRunner(), "hackrate", "m", "crux", [_hr("p0", 40.0, 100.0)], options=OPTIONS)
    assert got["HR"].method == "none" and got["HR"].low is None and got["HR"].text() == "n/a"
    assert got["PR"].method == "exact" and got["PR"].low == pytest.approx(2.5)  # 1 of 1: [2.5, 100]


def _table_with_cells():
    records = [_hr(f"p{i}", 100.0 * (i % 2), model="A") for i in range(6)]
    records += [_hr(f"p{i}", 0.0, model="B") for i in range(6)]
    runner = HackRateRunner()
    tables = runner.summarize(records)
    cells = [Cell("A", "crux", "hackrate", attempted=6, scored=6, scored_problems={f"p{i}" for i in range(6)},
                  valid_problems={f"p{i}" for i in range(6)}),
             Cell("B", "crux", "hackrate", attempted=7, failed=1, scored=6,
                  scored_problems={f"p{i}" for i in range(6)}, valid_problems=set())]
    from tczoo.report import _add_health

    for t in tables:
        _add_health(t, cells, runner)
    add_intervals(tables, runner, "hackrate", records, cells, OPTIONS)
    return tables


def test_tables_get_interval_columns_problem_counts_and_a_note():
    main = _table_with_cells()[0]
    assert main.columns[main.columns.index("HR") + 1] == "HR" + CI
    assert main.columns[main.columns.index("PR") + 1] == "PR" + CI and N_PROBLEMS in main.columns
    a, b = main.rows
    assert a["HR" + CI].method == "exact" and a[N_PROBLEMS] == 6
    assert b.get("HR" + CI) is None  # no valid test: its cells say so, no interval beside a marker
    assert any("Clopper" in n and "bootstrap" in n for n in main.notes)
    md = render([main], "md")
    low, high = stats.clopper_pearson(3, 6)
    assert f"| [{100 * low:.2f}, {100 * high:.2f}] |" in md


def test_machine_formats_keep_numbers_status_and_intervals():
    tables = _table_with_cells()
    main = json.loads(render(tables, "json"))[0]
    assert "HR" + CI not in main["columns"] and "HR" in main["columns"]
    a, b = main["rows"]
    assert a["status"] == "ok" and isinstance(a["HR"], float) and a["intervals"]["HR"]["method"] == "exact"
    assert a["intervals"]["HR"]["problems"] == 6 and 0 < a["intervals"]["HR"]["low"] < 50 < a["intervals"]["HR"]["high"]
    # no valid test: the number the runner's averaging gives, as a number, with its status
    assert b["status"] == "no valid tests" and b["HR"] == 0.0 and b["AC"] == 100.0 and "intervals" not in b
    rows = list(csv.DictReader(io.StringIO(render(tables, "csv"))))
    assert rows[0]["HR 95% CI low"] == str(a["intervals"]["HR"]["low"]) and rows[0]["status"] == "ok"
    assert rows[1]["HR"] == "0.0" and rows[1]["status"] == "no valid tests" and rows[1]["HR 95% CI low"] == ""


def test_the_scaling_figure_draws_a_band_from_the_rows_intervals(tmp_path):
    """TC-Bench Figure 5 (lines over 1x-5x): a row whose numbers carry intervals gets a
    shaded band, taken from exactly those intervals; the same rows draw the same bytes."""
    from tczoo.experiments.figures import bands, draw
    from tczoo.experiments.reproduce import Reproduction
    from tczoo.experiments.targets import get_target

    target = get_target("tcbench-fig5")
    columns = target.layout.columns
    with_ci = {"source": "ours", "model": "m", "method": "crux",
               **{c: 10.0 * (i + 1) for i, c in enumerate(columns)},
               **{c + CI: stats.Interval(10.0 * (i + 1), 5.0 * (i + 1), 15.0 * (i + 1), "bootstrap", 12)
                  for i, c in enumerate(columns)}}
    bare = {"source": "ours", "model": "m", "method": "lcb", **{c: 50.0 for c in columns}}
    repro = Reproduction(target=target, spec=None, comparison=Table("t", [], []), ours=[], paper=[],  # type: ignore[arg-type]
                         settings=Table("s", [], []), figure_rows=[with_ci, bare])
    assert bands(repro) == {"crux": [(x, 5.0 * x, 15.0 * x) for x in range(1, 6)]}  # lcb has none: no band
    one, two = tmp_path / "a.png", tmp_path / "b.png"
    assert draw(repro, one) and draw(repro, two)
    assert one.read_bytes() == two.read_bytes()
    plain = tmp_path / "plain.png"
    repro.figure_rows = [{k: v for k, v in with_ci.items() if not k.endswith(CI)}, bare]
    assert draw(repro, plain) and plain.read_bytes() != one.read_bytes()  # the band is drawn

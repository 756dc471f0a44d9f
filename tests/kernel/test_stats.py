"""tczoo.stats against values computed by hand and known properties: Clopper–Pearson
against published table values and its closed forms, Holm on a textbook example, the
bootstrap's coverage on a simulated case with a seed, the paired difference and its
p-value, the problems-needed estimate."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tczoo import stats


@pytest.mark.parametrize("k, n, low, high", [
    # 95% exact (Clopper–Pearson) intervals as binomial tables print them
    (0, 10, 0.0, 0.3085),
    (1, 10, 0.0025, 0.4450),
    (5, 10, 0.1871, 0.8129),
    (10, 10, 0.6915, 1.0),
    (3, 20, 0.0321, 0.3789),
    (2, 5, 0.0527, 0.8534),
])
def test_clopper_pearson_matches_table_values(k, n, low, high):
    got = stats.clopper_pearson(k, n)
    assert got == (pytest.approx(low, abs=6e-5), pytest.approx(high, abs=6e-5))


@pytest.mark.parametrize("n", [1, 2, 7, 40, 500])
def test_clopper_pearson_closed_forms_at_the_ends(n):
    # k = 0: the upper end solves (1-p)^n = 0.025; k = n: the lower end solves p^n = 0.025
    assert stats.clopper_pearson(0, n)[1] == pytest.approx(1 - 0.025 ** (1 / n), abs=1e-9)
    assert stats.clopper_pearson(n, n)[0] == pytest.approx(0.025 ** (1 / n), abs=1e-9)
    assert stats.clopper_pearson(0, n)[0] == 0.0 and stats.clopper_pearson(n, n)[1] == 1.0


def test_clopper_pearson_refuses_impossible_counts():
    for k, n in [(-1, 3), (4, 3), (0, 0)]:
        with pytest.raises(ValueError):
            stats.clopper_pearson(k, n)


def test_holm_on_the_textbook_example():
    # four tests, p = 0.01, 0.04, 0.03, 0.005 (Holm 1979's step-down, as in most textbooks):
    # ordered 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 = 0.04 -> 0.06 (monotone)
    assert stats.holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert stats.holm([0.5, None, 0.9]) == [pytest.approx(1.0), None, pytest.approx(1.0)]
    assert stats.holm([]) == []


def test_resample_indices_are_seeded():
    a = stats.resample_indices(7, 50, seed=3)
    assert a.shape == (50, 7) and a.min() >= 0 and a.max() <= 6
    assert (a == stats.resample_indices(7, 50, seed=3)).all()
    assert not (a == stats.resample_indices(7, 50, seed=4)).all()


def test_mean_replicates_leave_out_units_without_a_value():
    values = [1.0, None, 3.0]
    draws = np.array([[0, 1, 2], [1, 1, 1], [2, 2, 0]])
    got = stats.mean_replicates(values, draws)
    assert got[0] == pytest.approx(2.0) and math.isnan(got[1]) and got[2] == pytest.approx(7 / 3)


def test_percentile_bootstrap_covers_the_true_mean_about_95_percent_of_the_time():
    """A simulated benchmark: 40 problems, each a score drawn from a skewed population
    (a problem's HackRate: 0 often, else uniform); 400 repetitions of the experiment,
    seeded. The 95% percentile interval of the mean must cover the population's mean in
    about 95% of them (binomial noise of 400 trials: +-2.2 points; the percentile
    bootstrap runs a little short on 40 skewed values)."""
    rng = np.random.default_rng(12345)
    true_mean = 0.6 * 50.0  # 40% zeros, else uniform on [0, 100]
    covered = 0
    trials = 400
    for t in range(trials):
        values = np.where(rng.random(40) < 0.4, 0.0, rng.uniform(0, 100, 40))
        reps = stats.mean_replicates(values, stats.resample_indices(40, 1000, seed=t))
        low, high = stats.percentile(reps)
        covered += low <= true_mean <= high
    assert 0.91 <= covered / trials <= 0.98, covered / trials


def test_paired_difference_of_identical_arms_is_zero_with_p_one():
    draws = stats.resample_indices(12, 500, seed=0)
    values = np.linspace(0, 100, 12)
    reps = stats.mean_replicates(values, draws)
    d = stats.paired_difference(values.mean(), values.mean(), reps, reps, problems=12)
    assert d.diff == 0 and d.low == 0 and d.high == 0 and d.p == 1.0 and d.needed is None and not d.separated


def test_paired_difference_separates_a_consistent_gain():
    """B beats A by 10 points on every problem (plus noise common to both): the paired
    interval is tight around 10 and the p-value is the smallest the resamples allow."""
    rng = np.random.default_rng(1)
    a = rng.uniform(0, 80, 20)
    b = a + 10 + rng.normal(0, 1, 20)
    draws = stats.resample_indices(20, 1000, seed=0)
    d = stats.paired_difference(a.mean(), b.mean(), stats.mean_replicates(a, draws),
                                stats.mean_replicates(b, draws), problems=20)
    assert d.diff == pytest.approx((b - a).mean())
    assert 9 < d.low < d.diff < d.high < 11 and d.separated
    assert d.p == pytest.approx(1 / 1001) and d.needed is None


def test_paired_p_value_is_the_share_of_shifted_replicates_at_least_as_far():
    # replicated differences 1, 2, 3, 4 around an observed 2.5: |d* - 2.5| >= 2.5 for none
    # of them -> p = 1 / 5; around an observed 0.5: |d* - 0.5| >= 0.5 for all four -> p = 1
    reps_a = np.zeros(4)
    reps_b = np.array([1.0, 2.0, 3.0, 4.0])
    assert stats.paired_difference(0.0, 2.5, reps_a, reps_b, problems=4).p == pytest.approx(1 / 5)
    assert stats.paired_difference(0.0, 0.5, reps_a, reps_b, problems=4).p == pytest.approx(1.0)


def test_problems_needed_scales_the_half_width_as_one_over_root_n():
    # 12 problems, difference 5, interval [-5, 15] (half-width 10): 12 x (10/5)^2 = 48
    assert stats.problems_needed(5.0, -5.0, 15.0, 12) == 48
    assert stats.problems_needed(5.0, 1.0, 9.0, 12) is None  # already excludes 0
    assert stats.problems_needed(0.0, -3.0, 3.0, 12) is None  # no difference to find
    assert stats.problems_needed(-2.0, -4.1, 0.1, 10) == 12  # 10 x (2.1/2)^2 = 11.03 -> 12
    d = stats.paired_difference(0.0, 5.0, np.zeros(3), np.array([-5.0, 5.0, 15.0]), problems=12)
    assert d.needed == stats.problems_needed(d.diff, d.low, d.high, 12)


def test_interval_text_and_json():
    iv = stats.Interval(4.2, 1.0, 9.25, "bootstrap", 12)
    assert iv.text(2) == "[1.00, 9.25]" and iv.text() == "[1.0, 9.2]"
    assert iv.as_json() == {"low": 1.0, "high": 9.25, "level": 0.95, "method": "bootstrap", "problems": 12,
                            "samples": 1}
    assert stats.Interval(1.0, None, None, "none", 1).text() == "n/a"

"""The statistics behind every interval and comparison tczoo prints (numpy only).

- ``clopper_pearson(k, n)``: the exact binomial interval of one proportion;
- ``resample_indices(n, resamples, seed)``: the seeded bootstrap's draws of ``n`` units
  (problems) with replacement, one row per resample — the same rows for every cell of
  a comparison, so that two cells resampled together are paired;
- ``percentile(replicates)``: the percentile interval of a statistic's replicates;
- ``mean_replicates(values, draws)``: the replicates of a mean over units, computed at
  once (a unit without a value is left out of its resample, as the runners leave it
  out of their mean); ``mean_interval(values)``: a mean's interval in one call (exact
  when every value is 0 or the top of the scale);
- ``paired_difference``: B − A with its percentile interval and a two-sided bootstrap
  p-value, from replicates computed on the same draws;
- ``holm(p_values)``: Holm's step-down adjustment for several comparisons;
- ``problems_needed``: how many problems an interval as wide as this one would need to
  exclude zero at the measured difference.

Nothing here knows runners, records or tables: ``tczoo.report`` turns records into the
statistics these functions take.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

LEVEL = 0.95
RESAMPLES = 2000  # bootstrap resamples by default (--resamples)
SEED = 0  # the bootstrap's seed by default (--bootstrap-seed)


@dataclass(frozen=True)
class Interval:
    """A metric's value with its interval, and what the interval rests on.

    ``method``: ``bootstrap`` (percentile interval of a bootstrap over problems),
    ``exact`` (Clopper–Pearson: the metric is one proportion, one yes/no per problem),
    ``none`` (fewer than two problems, or no value: no interval is given)."""

    value: float
    low: float | None
    high: float | None
    method: str
    problems: int
    samples: int = 1
    level: float = LEVEL

    def text(self, decimals: int = 1) -> str:
        if self.low is None or self.high is None:
            return "n/a"
        return f"[{self.low:.{decimals}f}, {self.high:.{decimals}f}]"

    def as_json(self) -> dict[str, Any]:
        return {"low": self.low, "high": self.high, "level": self.level, "method": self.method,
                "problems": self.problems, "samples": self.samples}


@dataclass(frozen=True)
class Difference:
    """B − A over the problems both were scored on, with its paired interval."""

    a_value: float
    b_value: float
    diff: float
    low: float | None
    high: float | None
    p: float | None
    problems: int
    samples: int = 1
    p_adjusted: float | None = None
    needed: int | None = None  # problems for an interval of this width to exclude 0 (None: it does, or diff is 0)
    level: float = LEVEL

    @property
    def separated(self) -> bool:
        """Whether the interval excludes zero."""
        return self.low is not None and self.high is not None and (self.low > 0 or self.high < 0)


# --------------------------------------------------------------------------- exact


def _log_binom_pmf(n: int, p: float) -> np.ndarray:
    logfact = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1, dtype=float)))])
    i = np.arange(n + 1)
    with np.errstate(divide="ignore"):
        return (logfact[n] - logfact[i] - logfact[n - i]) + i * math.log(p) + (n - i) * math.log1p(-p)


def _cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    terms = _log_binom_pmf(n, p)[: k + 1]
    top = terms.max()
    return float(min(1.0, math.exp(top) * np.exp(terms - top).sum()))


def _solve(f, target: float) -> float:
    """The p in (0, 1) where the decreasing function f(p) equals ``target`` (bisection)."""
    lo, hi = 0.0, 1.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if f(mid) > target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def clopper_pearson(k: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """The exact (Clopper–Pearson) interval of a proportion ``k`` of ``n``: the
    parameters whose binomial tail probabilities are each (1 − level)/2."""
    if n <= 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n and n > 0, got k={k}, n={n}")
    alpha = (1 - level) / 2
    # both binomial CDFs fall as p grows: the lower end is where P(X >= k) = alpha,
    # i.e. P(X <= k-1) = 1 - alpha; the upper end where P(X <= k) = alpha
    low = 0.0 if k == 0 else _solve(lambda p: _cdf(k - 1, n, p), 1 - alpha)
    high = 1.0 if k == n else _solve(lambda p: _cdf(k, n, p), alpha)
    return low, high


# --------------------------------------------------------------------------- bootstrap


def resample_indices(n: int, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """``resamples`` draws of ``n`` units with replacement (rows of indices 0..n-1),
    seeded: the same (n, resamples, seed) always gives the same draws."""
    if n <= 0:
        return np.zeros((resamples, 0), dtype=np.int64)
    return np.random.default_rng(seed).integers(0, n, size=(resamples, n))


def percentile(replicates: Sequence[float] | np.ndarray, level: float = LEVEL) -> tuple[float | None, float | None]:
    """The percentile interval of bootstrap replicates (resamples without a value left
    out); (None, None) when none has one."""
    values = np.asarray(replicates, dtype=float)
    values = values[~np.isnan(values)]
    if not values.size:
        return None, None
    alpha = (1 - level) / 2
    low, high = np.quantile(values, [alpha, 1 - alpha])
    return float(low), float(high)


def mean_replicates(values: Sequence[float | None] | np.ndarray, draws: np.ndarray) -> np.ndarray:
    """The mean of ``values[draw]`` for each row of ``draws``, leaving out units without
    a value (None or NaN); NaN for a resample with none."""
    v = np.array([np.nan if x is None else float(x) for x in values], dtype=float)
    picked = v[draws]
    have = ~np.isnan(picked)
    counts = have.sum(axis=1)
    sums = np.where(have, picked, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


def mean_interval(values: Sequence[float | None], *, scale: float | None = None, samples: int = 1,
                  resamples: int = RESAMPLES, seed: int = SEED, level: float = LEVEL) -> Interval:
    """The interval of a mean over units (problems) of per-unit values (None: the unit
    has no value and is left out): exact (Clopper–Pearson, times ``scale``) when every
    value is 0 or ``scale``, else the percentile interval of the seeded bootstrap; no
    interval for fewer than two values."""
    defined = [float(v) for v in values if v is not None and v == v]
    n = len(defined)
    value = sum(defined) / n if n else float("nan")
    if n and scale and all(v in (0.0, scale) for v in defined):
        low, high = clopper_pearson(sum(1 for v in defined if v == scale), n, level)
        return Interval(value, low * scale, high * scale, "exact", n, samples, level)
    if n < 2:
        return Interval(value, None, None, "none", n, samples, level)
    low_b, high_b = percentile(mean_replicates(defined, resample_indices(n, resamples, seed)), level)
    return Interval(value, low_b, high_b, "bootstrap", n, samples, level)


def paired_difference(a_value: float, b_value: float, a_reps: np.ndarray, b_reps: np.ndarray, *,
                      problems: int, samples: int = 1, level: float = LEVEL) -> Difference:
    """B − A from replicates computed on the same draws of the same problems: the
    percentile interval of the replicated differences, and the two-sided p-value of the
    bootstrap distribution shifted to the null, (1 + #{|d* − d| >= |d|}) / (R + 1)."""
    diff = b_value - a_value
    d = np.asarray(b_reps, dtype=float) - np.asarray(a_reps, dtype=float)
    d = d[~np.isnan(d)]
    low, high = percentile(d, level)
    p = None
    if d.size:
        extreme = np.abs(d - diff) >= abs(diff) - 1e-12
        p = float((1 + extreme.sum()) / (d.size + 1))
    out = Difference(a_value=a_value, b_value=b_value, diff=diff, low=low, high=high, p=p, problems=problems,
                     samples=samples, level=level)
    return _with_needed(out)


def _with_needed(d: Difference) -> Difference:
    from dataclasses import replace

    return replace(d, needed=problems_needed(d.diff, d.low, d.high, d.problems))


def problems_needed(diff: float, low: float | None, high: float | None, problems: int) -> int | None:
    """How many problems an interval like this one would need to exclude zero, if the
    difference stayed ``diff``: the half-width shrinks as 1/sqrt(problems), so it
    reaches |diff| at problems × (half-width / |diff|)². None when the interval already
    excludes zero, when there is no interval, or when the difference is 0 (no number of
    problems tells apart two methods that measured the same)."""
    if low is None or high is None or problems <= 0:
        return None
    if low > 0 or high < 0 or diff == 0:
        return None
    half = (high - low) / 2
    return max(problems + 1, math.ceil(problems * (half / abs(diff)) ** 2))


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values (family-wise error over the comparisons
    given; None stays None): the i-th smallest p times (m − i + 1), kept monotone and
    at most 1."""
    indexed = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    m = len(indexed)
    out: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(indexed):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out

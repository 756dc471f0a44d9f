"""WrongSelect: pick a small, maximally diverse set of wrong codes (TC-Bench, section 2).

The input is the code-test binary matrix ``M`` (rows: wrong codes, columns: golden
tests, ``M[i, j] = 1`` when wrong code ``i`` fails test ``j``). Algorithm 1 of the paper:

Phase 1, pre-filtering (section 2.2.1)
    * problem level: a problem whose matrix has an all-ones column (a test that every
      wrong code fails) is excluded;
    * code level: a wrong code whose failure rate (ones / d) *exceeds* ``tau`` = 0.8 is
      removed (a rate of exactly 0.8 stays, as in the reference code), giving ``M'``;
    * a problem whose ``rank(M') < 5`` is excluded.

Phase 2, random-restart local search (section 2.2.2, Appendix A.2)
    ``E`` times: draw a random row basis of ``M'``; then up to ``K`` times move to the
    best neighbour (swap one basis row for one outside row, keeping full rank) while it
    lowers ``F`` = the mean pairwise Jaccard similarity of the basis; keep the best local
    optimum over all restarts.

What makes this implementation fast (the naive one is kept as :func:`naive_wrong_select`
for tests and the benchmark):

* swap feasibility comes from *basis coordinates*: every row of ``M'`` lies in the span
  of the current basis, ``r = sum_l c_l b_l``; swapping basis row ``b_i`` for an outside
  row ``r`` keeps full rank iff ``c_i != 0``. After a swap the coordinates of all rows are
  updated with one pivot step (a rank-one update; over GF(2) an XOR), instead of one
  rank computation per neighbour;
* the objective is updated incrementally: with ``S[x] = sum_{b in basis} J(x, b)`` the
  pair-sum after swapping ``b_i`` for ``r`` is ``sum - (S[b_i] - 1) + (S[r] - J(r, b_i))``,
  so the whole neighbourhood is one vectorised ``(outside x R)`` array;
* the Jaccard matrix among candidate rows is precomputed once (computed per column when
  the candidate pool is too large to hold it).

Choices where the paper is silent are listed in ``docs/wrongselect.md``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from dataclasses import field as dc_field
from pathlib import Path
from typing import Any, Callable, Iterable, Literal, Sequence

import numpy as np

from tczoo.errors import UserError
from tczoo.schema import FailureSignature, Problem

Field = Literal["real", "gf2"]
ColumnCheck = Literal["raw", "filtered"]

TAU = 0.8  # failure-rate threshold of the code-level filter
MIN_RANK = 5  # problems whose filtered matrix has a lower rank are excluded
RESTARTS = 1000  # E; the paper sets both loops to 1000 (section 2.3)
MAX_STEPS = 1000  # K
EPS = 1e-9  # objective differences below this are ties (float noise)
COORD_TOL = 1e-9  # |coordinate| above this counts as nonzero (real field)
REFRESH_EVERY = 16  # recompute real coordinates from scratch every this many swaps
FULL_JACCARD_MAX_ROWS = 4096  # above this, Jaccard columns are computed on demand


# --------------------------------------------------------------------------- matrices


def _row_bits(row: Any, where: str) -> list[int]:
    if isinstance(row, str):
        # "AWWA": A = accepted (0), any other verdict letter = failed (1)
        return [0 if ch == "A" else 1 for ch in row.strip()]
    if isinstance(row, (list, tuple, np.ndarray)):
        bits = []
        for value in row:
            if isinstance(value, str):  # a verdict list: ["AC", "WA", ...]
                bits.append(0 if value.strip().upper() in ("A", "AC", "OK") else 1)
            elif isinstance(value, (bool, int, float, np.integer, np.floating)) and value in (0, 1):
                bits.append(int(value))
            else:
                from tczoo.safeio.read import brief

                raise ValueError(f"{where}: entries must be 0/1 or verdicts, got {brief(value, 40)}")
        return bits
    raise ValueError(f"{where}: a row must be a verdict string like 'AWWA' or a 0/1 list")


def matrix_from_rows(rows: Iterable[Any]) -> np.ndarray:
    """Build the code-test matrix from verdict strings (``"AWWA"``), verdict lists or 0/1 lists."""
    parsed = [_row_bits(row, f"row {i}") for i, row in enumerate(rows)]
    if not parsed:
        return np.zeros((0, 0), dtype=np.uint8)
    widths = {len(r) for r in parsed}
    if len(widths) != 1:
        raise ValueError(f"rows have different lengths {sorted(widths)}: one column per test")
    return np.asarray(parsed, dtype=np.uint8)


def matrix_from_problem(problem: Problem) -> np.ndarray:
    """The code-test matrix from the wrong solutions' stored failure signatures."""
    missing = [i for i, w in enumerate(problem.wrong_solutions) if w.signature is None]
    if missing:
        raise ValueError(
            f"problem {problem.id}: wrong solutions {missing} have no failure signature; "
            "judge them first or pass the matrix"
        )
    return matrix_from_rows([w.signature.bits for w in problem.wrong_solutions])  # type: ignore[union-attr]


def _as_binary(matrix: Any) -> np.ndarray:
    m = np.asarray(matrix)
    if m.ndim == 1 and m.size == 0:
        return np.zeros((0, 0), dtype=np.uint8)
    if m.ndim != 2:
        raise ValueError(f"the code-test matrix must be 2-D, got shape {m.shape}")
    if m.size and not np.isin(m, (0, 1)).all():
        raise ValueError("the code-test matrix must contain only 0 and 1")
    return m.astype(np.uint8, copy=False)


def matrix_rank_real(matrix: Any) -> int:
    """Rank over the reals (numpy's SVD rank, as the reference implementation uses)."""
    m = np.asarray(matrix, dtype=float)
    if m.size == 0:
        return 0
    return int(np.linalg.matrix_rank(m))


def _pack_rows(m: np.ndarray) -> list[int]:
    """Each 0/1 row as a Python int bitset (column j = bit j)."""
    weights = [1 << j for j in range(m.shape[1])]
    return [sum(w for w, bit in zip(weights, row) if bit) for row in m.tolist()]


def matrix_rank_gf2(matrix: Any) -> int:
    """Rank over GF(2) (XOR elimination)."""
    m = _as_binary(matrix)
    if m.size == 0:
        return 0
    pivots: dict[int, int] = {}  # highest bit -> basis vector
    for v in _pack_rows(m):
        while v:
            top = v.bit_length() - 1
            if top not in pivots:
                pivots[top] = v
                break
            v ^= pivots[top]
    return len(pivots)


def matrix_rank(matrix: Any, field: Field = "real") -> int:
    if field == "real":
        return matrix_rank_real(matrix)
    if field == "gf2":
        return matrix_rank_gf2(matrix)
    raise ValueError(f"unknown field {field!r} (real or gf2)")


def jaccard_matrix(matrix: Any) -> np.ndarray:
    """Pairwise Jaccard similarity of the rows; two all-zero rows count as 0."""
    m = np.asarray(matrix, dtype=np.float64)
    inter = m @ m.T
    sizes = m.sum(axis=1)
    union = sizes[:, None] + sizes[None, :] - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0)


def mean_pairwise_jaccard(matrix: Any) -> float:
    """F(I): the mean Jaccard similarity over all pairs of rows (0.0 with fewer than 2 rows)."""
    m = np.asarray(matrix)
    n = m.shape[0] if m.ndim == 2 else 0
    if n < 2:
        return 0.0
    jac = jaccard_matrix(m)
    return float(jac[np.triu_indices(n, k=1)].sum() / (n * (n - 1) / 2))


# --------------------------------------------------------------------------- phase 1


@dataclass
class PrefilterResult:
    """What Phase 1 did to one problem's matrix (row indices are the caller's)."""

    keep_problem: bool  # False: an all-ones column, or no row left
    kept_rows: list[int]  # rows of M' (failure rate <= tau, at least one failure)
    dropped_high_failure: list[int]  # failure rate > tau
    dropped_no_failure: list[int]  # pass every test: not wrong on these tests
    all_ones_columns: list[int]  # columns every checked row fails
    reason: str | None = None


def prefilter(matrix: Any, tau: float | None = TAU, *, column_check: ColumnCheck = "raw") -> PrefilterResult:
    """Phase 1 of Algorithm 1: problem-level column check and code-level row filter.

    ``column_check="raw"`` looks for all-ones columns in ``M`` (the paper: "we exclude all
    problems containing all-ones columns", before the row filter); ``"filtered"`` looks in
    ``M'`` after the row filter, as the reference repository's code does (that also
    catches columns that become all ones once the noisiest rows are gone). Rows that pass
    every test are not wrong codes on these tests and are left out of both.
    ``tau=None`` disables the row filter.
    """
    if column_check not in ("raw", "filtered"):
        raise ValueError(f"column_check must be 'raw' or 'filtered', got {column_check!r}")
    m = _as_binary(matrix)
    n, d = m.shape
    ones = m.sum(axis=1) if n else np.zeros(0)
    failing = ones > 0
    no_failure = np.flatnonzero(~failing).tolist()
    if tau is None or d == 0:
        too_many = np.zeros(n, dtype=bool)
    else:
        too_many = failing & (ones / d > tau)
    kept_mask = failing & ~too_many
    kept = np.flatnonzero(kept_mask).tolist()
    checked = failing if column_check == "raw" else kept_mask
    all_ones = np.flatnonzero(m[checked].all(axis=0)).tolist() if checked.any() else []
    reason = None
    if not kept:
        reason = "no wrong code left after the row filter"
    elif all_ones:
        reason = f"all-ones column(s) {all_ones}: every wrong code fails those tests"
    return PrefilterResult(
        keep_problem=reason is None,
        kept_rows=kept,
        dropped_high_failure=np.flatnonzero(too_many).tolist(),
        dropped_no_failure=no_failure,
        all_ones_columns=all_ones,
        reason=reason,
    )


# --------------------------------------------------------------------------- phase 2


class _Pool:
    """The candidate rows of M' as the search sees them, plus cached Jaccard columns."""

    def __init__(self, rows: np.ndarray, field: Field):
        self.m = rows  # (k, d) uint8
        self.k, self.d = rows.shape
        self.field = field
        self.mf = rows.astype(np.float64)
        self.sizes = self.mf.sum(axis=1)
        self.full_jaccard = jaccard_matrix(rows) if self.k <= FULL_JACCARD_MAX_ROWS else None
        self.packed = _pack_rows(rows) if field == "gf2" else None

    def jaccard_cols(self, idx: np.ndarray) -> np.ndarray:
        """J[:, idx] as a (k, len(idx)) array."""
        if self.full_jaccard is not None:
            return self.full_jaccard[:, idx]
        inter = self.mf @ self.mf[idx].T
        union = self.sizes[:, None] + self.sizes[idx][None, :] - inter
        return np.where(union > 0, inter / np.where(union > 0, union, 1.0), 0.0)

    def objective(self, basis: Sequence[int]) -> float:
        return mean_pairwise_jaccard(self.m[list(basis)])

    def rank(self, rows: Sequence[int]) -> int:
        return matrix_rank(self.m[list(rows)], self.field)


def random_basis(pool: _Pool, rank: int, rng: np.random.Generator) -> list[int]:
    """RandomBasis(M', R'): scan the rows in a random order, keep each one that is
    independent of those kept so far, stop at ``rank`` rows. Returns pool indices."""
    order = rng.permutation(pool.k)
    chosen: list[int] = []
    if rank == 0:
        return chosen
    if pool.field == "gf2":
        assert pool.packed is not None
        pivots: dict[int, int] = {}
        for r in order.tolist():
            v = pool.packed[r]
            while v:
                top = v.bit_length() - 1
                if top not in pivots:
                    pivots[top] = v
                    chosen.append(r)
                    break
                v ^= pivots[top]
            if len(chosen) == rank:
                break
        return chosen
    q = np.zeros((rank, pool.d))  # orthonormal rows spanning the chosen rows
    for r in order.tolist():
        v = pool.mf[r]
        res = v - q[: len(chosen)].T @ (q[: len(chosen)] @ v)
        res = res - q[: len(chosen)].T @ (q[: len(chosen)] @ res)  # re-orthogonalise
        norm = np.linalg.norm(res)
        if norm > 1e-8 * max(1.0, np.linalg.norm(v)):
            q[len(chosen)] = res / norm
            chosen.append(r)
            if len(chosen) == rank:
                break
    if len(chosen) != rank or len(_pivot_columns(pool.mf[chosen])) != rank:
        raise ArithmeticError("could not draw a basis of full rank (numerically degenerate matrix)")
    return chosen


def _pivot_columns(b: np.ndarray) -> list[int]:
    """Columns of ``b`` (R x d) that are linearly independent, found by Gaussian
    elimination with partial pivoting (no SVD: LAPACK's SVD is slow for these small
    matrices when OpenBLAS threads compete for the CPU)."""
    a = np.array(b, dtype=np.float64)
    rows, cols = a.shape
    tol = 1e-9 * max(1.0, float(np.abs(a).max(initial=0.0)))
    chosen: list[int] = []
    r = 0
    for c in range(cols):
        if r == rows:
            break
        p = r + int(np.argmax(np.abs(a[r:, c])))
        if abs(a[p, c]) <= tol:
            continue
        if p != r:
            a[[r, p]] = a[[p, r]]
        a[r + 1 :] -= np.outer(a[r + 1 :, c] / a[r, c], a[r])
        chosen.append(c)
        r += 1
    return chosen


def _coordinates(pool: _Pool, basis: np.ndarray) -> np.ndarray:
    """C (k x R) with M'[x] = sum_l C[x, l] * M'[basis[l]] for every candidate row x."""
    rank = len(basis)
    if pool.field == "real":
        # every row x lies in the row space of b (R x d, full row rank), so c @ b = x has
        # one solution, fixed by any R independent columns S: c = x[S] @ inv(b[:, S])
        b = pool.mf[basis]
        cols = _pivot_columns(b)
        if len(cols) != rank:
            raise ArithmeticError("basis rows are not independent (numerically degenerate matrix)")
        coords = pool.mf[:, cols] @ np.linalg.inv(b[:, cols])
        coords[basis] = np.eye(rank)
        return coords
    # GF(2): row-reduce the basis while tracking which basis rows make each reduced row
    e = pool.m[basis].copy()
    t = np.eye(rank, dtype=np.uint8)  # e = t @ B (mod 2)
    pivot_cols: list[int] = []
    row = 0
    for col in range(pool.d):
        hits = np.flatnonzero(e[row:, col]) + row
        if hits.size == 0:
            continue
        p = hits[0]
        if p != row:
            e[[row, p]] = e[[p, row]]
            t[[row, p]] = t[[p, row]]
        others = np.flatnonzero(e[:, col])
        others = others[others != row]
        e[others] ^= e[row]
        t[others] ^= t[row]
        pivot_cols.append(col)
        row += 1
        if row == rank:
            break
    x = pool.m.copy()
    used = np.zeros((pool.k, rank), dtype=np.uint8)
    for r, col in enumerate(pivot_cols):
        hit = x[:, col] == 1
        x[hit] ^= e[r]
        used[hit, r] = 1
    if x.any():
        raise ArithmeticError("a row is outside the span of the basis (rank mismatch)")
    return (used.astype(np.int64) @ t.astype(np.int64) % 2).astype(np.uint8)


def _fast_local_search(pool: _Pool, start: Sequence[int], max_steps: int) -> tuple[list[int], int]:
    """Best-improvement swap search from ``start``; returns (basis, moves made)."""
    basis = np.array(start, dtype=np.int64)
    rank = len(basis)
    if rank < 2 or rank == pool.k:
        return sorted(basis.tolist()), 0
    pairs = rank * (rank - 1) / 2
    in_basis = np.zeros(pool.k, dtype=bool)
    in_basis[basis] = True
    coords = _coordinates(pool, basis)
    jb = pool.jaccard_cols(basis)  # (k, R): J[x, basis[l]]
    eps = EPS * pairs
    moves = 0
    for _ in range(max_steps):
        outside = np.flatnonzero(~in_basis)  # ascending: the order r_in is scanned in
        s = jb.sum(axis=1)  # S[x] = sum over the basis of J(x, b)
        own = s[basis] - 1.0  # S[b_i] without J(b_i, b_i) = 1 (basis rows are nonzero)
        delta = (s[outside][:, None] - jb[outside]) - own[None, :]
        c_out = coords[outside]
        feasible = np.abs(c_out) > COORD_TOL if pool.field == "real" else c_out == 1
        delta = np.where(feasible, delta, np.inf)
        best = delta.min()
        if not best < -eps:
            break  # no neighbour is better: a local optimum
        rows, cols = np.nonzero(delta <= best + eps)
        # ties go to the first neighbour in the paper's scan order: r_in, then r_out
        pick = np.lexsort((basis[cols], outside[rows]))[0]
        j, i = int(outside[rows[pick]]), int(cols[pick])
        leaving = int(basis[i])
        # pivot: express every row in the new basis (b_i replaced by row j)
        cj = coords[j].copy()
        if pool.field == "real":
            factor = coords[:, i] / cj[i]
            coords -= np.outer(factor, cj)
            coords[:, i] = factor
        else:
            factor = coords[:, i].copy()
            coords ^= factor[:, None] & cj[None, :]
            coords[:, i] = factor
        basis[i] = j
        in_basis[leaving] = False
        in_basis[j] = True
        jb[:, i] = pool.jaccard_cols(np.array([j]))[:, 0]
        moves += 1
        if pool.field == "real" and moves % REFRESH_EVERY == 0:
            coords = _coordinates(pool, basis)  # stop round-off from piling up
    return sorted(basis.tolist()), moves


def _naive_local_search(pool: _Pool, start: Sequence[int], max_steps: int) -> tuple[list[int], int]:
    """Algorithm 1's inner loop as written: a rank check and a full F per neighbour."""
    current = sorted(start)
    rank = len(current)
    f_current = pool.objective(current)
    moves = 0
    for _ in range(max_steps):
        best, f_best = current, f_current
        inside = set(current)
        for r_in in range(pool.k):
            if r_in in inside:
                continue
            for r_out in current:
                temp = sorted([r for r in current if r != r_out] + [r_in])
                if pool.rank(temp) == rank:
                    f_temp = pool.objective(temp)
                    if f_temp < f_best - EPS:
                        best, f_best = temp, f_temp
        if f_best < f_current - EPS:
            current, f_current = best, f_best
            moves += 1
        else:
            break
    return current, moves


# --------------------------------------------------------------------------- driver


@dataclass
class WrongSelectResult:
    rank: int  # R' = rank of the filtered matrix = the number of selected wrong codes
    basis: list[int]  # selected rows, as indices into the matrix given (sorted)
    objective: float  # F(basis): mean pairwise Jaccard similarity
    field: str = "real"
    qualified: bool = True  # passes the problem-level filters (no all-ones column, rank >= min_rank)
    reason: str | None = None  # why not qualified
    prefilter: PrefilterResult | None = None
    candidates: int = 0  # distinct rows of M' the search chose from
    restarts: int = 0
    moves: int = 0  # improving swaps made over all restarts
    best_restart: int = -1
    history: list[float] = dc_field(default_factory=list)  # F of each restart's local optimum

    def to_json(self) -> dict[str, Any]:
        """``tczoo wrongselect --format json``: rank, basis (row indices of the matrix
        given), objective, and whether the problem qualifies for a benchmark (and why
        not)."""
        return {"rank": self.rank, "basis": list(self.basis), "objective": self.objective,
                "qualified": self.qualified, "reason": self.reason}

    def describe(self, matrix: Any, tau: float | None = TAU) -> list[str]:
        """The human report of ``tczoo wrongselect``, line by line (``tau``: the row
        filter's threshold the selection ran with)."""
        m = np.asarray(matrix)
        pre = self.prefilter
        lines = [f"matrix: {m.shape[0]} wrong codes x {m.shape[1] if m.ndim == 2 else 0} tests"]
        if pre is not None:
            no_failure = f", {len(pre.dropped_no_failure)} pass every test" if pre.dropped_no_failure else ""
            lines.append(f"row filter (failure rate > {tau}): dropped {len(pre.dropped_high_failure)}{no_failure}")
        lines += [
            f"rank ({self.field}): {self.rank}   distinct candidate rows: {self.candidates}",
            f"basis: {self.basis}",
            f"objective (mean pairwise Jaccard): {self.objective:.6f}",
            f"restarts: {self.restarts}   improving swaps: {self.moves}   best at restart {self.best_restart}",
            "qualified for a benchmark" if self.qualified else f"NOT qualified: {self.reason}",
        ]
        return lines

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


LocalSearch = Callable[[_Pool, Sequence[int], int], "tuple[list[int], int]"]


def _run(
    matrix: Any,
    local_search: LocalSearch,
    *,
    restarts: int,
    max_steps: int,
    seed: int,
    field: Field,
    tau: float | None,
    min_rank: int,
    column_check: ColumnCheck,
    initial_bases: Sequence[Sequence[int]] | None,
) -> WrongSelectResult:
    if field not in ("real", "gf2"):
        raise ValueError(f"unknown field {field!r} (real or gf2)")
    if restarts < 1 and not initial_bases:
        raise ValueError("restarts must be at least 1")
    if max_steps < 0:
        raise ValueError("max_steps must be >= 0")
    m = _as_binary(matrix)
    pre = prefilter(m, tau, column_check=column_check)
    # identical failure signatures are interchangeable (never two in one basis): search
    # over distinct rows, each standing for its first (lowest-index) occurrence
    kept = np.asarray(pre.kept_rows, dtype=np.int64)
    if kept.size:
        _, first = np.unique(m[kept], axis=0, return_index=True)
        rep = kept[np.sort(first)]
    else:
        rep = kept
    pool = _Pool(m[rep] if rep.size else np.zeros((0, m.shape[1] if m.ndim == 2 else 0), np.uint8), field)
    rank = pool.rank(range(pool.k)) if pool.k else 0
    reason = pre.reason
    if reason is None and rank < min_rank:
        reason = f"rank {rank} < {min_rank}"
    result = WrongSelectResult(
        rank=rank, basis=[], objective=0.0, field=field, qualified=reason is None,
        reason=reason, prefilter=pre, candidates=pool.k,
    )
    if rank == 0:
        return result
    rng = np.random.default_rng(seed)
    starts: Iterable[Sequence[int] | None]
    if initial_bases is not None:
        lookup = {int(orig): pos for pos, orig in enumerate(rep.tolist())}
        starts = []
        for b in initial_bases:
            try:
                local = [lookup[int(x)] for x in b]
            except KeyError as exc:
                raise ValueError(f"initial basis row {exc.args[0]} is not a candidate row of M'") from None
            if len(set(local)) != rank or pool.rank(local) != rank:
                raise ValueError(f"initial basis {list(b)} is not a basis of M' (rank {rank})")
            starts.append(local)
    else:
        starts = (None for _ in range(restarts))
    best_f, best_basis = np.inf, None
    for e, start in enumerate(starts):
        if start is None:
            start = random_basis(pool, rank, rng)
        basis, moves = local_search(pool, start, max_steps)
        f = pool.objective(basis)  # exact, not the incrementally updated value
        result.history.append(f)
        result.moves += moves
        result.restarts += 1
        if f < best_f - EPS:
            best_f, best_basis, result.best_restart = f, basis, e
    assert best_basis is not None
    result.basis = sorted(int(rep[i]) for i in best_basis)
    result.objective = float(best_f)
    return result


def wrong_select(
    matrix: Any,
    *,
    restarts: int = RESTARTS,
    max_steps: int = MAX_STEPS,
    seed: int = 0,
    field: Field = "real",
    tau: float | None = TAU,
    min_rank: int = MIN_RANK,
    column_check: ColumnCheck = "raw",
    initial_bases: Sequence[Sequence[int]] | None = None,
) -> WrongSelectResult:
    """Algorithm 1 (WrongSelect) on a 0/1 code-test matrix; deterministic for a seed.

    The search runs even when the problem fails a problem-level filter (all-ones
    column, rank below ``min_rank``): ``result.qualified`` / ``result.reason`` say so and
    :func:`build_benchmark_from_matrix` acts on it. ``initial_bases`` (row indices into
    ``matrix``) replaces the random starts, one restart each.
    """
    return _run(
        matrix, _fast_local_search, restarts=restarts, max_steps=max_steps, seed=seed,
        field=field, tau=tau, min_rank=min_rank, column_check=column_check,
        initial_bases=initial_bases,
    )


def naive_wrong_select(
    matrix: Any,
    *,
    restarts: int = RESTARTS,
    max_steps: int = MAX_STEPS,
    seed: int = 0,
    field: Field = "real",
    tau: float | None = TAU,
    min_rank: int = MIN_RANK,
    column_check: ColumnCheck = "raw",
    initial_bases: Sequence[Sequence[int]] | None = None,
) -> WrongSelectResult:
    """Algorithm 1 exactly as written (a rank computation and a full F per neighbour).

    Same random starts as :func:`wrong_select` for the same seed; kept as the reference
    the fast search is tested and benchmarked against.
    """
    return _run(
        matrix, _naive_local_search, restarts=restarts, max_steps=max_steps, seed=seed,
        field=field, tau=tau, min_rank=min_rank, column_check=column_check,
        initial_bases=initial_bases,
    )


# --------------------------------------------------------------------------- benchmark


def build_benchmark_from_matrix(
    problem: Problem,
    matrix: Any = None,
    *,
    restarts: int = RESTARTS,
    max_steps: int = MAX_STEPS,
    seed: int = 0,
    field: Field = "real",
    tau: float | None = TAU,
    min_rank: int = MIN_RANK,
    column_check: ColumnCheck = "raw",
) -> Problem | None:
    """The TC-Bench form of ``problem``: only the selected wrong solutions, ``rank`` set.

    ``matrix`` has one row per ``problem.wrong_solutions`` entry, in order: 0/1 rows,
    ``"AWWA"`` strings or verdict lists (``["AC", "WA", "TLE"]``; those also become the
    kept solutions' failure signatures when they have none). Without it, the stored
    failure signatures are used. Returns None when the problem is excluded (all-ones
    column, nothing left, or rank below ``min_rank``).
    """
    verdict_rows: list[list[str]] | None = None
    if matrix is None:
        m = matrix_from_problem(problem)
    elif isinstance(matrix, np.ndarray):
        m = _as_binary(matrix)
    else:
        rows = list(matrix)
        if rows and all(isinstance(r, (list, tuple)) and r and isinstance(r[0], str) for r in rows):
            verdict_rows = [[str(v) for v in r] for r in rows]
        m = matrix_from_rows(rows)
    if m.shape[0] != len(problem.wrong_solutions):
        raise ValueError(
            f"problem {problem.id}: matrix has {m.shape[0]} rows but there are "
            f"{len(problem.wrong_solutions)} wrong solutions"
        )
    pre = prefilter(m, tau, column_check=column_check)
    if not pre.keep_problem:
        return None
    res = wrong_select(
        m, restarts=restarts, max_steps=max_steps, seed=seed, field=field, tau=tau,
        min_rank=min_rank, column_check=column_check,
    )
    if not res.qualified:
        return None
    kept = []
    for i in res.basis:
        w = problem.wrong_solutions[i]
        if w.signature is None and verdict_rows is not None:
            w = w.model_copy(update={"signature": FailureSignature(verdicts=verdict_rows[i])})
        kept.append(w)
    meta = dict(problem.meta)
    meta["wrongselect"] = {
        "objective": res.objective,
        "field": field,
        "seed": seed,
        "restarts": res.restarts,
        "max_steps": max_steps,
        "tau": tau,
        "source_rows": res.basis,
        "wrong_before": len(problem.wrong_solutions),
        "after_row_filter": len(pre.kept_rows),
        "candidates": res.candidates,
        "moves": res.moves,
        "best_restart": res.best_restart,
        "history": [round(f, 6) for f in res.history],  # F of each restart's local optimum (Figure 7)
    }
    return problem.model_copy(update={"wrong_solutions": kept, "rank": res.rank, "meta": meta})


# --------------------------------------------------------------------------- command


class MatrixError(UserError, ValueError):
    """A matrix file that cannot be read as a code-test matrix (the message names it)."""


def load_matrix_file(path: Path) -> np.ndarray:
    """A JSON list of rows: verdict strings ("AWWA") or 0/1 lists."""
    from tczoo.safeio.userfiles import UserFileError, read_json

    path = Path(path)
    if not path.exists():
        raise MatrixError(f"matrix file not found: {path}")
    try:
        rows = read_json(path, "matrix file")
    except UserFileError as exc:
        raise MatrixError(str(exc)) from None
    if not isinstance(rows, list):
        raise MatrixError(f"{path}: expected a JSON list of rows, got {type(rows).__name__}")
    try:
        return matrix_from_rows(rows)
    except ValueError as exc:
        raise MatrixError(f"{path}: {exc}") from None

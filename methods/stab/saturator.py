"""Boundary resolution (STAB §3.1): the largest valid size assignment.

* **Rule path** — an independent variable takes the tightest upper bound extracted
  for it (the minimum of its upper bounds: the paper says "largest", but the only
  value valid under every extracted bound is the smallest of them).
* **CP-SAT path** — each dependent group is one OR-Tools CP-SAT model
  (``AddMultiplicationEquality`` for products and for the monomials of relations such
  as ``m ≤ n(n−1)/2``, linear constraints for sums, chains and linear relations).

Objectives (``objective=``; docs/stab-saturator.md compares them):

* ``"leximin"`` (default; the paper's "makes the variables in the group large") —
  lexicographic: (1) leximin over sizes (scalars, lengths): maximise the smallest,
  freeze the sizes that cannot go higher, repeat; (2) the number of test cases of a
  sum over test cases; (3) leximin over values (indexed families ``a_i``); (4) the
  sum of everything, to break ties. ``n·m ≤ 10^6`` gives ``n = m = 1000``; with
  ``n ≤ 10^5``, ``∑n ≤ 2·10^5`` the data size comes first and the test count then
  takes the rest of the budget: ``n = 10^5, t = 2`` — the whole sum is used;
* ``"weighted"`` (the authors' code, ``cpsat_solver.py``) — one solve maximising
  ``Σ w·x`` with ``w = 10^9`` for the variables summed over test cases, ``1`` for the
  test count and ``10^6`` for the rest (``n·m ≤ 10^6`` then gives ``10^5 × 10``).

Every solve is deterministic (one worker, fixed seed) and time-boxed; when CP-SAT
returns no solution in time, or the model could overflow int64, the group falls back
to a **greedy** water-filling that follows the same priorities.

* **Sum over test cases** — the main boundary is the data-first resolution above;
  the option ``tests_max`` puts the test count first (as many tests as the sum allows,
  then each as large as the rest allows), the authors' "Option B". Both are listed
  in ``options`` when they differ.

An assignment is *uniform*: an indexed variable's value is what every element takes
and a test-case sum counts ``t`` identical tests. The result is always re-checked
with :func:`check_values` against every record, and the violations (normally none)
are reported.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal

from tczoo.schema import Model

from .check import check_multitest, check_values, combine, validate
from .records import (
    Chain,
    Constraint,
    IndexedRange,
    NotEqual,
    ProductBound,
    Relation,
    ScalarRange,
    StringLength,
    SumBound,
    SumOver,
    is_length,
)
from .graph import build_graph, components, is_independent, records_of, role

if TYPE_CHECKING:
    from ortools.sat.python import cp_model


def _cp_model():
    # OR-Tools takes most of a second to import: only a solve pays for it (listing the
    # methods, ``tczoo --help`` and the rule path do not).
    from ortools.sat.python import cp_model

    return cp_model

__all__ = ["BoundaryOption", "ComponentReport", "Objective", "Saturation", "check_multitest", "check_values",
           "saturate", "validate"]

# CP-SAT works in int64 and refuses models whose intermediate bounds could overflow;
# we stay well inside that and let the greedy path (Python ints) handle the rest.
_INT_LIMIT = 2**61

Objective = Literal["leximin", "weighted"]
Priority = Literal["data", "tests"]

# The authors' weights (cpsat_solver.py, data priority): data summed over tests,
# everything else, the test count.
_W_DATA, _W_OTHER, _W_COUNT = 10**9, 10**6, 1

# --------------------------------------------------------------------------- results


class ComponentReport(Model):
    vars: list[str]
    method: Literal["rule", "cp-sat", "greedy"]
    status: str  # "optimal", "feasible", "timeout-fallback", "overflow-fallback", "infeasible"...
    note: str = ""


class BoundaryOption(Model):
    name: str  # "data_max" | "tests_max"
    description: str
    boundary: dict[str, int]


class Saturation(Model):
    boundary: dict[str, int]
    objective: str = "leximin"
    options: list[BoundaryOption] = []
    components: list[ComponentReport] = []
    unbounded: list[str] = []  # no upper bound could be derived; left out of the boundary
    violations: list[str] = []  # of the boundary against every record; empty when sound


# --------------------------------------------------------------------------- domains

Domain = list[int | None]  # [lower, upper], None = unknown


def _interval_times(a: tuple[int | None, int | None], b: tuple[int | None, int | None]) -> tuple[int | None, int | None]:
    """Product of two intervals whose ends may be unknown (None = unbounded)."""
    if a == (0, 0) or b == (0, 0):
        return 0, 0
    if None not in a and None not in b:
        corners = [x * y for x in a for y in b]  # type: ignore[operator]
        return min(corners), max(corners)
    if a[0] is not None and a[0] >= 0 and b[0] is not None and b[0] >= 0:
        return a[0] * b[0], None
    return None, None


def _poly_interval(terms: Mapping[tuple[str, ...], Fraction], dom: Mapping[str, Domain]) -> tuple[Fraction | None, Fraction | None]:
    lo: Fraction | None = Fraction(0)
    hi: Fraction | None = Fraction(0)
    for key, coef in terms.items():
        box: tuple[int | None, int | None] = (1, 1)
        for var in key:
            box = _interval_times(box, (dom[var][0], dom[var][1]))
        t_lo, t_hi = box if coef > 0 else (box[1], box[0])
        t_lo = None if t_lo is None else coef * t_lo
        t_hi = None if t_hi is None else coef * t_hi
        lo = None if lo is None or t_lo is None else lo + t_lo
        hi = None if hi is None or t_hi is None else hi + t_hi
    return lo, hi


def _domains(constraints: Sequence[Constraint]) -> dict[str, Domain]:
    """Bounds per variable: unary records, numbers in chains, then interval propagation."""
    dom: dict[str, Domain] = {}
    for record in constraints:
        for var in record.variables():
            dom.setdefault(var, [0 if is_length(var) else None, None])

    def tighten(var: str, lower: int | None = None, upper: int | None = None) -> bool:
        lo, hi = dom[var]
        new_lo = lower if lower is not None and (lo is None or lower > lo) else lo
        new_hi = upper if upper is not None and (hi is None or upper < hi) else hi
        dom[var] = [new_lo, new_hi]
        return (new_lo, new_hi) != (lo, hi)

    for record in constraints:
        if isinstance(record, (ScalarRange, IndexedRange, StringLength)):
            tighten(record.var, record.lower, record.upper)

    def lo_of(term: int | str) -> int | None:
        return term if isinstance(term, int) else dom[term][0]

    def hi_of(term: int | str) -> int | None:
        return term if isinstance(term, int) else dom[term][1]

    def size_lo(var: str) -> int:
        # Sizes without a stated lower bound are taken as ≥ 0 (counts and lengths).
        lo = dom[var][0]
        return lo if lo is not None else 0

    def bound_expression(vars_: Sequence[str], op: str, limit: int) -> bool:
        changed = False
        for k, var in enumerate(vars_):
            others = [size_lo(v) for j, v in enumerate(vars_) if j != k]
            if op == "+":
                changed |= tighten(var, upper=limit - sum(others))
            elif all(o > 0 for o in others) and limit >= 0:
                changed |= tighten(var, upper=limit // math.prod(others))
        return changed

    def bound_relation(record: Relation) -> bool:
        # diff ≤ 0 (≤ -1 when strict); a variable that appears once, linearly, with
        # coefficient c is bounded by what the rest of diff can be at least.
        diff = record.difference().coefficients()
        changed = False
        for var in record.variables():
            linear = [k for k in diff if var in k]
            if linear != [(var,)]:
                continue
            coef = diff[(var,)]
            rest = {k: c for k, c in diff.items() if k != (var,)}
            rest_lo, _ = _poly_interval(rest, dom)
            if rest_lo is None:
                continue
            limit = (-rest_lo - int(record.strict)) / coef
            if coef > 0:
                changed |= tighten(var, upper=math.floor(limit))
            else:
                changed |= tighten(var, lower=math.ceil(limit))
        return changed

    for _ in range(50):
        changed = False
        for record in constraints:
            if isinstance(record, Chain):
                for (a, b), strict in zip(zip(record.terms, record.terms[1:]), record.strict):
                    if isinstance(a, str) and hi_of(b) is not None:
                        changed |= tighten(a, upper=hi_of(b) - strict)  # type: ignore[operator]
                    if isinstance(b, str) and lo_of(a) is not None:
                        changed |= tighten(b, lower=lo_of(a) + strict)  # type: ignore[operator]
            elif isinstance(record, (ProductBound, SumBound)) and record.upper is not None:
                op = "*" if isinstance(record, ProductBound) else "+"
                changed |= bound_expression(record.vars, op, record.upper)
            elif isinstance(record, SumOver):
                count = max(1, size_lo(record.count_var)) if record.count_var else 1
                changed |= bound_expression(record.vars, record.op, record.upper // count)
                if record.count_var:
                    at_least = combine([size_lo(v) for v in record.vars], record.op)
                    if at_least > 0:
                        changed |= tighten(record.count_var, upper=record.upper // at_least)
            elif isinstance(record, Relation):
                changed |= bound_relation(record)
        if not changed:
            break
    return dom


# --------------------------------------------------------------------------- priorities


def _test_sums(constraints: Sequence[Constraint]) -> list[SumOver]:
    return [r for r in constraints if isinstance(r, SumOver) and r.over == "test_cases"]


def _tiers(comp: Sequence[str], constraints: Sequence[Constraint], priority: Priority) -> list[list[str]]:
    """The leximin tiers of a component, highest priority first."""
    counts = {r.count_var for r in _test_sums(constraints) if r.count_var}
    sizes = [v for v in comp if role(v) == "size" and v not in counts]
    tests = [v for v in comp if v in counts]
    values = [v for v in comp if role(v) == "value"]
    order = [sizes, tests, values] if priority == "data" else [tests, sizes, values]
    return [tier for tier in order if tier]


def _weights(comp: Sequence[str], constraints: Sequence[Constraint], priority: Priority) -> dict[str, int]:
    """The authors' weights (data priority; ``tests`` swaps data and count)."""
    sums = _test_sums(constraints)
    counts = {r.count_var for r in sums if r.count_var}
    data = {v for r in sums for v in r.vars}
    top, bottom = (_W_DATA, _W_COUNT) if priority == "data" else (_W_COUNT, _W_DATA)
    return {v: top if v in data else bottom if v in counts else _W_OTHER for v in comp}


# --------------------------------------------------------------------------- CP-SAT


class _Fallback(Exception):
    """CP-SAT could not be used or gave no answer in time; use the greedy path."""


def _interval_product(bounds: Sequence[tuple[int, int]]) -> tuple[int, int]:
    lo, hi = 1, 1
    for a, b in bounds:
        corners = [lo * a, lo * b, hi * a, hi * b]
        lo, hi = min(corners), max(corners)
    return lo, hi


class _CpModel:
    """One component as a CP-SAT model, rebuilt per solve (models are tiny)."""

    def __init__(self, records: Sequence[Constraint], dom: Mapping[str, tuple[int, int]], deadline: float):
        self.records, self.dom, self.deadline = records, dom, deadline
        for lo, hi in dom.values():
            if abs(lo) > _INT_LIMIT or abs(hi) > _INT_LIMIT:
                raise _Fallback("overflow")

    def build(self, floors: Mapping[str, int]) -> tuple[cp_model.CpModel, dict[str, cp_model.IntVar]]:
        model = _cp_model().CpModel()
        x = {v: model.NewIntVar(max(lo, floors.get(v, lo)), hi, v.replace("|", "len_"))
             for v, (lo, hi) in self.dom.items()}

        def product(vars_: Sequence[Any], bounds: Sequence[tuple[int, int]]) -> Any:
            lo, hi = _interval_product(bounds)
            if max(abs(lo), abs(hi)) > _INT_LIMIT:
                raise _Fallback("overflow")
            acc, acc_bounds = vars_[0], bounds[0]
            for var, b in zip(vars_[1:], bounds[1:]):
                acc_bounds = _interval_product([acc_bounds, b])
                nxt = model.NewIntVar(acc_bounds[0], acc_bounds[1], "")
                model.AddMultiplicationEquality(nxt, [acc, var])
                acc = nxt
            return acc

        def expression(vars_: Sequence[str], op: str) -> tuple[Any, tuple[int, int]]:
            bounds = [self.dom[v] for v in vars_]
            if op == "+":
                return sum(x[v] for v in vars_), (sum(b[0] for b in bounds), sum(b[1] for b in bounds))
            return product([x[v] for v in vars_], bounds), _interval_product(bounds)

        for record in self.records:
            if isinstance(record, Chain):
                for (a, b), strict in zip(zip(record.terms, record.terms[1:]), record.strict):
                    left = a if isinstance(a, int) else x[a]
                    right = b if isinstance(b, int) else x[b]
                    if not (isinstance(left, int) and isinstance(right, int)):
                        model.Add(left + int(strict) <= right)
            elif isinstance(record, (ProductBound, SumBound)):
                expr, _ = expression(record.vars, "*" if isinstance(record, ProductBound) else "+")
                if record.upper is not None:
                    model.Add(expr <= record.upper)
                if record.lower is not None:
                    model.Add(expr >= record.lower)
            elif isinstance(record, SumOver):
                expr, bounds = expression(record.vars, record.op)
                count = record.count_var
                if count is None:
                    model.Add(expr <= record.upper)
                elif self.dom[count][0] == self.dom[count][1]:
                    model.Add(self.dom[count][0] * expr <= record.upper)
                else:
                    if record.op == "+":
                        holder = model.NewIntVar(bounds[0], bounds[1], "")
                        model.Add(holder == expr)
                        expr = holder
                    total = product([x[count], expr], [self.dom[count], bounds])
                    model.Add(total <= record.upper)
            elif isinstance(record, NotEqual):
                model.Add(x[record.vars[0]] != x[record.vars[1]])
            elif isinstance(record, Relation):
                diff = record.difference()
                terms, reach = [], 0
                for mono in diff.terms:
                    if not mono.vars:
                        terms.append(mono.coef)
                        reach += abs(mono.coef)
                        continue
                    bounds = [self.dom[v] for v in mono.vars]
                    lo, hi = _interval_product(bounds)
                    reach += abs(mono.coef) * max(abs(lo), abs(hi))
                    factor = x[mono.vars[0]] if len(mono.vars) == 1 else product([x[v] for v in mono.vars], bounds)
                    terms.append(mono.coef * factor)
                if reach > _INT_LIMIT:
                    raise _Fallback("overflow")
                model.Add(sum(terms) <= -int(record.strict))
        return model, x

    def solve(self, model: cp_model.CpModel) -> tuple[int, cp_model.CpSolver]:
        cp_model = _cp_model()
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise _Fallback("timeout")
        solver = cp_model.CpSolver()
        solver.parameters.max_time_in_seconds = left
        solver.parameters.num_workers = 1  # deterministic answers, same on every machine
        solver.parameters.random_seed = 0
        status = solver.Solve(model)
        if status == cp_model.MODEL_INVALID:
            raise _Fallback("overflow")
        return status, solver


def _leximin(cp: _CpModel, tier: Sequence[str], floors: dict[str, int]) -> bool:
    """Raise *tier* leximin-style, recording the levels in *floors*. False if infeasible."""
    cp_model = _cp_model()
    free = list(tier)
    while free:
        model, x = cp.build(floors)
        level = model.NewIntVar(min(cp.dom[v][0] for v in free), max(cp.dom[v][1] for v in free), "level")
        for var in free:
            model.Add(x[var] >= level)
        model.Maximize(level)
        status, solver = cp.solve(model)
        if status == cp_model.INFEASIBLE:
            return False
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            raise _Fallback("timeout")
        reached = solver.Value(level)
        blocked = []
        for var in free:
            model, x = cp.build(floors)
            for other in free:
                model.Add(x[other] >= reached)
            model.Add(x[var] >= reached + 1)
            status, _ = cp.solve(model)
            if status == cp_model.UNKNOWN:
                raise _Fallback("timeout")
            if status == cp_model.INFEASIBLE:
                blocked.append(var)
        for var in free:
            floors[var] = max(floors.get(var, reached), reached)
        # Nobody blocked happens with ≠ (u = v is impossible but either may go higher);
        # then the level is held and the final sum decides.
        free = [v for v in free if v not in blocked] if blocked else []
    return True


def _finish(cp: _CpModel, comp: Sequence[str], floors: Mapping[str, int],
            weights: Mapping[str, int]) -> tuple[dict[str, int], str]:
    cp_model = _cp_model()
    model, x = cp.build(floors)
    # As the authors' solver does, weights are capped so the objective fits in int64.
    largest = max([max(abs(cp.dom[v][0]), abs(cp.dom[v][1])) for v in comp] + [1])
    cap = max(1, _INT_LIMIT // (largest * max(1, len(comp)) * 2))
    model.Maximize(sum(min(weights[v], cap) * x[v] for v in comp))
    status, solver = cp.solve(model)
    if status == cp_model.INFEASIBLE:
        return {}, "infeasible"
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise _Fallback("timeout")
    return {v: solver.Value(x[v]) for v in comp}, "optimal" if status == cp_model.OPTIMAL else "feasible"


def _solve_cpsat(comp: Sequence[str], records: Sequence[Constraint], dom: Mapping[str, tuple[int, int]],
                 deadline: float, objective: Objective, tiers: list[list[str]],
                 weights: Mapping[str, int]) -> tuple[dict[str, int], str]:
    cp = _CpModel(records, dom, deadline)
    floors: dict[str, int] = {}
    if objective == "weighted":
        return _finish(cp, comp, floors, weights)
    for tier in tiers:
        if not _leximin(cp, tier, floors):
            return {}, "infeasible"
    return _finish(cp, comp, floors, {v: 1 for v in comp})


# --------------------------------------------------------------------------- greedy


def _greedy(comp: Sequence[str], records: Sequence[Constraint], dom: Mapping[str, tuple[int, int]],
            tiers: list[list[str]], together: bool) -> dict[str, int]:
    """Water-filling with the same priorities as the CP-SAT objective, in Python ints.
    ``together``: a tier is raised as one level (leximin); else one variable at a time."""
    assign = {v: dom[v][0] for v in comp}

    def ok(candidate: Mapping[str, int]) -> bool:
        return not check_values(candidate, records, _skip_not_equal=True)

    def largest(lo: int, hi: int, feasible: Any) -> int:
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if feasible(mid) else (lo, mid - 1)
        return lo

    for tier in tiers:
        free = list(tier) if together else []
        while free:
            def raised(level: int, free: list[str] = free) -> dict[str, int]:
                return {**assign, **{v: max(assign[v], min(level, dom[v][1])) for v in free}}
            start = min(assign[v] for v in free)
            top = max(dom[v][1] for v in free)
            if not ok(raised(start)):
                break
            assign = raised(largest(start, top, lambda level: ok(raised(level))))
            blocked = [v for v in free if assign[v] >= dom[v][1] or not ok({**assign, v: assign[v] + 1})]
            free = [v for v in free if v not in blocked] if blocked else []
        # Raising one variable can make room for another (l < r: r first, then l), so
        # repeat the single raises until nothing moves.
        for _ in range(len(tier) + 1):
            before = dict(assign)
            for var in tier:
                assign[var] = largest(assign[var], dom[var][1], lambda value, var=var: ok({**assign, var: value}))
            if assign == before:
                break
    # ≠ is not monotone, so it is repaired after the raise: step one side down.
    for record in records:
        if isinstance(record, NotEqual):
            a, b = record.vars
            if assign.get(a) == assign.get(b):
                for var in (b, a):
                    if assign[var] - 1 >= dom[var][0] and ok({**assign, var: assign[var] - 1}):
                        assign[var] -= 1
                        break
    return assign


# --------------------------------------------------------------------------- saturate


def _resolve(constraints: Sequence[Constraint], time_limit_s: float, method: str, objective: Objective,
             priority: Priority) -> tuple[dict[str, int], list[ComponentReport], list[str]]:
    dom = _domains(constraints)
    graph = build_graph(constraints)
    assignment: dict[str, int] = {}
    reports: list[ComponentReport] = []
    unbounded: list[str] = []
    for comp in components(graph):
        records = records_of(comp, constraints)
        if is_independent(comp, constraints):
            var = comp[0]
            lo, hi = dom[var]
            if hi is None:
                unbounded.append(var)
                reports.append(ComponentReport(vars=comp, method="rule", status="unbounded"))
            elif lo is not None and lo > hi:
                reports.append(ComponentReport(vars=comp, method="rule", status="infeasible",
                                               note=f"lower bound {lo} > upper bound {hi}"))
            else:
                assignment[var] = hi
                reports.append(ComponentReport(vars=comp, method="rule", status="optimal"))
            continue
        finite = [h for _, h in (dom[v] for v in comp) if h is not None]
        solve_dom: dict[str, tuple[int, int]] = {}
        for var in comp:
            lo, hi = dom[var]
            if hi is None:
                unbounded.append(var)
                hi = max(finite + [lo or 0])
            if lo is None:  # no stated lower bound: sizes are ≥ 0, values may sit at 0 too
                lo = min(0, hi)
            solve_dom[var] = (lo, hi)
        if any(lo > hi for lo, hi in solve_dom.values()):
            reports.append(ComponentReport(vars=comp, method="cp-sat", status="infeasible",
                                           note="contradictory bounds"))
            continue
        tiers = _tiers(comp, constraints, priority)
        weights = _weights(comp, constraints, priority)
        got: dict[str, int] = {}
        status = ""
        if method != "greedy":
            try:
                got, status = _solve_cpsat(comp, records, solve_dom, time.monotonic() + time_limit_s,
                                           objective, tiers, weights)
                reports.append(ComponentReport(vars=comp, method="cp-sat", status=status))
            except _Fallback as why:
                got = {}
                status = f"{why}-fallback"
                if method == "cp-sat":
                    raise RuntimeError(f"CP-SAT failed on {comp}: {why}") from None
        if method == "greedy" or status.endswith("-fallback"):
            if objective == "weighted":  # heaviest weight first, one variable at a time
                levels = sorted(set(weights.values()), reverse=True)
                by_weight = [[v for v in comp if weights[v] == w] for w in levels]
                got = _greedy(comp, records, solve_dom, by_weight, together=False)
            else:
                got = _greedy(comp, records, solve_dom, tiers, together=True)
            reports.append(ComponentReport(vars=comp, method="greedy",
                                           status="forced" if method == "greedy" else status))
        assignment.update({v: value for v, value in got.items() if v not in unbounded})
    return assignment, reports, unbounded


def saturate(constraints: Sequence[Constraint], *, time_limit_s: float = 2.0,
             method: Literal["auto", "cp-sat", "greedy"] = "auto",
             objective: Objective = "leximin") -> Saturation:
    """Resolve the boundary of *constraints* (see the module docstring).

    ``time_limit_s`` bounds the CP-SAT work per dependent group (then greedy);
    ``method="greedy"`` skips CP-SAT, ``"cp-sat"`` raises instead of falling back;
    ``objective``: ``"leximin"`` (default) or the authors' ``"weighted"`` sum.
    """
    constraints = list(constraints)
    boundary, reports, unbounded = _resolve(constraints, time_limit_s, method, objective, "data")
    options: list[BoundaryOption] = []
    if _test_sums(constraints):
        tests_first, _, _ = _resolve(constraints, time_limit_s, method, objective, "tests")
        if tests_first != boundary:
            options = [
                BoundaryOption(name="data_max", boundary=boundary, description=(
                    "each test as large as allowed, then as many tests as the sum over test cases leaves room for")),
                BoundaryOption(name="tests_max", boundary=tests_first, description=(
                    "as many tests as the sum over test cases allows, then each test as large as the rest allows")),
            ]
    violations = validate(boundary, constraints)
    for option in options[1:]:
        violations += [f"option {option.name}: {v}" for v in validate(option.boundary, constraints)]
    return Saturation(boundary=boundary, objective=objective, options=options, components=reports,
                      unbounded=sorted(set(unbounded), key=unbounded.index), violations=violations)

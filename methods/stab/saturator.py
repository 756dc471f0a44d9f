"""Boundary resolution (STAB §3.1): the largest valid size assignment.

* **Rule path** — an independent variable takes the tightest upper bound extracted
  for it (the minimum of its upper bounds: the paper says "largest", but the only
  value valid under every extracted bound is the smallest of them).
* **CP-SAT path** — each dependent group is one OR-Tools CP-SAT model
  (``AddMultiplicationEquality`` for products, linear constraints for sums and
  chains) solved under a *lexicographic* objective:

  1. **leximin over sizes** (scalars such as ``n``, lengths ``|s|``): maximise the
     smallest size, freeze the sizes that cannot go higher, repeat for the rest.
     ``n·m ≤ 10^6`` with ``n, m ≤ 10^5`` gives ``n = m = 1000`` (the balanced shape
     that saturates the product) rather than ``10^5 × 10``;
  2. leximin over values (indexed families ``a_i``) with the sizes held;
  3. the sum of everything, with the levels above held, to break remaining ties.

  Every solve is deterministic (one worker, fixed seed) and time-boxed; when CP-SAT
  returns no solution in time, or the model could overflow int64, the group falls
  back to a **greedy** water-filling that mirrors the same objective.
* **Sum over test cases** — ``∑ n ≤ S`` with ``t`` tests yields two options:
  *one big test* (``t`` at its minimum, ``n`` as large as allowed; this is the
  main boundary) and *many tests* (``t`` as large as ``S`` allows with every test
  at its smallest size, then ``n`` as large as ``S / t`` allows).

An assignment is *uniform*: an indexed variable's value is what every element takes
and a test-case sum counts ``t`` identical tests. The result is always re-checked
with :func:`check_values` against every record, and the violations (normally none)
are reported.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from tczoo.schema import Model

from .constraints import (
    Chain,
    Constraint,
    IndexedRange,
    NotEqual,
    ProductBound,
    ScalarRange,
    StringLength,
    SumBound,
    SumOver,
    base_name,
    is_indexed,
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

# CP-SAT works in int64 and refuses models whose intermediate bounds could overflow;
# we stay well inside that and let the greedy path (Python ints) handle the rest.
_INT_LIMIT = 2**61

# --------------------------------------------------------------------------- checking

Value = Any  # int, str, or a (nested) list of them


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return [x for item in value for x in _flatten(item)]
    return [value]


def _lookup(var: str, values: Mapping[str, Value]) -> int | list[int] | None:
    """The value of *var* in *values*: ``n``; ``a_i`` (or ``a``) as int or list;
    ``|s|`` as int, or measured from ``s`` given as a string (list of strings)."""
    if var in values:
        raw = values[var]
    elif is_length(var):
        inner = var.strip("|")
        raw = values.get(inner, values.get(base_name(var)))
        if raw is None:
            return None
        items = [len(x) if isinstance(x, str) else x for x in _flatten(raw)]
        return items if isinstance(raw, (list, tuple)) else items[0]
    elif is_indexed(var):
        raw = values.get(base_name(var))
    else:
        return None
    if raw is None:
        return None
    if isinstance(raw, (list, tuple)):
        return [int(x) for x in _flatten(raw)]
    return int(raw)


def _items(value: int | list[int]) -> list[int]:
    return value if isinstance(value, list) else [value]


def _pairs(left: int | list[int], right: int | list[int]) -> list[tuple[int, int]]:
    """Elementwise pairs; a scalar is broadcast against a list."""
    if isinstance(left, list) and isinstance(right, list):
        return list(zip(left, right))
    if isinstance(left, list):
        return [(x, right) for x in left]  # type: ignore[misc]
    if isinstance(right, list):
        return [(left, y) for y in right]
    return [(left, right)]


def _term(term: int | str, values: Mapping[str, Value]) -> int | list[int] | None:
    return term if isinstance(term, int) else _lookup(term, values)


def _combine(numbers: Sequence[int], op: str) -> int:
    return math.prod(numbers) if op == "*" else sum(numbers)


def check_values(values: Mapping[str, Value], constraints: Sequence[Constraint],
                 *, _skip_not_equal: bool = False) -> list[str]:
    """Violations of *constraints* by *values* (empty list = valid).

    *values* describes one test: scalars as ints (``{"n": 5}``), indexed families as
    lists (``{"a": [3, 1, 2]}`` or ``{"a_i": ...}``; an int means every element
    takes it), strings as ``str`` (``{"s": "abc"}``) or their lengths (``{"|s|": 3}``).
    Records whose variables are absent are not checked. A test-case sum is checked
    as ``t`` copies of this test when ``t`` is in *values* (the boundary's uniform
    reading); for a real multi-test input use :func:`check_multitest`.
    """
    out: list[str] = []
    for record in constraints:
        for problem in _violations(record, values, _skip_not_equal):
            out.append(f"{record.render()}: {problem}")
    return out


def validate(assignment: Mapping[str, int], constraints: Sequence[Constraint]) -> list[str]:
    """Violations of a (uniform) boundary assignment; see :func:`check_values`."""
    return check_values(assignment, constraints)


def _violations(record: Constraint, values: Mapping[str, Value], skip_ne: bool) -> list[str]:
    if isinstance(record, (ScalarRange, IndexedRange, StringLength)):
        value = _lookup(record.var, values)
        if value is None:
            return []
        out = []
        for x in _items(value):
            if record.lower is not None and x < record.lower:
                out.append(f"{record.var} = {x} < {record.lower}")
            elif record.upper is not None and x > record.upper:
                out.append(f"{record.var} = {x} > {record.upper}")
        if isinstance(record, IndexedRange) and isinstance(value, list):
            if record.order:
                strict = record.order == "increasing"
                bad = [k for k in range(1, len(value))
                       if value[k] < value[k - 1] or (strict and value[k] == value[k - 1])]
                if bad:
                    out.append(f"{record.var} not {record.order} at position {bad[0] + 1}")
            count = values.get(record.length_var) if record.length_var else None
            if isinstance(count, int) and len(value) != count:
                out.append(f"{record.var} has {len(value)} elements, {record.length_var} = {count}")
        return out[:3]
    if isinstance(record, Chain):
        out = []
        for (left, right), strict in zip(zip(record.terms, record.terms[1:]), record.strict):
            a, b = _term(left, values), _term(right, values)
            if a is None or b is None:
                continue
            for x, y in _pairs(a, b):
                if x > y or (strict and x == y):
                    out.append(f"{left} = {x} {'≥' if strict else '>'} {right} = {y}")
                    break
        return out
    if isinstance(record, (ProductBound, SumBound)):
        got = [_lookup(v, values) for v in record.vars]
        if any(g is None or isinstance(g, list) for g in got):
            return []
        total = _combine(got, "*" if isinstance(record, ProductBound) else "+")  # type: ignore[arg-type]
        if record.upper is not None and total > record.upper:
            return [f"value {total} > {record.upper}"]
        if record.lower is not None and total < record.lower:
            return [f"value {total} < {record.lower}"]
        return []
    if isinstance(record, SumOver):
        got = [_lookup(v, values) for v in record.vars]
        if any(g is None for g in got):
            return []
        count = values.get(record.count_var) if record.count_var else None
        if all(isinstance(g, list) for g in got):
            total = sum(_combine(list(xs), record.op) for xs in zip(*got))  # type: ignore[arg-type]
        elif any(isinstance(g, list) for g in got):
            return []
        else:
            total = _combine(got, record.op) * (count if isinstance(count, int) else 1)  # type: ignore[arg-type]
        return [f"total {total} > {record.upper}"] if total > record.upper else []
    if isinstance(record, NotEqual):
        if skip_ne:
            return []
        a, b = (_lookup(v, values) for v in record.vars)
        if a is None or b is None:
            return []
        clash = next(((x, y) for x, y in _pairs(a, b) if x == y), None)
        return [f"{record.vars[0]} = {record.vars[1]} = {clash[0]}"] if clash else []
    return []


def check_multitest(tests: Sequence[Mapping[str, Value]], constraints: Sequence[Constraint]) -> list[str]:
    """Violations of a whole multi-test input: each test on its own, the number of
    tests against the count variable's range, and every test-case sum across tests."""
    out: list[str] = []
    per_test = [r for r in constraints if not (isinstance(r, SumOver) and r.over == "test_cases")]
    for number, test in enumerate(tests, 1):
        out += [f"test {number}: {v}" for v in check_values(test, per_test)]
    count_vars = {r.count_var for r in constraints if isinstance(r, SumOver) and r.count_var
                  and r.over == "test_cases"}
    for var in count_vars:
        out += check_values({var: len(tests)}, [r for r in constraints if r.variables() == [var]])
    for record in constraints:
        if isinstance(record, SumOver) and record.over == "test_cases":
            total = 0
            for test in tests:
                got = [_lookup(v, test) for v in record.vars]
                if any(g is None or isinstance(g, list) for g in got):
                    break
                total += _combine(got, record.op)  # type: ignore[arg-type]
            else:
                if total > record.upper:
                    out.append(f"{record.render()}: total {total} over {len(tests)} tests")
    return out


# --------------------------------------------------------------------------- results


class ComponentReport(Model):
    vars: list[str]
    method: Literal["rule", "cp-sat", "greedy"]
    status: str  # "optimal", "feasible", "timeout-fallback", "overflow-fallback", "infeasible"...
    note: str = ""


class BoundaryOption(Model):
    name: str  # "one_big_test" | "many_tests"
    description: str
    boundary: dict[str, int]


class Saturation(Model):
    boundary: dict[str, int]
    options: list[BoundaryOption] = []
    components: list[ComponentReport] = []
    unbounded: list[str] = []  # no upper bound could be derived; left out of the boundary
    violations: list[str] = []  # of the boundary against every record; empty when sound


# --------------------------------------------------------------------------- domains

Domain = list[int | None]  # [lower, upper], None = unknown


def _domains(constraints: Sequence[Constraint], fixed: Mapping[str, int]) -> dict[str, Domain]:
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

    for var, value in fixed.items():
        dom[var] = [value, value]
    for record in constraints:
        if isinstance(record, (ScalarRange, IndexedRange, StringLength)) and record.var not in fixed:
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

    for _ in range(50):
        changed = False
        for record in constraints:
            if isinstance(record, Chain):
                for (a, b), strict in zip(zip(record.terms, record.terms[1:]), record.strict):
                    if isinstance(a, str) and hi_of(b) is not None and a not in fixed:
                        changed |= tighten(a, upper=hi_of(b) - strict)  # type: ignore[operator]
                    if isinstance(b, str) and lo_of(a) is not None and b not in fixed:
                        changed |= tighten(b, lower=lo_of(a) + strict)  # type: ignore[operator]
            elif isinstance(record, (ProductBound, SumBound)) and record.upper is not None:
                op = "*" if isinstance(record, ProductBound) else "+"
                changed |= bound_expression(record.vars, op, record.upper)
            elif isinstance(record, SumOver):
                count = max(1, size_lo(record.count_var)) if record.count_var else 1
                changed |= bound_expression(record.vars, record.op, record.upper // count)
                if record.count_var and record.count_var not in fixed:
                    at_least = _combine([size_lo(v) for v in record.vars], record.op)
                    if at_least > 0:
                        changed |= tighten(record.count_var, upper=record.upper // at_least)
        if not changed:
            break
    for var, value in fixed.items():
        dom[var] = [value, value]
    return dom


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


def _solve_cpsat(comp: Sequence[str], records: Sequence[Constraint], dom: Mapping[str, tuple[int, int]],
                 fixed: Mapping[str, int], deadline: float) -> tuple[dict[str, int], str]:
    cp = _CpModel(records, dom, deadline)
    floors: dict[str, int] = {}
    for tier in ("size", "value"):
        members = [v for v in comp if role(v) == tier and v not in fixed]
        if members and not _leximin(cp, members, floors):
            return {}, "infeasible"
    model, x = cp.build(floors)
    model.Maximize(sum(x[v] for v in comp if v not in fixed))
    status, solver = cp.solve(model)
    cp_model = _cp_model()
    if status == cp_model.INFEASIBLE:
        return {}, "infeasible"
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise _Fallback("timeout")
    return {v: solver.Value(x[v]) for v in comp}, "optimal" if status == cp_model.OPTIMAL else "feasible"


# --------------------------------------------------------------------------- greedy


def _greedy(comp: Sequence[str], records: Sequence[Constraint], dom: Mapping[str, tuple[int, int]],
            fixed: Mapping[str, int]) -> dict[str, int]:
    """Water-filling with the same priorities as the CP-SAT objective, in Python ints."""
    assign = {v: dom[v][0] for v in comp}

    def ok(candidate: Mapping[str, int]) -> bool:
        return not check_values(candidate, records, _skip_not_equal=True)

    def largest(lo: int, hi: int, feasible: Any) -> int:
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if feasible(mid) else (lo, mid - 1)
        return lo

    for tier in ("size", "value"):
        members = [v for v in comp if role(v) == tier and v not in fixed]
        free = list(members)
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
        for _ in range(len(members) + 1):
            before = dict(assign)
            for var in members:
                assign[var] = largest(assign[var], dom[var][1], lambda value, var=var: ok({**assign, var: value}))
            if assign == before:
                break
    # ≠ is not monotone, so it is repaired after the raise: step one side down.
    for record in records:
        if isinstance(record, NotEqual):
            a, b = record.vars
            if assign.get(a) == assign.get(b):
                for var in (b, a):
                    if var not in fixed and assign[var] - 1 >= dom[var][0] and ok({**assign, var: assign[var] - 1}):
                        assign[var] -= 1
                        break
    return assign


# --------------------------------------------------------------------------- saturate


def _resolve(constraints: Sequence[Constraint], fixed: Mapping[str, int], time_limit_s: float,
             method: str) -> tuple[dict[str, int], list[ComponentReport], list[str]]:
    dom = _domains(constraints, fixed)
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
        got: dict[str, int] = {}
        if method != "greedy":
            try:
                got, status = _solve_cpsat(comp, records, solve_dom, fixed, time.monotonic() + time_limit_s)
                reports.append(ComponentReport(vars=comp, method="cp-sat", status=status))
            except _Fallback as why:
                got = {}
                status = f"{why}-fallback"
                if method == "cp-sat":
                    raise RuntimeError(f"CP-SAT failed on {comp}: {why}") from None
        if method == "greedy" or status.endswith("-fallback"):
            got = _greedy(comp, records, solve_dom, fixed)
            reports.append(ComponentReport(vars=comp, method="greedy",
                                           status="forced" if method == "greedy" else status))
        assignment.update({v: value for v, value in got.items() if v not in unbounded})
    return assignment, reports, unbounded


def saturate(constraints: Sequence[Constraint], *, time_limit_s: float = 2.0,
             method: Literal["auto", "cp-sat", "greedy"] = "auto") -> Saturation:
    """Resolve the boundary of *constraints* (see the module docstring).

    ``time_limit_s`` bounds the CP-SAT work per dependent group (then greedy);
    ``method="greedy"`` skips CP-SAT, ``"cp-sat"`` raises instead of falling back.
    """
    constraints = list(constraints)
    plans = _plans(constraints)
    options: list[BoundaryOption] = []
    main: tuple[dict[str, int], list[ComponentReport], list[str]] | None = None
    for name, description, fixed in plans:
        resolved = _resolve(constraints, fixed, time_limit_s, method)
        main = main or resolved
        if name and all(o.boundary != resolved[0] for o in options):
            options.append(BoundaryOption(name=name, description=description, boundary=resolved[0]))
    assert main is not None
    boundary, reports, unbounded = main
    violations = validate(boundary, constraints)
    for option in options:
        violations += [f"option {option.name}: {v}" for v in validate(option.boundary, constraints)]
    return Saturation(boundary=boundary, options=options, components=reports,
                      unbounded=sorted(set(unbounded), key=unbounded.index), violations=violations)


def _plans(constraints: Sequence[Constraint]) -> list[tuple[str, str, dict[str, int]]]:
    """The test-count settings to resolve: one plan, or the two sum-over-tests options."""
    sums = [r for r in constraints if isinstance(r, SumOver) and r.over == "test_cases"]
    if not sums:
        return [("", "", {})]
    dom = _domains(constraints, {})
    one: dict[str, int] = {}
    many: dict[str, int] = {}
    for count in dict.fromkeys(r.count_var for r in sums if r.count_var):
        lo, hi = dom[count]
        smallest = max(1, lo or 1)
        one[count] = smallest
        fits = []
        for record in sums:
            if record.count_var == count:
                per_test = _combine([max(1, dom[v][0] or 1) for v in record.vars], record.op)
                fits.append(record.upper // per_test)
        largest = min(fits + ([hi] if hi is not None else []))
        many[count] = max(smallest, largest)
    plans = [("one_big_test", "a single test (the count variable at its minimum) as large as the "
              "sum over test cases allows", one)]
    if many != one:
        plans.append(("many_tests", "as many tests as the sum over test cases allows with every "
                      "test at its minimum size, then each test as large as the remaining budget allows", many))
    return plans

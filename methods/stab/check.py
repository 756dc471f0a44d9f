"""Checking values against constraint records: a boundary assignment, one test's
values read from an input, or a whole multi-test input.

Used by the saturator (its result is always re-checked), by the STAB methods'
input check (:mod:`.inputs`) and by anyone holding parsed records (a WEDGE baseline
checking its inputs, say).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

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
    base_name,
    is_indexed,
    is_length,
)

Value = Any  # int, str, or a (nested) list of them


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return [x for item in value for x in _flatten(item)]
    return [value]


def lookup(var: str, values: Mapping[str, Value]) -> int | list[int] | None:
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
    return term if isinstance(term, int) else lookup(term, values)


def combine(numbers: Sequence[int], op: str) -> int:
    return math.prod(numbers) if op == "*" else sum(numbers)


def check_values(values: Mapping[str, Value], constraints: Sequence[Constraint],
                 *, _skip_not_equal: bool = False) -> list[str]:
    """Violations of *constraints* by *values* (empty list = valid).

    *values* describes one test: scalars as ints (``{"n": 5}``), indexed families as
    lists (``{"a": [3, 1, 2]}`` or ``{"a_i": ...}``; an int means every element
    takes it), strings as ``str`` (``{"s": "abc"}``) or their lengths (``{"|s|": 3}``).
    Records whose variables are absent are not checked. A test-case sum is checked
    as ``t`` copies of this test when ``t`` is in *values* (the boundary's uniform
    reading); for a real multi-test input use :func:`check_multitest`. A relation
    among indexed families holds element by element (scalars broadcast).
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
        return _range_violations(record, values)
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
        got = [lookup(v, values) for v in record.vars]
        if any(g is None or isinstance(g, list) for g in got):
            return []
        total = combine(got, "*" if isinstance(record, ProductBound) else "+")  # type: ignore[arg-type]
        if record.upper is not None and total > record.upper:
            return [f"value {total} > {record.upper}"]
        if record.lower is not None and total < record.lower:
            return [f"value {total} < {record.lower}"]
        return []
    if isinstance(record, SumOver):
        got = [lookup(v, values) for v in record.vars]
        if any(g is None for g in got):
            return []
        count = values.get(record.count_var) if record.count_var else None
        if all(isinstance(g, list) for g in got):
            total = sum(combine(list(xs), record.op) for xs in zip(*got))  # type: ignore[arg-type]
        elif any(isinstance(g, list) for g in got):
            return []
        else:
            total = combine(got, record.op) * (count if isinstance(count, int) else 1)  # type: ignore[arg-type]
        return [f"total {total} > {record.upper}"] if total > record.upper else []
    if isinstance(record, NotEqual):
        if skip_ne:
            return []
        a, b = (lookup(v, values) for v in record.vars)
        if a is None or b is None:
            return []
        clash = next(((x, y) for x, y in _pairs(a, b) if x == y), None)
        return [f"{record.vars[0]} = {record.vars[1]} = {clash[0]}"] if clash else []
    if isinstance(record, Relation):
        return _relation_violations(record, values)
    return []


def _range_violations(record: ScalarRange | IndexedRange | StringLength, values: Mapping[str, Value]) -> list[str]:
    value = lookup(record.var, values)
    if value is None:
        return []
    out = []
    for x in _items(value):
        if record.lower is not None and x < record.lower:
            out.append(f"{record.var} = {x} < {record.lower}")
        elif record.upper is not None and x > record.upper:
            out.append(f"{record.var} = {x} > {record.upper}")
        if len(out) >= 3:
            break
    if isinstance(record, IndexedRange) and isinstance(value, list):
        if record.order:
            strict = record.order == "increasing"
            bad = next((k for k in range(1, len(value))
                        if value[k] < value[k - 1] or (strict and value[k] == value[k - 1])), None)
            if bad is not None:
                out.append(f"{record.var} not {record.order} at position {bad + 1}")
        count = values.get(record.length_var) if record.length_var else None
        if isinstance(count, int) and len(value) != count:
            out.append(f"{record.var} has {len(value)} elements, {record.length_var} = {count}")
    return out[:3]


def _relation_violations(record: Relation, values: Mapping[str, Value]) -> list[str]:
    names = record.variables()
    got = {v: lookup(v, values) for v in names}
    if any(g is None for g in got.values()):
        return []
    lists = [g for g in got.values() if isinstance(g, list)]
    length = len(lists[0]) if lists else 1
    if any(len(g) != length for g in lists):
        return []  # families of different lengths: no elementwise reading
    for k in range(length):
        point = {v: (g[k] if isinstance(g, list) else g) for v, g in got.items()}
        if not record.holds(point):
            where = f" at position {k + 1}" if lists else ""
            shown = ", ".join(f"{v} = {x}" for v, x in point.items())
            return [f"{shown}{where}"]
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
                got = [lookup(v, test) for v in record.vars]
                if any(g is None or isinstance(g, list) for g in got):
                    break
                total += combine(got, record.op)  # type: ignore[arg-type]
            else:
                if total > record.upper:
                    out.append(f"{record.render()}: total {total} over {len(tests)} tests")
    return out

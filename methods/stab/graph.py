"""Dependency analysis (STAB §3.1): which variables must be resolved together.

Nodes are variables; every record that relates two or more variables (chain,
product, sum, sum over test cases or elements with its count variable, ≠) joins
them with edges. A connected component with one node whose records are all unary
ranges is *independent* and goes to the rule path; every other component is a
*dependent group* for CP-SAT.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import networkx as nx

from .records import (
    Constraint,
    IndexedRange,
    ScalarRange,
    StringLength,
    SumOver,
    is_indexed,
)

Role = Literal["size", "value"]
UNARY = (ScalarRange, IndexedRange, StringLength)


def role(var: str) -> Role:
    """Sizes (``n``, ``|s|``, ``|s_i|``) are what the objective maximises first.

    Indexed families (``a_i``) are values: their boundary is the value every
    element may take, resolved after the sizes.
    """
    if var.startswith("|"):
        return "size"
    return "value" if is_indexed(var) else "size"


def _linked(record: Constraint) -> list[str]:
    """The variables a record ties together (empty for unary records)."""
    if isinstance(record, UNARY):
        return []
    if isinstance(record, SumOver) and not record.count_var and len(record.vars) == 1:
        return []
    return list(dict.fromkeys(record.variables()))


def build_graph(constraints: Sequence[Constraint]) -> nx.Graph:
    """Variables as nodes (attribute ``role``), records as edges (attribute ``records``,
    the indices into *constraints* that create the edge)."""
    import networkx as nx  # imported on use: listing methods must not pay for it

    graph = nx.Graph()
    for index, record in enumerate(constraints):
        for var in record.variables():
            if var not in graph:
                graph.add_node(var, role=role(var))
        linked = _linked(record)
        for left, right in itertools.combinations(linked, 2):
            if graph.has_edge(left, right):
                graph[left][right]["records"].append(index)
            else:
                graph.add_edge(left, right, records=[index])
    return graph


def components(graph: nx.Graph) -> list[list[str]]:
    """Connected components, each in node-insertion order, in order of first node."""
    import networkx as nx

    order = {node: i for i, node in enumerate(graph.nodes)}
    groups = [sorted(c, key=order.__getitem__) for c in nx.connected_components(graph)]
    return sorted(groups, key=lambda g: order[g[0]])


def records_of(component: Sequence[str], constraints: Sequence[Constraint]) -> list[Constraint]:
    members = set(component)
    return [r for r in constraints if set(r.variables()) & members]


def is_independent(component: Sequence[str], constraints: Sequence[Constraint]) -> bool:
    """Rule path applies: one variable, only unary records."""
    return len(component) == 1 and all(not _linked(r) and _self_contained(r)
                                       for r in records_of(component, constraints))


def _self_contained(record: Constraint) -> bool:
    # n·n ≤ 10^6 or n + n ≤ ... mention one variable but are not plain ranges.
    return isinstance(record, UNARY) or isinstance(record, SumOver)

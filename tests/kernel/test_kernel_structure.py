"""The kernel's structure is a picture without circles: no module imports itself back
through others, no part of the kernel (``tczoo.run``, ``tczoo.distributed``,
``tczoo.llm.local`` ...) imports a part that imports it, at any depth; and
docs/architecture.md names every kernel module, so its picture stays complete.

The graph is grimp's (import-linter's engine), built from the source; imports under
``if TYPE_CHECKING:`` are left out (they are annotations, not imports that run)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter (pip install 'tczoo[dev]')")
nx = pytest.importorskip("networkx")

ROOT = Path(__file__).resolve().parents[2]
# Plugins and data installed under the tczoo namespace: not the kernel.
NOT_KERNEL = ("tczoo.methods", "tczoo.runners", "tczoo.analyses", "tczoo.prompts", "tczoo.catalog")


def _is_kernel(module: str) -> bool:
    return not any(module == p or module.startswith(p + ".") for p in NOT_KERNEL)


@pytest.fixture(scope="module")
def graph():
    g = grimp.build_graph("tczoo", cache_dir=None, exclude_type_checking_imports=True)
    edges = nx.DiGraph()
    for module in g.modules:
        if not _is_kernel(module):
            continue
        edges.add_node(module)
        for imported in g.find_modules_directly_imported_by(module):
            if _is_kernel(imported) and imported != module:
                edges.add_edge(module, imported)
    return edges


def _circles(edges) -> list[list[str]]:
    return [sorted(c) for c in nx.strongly_connected_components(edges) if len(c) > 1]


def _related(a: str, b: str) -> bool:
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")


def test_no_kernel_module_imports_itself_back(graph):
    assert _circles(graph) == []


def test_no_part_of_the_kernel_imports_a_part_that_imports_it(graph):
    depth = max(m.count(".") for m in graph.nodes) + 1
    for level in range(2, depth + 1):
        parts = nx.DiGraph()
        for a, b in graph.edges:
            pa, pb = ".".join(a.split(".")[:level]), ".".join(b.split(".")[:level])
            if not _related(pa, pb):  # a package and its own modules are one part
                parts.add_edge(pa, pb, via=(a, b))
        found = _circles(parts)
        assert not found, (level, [[parts.edges[e]["via"] for e in parts.subgraph(c).edges] for c in found])


def test_the_architecture_doc_names_every_kernel_module(graph):
    text = (ROOT / "docs" / "architecture.md").read_text()
    named = set(re.findall(r"`(tczoo(?:\.[a-z_0-9]+)*)`", text))
    missing = sorted(m for m in graph.nodes if m not in named)
    assert not missing, f"docs/architecture.md does not name: {', '.join(missing)}"

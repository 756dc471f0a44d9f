"""Load public benchmarks into :class:`tczoo.schema.Problem`, from the hub or a local file.

A benchmark spec is one of:

* ``SCHEMA:PATH`` — a local file or directory whose records are in an upstream schema:
  ``tcbench:problems.jsonl``, ``codecontests:test.parquet``, ``livecodebench:dir/``,
  ``harnessllm:triplets.json``; ``kattis:DIR`` reads ICPC/Kattis problem packages
  (one, or a folder of them: :mod:`tczoo.benchmarks.kattis`). Files: JSONL (one upstream record per line), a JSON
  list of records, or parquet (needs pyarrow or ``datasets``); a directory: every such
  file under it, in sorted order (e.g. a downloaded hub snapshot), or a
  ``datasets.save_to_disk`` folder.
* ``NAME`` or ``NAME@SPLIT`` — a dataset on the Hugging Face hub (:data:`HUB_BENCHMARKS`),
  fetched with the optional ``datasets`` package (``pip install 'tczoo[hf]'``).

Bundled names (``zoo-mini``) are resolved by the registry in :mod:`tczoo.benchmarks`,
which hands every other spec to :func:`load_benchmark_spec`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from tczoo.benchmarks.hub import (
    RecordError,
    cococlanel,
    codecontests,
    harnessllm,
    livecodebench,
    livecodebench_eval,
    refute,
    tcbench,
    tcgbench,
)
from tczoo.schema import Problem
from tczoo.errors import BenchmarkLoadError, UserError  # noqa: F401  (BenchmarkLoadError: raised from here)


Converter = Callable[..., Problem]

SCHEMAS: dict[str, Converter] = {
    tcbench.SCHEMA: tcbench.to_problem,
    codecontests.SCHEMA: codecontests.to_problem,
    livecodebench.SCHEMA: livecodebench.to_problem,
    harnessllm.SCHEMA: harnessllm.to_problem,
    livecodebench_eval.SCHEMA: livecodebench_eval.to_problem,
    refute.SCHEMA: refute.to_problem,
    tcgbench.SCHEMA: tcgbench.to_problem,
}
# schemas whose records are parts of problems (one record per code): all records at once
GROUPED: dict[str, Callable[[list[Any]], list[Problem]]] = {
    cococlanel.SCHEMA: cococlanel.to_problems,
}
SCHEMA_ALIASES = {
    "tc-bench": "tcbench", "tc_bench": "tcbench",
    "code_contests": "codecontests", "code-contests": "codecontests",
    "lcb": "livecodebench",
    "harness": "harnessllm",
    "lcb-eval": "livecodebench-eval", "livecodebench_eval": "livecodebench-eval",
    "cococlanel": "cococlanel",
    "tcg-bench": "tcgbench", "tcg_bench": "tcgbench",
}


@dataclass(frozen=True)
class HubSource:
    repo: str  # dataset repository on the hub
    schema: str  # which converter reads its records
    split: str  # default split
    data_files: str | None = None  # load with the json builder from these files instead
    dataset: str = ""  # harnessllm: short name used in problem ids
    note: str = ""


HUB_BENCHMARKS: dict[str, HubSource] = {
    "tcbench": HubSource("Luoberta/TC-Bench", "tcbench", "test", note="877 problems, no golden tests"),
    "codecontests": HubSource("deepmind/code_contests", "codecontests", "test", note="splits: train, valid, test"),
    # the hub repo is script-based (which recent `datasets` refuse to run): read its JSONL
    # files directly; NAME@release_vN picks the files of that release
    "livecodebench": HubSource(
        "livecodebench/code_generation_lite", "livecodebench", "test", data_files="test*.jsonl",
        note="@release_v1..v6 selects a release",
    ),
    "refute": HubSource("bethgelab/REFUTE", "refute", "train",
                        note="324 (problem, incorrect submission) samples from Codeforces, with validators"),
    **{
        f"harnessllm-{short}": HubSource(repo, "harnessllm", "train", dataset=short)
        for short, repo in harnessllm.DATASETS.items()
    },
}
LCB_RELEASE_FILES = {f"release_v{n}": ["test.jsonl"] + [f"test{i}.jsonl" for i in range(2, n + 1)] for n in range(1, 7)}
RECORD_SUFFIXES = (".jsonl", ".json", ".parquet")
KATTIS = "kattis"  # folders of problem packages, not records: read by tczoo.benchmarks.kattis
HUMANEVAL = "humaneval"  # HumanEval JSONL (gzipped or not): read by tczoo.benchmarks.humaneval
MBPP = "mbpp"  # MBPP, CodeT's layout or the original: read by tczoo.benchmarks.mbpp


# --------------------------------------------------------------------------- resolver


def _schema_name(text: str) -> str:
    key = text.strip().lower()
    key = SCHEMA_ALIASES.get(key, key)
    if key not in SCHEMAS and key not in GROUPED:
        raise BenchmarkLoadError(
            f"unknown benchmark schema {text!r} (known: {', '.join(sorted([*SCHEMAS, *GROUPED, KATTIS, HUMANEVAL, MBPP]))}); "
            "use SCHEMA:PATH for a local file"
        )
    return key


def load_kattis(path: str, *, limit: int | None = None, sandbox=None, only: list[str] | None = None) -> list[Problem]:
    """Kattis/ICPC problem packages (a folder of them, searched recursively); see
    :mod:`tczoo.benchmarks.kattis`."""
    from tczoo.benchmarks import kattis

    try:
        problems = kattis.load(Path(path), sandbox=sandbox, only=only)
    except kattis.PackageError as exc:
        raise BenchmarkLoadError(str(exc)) from None
    return problems[:limit] if limit is not None else problems


def load_benchmark_spec(spec: str, *, limit: int | None = None, **options: Any) -> list[Problem]:
    """Problems from ``SCHEMA:PATH`` (local) or ``NAME[@SPLIT]`` (hub).

    ``limit`` keeps the first N problems; ``options`` go to the schema's converter
    (``codecontests``: ``include_generated``, ``max_solutions``).
    """
    spec = spec.strip()
    if not spec:
        raise BenchmarkLoadError("empty benchmark spec")
    if ":" in spec:
        schema, _, path = spec.partition(":")
        if not path:
            raise BenchmarkLoadError(f"benchmark spec {spec!r} names no path after '{schema}:'")
        if schema.strip().lower() == KATTIS:
            return load_kattis(path, limit=limit, sandbox=options.pop("sandbox", None), only=options.pop("only", None))
        if schema.strip().lower() == HUMANEVAL:
            from tczoo.benchmarks import humaneval

            return humaneval.load(path, sandbox=options.pop("sandbox", None), only=options.pop("only", None),
                                  limit=limit)
        if schema.strip().lower() == MBPP:
            from tczoo.benchmarks import mbpp

            return mbpp.load(path, sandbox=options.pop("sandbox", None), only=options.pop("only", None), limit=limit)
        return load_local(_schema_name(schema), path, limit=limit, **options)
    name, _, split = spec.partition("@")
    key = name.strip().lower()
    if key not in HUB_BENCHMARKS:
        raise BenchmarkLoadError(
            f"unknown benchmark {name!r}: hub names are {', '.join(sorted(HUB_BENCHMARKS))}; "
            f"a local file is SCHEMA:PATH with SCHEMA one of {', '.join(sorted(SCHEMAS))}"
        )
    return load_hub(key, split=split or None, limit=limit, **options)


def convert(
    schema: str, records: Iterable[Any], *, origin: str, limit: int | None = None,
    lines: list[int] | None = None, **options: Any
) -> list[Problem]:
    """Convert upstream records; a bad record raises with its position and the reason
    (``FILE:LINE`` when ``lines`` gives each record's line in a JSONL file)."""
    schema = _schema_name(schema)
    if schema in GROUPED:
        try:
            grouped = GROUPED[schema](list(records), **options)
        except RecordError as exc:
            raise BenchmarkLoadError(f"{origin}: {exc}") from None
        except (KeyError, TypeError, AttributeError, ValueError, RecursionError) as exc:
            raise BenchmarkLoadError(f"{origin}: not in the {schema} schema ({_one_line(exc)})") from None
        return grouped[:limit] if limit is not None else grouped
    to_problem = SCHEMAS[schema]
    problems: list[Problem] = []
    for index, record in enumerate(records):
        if limit is not None and len(problems) >= limit:
            break
        try:
            problems.append(to_problem(record, index, **options))
        except RecordError as exc:
            at = f"{origin}:{lines[index]}" if lines and index < len(lines) else origin
            raise BenchmarkLoadError(f"{at}: record {index}: {exc}") from None
        except (KeyError, TypeError, AttributeError, ValueError, RecursionError) as exc:
            at = f"{origin}:{lines[index]}" if lines and index < len(lines) else origin
            raise BenchmarkLoadError(
                f"{at}: record {index} is not in the {schema} schema ({_one_line(exc)})"
            ) from None
    return problems


def _one_line(exc: BaseException) -> str:
    """An exception as one bounded line (pydantic's messages span several)."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            parts = [f"{'.'.join(map(str, e.get('loc', ())))}: {e.get('msg', '')}" for e in errors()[:3]]
            return f"{type(exc).__name__}: {'; '.join(parts)}"[:300]
        except Exception:  # noqa: BLE001 - fall back to the text
            pass
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"[:300]


# --------------------------------------------------------------------------- local files


def load_local(schema: str, path: str | os.PathLike[str], *, limit: int | None = None, **options: Any) -> list[Problem]:
    schema = _schema_name(schema)
    p = Path(path).expanduser()
    if not p.exists():
        raise FileNotFoundError(f"benchmark file not found: {p} (from spec {schema}:{path})")
    if p.is_file() and p.name.lower().endswith(".jsonl"):
        numbered = _read_jsonl_lines(p)
        return convert(schema, [r for _, r in numbered], origin=str(p), limit=limit,
                       lines=[n for n, _ in numbered], **options)
    return convert(schema, read_records(p), origin=str(p), limit=limit, **options)


def read_records(path: Path) -> list[Any]:
    """Upstream records from a JSONL / JSON / parquet file or a directory of them.

    Read as ``tczoo.safeio.userfiles`` reads every user file (regular files, bounded, strict
    UTF-8, no NaN/inf, bounded nesting, ``FILE:LINE`` errors); a directory is walked
    through ``tczoo.safeio.read.Tree`` (links only inside it, no loops, capped)."""
    if path.is_dir():
        if (path / "dataset_dict.json").exists() or (path / "state.json").exists():
            return _read_saved_dataset(path)
        from tczoo.safeio.read import Refused, Tree

        try:
            found, _ = Tree(path).walk_files(path)
        except Refused as exc:
            raise BenchmarkLoadError(str(exc)) from None
        files = [f for f in found if f.name.endswith(RECORD_SUFFIXES)]
        if not files:
            raise BenchmarkLoadError(f"{path}: no .jsonl, .json or .parquet files in this directory")
        records: list[Any] = []
        for f in files:
            records.extend(read_records(f))
        return records
    name = path.name.lower()
    if name.endswith(".jsonl"):
        return _read_jsonl(path)
    if name.endswith(".json"):
        from tczoo.safeio.userfiles import UserFileError, read_json

        try:
            data = read_json(path)
        except UserFileError as exc:
            raise BenchmarkLoadError(str(exc)) from None
        if isinstance(data, dict):
            data = [data]  # a single record
        if not isinstance(data, list):
            raise BenchmarkLoadError(f"{path}: expected a JSON list of records")
        return data
    if name.endswith(".parquet"):
        from tczoo.safeio.read import Refused, open_regular

        try:
            os.close(open_regular(path))  # a FIFO or a device is refused, not handed to pyarrow
        except Refused as exc:
            raise BenchmarkLoadError(str(exc)) from None
        return _read_parquet(path)
    raise BenchmarkLoadError(f"{path}: unsupported file type (use .jsonl, .json or .parquet)")


def _read_jsonl(path: Path) -> list[Any]:
    return [record for _, record in _read_jsonl_lines(path)]


def _read_jsonl_lines(path: Path) -> list[tuple[int, Any]]:
    from tczoo.safeio.userfiles import UserFileError, read_jsonl

    try:
        return list(read_jsonl(path))
    except UserFileError as exc:
        raise BenchmarkLoadError(str(exc)) from None


def _read_parquet(path: Path) -> list[Any]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        pq = None
    if pq is not None:
        return pq.read_table(path).to_pylist()
    datasets = _import_datasets(f"reading {path}")
    return list(datasets.Dataset.from_parquet(str(path)))


def _read_saved_dataset(path: Path) -> list[Any]:
    datasets = _import_datasets(f"reading the saved dataset {path}")
    ds = datasets.load_from_disk(str(path))
    if isinstance(ds, datasets.DatasetDict):
        split = "test" if "test" in ds else next(iter(ds))
        ds = ds[split]
    return list(ds)


# --------------------------------------------------------------------------- hub


def _import_datasets(purpose: str):
    try:
        import datasets  # noqa: PLC0415  (optional dependency, imported on use)
    except ImportError:
        raise BenchmarkLoadError(
            f"{purpose} needs the optional Hugging Face 'datasets' package: pip install 'tczoo[hf]'"
        ) from None
    return datasets


def load_hub(name: str, *, split: str | None = None, limit: int | None = None, **options: Any) -> list[Problem]:
    """A :data:`HUB_BENCHMARKS` dataset; one clear error line when it cannot be fetched."""
    source = HUB_BENCHMARKS[name]
    datasets = _import_datasets(f"loading {name!r} from the Hugging Face hub")
    split_name = split or source.split
    try:
        if source.data_files:
            files = [source.data_files]
            if split and split in LCB_RELEASE_FILES:
                files, split_name = LCB_RELEASE_FILES[split], "test"
            elif split:
                raise BenchmarkLoadError(
                    f"{name}: unknown release {split!r} (known: {', '.join(LCB_RELEASE_FILES)})"
                )
            urls = [f"hf://datasets/{source.repo}/{f}" for f in files]
            ds = datasets.load_dataset("json", data_files={"test": urls}, split="test")
        else:
            ds = datasets.load_dataset(source.repo, split=split_name)
    except BenchmarkLoadError:
        raise
    except Exception as exc:  # network, auth, unknown split: all end the same way for the user
        detail = " ".join(str(exc).split())[:300]
        offline = " (HF_HUB_OFFLINE is set)" if os.environ.get("HF_HUB_OFFLINE") in ("1", "true", "True") else ""
        raise BenchmarkLoadError(
            f"could not load {name!r} ({source.repo}, split {split_name}) from the Hugging Face hub"
            f"{offline}: {type(exc).__name__}: {detail}. Download it and use "
            f"'{source.schema}:PATH' instead"
        ) from None
    if source.schema == "harnessllm":
        options.setdefault("dataset", source.dataset)
    return convert(source.schema, ds, origin=f"{source.repo}[{split_name}]", limit=limit, **options)

"""Methods, runners and extra CLI commands, discovered through entry points.

    [project.entry-points."tczoo.methods"]
    mymethod = "my_package.mymethod:MyMethod"

(likewise ``tczoo.runners``, ``tczoo.commands``, and ``tczoo.analyses`` for the analyses
reproduction targets run over recorded runs).

tczoo never imports a method or runner module by name: an outside package adds one by
declaring an entry point, with no change here. What an entry point yields is checked
when it is loaded (a method is a ``tczoo.method.Method`` subclass, a runner a
``tczoo.runner.Runner`` subclass, a command's ``register`` and an analysis are
callables); a misspelt name is answered with the closest known names.

Listing the methods (``tczoo methods``) needs each class's metadata, and importing a
method module imports its dependencies (the kernel, numpy, a solver ...). The metadata
is therefore kept in a small JSON file under the cache directory, keyed by the entry
points, the installed distributions' versions and the size and modification time of
every source file of the packages involved: any edit or (re)install recomputes it.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import inspect
import json
import sys
from functools import lru_cache
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from tczoo.errors import UserError

if TYPE_CHECKING:
    from pydantic import BaseModel

    from tczoo.method import Method
    from tczoo.runner import Runner


class UnknownNameError(UserError, KeyError):
    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class PluginError(UserError, TypeError):
    """An entry point that does not yield what its group promises (a method that is no
    ``Method`` subclass ...), or that cannot be imported: one line naming the entry point."""


@lru_cache(maxsize=None)
def _group(group: str) -> dict[str, Any]:
    return {ep.name: ep for ep in entry_points(group=group)}


def unknown(kind: str, name: str, known: list[str]) -> UnknownNameError:
    """The error for a name that is not among ``known``, with the closest ones."""
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    return UnknownNameError(f"unknown {kind} {name!r} ({hint}known: {', '.join(sorted(known)) or 'none installed'})")


def _load(group: str, kind: str, name: str) -> Any:
    eps = _group(group)
    if name not in eps:
        raise unknown(kind, name, list(eps))
    ep: EntryPoint = eps[name]
    try:
        return ep.load()
    except (ImportError, AttributeError) as exc:
        raise PluginError(f"{kind} {name!r} ({group} entry point {ep.value}) cannot be loaded: "
                          f"{type(exc).__name__}: {exc}") from exc


def _subclass(group: str, kind: str, name: str, base: type) -> Any:
    obj = _load(group, kind, name)
    if not (inspect.isclass(obj) and issubclass(obj, base)):
        what = f"class {obj.__module__}.{obj.__qualname__}" if inspect.isclass(obj) else type(obj).__name__
        raise PluginError(f"{kind} {name!r} ({group} entry point {_group(group)[name].value}) is not a "
                          f"{base.__module__}.{base.__qualname__} subclass (it is a {what})")
    if inspect.isabstract(obj):
        missing = ", ".join(sorted(getattr(obj, "__abstractmethods__", ())))
        raise PluginError(f"{kind} {name!r} ({group} entry point {_group(group)[name].value}) does not implement "
                          f"{missing}")
    return obj


def _callable(group: str, kind: str, name: str) -> Callable[..., Any]:
    obj = _load(group, kind, name)
    if not callable(obj) or inspect.isclass(obj):
        raise PluginError(f"{kind} {name!r} ({group} entry point {_group(group)[name].value}) is not a function "
                          f"(it is a {type(obj).__name__})")
    found: Callable[..., Any] = obj
    return found


def method_names() -> list[str]:
    return sorted(_group("tczoo.methods"))


def runner_names() -> list[str]:
    return sorted(_group("tczoo.runners"))


def get_method(name: str) -> "type[Method]":
    """The method class registered as ``name`` (checked to be a ``Method`` subclass)."""
    from tczoo.method import Method

    found: type[Method] = _subclass("tczoo.methods", "method", name, Method)
    return found


def get_runner(name: str) -> "type[Runner]":
    """The runner class registered as ``name`` (checked to be a ``Runner`` subclass)."""
    from tczoo.runner import Runner

    found: type[Runner] = _subclass("tczoo.runners", "runner", name, Runner)
    return found


def analysis_names() -> list[str]:
    return sorted(_group("tczoo.analyses"))


def get_analysis(name: str) -> Callable[..., Any]:
    """An analysis a reproduction target runs after its runs: ``fn(run_dir, sandbox,
    **options)`` over a run directory, or ``fn("tcbench:PATH", sandbox, **options)`` over
    a benchmark built by ``tczoo build-benchmark`` (the target says which); it returns
    ``tczoo.runner.Table`` objects."""
    return _callable("tczoo.analyses", "analysis", name)


def command_plugins() -> list[tuple[str, Callable[[], Callable[..., Any]]]]:
    """(name, loader) of every ``tczoo.commands`` entry point; ``loader()`` imports and
    returns its ``register(app: typer.Typer)`` function (checked to be one)."""
    return [(name, functools.partial(_callable, "tczoo.commands", "command", name))
            for name in sorted(_group("tczoo.commands"))]


def describe_methods() -> list[dict[str, Any]]:
    """``Method.describe()`` of every installed method, in name order (from the metadata
    cache when nothing changed since it was written)."""
    eps = _group("tczoo.methods")
    try:
        key = _fingerprint(eps.values())
    except (OSError, ValueError, ImportError):
        key = None  # cannot tell what changed: describe afresh, keep nothing
    from tczoo.paths import cache_subdir, read_cache_file, write_cache_file

    try:  # owner-only; a link there is refused, never followed (docs/security.md)
        path = cache_subdir("registry") / f"methods-{key}.json" if key else None
    except OSError:
        path = None  # a read-only cache only costs speed
    data = read_cache_file(path) if path is not None else None
    if data is not None:
        try:
            cached: list[dict[str, Any]] = json.loads(data)
            return cached
        except ValueError:
            pass
    infos = [get_method(n).describe() for n in method_names()]
    if path is not None:
        try:
            for old in path.parent.glob("methods-*.json"):
                old.unlink(missing_ok=True)
            write_cache_file(path, json.dumps(infos, default=str))
        except OSError:
            pass  # a read-only cache only costs speed
    return infos


def package_of(group: str, name: str) -> dict[str, str] | None:
    """The distribution (package name and version) whose entry point provides ``name`` in
    ``group`` (``tczoo.methods``, ``tczoo.runners`` ...), or None when it is not installed."""
    ep = _group(group).get(name)
    dist = getattr(ep, "dist", None) if ep is not None else None
    if dist is None:
        return None
    meta = getattr(dist, "metadata", None)
    package = (meta["Name"] if meta is not None and meta["Name"] else None) or getattr(dist, "name", "")
    return {"package": str(package), "version": str(getattr(dist, "version", ""))}


def plugins_used(methods: list[str], runners: list[str]) -> dict[str, dict[str, str]]:
    """``{"method:NAME" | "runner:NAME": {"package", "version"}}`` for every method and
    runner of a run that an outside package provides (tczoo's own are left out: its
    version is recorded anyway)."""
    found = {}
    for group, kind, names in (("tczoo.methods", "method", methods), ("tczoo.runners", "runner", runners)):
        for name in dict.fromkeys(names):
            info = package_of(group, name)
            if info is not None and info["package"].lower() != "tczoo":
                found[f"{kind}:{name}"] = info
    return found


def plugin_sources(methods: list[str], runners: list[str]) -> dict[str, str]:
    """``{"method:NAME" | "runner:NAME": "sha256:…"}``: for every method and runner an
    outside package provides, a digest of its package's files as installed (the source
    and templates of the top-level package its entry point names; ``__pycache__`` left
    out). A run records it in its config, so a changed plugin is a different experiment:
    the default run directory moves and ``--out`` of the old one is refused naming it."""
    found = {}
    for group, kind, names in (("tczoo.methods", "method", methods), ("tczoo.runners", "runner", runners)):
        for name in dict.fromkeys(names):
            info = package_of(group, name)
            if info is None or info["package"].lower() == "tczoo":
                continue
            ep = _group(group)[name]
            digest = source_digest(ep.value.split(":", 1)[0].split(".", 1)[0])
            if digest is not None:
                found[f"{kind}:{name}"] = digest
    return found


def source_digest(package: str) -> str | None:
    """sha256 over a top-level package's files (relative path and bytes, sorted; regular
    files only, links and ``__pycache__`` left out), or None when it cannot be found."""
    import hashlib
    import importlib.util
    import os

    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    roots = list(spec.submodule_search_locations or [])
    files: list[tuple[str, Path]] = []
    if roots:
        root = Path(roots[0])
        for folder, dirs, names in os.walk(root, followlinks=False):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not (Path(folder) / d).is_symlink())
            for n in sorted(names):
                path = Path(folder) / n
                if path.is_file() and not path.is_symlink() and not n.endswith((".pyc", ".pyo")):
                    files.append((str(path.relative_to(root)), path))
    elif spec.origin and Path(spec.origin).is_file():
        files.append((Path(spec.origin).name, Path(spec.origin)))
    else:
        return None
    h = hashlib.sha256()
    for rel, path in sorted(files):
        h.update(rel.encode("utf-8", "surrogatepass") + b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return "sha256:" + h.hexdigest()[:16]


def missing_hint(kind: str, name: str, provenance: list[dict[str, Any]]) -> str:
    """For a method or runner a recorded run used that is not installed here: which
    package to install, from the run's provenance ("" when it does not say)."""
    for line in reversed(provenance):
        info = (line.get("plugins") or {}).get(f"{kind}:{name}") if isinstance(line, dict) else None
        if isinstance(info, dict) and info.get("package"):
            version = f"=={info['version']}" if info.get("version") else ""
            return (f"this run was made with {kind} {name} from the package {info['package']} "
                    f"{info.get('version', '')}".rstrip() + f": pip install '{info['package']}{version}'")
    return ""


def parameters(params: "type[BaseModel]") -> list[dict[str, Any]]:
    """Every parameter of a ``Params`` model (a method's or a runner's): its name, type,
    default, one line of meaning (the field's description) and the paper's value where
    the field records one (``Field(..., json_schema_extra={"paper": VALUE})``, set where
    the paper's setting differs from the default or the knob is tczoo's own). The
    fields are the one source: ``tczoo methods NAME`` and ``tczoo runners NAME`` print
    this."""
    from pydantic_core import PydanticUndefined

    rows = []
    for name, info in params.model_fields.items():
        if info.default is not PydanticUndefined:
            default = info.default
        elif info.default_factory is not None:
            default = info.default_factory()  # type: ignore[call-arg]  # no-argument factories only
        else:
            default = None
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
        kind = info.annotation
        rows.append({"name": name, "type": getattr(kind, "__name__", None) or str(kind).replace("typing.", ""),
                     "default": default, "paper": extra.get("paper"), "description": info.description or ""})
    return rows


def describe_runners() -> list[dict[str, Any]]:
    """Name, paper, summary and headline metric of every installed runner."""
    out = []
    for name in runner_names():
        cls = get_runner(name)
        out.append({"name": name, "paper": getattr(cls, "paper", ""), "summary": getattr(cls, "summary", ""),
                    "headline": getattr(cls, "headline", "") or ""})
    return out


def _fingerprint(eps: Iterable[EntryPoint]) -> str:
    """What the metadata of these entry points depends on: the entry points, their
    distributions' versions, and every source file of their packages and the kernel."""
    from tczoo.paths import entry_point_sources

    eps = list(eps)
    parts: list[Any] = [sys.version, sorted((ep.name, ep.value) for ep in eps)]
    for ep in eps:
        dist = getattr(ep, "dist", None)
        parts.append((dist.name, dist.version) if dist is not None else None)
    parts.extend(_stat(file) for file in entry_point_sources(eps))
    return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()[:20]


def _stat(path: Path) -> tuple[str, int, int]:
    st = path.stat()
    return str(path), st.st_size, st.st_mtime_ns

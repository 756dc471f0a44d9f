"""Methods, runners and extra CLI commands, discovered through entry points.

    [project.entry-points."tczoo.methods"]
    mymethod = "my_package.mymethod:MyMethod"

(likewise ``tczoo.runners``, ``tczoo.commands``, ``tczoo.prompts`` for template folders,
and ``tczoo.analyses`` for the analyses reproduction targets run over recorded runs).

tczoo never imports a method or runner module by name: an outside package adds one by
declaring an entry point, with no change here. What an entry point yields is checked
when it is loaded (a method is a ``tczoo.method.Method`` subclass, a runner a
``tczoo.runner.Runner`` subclass, a command's ``register`` and an analysis are
callables); a misspelt name is answered with the closest known names; a name that two
installed packages declare in one group is an error naming both.

Listing the methods (``tczoo methods``) reads each class's declaration from its source
without importing it (``declared_method``, below): importing a method module imports
the kernel and its dependencies, several times what the listing costs.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

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


KINDS = {"tczoo.methods": "method", "tczoo.runners": "runner", "tczoo.analyses": "analysis",
         "tczoo.commands": "command", "tczoo.prompts": "template folder"}


@lru_cache(maxsize=None)
def _group(group: str) -> dict[str, Any]:
    """The entry points of ``group`` by name. Two installed packages that declare the same
    name are an error naming both (never the last one found winning): which one a user
    meant cannot be told."""
    from importlib.metadata import entry_points

    found: dict[str, Any] = {}
    for ep in entry_points(group=group):
        first = found.get(ep.name)
        if first is not None and _dist_name(first) != _dist_name(ep):
            kind = KINDS.get(group, group)
            raise PluginError(f"{kind} {ep.name!r} is provided by two packages: {_provider(first)} and "
                              f"{_provider(ep)} ({group} entry points); uninstall one of them")
        found.setdefault(ep.name, ep)
    return found


def _dist_name(ep: Any) -> str:
    dist = getattr(ep, "dist", None)
    return str(getattr(dist, "name", "") or "").lower().replace("_", "-")


def _provider(ep: Any) -> str:
    dist = getattr(ep, "dist", None)
    name = str(getattr(dist, "name", "") or "an unknown package")
    version = str(getattr(dist, "version", "") or "")
    return f"{name} {version} ({ep.value})".replace("  ", " ")


def unknown(kind: str, name: str, known: list[str]) -> UnknownNameError:
    """The error for a name that is not among ``known``, with the closest ones."""
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    return UnknownNameError(f"unknown {kind} {name!r} ({hint}known: {', '.join(sorted(known)) or 'none installed'})")


def _load(group: str, kind: str, name: str) -> Any:
    eps = _group(group)
    if name not in eps:
        raise unknown(kind, name, list(eps))
    ep = eps[name]
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


def plugin_entry_points(group: str) -> list[Any]:
    """The entry points of ``group`` in name order (two packages with one name refused)."""
    eps = _group(group)
    return [eps[name] for name in sorted(eps)]


def command_names() -> list[str]:
    """The names of the ``tczoo.commands`` entry points (plugins' commands), sorted."""
    return sorted(_group("tczoo.commands"))


def get_command_plugin(name: str) -> Callable[..., Any]:
    """The ``register(app: typer.Typer)`` function of the ``tczoo.commands`` entry point
    ``name`` (checked to be one)."""
    return _callable("tczoo.commands", "command", name)


def command_plugins() -> list[tuple[str, Callable[[], Callable[..., Any]]]]:
    """(name, loader) of every ``tczoo.commands`` entry point; ``loader()`` imports and
    returns its ``register(app: typer.Typer)`` function (checked to be one)."""
    return [(name, functools.partial(_callable, "tczoo.commands", "command", name))
            for name in sorted(_group("tczoo.commands"))]


def describe_methods(params: bool = True) -> list[dict[str, Any]]:
    """``Method.describe()`` of every installed method, in name order (without its
    ``params`` when ``params`` is False: the listing's table does not show them). Each is
    read from its class's declaration without importing the method (``declared_method``),
    or from the imported class where the declaration cannot be read that way."""
    eps = _group("tczoo.methods")
    _forget()
    found = []
    for name in method_names():
        info = declared_method(eps[name].value, keep=True, params=params)
        if info is None:
            info = get_method(name).describe()
            if not params:
                info.pop("params", None)
        found.append(info)
    return found


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


# --------------------------------------------------------------------------- declarations
#
# Listing the methods needs each class's metadata, and importing a method module imports
# the kernel and its dependencies (a solver, numpy ...): several times what the listing
# itself costs. The class attributes and the Params fields a listing shows are literals
# in the class bodies, so they are read from the source, as inspect_ai lists tasks from
# the source: the module is found as the import system finds it, without running it or
# its packages, and only the class's header and attribute block are parsed. Anything the
# reader cannot be sure of -- a value that is not a literal, a class decorator, a
# ``describe`` of its own, an attribute set after a method, a base it cannot follow --
# makes it give up, and the class is imported instead. tests/kernel/test_registry_declared.py
# holds the result equal to ``describe()`` for every installed method.


_DESCRIBED = ("name", "paper", "summary", "setting", "produces", "runner", "first_k", "functional", "stdin",
              "samples_candidates")
_ENUMS = ("setting", "produces")  # describe() shows these members' values
_METHOD = ("tczoo.method", "Method")
_PARAMS = ("tczoo.method", "MethodParams")
_TEXTS: dict[str, tuple[str, str]] = {}
_CLASSES: dict[tuple[str, str], "_Class"] = {}
_CLASS_AT: dict[tuple[str, str], list[int]] = {}
_PATCHED: dict[str, set[str]] = {}  # names a module sets attributes of at module level
_IMPORTS: dict[str, dict[str, list[tuple[str, str, str]]]] = {}


def _forget() -> None:
    for cache in (_TEXTS, _CLASSES, _CLASS_AT, _IMPORTS, _PATCHED):
        cache.clear()


class _Unread(Exception):
    """A declaration the reader cannot be sure of."""


def declared_method(value: str, keep: bool = False, params: bool = True) -> dict[str, Any] | None:
    """``describe()`` of the method class an entry point names (``module:Class``), read
    from its source; None when it cannot be read for certain. ``keep``: reuse what the
    calls since the last ``_forget()`` read (one listing reads each file once);
    ``params``: False leaves the ``Params`` defaults out (and unread)."""
    if not keep:
        _forget()
    module, _, qualname = value.partition(":")
    if not qualname or "." in qualname:
        return None
    try:
        return _describe(module.strip(), qualname.strip(), params)
    except Exception:  # noqa: BLE001 - _Unread, or a source the reader did not foresee: the import decides
        return None


def _describe(module: str, name: str, params: bool = True) -> dict[str, Any]:
    import ast

    ref = _resolve(module, ast.Name(id=name))
    if len(ref) != 2:
        raise _Unread(name)
    chain = _chain(ref, _METHOD)
    if not any(c.defines("generate") for c in chain[1:]):
        raise _Unread("no generate: the import says what is missing")
    attrs: dict[str, tuple[str, Any]] = {}
    for cls in chain:
        attrs.update({k: (cls.module, v) for k, v in cls.attrs.items()})
    info: dict[str, Any] = {}
    for key in _DESCRIBED:
        if key not in attrs:
            raise _Unread(key)
        where, node = attrs[key]
        info[key] = _member_value(where, node) if key in _ENUMS else _literal(where, node)
    if not params:
        return info
    where, node = attrs["Params"]
    ref = _resolve(where, node)
    if len(ref) != 2:
        raise _Unread("Params is not a class")
    fields: dict[str, tuple[str, Any]] = {}
    for cls in _chain(ref, _PARAMS):
        fields.update({k: (cls.module, v) for k, v in cls.fields.items()})
    info["params"] = {k: _field_default(where, node) for k, (where, node) in fields.items()}
    return info


class _Class:
    """A class's header and attribute block as parsed from its module's source."""

    def __init__(self, module: str, name: str):
        import ast

        self.module, self.name = module, name
        _, text = _module_text(module)
        _bindings(module)
        found = _CLASS_AT.get((module, name), [])
        if len(found) != 1:
            raise _Unread(f"{module}.{name}")
        start = found[0]
        if text[text.rfind("\n", 0, max(start - 1, 0)) + 1: start].startswith("@"):
            raise _Unread("a class decorator")
        if name in _PATCHED.get(module, ()):
            raise _Unread("an attribute set outside the class")
        pos, depth = start, 0
        while True:  # the header, to the colon that ends it (bases may span lines)
            end = text.find("\n", pos)
            end = len(text) if end < 0 else end
            code = text[pos:end].split("#", 1)[0]
            depth += code.count("(") + code.count("[") - code.count(")") - code.count("]")
            if depth == 0 and code.rstrip().endswith(":"):
                break
            if end >= len(text):
                raise _Unread("header")
            pos = end + 1
        header, body_at = text[start:end], end + 1
        nxt = _MODULE_LEVEL.search(text, body_at)
        body = text[body_at: nxt.start() if nxt else len(text)]
        first = re.search(r"^([ \t]+)[^\s#]", body, re.M)
        indent = first.group(1) if first else "    "
        patterns = _indented(indent)
        cut = patterns[0].search(body)
        attrs_block, rest = (body[: cut.start()], body[cut.start():]) if cut else (body, "")
        if patterns[1].search(rest):
            raise _Unread("an attribute after a method")
        self._methods = set(patterns[2].findall(rest))
        if ({"describe", "__init_subclass__"} & self._methods) and (module, name) != _METHOD:
            raise _Unread("describe or __init_subclass__ of its own")
        source = f"{header}\n{attrs_block}\n{indent}pass\n"
        tree = ast.parse(source)
        node = tree.body[0]
        if not isinstance(node, ast.ClassDef) or node.keywords:
            raise _Unread("metaclass")
        self.bases = [b.value if isinstance(b, ast.Subscript) else b for b in node.bases]
        self.attrs: dict[str, Any] = {}
        self.fields: dict[str, Any] = {}
        for stmt in node.body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) or isinstance(stmt, ast.Pass):
                continue
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                self.attrs[stmt.targets[0].id] = stmt.value
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                ann = stmt.annotation.value if isinstance(stmt.annotation, ast.Subscript) else stmt.annotation
                classvar = (isinstance(ann, ast.Name) and ann.id == "ClassVar") or \
                    (isinstance(ann, ast.Attribute) and ann.attr == "ClassVar")
                if stmt.value is not None:
                    self.attrs[stmt.target.id] = stmt.value
                if not classvar and not stmt.target.id.startswith("_"):
                    self.fields[stmt.target.id] = stmt.value
            else:
                raise _Unread(f"a {type(stmt).__name__} in the class body")

    def defines(self, method: str) -> bool:
        return method in self._methods


@lru_cache(maxsize=None)
def _indented(indent: str) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """For a class body indented by ``indent``: where its first method (or nested class
    or decorator) starts, a class-level assignment, and a method's name."""
    i = re.escape(indent)
    return (re.compile(rf"^{i}(?:async[ \t]+def|def|class|@)\b", re.M),
            re.compile(rf"^{i}[A-Za-z_]\w*[ \t]*(?::[^\n=]*)?=(?!=)", re.M),
            re.compile(rf"^{i}(?:async[ \t]+)?def[ \t]+(\w+)", re.M))


def _class(ref: tuple[str, str]) -> _Class:
    found = _CLASSES.get(ref)
    if found is None:
        found = _CLASSES[ref] = _Class(*ref)
    return found


def _chain(ref: tuple[str, str], root: tuple[str, str]) -> list[_Class]:
    """The classes from ``root`` down to ``ref`` (single inheritance; ``Generic``,
    ``ABC`` and ``Protocol`` bases aside); _Unread when ``ref`` does not reach ``root``."""
    chain: list[_Class] = []
    while True:
        cls = _class(ref)
        chain.append(cls)
        if ref == root:
            return chain[::-1]
        bases = [b for b in cls.bases if not (_dotted(b) or "").rpartition(".")[2] in ("Generic", "ABC", "Protocol")]
        if len(bases) != 1 or len(chain) > 20:
            raise _Unread("bases")
        found = _resolve(cls.module, bases[0])
        if len(found) != 2:
            raise _Unread("a base that is not a class")
        ref = found


def _dotted(node: Any) -> str | None:
    import ast

    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else None
    return None


def _resolve(module: str, node: Any, depth: int = 0) -> Any:
    """What a name means in ``module``: ``(module, class)`` for a class, ``(module, value
    node, "constant")`` for a module-level constant, following ``from X import``."""
    import ast

    if not isinstance(node, ast.Name) or depth > 10:
        raise _Unread("not a name")
    bindings = _bindings(module).get(node.id, [])
    if len(bindings) != 1:
        raise _Unread(f"{node.id} in {module}")
    kind, where, what = bindings[0]
    if kind == "import":
        return _resolve(where, ast.Name(id=what), depth + 1)
    if kind == "class":
        return (where, what)
    _, text = _module_text(module)
    start = int(what)
    end = _MODULE_LEVEL.search(text, start + 1)
    tree = ast.parse(text[start: end.start() if end else len(text)])
    value = getattr(tree.body[0], "value", None) if len(tree.body) == 1 else None
    if value is None:
        raise _Unread(node.id)
    return (module, value, "constant")


_MODULE_LEVEL = re.compile(r"^(?=[^\s#)\]}])", re.M)  # a line where a module-level statement starts
_BINDING = re.compile(r"^(?:class[ \t]+(\w+)|(\w+)[ \t]*(?::[^\n=]*)?=(?!=)"
                      r"|from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)"
                      r"|(\w+)\.\w+[ \t]*=(?!=))", re.M)
_SETATTR = re.compile(r"setattr\([ \t]*(\w+)")


def _bindings(module: str) -> dict[str, list[tuple[str, str, str]]]:
    """Every name the module binds at its top level: ``("class", module, name)``,
    ``("constant", module, offset)``, ``("import", module, name)``."""
    if module not in _IMPORTS:
        package, text = _module_text(module)
        found: dict[str, list[tuple[str, str, str]]] = {}
        _PATCHED[module] = set(_SETATTR.findall(text)) if "setattr(" in text else set()
        for m in _BINDING.finditer(text):
            if m.group(5):  # Name.attr = ... at module level
                _PATCHED[module].add(m.group(5))
            elif m.group(1):
                found.setdefault(m.group(1), []).append(("class", module, m.group(1)))
                _CLASS_AT.setdefault((module, m.group(1)), []).append(m.start())
            elif m.group(2):
                found.setdefault(m.group(2), []).append(("constant", module, str(m.start())))
            else:
                names = re.sub(r"#[^\n]*", "", m.group(4)).strip().strip("()")
                for item in names.split(","):
                    words = item.split()
                    if words:
                        found.setdefault(words[-1], []).append(("import", _absolute(m.group(3), package), words[0]))
        _IMPORTS[module] = found
    return _IMPORTS[module]


def _absolute(target: str, package: str) -> str:
    dots = len(target) - len(target.lstrip("."))
    if not dots:
        return target
    base = package.split(".")
    if dots > 1:
        base = base[: len(base) - dots + 1]
    return ".".join(base + ([target[dots:]] if target[dots:] else []))


_ARITHMETIC = {"Add": lambda a, b: a + b, "Sub": lambda a, b: a - b, "Mult": lambda a, b: a * b,
               "Div": lambda a, b: a / b, "FloorDiv": lambda a, b: a // b, "Mod": lambda a, b: a % b}


def _literal(module: str, node: Any) -> Any:
    """A literal, a module-level constant, or arithmetic on numbers (``32 * 1024``)."""
    import ast

    try:
        return ast.literal_eval(node)
    except ValueError:
        pass
    if isinstance(node, ast.BinOp) and type(node.op).__name__ in _ARITHMETIC:
        left, right = _literal(module, node.left), _literal(module, node.right)
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) < 1 << 62
                   for v in (left, right)):
            raise _Unread("arithmetic on what is not a number")
        return _ARITHMETIC[type(node.op).__name__](left, right)
    if not isinstance(node, ast.Name):
        raise _Unread("not a literal")
    found = _resolve(module, node)
    if len(found) == 3:  # a module-level constant
        return _literal(found[0], found[1])
    raise _Unread("not a literal")


def _member_value(module: str, node: Any) -> Any:
    """``Setting.SPEC`` -> ``"spec"``: an enum member's value, from the enum's class body."""
    import ast

    if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
        raise _Unread("not an enum member")
    enum = _resolve(module, node.value)
    if len(enum) != 2:
        raise _Unread("not an enum")
    cls = _class(enum)
    if node.attr not in cls.attrs:
        raise _Unread(node.attr)
    return _literal(cls.module, cls.attrs[node.attr])


def _field_default(module: str, node: Any) -> Any:
    """A Params field's default: ``x: int = 3`` or ``Field(3, ...)`` / ``Field(default=3)``."""
    import ast

    if node is None:
        raise _Unread("a required field")
    if isinstance(node, ast.Call) and (_dotted(node.func) or "").rpartition(".")[2] == "Field":
        keywords = {k.arg: k.value for k in node.keywords}
        if None in keywords:
            raise _Unread("**keywords")
        if "default_factory" in keywords:
            return _factory(module, keywords["default_factory"])
        value = node.args[0] if node.args else keywords.get("default")
        if value is None or (isinstance(value, ast.Constant) and value.value is Ellipsis):
            raise _Unread("a required field")
        return _literal(module, value)
    return _literal(module, node)


_FACTORIES = {"list": list, "tuple": tuple, "dict": dict, "set": set, "frozenset": frozenset}


def _factory(module: str, node: Any) -> Any:
    """What ``default_factory`` makes: ``list`` (an empty one), ``lambda: [..]``, or
    ``lambda: list(CONSTANT)``."""
    import ast

    if isinstance(node, ast.Name) and node.id in _FACTORIES:
        return _FACTORIES[node.id]()
    if not (isinstance(node, ast.Lambda) and not node.args.args and not node.args.vararg):
        raise _Unread("default_factory")
    body = node.body
    if isinstance(body, ast.Call) and isinstance(body.func, ast.Name) and body.func.id in _FACTORIES \
            and len(body.args) <= 1 and not body.keywords:
        return _FACTORIES[body.func.id](*(_literal(module, a) for a in body.args))
    return _literal(module, body)


def _module_text(module: str) -> tuple[str, str]:
    """(the package its relative imports start from, the source) of ``module``, found as
    the import system finds it, without running the module or its packages."""
    if module in _TEXTS:
        return _TEXTS[module]
    path = None
    spec = None
    parts = module.split(".")
    for i in range(1, len(parts) + 1):
        name = ".".join(parts[:i])
        loaded = sys.modules.get(name)
        spec = getattr(loaded, "__spec__", None) if loaded is not None else None
        if spec is None:
            for finder in sys.meta_path:
                find = getattr(finder, "find_spec", None)
                spec = find(name, path) if find is not None else None
                if spec is not None:
                    break
        if spec is None:
            raise _Unread(module)
        path = spec.submodule_search_locations
    origin = getattr(spec, "origin", None)
    if spec is None or not origin or not str(origin).endswith(".py"):
        raise _Unread(module)
    with open(origin, encoding="utf-8") as f:
        text = f.read(1 << 21)
    package = module if spec.submodule_search_locations is not None else module.rpartition(".")[0]
    _TEXTS[module] = (package, text)
    return _TEXTS[module]

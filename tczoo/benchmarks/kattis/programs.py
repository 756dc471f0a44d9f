"""Programs of a Kattis package (submissions, validators) as tczoo ``Program``s.

A program is one file, or a directory holding one program (the format's rule), and it
keeps its file name (``Program.file``): a judge compiles ``Paul.java`` as class Paul and
runs ``pypy3 paul.py`` under that name. Languages come from the file ending (the
format's language table): C, C++, Java, Python 3, Python 2, Kotlin, Haskell, Rust and Go
are tczoo languages (a program whose compiler is not installed here is still loaded: it
"cannot run", which every report shows); any other language is skipped with its name.
Python 3 runs under PyPy, as problemtools runs it, where ``pypy3`` is installed
(``TCZOO_KATTIS_PYTHON``: ``auto``, ``pypy``, ``cpython``).

A C/C++ directory program of one compilation unit plus its own headers has the local
``#include "x.h"`` lines replaced by the header text (once per header, as ``#pragma
once``/include guards would), so that its code reads whole; any other directory program
(several units, another language) keeps its files as they are (``Program.files``), its
main file chosen by the format's rule (the only source, else ``main.*``, else the first
by name).

Every file is read through the package's ``tczoo.safeio.read.Tree``: inside the package,
regular files only, ``MAX_SOURCE_BYTES`` each.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from tczoo.errors import UserError
from tczoo.schema import Language, Program
from tczoo.safeio.read import OverBudget, Refused, Tree

MAX_SOURCE_BYTES = 4 << 20  # a submission larger than this is not read

# The format's language table (appendix/languages.md): ending -> (language name, ours or None).
ENDINGS: dict[str, tuple[str, Language | None]] = {
    ".c": ("C", Language.C),
    ".cc": ("C++", Language.CPP), ".cpp": ("C++", Language.CPP), ".cxx": ("C++", Language.CPP),
    ".c++": ("C++", Language.CPP), ".C": ("C++", Language.CPP),
    ".java": ("Java", Language.JAVA),
    # Python 3: PyPy or CPython, decided when a program is read (python3_runtime)
    ".py": ("Python 3", Language.PYTHON), ".py3": ("Python 3", Language.PYTHON),
    ".py2": ("Python 2", Language.PYTHON2),
    ".kt": ("Kotlin", Language.KOTLIN), ".hs": ("Haskell", Language.HASKELL), ".cs": ("C#", None),
    ".go": ("Go", Language.GO), ".rs": ("Rust", Language.RUST), ".js": ("JavaScript", None), ".rb": ("Ruby", None), ".scala": ("Scala", None),
    ".pas": ("Pascal", None), ".php": ("PHP", None), ".ml": ("OCaml", None), ".fs": ("F#", None),
    ".d": ("D", None), ".lua": ("Lua", None), ".f90": ("Fortran", None), ".jl": ("Julia", None),
    ".sh": ("Bash", None), ".pl": ("Prolog", None), ".pm": ("Perl", None), ".swift": ("Swift", None),
    ".dart": ("Dart", None), ".cr": ("Crystal", None), ".nim": ("Nim", None), ".lisp": ("Common Lisp", None),
    ".m": ("Objective-C", None), ".cob": ("COBOL", None), ".ada": ("Ada", None), ".adb": ("Ada", None),
    ".rkt": ("Racket", None), ".ex": ("Elixir", None), ".erl": ("Erlang", None),
}
# Judges build C and C++ on Ubuntu (problemtools, DOMjudge, Kattis), whose gcc turns on
# stack protection and source fortification by default; Debian's does not. Without them
# a jury's run_time_error submission that overflows a stack buffer runs "fine" here.
JUDGE_HARDENING = ["-fstack-protector-strong", "-D_FORTIFY_SOURCE=2"]
FLAGS = {
    Language.C: ["-O2", "-std=gnu17", *JUDGE_HARDENING],
    Language.CPP: ["-O2", "-std=gnu++17", *JUDGE_HARDENING],
}
HEADER_ENDINGS = (".h", ".hpp", ".hh", ".hxx", ".h++", ".inc", ".ipp", ".tcc")
_LOCAL_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"[^\n]*$', re.M)


@dataclass
class Unreadable:
    """A program the sandbox cannot run, with the reason and (when known) its language."""

    reason: str
    language: str = ""


PYTHON_CHOICES = ("auto", "pypy", "cpython")


def python3_runtime() -> tuple[Language, str]:
    """The language a package's Python 3 programs run as, and why: PyPy, as problemtools
    runs the format's Python 3, where ``pypy3`` is installed (``TCZOO_KATTIS_PYTHON=auto``,
    the default), else CPython, said so; ``pypy`` or ``cpython`` force one."""
    from tczoo.sandbox.languages import installed

    choice = os.environ.get("TCZOO_KATTIS_PYTHON", "auto").strip().lower() or "auto"
    if choice not in PYTHON_CHOICES:
        raise UserError(f"TCZOO_KATTIS_PYTHON={choice[:40]!r}: one of {', '.join(PYTHON_CHOICES)}")
    if choice == "pypy":
        return Language.PYPY, "PyPy (TCZOO_KATTIS_PYTHON=pypy)"
    if choice == "cpython":
        return Language.PYTHON, "CPython (TCZOO_KATTIS_PYTHON=cpython; the format's Python 3 is PyPy)"
    if installed(Language.PYPY):
        return Language.PYPY, "PyPy, as problemtools runs the format's Python 3"
    return Language.PYTHON, "CPython: pypy3 is not installed here (the format's Python 3 is PyPy)"


def _ending(path: Path) -> str:
    suffix = path.suffix
    return suffix if suffix == ".C" else suffix.lower()


def language_of(path: Path) -> tuple[str, Language | None] | None:
    """(language name, sandbox language or None) for a file, or None for no known ending."""
    return ENDINGS.get(_ending(path))


def _read(path: Path, tree: Tree) -> str | Unreadable:
    try:
        data = tree.read_bytes(path, MAX_SOURCE_BYTES)
    except OverBudget:
        raise
    except Refused as exc:
        return Unreadable(str(exc))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


PYTHON2_ONLY = {"raw_input", "xrange", "unichr", "basestring", "unicode", "long", "execfile", "cmp",
                "reduce", "file"}


def python2_evidence(code: str) -> str:
    """Why a ``.py`` file is Python 2, or "" when it reads as Python 3.

    The format decides by the shebang line; packages exported from DOMjudge often
    have none, so the code itself is asked: Python 3 cannot parse it, or it calls a
    builtin only Python 2 has (``raw_input``, ``xrange`` ...) without defining it.
    """
    first = code.split("\n", 1)[0]
    if re.match(r"#!.*python2", first):
        return "by its shebang line"
    if re.match(r"#!.*python3", first):
        return ""
    import ast

    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return f"Python 3 cannot parse it: {exc.msg} at line {exc.lineno}"
    except (ValueError, RecursionError, MemoryError):
        return ""
    defined = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    defined |= {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    defined |= {a.asname or a.name for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                for a in n.names}
    used = sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
                  & PYTHON2_ONLY - defined)
    return f"it calls {', '.join(used)}" if used else ""


def inline_local_headers(code: str, directory: Path, tree: Tree, seen: set[str] | None = None,
                         depth: int = 0) -> str:
    """Replace ``#include "x"`` of files in ``directory`` by their text, each file once."""
    seen = set() if seen is None else seen
    if depth > 16:
        return code
    home = tree.real(directory)

    def replace(m: re.Match) -> str:
        candidate = directory / m.group(1)
        target = tree.real(candidate)
        if not tree.is_file(candidate) or not target.startswith(home.rstrip("/") + "/"):
            return m.group(0)  # a system header, or outside the program: the compiler's business
        if target in seen:
            return f"/* {m.group(1)} already included */"
        seen.add(target)
        text = _read(candidate, tree)
        if isinstance(text, Unreadable):
            return m.group(0)
        text = re.sub(r"^[ \t]*#[ \t]*pragma[ \t]+once[^\n]*$", "", text, flags=re.M)
        body = inline_local_headers(text, candidate.parent, tree, seen, depth + 1)
        return f'#line 1 "{m.group(1)}"\n{body}\n#line {code.count(chr(10), 0, m.start()) + 2} "main"'

    return _LOCAL_INCLUDE.sub(replace, code)


def read_program(path: Path, name: str, tree: Tree) -> Program | Unreadable:
    """One file or one directory program as a :class:`Program` named ``name``."""
    kind = tree.kind(path)
    if kind == "dir":
        return _read_directory(path, name, tree)
    if kind != "file":
        return Unreadable(tree.why_not(path, kind))
    known = language_of(path)
    if known is None:
        return Unreadable(f"unknown language (file ending {path.suffix or 'none'!r})")
    lang_name, language = known
    if language is None:
        return Unreadable(f"{lang_name} is not a language the sandbox runs", lang_name)
    code = _read(path, tree)
    if isinstance(code, Unreadable):
        return code
    meta = {"language": lang_name}
    language, lang_name, why = _python_version(path, code, language, lang_name)
    if why:
        meta.update(language=lang_name, python2=why)
    if language is Language.PYTHON or language is Language.PYPY:
        language, meta["runtime"] = python3_runtime()
    if language in (Language.C, Language.CPP):
        code = inline_local_headers(code, path.parent, tree)
    return Program(code=code, language=language, name=name, flags=FLAGS.get(language), meta=meta,
                   file=path.name)


def _python_version(path: Path, code: str, language: Language, lang_name: str) -> tuple[Language, str, str]:
    """A ``.py`` file that is Python 2 (its shebang, or its code: ``python2_evidence``) is
    Python 2; (language, its name, the evidence or "")."""
    if language is Language.PYTHON and _ending(path) == ".py":
        why = python2_evidence(code)
        if why:
            return Language.PYTHON2, "Python 2", why
    return language, lang_name, ""


MAX_PROGRAM_FILES = 64  # files of one directory program


def _read_directory(path: Path, name: str, tree: Tree) -> Program | Unreadable:
    files, _ = tree.walk_files(path)
    if tree.kind(path / "build") != "missing" or tree.kind(path / "run") != "missing":
        return Unreadable("a program with its own build/run scripts is not run by tczoo")
    sources = [p for p in files if language_of(p) is not None]
    if not sources:
        return Unreadable("no source file of a known language in the directory")
    names = {language_of(p)[0] for p in sources}
    if len(names) > 1:
        return Unreadable(f"mixes languages ({', '.join(sorted(names))})")
    lang_name, language = language_of(sources[0])
    if language is None:
        return Unreadable(f"{lang_name} is not a language the sandbox runs", lang_name)
    if len(sources) == 1 and language in (Language.C, Language.CPP):
        return read_program(sources[0], name, tree)  # one unit, its headers inlined
    if len(files) > MAX_PROGRAM_FILES:
        return Unreadable(f"{len(files)} files: at most {MAX_PROGRAM_FILES} in one program")
    # The format's main file: the only source, else main.*, else the first by name.
    mains = [p for p in sources if p.stem.lower() == "main" and p.parent == path]
    main = sources[0] if len(sources) == 1 else (mains[0] if mains else sorted(sources)[0])
    texts: dict[str, str] = {}
    for f in files:
        text = _read(f, tree)
        if isinstance(text, Unreadable):
            return Unreadable(f"{f.relative_to(path)}: {text.reason}", lang_name)
        texts[str(f.relative_to(path))] = text
    rel = str(main.relative_to(path))
    code = texts.pop(rel)
    meta = {"language": lang_name, "folder": True}
    language, lang_name, why = _python_version(main, code, language, lang_name)
    if why:
        meta.update(language=lang_name, python2=why)
    if language is Language.PYTHON or language is Language.PYPY:
        language, meta["runtime"] = python3_runtime()
    return Program(code=code, language=language, name=name, flags=FLAGS.get(language), meta=meta,
                   file=rel, files=texts or None)

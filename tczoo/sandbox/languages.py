"""The languages the sandbox builds and runs, in one place: the tool each needs, the
judges' usual flags, how a program is started, what its runtime needs, and whether this
machine has it (``tczoo doctor``).

Flags follow the Kattis format's reference tool (problemtools' ``languages.yaml``), which
the format's packages are judged with; where we differ it is said beside the value:

| language | build (problemtools) | run |
|---|---|---|
| Kotlin | ``kotlinc -d`` (we: ``-include-runtime`` into one jar) | ``java ... {Mainclass}Kt`` |
| Haskell | ``ghc -O2 -ferror-spans -threaded -rtsopts`` | ``prog +RTS -M{memlim}m -K8m -RTS`` |
| Rust | ``rustc -C opt-level=3 -C target-cpu=native --crate-type bin --edition 2021`` (we: no ``target-cpu=native``: a compile cache may serve another machine) | the binary |
| Go | ``gccgo -g`` (we: Debian's ``go build``, as DOMjudge builds Go) | the binary |
| PyPy | ``pypy3 -m py_compile`` | ``pypy3 {mainfile}`` |
| Python 2 | ``pypy -m py_compile`` | ``pypy {mainfile}`` (we: PyPy 2, else CPython 2) |

Tools are looked up on the jail's ``PATH`` only (``JAIL_PATH``): a compiler under ``~/.cargo``
is not one the jail can run. A language whose tool is missing cannot run here; the sandbox
says so (``CompileResult.missing``) and every report counts the program as "cannot run:
Kotlin is not installed ...".
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import zipfile
from dataclasses import dataclass

from tczoo.schema import Language

JAIL_PATH = "/usr/local/bin:/usr/bin:/bin"  # what the jail's PATH reaches (all of it below /usr)


@dataclass(frozen=True)
class Spec:
    name: str  # as people call it
    tools: tuple[str, ...]  # the compiler or interpreter, first found wins
    package: str  # the Debian package that provides it
    compiled: bool = True
    # processes and threads the runtime starts besides the program's own (the JVM's, Go's
    # and GHC's threaded runtime): added to a run's process allowance, as for Java
    runtime_threads: int = 0
    compile_time_factor: float = 1.0  # x CompileLimits.time_s (kotlinc is a JVM compiling)


SPECS: dict[Language, Spec] = {
    Language.C: Spec("C", ("gcc",), "gcc"),
    Language.CPP: Spec("C++", ("g++",), "g++"),
    Language.JAVA: Spec("Java", ("javac",), "default-jdk-headless", runtime_threads=64),
    Language.PYTHON: Spec("Python 3", ("python3",), "python3", compiled=False),
    Language.KOTLIN: Spec("Kotlin", ("kotlinc",), "kotlin", runtime_threads=64, compile_time_factor=2.0),
    Language.HASKELL: Spec("Haskell", ("ghc",), "ghc", runtime_threads=16),
    Language.RUST: Spec("Rust", ("rustc",), "rustc"),
    Language.GO: Spec("Go", ("go",), "golang-go", runtime_threads=64),
    Language.PYPY: Spec("PyPy", ("pypy3",), "pypy3", compiled=False),
    Language.PYTHON2: Spec("Python 2", ("pypy", "python2", "python2.7"), "", compiled=False),
}

# The judges' flags (problemtools' languages.yaml; see the module docstring).
DEFAULT_FLAGS: dict[Language, list[str]] = {
    Language.CPP: ["-O2", "-std=c++17"],
    Language.C: ["-O2", "-std=gnu17"],
    Language.HASKELL: ["-O2", "-ferror-spans", "-threaded", "-rtsopts"],
    Language.RUST: ["-C", "opt-level=3", "--crate-type", "bin", "--edition", "2021"],
    Language.GO: [],
    Language.KOTLIN: [],
}
HASKELL_STACK = "-K8m"  # problemtools' run line: +RTS -M{memlim}m -K8m -RTS
# Source endings compiled together in a program of several files (headers and other
# files travel beside them).
SOURCE_ENDINGS: dict[Language, tuple[str, ...]] = {
    Language.C: (".c",), Language.CPP: (".cc", ".cpp", ".cxx", ".c++", ".C"), Language.JAVA: (".java",),
    Language.KOTLIN: (".kt",), Language.HASKELL: (".hs",), Language.GO: (".go",),
}


def tool(language: Language) -> str | None:
    """The real path of the language's compiler or interpreter on the jail's PATH, or None."""
    for name in SPECS[language].tools:
        found = shutil.which(name, path=JAIL_PATH)
        if found:
            real = os.path.realpath(found)
            # The jail sees /usr (and the merged /bin, /lib links) only.
            return real if real.startswith("/usr/") else found
    return None


def installed(language: Language) -> bool:
    if language is Language.PYTHON:
        return True  # the sandbox's own interpreter (jail.probe)
    return tool(language) is not None


def install_hint(language: Language) -> str:
    spec = SPECS[language]
    if not spec.package:  # Python 2: Debian 12 has neither PyPy 2 nor CPython 2
        return "Debian 12 ships no Python 2: a PyPy 2 or CPython 2 of your own on the PATH"
    return f"apt-get install {spec.package}; scripts/install.sh does"


def missing_message(language: Language) -> str:
    spec = SPECS[language]
    return f"{spec.name} is not installed (no {' or '.join(spec.tools)} on {JAIL_PATH}; {install_hint(language)})"


@functools.lru_cache(maxsize=None)
def version(language: Language) -> str:
    """One line naming the tool's version ("missing" when it is not here). Cached per process:
    it is part of every compile cache key."""
    exe = tool(language)
    if exe is None:
        return "missing"
    if language is Language.KOTLIN:
        # kotlinc -version starts a JVM (a second or more): the compiler jar's manifest says it
        jar = os.path.join(os.path.dirname(os.path.dirname(exe)), "lib", "kotlin-compiler.jar")
        try:
            with zipfile.ZipFile(jar) as z:
                manifest = z.read("META-INF/MANIFEST.MF").decode(errors="replace")
            m = re.search(r"Implementation-Version:\s*(\S+)", manifest)
            if m:
                return f"kotlinc {m.group(1)}"
        except (OSError, KeyError, zipfile.BadZipFile):
            pass
    args = {Language.GO: ["version"], Language.JAVA: ["-version"], Language.KOTLIN: ["-version"]}.get(
        language, ["--version"])
    try:
        done = subprocess.run([exe, *args], capture_output=True, text=True, timeout=60,
                              env={"PATH": JAIL_PATH, "HOME": "/nonexistent", "LANG": "C.UTF-8"})
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    lines = [line.strip() for line in (done.stdout + "\n" + done.stderr).splitlines() if line.strip()]
    # PyPy prints "Python 3.9.16 (7.3.11+dfsg...)" then "[PyPy 7.3.11 ...]"
    return " ".join(lines[:2]) if language in (Language.PYPY, Language.PYTHON2) else (lines[0] if lines else "unknown")


def report() -> dict[str, str]:
    """Every language: its tool's version, or what to install (``tczoo doctor``)."""
    out = {}
    for language, spec in SPECS.items():
        if language is Language.PYTHON:
            continue  # the doctor reports the sandbox's interpreter itself
        out[spec.name] = version(language) if installed(language) else f"missing ({install_hint(language)})"
    return out


def kotlin_main_class(file: str) -> str:
    """The class a Kotlin file's top-level ``main`` lives in: ``solve.kt`` -> ``SolveKt``
    (problemtools runs ``{Mainclass}Kt``)."""
    stem = os.path.basename(file).rsplit(".", 1)[0]
    stem = re.sub(r"[^0-9A-Za-z_$]", "_", stem) or "Main"
    return stem[:1].upper() + stem[1:] + "Kt"

"""Compile once, ever: a content-addressed cache of build results.

Key = sha256(language, flags, compiler version, source). An entry is a directory
``<cache>/<key[:2]>/<key>/`` holding ``result.json`` and, on success, ``prog`` (C/C++),
``prog.jar`` (Java) or ``main.py`` (Python). Entries are published with an atomic
rename, so concurrent compiles of the same program (threads or processes) are
harmless. Compile errors are cached too (the compiler is deterministic). A compile
that ran out of time may have met a loaded machine: it is remembered for the
Sandbox's life (one program costs at most one compile timeout per Sandbox, however
many tests it is judged on) and in a ``<key>.timeout`` marker, which allows one more
attempt on this machine, ever; after the second timeout the outcome is final.

The compiler's output is read as it comes and only its head is kept: a 1 KB source
can make g++ print gigabytes of errors.

C++ that includes ``<bits/stdc++.h>`` (nearly every contest program) with the default
flags compiles against a precompiled header: g++ spends ~1 s of a ~1.5 s compile
parsing that header, and reading it precompiled takes ~0.1 s. The header is built
once per compiler version and flags, from the system's own ``bits/stdc++.h``, into
``$TCZOO_CACHE/pch/`` (~100 MB, shared by every compile cache), and bound read-only
into the compile jail; the binaries
are byte for byte the ones a plain compile makes (so the cache key does not change),
and g++ falls back to the header itself wherever the precompiled one does not apply.
``TCZOO_PCH=0`` turns it off.

Compilers read untrusted source (``#include "/etc/shadow"`` would leak into the CE
message), so they run jailed like programs: a fresh bwrap as an unprivileged uid,
with CPU/memory/file-size limits; a per-compile jail costs ~5 ms against ~300+ ms of
g++, and happens once per program.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import select
import shlex
import shutil
import subprocess
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tczoo.schema import Language, Program
from tczoo.sandbox import jail, languages
from tczoo.sandbox.cgroups import JobGroup
from tczoo.sandbox.languages import DEFAULT_FLAGS, SOURCE_ENDINGS
from tczoo.sandbox.types import CompileResult

# The command each compiled language's compile starts in the jail (found on its PATH).
COMPILERS = {Language.CPP: "g++", Language.C: "gcc", Language.JAVA: "javac", Language.KOTLIN: "kotlinc",
             Language.HASKELL: "ghc", Language.RUST: "rustc", Language.GO: "go"}
JVM_COMPILED = (Language.JAVA, Language.KOTLIN)  # built and run by a JVM: no address-space limit
KOTLINC_OPTS = ["-J-Xmx1024m", "-J-XX:+UseSerialGC", "-J-XX:-UsePerfData"]
# What the compilers read from their environment, relative to the build folder (Go's build
# cache and GOPATH live and die with the compile; no module lookups, no C through cgo)
COMPILE_ENV = {
    Language.GO: {"HOME": "{build}", "GOCACHE": "{build}/.cache/go-build", "GOPATH": "{build}/.go",
                  "GO111MODULE": "off", "CGO_ENABLED": "0", "GOFLAGS": "", "GOTOOLCHAIN": "local"},
    Language.HASKELL: {"HOME": "{build}"},
    Language.KOTLIN: {"HOME": "{build}"},
    Language.RUST: {"HOME": "{build}"},
}
# Folders outside /usr a compiler reads, bound read-only into its jail (Debian's GHC keeps
# its package database in /var/lib/ghc, linked from /usr/lib/ghc)
COMPILE_BINDS = {Language.HASKELL: ("/var/lib/ghc",)}
# A file name a program's files may use (the Kattis format's rule, and folders of them)
_FILE_PART = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.+-]{0,254}$")
PCH_HEADER = "bits/stdc++.h"  # the header precompiled (see the module docstring)
PCH_JAIL_DIR = "/pch"  # where the compile jail sees it
PCH_TIMEOUT_S = 300  # building it: ~4 s of CPU
# The JVM reserves far more address space than it uses: javac runs with a bounded heap,
# and (like the programs) is held to memory by the cgroup rather than RLIMIT_AS.
JAVAC_OPTS = ["-J-Xmx512m", "-J-XX:+UseSerialGC", "-J-XX:TieredStopAtLevel=1", "-J-XX:-UsePerfData",
              "-encoding", "UTF-8"]


def java_tool(name: str) -> str | None:
    """Real path of a JDK tool (the /usr/bin alternatives symlinks point outside /usr)."""
    exe = shutil.which(name)
    return os.path.realpath(exe) if exe else None


def java_main_class(code: str) -> str:
    """The class javac must name the file after: the public one, else the one with main."""
    m = re.search(r"public\s+(?:final\s+|abstract\s+)*class\s+([A-Za-z_$][\w$]*)", code)
    if m:
        return m.group(1)
    m = re.search(r"class\s+([A-Za-z_$][\w$]*)[^{]*\{(?:(?!\bclass\b).)*?static\s+void\s+main\s*\(", code, re.S)
    return m.group(1) if m else "Main"
MESSAGE_CAP = 4000  # characters of compiler output kept in a CE message
TIMEOUT_MESSAGE = "compilation time limit exceeded"
JOIN_FAILED = "tczoo: cannot join the compile cgroup"
TIMEOUT_ATTEMPTS = 2  # compiles of one program that may time out, on this machine, ever
OUTPUT_KEEP = 4 * MESSAGE_CAP  # bytes of compiler output read into memory; the rest is counted


@dataclass
class CompileLimits:
    time_s: float = 30.0  # CPU seconds (a wall guard of twice that applies too)
    memory_mb: int = 2048  # address space of the compiler
    output_mb: int = 256  # largest file it may write (huge initialised arrays)


@functools.lru_cache(maxsize=None)
def compiler_version(lang: Language) -> str:
    if lang is Language.PYTHON:
        return jail.probe().python
    if lang not in (Language.C, Language.CPP, Language.JAVA):
        return languages.version(lang)
    exe = shutil.which(COMPILERS.get(lang, "")) if lang in COMPILERS else None
    if not exe:
        return "missing"
    done = subprocess.run([exe, "--version"], capture_output=True, text=True)
    out = done.stdout or done.stderr
    return out.splitlines()[0] if out else "unknown"


def main_file(program: Program) -> str:
    """The name the program's main file is compiled (or run) under: its own (``Program.file``)
    or the sandbox's (``main.cpp``; a Java program's public class; ``main.py``)."""
    if program.file:
        return program.file
    if program.language is Language.JAVA:
        return f"{java_main_class(program.code)}.java"
    return f"main{program.language.suffix}"


def program_files(program: Program) -> dict[str, str]:
    """Every file of the program by its path relative to the build (or run) folder, the
    main file first. Raises ``ValueError`` for a path no judge would take (absolute, with
    ``..``, a part that is not a plain file name)."""
    files = {main_file(program): program.code}
    for path, text in (program.files or {}).items():
        files.setdefault(path, text)
    for path in files:
        parts = path.split("/")
        if not all(_FILE_PART.match(part) and part not in (".", "..") for part in parts) or len(parts) > 8:
            raise ValueError(f"file name {path[:80]!r} is not one a judge takes (letters, digits, _ . + -)")
    return files


def compiler_message(head: bytes, total: int, cap: int = MESSAGE_CAP) -> str:
    """The first ``cap`` characters of the compiler's output, and how much more there was."""
    text = head.decode(errors="replace")
    if len(text) <= cap and total == len(head):
        return text
    text = text[:cap]
    return text + f"\n... [{total - len(text.encode(errors='replace'))} more bytes of compiler output]"


class Compiler:
    def __init__(self, cache_dir: Path, level: str, caps: jail.Capabilities,
                 limits: CompileLimits | None = None, job_group: Callable[[], JobGroup] | None = None):
        self.cache_dir = cache_dir
        self.level = level
        self.caps = caps
        self.limits = limits or CompileLimits()
        self._job_group = job_group  # a cgroup per compile, where cgroups are writable
        self._locks: dict[str, threading.Lock] = {}
        # (language, flags, code) -> (key, published result): a batch re-runs the same
        # program thousands of times; skip hashing and reading result.json each time.
        self._memo: dict[tuple, tuple[str, CompileResult]] = {}
        self._locks_guard = threading.Lock()
        self._pch_unavailable: set[str] = set()  # keys whose header could not be built here
        self._pch_staged: dict[Path, Path] = {}  # precompiled header -> where compiles see it
        cache_dir.mkdir(parents=True, exist_ok=True)
        # Slots' uids open binaries below it by name (they need to search, not list).
        for d in (cache_dir, *(p for p in cache_dir.glob("??") if p.is_dir())):
            os.chmod(d, 0o711)
        try:  # built now (once per version and machine), not inside the first compile's time
            self._launcher()
        except RuntimeError:  # no gcc: the first compile says so
            pass

    def key(self, program: Program) -> str:
        memo = self._memo.get(self._memo_key(program))
        if memo is not None:
            return memo[0]
        flags = program.flags if program.flags is not None else DEFAULT_FLAGS.get(program.language, [])
        h = hashlib.sha256()
        for part in (program.language.value, "\x1f".join(flags),
                     compiler_version(program.language), program.code):
            h.update(part.encode())
            h.update(b"\0")
        if program.language not in (Language.C, Language.CPP, Language.JAVA, Language.PYTHON):
            # how the newer languages are built (environment, binds, options): a change is a new build
            h.update(repr((COMPILE_ENV.get(program.language), COMPILE_BINDS.get(program.language),
                           KOTLINC_OPTS if program.language is Language.KOTLIN else None)).encode() + b"\0")
        if program.file is not None or program.files:  # (a program without file names keeps its key)
            h.update(f"file:{program.file or ''}\0".encode())
            for path, text in sorted((program.files or {}).items()):
                h.update(path.encode() + b"\0" + text.encode() + b"\0")
        return h.hexdigest()

    def entry(self, key: str) -> Path:
        return self.cache_dir / key[:2] / key

    def artifact(self, program: Program) -> str:
        """Path of the runnable file relative to the cache root."""
        key = self.key(program)
        if program.language.python:
            name = "main.py"
        elif program.language in JVM_COMPILED:
            name = "prog.jar"
        else:
            name = "prog"
        return f"{key[:2]}/{key}/{name}"

    @staticmethod
    def _memo_key(program: Program) -> tuple:
        return (program.language, tuple(program.flags) if program.flags is not None else None,
                program.code, program.file, tuple(sorted(program.files.items())) if program.files else None)

    def known(self, program: Program) -> CompileResult | None:
        """The outcome if it is remembered or in the cache; never compiles."""
        mk = self._memo_key(program)
        memo = self._memo.get(mk)
        if memo is not None:
            return memo[1]
        key = self.key(program)
        cached = self._load(self.entry(key))
        if cached is not None:
            self._memo[mk] = (key, cached)
        return cached

    def outcome(self, program: Program) -> CompileResult:
        """``compile`` for the per-run path: a remembered result is shared, not copied
        (callers must not modify it)."""
        memo = self._memo.get(self._memo_key(program))
        return memo[1] if memo is not None else self.compile(program)

    def compile(self, program: Program) -> CompileResult:
        mk = self._memo_key(program)
        memo = self._memo.get(mk)
        if memo is not None:
            return memo[1].model_copy()
        key = self.key(program)
        entry = self.entry(key)
        cached = self._load(entry)
        if cached is not None:
            self._memo[mk] = (key, cached)
            return cached
        with self._lock_for(key):
            memo = self._memo.get(mk)  # another thread compiled it (or ran out of time)
            if memo is not None:
                return memo[1].model_copy()
            cached = self._load(entry)
            if cached is not None:
                return cached
            timeouts = self._timeouts(entry)
            if timeouts >= TIMEOUT_ATTEMPTS:
                result = CompileResult(ok=False, message=TIMEOUT_MESSAGE, cached=True)
                self._memo[mk] = (key, result)
                return result.model_copy()
            start = time.monotonic()
            result, files, keep = self._build(program)
            result.seconds = time.monotonic() - start
            if keep:
                self._publish(entry, result, files)
            elif result.message == TIMEOUT_MESSAGE:
                # One program costs at most one compile timeout per Sandbox; across
                # Sandboxes it is retried once (the first may have met a loaded machine).
                self._memo[mk] = (key, result.model_copy(update={"cached": True}))
                self._record_timeout(entry, timeouts + 1)
            return result

    # ------------------------------------------------------------------ internals

    def _lock_for(self, key: str) -> threading.Lock:
        with self._locks_guard:
            return self._locks.setdefault(key, threading.Lock())

    @staticmethod
    def _timeouts(entry: Path) -> int:
        try:
            return int(json.loads(entry.with_name(entry.name + ".timeout").read_text())["attempts"])
        except (OSError, ValueError, KeyError, TypeError):
            return 0

    @staticmethod
    def _record_timeout(entry: Path, attempts: int) -> None:
        entry.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(entry.parent, 0o711)
        marker = entry.with_name(entry.name + ".timeout")
        tmp = marker.with_name(f".tmp-{os.getpid()}-{threading.get_ident()}")
        tmp.write_text(json.dumps({"attempts": attempts}))
        os.chmod(tmp, 0o600)  # tczoo's own: the sandbox's uids reach only the programs
        os.replace(tmp, marker)

    @staticmethod
    def _load(entry: Path) -> CompileResult | None:
        try:
            data = json.loads((entry / "result.json").read_text())
        except (OSError, ValueError):
            return None
        return CompileResult(ok=data["ok"], message=data["message"], cached=True,
                             seconds=data.get("seconds", 0.0))

    def _publish(self, entry: Path, result: CompileResult, files: dict[str, bytes | str]) -> None:
        entry.parent.mkdir(parents=True, exist_ok=True)
        os.chmod(entry.parent, 0o711)
        tmp = Path(tempfile.mkdtemp(dir=entry.parent, prefix=".tmp-"))
        for name, src in files.items():
            dst = tmp / name
            if isinstance(src, bytes):  # an executable
                dst.write_bytes(src)
                os.chmod(dst, 0o755)
            else:
                dst.write_text(src)
                os.chmod(dst, 0o644)
        (tmp / "result.json").write_text(json.dumps(
            {"ok": result.ok, "message": result.message, "seconds": result.seconds}))
        os.chmod(tmp / "result.json", 0o600)  # tczoo's own: the sandbox's uids reach only the programs
        os.chmod(tmp, 0o711)
        try:
            os.rename(tmp, entry)
        except OSError:  # someone else published it first
            shutil.rmtree(tmp, ignore_errors=True)

    def _build(self, program: Program) -> tuple[CompileResult, dict, bool]:
        lang = program.language
        if lang.python:
            if not languages.installed(lang):
                return CompileResult(ok=False, message=languages.missing_message(lang), infrastructure=True,
                                     missing=True), {}, False
            # Nothing to build; the source goes into the cache so jails can see it (a program
            # with file names gets its files in the run folder instead: Sandbox._make_request).
            return CompileResult(ok=True), {"main.py": program.code}, True
        if lang not in COMPILERS:
            return CompileResult(ok=False, message=f"language {lang.value} is not supported "
                                 "by the tczoo sandbox", infrastructure=True), {}, False
        if lang not in (Language.C, Language.CPP) and not languages.installed(lang):
            # (C and C++ go on to the jail: a missing gcc is the launcher's to report)
            return CompileResult(ok=False, message=languages.missing_message(lang), infrastructure=True,
                                 missing=True), {}, False
        flags = program.flags if program.flags is not None else DEFAULT_FLAGS.get(lang, [])
        with tempfile.TemporaryDirectory(prefix="tczoo-build-") as tmp:
            work = Path(tmp)
            main_class = ""
            if lang is Language.JAVA:
                main_class = (program.file.rsplit("/", 1)[-1][:-len(".java")] if program.file
                              and program.file.endswith(".java") else java_main_class(program.code))
            if len(f"{main_class}.java".encode()) > 255:
                # javac needs the public class in a file of its name: no file system takes
                # this one. The program's CE (it used to raise here: an SE in a batch).
                return CompileResult(ok=False, message=f"class name too long for a file name "
                                     f"({len(main_class)} characters): {main_class[:60]}..."), {}, True
            try:
                sources = program_files(program)
            except ValueError as exc:  # the program's own naming: its CE, as a judge's build would fail
                return CompileResult(ok=False, message=str(exc)), {}, True
            uid = jail.UID_BASE + jail.COMPILE_UID_OFFSET
            owned = self.level in ("full", "uid")
            for path, text in sources.items():
                dst = work / path
                for parent in reversed(dst.relative_to(work).parents[:-1]):
                    (work / parent).mkdir(exist_ok=True)
                    if owned:
                        os.chown(work / parent, uid, uid)
                dst.write_text(text)
                if owned:
                    os.chown(dst, uid, uid)
            if owned:
                os.chown(work, uid, uid)
            main = next(iter(sources))
            src = work / main
            units = [path for path in sources if path == main or path.endswith(SOURCE_ENDINGS.get(lang, ("\0",)))]
            build = "/build" if self.level in ("full", "bwrap") else str(work)
            env = {k: v.format(build=build) for k, v in COMPILE_ENV.get(lang, {}).items()}
            pch = None
            if lang in JVM_COMPILED:
                compiler, jar = languages.tool(lang), java_tool("jar")
                if not (compiler and jar):
                    return CompileResult(ok=False, message="sandbox error: no JDK (javac, jar)",
                                         infrastructure=True), {}, False
                quoted = " ".join(shlex.quote(u) for u in units)
                if lang is Language.JAVA:
                    argv = ["/bin/sh", "-c", f"{compiler} {' '.join([*JAVAC_OPTS, *flags])} -d classes {quoted} && "
                            f"{jar} --create --file prog.jar --main-class {main_class} -C classes ."]
                else:  # Kotlin: its runtime in the jar, the main file's facade class its entry point
                    entry = languages.kotlin_main_class(main)
                    argv = ["/bin/sh", "-c", f"{compiler} {' '.join([*KOTLINC_OPTS, *flags])} -include-runtime "
                            f"-d prog.jar {quoted} && {jar} --update --file prog.jar --main-class {entry}"]
                artifact = "prog.jar"
            elif lang is Language.HASKELL:
                argv = [COMPILERS[lang], *flags, "-tmpdir", build, "-o", "prog", *units]
                artifact = "prog"
            elif lang is Language.RUST:
                argv = [COMPILERS[lang], *flags, main, "-o", "prog"]  # rustc finds the modules itself
                artifact = "prog"
            elif lang is Language.GO:
                argv = [COMPILERS[lang], "build", *flags, "-o", "prog", *units]
                artifact = "prog"
            else:
                tail = ["-lm"] if lang is Language.C else []
                if lang is Language.CPP and program.flags is None and PCH_HEADER in program.code:
                    pch = self._staged(self._precompiled_header(flags))
                include = [] if pch is None else [f"-I{PCH_JAIL_DIR if self.level in ('full', 'bwrap') else pch}"]
                argv = [COMPILERS[lang], *flags, *include, "-o", "prog", *units, *tail]
                artifact = "prog"
            rc, output, timed_out, failed = self._run_compiler(
                argv, work, uid, java=lang in JVM_COMPILED, pch=pch, env=env,
                time_factor=languages.SPECS[lang].compile_time_factor, binds=COMPILE_BINDS.get(lang, ()))
            if failed:
                # Our jail failed, not the program (the launcher's status pipe says so, not
                # the compiler's output, which the source shapes): a sandbox error, never cached.
                return CompileResult(ok=False, message=f"sandbox error: {failed}: {output}"[:MESSAGE_CAP],
                                     infrastructure=True), {}, False
            if timed_out:
                return CompileResult(ok=False, message=TIMEOUT_MESSAGE), {}, False
            prog = work / artifact
            if (rc != 0 or not prog.exists()) and not src.exists():
                # the build folder went away under the compiler (something cleaned the
                # temporary directory): nothing is known of the program, and nothing cached
                return CompileResult(ok=False, message="sandbox error: the build folder vanished during the compile",
                                     infrastructure=True), {}, False
            if rc != 0 or not prog.exists():
                msg = output or f"compiler exited with status {rc}"
                return CompileResult(ok=False, message=msg), {}, True
            return CompileResult(ok=True, message=output), {artifact: prog.read_bytes()}, True

    def _staged(self, root: Path | None) -> Path | None:
        """The precompiled header where the compile uid can reach it: a hard link in a
        directory of our own under the temporary directory (the cache may sit below a
        home only its owner can search, ~root; bwrap resolves a bound path as that uid).
        None where no link can be made (another filesystem): then g++ reads the header."""
        if root is None:
            return None
        with self._locks_guard:
            staged = self._pch_staged.get(root)
            if staged is not None:
                return staged
            tmp = Path(tempfile.mkdtemp(prefix="tczoo-pch-"))
            try:
                (tmp / PCH_HEADER).parent.mkdir(parents=True)
                os.link(root / (PCH_HEADER + ".gch"), tmp / (PCH_HEADER + ".gch"))
            except OSError:
                shutil.rmtree(tmp, ignore_errors=True)
                return None
            for d in (tmp, (tmp / PCH_HEADER).parent):
                os.chmod(d, 0o755)
            weakref.finalize(self, shutil.rmtree, str(tmp), True)
            self._pch_staged[root] = tmp
            return tmp

    def _precompiled_header(self, flags: list[str]) -> Path | None:
        """A directory holding ``bits/stdc++.h.gch`` built with ``flags`` by this
        compiler (built now if it is not there), or None where that cannot be."""
        if os.environ.get("TCZOO_PCH", "1") == "0":
            return None
        key = hashlib.sha256(json.dumps([compiler_version(Language.CPP), flags]).encode()).hexdigest()[:16]
        from tczoo.paths import cache_subdir

        # Beside the compile cache, not in it: Sandboxes with compile caches of their own
        # (tests, benchmarks) share one. A link there is refused, never built through.
        root = cache_subdir("pch") / key
        gch = root / (PCH_HEADER + ".gch")
        if gch.is_file():
            return root
        if key in self._pch_unavailable or (root.parent / f"{key}.failed").exists():
            return None
        with self._lock_for(f"pch:{key}"):
            if gch.is_file():
                return root
            root.parent.mkdir(parents=True, exist_ok=True)
            os.chmod(root.parent, 0o711)
            tmp = Path(tempfile.mkdtemp(dir=root.parent, prefix=".tmp-"))
            try:
                # Trusted input (the system's header), so built outside the jail.
                wrapper = tmp / "wrapper.h"
                wrapper.write_text(f"#include <{PCH_HEADER}>\n")
                (tmp / PCH_HEADER).parent.mkdir(parents=True)
                try:
                    done = subprocess.run([COMPILERS[Language.CPP], *flags, "-x", "c++-header", str(wrapper),
                                           "-o", str(tmp / (PCH_HEADER + ".gch"))],
                                          capture_output=True, timeout=PCH_TIMEOUT_S)
                except (OSError, subprocess.TimeoutExpired):  # a loaded machine: not now, maybe later
                    self._pch_unavailable.add(key)
                    return None
                if done.returncode != 0:
                    (root.parent / f"{key}.failed").write_text(done.stderr.decode(errors="replace")[-2000:])
                    return None
                wrapper.unlink()
                for d in (tmp, (tmp / PCH_HEADER).parent):
                    os.chmod(d, 0o755)
                os.chmod(tmp / (PCH_HEADER + ".gch"), 0o644)
                try:
                    os.rename(tmp, root)
                except OSError:  # another process published it first
                    pass
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        return root if gch.is_file() else None

    def _launcher(self) -> Path:
        """The worker binary, for its ``--exec`` mode: built once per version beside the
        compile cache (as the precompiled header is), so that Sandboxes with compile caches
        of their own (tests, benchmarks) do not each build it before their first compile."""
        from tczoo.paths import cache_dir
        from tczoo.sandbox.slots import worker_binary

        try:
            return worker_binary(cache_dir())
        except (OSError, ValueError):  # (CacheRefused: the shared cache is not usable)
            return worker_binary(self.cache_dir)

    def _run_compiler(self, argv: list[str], work: Path, uid: int, *, java: bool = False,
                      pch: Path | None = None, env: dict[str, str] | None = None,
                      time_factor: float = 1.0, binds: tuple[str, ...] = ()) -> tuple[int, str, bool, str]:
        """(exit status, output, timed out, why the sandbox failed it or ""). Whether the
        jail came up and the compiler started is told by the launcher (the worker binary
        in ``--exec`` mode, innermost in the jail) on a pipe the compiler never holds."""
        lim = self.limits
        time_s = lim.time_s * time_factor
        cpu = max(1, int(time_s + 0.999))
        prefix = []
        if self.caps.prlimit:
            # javac's heap is capped by -J-Xmx; an address-space limit would stop the JVM
            # from reserving its (unused) virtual ranges.
            memory = [] if java else [f"--as={lim.memory_mb << 20}"]
            prefix = [self.caps.prlimit, f"--cpu={cpu}:{cpu + 1}",
                      *memory, f"--fsize={lim.output_mb << 20}",
                      "--core=0", "--"]
        cmd: list[str] = []
        pass_fds: tuple[int, ...] = ()
        fd = None
        if self.level in ("full", "uid"):
            cmd += jail.setpriv_prefix(self.caps, uid)
        if self.level in ("full", "bwrap"):
            fd = os.open(work, os.O_RDONLY | os.O_DIRECTORY)
            pass_fds = (fd,)
            cmd += jail.bwrap_base(self.caps, pid1=False)
            if pch is not None:
                cmd += ["--ro-bind", str(pch), PCH_JAIL_DIR]
            for path in binds:
                cmd += ["--ro-bind-try", path, path]
            cmd += ["--bind-fd", str(fd), "/build", *jail.bwrap_seal(), "--chdir", "/build",
                    "--setenv", "TMPDIR", "/tmp"]
            for name, value in (env or {}).items():
                cmd += ["--setenv", name, value]
            cmd += ["--"]
            cwd = None
        else:
            cwd = work
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TMPDIR": str(work), **(env or {})}
        launcher = os.open(self._launcher(), os.O_RDONLY)
        status_r, status_w = os.pipe()
        pass_fds += (launcher, status_w)
        argv = [f"/proc/self/fd/{launcher}", "--exec", str(status_w), *argv]
        group = self._job_group() if self._job_group else None
        if group is not None:
            join = f'echo $$ > "$0" || {{ echo "{JOIN_FAILED}"; exit 125; }}; exec "$@"'
            prefix = ["/bin/sh", "-c", join, str(group.procs_file), *prefix]
        try:
            try:
                proc = subprocess.Popen(prefix + cmd + argv, cwd=cwd, env=env, pass_fds=pass_fds,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        start_new_session=True)
            finally:
                os.close(status_w)
                os.close(launcher)
            try:
                head, total, timed_out = _drain(proc, 2 * time_s + 1)
            finally:
                if proc.poll() is None:
                    os.killpg(proc.pid, 9)  # bwrap --die-with-parent takes the jail with it
                proc.wait()
                if proc.stdout is not None:
                    proc.stdout.close()
            timed_out = timed_out or proc.returncode in (-9, -24)  # SIGKILL / SIGXCPU (RLIMIT_CPU)
            text = compiler_message(head, total)
            if "internal compiler error: Killed" in text or "signal terminated program cc1" in text:
                timed_out = True
            return proc.returncode, text, timed_out, _launch_failure(status_r, argv[3])
        finally:
            os.close(status_r)
            if fd is not None:
                os.close(fd)
            if group is not None:
                group.close()


def _launch_failure(status_fd: int, compiler: str) -> str:
    """What the compile jail's launcher said (every writer is gone): "" when the compiler
    started, else why the sandbox failed the compile."""
    os.set_blocking(status_fd, False)
    said = b""
    try:
        while len(said) < 64:
            chunk = os.read(status_fd, 64)
            if not chunk:
                break
            said += chunk
    except BlockingIOError:  # a writer outlived the jail: what it wrote so far decides
        pass
    if said == b"L":
        return ""
    if said[:2] == b"LE" and len(said) >= 6:
        return f"cannot start the compiler {compiler}: {os.strerror(int.from_bytes(said[2:6], 'little'))}"
    return "the compile jail did not start"


def _drain(proc: subprocess.Popen, wall_s: float) -> tuple[bytes, int, bool]:
    """Read the compiler's output as it comes, keeping the first OUTPUT_KEEP bytes:
    a 1 KB source can make g++ print gigabytes of errors, which must not become
    gigabytes of our memory. Returns (kept head, total bytes, ran past wall_s)."""
    assert proc.stdout is not None, "the compiler runs with stdout=PIPE"
    fd = proc.stdout.fileno()
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    deadline = time.monotonic() + wall_s
    head = bytearray()
    total = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not poller.poll(left * 1000 + 1):
            return bytes(head), total, True
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return bytes(head), total, False
        total += len(chunk)
        if len(head) < OUTPUT_KEEP:
            head += chunk[: OUTPUT_KEEP - len(head)]

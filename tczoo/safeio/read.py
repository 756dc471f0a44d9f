"""Reading files nobody here vouches for: problem packages, benchmark folders, run
directories, recorded answers (docs/security.md).

Two ways in, both bounded and both refusing with one line (``Refused``):

- ``read_file`` / ``iter_lines``: one file, regular only (a FIFO, a device, ``/proc``
  are refused before anything is read, so nothing hangs or streams forever), at most
  ``cap`` bytes, and ``iter_lines`` at most ``max_line`` bytes a line. With
  ``follow=False`` a link is refused too (the files of a run directory: only what
  tczoo wrote there is read).
- ``Tree(root)``: a folder tree such as a Kattis package or a contest of them. Every
  path must resolve inside ``root`` after following links; a link that leaves it is
  refused and never opened. A file is opened from ``root`` down, one component at a
  time, each with ``O_NOFOLLOW`` (``openat``-style), so a link swapped in after the
  check cannot lead outside either. Each file is capped (``ReadLimits.file_bytes``) and
  so is the whole tree (``tree_bytes``, ``entries``); walks never loop (a folder that is
  its own ancestor through a link is not entered) and never go deeper than ``depth``.

The defaults are stated here and can be changed per user in the environment:
``TCZOO_READ_FILE_MB`` (256), ``TCZOO_READ_TREE_MB`` (1024), ``TCZOO_READ_ENTRIES``
(100000), ``TCZOO_READ_DEPTH`` (40) and, for a run directory's records,
``TCZOO_READ_RECORD_MB`` (1024).
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from tczoo.errors import UserError

DEFAULT_FILE_MB = 256  # one file of a package (a test input can be large)
DEFAULT_TREE_MB = 1024  # everything read from one package
DEFAULT_ENTRIES = 100_000  # directory entries looked at in one package
DEFAULT_DEPTH = 40  # folders below the root
DEFAULT_RECORD_MB = 1024  # one line of a run directory's record files
CHUNK = 1 << 20

_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY  # O_NONBLOCK: a FIFO never blocks the open


class Refused(UserError, ValueError):
    """A file or folder that is not read, and why (one line)."""


class OverBudget(Refused):
    """A tree that asked for more than its caps allow: the whole tree is given up."""


def brief(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters: error messages quote what they were
    given, never an unbounded structure."""
    try:
        text = repr(value) if not isinstance(value, (dict, list, tuple, set)) or _small(value) else None
    except RecursionError:
        text = None
    if text is None:
        text = f"<{type(value).__name__} of {len(value)} items>"
    return text if len(text) <= limit else text[: max(limit - 15, 10)] + f"... ({len(text)} chars)"


def _small(value: Any, budget: int = 200) -> bool:
    """True when ``value`` holds few enough items to print (checked without recursion)."""
    stack, seen = [value], 0
    while stack:
        item = stack.pop()
        seen += 1
        if seen > budget:
            return False
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set)):
            stack.extend(item)
    return True


def _env_int(name: str, default: int, unit: int = 1) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default * unit
    try:
        value = int(raw)
    except ValueError:
        raise UserError(f"{name}={raw[:40]!r}: must be a whole number") from None
    if value <= 0:
        raise UserError(f"{name}={value}: must be positive")
    return value * unit


@dataclass(frozen=True)
class ReadLimits:
    """Caps on what one tree may make tczoo read."""

    file_bytes: int = DEFAULT_FILE_MB << 20
    tree_bytes: int = DEFAULT_TREE_MB << 20
    entries: int = DEFAULT_ENTRIES
    depth: int = DEFAULT_DEPTH

    @classmethod
    def from_env(cls) -> "ReadLimits":
        return cls(file_bytes=_env_int("TCZOO_READ_FILE_MB", DEFAULT_FILE_MB, 1 << 20),
                   tree_bytes=_env_int("TCZOO_READ_TREE_MB", DEFAULT_TREE_MB, 1 << 20),
                   entries=_env_int("TCZOO_READ_ENTRIES", DEFAULT_ENTRIES),
                   depth=_env_int("TCZOO_READ_DEPTH", DEFAULT_DEPTH))


def record_bytes() -> int:
    """The longest line of a run directory's record file tczoo reads
    (``TCZOO_READ_RECORD_MB``, 1024 by default: a generation with many large tests)."""
    return _env_int("TCZOO_READ_RECORD_MB", DEFAULT_RECORD_MB, 1 << 20)


def mib(n: int) -> str:
    return f"{n / (1 << 20):g} MiB"


def kind_name(mode: int) -> str:
    """What a file of this mode is, in words ('a FIFO', 'a folder' ...)."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a link"
    return "not a regular file"


def _refuse_mode(name: str, mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise Refused(f"{name}: {kind_name(mode)}, not a regular file: not read")


def read_fd(fd: int, cap: int, name: str) -> bytes:
    """At most ``cap`` bytes of an open regular file; more is refused, not cut."""
    size = os.fstat(fd).st_size
    if size > cap:
        raise Refused(f"{name}: {size} bytes, over the {mib(cap)} a file may have: not read")
    parts, total = [], 0
    while True:
        chunk = os.read(fd, min(CHUNK, cap + 1 - total))
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
        if total > cap:  # it grew while we read
            raise Refused(f"{name}: over the {mib(cap)} a file may have: not read")
    return b"".join(parts)


def open_regular(path: str | os.PathLike[str], *, follow: bool = True, name: str | None = None) -> int:
    """A read descriptor of ``path`` if it is a regular file (with ``follow=False``, not
    a link either); anything else is ``Refused`` before it is opened."""
    name = name or str(path)
    try:
        st = os.stat(path) if follow else os.lstat(path)
    except FileNotFoundError:
        raise Refused(f"{name}: no such file") from None
    except OSError as exc:
        raise Refused(f"{name}: cannot read it ({exc.strerror or exc})") from None
    if not follow and stat.S_ISLNK(st.st_mode):
        raise Refused(f"{name}: a link, not a file tczoo wrote: not read")
    _refuse_mode(name, st.st_mode)
    try:
        fd = os.open(path, _FLAGS | (0 if follow else os.O_NOFOLLOW))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Refused(f"{name}: a link, not a file tczoo wrote: not read") from None
        raise Refused(f"{name}: cannot read it ({exc.strerror or exc})") from None
    try:
        _refuse_mode(name, os.fstat(fd).st_mode)  # what was opened, not what was checked
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_file(path: str | os.PathLike[str], *, cap: int, follow: bool = True, name: str | None = None) -> bytes:
    """The bytes of one regular file, at most ``cap`` of them (``Refused`` otherwise)."""
    fd = open_regular(path, follow=follow, name=name)
    try:
        return read_fd(fd, cap, name or str(path))
    finally:
        os.close(fd)


def iter_lines(path: str | os.PathLike[str], *, max_line: int, follow: bool = True,
               name: str | None = None) -> Iterator[tuple[int, bytes]]:
    """(line number, line without its newline) of a regular file, streamed; a line
    longer than ``max_line`` is ``Refused`` with its number. The last line may lack its
    newline (a torn record: the caller decides)."""
    name = name or str(path)
    fd = open_regular(path, follow=follow, name=name)
    try:
        lineno, pending = 0, bytearray()
        while True:
            chunk = os.read(fd, CHUNK)
            if not chunk:
                break
            start = 0
            while True:
                nl = chunk.find(b"\n", start)
                if nl < 0:
                    pending += chunk[start:]
                    if len(pending) > max_line:
                        raise Refused(f"{name}:{lineno + 1}: a line over {mib(max_line)}: not read")
                    break
                lineno += 1
                if len(pending) + nl - start > max_line:
                    raise Refused(f"{name}:{lineno}: a line over {mib(max_line)}: not read")
                yield lineno, bytes(pending) + chunk[start:nl]
                pending.clear()
                start = nl + 1
        if pending:
            yield lineno + 1, bytes(pending)
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- trees


@dataclass
class Entry:
    """One name in a folder of a tree: ``kind`` is ``file``, ``dir``, ``outside`` (a link
    that leaves the tree), ``loop`` (a link that cannot be resolved), ``missing`` (a
    dangling link) or ``other`` (FIFO, device, socket)."""

    name: str
    path: Path
    kind: str
    real: str = ""


@dataclass
class Tree:
    """A folder tree read under its caps; see the module docstring."""

    root: Path
    limits: ReadLimits = field(default_factory=ReadLimits.from_env)
    label: str = ""
    read_bytes_total: int = 0
    entries_seen: int = 0

    def __post_init__(self) -> None:
        self.root = Path(os.path.realpath(self.root))
        self.label = self.label or self.root.name

    def fresh(self, label: str = "") -> "Tree":
        """The same root with budgets of its own (one per package of a contest)."""
        return Tree(self.root, self.limits, label or self.label)

    # ------------------------------------------------------------------ names

    def rel(self, path: str | os.PathLike[str]) -> str:
        """``path`` as messages name it: below the root, never an absolute host path."""
        try:
            return str(Path(os.path.abspath(path)).relative_to(self.root)) or "."
        except ValueError:
            try:
                return str(Path(os.path.realpath(path)).relative_to(self.root))
            except ValueError:
                return Path(path).name

    def _inside(self, real: str) -> bool:
        root = str(self.root)
        return real == root or real.startswith(root.rstrip(os.sep) + os.sep)

    def kind(self, path: str | os.PathLike[str]) -> str:
        """What ``path`` is, after following links (see ``Entry``); never raises."""
        return self._classify(Path(path))[0]

    def _classify(self, path: Path) -> tuple[str, str]:
        try:
            os.lstat(path)
        except FileNotFoundError:
            return "missing", ""
        except OSError as exc:
            return ("loop" if exc.errno == errno.ELOOP else "other"), ""
        real = os.path.realpath(path)
        if not self._inside(real):
            return "outside", real
        try:
            st = os.stat(real)
        except FileNotFoundError:
            return "missing", real
        except OSError as exc:
            return ("loop" if exc.errno == errno.ELOOP else "other"), real
        if stat.S_ISREG(st.st_mode):
            return "file", real
        if stat.S_ISDIR(st.st_mode):
            return "dir", real
        return "other", real

    def is_file(self, path: str | os.PathLike[str]) -> bool:
        return self.kind(path) == "file"

    def is_dir(self, path: str | os.PathLike[str]) -> bool:
        return self.kind(path) == "dir"

    def why_not(self, path: str | os.PathLike[str], kind: str | None = None) -> str:
        """One line: why ``path`` is not read."""
        kind = kind or self.kind(path)
        name = self.rel(path)
        return {
            "outside": f"{name}: a link that leaves {self.label or 'the package'}: not read",
            "loop": f"{name}: a link loop: not read",
            "missing": f"{name}: no such file (or a dangling link)",
            "other": f"{name}: not a regular file (a FIFO, device or socket): not read",
            "dir": f"{name}: a folder, not a file",
        }.get(kind, f"{name}: not read")

    # ------------------------------------------------------------------ reading

    def read_bytes(self, path: str | os.PathLike[str], cap: int | None = None) -> bytes:
        """The bytes of a regular file inside the tree, at most ``cap`` (default: the
        per-file limit); counted against the tree's budget."""
        cap = min(cap or self.limits.file_bytes, self.limits.file_bytes)
        kind, real = self._classify(Path(path))
        if kind != "file":
            raise Refused(self.why_not(path, kind))
        name = self.rel(path)
        fd = self._open_below(real, name)
        try:
            size = os.fstat(fd).st_size
            if self.read_bytes_total + min(size, cap) > self.limits.tree_bytes:
                raise OverBudget(f"{self.label}: over {mib(self.limits.tree_bytes)} read in all "
                                 "(TCZOO_READ_TREE_MB): not read further")
            data = read_fd(fd, cap, name)
        finally:
            os.close(fd)
        self.read_bytes_total += len(data)
        if self.read_bytes_total > self.limits.tree_bytes:
            raise OverBudget(f"{self.label}: over {mib(self.limits.tree_bytes)} read in all "
                             "(TCZOO_READ_TREE_MB): not read further")
        return data

    def read_text(self, path: str | os.PathLike[str], cap: int | None = None, errors: str = "replace") -> str:
        return self.read_bytes(path, cap).decode("utf-8", errors)

    def _open_below(self, real: str, name: str) -> int:
        """Open ``real`` (a resolved path inside the root) one component at a time from
        the root, never following a link: what was checked is what is opened."""
        rel = os.path.relpath(real, self.root)
        parts = [] if rel == "." else rel.split(os.sep)
        if not parts or ".." in parts:
            raise Refused(f"{name}: not a file inside {self.label}")
        try:
            fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError as exc:
            raise Refused(f"{name}: cannot read it ({exc.strerror or exc})") from None
        try:
            for part in parts[:-1]:
                nxt = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
                os.close(fd)
                fd = nxt
            st = os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
            if stat.S_ISLNK(st.st_mode):
                raise Refused(f"{name}: changed into a link while it was read: not read")
            _refuse_mode(name, st.st_mode)
            out = os.open(parts[-1], _FLAGS | os.O_NOFOLLOW, dir_fd=fd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise Refused(f"{name}: changed into a link while it was read: not read") from None
            raise Refused(f"{name}: cannot read it ({exc.strerror or exc})") from None
        finally:
            os.close(fd)
        try:
            _refuse_mode(name, os.fstat(out).st_mode)
        except BaseException:
            os.close(out)
            raise
        return out

    # ------------------------------------------------------------------ folders

    def entries(self, folder: str | os.PathLike[str]) -> list[Entry]:
        """The names in ``folder`` (sorted), each classified; counted against the
        tree's entry budget. A folder that is not one inside the tree has none."""
        folder = Path(folder)
        kind, real = self._classify(folder)
        if kind != "dir":
            return []
        try:
            names = sorted(os.listdir(real))
        except OSError:
            return []
        self.entries_seen += len(names)
        if self.entries_seen > self.limits.entries:
            raise OverBudget(f"{self.label}: over {self.limits.entries} files and folders (TCZOO_READ_ENTRIES): "
                             "not read further")
        out = []
        for name in names:
            path = folder / name
            k, r = self._classify(path)
            out.append(Entry(name, path, k, r))
        return out

    def real(self, path: str | os.PathLike[str]) -> str:
        return os.path.realpath(path)

    def chain(self, folder: str | os.PathLike[str]) -> tuple[str, ...]:
        """The resolved folders from the root down to ``folder`` (its ancestors in the
        tree, itself included): a walk that starts at ``folder`` treats a link to any
        of them as a loop."""
        folder = Path(os.path.abspath(folder))
        out = [str(self.root)]
        try:
            parts = folder.relative_to(self.root).parts
        except ValueError:
            return (*out, self.real(folder))
        path = self.root
        for part in parts:
            path = path / part
            out.append(self.real(path))
        return tuple(dict.fromkeys(out))

    def loops(self, entry: Entry, ancestors: tuple[str, ...]) -> bool:
        """True when entering ``entry`` (a folder) would go round in a circle."""
        return entry.real in ancestors

    def walk_files(self, folder: str | os.PathLike[str], *, hidden: bool = False) -> tuple[list[Path], list[str]]:
        """Every regular file below ``folder`` inside the tree (sorted by path), and
        one line for each thing not read (links out, loops, FIFOs, too deep)."""
        files: list[Path] = []
        notes: list[str] = []
        start = Path(folder)
        kind, real = self._classify(start)
        if kind != "dir":
            return files, notes

        def visit(path: Path, ancestors: tuple[str, ...]) -> None:
            if len(ancestors) > self.limits.depth:
                notes.append(f"{self.rel(path)}: deeper than {self.limits.depth} folders (TCZOO_READ_DEPTH): not read")
                return
            for entry in self.entries(path):
                if entry.name.startswith(".") and not hidden:
                    continue
                if entry.kind == "file":
                    files.append(entry.path)
                elif entry.kind == "dir":
                    if self.loops(entry, ancestors):
                        notes.append(f"{self.rel(entry.path)}: a link back to a folder above it (a loop): not read")
                    else:
                        visit(entry.path, (*ancestors, entry.real))
                else:
                    notes.append(self.why_not(entry.path, entry.kind))

        visit(start, self.chain(start))
        return sorted(files), notes

"""Writing into folders someone else may have filled: run directories, comparison
directories, the viewer's site, the caches (docs/security.md).

A run directory travels: it is copied from a colleague, unpacked from an archive,
opened with ``tczoo view``. Whatever it holds, tczoo writes only into files it
created itself:

- every file is opened with ``O_NOFOLLOW`` and checked to be a regular file after the
  open (``fstat``): a link, a FIFO or a device where tczoo expects its lock, a record
  file or a torn tail is refused with one line (``UnsafeFile``), never written through;
- a whole file is replaced by writing a fresh temporary file (``O_EXCL``, a random
  name) and renaming it over the old one: the rename replaces a link itself, never its
  target;
- a folder tczoo fills from scratch (the viewer's site) is built in a fresh folder and
  renamed into place;
- what tczoo creates is its owner's only: folders ``0o700``, files ``0o600`` (prompts and
  answers can be proprietary).
"""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Callable, TypeVar

from tczoo.errors import UserError
from tczoo.safeio.read import kind_name

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600

T = TypeVar("T")


class UnsafeFile(UserError, ValueError):
    """A path tczoo would have to write through a link, or into something that is not
    a regular file: refused (one line)."""


def refusal(path: Path | str, mode: int) -> UnsafeFile:
    return UnsafeFile(f"{path} is {kind_name(mode)}, not a file tczoo wrote: tczoo does not write through it "
                      "(remove it, or use another directory)")


def check_regular(path: Path | str, *, missing_ok: bool = True) -> bool:
    """True when ``path`` is a regular file (not a link), False when it does not exist
    (with ``missing_ok``); anything else is refused."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        if missing_ok:
            return False
        raise
    if not stat.S_ISREG(st.st_mode):
        raise refusal(path, st.st_mode)
    return True


def open_file(path: Path | str, flags: int, mode: int = PRIVATE_FILE) -> int:
    """``os.open`` that never follows a link in the last component and returns a
    descriptor of a regular file only (``flags`` as for ``os.open``: ``O_WRONLY |
    O_APPEND | O_CREAT``, ``O_RDWR`` ...). OSErrors other than the refusal (ENOSPC,
    EACCES ...) are raised as they are."""
    check_regular(path)  # a FIFO or a device is refused before it is opened
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY, mode)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR):
            try:
                raise refusal(path, os.lstat(path).st_mode) from None
            except FileNotFoundError:
                pass
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise refusal(path, st.st_mode)
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    return fd


def open_append(path: Path | str) -> int:
    """A descriptor that appends to ``path`` (created ``0o600`` if missing)."""
    return open_file(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)


def open_rw(path: Path | str, *, create: bool = True) -> int:
    """A read-write descriptor of ``path`` (a lock file, a file whose torn tail is cut)."""
    return open_file(path, os.O_RDWR | (os.O_CREAT if create else 0))


def write_atomic(path: Path | str, data: str | bytes, *, mode: int = PRIVATE_FILE) -> None:
    """``data`` into ``path`` whole or not at all: a fresh temporary file beside it
    (random name, ``O_EXCL``), fsynced, renamed over ``path``. A link at ``path`` is
    replaced, its target never touched. OSErrors (ENOSPC ...) are raised as they are,
    and nothing half-written stays."""
    path = Path(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        st = os.lstat(path)
        if stat.S_ISDIR(st.st_mode):
            raise refusal(path, st.st_mode)
    except FileNotFoundError:
        pass
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        view = memoryview(raw)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
        os.close(fd)
        fd = -1
        os.replace(tmp, path)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def private_dir(path: Path | str) -> Path:
    """``path`` as a folder: created owner-only (``0o700``; missing parents as usual)
    when it does not exist; an existing one is left as it is."""
    path = Path(path)
    if not path.is_dir():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.mkdir(path, PRIVATE_DIR)
        except FileExistsError:
            pass
        else:
            os.chmod(path, PRIVATE_DIR)  # whatever the umask
        if not path.is_dir():
            raise FileExistsError(errno.EEXIST, "exists and is not a folder", str(path))
    return path


def subdir(root: Path | str, *parts: str, create: bool = True) -> Path:
    """``root/part/...`` created owner-only where missing; a part that is a link (or
    not a folder) is refused: folders below a directory tczoo writes into are its own."""
    path = Path(root)
    for part in parts:
        if not part or part in (".", "..") or "/" in part:
            raise UnsafeFile(f"{path}: {part!r} is not a folder name tczoo makes")
        path = path / part
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            if not create:
                return path
            try:
                os.mkdir(path, PRIVATE_DIR)
                os.chmod(path, PRIVATE_DIR)
            except FileExistsError:
                pass
            st = os.lstat(path)
        if not stat.S_ISDIR(st.st_mode):
            raise refusal(path, st.st_mode)
    return path


def replace_dir(out: Path | str, fill: Callable[[Path], T], *, marker: str, what: str = "a folder tczoo made") -> T:
    """Build a folder in a fresh one beside ``out`` (``fill(folder)``) and rename it into
    place. ``out`` may be missing, an empty folder, or a folder an earlier build made
    (it holds the regular file ``marker``); anything else — a file, a link, someone
    else's folder — is refused before anything is built. A failed build leaves ``out``
    as it was."""
    out = Path(out)
    try:
        st = os.lstat(out)
    except FileNotFoundError:
        st = None
    if st is not None:
        if stat.S_ISLNK(st.st_mode):
            raise UnsafeFile(f"{out} is a link: tczoo builds only into a folder it made (give another --out)")
        if not stat.S_ISDIR(st.st_mode):
            kind = "a file" if stat.S_ISREG(st.st_mode) else kind_name(st.st_mode)
            raise UnsafeFile(f"{out} is {kind}, not a folder (give another --out)")
        if os.listdir(out):
            try:
                ours = stat.S_ISREG(os.lstat(out / marker).st_mode)
            except FileNotFoundError:
                ours = False
            if not ours:
                raise UnsafeFile(f"{out} is a non-empty folder that is not {what}; give a new or empty folder")
    out.parent.mkdir(parents=True, exist_ok=True)
    fresh = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".new", dir=out.parent))
    try:
        result = fill(fresh)
        fd = open_file(fresh / marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        try:
            os.write(fd, f"made by tczoo: {what}; the next build replaces this folder\n".encode())
        finally:
            os.close(fd)
        if st is None:
            os.rename(fresh, out)
        else:
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=out.parent))
            os.rename(out, old / "site")  # out itself (never what a link points at): rename does not follow
            try:
                os.rename(fresh, out)
            except BaseException:
                os.rename(old / "site", out)
                raise
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        raise
    return result

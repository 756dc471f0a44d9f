"""The ``tczoo`` command: a command that only describes the installation prints again
what it printed before when nothing it depends on has changed; every other command
(and every first run) goes to ``tczoo.cli.main``.

Help (``tczoo``, ``tczoo --help``, ``tczoo run --help`` ...) and the listings
(``tczoo methods``, ``tczoo runners``, with ``-f json`` or one name) print the same
text until tczoo, a plugin, the Python environment or the terminal changes. Building
typer's ~30 commands and rendering them with rich costs about 3x what Python takes to
import typer, rich and pydantic (docs/cli.md, "Start-up"); this module imports none of
them. It keys the output on everything it depends on —

- the command line, the working directory, the interpreter;
- every ``TCZOO_*`` variable and the variables that steer the terminal output
  (``COLUMNS``, ``NO_COLOR``, ``TERM`` ...), which of stdin/stdout/stderr are terminals
  and the terminal's size, the output encoding;
- the installed packages (the modification time of every folder on ``sys.path``: an
  install, an upgrade or an uninstall changes it);
- the source files (size and modification time) of tczoo and of the package behind
  every ``tczoo.*`` entry point (methods, runners, commands, benchmarks of plugins);

— and keeps what a run printed (exit 0, nothing on stderr, text only) in
``TCZOO_CACHE/cli/``. ``TCZOO_CLI_REPLAY=0`` (or ``false``, ``no``, ``off``) turns it
off. Anything unexpected while
keying or reading falls through to the real command line.
"""

from __future__ import annotations

import os
import sys

FORMAT = 1  # of the kept records
HELP = ("--help", "-h")
LISTINGS = ("methods", "runners")
LISTING_OPTIONS = ("-f", "--format", "json", "table", "--wide")
ENV = ("COLUMNS", "LINES", "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE",
       "TTY_COMPATIBLE", "TTY_INTERACTIVE", "JUPYTER_COLUMNS", "JUPYTER_LINES", "PYTHONIOENCODING", "LANG",
       "LC_ALL", "LC_CTYPE")
MAX_KEPT = 200  # records in the folder; the oldest go first
MAX_BYTES = 1 << 20  # a record larger than this is neither kept nor read


def main() -> None:
    argv = sys.argv[1:]
    key = None
    off = os.environ.get("TCZOO_CLI_REPLAY", "").strip().lower() in ("0", "false", "no", "off")
    if not off and cacheable(argv):
        try:
            key = output_key(argv)
            if replay(key):
                return
        except Exception:  # noqa: BLE001 - any doubt: the real command line answers
            key = None
    from tczoo.cli import main as cli_main

    if key is None:
        cli_main(argv)
        return
    record(key, lambda: cli_main(argv))


def cacheable(argv: list[str]) -> bool:
    """Help for the program or a command (words, then ``--help``), or a listing."""
    if not argv or (argv[-1] in HELP and all(_word(a) for a in argv[:-1])):
        return True
    if argv[0] in LISTINGS:
        names = [a for a in argv[1:] if a not in LISTING_OPTIONS]
        return len(names) <= 1 and all(_word(a) for a in names)
    return False


def _word(arg: str) -> bool:
    return bool(arg) and not arg.startswith("-") and arg.replace("-", "").replace("_", "").isalnum()


# --------------------------------------------------------------------------- the key


def output_key(argv: list[str]) -> str:
    import hashlib
    import json

    parts: list[object] = [FORMAT, sys.executable, sys.version, os.getcwd(), argv,
                           sorted((k, v) for k, v in os.environ.items() if k.startswith("TCZOO_") or k in ENV),
                           [_terminal(fd) for fd in (0, 1, 2)], getattr(sys.stdout, "encoding", None)]
    for entry in sys.path:
        parts.append(_stat(entry or "."))
    for path in source_files():
        parts.append(_stat(path))
    return hashlib.sha256(json.dumps(parts, default=str).encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _terminal(fd: int) -> object:
    try:
        return list(os.get_terminal_size(fd)) if os.isatty(fd) else False
    except OSError:
        return False


def _stat(path: str) -> tuple[str, int, int] | tuple[str, None]:
    try:
        st = os.stat(path)
    except OSError:
        return (path, None)
    return (path, st.st_size, st.st_mtime_ns)


def source_files() -> list[str]:
    """Every source file the output can depend on (``tczoo.paths.entry_point_sources``
    over every ``tczoo.*`` entry point); a package that cannot be found is named."""
    from importlib.metadata import distributions

    from tczoo.paths import entry_point_sources

    eps = [ep for dist in distributions() for ep in dist.entry_points if ep.group.startswith("tczoo.")]
    try:
        return [str(p) for p in entry_point_sources(eps)]
    except ImportError as exc:
        return [f"missing:{exc}"]


# --------------------------------------------------------------------------- keep, replay


def _path(key: str) -> str:
    from tczoo.paths import cache_dir

    return os.path.join(str(cache_dir()), "cli", f"{key}.json")


def replay(key: str) -> bool:
    """Print what the run with this key printed; False when there is no usable record."""
    import json
    import stat

    try:  # a regular file only (not a FIFO that would block, not a link to /dev/zero), bounded
        fd = os.open(_path(key), os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        with os.fdopen(fd, "rb", closefd=False) as f:
            raw = f.read(MAX_BYTES + 1)
    except OSError:
        return False
    finally:
        os.close(fd)
    try:
        rec = json.loads(raw) if len(raw) <= MAX_BYTES else None
    except ValueError:
        return False
    if not (isinstance(rec, dict) and rec.get("format") == FORMAT and isinstance(rec.get("stdout"), str)):
        return False
    try:
        sys.stdout.write(rec["stdout"])
        sys.stdout.flush()
    except BrokenPipeError:  # tczoo --help | head: the reader is gone, and that is fine
        _quiet_exit(0)
    return True


class _Tee:
    """stdout as it is (a terminal stays a terminal for rich), every text written kept."""

    def __init__(self, stream):
        self._stream = stream
        self.parts: list[str] = []
        self.size = 0
        self.text_only = True

    def write(self, text):
        if isinstance(text, str):
            self.parts.append(text)
            self.size += len(text)
        elif text:  # (click probes a stream with write(b""), which a text stream refuses)
            self.text_only = False
        return self._stream.write(text)

    def __getattr__(self, name: str):
        value = getattr(self._stream, name)
        return _Bytes(value, self) if name == "buffer" else value


class _Bytes:
    """stdout's byte stream: bytes written there are not kept, and neither is the run."""

    def __init__(self, stream, tee: _Tee):
        self._stream, self._tee = stream, tee

    def write(self, data):
        if data:
            self._tee.text_only = False
        return self._stream.write(data)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


class _Watch:
    """stderr as it is; notes whether anything was written (a warning: not kept)."""

    def __init__(self, stream):
        self._stream = stream
        self.wrote = False

    def write(self, text: str) -> int:
        self.wrote = self.wrote or bool(text)
        return self._stream.write(text)

    def __getattr__(self, name: str):
        if name == "buffer":
            self.wrote = True
        return getattr(self._stream, name)


def record(key: str, run) -> None:
    """Run the command line, and keep its output when it printed only text on stdout and
    exited 0."""
    out, err = _Tee(sys.stdout), _Watch(sys.stderr)
    sys.stdout, sys.stderr = out, err
    code: object = "raised"  # an exception other than SystemExit: nothing is kept
    try:
        run()
        code = 0
    except SystemExit as exc:
        code = exc.code
        raise
    finally:
        sys.stdout, sys.stderr = out._stream, err._stream
        if code in (0, None) and out.text_only and not err.wrote and 0 < out.size <= MAX_BYTES // 2:
            _keep(key, "".join(out.parts))


def _keep(key: str, text: str) -> None:
    import json

    from pathlib import Path

    from tczoo.paths import write_atomic

    path = _path(key)
    try:
        folder = os.path.dirname(path)
        if os.path.isdir(folder):
            kept = sorted(os.scandir(folder), key=lambda e: e.stat().st_mtime_ns)
            for old in kept[: max(0, len(kept) - MAX_KEPT + 1)]:
                os.unlink(old.path)
        write_atomic(Path(path), json.dumps({"format": FORMAT, "stdout": text}, ensure_ascii=False))
    except Exception:  # noqa: BLE001 - a read-only or full cache, text it cannot write: only speed is lost
        pass


def _quiet_exit(code: int) -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    os._exit(code)

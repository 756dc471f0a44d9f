"""The ``tczoo`` command line (typer + rich).

One convention for every command, the kernel's and every plugin's:

- kernel commands are flat (``tczoo run``, ``tczoo report`` ...); a paper's or a
  plugin's extra commands are one sub-app each (``tczoo harness ...``, ``tczoo stab ...``),
  added by a ``register(app)`` function in the ``tczoo.commands`` entry-point group and
  built from the helpers in ``tczoo.cli.kit``;
- machine output is ``--format json`` (``-f``) wherever a command has any;
- a usage error (missing or unknown option, unknown command, bad value) and every
  ``tczoo.errors.UserError`` is one line ``error: ...`` and exit code 2; a run that
  could not do its work (``tczoo.errors.RunFailed``: everything failed, the provider
  stopped answering, the cost limit, a full disk) is one line and exit code 1;
  anything else is a bug and keeps its traceback.

Startup imports typer, rich and the command modules only; a command imports what it
needs when it runs (``tczoo --help`` and ``tczoo methods`` stay fast; see docs/cli.md).
"""

from __future__ import annotations

import sys

import typer

from tczoo.cli import cache, experiments, installed, judging, runs, view
from tczoo.cli.output import err_console, warn
from tczoo.errors import RunFailed, UserError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="tczoo: LLM test-case-generation methods for algorithmic problems, scored as their papers do.",
    pretty_exceptions_enable=False,
)

for _module in (installed, runs, experiments, judging, cache, view):
    _module.register(app)
_KERNEL_COMMANDS = {c.name or c.callback.__name__.replace("_", "-") for c in app.registered_commands}
_KERNEL_COMMANDS |= {g.name for g in app.registered_groups if g.name}


def _click_exceptions() -> tuple[type, type, type]:
    """(ClickException, UsageError, Exit) of the click that typer runs on. typer >= 0.16
    vendors click as ``typer._click``; older typers use the ``click`` package. The
    classes are found through typer's own ``BadParameter``, whichever it is."""
    mro = typer.BadParameter.__mro__
    usage = next(c for c in mro if c.__name__ == "UsageError")
    click_exc = next(c for c in mro if c.__name__ == "ClickException")
    exit_cls = getattr(sys.modules[click_exc.__module__], "Exit", None)
    return click_exc, usage, exit_cls or typer.Exit


def _register_plugins(argv: list[str]) -> None:
    """Add the plugins' sub-apps, unless the command line names a kernel command (then
    they are not needed, and not loading them keeps ``tczoo methods`` fast)."""
    first = next((a for a in argv if not a.startswith("-")), None)
    if first is not None and first in _KERNEL_COMMANDS:
        return
    from tczoo.registry import command_plugins

    for name, load in command_plugins():
        try:
            load()(app)
        except Exception as exc:  # one broken plugin must not take every command down
            warn(f"plugin commands {name!r} could not be loaded: {type(exc).__name__}: {exc}")


def _one_line(text: str) -> str:
    from tczoo.safetext import printable

    return printable(" ".join(str(text).split()), newlines=False)


INTERRUPTED = "interrupted; run the same command again to resume"
_STOPPED = __import__("threading").Event()  # Ctrl-C was pressed (typer turns it into exit code 130)


def _on_sigint(signum, frame) -> None:
    """Ctrl-C: what breaks while the command stops (a sandbox slot closed under a running
    batch, a thread losing its pipe) is not news; the one line at the end says it all."""
    import logging

    logging.disable(logging.CRITICAL)
    _STOPPED.set()
    raise KeyboardInterrupt


def interrupted() -> None:
    """One line and exit code 130. Every ``finally`` of the command has run by now (the
    run directory is closed, its lock released, the sandbox's workers stopped), so the
    process ends here without waiting for helper threads that are still unwinding --
    their tracebacks would be the only output otherwise."""
    import logging
    import os

    logging.disable(logging.CRITICAL)
    try:
        sys.stdout.flush()
    except Exception:
        pass
    sys.stderr.write(INTERRUPTED + "\n")
    sys.stderr.flush()
    os._exit(130)


def main(argv: list[str] | None = None) -> None:
    import signal
    import threading

    click_exc, usage_error, click_exit = _click_exceptions()
    if threading.current_thread() is threading.main_thread() and \
            signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_sigint)
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        _register_plugins(argv)
        rc = app(args=argv, prog_name="tczoo", standalone_mode=False)
        if _STOPPED.is_set():
            interrupted()
        sys.exit(rc if isinstance(rc, int) else 0)
    except (typer.Exit, click_exit) as exc:
        sys.exit(getattr(exc, "exit_code", 0))
    except (typer.Abort, KeyboardInterrupt):
        interrupted()
    except UserError as exc:
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        sys.exit(2)
    except RunFailed as exc:
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        sys.exit(1)
    except click_exc as exc:
        # Missing/unknown option or command, a bad value: click's message, one line.
        message = exc.format_message()
        if isinstance(exc, usage_error) and getattr(exc, "ctx", None) is not None:
            message = f"{message} (see '{exc.ctx.command_path} --help')"
        print(f"error: {_one_line(message)}", file=sys.stderr)
        sys.exit(2 if isinstance(exc, usage_error) else (exc.exit_code or 1))
    except OSError as exc:
        from tczoo.cli.options import write_error

        line = write_error(exc)
        if line is not None:
            # a folder that cannot be written (read-only, permissions, full): which, and the
            # option that chooses another
            print(f"error: {_one_line(line)}", file=sys.stderr)
            sys.exit(1 if "space" in line or "quota" in line else 2)
        if isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError, NotADirectoryError)):
            # A path the user gave that cannot be used (the commands check the common ones
            # first; this catches the rest without hiding other OSErrors).
            print(f"error: {_one_line(exc)}", file=sys.stderr)
            sys.exit(2)
        raise

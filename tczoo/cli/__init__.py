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

from tczoo.cli import browse, cache, candidates, experiments, listing, runs, tools
from tczoo.cli.kit import err_console, warn
from tczoo.errors import RunFailed, UserError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="tczoo: LLM test-case-generation methods for algorithmic problems, scored as their papers do.",
    pretty_exceptions_enable=False,
)

for _module in (listing, runs, experiments, tools, candidates, cache, browse):
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
    from tczoo.textio import printable

    return printable(" ".join(str(text).split()), newlines=False)


def main(argv: list[str] | None = None) -> None:
    click_exc, usage_error, click_exit = _click_exceptions()
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        _register_plugins(argv)
        rc = app(args=argv, prog_name="tczoo", standalone_mode=False)
        sys.exit(rc if isinstance(rc, int) else 0)
    except (typer.Exit, click_exit) as exc:
        sys.exit(getattr(exc, "exit_code", 0))
    except (typer.Abort, KeyboardInterrupt):
        err_console.print("aborted")
        sys.exit(130)
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
    except (FileNotFoundError, PermissionError, IsADirectoryError, NotADirectoryError) as exc:
        # A path the user gave that cannot be used (the commands check the common ones
        # first; this catches the rest without hiding other OSErrors).
        print(f"error: {_one_line(exc)}", file=sys.stderr)
        sys.exit(2)

"""The ``tczoo`` command line (typer + rich).

One convention for every command, the kernel's and every plugin's:

- kernel commands are flat (``tczoo run``, ``tczoo report`` ...); a paper's or a
  plugin's extra commands are one sub-app each (``tczoo harness ...``, ``tczoo stab ...``),
  added by a ``register(app)`` function in the ``tczoo.commands`` entry-point group (the
  sub-app is named as its entry point) and built from the helpers in
  ``tczoo.cli.output``, ``tczoo.cli.options`` and ``tczoo.cli.progress``;
- machine output is ``--format json`` (``-f``) wherever a command has any;
- a usage error (missing or unknown option, unknown command, bad value) and every
  ``tczoo.errors.UserError`` is one line ``error: ...`` and exit code 2; a run that
  could not do its work (``tczoo.errors.RunFailed``: everything failed, the provider
  stopped answering, the cost limit, a full disk) is one line and exit code 1;
  anything else is a bug and keeps its traceback.

Start-up is lazy: ``COMMANDS`` names the module of every kernel command, and a command's
module is imported only when the command line names it (help for the whole program
imports them all: each imports typer and the CLI helpers only). A plugin's commands are
loaded the same way, by their entry point's name. A command imports what it needs when
it runs (docs/cli.md, "Start-up").
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, MutableMapping
from typing import Any, Callable

import typer
from typer.core import TyperGroup

from tczoo.errors import RunFailed, UserError

# The kernel's commands in the order help lists them, each with the module whose
# ``register(app)`` adds it (a module may add several; tests/kernel/test_cli_lazy.py
# checks that each adds exactly the commands named here).
COMMANDS: dict[str, str] = {
    "methods": "tczoo.cli.installed", "runners": "tczoo.cli.installed", "benchmarks": "tczoo.cli.installed",
    "doctor": "tczoo.cli.installed",
    "run": "tczoo.cli.runs", "score": "tczoo.cli.runs", "report": "tczoo.cli.runs",
    "compare": "tczoo.cli.experiments", "reproduce": "tczoo.cli.experiments",
    "judge": "tczoo.cli.judging", "wrongselect": "tczoo.cli.judging", "build-benchmark": "tczoo.cli.judging",
    "candidates": "tczoo.cli.candidates",
    "view": "tczoo.cli.view", "show": "tczoo.cli.view",
    "cache": "tczoo.cli.cache",
    "rl": "tczoo.cli.rl",
    "serve": "tczoo.cli.serve",
}


def registered(register: Callable[[typer.Typer], None]) -> dict[str, Any]:
    """The click commands (and groups) a ``register(app)`` function adds, by name."""
    holder = typer.Typer()
    register(holder)
    if not holder.registered_commands and not holder.registered_groups:
        return {}
    return dict(typer.main.get_group(holder).commands)


def module_commands(module: str) -> dict[str, Any]:
    """The commands the kernel's CLI module ``module`` registers."""
    import importlib

    return registered(importlib.import_module(module).register)


def plugin_commands(name: str) -> dict[str, Any]:
    """The command (or group) the ``tczoo.commands`` entry point ``name`` registers: one,
    named as the entry point (``tczoo.registry.PluginError`` otherwise)."""
    from tczoo.registry import PluginError, get_command_plugin

    found = registered(get_command_plugin(name))
    if set(found) != {name}:
        added = ", ".join(sorted(found)) or "nothing"
        raise PluginError(f"plugin commands {name!r} (tczoo.commands entry point) registered {added}: a plugin "
                          f"adds one command or group, named as its entry point ({name})")
    return found


class LazyCommands(MutableMapping):
    """The root's commands by name: the kernel's (``COMMANDS``) and the plugins'
    (``tczoo.commands``), each built and polished when first asked for. Names are known
    without importing anything; the plugins' names are read only when a name is not a
    kernel command, or when every name is listed."""

    def __init__(self, given: dict[str, Any]):
        self._built: dict[str, Any] = {}
        self._given = dict(given)  # added to the app directly (tests, embedding programs)
        self._plugins: list[str] | None = None

    def plugin_names(self) -> list[str]:
        if self._plugins is None:
            from tczoo.registry import PluginError, command_names, package_of

            names = command_names()
            for name in names:
                if name in COMMANDS:
                    info = package_of("tczoo.commands", name) or {"package": "?", "version": ""}
                    raise PluginError(f"command {name!r} is provided by two packages: tczoo (a kernel command) and "
                                      f"{info['package']} {info['version']} (tczoo.commands entry point): "
                                      f"uninstall {info['package']}")
            self._plugins = [n for n in names if n not in self._given]
        return self._plugins

    def _names(self) -> list[str]:
        kernel = [n for n in COMMANDS if n not in self._given]
        return [*self._given, *kernel, *self.plugin_names()]

    def __getitem__(self, name: str) -> Any:
        if name in self._built:
            return self._built[name]
        if name in self._given:
            found = {name: self._given[name]}
        elif name in COMMANDS:
            found = module_commands(COMMANDS[name])
        elif name in self.plugin_names():
            found = plugin_commands(name)
        else:
            raise KeyError(name)
        for key, command in found.items():
            if key not in self._built and (key == name or key not in self._given):  # what the app was given wins
                polish(command)
                self._built[key] = command
        return self._built[name]

    def __contains__(self, name: object) -> bool:
        return name in self._given or name in COMMANDS or (isinstance(name, str) and name in self.plugin_names())

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

    def __setitem__(self, name: str, command: Any) -> None:
        self._given[name] = command
        self._built.pop(name, None)

    def __delitem__(self, name: str) -> None:
        self._given.pop(name, None)
        self._built.pop(name, None)


class LazyGroup(TyperGroup):
    """The root group: its commands are a ``LazyCommands``. While help lists them, a
    plugin whose commands cannot be loaded is one warning line and the other commands
    are listed; named on the command line, it is the error."""

    listing = False

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.commands = LazyCommands(dict(self.commands))

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        try:
            return self.commands.get(cmd_name)
        except UserError as exc:  # tczoo.registry.PluginError: a plugin that cannot be loaded
            if not self.listing or cmd_name in COMMANDS:
                raise
            from tczoo.cli.output import warn

            warn(str(exc))
            return None

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self.listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self.listing = False


app = typer.Typer(
    cls=LazyGroup,
    add_completion=False,
    no_args_is_help=True,
    help="tczoo: LLM test-case-generation methods for algorithmic problems, scored as their papers do.",
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        from tczoo import __version__

        print(f"tczoo {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_version,
                                 help="print tczoo's version and exit"),
    wide: bool = typer.Option(False, "--wide",
                              help="tables at full width with model strings in full (also after the command: "
                                   "tczoo report RUN --wide)"),
) -> None:
    """tczoo: LLM test-case-generation methods for algorithmic problems, scored as their papers do."""


def _click_exceptions() -> tuple[type, type, type]:
    """(ClickException, UsageError, Exit) of the click that typer runs on. typer >= 0.16
    vendors click as ``typer._click``; older typers use the ``click`` package. The
    classes are found through typer's own ``BadParameter``, whichever it is."""
    mro = typer.BadParameter.__mro__
    usage = next(c for c in mro if c.__name__ == "UsageError")
    click_exc = next(c for c in mro if c.__name__ == "ClickException")
    exit_cls = getattr(sys.modules[click_exc.__module__], "Exit", None)
    return click_exc, usage, exit_cls or typer.Exit


def _paragraphs(text: str) -> str:
    """A docstring as help: each prose paragraph on one line (the terminal wraps it),
    lists and indented blocks as written."""
    import inspect

    out = []
    for para in inspect.cleandoc(text).split("\n\n"):
        lines = para.split("\n")
        prose = all(line and not line[0].isspace() and not line.lstrip().startswith(("-", "*", "tczoo "))
                    for line in lines[1:])
        out.append(" ".join(x.strip() for x in lines) if prose else para)
    return "\n\n".join(out)


_WORDS = {int: "INT", float: "NUMBER", str: "TEXT"}


def _metavar(param) -> str | None:
    """How an option's value reads in help: a word (INT, PATH, TEXT ...), nothing for a flag."""
    from pathlib import Path

    descriptor = getattr(param, "type_descriptor", None)
    kind = getattr(descriptor, "annotation", None)
    if kind is None:
        name = getattr(getattr(param, "type", None), "name", "")
        kind = {"integer": int, "float": float, "text": str, "path": Path, "boolean": bool}.get(str(name).lower())
    origin = getattr(kind, "__origin__", None)
    if origin is list:
        kind = kind.__args__[0]
    args = [a for a in getattr(kind, "__args__", ()) if a is not type(None)]
    if args:  # Optional[X]
        kind = args[0]
    if kind is bool or getattr(param, "is_flag", False):
        return ""
    if isinstance(kind, type) and issubclass(kind, Path):
        return "PATH"
    return _WORDS.get(kind) if isinstance(kind, type) else None


def polish(command) -> None:
    """What typer's help gets wrong for this CLI, fixed on the click command tree (the
    kernel's commands and every plugin's): help text is plain text (``[dist]`` stays
    ``[dist]``, not rich markup), a docstring's paragraphs are not broken at the source's
    line ends, and values read as words (``--samples INT``, ``--out PATH``, a flag shows
    none)."""
    from rich.markup import escape

    for param in getattr(command, "params", []):
        if getattr(param, "help", None):
            param.help = escape(param.help)
        if getattr(param, "param_type_name", "") == "argument":
            if param.metavar is None:
                param.metavar = (param.name or "value").upper()
            if hasattr(param, "display_type_rich"):
                param.display_type_rich = lambda ctx: None  # its name is the word already
        elif param.metavar is None:
            word = _metavar(param)
            if word is not None:
                param.metavar = word
    own = getattr(command, "get_help_option", None)
    if own is not None and not getattr(own, "_polished", False):
        def get_help_option(ctx, own=own):
            option = own(ctx)
            if option is not None:
                option.metavar = ""  # a flag: no value to show
            return option

        get_help_option._polished = True  # type: ignore[attr-defined]
        command.get_help_option = get_help_option
    if getattr(command, "help", None):
        command.help = escape(_paragraphs(command.help))
        command.short_help = command.help.split("\n\n")[0]
    commands = getattr(command, "commands", {})
    if not isinstance(commands, LazyCommands):  # the root's are polished as they are built
        for sub in commands.values():
            polish(sub)


def _one_line(text: str) -> str:
    from tczoo.safeio.text import printable

    return printable(" ".join(str(text).split()), newlines=False)


from tczoo.cli.interrupt import INTERRUPTED, stopped  # noqa: E402 (below the app: what Ctrl-C sets)


def _on_sigint(signum, frame) -> None:
    """Ctrl-C: what breaks while the command stops (a sandbox slot closed under a running
    batch, a thread losing its pipe) is not news; the one line at the end says it all."""
    import logging

    logging.disable(logging.CRITICAL)
    stopped.set()
    raise KeyboardInterrupt


def _on_unraisable(info) -> None:
    """An exception Python cannot raise: from a ``__del__``, a weakref callback, the
    garbage collector. A Ctrl-C whose handler ran inside one was swallowed there ("Exception
    ignored in ...") and the command went on as if it had not been pressed, for minutes;
    it is delivered again, from another thread a moment later: delivered from here, it
    would land in this hook and be swallowed the same way. After a Ctrl-C the rest is
    unwinding noise, like the log lines ``_on_sigint`` silences."""
    import _thread
    import threading

    if isinstance(info.exc_value, KeyboardInterrupt):
        again = threading.Timer(0.05, _thread.interrupt_main)
        again.daemon = True
        again.start()
    elif not stopped.is_set():
        sys.__unraisablehook__(info)


def handle_ctrl_c() -> None:
    """What Ctrl-C does in a command: sets ``stopped``, raises ``KeyboardInterrupt`` in the
    main thread, and raises it again if it landed where Python swallows exceptions. Only
    where SIGINT still has Python's default handler (an embedding program keeps its own)."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread() and \
            signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_sigint)
        sys.unraisablehook = _on_unraisable


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
    click_exc, usage_error, click_exit = _click_exceptions()
    handle_ctrl_c()
    argv = list(sys.argv[1:] if argv is None else argv)
    end = argv.index("--") if "--" in argv else len(argv)
    if "--wide" in argv[:end]:  # a global option, accepted anywhere before "--"
        from tczoo.cli.output import set_wide

        set_wide(True)
        argv = [a for i, a in enumerate(argv) if not (a == "--wide" and i < end)]
    try:
        command = typer.main.get_command(app)
        polish(command)
        rc = command.main(args=argv, prog_name="tczoo", standalone_mode=False)
        if stopped.is_set():
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

        found = write_error(exc)
        if found is not None:
            # a folder that cannot be written (read-only, permissions, full): which, and the
            # option that chooses another; a full disk is a run that could not do its work
            line, full = found
            print(f"error: {_one_line(line)}", file=sys.stderr)
            sys.exit(1 if full else 2)
        if isinstance(exc, (FileNotFoundError, PermissionError, IsADirectoryError, NotADirectoryError)):
            # A path the user gave that cannot be used (the commands check the common ones
            # first; this catches the rest without hiding other OSErrors).
            print(f"error: {_one_line(exc)}", file=sys.stderr)
            sys.exit(2)
        raise

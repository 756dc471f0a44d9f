"""Methods, runners and extra CLI commands, discovered through entry points.

    [project.entry-points."tczoo.methods"]
    mymethod = "my_package.mymethod:MyMethod"

tczoo never imports a method or runner module by name: an outside package adds one by
declaring an entry point, with no change here.
"""

from __future__ import annotations

from functools import lru_cache
from importlib.metadata import entry_points
from typing import Any


class UnknownNameError(KeyError):
    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


@lru_cache(maxsize=None)
def _group(group: str) -> dict[str, Any]:
    return {ep.name: ep for ep in entry_points(group=group)}


def _load(group: str, kind: str, name: str):
    eps = _group(group)
    if name not in eps:
        known = ", ".join(sorted(eps)) or "none installed"
        raise UnknownNameError(f"unknown {kind} {name!r} (known: {known})")
    return eps[name].load()


def method_names() -> list[str]:
    return sorted(_group("tczoo.methods"))


def runner_names() -> list[str]:
    return sorted(_group("tczoo.runners"))


def get_method(name: str):
    return _load("tczoo.methods", "method", name)


def get_runner(name: str):
    return _load("tczoo.runners", "runner", name)


def command_plugins() -> list[Any]:
    """Functions ``register(app: typer.Typer)`` that add CLI commands."""
    return [ep.load() for _, ep in sorted(_group("tczoo.commands").items())]

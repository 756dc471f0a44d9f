"""``tczoo cache info|prune|clear``: the LLM exchange cache."""

from __future__ import annotations

import re
import sys
import time
from typing import Optional

import typer

from tczoo.cli.options import CLIError, format_option
from tczoo.cli.output import console, echo, emit_json, rich_table

cache_app = typer.Typer(help="The LLM exchange cache: size, entries per model; prune or clear it.",
                        no_args_is_help=True)

_AGE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$")
_UNIT = {"": 86400, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def _admin():
    from tczoo.llm.cache import CacheAdmin
    from tczoo.paths import cache_dir

    return CacheAdmin(cache_dir() / "llm.sqlite")


def parse_age(text: str) -> float:
    """'30d', '12h', '90m', '45s', '2w' or a number of days, in seconds."""
    m = _AGE.match(text)
    if not m:
        raise CLIError(f"--older-than {text!r}: give an age like 30d, 12h, 90m or 2w")
    return float(m.group(1)) * _UNIT[m.group(2)]


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def _when(t: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t)) if t else ""


@cache_app.command("info")
def info(fmt: str = format_option("table", "json")) -> None:
    """Where the cache is, its size, and its entries per model."""
    data = _admin().info()
    if fmt == "json":
        emit_json(data)
        return
    echo(f"{data['path']}: {_size(data['bytes'])}, {data['entries']} entries"
         + (f" (+{data['legacy_entries']} from an older tczoo, never read: prune --legacy)"
            if data["legacy_entries"] else "")
         + ("" if data["exists"] else " (no cache yet)"))
    if data["models"]:
        rows = [(m["model"], m["backend"].get("api_base") or m["backend"].get("gguf_sha256", "")[:16] or "",
                 m["entries"], _size(m["bytes"]), _when(m["oldest"]), _when(m["newest"])) for m in data["models"]]
        console.print(rich_table("entries per model", ("model", "server / GGUF", "entries", "size", "oldest",
                                                        "newest"), rows, left=("model", "server / GGUF")))


@cache_app.command("prune")
def prune(older_than: Optional[str] = typer.Option(None, "--older-than", help="entries older than this (30d, 12h, 2w)"),
          model: Optional[str] = typer.Option(None, "--model", help="entries of this model string"),
          legacy: bool = typer.Option(False, "--legacy", help="entries written by an older tczoo (never read)"),
          fmt: str = format_option("table", "json")) -> None:
    """Remove entries by age and/or model (both must match when both are given)."""
    if older_than is None and model is None and not legacy:
        raise CLIError("say what to prune: --older-than AGE, --model MODEL and/or --legacy (or use `tczoo cache clear`)")
    removed = _admin().prune(older_than_s=parse_age(older_than) if older_than else None, model=model, legacy=legacy)
    if fmt == "json":
        emit_json({"removed": removed})
    else:
        echo(f"removed {removed} entries")


@cache_app.command("clear")
def clear(yes: bool = typer.Option(False, "--yes", "-y", help="do not ask"),
          fmt: str = format_option("table", "json")) -> None:
    """Delete the whole LLM exchange cache (answers are asked of the providers again)."""
    admin = _admin()
    if not yes:
        if not sys.stdin.isatty():
            raise CLIError("clearing the cache needs --yes when not run from a terminal")
        typer.confirm(f"delete {admin.path} ({_size(admin.size_bytes())})?", abort=True)
    removed = admin.clear()
    if fmt == "json":
        emit_json({"removed": removed, "path": str(admin.path)})
    else:
        echo(f"removed {admin.path} ({removed} entries)")


def register(app: typer.Typer) -> None:
    app.add_typer(cache_app, name="cache")

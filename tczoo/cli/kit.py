"""The helpers a plugin's commands are built from, under their historical name.

A plugin's ``register(app)`` (``tczoo.commands`` entry point) builds its sub-app from
these so that all commands look and fail alike. They live in modules named for their
job — ``tczoo.cli.output`` (printing), ``tczoo.cli.options`` (shared options, value
checks, ``CLIError``) and ``tczoo.cli.progress`` (progress bars); ``write_candidates`` is the body of
``tczoo candidates``, which a paper's own candidates command reuses — and this module
re-exports them, so ``from tczoo.cli.kit import echo, emit_json, format_option`` keeps
working. New code may import from either.
"""

from __future__ import annotations

from tczoo.cli.options import (
    KEYLESS,
    PROVIDER_KEYS,
    CLIError,
    address_option,
    check_benchmark,
    check_model,
    execution_options,
    executor_option,
    format_option,
    parse_json_option,
    probe_api_base,
    read_user_file,
    require_file,
    require_run_dir,
    require_runs,
    run_options,
    split,
    writable,
)
from tczoo.cli.candidates import write_candidates
from tczoo.cli.output import console, echo, emit_json, err_console, rich_table, show_tables, warn
from tczoo.cli.progress import ProgressBar, RunReporter, progress
from tczoo.safeio.text import dumps, printable

__all__ = [
    "CLIError", "KEYLESS", "PROVIDER_KEYS", "ProgressBar", "RunReporter", "address_option", "check_benchmark",
    "check_model", "console", "dumps", "echo", "emit_json", "err_console", "execution_options", "executor_option",
    "format_option", "parse_json_option", "printable", "probe_api_base", "progress", "read_user_file", "require_file",
    "require_run_dir", "require_runs", "rich_table", "run_options", "show_tables", "split", "warn", "writable",
    "write_candidates",
]

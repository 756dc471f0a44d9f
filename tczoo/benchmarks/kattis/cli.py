"""The command behind ``tczoo benchmarks --check SPEC`` (kept out of the CLI module)."""

from __future__ import annotations

import json

from tczoo.errors import UserError


def check_command(spec: str, problems: list[str] | None, as_json: bool, console, *, limit: int | None = None,
                  progress=None) -> int:
    """0 when every loaded submission's verdict matches its folder, 1 on a mismatch;
    a spec that is not ``kattis:PATH`` is a user error (exit 2). ``progress``: a
    ``tczoo.cli.progress.ProgressBar`` (packages checked, with an ETA)."""
    from tczoo.benchmarks.kattis.check import as_json as to_json
    from tczoo.benchmarks.kattis.check import check_path, render
    from tczoo.sandbox import Sandbox

    schema, _, path = spec.partition(":")
    if schema.strip().lower() != "kattis" or not path:
        raise UserError(f"--check takes kattis:PATH (a package or a folder of packages), not {spec!r}")
    with Sandbox() as sandbox:
        if progress is not None:
            progress.note(f"reading the packages in {path}")
        reports = check_path(path, sandbox, problems, limit=limit,
                             count=(lambda done, total: progress.update(done, total)) if progress is not None else None)
    if as_json:
        print(json.dumps(to_json(reports), indent=2))
    else:
        render(reports, console)
    return 1 if any(r.mismatches or r.inputs_rejected for r in reports) else 0

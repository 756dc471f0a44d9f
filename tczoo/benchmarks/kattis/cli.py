"""The command behind ``tczoo benchmarks --check SPEC`` (kept out of the CLI module)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from tczoo.errors import UserError

if TYPE_CHECKING:
    from tczoo.benchmarks.kattis.check import PackageCheck


def check_command(spec: str, problems: list[str] | None, as_json: bool, console, *, limit: int | None = None,
                  progress=None) -> int:
    """0 when every loaded submission's verdict matches its folder, 1 on a mismatch;
    a spec that is not ``kattis:PATH`` is a user error (exit 2). ``progress``: a
    ``tczoo.cli.progress.ProgressBar`` (packages checked, with an ETA)."""
    from tczoo.benchmarks.kattis.check import as_json as to_json
    from tczoo.benchmarks.kattis.check import check_path
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


def render(reports: "list[PackageCheck]", console) -> None:
    """The report as tables fitted to the terminal (words kept whole, a wide table in
    parts): one line per package, then each package's submissions."""
    from rich.text import Text

    from tczoo.cli.output import rich_table
    from tczoo.safetext import printable

    rows = []
    for r in reports:
        if not r.loaded:
            rows.append([r.package, "skipped", "", "", "", "", "", ""])
            continue
        inputs = (f"{r.inputs_checked - len(r.inputs_rejected)}/{r.inputs_checked} valid"
                  if r.inputs_checked else "no input validator")
        skipped = f" (+{len(r.skipped_submissions)} skipped)" if r.skipped_submissions else ""
        rows.append([r.package, "loaded", f"{r.time_limit_ms / 1000:g} s ({r.time_limit_source})", r.checker,
                     str(r.tests), f"{len(r.submissions)}{skipped}", str(r.mismatches), inputs])
    console.print(rich_table("Kattis packages", ("package", "status", "time limit", "checker", "tests",
                                                 "submissions", "mismatches", "inputs"), rows))
    for r in reports:  # the reasons in full, one line each, below the table
        if not r.loaded:
            console.print(Text(printable(f"{r.package}: skipped: {r.reason}", newlines=False)), soft_wrap=True)
    for r in reports:
        if not r.loaded:
            continue
        rows = [[s.name, "/".join(s.expected), s.verdict, s.verdict_with_margin, s.failed_on,
                 f"{s.slowest_ms / 1000:.2f} s", s.status, s.explanation] for s in r.submissions]
        rows += [[s["path"], "", "", "", "", "", "skipped", s["reason"]] for s in r.skipped_submissions]
        rows += [["(input validators)", "", "", "", "", "", "REJECTED", rejected] for rejected in r.inputs_rejected]
        console.print(rich_table(f"{r.package}: time limit {r.time_limit_ms / 1000:g} s, "
                                 f"safety margin x{r.safety_margin:g}",
                                 ("submission", "expected", "verdict", "with margin", "first failure", "slowest",
                                  "status", "explanation"), rows))

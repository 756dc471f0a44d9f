"""Every file the docs name exists: a `tests/...`, `tczoo/...`, `bench/...` or `docs/...`
path in docs/*.md or README.md is a file (or folder) of this repository. Tests, modules
and benches move; a reference left behind sends a reader nowhere."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PATH = re.compile(r"(?<![\w./-])((?:tests|tczoo|bench|docs)/[\w./-]*[\w/])(?![\w/{*-]|\.\w)")
SUFFIXES = (".py", ".md", ".c", ".cpp", ".sh", ".json", ".jsonl", ".yaml", ".toml", ".txt", ".j2")


def references() -> list[tuple[str, str]]:
    found = []
    for doc in [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]:
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            for m in PATH.finditer(line):
                path = m.group(1)  # a file (by its suffix) or a folder (a trailing slash)
                if path.endswith((*SUFFIXES, "/")):
                    found.append((f"{doc.relative_to(ROOT)}:{number}", path))
    return found


def test_the_docs_name_files_that_exist():
    refs = references()
    assert len(refs) > 50  # the pattern finds the docs' references at all
    missing = [f"{where}: {path}" for where, path in refs if not (ROOT / path).exists()]
    assert missing == []


def test_the_pattern_reads_a_path_whole():
    line = "see `tests/kernel/test_cli.py::test_x`, tczoo/cli/, bench/bench_cli_start.py and a.validate.cpp"
    assert [m.group(1) for m in PATH.finditer(line)] == ["tests/kernel/test_cli.py", "tczoo/cli/",
                                                        "bench/bench_cli_start.py"]
    assert [m.group(1) for m in PATH.finditer("tczoo/x/validate.cpp && ./v")] == ["tczoo/x/validate.cpp"]

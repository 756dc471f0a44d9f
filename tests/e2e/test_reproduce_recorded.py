"""Committed recordings regenerate their result files byte for byte.

Each folder of ``tests/fixtures/recorded/`` is a comparison directory cut to what a
replay reads (``grid.json`` and every cell's ``exchanges.jsonl``) plus ``args.json``
(the ``tczoo reproduce`` arguments it was recorded with) and ``expected/`` (the result
files that run wrote). Replaying it (``--model replay:DIR``, no model loaded) through
the whole pipeline — prompts, parsing, the sandbox, the runner, the report and layout
code — must write the same files. A change that alters a table on purpose regenerates
the expected files with ``python tests/e2e/test_reproduce_recorded.py``; to record a new
folder, see ``docs/reproduce.md`` (Tests).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "recorded"
FOLDERS = sorted(p for p in RECORDED.iterdir() if (p / "args.json").is_file()) if RECORDED.is_dir() else []


def _replay(folder: Path, out: Path, results: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    args = json.loads((folder / "args.json").read_text())
    return subprocess.run([sys.executable, "-m", "tczoo.cli", "reproduce", *args, "--model", f"replay:{folder}",
                           "--out", str(out), "--results", str(results), "-f", "json"],
                          capture_output=True, text=True, env=env, timeout=900)


@pytest.mark.parametrize("folder", FOLDERS, ids=[p.name for p in FOLDERS])
def test_a_recorded_run_regenerates_its_result_files(folder, tmp_path):
    env = dict(os.environ, TCZOO_CACHE=str(tmp_path / "cache"))
    done = _replay(folder, tmp_path / "runs", tmp_path / "results", env)
    assert done.returncode in (0, 1), done.stderr[-3000:]  # 1: the recorded model scored nothing
    # the replay answered every call from the recording: no LLM failure anywhere
    generations = [json.loads(x) for f in (tmp_path / "runs").glob("*/*/generations.jsonl")
                   for x in f.read_text().splitlines() if x.strip()]
    assert not [g for g in generations if "not_recorded" in json.dumps(g)]
    expected = sorted(p.relative_to(folder / "expected") for p in (folder / "expected").rglob("*") if p.is_file())
    assert expected
    written = sorted(p.relative_to(tmp_path / "results") for p in (tmp_path / "results").rglob("*") if p.is_file())
    assert written == expected
    for name in expected:
        assert (tmp_path / "results" / name).read_text() == (folder / "expected" / name).read_text(), name


def test_there_is_a_recording():
    assert FOLDERS, f"no recording in {RECORDED}"


if __name__ == "__main__":  # regenerate the expected files after an intended change of a table
    import tempfile

    for folder in FOLDERS:
        with tempfile.TemporaryDirectory() as tmp:
            done = _replay(folder, Path(tmp) / "runs", Path(tmp) / "results",
                           dict(os.environ, TCZOO_CACHE=str(Path(tmp) / "cache")))
            if done.returncode not in (0, 1):
                sys.exit(done.stderr)
            shutil.rmtree(folder / "expected", ignore_errors=True)
            shutil.copytree(Path(tmp) / "results", folder / "expected")
            print(f"{folder.name}: expected files rewritten")

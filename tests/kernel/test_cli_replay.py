"""The ``tczoo`` command replays what help and the listings printed (tczoo.entry): the
same bytes as the real command line, a new record whenever anything the output depends
on changes, and the real command line whenever a record is missing, broken or hostile."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tczoo import entry

ENTRY = "import sys; from tczoo.entry import main; sys.exit(main())"


def tczoo(args: list[str], cache: Path, **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "TCZOO_CLI_REPLAY")}
    full.update({"TCZOO_CACHE": str(cache), "COLUMNS": "80", **env})
    return subprocess.run([sys.executable, "-c", ENTRY, *args], capture_output=True, text=True, env=full,
                          timeout=120)


def records(cache: Path) -> list[Path]:
    folder = cache / "cli"
    return sorted(folder.iterdir()) if folder.is_dir() else []


@pytest.mark.parametrize("args", [["--help"], ["run", "--help"], ["methods", "-f", "json"]])
def test_a_replay_prints_what_the_command_line_printed(tmp_path, args):
    real = tczoo(args, tmp_path / "off", TCZOO_CLI_REPLAY="0")
    first = tczoo(args, tmp_path)
    [record] = records(tmp_path)
    second = tczoo(args, tmp_path)
    assert real.returncode == first.returncode == second.returncode == 0
    assert real.stdout == first.stdout == second.stdout and real.stdout.strip()
    assert json.loads(record.read_text())["stdout"] == real.stdout
    # the second run printed the record: a record changed by hand is what it prints
    record.write_text(json.dumps({"format": entry.FORMAT, "stdout": "REPLAYED\n"}))
    assert tczoo(args, tmp_path).stdout == "REPLAYED\n"
    assert tczoo(args, tmp_path, TCZOO_CLI_REPLAY="0").stdout == real.stdout  # off: the real one
    assert tczoo(args, tmp_path, TCZOO_CLI_REPLAY="Off").stdout == real.stdout


def test_a_change_of_terminal_or_environment_is_a_new_record(tmp_path):
    wide = tczoo(["--help"], tmp_path, COLUMNS="120")
    narrow = tczoo(["--help"], tmp_path, COLUMNS="60")
    tczoo(["--help"], tmp_path, TCZOO_SOMETHING="1")
    assert len(records(tmp_path)) == 3
    assert max(map(len, wide.stdout.splitlines())) > 100 >= max(map(len, narrow.stdout.splitlines()))


def test_failures_warnings_and_other_commands_are_never_kept(tmp_path):
    bad = tczoo(["methods", "no-such-method"], tmp_path)
    assert bad.returncode == 2 and "unknown method" in bad.stderr
    assert tczoo(["--version"], tmp_path).returncode == 0
    assert records(tmp_path) == []
    assert entry.cacheable(["--help"]) and entry.cacheable(["stab", "scenarios", "-h"]) and entry.cacheable([])
    assert entry.cacheable(["methods", "crux", "-f", "json"]) and entry.cacheable(["runners", "--wide"])
    for argv in (["run", "--method", "crux"], ["methods", "a", "b"], ["run", "--out", "x", "--help"],
                 ["methods", "--problems", "zm01"], ["view", "runs/x"], ["--version"], ["report", "-h", "x"]):
        assert not entry.cacheable(argv), argv


@pytest.mark.parametrize("hostile", ["not json", "a fifo", "a link to /dev/zero", "huge", "a list",
                                     "no format"])
def test_a_broken_or_hostile_record_falls_back_to_the_command_line(tmp_path, hostile):
    real = tczoo(["--help"], tmp_path)
    [record] = records(tmp_path)
    record.unlink()
    if hostile == "not json":
        record.write_text("{not json")
    elif hostile == "a fifo":
        os.mkfifo(record)  # opening it for reading would block forever
    elif hostile == "a link to /dev/zero":
        record.symlink_to("/dev/zero")
    elif hostile == "huge":
        record.write_text(json.dumps({"format": entry.FORMAT, "stdout": "x" * (entry.MAX_BYTES + 10)}))
    elif hostile == "a list":
        record.write_text("[1, 2]")
    else:
        record.write_text(json.dumps({"stdout": "old format\n"}))
    again = tczoo(["--help"], tmp_path)
    assert again.returncode == 0 and again.stdout == real.stdout


def test_the_key_follows_the_sources_the_installation_and_the_command(tmp_path, monkeypatch):
    source = tmp_path / "plugin" / "method.py"
    source.parent.mkdir()
    source.write_text("SUMMARY = 'one'\n")
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.setattr(entry, "source_files", lambda: [str(source)])
    monkeypatch.syspath_prepend(str(site))
    key = entry.output_key(["methods"])
    assert entry.output_key(["methods"]) == key
    source.write_text("SUMMARY = 'two, longer'\n")  # a plugin's source edited
    assert entry.output_key(["methods"]) != key
    key = entry.output_key(["methods"])
    os.utime(site, ns=(1, 1))  # an install or uninstall changes a folder on sys.path
    assert entry.output_key(["methods"]) != key
    assert entry.output_key(["runners"]) != entry.output_key(["methods"])


def test_every_package_behind_a_tczoo_entry_point_is_watched():
    files = entry.source_files()
    root = Path(entry.__file__).parent
    assert str(root / "cli" / "__init__.py") in files and str(root / "registry.py") in files
    from importlib.metadata import entry_points

    for ep in entry_points(group="tczoo.methods"):
        module = ep.value.split(":", 1)[0]
        spec = __import__("importlib.util").util.find_spec(module)
        assert spec.origin in files, ep.name


def test_a_command_that_raises_keeps_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path))

    def half_then_crash():
        print("half of the help")
        raise RuntimeError("a bug")

    with pytest.raises(RuntimeError):
        entry.record("k" * 32, half_then_crash)
    entry.record("j" * 32, lambda: print("whole"))
    assert [p.stem for p in records(tmp_path)] == ["j" * 32]
    assert capsys.readouterr().out == "half of the help\nwhole\n"

"""A hostile cache (issue 49): tczoo runs what its cache holds (the sandbox's worker,
compiled programs) and answers from it (LLM exchanges), so it trusts ``TCZOO_CACHE``
only when the folder is the user's own and nobody else may write it.

Each attack is made for real: a cache that is a file or a FIFO, writable by its group
or by everyone, owned by another uid; folders inside it linked to a victim folder or
database; control sequences planted in what is cached. What must hold: one line, exit
2, before any work; what tczoo creates there is its owner's only (the sandbox's
programs excepted: its uids run them); nothing is followed through a link when tczoo
prunes or writes; cached text reaches the terminal escaped.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

RULES = [{"match": "test cases", "response": json.dumps([{"input": "1 1\n1\n", "output": "1\n"}])}]
CONTROL = ("\x1b", "\x07", "\x9b")  # ESC (CSI, OSC), BEL, the C1 CSI


def tczoo(*args, cache: Path, env=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "tczoo.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout,
                          env={**os.environ, "TCZOO_CACHE": str(cache), **(env or {})})


def one_line_error(proc, code: int = 2) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr[-2000:]
    assert proc.stdout == ""  # no help, no half a table before it
    return lines[0]


def rules_file(tmp_path: Path) -> Path:
    path = tmp_path / "rules.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in RULES))
    return path


def _not_the_users(tmp_path: Path) -> Path:
    """A folder another uid owns (as root: one chowned to nobody; else the root folder)."""
    if os.geteuid() != 0:
        return Path("/")
    path = tmp_path / "theirs"
    path.mkdir(mode=0o755)
    os.chown(path, 65534, 65534)
    return path


BAD_CACHES = {
    "a file": lambda p: (p.write_text("not a folder"), "is a file, not a folder"),
    "a FIFO": lambda p: (os.mkfifo(p), "is a FIFO, not a folder"),
    "world-writable": lambda p: (p.mkdir(), os.chmod(p, 0o777), "is writable by others (mode 777)"),
    "group-writable": lambda p: (p.mkdir(), os.chmod(p, 0o770), "is writable by its group (mode 770)"),
    "sticky and world-writable": lambda p: (p.mkdir(), os.chmod(p, 0o1777), "is writable by others"),
}


@pytest.mark.parametrize("kind", [*BAD_CACHES, "someone else's"])
def test_a_cache_that_is_not_the_users_own_is_refused_with_one_line(kind, tmp_path):
    if kind == "someone else's":
        cache = _not_the_users(tmp_path)
        needle = f"belongs to uid {cache.stat().st_uid}, not to you"
    else:
        cache = tmp_path / "cache"
        needle = BAD_CACHES[kind](cache)[-1]
    before = sorted(os.listdir(cache)) if cache.is_dir() else None
    out = tmp_path / "run"
    program = tmp_path / "add.py"
    program.write_text("print(sum(map(int, input().split())))\n")
    # the LLM cache, the compile cache and the sandbox's worker (judge), all of them (run)
    for command in (["cache", "info"], ["judge", program],
                    ["run", "-m", "crux", "--model", f"scripted:{rules_file(tmp_path)}", "-p", "zm04", "--out", out]):
        line = one_line_error(tczoo(*command, cache=cache, timeout=120))
        assert f"TCZOO_CACHE={cache} {needle}" in line, line
    assert not out.exists()  # refused before any work
    if before is not None:
        assert sorted(os.listdir(cache)) == before  # nothing written into it
    # what needs no cache still works, and says nothing about it: help, and the methods
    # listing (read from the methods' declarations: issue 47 removed its cache)
    help_ = tczoo("--help", cache=cache, timeout=120)
    assert help_.returncode == 0 and "Traceback" not in help_.stderr and "Usage" in help_.stdout
    listing = tczoo("methods", cache=cache, timeout=120)
    assert listing.returncode == 0 and listing.stderr == "" and "crux" in listing.stdout
    if before is not None:
        assert sorted(os.listdir(cache)) == before


def test_the_default_cache_is_checked_too(tmp_path):
    home = tmp_path / "home"
    (home / ".cache" / "tczoo").mkdir(parents=True)
    os.chmod(home / ".cache" / "tczoo", 0o777)
    env = {k: v for k, v in os.environ.items() if k != "TCZOO_CACHE"}
    proc = subprocess.run([sys.executable, "-m", "tczoo.cli", "cache", "info"], capture_output=True, text=True,
                          timeout=120, env={**env, "HOME": str(home)})
    line = one_line_error(proc)
    assert f"the cache folder {home / '.cache' / 'tczoo'} is writable by others" in line


# --------------------------------------------------------------------------- what tczoo creates


# the sandbox's uids run what is kept there: programs, the worker, the precompiled header (docs/security.md)
SANDBOX_REACHED = ("compile", "pch", "worker")


def test_what_tczoo_creates_in_its_cache_is_its_owners_only(tmp_path, monkeypatch):
    """Every writer, for real: a run (compile cache, the worker, the precompiled header,
    the correct codes' timings), a local GGUF's digest (models), STAB's centroids, the
    LLM cache and a cached_json namespace. The methods listing writes nothing (its
    cache is gone, issue 47)."""
    import numpy as np

    cache = tmp_path / "cache"
    proc = tczoo("run", "-m", "crux", "--model", f"scripted:{rules_file(tmp_path)}", "-p", "zm04",
                 "--out", tmp_path / "run", cache=cache, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    after_run = sorted(os.listdir(cache))
    assert tczoo("methods", cache=cache).returncode == 0
    assert sorted(os.listdir(cache)) == after_run
    monkeypatch.setenv("TCZOO_CACHE", str(cache))
    from methods.stab.scenarios import CentroidCache, load_catalog
    from tczoo.llm.cache import ExchangeCache
    from tczoo.llm.local.gguf import gguf_sha256
    from tczoo.paths import cache_dir, cached_json

    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF not really a model")
    assert len(gguf_sha256(gguf)) == 64
    CentroidCache().store("model-x", load_catalog(), np.zeros((1, 3), dtype=np.float32))
    assert cached_json("efficiency", ["k"], lambda: {"t": 1.0}) == {"t": 1.0}
    db = ExchangeCache(cache_dir() / "llm.sqlite")
    db.put("k", "m", {"backend": "x"}, {"messages": []}, "a proprietary answer", {}, 0.0)
    db.close()

    made = {p.relative_to(cache).parts[0] for p in cache.iterdir()}
    assert {"compile", "pch", "worker", "correct-runtimes", "models", "stab_centroids", "efficiency",
            "llm.sqlite"} <= made, made
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    for dirpath, dirnames, filenames in os.walk(cache):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            st = os.lstat(path)
            mode, top = stat.S_IMODE(st.st_mode), path.relative_to(cache).parts[0]
            assert not stat.S_ISLNK(st.st_mode), path
            assert mode & (stat.S_IWGRP | stat.S_IWOTH) == 0, (path, oct(mode))  # never writable by others
            if top in SANDBOX_REACHED:
                if stat.S_ISDIR(st.st_mode) and top in ("compile", "worker"):
                    assert mode == 0o711, (path, oct(mode))  # searched by the sandbox's uids, never listed
                elif not stat.S_ISDIR(st.st_mode) and name.endswith((".json", ".timeout", ".failed")):
                    assert mode == 0o600, (path, oct(mode))  # tczoo's own notes, not the programs
            elif stat.S_ISDIR(st.st_mode):
                assert mode == 0o700, (path, oct(mode))
            else:
                assert mode == 0o600, (path, oct(mode))


# --------------------------------------------------------------------------- links


def _victim_db(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE exchanges_v2 (key TEXT PRIMARY KEY, model TEXT NOT NULL, backend TEXT NOT NULL, "
               "request TEXT NOT NULL, response TEXT NOT NULL, usage TEXT NOT NULL, cost REAL NOT NULL, "
               "created REAL NOT NULL)")
    db.execute("INSERT INTO exchanges_v2 VALUES ('k', 'm', '{}', '{}', '\"kept\"', '{}', 0, 0)")
    db.commit()
    db.close()


def _rows(path: Path) -> int:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT COUNT(*) FROM exchanges_v2").fetchone()[0]
    finally:
        db.close()


def test_nothing_in_the_cache_is_followed_through_a_link(tmp_path, monkeypatch):
    """Before: a ``registry/`` link made the methods listing delete the victim folder's
    ``methods-*.json`` (that cache is gone, issue 47); a ``compile/`` or ``pch/`` link made
    ``tczoo judge`` chmod the victim folder 0711 and build programs and the sandbox's
    worker into it; an ``llm.sqlite`` link made ``cache prune`` delete the victim
    database's rows."""
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    victim = tmp_path / "victim"
    victim.mkdir(mode=0o755)
    (victim / "methods-precious.json").write_text("[]")
    (victim / "precious.json").write_text("{}")
    program = tmp_path / "hello.cpp"
    program.write_text("#include <bits/stdc++.h>\nint main() { std::puts(\"1\"); }\n")
    os.symlink(victim, cache / "worker")  # passed over: the worker is built in the compile cache instead
    judged = tczoo("judge", program, cache=cache, timeout=120)
    assert judged.returncode == 0 and judged.stdout.startswith("AC"), judged.stderr[-2000:]
    os.unlink(cache / "worker")
    shutil.rmtree(cache / "compile")
    shutil.rmtree(cache / "pch")
    for part in ("compile", "pch"):
        os.symlink(victim, cache / part)
        line = one_line_error(tczoo("judge", program, cache=cache, timeout=120))
        assert f"{cache / part} is a link" in line, line
        os.unlink(cache / part)
    os.symlink(victim, cache / "registry")  # read by nothing now: the listing works and leaves it alone
    assert tczoo("methods", cache=cache).returncode == 0
    os.unlink(cache / "registry")
    assert sorted(os.listdir(victim)) == ["methods-precious.json", "precious.json"]
    assert stat.S_IMODE(victim.stat().st_mode) == 0o755

    _victim_db(tmp_path / "victim.sqlite")
    os.symlink(tmp_path / "victim.sqlite", cache / "llm.sqlite")
    for command in (["cache", "prune", "--older-than", "0s"], ["cache", "clear", "--yes"], ["cache", "info"]):
        line = one_line_error(tczoo(*command, cache=cache))
        assert f"{cache / 'llm.sqlite'} is a link" in line, line
    assert _rows(tmp_path / "victim.sqlite") == 1 and (cache / "llm.sqlite").is_symlink()
    (cache / "llm.sqlite").unlink()
    _victim_db(cache / "llm.sqlite")  # a database of its own, its WAL a link: SQLite would open it too
    os.symlink(tmp_path / "victim.sqlite", cache / "llm.sqlite-wal")
    line = one_line_error(tczoo("cache", "prune", "--older-than", "0s", cache=cache))
    assert "llm.sqlite-wal is a link" in line
    assert _rows(tmp_path / "victim.sqlite") == 1

    # a cached_json namespace linked to the victim: refused, nothing written there
    monkeypatch.setenv("TCZOO_CACHE", str(cache))
    from tczoo.errors import UserError
    from tczoo.paths import cached_json, cached_json_many

    os.symlink(victim, cache / "efficiency")
    with pytest.raises(UserError, match="efficiency is a link"):
        cached_json("efficiency", ["k"], lambda: {"t": 1})
    with pytest.raises(UserError, match="efficiency is a link"):
        cached_json_many("efficiency", [["k"]], lambda todo: [{"t": 1}])
    assert sorted(os.listdir(victim)) == ["methods-precious.json", "precious.json"]


def test_a_kept_value_that_is_a_link_or_a_fifo_is_computed_again_never_read(tmp_path, monkeypatch):
    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path / "cache"))
    from tczoo.paths import cache_subdir, cached_json

    assert cached_json("t", ["a"], lambda: [1]) == [1]
    [kept] = cache_subdir("t").iterdir()
    secret = tmp_path / "secret.json"
    secret.write_text('["not tczoo\'s"]')
    kept.unlink()
    os.symlink(secret, kept)
    assert cached_json("t", ["a"], lambda: [2]) == [2]  # the link is replaced, never read or written through
    assert secret.read_text() == '["not tczoo\'s"]' and not kept.is_symlink()
    kept.unlink()
    os.mkfifo(kept)  # would block a reader forever
    assert cached_json("t", ["a"], lambda: [3]) == [3]


# --------------------------------------------------------------------------- cached text on a terminal


def test_cached_text_reaches_the_terminal_escaped(tmp_path, monkeypatch):
    """Control sequences planted in the LLM cache (a model name, a server, with the C1
    CSI) are shown as escapes, never sent raw. (The methods listing had a cache of its
    own, checked here too; issue 47 removed it: it reads the methods' declarations.)"""
    cache = tmp_path / "cache"
    monkeypatch.setenv("TCZOO_CACHE", str(cache))
    from tczoo.llm.cache import ExchangeCache

    cache.mkdir(mode=0o700)
    model, server = "model\x1b]0;PWNED\x07\x9b31m", "http://x\x1b[2J"
    db = ExchangeCache(cache / "llm.sqlite")
    db.put("k", model, {"api_base": server}, {}, "answer", {}, 0.0)
    db.close()
    for command in (["cache", "info"], ["cache", "info", "-f", "json"]):
        proc = tczoo(*command, cache=cache, env={"COLUMNS": "400"})
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert not any(c in proc.stdout + proc.stderr for c in CONTROL), command
    # the planted text, visibly escaped in the table; JSON's escapes give it back whole
    shown = tczoo("cache", "info", cache=cache, env={"COLUMNS": "400"}).stdout
    assert "\\x1b]0;PWNED\\x07" in shown and "\\x1b[2J" in shown, shown
    [entry] = json.loads(tczoo("cache", "info", "-f", "json", cache=cache).stdout)["models"]
    assert entry["model"] == model and entry["backend"]["api_base"] == server

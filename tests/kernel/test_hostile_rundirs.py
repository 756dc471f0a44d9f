"""Hostile run directories (issue 25): a run directory may come from anyone.

Whatever it holds — links to a victim file where tczoo keeps its lock, records or
viewer, a FIFO or ``/dev/zero`` where a record file belongs, a record larger than
any tczoo writes — no command writes through a link it did not create, reads without
a bound, or hangs; each refusal is one line, exit 2, and the victim is unchanged.
What tczoo creates (run directories, the LLM cache) is its owner's only, and a Ray
instance it starts for itself listens on loopback only.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from tczoo.errors import UserError
from tczoo.schema import RunConfig
from tczoo.store import RunStore

ZM04_TESTS = [{"input": "1 1\n1\n", "output": "1\n"}, {"input": "3 7\n10 15 8\n", "output": "4\n"}]
VICTIM = "precious: not tczoo's\n{a torn-looking last line"  # what a torn-tail repair would cut


def tczoo(*args, env=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "tczoo.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def one_line_error(proc, code: int = 2) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert lines and lines[-1].startswith("error: "), proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    return lines[-1]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> tuple[Path, str, Path]:
    """(a finished CRUX run on zm04, its model string, the LLM cache folder it made)."""
    root = tmp_path_factory.mktemp("recorded")
    rules = root / "rules.jsonl"
    rules.write_text(json.dumps({"match": "test cases", "response": json.dumps(ZM04_TESTS)}) + "\n")
    model = f"scripted:{rules}"
    cache = root / "cache" / "tczoo"
    out = root / "run"
    proc = tczoo("run", "-m", "crux", "--model", model, "-p", "zm04", "--out", out, env={"TCZOO_CACHE": str(cache)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out, model, cache


@pytest.fixture()
def run_dir(recorded, tmp_path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(recorded[0], copy, symlinks=True)
    return copy


@pytest.fixture()
def victim(tmp_path) -> Path:
    path = tmp_path / "victim.txt"
    path.write_text(VICTIM)
    return path


def plant_link(run: Path, name: str, target: Path) -> None:
    path = run / name
    if path.exists() or path.is_symlink():
        path.unlink()
    os.symlink(target, path)


# --------------------------------------------------------------------------- writing


@pytest.mark.parametrize("name", [".lock", "config.json", "exchanges.jsonl", "generations.jsonl", "scores.jsonl",
                                  "provenance.jsonl", "cross_scores.jsonl"])
def test_opening_for_writing_never_goes_through_a_placed_link(name, run_dir, victim):
    config = RunStore.open(run_dir).config
    plant_link(run_dir, name, victim)
    for opener in (lambda: RunStore.open(run_dir, config), lambda: RunStore.open(run_dir, write=True)):
        with pytest.raises(UserError) as info:
            opener().close()
        assert "is a link" in str(info.value) and name in str(info.value) and "\n" not in str(info.value)
    assert victim.read_text() == VICTIM


def test_appends_and_atomic_rewrites_never_go_through_a_link(tmp_path, victim):
    store = RunStore.open(tmp_path / "run", RunConfig(methods=["crux"], model="m", benchmark="zoo-mini"))
    try:
        store.log_exchange({"text": "mine"})
        plant_link(store.root, "exchanges.jsonl", victim)  # placed while the run holds the directory
        with pytest.raises(UserError, match="exchanges.jsonl is a link"):
            store.log_exchange({"text": "through the link?"})
        plant_link(store.root, "scores.jsonl", victim)
        store.replace_scores([])  # a rename replaces the link itself
        assert not (store.root / "scores.jsonl").is_symlink() and (store.root / "scores.jsonl").read_text() == ""
    finally:
        store.close()
    assert victim.read_text() == VICTIM
    (tmp_path / "run" / "exchanges.jsonl").unlink()
    os.mkfifo(tmp_path / "run" / "provenance.jsonl")
    with pytest.raises(UserError, match="provenance.jsonl is a FIFO"):  # never opened: nothing waits on it
        RunStore.open(tmp_path / "run", write=True)


def test_resume_and_score_refuse_a_lock_linked_to_a_victim(recorded, run_dir, victim):
    _, model, _ = recorded
    plant_link(run_dir, ".lock", victim)
    line = one_line_error(tczoo("run", "-m", "crux", "--model", model, "-p", "zm04", "--out", run_dir))
    assert ".lock is a link" in line
    line = one_line_error(tczoo("score", run_dir))
    assert ".lock is a link" in line
    assert victim.read_text() == VICTIM
    # the run directory itself is untouched, and usable again once the link is gone
    (run_dir / ".lock").unlink()
    assert tczoo("score", run_dir).returncode == 0


def test_the_viewer_builds_fresh_and_never_writes_through_links(run_dir, tmp_path, victim):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep me")
    os.symlink(outside, run_dir / "view")  # RUN/view is the default site folder
    line = one_line_error(tczoo("view", run_dir))
    assert "is a link" in line
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]
    (run_dir / "view").unlink()
    # a folder claiming to be an old site through a linked marker is not one
    (run_dir / "view").mkdir()
    os.symlink(victim, run_dir / "view" / ".tczoo-view")
    line = one_line_error(tczoo("view", run_dir))
    assert "not a tczoo view site" in line
    shutil.rmtree(run_dir / "view")
    first = tczoo("view", run_dir, "-f", "json")
    assert first.returncode == 0, first.stderr[-2000:]
    site = run_dir / "view"
    (site / "data" / "stale.js").write_text("stale")
    again = tczoo("view", run_dir, "-f", "json")
    assert again.returncode == 0, again.stderr[-2000:]
    assert not (site / "data" / "stale.js").exists() and (site / "index.html").is_file()
    assert [p.name for p in run_dir.iterdir() if p.name.startswith(".view")] == []  # no leftovers
    assert victim.read_text() == VICTIM


def test_serve_answers_only_with_files_of_the_site(run_dir, tmp_path):
    from tczoo.view.serve import server

    assert tczoo("view", run_dir).returncode == 0
    site = run_dir / "view"
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET-OF-THE-HOST")
    os.symlink(secret, site / "leak.txt")
    os.symlink(tmp_path, site / "up")
    os.mkfifo(site / "pipe.js")
    httpd = server(site, 0)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        def get(path: str) -> tuple[int, bytes]:
            conn = http.client.HTTPConnection("127.0.0.1", httpd.server_address[1], timeout=10)
            conn.request("GET", path)
            resp = conn.getresponse()
            return resp.status, resp.read()

        status, body = get("/index.html")
        assert status == 200 and b"<html" in body.lower()
        assert get("/")[0] == 200  # the index page, not a listing
        for path in ("/leak.txt", "/up/secret.txt", "/pipe.js", "/data/", "/../secret.txt", "/%2e%2e/secret.txt"):
            status, body = get(path)
            assert status == 404 and b"SECRET-OF-THE-HOST" not in body, path
    finally:
        httpd.shutdown()
        httpd.server_close()


# --------------------------------------------------------------------------- reading


READERS = [["report", "RUN"], ["show", "RUN"], ["view", "RUN"], ["score", "RUN"], ["trails", "show", "RUN"],
           ["harness", "sft", "RUN", "--out", "SFT"], ["tcbench", "analyze", "a5", "RUN"]]


@pytest.mark.parametrize("command", READERS, ids=[" ".join(c[:2]) for c in READERS])
def test_every_reader_refuses_a_record_file_that_is_not_a_regular_file(command, run_dir, tmp_path):
    """A FIFO nobody writes to: a reader that opened it would wait forever (a link to
    /dev/zero: the next test)."""
    name = "generations.jsonl"
    (run_dir / name).unlink()
    os.mkfifo(run_dir / name)
    args = [str(tmp_path / "sft.jsonl") if a == "SFT" else str(run_dir) if a == "RUN" else a for a in command]
    line = one_line_error(tczoo(*args, timeout=120))
    assert f"{name} is a FIFO" in line


def test_a_dev_zero_exchanges_file_is_one_line_for_the_viewer(run_dir):
    (run_dir / "exchanges.jsonl").unlink()
    os.symlink("/dev/zero", run_dir / "exchanges.jsonl")
    for command in (["view", run_dir], ["show", run_dir], ["run", "--model", f"replay:{run_dir}", "-m", "crux",
                                                             "-p", "zm04", "--out", run_dir.parent / "again"]):
        line = one_line_error(tczoo(*command, timeout=120))
        assert "exchanges.jsonl" in line and "is a link" in line


def test_records_and_configs_are_read_with_a_bound(run_dir):
    gens = run_dir / "generations.jsonl"
    lines = gens.read_bytes().splitlines()
    # the hostile record is not the last one (a torn last record is skipped, not refused)
    gens.write_bytes(b"\n".join([lines[0], b'{"huge": "' + b"x" * (3 << 20) + b'"}', *lines]) + b"\n")
    line = one_line_error(tczoo("report", run_dir, env={"TCZOO_READ_RECORD_MB": "2"}))
    assert f"{gens}:2: a line over 2 MiB" in line
    gens.write_bytes(b"\n".join([lines[0], b"[" * 100_000 + b"]" * 100_000, *lines]) + b"\n")
    line = one_line_error(tczoo("report", run_dir))
    assert f"{gens}:2: corrupt record (nested deeper than 100 levels)" in line
    config = run_dir / "config.json"
    for bad, needle in ((b'{"model": "\xff"}', "config.json:1: not UTF-8"),
                        (b"[" * 100_000 + b"]" * 100_000, "config.json:1: nested deeper than"),
                        (b'{"model": "m", "samples": NaN}', "NaN is not a number")):
        config.write_bytes(bad)
        line = one_line_error(tczoo("report", run_dir))
        assert needle in line, line


# --------------------------------------------------------------------------- shared state stays private


def test_run_directories_and_the_llm_cache_are_their_owners_only(recorded, tmp_path, monkeypatch):
    from tczoo.llm.cache import ExchangeCache
    from tczoo.paths import cache_dir

    out, _, cache = recorded
    assert stat.S_IMODE(out.stat().st_mode) == 0o700
    for f in out.iterdir():
        if f.is_file():
            assert stat.S_IMODE(f.stat().st_mode) == 0o600, f.name
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700  # made by the run (its compile cache)
    monkeypatch.setenv("TCZOO_CACHE", str(tmp_path / "fresh" / "tczoo"))
    db = ExchangeCache(cache_dir() / "llm.sqlite")  # what LLMClient opens
    db.put("k", "m", {"backend": "x"}, {"messages": []}, "a proprietary answer", {}, 0.0)
    try:
        files = sorted((tmp_path / "fresh" / "tczoo").iterdir())
        assert [f.name for f in files][0] == "llm.sqlite"
        for f in files:  # the database, and its WAL and shared-memory files while it is open
            assert stat.S_IMODE(f.stat().st_mode) == 0o600, f.name
    finally:
        db.close()
    assert stat.S_IMODE((tmp_path / "fresh" / "tczoo").stat().st_mode) == 0o700


def test_a_comparison_never_writes_into_a_cell_someone_linked_elsewhere(recorded, tmp_path):
    from tczoo.experiments.grid import model_slug

    _, model, _ = recorded
    out = tmp_path / "compare"
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep me")
    (out / model_slug(model)).mkdir(parents=True)
    os.symlink(outside, out / model_slug(model) / "crux")
    line = one_line_error(tczoo("compare", "-m", "crux", "--models", model, "-p", "zm04", "--out", out))
    assert "is a link" in line and "crux" in line
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]


def _listening(pids: set[int]) -> list[str]:
    """Addresses (host:port) of the TCP sockets in LISTEN state held by ``pids``."""
    import ipaddress

    inodes: set[int] = set()
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.startswith("socket:["):
                    inodes.add(int(target[8:-1]))
        except OSError:
            continue
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            if fields[3] != "0A" or int(fields[9]) not in inodes:  # 0A: LISTEN
                continue
            host, port = fields[1].split(":")
            raw = bytes.fromhex(host)
            raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))  # little-endian words
            addr = ipaddress.ip_address(raw)
            if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped:
                addr = addr.ipv4_mapped
            found.append(f"{addr}:{int(port, 16)}")
    return found


def _descendants(root: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        found.add(pid)
        todo.extend(children.get(pid, []))
    return found


def test_a_private_ray_instance_listens_on_loopback_only():
    pytest.importorskip("ray")
    script = textwrap.dedent("""
        import sys
        from tczoo.distributed import execution_options, open_cluster
        with open_cluster(execution_options("ray", None, workers=1)) as cluster:
            print("ready", flush=True)
            sys.stdin.read()
    """)
    env = {k: v for k, v in os.environ.items() if k not in ("RAY_ADDRESS",)}
    env["RAY_USAGE_STATS_ENABLED"] = "0"
    proc = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    try:
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()[-2000:] if proc.poll() else ""
        addresses = _listening(_descendants(proc.pid))
        assert addresses, "the private instance listens somewhere (its GCS at least)"
        assert all(a.startswith(("127.", "::1:")) for a in addresses), addresses
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()

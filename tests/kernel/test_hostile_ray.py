"""Ray's private instance keeps its files to its owner (issue 49, item 5).

``--executor ray`` without ``--address`` starts a Ray instance for the run. Ray makes its
temporary folder and every session folder in it writable by everyone (``/tmp/ray``,
``0o777``: sockets, logs, ports), and writes a new cluster's token to
``~/.ray/auth_token`` with the umask's mode (``0o644``): any local user could read the
token, join the instance and run code as the user running tczoo. The instance's
folders now sit below a fresh ``0o700`` folder, removed when the cluster closes, and
the token is written ``0o600`` in a ``0o700`` folder before Ray would write it.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.xdist_group("ray")  # one `ray start` at a time (tests/conftest.py)


def test_a_private_ray_instance_keeps_its_folder_and_token_to_its_owner(tmp_path):
    pytest.importorskip("ray")
    home = tmp_path / "home"  # a home without a token: the instance makes one
    home.mkdir()
    script = textwrap.dedent("""
        import os, stat, sys
        from tczoo.distributed import execution_options, open_cluster
        with open_cluster(execution_options("ray", None, workers=1)) as cluster:
            import ray
            session = ray._private.worker._global_node.get_session_dir_path()
            print(session, flush=True)
            sys.stdin.read()
    """)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env.update(HOME=str(home), RAY_USAGE_STATS_ENABLED="0", TCZOO_CACHE=str(tmp_path / "cache"))
    proc = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    try:
        session = proc.stdout.readline().strip()
        assert session, proc.stderr.read()[-3000:] if proc.poll() is not None else "no session"
        private = os.path.dirname(os.path.dirname(session))  # <private>/ray/session_...
        assert os.path.basename(private).startswith("tczoo-ray-")
        st = os.stat(private)
        assert stat.S_IMODE(st.st_mode) == 0o700 and st.st_uid == os.geteuid(), oct(st.st_mode)
        assert os.path.isdir(os.path.join(session, "sockets"))  # what Ray made 0o777 is below it
        token = home / ".ray" / "auth_token"
        assert token.is_file(), "token authentication wrote no token"
        assert stat.S_IMODE(token.stat().st_mode) == 0o600
        assert stat.S_IMODE(token.parent.stat().st_mode) == 0o700
        assert len(token.read_text().strip()) == 64  # 256 random bits, as Ray's own generator makes
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
    assert proc.returncode == 0, proc.stderr.read()[-3000:]
    assert not os.path.exists(private)  # removed with the cluster


def test_a_token_the_user_has_is_left_as_it_is(tmp_path, monkeypatch):
    from tczoo.distributed.ray_cluster import _private_token

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    monkeypatch.delenv("RAY_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("RAY_AUTH_TOKEN_PATH", raising=False)
    _private_token()
    token = tmp_path / ".ray" / "auth_token"
    first = token.read_text()
    assert stat.S_IMODE(token.stat().st_mode) == 0o600
    _private_token()
    assert token.read_text() == first  # never replaced
    token.unlink()
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    _private_token()
    assert not token.exists()  # no token mode, no token
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    monkeypatch.setenv("RAY_AUTH_TOKEN", "given")
    _private_token()
    assert not token.exists()  # the user's own token is used

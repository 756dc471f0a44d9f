"""``tczoo serve rewards`` started as users start it, for the tests that talk to it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path


def start_server(tmp_path: Path, *args: str) -> tuple[subprocess.Popen, str, str]:
    """The command in a process of its own on loopback: (process, URL, token)."""
    token_file = tmp_path / "token"
    proc = subprocess.Popen([sys.executable, "-m", "tczoo.cli", "serve", "rewards", "--port", "0", "--token-file",
                             str(token_file), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ))
    deadline = time.monotonic() + 180
    lines = []
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line)
        m = re.search(r"tczoo rewards on (http://127\.0\.0\.1:\d+)", line)
        if m:
            return proc, m.group(1), token_file.read_text().strip()
    proc.kill()
    raise AssertionError("the server did not start:\n" + "".join(lines) + proc.stderr.read())


def stop_server(proc: subprocess.Popen) -> None:
    """Ctrl-C, as a user stops it: it must end cleanly (exit 0)."""
    proc.send_signal(signal.SIGINT)
    try:
        assert proc.wait(timeout=60) == 0, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()

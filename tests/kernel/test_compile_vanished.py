"""A compile whose build folder vanishes under it (something cleaned the temporary
directory: seen on a shared machine) is the sandbox's failure, never cached as the
program's compile error -- a cached CE would fail that program for good."""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
import uuid
from pathlib import Path

from tczoo.schema import Language, Program


def test_a_build_folder_that_vanishes_is_not_cached_as_the_programs_error(sandbox, monkeypatch):
    # a temporary directory of this test's own, searchable by the compile uid as /tmp is
    private = Path(tempfile.mkdtemp(prefix="tczoo-vanish-"))
    private.chmod(0o711)
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    # a slow compile (no precompiled header: flags given), unique so nothing is cached
    code = f"// {uuid.uuid4()}\n#include <bits/stdc++.h>\nint main() {{ std::cout << 1; }}\n"
    program = Program(code=code, language=Language.CPP, flags=["-O2", "-std=gnu++17"])
    stop = threading.Event()

    def cleaner() -> None:
        # once the compiler is at work in the folder (its jail started), the folder goes
        while not stop.is_set():
            for d in private.glob("tczoo-build-*"):
                if (d / "main.cpp").exists():
                    stop.wait(0.6)
                    shutil.rmtree(d, ignore_errors=True)
                    return
            time.sleep(0.005)

    thread = threading.Thread(target=cleaner)
    thread.start()
    try:
        first = sandbox.compiler.compile(program)
    finally:
        stop.set()
        thread.join()
        shutil.rmtree(private, ignore_errors=True)
    assert not first.ok and first.infrastructure, first
    monkeypatch.setattr(tempfile, "tempdir", None)
    again = sandbox.compiler.compile(program)
    assert again.ok, again.message  # nothing was remembered of the failed attempt

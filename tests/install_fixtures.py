"""Installing tczoo (and plugins) into fresh virtualenvs, for the tests that check what
a user installs. The virtualenvs download nothing: their dependencies are this
interpreter's site-packages, listed in a ``.pth`` file, and pip runs with
``--no-index --no-deps``."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path


def fresh_venv(path: Path) -> Path:
    """A virtualenv whose only packages are what pip installs into it, plus this
    interpreter's dependencies (read-only, through a .pth file). Returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = path / "bin" / "python"
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    deps = [p for p in dict.fromkeys([sysconfig.get_paths()["purelib"], *sys.path])
            if p.endswith(("site-packages", "dist-packages")) and Path(p).is_dir()]
    (Path(site) / "zz_tczoo_test_deps.pth").write_text("\n".join(deps) + "\n")
    return python


def pip_install(python: Path, *args: str, cwd: Path) -> None:
    """``pip install`` into ``python``'s virtualenv, offline, without dependencies."""
    done = subprocess.run([python, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--no-build-isolation",
                           "--disable-pip-version-check", *args], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]

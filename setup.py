"""The package list, derived: every folder with an ``__init__.py`` under the kernel
(``tczoo/``) and under the top-level folders that install into the ``tczoo`` namespace
(pyproject.toml's ``[tool.setuptools.package-dir]``), so a new subpackage cannot be left
out of the wheel. Everything else is declared in pyproject.toml."""

import tomllib
from pathlib import Path

from setuptools import find_packages, setup

ROOT = Path(__file__).resolve().parent
mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
packages = []
for name, folder in sorted(mapping.items()):
    packages += [name] + [f"{name}.{sub}" for sub in find_packages(str(ROOT / folder))]
setup(packages=sorted(set(packages)))

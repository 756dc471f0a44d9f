"""Fixtures shared across test modules."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def sandbox():
    """One sandbox for the whole session (its worker slots and compile cache are reused)."""
    from tczoo.sandbox import Sandbox

    with Sandbox() as box:
        yield box

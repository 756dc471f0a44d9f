"""HardTestGen (HARDTESTS, He et al., 2025): the full test-synthesis pipeline."""

from tczoo.methods.hardtestgen.method import HardTestGen, HardTestGenParams

__all__ = ["HardTestGen", "HardTestGenParams"]

"""WEDGE (Yang, Wang, Stoica and Pei, NeurIPS 2025): performance-characterising
conditions mined from a reference's profile, then coverage-guided fuzzing for slow
inputs — the reference-based baseline of STAB's Table 4.

:mod:`.method` (the method and its parameters), :mod:`.profile` (contrastive profiling
on line hit counts), :mod:`.conditions` (``perf_condition`` checks in a copy of the
reference), :mod:`.harness` (how the model's validator and mutator are called),
:mod:`.afl` with :mod:`.afl_driver` (AFL++ inside one sandboxed job), :mod:`.loop` (the
pure-Python fuzzing loop). See ``docs/wedge.md``.
"""

from .method import Wedge, WedgeParams

__all__ = ["Wedge", "WedgeParams"]

"""STAB (Specification-driven Testing for Algorithmic Bottlenecks; Lim, Hahn, Jin and Han, 2026,
arXiv:2605.27981).

Constraint saturator: :mod:`.constraints` (typed records + regex parser),
:mod:`.graph` (variable dependency graph), :mod:`.saturator` (rule path, CP-SAT path,
greedy fallback, validation), :mod:`.boundary` (the ``tczoo stab boundary`` command).
Adversarial scenario injector: :mod:`.scenarios` (catalog in ``catalog/``).
See ``docs/stab-saturator.md``.
"""

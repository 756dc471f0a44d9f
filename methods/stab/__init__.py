"""STAB (Specification-driven Testing for Algorithmic Bottlenecks; Lim, Hahn, Jin and Han, 2026,
arXiv:2605.27981).

Constraint saturator (M1): :mod:`.constraints` (the parser: sections, sentences,
``parse_constraints``), :mod:`.normalize` (LaTeX, Unicode and words to one text),
:mod:`.chains` (tokens, formulas, records from comparator chains), :mod:`.records`
(the record types), :mod:`.numbers`, :mod:`.graph` (variable dependency graph),
:mod:`.saturator` (rule path, CP-SAT path, greedy fallback), :mod:`.check` (values
against records), :mod:`.boundary` (``tczoo stab boundary``).
Adversarial scenario injector (M2): :mod:`.scenarios` (catalog in ``catalog/``).
Generation: :mod:`.method` (the four variants), :mod:`.inputs` (input layout and checker).
See ``docs/stab.md``, ``docs/stab-saturator.md``, ``docs/stab-scenarios.md``.
"""

"""Analyses over recorded runs or built benchmarks that are not runners: a paper's
figures beside its main table (``tcbench``: TC-Bench Figures 4a, 4c, 6, 7, 8 and A.5),
registered in the ``tczoo.analyses`` entry-point group (reproduction targets run them)
with their commands in ``tczoo.commands``. An analysis may use a runner (it re-scores
with one); it never imports a method, and the kernel never imports an analysis."""

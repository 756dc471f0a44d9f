"""Runners: score test suites the way the papers do, and build benchmarks.

One module per runner (``hackrate``, ``efficiency``, ``bugfind``, ``verdict``,
``wrongselect``, ``reproduce``). Runners import :mod:`tczoo`; :mod:`tczoo` never
imports a runner by name.
"""

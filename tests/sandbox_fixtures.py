"""Sandboxes that fail on purpose, around the real one (tests of infrastructure failures)."""

from __future__ import annotations

from tczoo.sandbox import RunResult, Verdict


class DyingFor:
    """The real sandbox, except that every run (``run_many``) of a program whose code
    contains ``marker`` comes back SE, as from a worker that died on each retry."""

    def __init__(self, sandbox, marker: str):
        self._sandbox, self.marker, self.failed = sandbox, marker, 0

    def __getattr__(self, name):
        return getattr(self._sandbox, name)

    def run_many(self, jobs, **kw):
        jobs = list(jobs)
        real = iter(self._sandbox.run_many([j for j in jobs if self.marker not in j.program.code], **kw))
        for j in jobs:
            if self.marker in j.program.code:
                self.failed += 1
                yield RunResult(verdict=Verdict.SE, message="worker failed: WorkerDied: worker closed its pipe")
            else:
                yield next(real)

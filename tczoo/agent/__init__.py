"""Generator–validator agents as one loop in the kernel's terms (docs/agents.md).

An agent writes programs — an input validator, a generator with the commands that run
it, an output checker — runs them in the sandbox, observes what they did and revises
them, within a round budget, every round recorded on the suite (``TestSuite.rounds``)
for ``tczoo show`` and ``tczoo view``. CodeContests+ (``ccplus``), CodeContests-O
(``cco``) and AutoCode (``autocode``) are configurations of this one loop:

- ``AgentSteps``  which programs the agent writes and with which templates (its identity);
- ``AgentParams`` its round budgets, candidates and limits (``--params``; defaults: its paper's);
- ``AgentLoop``   the loop itself (``tczoo.agent.loop``, whose docstring walks through it);
- ``AgentMethod`` a ``Method`` that runs the loop: a new agent is a subclass naming its
  steps and its ``Params`` — a plugin's fourth agent is a dozen lines and its templates.
"""

from __future__ import annotations

from typing import ClassVar

from tczoo.agent.config import AgentParams, AgentSteps
from tczoo.agent.loop import AgentLoop
from tczoo.method import Context, Method
from tczoo.schema import OracleKind, Setting, Task, TestSuite


class AgentMethod(Method):
    """A method that is an agent: ``steps`` say what it writes, ``Params`` (a subclass of
    ``AgentParams``) its budgets. Scored as a judge of labelled submissions
    (``agreement``), as the three papers score their suites."""

    steps: ClassVar[AgentSteps]
    setting = Setting.SPEC_CORRECT
    produces = OracleKind.EXPECTED_OUTPUT  # or the agent's checker, when it writes one
    runner = "agreement"
    Params = AgentParams

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        params = self.params
        assert isinstance(params, AgentParams), f"{type(self).__name__}.Params must subclass AgentParams"
        return await AgentLoop(self.name, self.steps, params, task, ctx).run()


__all__ = ["AgentLoop", "AgentMethod", "AgentParams", "AgentSteps"]

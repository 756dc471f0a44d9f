"""CodeContests+ (Wang et al., 2025, arXiv:2506.05817): a generator agent and a validator
agent. The validator agent writes an input validator; the generator agent writes a
generator program and the commands that run it; the inputs the validator rejects, with
its comments, go back to the generator agent for a revision, until every input passes;
outputs come from the correct code; a checker is written for problems that accept
several answers. One configuration of the agent loop (``tczoo.agent``; docs/agents.md
says what differs from the paper: Python generators instead of testlib, our round
budgets where the paper gives none). The suite is every test the generator's commands
make, as many commands as the agent writes (the paper's: its released data are the
suites the commands produce, in 1x-5x versions); ``use_task_budget`` asks for and keeps
the runner's budget instead (ours).
"""

from __future__ import annotations

from pydantic import Field

from tczoo.agent import AgentMethod, AgentParams, AgentSteps
from tczoo.schema import Setting


class CcplusParams(AgentParams):
    validator_rounds: int = Field(3, ge=1, description="rounds of writing and revising the validator until it "
                                                       "accepts every sample (ours: the paper gives no number)")
    generator_rounds: int = Field(3, ge=1, description="rounds of the generator-validator feedback (ours: the "
                                                       "paper revises until the inputs pass, with no number given)")


class Ccplus(AgentMethod):
    name = "ccplus"
    paper = "CodeContests+ (Wang et al., 2025, arXiv:2506.05817)"
    summary = "generator agent (program + commands) revised from a validator agent's verdicts; checker if needed"
    setting = Setting.SPEC_CORRECT
    Params = CcplusParams
    steps = AgentSteps(validator="ccplus/validator", validator_revise="ccplus/validator_revise",
                       generator="ccplus/generator", generator_revise="ccplus/generator_revise",
                       checker="ccplus/checker", checker_revise="ccplus/checker_revise")

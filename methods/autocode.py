"""AutoCode (Zhou et al., 2025, arXiv:2510.12803): a validator selected among three
candidates by how well each judges 10 valid and 30 near-valid illegal inputs (the
model's own probes, with the task's samples); a generator with three strategies —
small inputs enumerated exhaustively, random and extreme inputs, inputs that make a
solution of the wrong complexity time out — whose inputs the selected validator
filters, deduplicated and drawn from the three buckets in turn; and, for problems with
several correct answers, a checker selected among three candidates on labelled
scenarios. Interactive problems (AutoCode's interactor) are skipped, one failure line,
no LLM call: the zoo runs no interactor. The suite is every input the validator keeps,
bucket-balanced (the paper's: filtered, deduplicated, sampled by bucket; it fixes no
size we could find); ``use_task_budget`` asks for and keeps the runner's budget instead
(ours). One configuration of the agent loop (``tczoo.agent``); docs/agents.md lists
what differs from the paper.
"""

from __future__ import annotations

from pydantic import Field

from tczoo.agent import AgentMethod, AgentParams, AgentSteps
from tczoo.schema import Setting


class AutocodeParams(AgentParams):
    validator_candidates: int = Field(3, ge=1, description="validator candidates (the paper: 3)")
    validator_rounds: int = Field(1, ge=1, description="selection rounds; more revise the best from its mistakes "
                                                       "(ours)")
    probe_valid: int = Field(10, ge=0, description="valid probe inputs (the paper: 10)")
    probe_invalid: int = Field(30, ge=0, description="near-valid illegal probe inputs (the paper: 30)")
    generator_rounds: int = Field(1, ge=1, description="the validator filters the inputs; more rounds revise the "
                                                       "generator from its rejections (ours)")
    per_command: int = Field(20, ge=1, description="inputs kept from one command (small-data enumeration; ours)")
    checker_candidates: int = Field(3, ge=1, description="checker candidates (ours: as many as validators)")
    checker_rounds: int = Field(1, ge=1, description="checker selection rounds")
    scenarios: int = Field(20, ge=1, description="labelled checker scenarios (ours)")


class Autocode(AgentMethod):
    name = "autocode"
    paper = "AutoCode (Zhou et al., 2025, arXiv:2510.12803)"
    summary = "validator chosen of 3 on valid/near-valid probes; 3-strategy generator, filtered, bucket-balanced; checker"
    setting = Setting.SPEC_CORRECT
    Params = AutocodeParams
    steps = AgentSteps(probes="autocode/probes", validator="autocode/validator",
                       validator_revise="autocode/validator_revise", generator="autocode/generator",
                       generator_revise="autocode/generator_revise", scenarios="autocode/scenarios",
                       checker="autocode/checker", checker_revise="autocode/checker_revise",
                       buckets=("small", "random", "tle"))

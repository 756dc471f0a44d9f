"""CodeContests-O (Cai et al., 2026, arXiv:2601.13682): CodeContests+'s generator and
validator agents, then feedback rounds — the suite is run on known correct and
incorrect solutions, and the correct ones it rejects and the incorrect ones it accepts
(up to 10 of each, sampled) drive a revision of the generator (search/replace edits or
a new program) and its commands (some dropped, some added), for three judged
generations (the authors' ``max_iterations``).

The method sees the spec+correct+wrong setting's share of the wrong submissions (and
the runner's correct programs) and nothing else. The authors' evaluation feeds back and
scores on the same pool (in-sample), so the agreement runner judges a cco suite on every
labelled submission by default (``judges_shown``); its ``judged: held_out`` option
leaves the shown ones out (ours). The suite is every test the generator's commands make
(the paper's); ``use_task_budget`` asks for and keeps the runner's budget instead (ours).
Sampling is the authors' configuration: at most 8,000 tokens, and the temperature their
code leaves to the API (it sends none; the OpenAI API's default is 1.0) (docs/agents.md).
"""

from __future__ import annotations

from pydantic import Field

from tczoo.agent import AgentMethod, AgentParams, AgentSteps
from tczoo.schema import Setting


class CcoParams(AgentParams):
    temperature: float | None = Field(1.0, ge=0, description="the authors' code sends none: the API's default "
                                                            "(OpenAI's: 1.0)")
    max_tokens: int | None = Field(8000, ge=1, description="the authors' configuration (OpenAIConfig.max_tokens; "
                                                          "its production preset too)")
    validator_rounds: int = Field(3, ge=1, description="as ccplus")
    generator_rounds: int = Field(3, ge=1, description="as ccplus: the generator-validator feedback")
    feedback_rounds: int = Field(3, ge=0, description="judged generations on the shown submissions (the authors' "
                                                      "max_iterations: 3)")
    feedback_shown: int = Field(10, ge=1, description="failing correct / passing wrong submissions shown per "
                                                      "revision (the authors' max_sample_solutions: 10)")


class Cco(AgentMethod):
    name = "cco"
    paper = "CodeContests-O (Cai et al., 2026, arXiv:2601.13682)"
    summary = "ccplus + feedback rounds: correct solutions rejected and wrong ones accepted drive the revisions"
    setting = Setting.SPEC_CORRECT_WRONG
    shown_fixes = False  # the feedback shows wrong submissions, never a corrected version
    judges_shown = True  # the authors' evaluation judges the pool that fed back (in-sample)
    Params = CcoParams
    steps = AgentSteps(validator="ccplus/validator", validator_revise="ccplus/validator_revise",
                       generator="ccplus/generator", generator_revise="ccplus/generator_revise",
                       checker="ccplus/checker", checker_revise="ccplus/checker_revise",
                       feedback="cco/feedback")

"""What an agent is: its steps (``AgentSteps``: which programs it writes, with which
templates) and its knobs (``AgentParams``: round budgets, candidates, limits).

The steps are the agent's identity — a class attribute of its method; the knobs are
what a user tunes with ``--params`` — the method's ``Params``, whose defaults are the
agent's paper's settings.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tczoo.method import MethodParams


class AgentSteps(BaseModel):
    """Templates (``"<folder>/<step>"``) of the steps an agent takes; a step without a
    template is not taken. ``buckets`` are the groups of commands the generator is
    asked for (AutoCode's strategies); with more than one, the final tests are drawn
    from the buckets in turn (bucket-balanced)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    validator: str | None = None  # write an input validator (validate_input)
    validator_revise: str | None = None  # revise it from what it misjudged
    probes: str | None = None  # valid and near-valid inputs that select among validator candidates
    generator: str  # write a generator program (generate(args)) and the commands that run it
    generator_revise: str | None = None  # revise it from failed commands and rejected inputs
    checker: str | None = None  # write an output checker (check_output(input, output, expected))
    checker_revise: str | None = None
    scenarios: str | None = None  # labelled (input, output) pairs that select among checker candidates
    feedback: str | None = None  # revise the generator from the suite run on shown submissions
    buckets: tuple[str, ...] = ("",)

    @model_validator(mode="after")
    def _buckets(self) -> "AgentSteps":
        if not self.buckets or len(set(self.buckets)) != len(self.buckets):
            raise ValueError("buckets must be distinct, at least one")
        if len(self.buckets) > 1 and any(not b or not b.isidentifier() for b in self.buckets):
            raise ValueError("named buckets are identifiers (small, random, tle ...)")
        return self


class AgentParams(MethodParams):
    """The loop's knobs. Each agent method's ``Params`` sets the defaults of its paper."""

    # validator
    validator_candidates: int = Field(1, ge=1, description="validators sampled per round; the best on the probes "
                                                           "is kept (AutoCode: 3)")
    validator_rounds: int = Field(3, ge=1, description="rounds of writing and revising the validator")
    probe_valid: int = Field(10, ge=0, description="valid probe inputs asked for (AutoCode: 10)")
    probe_invalid: int = Field(30, ge=0, description="near-valid illegal probe inputs asked for (AutoCode: 30)")
    require_validator: bool = Field(True, description="no usable validator: give up (else go on unvalidated)")
    # generator
    generator_rounds: int = Field(3, ge=1, description="rounds of writing and revising the generator from failed "
                                                       "commands and validator verdicts")
    commands: int | None = Field(None, ge=1, description="commands asked for (None: as many as the agent "
                                                     "writes, the papers' practice, or with use_task_budget the "
                                                     "runner's test budget)")
    use_task_budget: bool = Field(False, description="ours: ask for the runner's test budget of commands and keep "
                                                     "at most that many tests (the papers use the whole suite "
                                                     "their commands make)")
    max_commands: int = Field(200, ge=1, description="commands run at most (an answer listing more: the first ones; "
                                                     "ours, a bound on sandbox time)")
    per_command: int = Field(1, ge=1, description="inputs kept from one command (a command may return a list)")
    max_tests: int | None = Field(None, ge=1, description="tests kept at the end (None: every valid one)")
    # checker
    checker: Literal["auto", "always", "never"] = Field(
        "auto", description="write a checker: when the problem admits several answers (auto), always, never")
    checker_candidates: int = Field(1, ge=1, description="checkers sampled; the best on the scenarios is kept")
    checker_rounds: int = Field(2, ge=1, description="rounds of writing and revising the checker")
    scenarios: int = Field(20, ge=1, description="labelled checker scenarios asked for")
    # feedback on shown submissions (spec+correct+wrong)
    feedback_rounds: int = Field(0, ge=0, description="judged generations on the shown correct and wrong "
                                                      "submissions, each but the last followed by a revision")
    feedback_shown: int = Field(10, ge=1, description="failing correct / passing wrong submissions shown per "
                                                      "revision (CodeContests-O: 10)")
    # limits and prompt sizes
    time_factor: float = Field(2.0, gt=0, description="correct programs run under the problem's limits times this")
    generator_time_ms: int = Field(10_000, ge=100, description="CPU time per generator command")
    validator_time_ms: int = Field(5_000, ge=100, description="CPU time per validator call")
    checker_time_ms: int = Field(5_000, ge=100, description="CPU time per checker call")
    max_input_kb: int = Field(4096, ge=1, description="largest input a command may make")
    shown_chars: int = Field(1000, ge=50, description="an input or output longer than this is clipped in a "
                                                      "prompt (CodeContests-O: 1000)")
    code_chars: int = Field(6000, ge=200, description="a submission's code shown in a prompt is clipped here")

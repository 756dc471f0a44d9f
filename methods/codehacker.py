"""CodeHacker (Shi et al., 2026, arXiv:2602.20213): an agent that hacks submissions.

Phase I (calibration) makes the agent's own judging tools trustworthy before any hack
counts: the validator is attacked with adversarial probes — legal inputs a careless
validator rejects, illegal ones it lets through — and revised until it judges them all;
for a problem with several right answers the checker is attacked the same way with
labelled outputs (false positives and false negatives) and revised. Phase II attacks the
submissions: a stress generator makes the first tests (small random inputs, bounds,
the largest sizes), the tests judge the wrong submissions the task shows, and every one
that survives is analysed and hacked — logic-targeted inputs, anti-hash inputs built from
its constants, worst cases — until none survives or the rounds are spent. A hack counts
only on an input the calibrated validator accepts, with the expected output of a correct
solution (and, where there is one, accepted by the calibrated checker).

One configuration of the kernel's agent loop (``tczoo.agent``): the probes and the
checker scenarios are this agent's adversarial probes, the feedback rounds its Phase II.
The tests the stress generator made before the first hack are marked as the suite's base
(``tczoo.schema.BASE_TEST``) and come first: the ``agreement`` runner reports their
TPR/TNR beside the whole suite's, so a record says how much the hacks raised the TNR
on the jury's wrong submissions (the paper's headline measure). The paper judges the
submissions it hacked (``judges_shown``); ``--params '{"runner:agreement": {"judged":
"held_out"}}'`` judges only the ones it never saw.

What differs from the paper (docs/codehacker.md): generators are Python with commands,
not C++ on testlib.h; the probes are written once from the statement, not re-drawn
against each revision of the validator's code until K consecutive clean rounds; the
code analyst reads the submission in the prompt, without tools to run code; a hack is
kept as a test and judged with the rest, never run against the submission alone.
"""

from __future__ import annotations

from pydantic import Field

from tczoo.agent import AgentLoop, AgentMethod, AgentParams, AgentSteps
from tczoo.method import Context
from tczoo.schema import BASE_TEST, Setting, Task, TestSuite


class CodehackerParams(AgentParams):
    probe_valid: int = Field(10, ge=0, description="legal adversarial probes of the validator",
                             json_schema_extra={"paper": "— (not found; ours)"})
    probe_invalid: int = Field(20, ge=0, description="illegal adversarial probes of the validator",
                               json_schema_extra={"paper": "— (not found; ours)"})
    validator_rounds: int = Field(3, ge=1, description="calibration rounds of the validator (write + revisions "
                                                       "until every probe is judged as labelled)",
                                  json_schema_extra={"paper": "until K consecutive clean attack rounds (K not "
                                                              "found; ours: 3 rounds)"})
    generator_rounds: int = Field(2, ge=1, description="rounds of the stress generator against the validator",
                                  json_schema_extra={"paper": "— (ours)"})
    checker_rounds: int = Field(3, ge=1, description="calibration rounds of the checker",
                                json_schema_extra={"paper": "until K consecutive clean attack rounds (ours: 3)"})
    scenarios: int = Field(12, ge=1, description="labelled adversarial outputs that calibrate the checker",
                           json_schema_extra={"paper": "— (not found; ours)"})
    feedback_rounds: int = Field(3, ge=0, description="Phase II: judged generations on the shown wrong "
                                                      "submissions, each but the last followed by a hack round",
                                 json_schema_extra={"paper": "— (not found; ours)"})
    feedback_shown: int = Field(10, ge=1, description="surviving submissions shown per hack round",
                                json_schema_extra={"paper": "— (ours)"})


class _HackLoop(AgentLoop):
    """The agent loop, remembering which commands the stress generator had before the
    first hack round, so the final suite can say which tests are its base."""

    base_commands: list[str] | None = None

    async def feedback_stage(self) -> None:
        self.base_commands = list(self.commands)
        await super().feedback_stage()

    def finish(self) -> None:
        super().finish()
        if self.base_commands is None:
            return
        base = {" ".join(c.split()) for c in self.base_commands}
        tests = self.suite.tests
        for t in tests:
            t.meta[BASE_TEST] = " ".join(str(t.meta.get("command", "")).split()) in base
        self.suite.tests = [t for t in tests if t.meta[BASE_TEST]] + [t for t in tests if not t.meta[BASE_TEST]]


class Codehacker(AgentMethod):
    name = "codehacker"
    paper = "CodeHacker (Shi et al., 2026, arXiv:2602.20213)"
    summary = ("validator and checker calibrated on adversarial probes; stress tests, then the surviving wrong "
               "submissions hacked (logic, anti-hash, worst case)")
    setting = Setting.SPEC_CORRECT_WRONG
    shown_fixes = False  # it attacks the submissions themselves; a corrected version is never read
    judges_shown = True  # the paper measures the TNR on the submissions it attacked
    Params = CodehackerParams
    steps = AgentSteps(probes="codehacker/probes", validator="ccplus/validator",
                       validator_revise="ccplus/validator_revise", generator="ccplus/generator",
                       generator_revise="ccplus/generator_revise", scenarios="codehacker/scenarios",
                       checker="ccplus/checker", checker_revise="ccplus/checker_revise", feedback="codehacker/hack")

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        params = self.params
        assert isinstance(params, AgentParams)
        return await _HackLoop(self.name, self.steps, params, task, ctx).run()

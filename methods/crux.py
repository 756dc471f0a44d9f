"""CRUX: the model writes inputs and predicts their outputs; nothing is executed.

TC-Bench §3.1.1 (after Gu et al., 2024, CRUXEval). Setting: specification only.

Choices where the paper is silent: one call asks for ``budget`` tests as a JSON array
(up to ``max_rounds`` further calls top up a short answer, so the budget is honoured
when the model under-delivers); duplicates (whitespace-normalised inputs) are dropped.
"""

from __future__ import annotations

from pydantic import Field


from tczoo.parsing import tests_from_json_answer
from tczoo.method import Context, Method, MethodParams
from tczoo.schema import OracleKind, Setting, Task, TestSuite, dedupe


class CruxParams(MethodParams):
    max_rounds: int = Field(2, ge=1, description="calls that top up an answer with fewer tests than the budget",
                            json_schema_extra={"paper": "— (not stated; ours)"})


class Crux(Method):
    name = "crux"
    paper = "TC-Bench §3.1.1 (Gu et al., 2024)"
    summary = "LLM writes inputs and predicts their outputs"
    setting = Setting.SPEC
    produces = OracleKind.EXPECTED_OUTPUT
    runner = "hackrate"
    Params = CruxParams
    single_turn = {"max_rounds": 1}  # no top-up call for a short answer

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        tests = []
        for round_ in range(self.params.max_rounds):
            missing = task.budget - len(tests)
            if missing <= 0:
                break
            answers = await ctx.ask(suite, "crux/generate", task=task, n_tests=missing,
                                    item=f"round{round_}", first_sample=round_)
            if not answers:
                break
            new = tests_from_json_answer(suite, answers[0].text, with_outputs=True, origin="crux",
                                         item=f"round{round_}")
            tests = dedupe(tests + new)
            if not new:
                break
        suite.tests = tests[: task.budget]
        return suite

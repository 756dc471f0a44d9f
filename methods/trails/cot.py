"""Zero-shot chain-of-thought correctness verdict: TRAILS's first baseline (§3.3).

The model is shown the specification and the program under test, asked to reason step
by step (Kojima et al.'s zero-shot CoT) and to end with the paper's labels,
``Verdict: CORRECT`` or ``Verdict: INCORRECT`` (§3.3). One answer per task; an answer whose verdict cannot be read is
asked again once (``parse_retries``), after which the suite carries an undecided
verdict (``correct=None``, reason ``unparsed``) that the verdict runner counts apart.
"""

from __future__ import annotations

from tczoo.method import Context, Method
from tczoo.methods.trails.common import VerifierParams, ask_verdict
from tczoo.schema import CodeVerdict, OracleKind, Setting, Task, TestSuite


class CoTParams(VerifierParams):
    pass


class ZeroShotCoT(Method):
    name = "cot"
    paper = "TRAILS (Tambon & Papadakis, 2026) §3.3 zero-shot CoT baseline"
    summary = "one step-by-step verdict over specification + code (CORRECT / INCORRECT)"
    setting = Setting.SPEC_TARGET
    produces = OracleKind.LLM_JUDGE
    runner = "verdict"
    functional = True  # call-based problems too (Task.entry_point)
    Params = CoTParams
    single_turn = {"parse_retries": 0}  # an unreadable verdict is not asked again

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        suite.oracle.judge_prompt = "cot/verdict"
        verdict, read = await ask_verdict(ctx, suite, "cot/verdict", item="verdict", retries=self.params.parse_retries,
                                          task=task, target=task.target)
        reason = "judged" if verdict is not None else ("unparsed" if read else "llm")
        suite.verdict = CodeVerdict(correct=verdict, reason=reason, judgements=int(verdict is not None))
        return suite

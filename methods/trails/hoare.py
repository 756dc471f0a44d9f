"""HoarePrompt: correctness from natural-language program states, statement by statement
(Bouras et al., 2025), TRAILS's second baseline (§3.3).

1. *Precondition*: the model states what holds before the program runs (from the
   specification and the program).
2. *Postconditions*: the program is split into statements (``structure``: Python via
   ``ast``; C, C++, Java via a statement splitter) and walked in order. Each statement
   gets one model call that turns the state before it into the state after it
   ("strongest postcondition" in natural language); an ``if`` walks both branches
   (the condition added to the state) and one call merges them; a loop is *unrolled*
   ``unroll`` times (k; the body walked from the state of the previous iteration) and
   one call summarises the loop from the state before it and the unrolled states
   (k = 0: from the loop's code alone). Function bodies are walked from "called with
   the caller's arguments". States are capped in length so prompts stay bounded.
3. *Verdict*: the program annotated with the states (comments after the code they
   follow) goes to the model with the specification, which ends with the labels TRAILS
   §3.3 says HoarePrompt returns, ``Verdict: CORRECT`` / ``INCORRECT`` (asked again
   once when unreadable).

A walk that would take more than ``max_calls`` model calls (ours: the paper's pipeline
has no cap; deep loop nests multiply with k) stops with an undecided verdict, reason
``call_budget``, which the verdict runner counts apart. TRAILS ran HoarePrompt's default
configuration, which does not unroll loops (§3.3: "no unrolling"; the authors'
default config: 0), so the default here is ``unroll: 0``; ``unroll: 3`` is the
HoarePrompt paper's k = 3, an option.
"""

from __future__ import annotations

from pydantic import Field

from tczoo.method import Context, Method
from tczoo.methods.trails.answers import STATE_CAP, read_state
from tczoo.methods.trails.common import VerifierParams, ask_verdict
from tczoo.methods.trails.structure import Block, Cond, Func, Loop, Node, Stmt, StructureError, program_tree
from tczoo.schema import CodeVerdict, Language, OracleKind, Setting, Task, TestSuite

UNKNOWN = "the state is unknown"
# what a weak model copies from the instructions instead of describing a state
ECHOES = {"the state after the code", "the state after the loop", "the state after the conditional",
          "the state after it", "description", "your description", "..."}


class HoareParams(VerifierParams):
    unroll: int = Field(0, ge=0, le=10, description="loop iterations unrolled before a loop is summarised (k; TRAILS §3.3: 0, no unrolling)")
    max_calls: int = Field(300, ge=10, description="model calls one program may take (ours)")


class _Budget(Exception):
    pass


class _NoAnswer(Exception):
    pass


class Annotator:
    """Walks a statement tree, asking the model for the state after each node, and
    writes the annotated program as it goes."""

    def __init__(self, ctx: Context, suite: TestSuite, language: Language, unroll: int, max_calls: int):
        self.ctx, self.suite = ctx, suite
        self.lang = language.value
        self.comment = "#" if language is Language.PYTHON else "//"
        self.python = language is Language.PYTHON
        self.unroll, self.max_calls = unroll, max_calls
        self.calls = 0
        self.lines: list[str] = []

    # ------------------------------------------------------------------ model calls

    async def state(self, template: str, item: str, **variables) -> str:
        if self.calls >= self.max_calls:
            raise _Budget()
        self.calls += 1
        answers = await self.ctx.ask(self.suite, template, first_sample=0, item=item, language=self.lang, **variables)
        if not answers:
            raise _NoAnswer(item)
        state = read_state(answers[0].text)
        if state.strip(" .*`<>\"'").lower() in ECHOES or not state:
            self.suite.fail("parse", "no_state", answers[0].text[-300:], item)
            return UNKNOWN
        return state

    # ------------------------------------------------------------------ output

    def emit(self, depth: int, text: str) -> None:
        pad = "    " * depth
        for line in text.strip("\n").splitlines() or [""]:
            self.lines.append((pad + line).rstrip())

    def note(self, depth: int, state: str) -> None:
        self.lines.append("    " * depth + f"{self.comment} state: {state}")

    # ------------------------------------------------------------------ the walk

    async def walk(self, nodes: list[Node], pre: str, depth: int, *, record: bool,
                   in_function: bool = False) -> str:
        for node in nodes:
            pre = await self.node(node, pre, depth, record=record, in_function=in_function)
        return pre

    async def node(self, node: Node, pre: str, depth: int, *, record: bool, in_function: bool) -> str:
        if isinstance(node, Stmt):
            if node.kind == "skip":
                if record:
                    self.emit(depth, node.code)
                return pre
            post = await self.state("hoareprompt/statement", "statement", pre=pre, code=node.code, kind=node.kind,
                                    in_function=in_function)
            if record:
                self.emit(depth, node.code)
                self.note(depth, post)
            return post
        if isinstance(node, Cond):
            if record:
                self.emit(depth, node.head + (":" if self.python and not node.head.endswith(":") else ""))
            holds = _cap(f"{pre}; and `{node.condition}` holds")
            then = await self.walk(node.then, holds, depth + 1, record=record, in_function=in_function)
            orelse = None
            if node.orelse:
                if record:
                    self.emit(depth, "else:" if self.python else "else")
                fails = _cap(f"{pre}; and `{node.condition}` does not hold")
                orelse = await self.walk(node.orelse, fails, depth + 1, record=record, in_function=in_function)
            post = await self.state("hoareprompt/branch", "branch", pre=pre, head=node.head, then_state=then,
                                    else_state=orelse)
            if record:
                self.note(depth, post)
            return post
        if isinstance(node, Loop):
            unrolled, state = [], pre
            for i in range(self.unroll):
                entering = _cap(f"{state}; the loop `{node.head}` starts iteration {i + 1}")
                state = await self.walk(node.body, entering, depth + 1, record=False, in_function=in_function)
                unrolled.append(state)
            post = await self.state("hoareprompt/loop", "loop", pre=pre, code=node.code, unrolled=unrolled)
            if record:
                self.emit(depth, node.code)
                self.note(depth, post)
            return post
        if isinstance(node, Func):
            if record:
                self.emit(depth, node.head + ("" if self.python else " {"))
            called = f"`{node.head.rstrip(':').strip()}` is called; its parameters hold the values its callers pass"
            # the body's last note is the function's final state; the caller's state is unchanged
            await self.walk(node.body, called, depth + 1, record=record, in_function=True)
            if record and not self.python:
                self.emit(depth, "}")
            return pre
        # Block: a class, try, with, namespace or bare {...}: walk its statements in order
        if record and node.head:
            self.emit(depth, node.head + ("" if self.python or node.head.endswith("{") else " {"))
        inner = depth + 1 if node.head else depth
        post = await self.walk(node.body, pre, inner, record=record, in_function=in_function)
        if record and node.head and not self.python:
            self.emit(depth, "}")
        return post


def _cap(text: str) -> str:
    return text if len(text) <= STATE_CAP else "..." + text[-STATE_CAP:]


class HoarePrompt(Method):
    name = "hoareprompt"
    paper = "HoarePrompt (Bouras et al., 2025) as TRAILS §3.3 runs it"
    summary = "precondition, natural-language postconditions statement by statement (loops unrolled k times), verdict"
    setting = Setting.SPEC_TARGET
    produces = OracleKind.LLM_JUDGE
    runner = "verdict"
    functional = True  # call-based problems too (Task.entry_point)
    Params = HoareParams

    async def generate(self, task: Task, ctx: Context) -> TestSuite:
        suite = ctx.new_suite(task)
        suite.oracle.judge_prompt = "hoareprompt/verdict"
        target = task.target
        try:
            tree = program_tree(target.code, target.language)
        except StructureError as exc:
            suite.fail("parse", "not_a_program", str(exc), "structure")
            suite.verdict = CodeVerdict(reason="no_structure")
            return suite
        answers = await ctx.ask(suite, "hoareprompt/precondition", item="precondition", task=task, target=target)
        if not answers:
            suite.verdict = CodeVerdict(reason="llm")
            return suite
        precondition = read_state(answers[0].text) or UNKNOWN
        walker = Annotator(ctx, suite, target.language, self.params.unroll, self.params.max_calls)
        detail: dict = {"precondition": precondition}
        try:
            final = await walker.walk(tree, precondition, 0, record=True)
        except _Budget:
            suite.fail("method", "call_budget", f"more than {self.params.max_calls} model calls", "postconditions")
            suite.verdict = CodeVerdict(reason="call_budget", detail={**detail, "calls": walker.calls})
            return suite
        except _NoAnswer as exc:
            suite.verdict = CodeVerdict(reason="llm", detail={**detail, "calls": walker.calls, "at": str(exc)})
            return suite
        annotated = "\n".join(walker.lines)
        detail.update(calls=walker.calls, final_state=final, annotated=annotated)
        verdict, read = await ask_verdict(ctx, suite, "hoareprompt/verdict", item="verdict",
                                          retries=self.params.parse_retries, task=task, target=target,
                                          precondition=precondition, annotated=annotated)
        reason = "judged" if verdict is not None else ("unparsed" if read else "llm")
        suite.verdict = CodeVerdict(correct=verdict, reason=reason, judgements=int(verdict is not None), detail=detail)
        return suite

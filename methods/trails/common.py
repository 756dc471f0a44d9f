"""What the three verifiers share: their sampling defaults, asking for a verdict with one
retry, and showing program text to a model."""

from __future__ import annotations

import re

from pydantic import Field

from tczoo.method import Context, MethodParams
from tczoo.methods.trails.answers import read_verdict
from tczoo.schema import TestSuite

SHOW_CHARS = 4000  # characters of one input or output shown to a model


class VerifierParams(MethodParams):
    """TRAILS §3.2-3.3: every model samples at temperature 0.5 (HoarePrompt's default)."""

    temperature: float | None = Field(0.5, ge=0, description="sampling temperature (the paper's 0.5)")
    parse_retries: int = Field(1, ge=0, le=5, description="new answers asked for when a verdict cannot be read")


async def ask_verdict(ctx: Context, suite: TestSuite, template: str, *, item: str, retries: int,
                      **variables) -> tuple[bool | None, int]:
    """(verdict, answers read): True/False from the first answer that states one; None
    when the model never answered readably in 1 + ``retries`` tries (each recorded)."""
    read = 0
    for attempt in range(1 + retries):
        answers = await ctx.ask(suite, template, first_sample=attempt, item=item, **variables)
        if not answers:
            continue  # the provider failed; ctx.ask recorded why
        read += 1
        verdict = read_verdict(answers[0].text)
        if verdict is not None:
            return verdict, read
        suite.fail("parse", "no_verdict", answers[0].text[-300:], item)
    return None, read


def shown(text: str, limit: int = SHOW_CHARS) -> str:
    """``text`` cut to ``limit`` characters for a prompt, saying how much was left out."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n... [{len(text) - limit} more characters not shown]"


def fence(*texts: str) -> str:
    """A code fence longer than any backtick run in ``texts`` (so none closes it early)."""
    longest = max((len(m) for t in texts for m in re.findall(r"`+", t)), default=0)
    return "`" * max(3, longest + 1)

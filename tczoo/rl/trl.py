"""tczoo's reward in TRL's calling convention (``GRPOTrainer(reward_funcs=[...])``).

TRL calls a reward function with lists — ``prompts``, ``completions`` (text, or chat
messages for a conversational data set), ``completion_ids`` — and every other column of
the data set as a keyword list, and takes one float per completion, or None where the
function has no reward: TRL then leaves that completion out of the group's mean and
standard deviation and gives it no advantage. ``tczoo rl export --layout trl`` writes the
reward reference in the column ``tczoo``.

    from tczoo.rl.trl import tczoo_reward                       # default options
    from tczoo.rl.trl import reward_function, async_reward_function
    fn = reward_function(time_budget_s=60, workers=8)            # tczoo.rewards.scorer options
    fn = async_reward_function(time_budget_s=60)                 # awaited on TRL's event loop

The batch is scored at once (``tczoo.rewards.RewardScorer.score_many``). When TRL passes
``log_metric``/``log_extra``, the share of completions without a reward is logged as
``tczoo/no_reward`` and each completion's reason as the column ``tczoo_reason``.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable

from tczoo.rewards import RewardConfigError, arewards, rewards


def completion_text(completion: Any) -> str:
    """A completion as text: a string, or the last message of a chat completion."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        content = completion[-1].get("content", "")
        if isinstance(content, list):  # content parts
            return "".join(p.get("text", "") for p in content if isinstance(p, dict))
        return str(content)
    raise RewardConfigError(f"cannot read a completion of type {type(completion).__name__}")


def reward_function(*, column: str = "tczoo", name: str = "tczoo_reward",
                    **options: Any) -> Callable[..., list[float | None]]:
    """A GRPO reward function reading references from ``column``; ``options`` go to
    ``tczoo.rewards.scorer``."""

    def fn(prompts: Any = None, completions: Any = None, completion_ids: Any = None,
           **kwargs: Any) -> list[float | None]:
        refs, texts = _batch(column, completions, kwargs)
        return _as_trl(rewards(refs, texts, **options), kwargs)

    fn.__name__ = fn.__qualname__ = name
    return fn


def async_reward_function(*, column: str = "tczoo", name: str = "tczoo_reward",
                          **options: Any) -> Callable[..., Awaitable[list[float | None]]]:
    """The same as a coroutine function: TRL (>= 1.0) awaits async reward functions on its
    own event loop, all of them at once, while the synchronous ones run in turn. The
    process's scorer does the work on its loop (shared gate and pool, identical
    completions in flight scored once, each with its own time budget)."""

    async def fn(prompts: Any = None, completions: Any = None, completion_ids: Any = None,
                 **kwargs: Any) -> list[float | None]:
        refs, texts = _batch(column, completions, kwargs)
        return _as_trl(await arewards(refs, texts, **options), kwargs)

    fn.__name__ = fn.__qualname__ = name
    return fn


def _batch(column: str, completions: Any, kwargs: dict[str, Any]) -> tuple[list[Any], list[str]]:
    if completions is None:
        raise RewardConfigError("no completions given")
    refs = kwargs.get(column)
    if refs is None:
        raise RewardConfigError(f"the data set has no {column!r} column of tczoo reward references "
                                "(export it with tczoo rl export --layout trl)")
    return list(refs), [completion_text(c) for c in completions]


def _as_trl(results: list[Any], kwargs: dict[str, Any]) -> list[float | None]:
    log_metric, log_extra = kwargs.get("log_metric"), kwargs.get("log_extra")
    if callable(log_metric) and results:
        log_metric("tczoo/no_reward", sum(r.score is None for r in results) / len(results))
    if callable(log_extra):
        log_extra("tczoo_reason", [r.reason for r in results])
    return [r.score for r in results]


tczoo_reward = reward_function()


def remote_reward_function(url: str, token: str | None = None, *, column: str = "tczoo",
                           name: str = "tczoo_reward") -> Callable[..., Awaitable[list[float | None]]]:
    """The reward function for a trainer whose rewards come from ``tczoo serve rewards``
    at ``url`` (``token``, or ``TCZOO_SERVE_TOKEN``): a coroutine function, so that TRL
    awaits it while its other async reward functions run. One request per batch; a busy
    server's 429 is waited out (``tczoo.rl.client``)."""
    from tczoo.rl.client import RewardClient

    client = RewardClient(url, token)

    async def fn(prompts: Any = None, completions: Any = None, completion_ids: Any = None,
                 **kwargs: Any) -> list[float | None]:
        refs, texts = _batch(column, completions, kwargs)
        got = await client.arewards(refs, texts)
        log_metric, log_extra = kwargs.get("log_metric"), kwargs.get("log_extra")
        if callable(log_metric) and got:
            log_metric("tczoo/no_reward", sum(g["score"] is None for g in got) / len(got))
        if callable(log_extra):
            log_extra("tczoo_reason", [g["reason"] for g in got])
        return [g["score"] for g in got]

    fn.__name__ = fn.__qualname__ = name
    fn.client = client  # type: ignore[attr-defined]
    return fn

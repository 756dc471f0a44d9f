"""tczoo's reward in verl's calling convention.

verl (``custom_reward_function.path``: this file, ``.name``: ``compute_score``) calls

    compute_score(data_source, solution_str, ground_truth, extra_info, **reward_kwargs)

once per response and takes a float or a dict with ``score`` (the other keys are logged
as ``reward_extra_info``); ``compute_score_async`` is the same for verl's reward loop,
which awaits a coroutine function on its own event loop. The reference is read from ``extra_info["tczoo"]`` (``tczoo
rl export --layout verl`` puts it there and in ``reward_model.ground_truth``, which is
the fallback). ``reward_kwargs`` (``custom_reward_function.reward_kwargs``) are the
options of ``tczoo.rewards.scorer`` (``workers``, ``time_budget_s``, ``max_tests``,
``concurrency``, ``executor``, ``address``, ``benchmarks``) and ``no_reward``.

**No reward.** verl has no value for "this response has no reward": its advantage
estimators (GRPO's group mean and std among them) take every score as a number, so a
NaN spreads to the whole group and then to the loss. ``no_reward`` says what happens
when tczoo has none (an infrastructure failure, the time budget, a task without one):

- ``"raise"`` (default): ``NoReward`` is raised and the training step fails, saying why
  — nothing is trained on a number that is not the evaluation's;
- ``"nan"``: the score is NaN (only for an advantage estimator that masks NaN);
- a number: that score (your choice of a neutral value, e.g. the kind's floor);

and ``tczoo_ok`` is 0 in the returned dict, so the logs count such responses.

``compute_code_score`` (and ``compute_code_score_async``) is verl's own kind of code
reward — a response's program judged on the problem's tests, for ``codecontests``/``apps``
data — on tczoo's sandbox (``tczoo.rl.code``): a drop-in for verl's ``prime_code``.
"""

from __future__ import annotations

import math
from typing import Any

from tczoo.rewards import RewardConfigError, areward, reward

# keyword arguments verl's reward managers add for their own reward models: not ours
_VERL_ONLY = ("reward_router_address", "reward_model_tokenizer")


class NoReward(RuntimeError):
    """tczoo has no reward for a response and ``no_reward`` is ``"raise"``."""


def reference_of(ground_truth: Any, extra_info: Any) -> Any:
    if isinstance(extra_info, dict) and extra_info.get("tczoo"):
        return extra_info["tczoo"]
    if ground_truth:
        return ground_truth
    raise RewardConfigError("no tczoo reward reference: extra_info['tczoo'] and reward_model.ground_truth are empty "
                            "(export the data set with tczoo rl export --layout verl)")


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None, *,
                  no_reward: Any = "raise", **options: Any) -> dict[str, Any]:
    for name in _VERL_ONLY:
        options.pop(name, None)
    return _as_verl(reward(reference_of(ground_truth, extra_info), solution_str, **options), no_reward)


async def compute_score_async(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None, *,
                              no_reward: Any = "raise", **options: Any) -> dict[str, Any]:
    """``compute_score`` for verl's reward loop, awaited on its event loop
    (``custom_reward_function.name: compute_score_async``; verl awaits a coroutine
    function instead of running it in an executor thread). The process's scorer does the
    work on its own loop: concurrent calls share its admission gate and pool, identical
    responses in flight are scored once, and each keeps its own time budget."""
    for name in _VERL_ONLY:
        options.pop(name, None)
    return _as_verl(await areward(reference_of(ground_truth, extra_info), solution_str, **options), no_reward)


def _as_verl(result: Any, no_reward: Any) -> dict[str, Any]:
    if result.score is not None:
        score = float(result.score)
    elif no_reward == "raise":
        raise NoReward(f"tczoo has no reward for this response ({result.reason}); "
                       "custom_reward_function.reward_kwargs.no_reward chooses another way (docs/rl.md)")
    elif no_reward == "nan":
        score = math.nan
    else:
        try:
            score = float(no_reward)
        except (TypeError, ValueError):
            raise RewardConfigError(f"no_reward must be 'raise', 'nan' or a number, not {no_reward!r}") from None
    out = {"score": score, "tczoo_ok": float(result.score is not None), "tczoo_seconds": float(result.seconds)}
    if getattr(result, "passed", None) is not None:  # a code reward: whether every test passed
        out["tczoo_passed"] = float(result.passed)
    return out


def compute_code_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None, *,
                       no_reward: Any = "raise", **options: Any) -> dict[str, Any]:
    """verl's code reward on tczoo's sandbox, for verl's code data (``codecontests``,
    ``apps``, ``taco``: ``reward_model.ground_truth`` is the tests' JSON, ``inputs`` and
    ``outputs``): the response's program judged on them (``tczoo.rl.code``). ``options``:
    ``continuous`` (the share of tests passed instead of all-or-nothing), ``time_limit_ms``,
    ``memory_mb``, ``workers``, ``ranks`` ... Calls from verl's reward threads are judged
    in shared batches."""
    from tczoo.rl.code import code_scorer

    for name in _VERL_ONLY:
        options.pop(name, None)
    [result] = code_scorer(**options).score_many([solution_str], [ground_truth])
    return _as_verl(result, no_reward)


async def compute_code_score_async(data_source: str, solution_str: str, ground_truth: Any, extra_info: Any = None,
                                   *, no_reward: Any = "raise", **options: Any) -> dict[str, Any]:
    """``compute_code_score`` awaited on verl's reward loop."""
    import asyncio

    from tczoo.rl.code import code_scorer

    for name in _VERL_ONLY:
        options.pop(name, None)
    found = await asyncio.to_thread(code_scorer, **options)
    [result] = await found.ascore_many([solution_str], [ground_truth])
    return _as_verl(result, no_reward)

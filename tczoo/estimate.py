"""What a run would cost, before it runs (``tczoo run|compare|reproduce --dry-run``).

Every unit goes through its method's ``generate`` as ``tczoo run`` would — the same
tasks, the same templates rendered into the same prompts — with one difference: the
model is never called. A call the LLM cache can answer is answered from it (free, and
the method goes on to its next step with the real answer); any other call is recorded
(prompt, sampling parameters) and fails with reason ``dry_run``, so the method stops
where it would have waited for a new answer. So the counts are exact for what a run
would send first, and a lower bound for methods that ask again after reading an answer
(repair rounds, an agent's later rounds): the table says which methods stopped there.

- prompt tokens: the rendered prompts counted with LiteLLM's tokenizer for the model
  (tiktoken's cl100k where LiteLLM has none for it);
- worst-case completion tokens: every call's ``max_tokens`` (what the method asks for,
  its paper's cap or ``--max-tokens``);
- dollars: LiteLLM's price table (``cost_per_token``) for prompt plus worst-case
  completion; ``not priced`` where the table has no price for the model (local,
  scripted, replayed and self-hosted models, or an unknown name).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tczoo.llm import LLMClient, ProviderError
from tczoo.llm.interface import Answer, Backend
from tczoo.report import NOT_PRICED, UNPRICED
from tczoo.runner import Table
from tczoo.schema import RunConfig
DRY_RUN = "dry_run"  # the reason a call the dry run did not send fails with
LOCAL_TOKENS_PER_S = 13.0  # the embedded model's decoding on the 2-core machine (docs/local-model.md)


class DryBackend(Backend):
    """Answers nothing: records each call it is asked for and fails it (reason
    ``dry_run``, not a provider failure). It shows the real backend's identity, so the
    LLM cache answers what it holds exactly as in a real run."""

    cacheable = True

    def __init__(self, real: Backend):
        self.real = real
        self.calls: list[tuple[list[dict], dict[str, Any], int]] = []
        self.honours_response_format = real.honours_response_format
        self.context_window = real.context_window

    @property
    def identity(self) -> dict[str, Any]:
        return self.real.identity

    @property
    def connection_key(self) -> str:
        return "dry-run"

    def unsupported(self, names: list[str]) -> list[str]:
        return self.real.unsupported(names)

    async def answer(self, messages: list[dict], params: dict[str, Any], sample: int) -> Answer:
        self.calls.append((messages, {k: v for k, v in params.items() if k not in ("timeout", "on_tokens")}, sample))
        raise ProviderError("dry run: not sent", retryable=False, reason=DRY_RUN)


@dataclass
class MethodEstimate:
    method: str
    units: int = 0
    calls: int = 0  # uncached calls a run would send first
    cached: int = 0  # calls the LLM cache answers (free)
    prompt_tokens: int = 0
    completion_tokens: int = 0  # worst case: every call's max_tokens
    stopped: int = 0  # units cut at a call the dry run did not send (later calls, if any, not counted)


@dataclass
class Estimate:
    model: str
    rows: list[MethodEstimate] = field(default_factory=list)
    dollars: float | None = None  # None: not priced
    prompt_dollars: float | None = None

    @property
    def calls(self) -> int:
        return sum(r.calls for r in self.rows)

    @property
    def prompt_tokens(self) -> int:
        return sum(r.prompt_tokens for r in self.rows)

    @property
    def completion_tokens(self) -> int:
        return sum(r.completion_tokens for r in self.rows)


def count_tokens(model: str, messages: list[dict]) -> int:
    """Prompt tokens of ``messages`` with LiteLLM's tokenizer for ``model`` (tiktoken's
    cl100k where LiteLLM knows none for it)."""
    from tczoo.llm.backends import _litellm

    litellm = _litellm()
    name = model.split("/", 1)[1] if model.startswith(("local/", "hosted_vllm/")) else model
    try:
        return int(litellm.token_counter(model=name, messages=messages))
    except Exception:
        return int(litellm.token_counter(model="gpt-4", messages=messages))


def price(model: str, prompt_tokens: int, completion_tokens: int) -> tuple[float, float] | None:
    """(prompt dollars, completion dollars) from LiteLLM's price table; None where the
    table has no price for ``model``."""
    from tczoo.llm.backends import _litellm

    if model.startswith(UNPRICED):
        return None  # nothing a provider bills
    litellm = _litellm()
    try:
        prompt, completion = litellm.cost_per_token(model=model, prompt_tokens=prompt_tokens,
                                                    completion_tokens=completion_tokens)
    except Exception:
        return None
    info = litellm.model_cost.get(model) or litellm.model_cost.get(model.split("/", 1)[-1]) or {}
    if not (prompt or completion) and not (info.get("input_cost_per_token") or info.get("output_cost_per_token")):
        return None
    return float(prompt), float(completion)


async def estimate(config: RunConfig, options: Any = None, *, cluster: Any = None, problems: Any = None) -> Estimate:
    """Generate every unit of ``config`` without calling the model (see the module
    docstring) and count what a run would send."""
    import asyncio
    import dataclasses

    from tczoo.benchmarks import load_benchmark
    from tczoo.generation import generate_unit
    from tczoo.llm.backends import make_backend
    from tczoo.run import RunOptions, build_units, check_params
    from tczoo.templates import Prompts

    options = options or RunOptions()
    check_params(config)
    own = cluster is None
    cluster = cluster or options.open_cluster()
    try:
        sandbox = cluster.sandbox
        if problems is None:
            problems = load_benchmark(config.benchmark, config.problems, limit=config.limit, sandbox=sandbox)
        units = build_units(config, problems, sandbox)
        settings = dataclasses.replace(options.settings, retries=0)
        real = make_backend(config.model, api_base=settings.api_base, api_key=getattr(settings, "api_key", None))
        rows: dict[str, MethodEstimate] = {}
        gate = asyncio.Semaphore(max(1, options.concurrency))

        async def one(unit) -> None:
            dry = DryBackend(real)
            client = LLMClient(config.model, settings, backend=dry)
            async with gate:
                await generate_unit(unit.method, unit.spec.task, name=unit.method_name, problem_id=unit.problem.id,
                                    task_key=unit.spec.key, sample=unit.spec.sample, attempt=0, client=client,
                                    sandbox=sandbox, prompts=Prompts())
            row = rows.setdefault(unit.method_name, MethodEstimate(unit.method_name))
            row.units += 1
            row.cached += client.usage.cached_calls
            row.calls += len(dry.calls)
            row.stopped += bool(dry.calls)
            for messages, params, _ in dry.calls:
                row.prompt_tokens += count_tokens(config.model, messages)
                row.completion_tokens += int(params.get("max_tokens") or settings.max_tokens or 0)

        await asyncio.gather(*(one(u) for u in units))
    finally:
        if own:
            cluster.close()
    ordered = [rows[m] for m in config.methods if m in rows]
    est = Estimate(config.model, ordered)
    priced = price(config.model, est.prompt_tokens, est.completion_tokens)
    if priced is not None:
        est.prompt_dollars, completion = priced
        est.dollars = est.prompt_dollars + completion
    return est


def merge(estimates: list[Estimate]) -> list[Estimate]:
    """Estimates of several runs (a comparison's cells) by model: one per model, its
    methods' rows in order, dollars summed where every part is priced."""
    by: dict[str, Estimate] = {}
    for est in estimates:
        into = by.get(est.model)
        if into is None:
            by[est.model] = Estimate(est.model, list(est.rows), est.dollars, est.prompt_dollars)
            continue
        into.rows += est.rows
        for name in ("dollars", "prompt_dollars"):
            a, b = getattr(into, name), getattr(est, name)
            setattr(into, name, None if a is None or b is None else a + b)
    return list(by.values())


def estimate_table(estimates: list[Estimate], title: str = "dry run: what this run would send") -> Table:
    """One row per (model, method) and a total per model, dollars or ``not priced``."""
    rows: list[dict[str, Any]] = []
    for est in estimates:
        for r in est.rows:
            priced = price(est.model, r.prompt_tokens, r.completion_tokens)
            rows.append({"model": est.model, "method": r.method, "units": r.units, "LLM calls": r.calls,
                         "cached": r.cached, "prompt tokens": r.prompt_tokens,
                         "completion tokens (worst case)": r.completion_tokens,
                         "units cut at an unsent call": r.stopped,
                         "USD (worst case)": round(sum(priced), 6) if priced is not None else NOT_PRICED,
                         "USD (prompts)": round(priced[0], 6) if priced is not None else NOT_PRICED})
        rows.append({"model": est.model, "method": "(all)", "units": sum(r.units for r in est.rows),
                     "LLM calls": est.calls, "cached": sum(r.cached for r in est.rows),
                     "prompt tokens": est.prompt_tokens, "completion tokens (worst case)": est.completion_tokens,
                     "units cut at an unsent call": sum(r.stopped for r in est.rows),
                     "USD (worst case)": round(est.dollars, 6) if est.dollars is not None else NOT_PRICED,
                     "USD (prompts)": round(est.prompt_dollars, 6) if est.prompt_dollars is not None else NOT_PRICED})
    notes = ["nothing was sent: every call the LLM cache could not answer was counted and the unit stopped there; "
             "'LLM calls' are what a run sends before it reads any new answer — exact for a method that makes one "
             "call per unit (its samples included), a lower bound for one that asks again after reading an answer "
             "(a repair round, an agent's next round, HT's second step, a retry of an unreadable answer)",
             "prompt tokens: the rendered prompts, LiteLLM's tokenizer for the model (cl100k where it has none); "
             "completion tokens: each call's max_tokens (the worst case); USD: LiteLLM's price table, "
             f"'{NOT_PRICED}' where it has no price for the model"]
    for est in estimates:
        if est.model.startswith("local/") and est.completion_tokens:
            minutes = est.completion_tokens / LOCAL_TOKENS_PER_S / 60
            notes.append(f"{est.model} is the embedded model (no provider, no cost): at most about "
                         f"{minutes:.0f} min of decoding for these calls at ~{LOCAL_TOKENS_PER_S:g} tokens/s "
                         "(2 cores, docs/local-model.md), plus prompt evaluation; answers usually stop well "
                         "before their cap")
    table = Table(title=title, columns=["model", "method", "units", "LLM calls", "cached", "prompt tokens",
                                        "completion tokens (worst case)", "units cut at an unsent call",
                                        "USD (worst case)", "USD (prompts)"], rows=rows, notes=notes)
    table.precision = {"USD (worst case)": 4, "USD (prompts)": 4}  # type: ignore[attr-defined]
    return table

"""The one LLM client every method uses.

    client = LLMClient("openai/gpt-4o-mini")
    completions = await client.complete(messages, n=4, temperature=0.8)

- samples are independent calls, each cached under (model, messages, params, index),
  so a re-run makes zero provider calls and a larger ``n`` only pays for the new ones;
- retries with exponential backoff on rate limits, 5xx, timeouts and connection errors;
- a concurrency limit shared by all callers of the client;
- failures come back as ``Completion(ok=False, error=...)``: a provider error never
  crashes a run;
- usage (calls, tokens, cost) accumulates on the client and on each ``Session``.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from tczoo.llm.backends import Backend, ModelSpecError, ProviderError, make_backend
from tczoo.llm.cache import ExchangeCache, exchange_key
from tczoo.paths import cache_dir
from tczoo.schema import Usage

DEFAULT_MODEL = "local/qwen2.5-coder-1.5b"


@dataclass
class Completion:
    text: str
    ok: bool = True
    error: str = ""
    reason: str = ""  # machine-friendly failure reason ("rate_limit", "no_rule" ...)
    cached: bool = False
    key: str = ""
    sample: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0


@dataclass
class LLMSettings:
    temperature: float = 0.2
    max_tokens: int = 2048
    timeout_s: float = 600.0
    retries: int = 4
    backoff_s: float = 2.0
    concurrency: int = 8
    api_base: str | None = None
    api_key: str | None = None
    cache: bool = True
    cache_path: Path | None = None


class LLMClient:
    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        settings: LLMSettings | None = None,
        *,
        on_exchange: Callable[[dict], None] | None = None,
    ):
        self.model = model
        self.settings = settings or LLMSettings()
        self.backend: Backend = make_backend(
            model, api_base=self.settings.api_base, api_key=self.settings.api_key
        )
        self.cache: ExchangeCache | None = None
        if self.settings.cache and self.backend.cacheable:
            self.cache = ExchangeCache(self.settings.cache_path or cache_dir() / "llm.sqlite")
        self.on_exchange = on_exchange  # the run store logs every exchange through this
        self.usage = Usage()
        self._usage_lock = threading.Lock()
        self._semaphores: dict[int, asyncio.Semaphore] = {}

    # ------------------------------------------------------------------ public

    async def complete(
        self,
        messages: list[dict],
        *,
        n: int = 1,
        temperature: float | None = None,
        max_tokens: int | None = None,
        stop: list[str] | None = None,
        seed: int | None = None,
        first_sample: int = 0,
        response_format: dict | None = None,
    ) -> list[Completion]:
        """``n`` samples for one prompt, in sample order; failures are ``ok=False``.

        ``response_format`` (OpenAI's shape, e.g. ``{"type": "json_schema", ...}``)
        constrains the answer where the backend can enforce it (the embedded model does,
        with a grammar) and is part of the cache key there; other backends receive and
        key exactly what they would without it."""
        params: dict[str, Any] = {
            "temperature": self.settings.temperature if temperature is None else temperature,
            "max_tokens": self.settings.max_tokens if max_tokens is None else max_tokens,
        }
        if stop:
            params["stop"] = stop
        if seed is not None:
            params["seed"] = seed
        if response_format and self.backend.honours_response_format:
            params["response_format"] = response_format
        return list(
            await asyncio.gather(
                *(self._one(messages, params, first_sample + i) for i in range(n))
            )
        )

    def complete_sync(self, messages: list[dict], **kwargs) -> list[Completion]:
        return asyncio.run(self.complete(messages, **kwargs))

    # ------------------------------------------------------------------ internals

    def _semaphore(self) -> asyncio.Semaphore:
        # One semaphore per event loop: the client may be used from several asyncio.run().
        loop_id = id(asyncio.get_running_loop())
        if loop_id not in self._semaphores:
            cap = self.settings.concurrency
            if self.backend.max_concurrency:
                cap = min(cap, self.backend.max_concurrency)
            self._semaphores[loop_id] = asyncio.Semaphore(max(1, cap))
        return self._semaphores[loop_id]

    async def _one(self, messages: list[dict], params: dict[str, Any], sample: int) -> Completion:
        key = exchange_key(self.model, messages, params, sample)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                usage = hit["usage"]
                done = Completion(
                    text=hit["text"],
                    cached=True,
                    key=key,
                    sample=sample,
                    prompt_tokens=usage.get("prompt_tokens", 0),
                    completion_tokens=usage.get("completion_tokens", 0),
                    cost_usd=hit["cost"],
                )
                self._account(done)
                self._log(messages, params, done)
                return done

        call_params = dict(params, timeout=self.settings.timeout_s)
        attempt = 0
        async with self._semaphore():
            while True:
                try:
                    answer = await asyncio.wait_for(
                        self.backend.answer(messages, call_params, sample),
                        timeout=self.settings.timeout_s + 5,
                    )
                    break
                except (ProviderError, asyncio.TimeoutError) as exc:
                    err = (
                        exc
                        if isinstance(exc, ProviderError)
                        else ProviderError("call timed out", retryable=True, reason="timeout")
                    )
                    if err.retryable and attempt < self.settings.retries:
                        attempt += 1
                        delay = self.settings.backoff_s * 2 ** (attempt - 1)
                        await asyncio.sleep(delay * (0.5 + random.random()))
                        continue
                    failed = Completion(
                        text="", ok=False, error=str(err), reason=err.reason, key=key, sample=sample
                    )
                    self._account(failed)
                    self._log(messages, params, failed)
                    return failed
                except Exception as exc:  # a backend bug must not take the run down either
                    failed = Completion(
                        text="",
                        ok=False,
                        error=f"{type(exc).__name__}: {exc}"[:500],
                        reason="backend_crash",
                        key=key,
                        sample=sample,
                    )
                    self._account(failed)
                    self._log(messages, params, failed)
                    return failed

        done = Completion(
            text=answer.text,
            key=key,
            sample=sample,
            prompt_tokens=answer.prompt_tokens,
            completion_tokens=answer.completion_tokens,
            cost_usd=answer.cost_usd,
        )
        if self.cache is not None:
            self.cache.put(
                key,
                self.model,
                {"messages": messages, "params": params, "sample": sample},
                answer.text,
                {"prompt_tokens": answer.prompt_tokens, "completion_tokens": answer.completion_tokens},
                answer.cost_usd,
            )
        self._account(done)
        self._log(messages, params, done)
        return done

    def _account(self, c: Completion) -> None:
        with self._usage_lock:
            self.usage = self.usage.add(usage_of(c))

    def _log(self, messages: list[dict], params: dict[str, Any], c: Completion) -> None:
        if self.on_exchange is None:
            return
        self.on_exchange(
            {
                "key": c.key,
                "model": self.model,
                "messages": messages,
                "params": params,
                "sample": c.sample,
                "ok": c.ok,
                "text": c.text,
                "error": c.error,
                "reason": c.reason,
                "cached": c.cached,
                "usage": {"prompt_tokens": c.prompt_tokens, "completion_tokens": c.completion_tokens},
                "cost_usd": c.cost_usd,
                "time": time.time(),
            }
        )


def usage_of(c: Completion) -> Usage:
    return Usage(
        calls=0 if c.cached else 1,
        cached_calls=1 if c.cached else 0,
        prompt_tokens=c.prompt_tokens,
        completion_tokens=c.completion_tokens,
        cost_usd=c.cost_usd,
        failures=0 if c.ok else 1,
    )


@dataclass
class Session:
    """A method's view of the client for one problem: same client, its own accounting."""

    client: LLMClient
    usage: Usage = field(default_factory=Usage)
    keys: list[str] = field(default_factory=list)

    @property
    def model(self) -> str:
        return self.client.model

    async def complete(self, messages: list[dict], **kwargs) -> list[Completion]:
        out = await self.client.complete(messages, **kwargs)
        for c in out:
            self.usage = self.usage.add(usage_of(c))
            if c.key:
                self.keys.append(c.key)
        return out


__all__ = [
    "Completion",
    "LLMClient",
    "LLMSettings",
    "ModelSpecError",
    "Session",
    "DEFAULT_MODEL",
]

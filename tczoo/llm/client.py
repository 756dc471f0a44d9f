"""The one LLM client every method uses.

    client = LLMClient("openai/gpt-4o-mini")
    completions = await client.complete(messages, n=4, temperature=0.8)

- samples are independent calls, each cached under (the backend's identity: provider,
  api_base, model or GGUF sha256; messages; every sampling parameter; sample index), so
  a re-run makes zero provider calls and a larger ``n`` only pays for the new ones;
- retries with exponential backoff on rate limits, 5xx, timeouts, connection errors
  and malformed bodies, waiting at least what a ``Retry-After`` header asks;
- a connection limit per provider and server (``max_connections``), shared by every
  client of the process;
- a circuit breaker: ``max_consecutive_errors`` calls in a row that the provider did
  not answer (after their retries) halt the client — every later call fails at once
  with reason ``stopped`` — so a dead server costs seconds, not the whole run;
- a cost limit: once ``max_cost`` USD (LiteLLM's cost, this run's earlier sessions
  included via ``spent_before``) is spent, later calls fail with reason ``cost_limit``;
- failures come back as ``Completion(ok=False, error=...)``: a provider error never
  crashes a run;
- usage (calls, tokens, cost) accumulates on the client and on each ``Session``;
- the parameters are fitted to the model (``fit_params``): a sampling parameter the
  provider does not take is left out, a ``max_tokens`` beyond the model's context window
  is cut to it; each change is logged once and noted on the exchange record
  (``notes``, ``sent``), so the run directory says what the model was really asked.

What a run spent and whether it halted live in a ``Ledger``; a distributed run
(``tczoo.distributed``) gives the clients on all its nodes one ledger and one exchange
cache, both held on the driver's machine.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import itertools
import logging
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
SAMPLING_PARAMS = ("temperature", "top_p", "presence_penalty", "seed", "stop")
log = logging.getLogger("tczoo.llm")


def fit_params(backend: Backend, model: str, params: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The parameters ``backend`` is sent for ``params``, and a note for each change."""
    sent, notes = dict(params), []
    for name in backend.unsupported([p for p in SAMPLING_PARAMS if p in sent]):
        notes.append(f"{name}={sent.pop(name)!r} dropped: {model} does not take it")
    window = backend.context_window
    if window and sent.get("max_tokens", 0) > window:
        notes.append(f"max_tokens {sent['max_tokens']} capped to {window}, the context window of {model}")
        sent["max_tokens"] = window
    return sent, notes



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


# Failures that mean "the provider is not answering" (as opposed to "this prompt got a
# bad answer"): enough of them in a row halt the client.
PROVIDER_DOWN = frozenset({"connection", "server_error", "timeout", "rate_limit", "auth", "model_not_found",
                           "bad_response", "provider_error", "backend_crash"})
# Failures that say nothing about the method: the same unit run again may succeed.
TRANSIENT = frozenset({"connection", "server_error", "timeout", "rate_limit", "bad_response", "stopped",
                       "cost_limit"})


@dataclass
class LLMSettings:
    temperature: float = 0.2
    max_tokens: int = 2048
    timeout_s: float = 600.0
    retries: int = 4
    backoff_s: float = 2.0
    max_wait_s: float = 300.0  # longest single wait between retries, Retry-After included
    max_connections: int = 8
    max_consecutive_errors: int = 5  # 0: never halt
    max_cost: float | None = None  # USD
    spent_before: float = 0.0  # USD this run spent in earlier sessions (counts toward max_cost)
    api_base: str | None = None
    api_key: str | None = None
    cache: bool = True
    cache_path: Path | None = None


_CONNECTIONS: dict[tuple[str, int], asyncio.Semaphore] = {}
_CONNECTIONS_GUARD = threading.Lock()


class Ledger:
    """What a run spent on provider calls (USD, uncached calls only) and why it halted,
    if it did (the circuit breaker, the cost limit). One per client unless shared: the
    nodes of a distributed run share the driver's (``tczoo.distributed``), so the cost
    limit and a halt hold for the whole run."""

    def __init__(self, spent: float = 0.0):
        self._spent = spent
        self._halted: ProviderError | None = None
        self._lock = threading.Lock()

    @property
    def spent(self) -> float:
        return self._spent

    @property
    def halted(self) -> ProviderError | None:
        return self._halted

    def add(self, usd: float) -> None:
        with self._lock:
            self._spent += usd

    def halt(self, error: ProviderError) -> None:
        with self._lock:
            if self._halted is None:
                self._halted = error


# The unit a call works for, as the run loop names it (a context variable: the tasks a
# unit's method starts inherit it), so the live meter can say how far each unit got.
LIVE_SCOPE: contextvars.ContextVar[Any] = contextvars.ContextVar("tczoo_live_scope", default=None)


class LiveMeter:
    """The client's calls to the backend in flight and the answer tokens decoded so far,
    counted as the backend decodes them where it says so (``Backend.reports_tokens``;
    else when a call ends). Thread-safe: the embedded model counts from its own thread.
    Only calls that reach the backend are counted (a cached answer costs no decoding)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ids = itertools.count()
        self._calls: dict[int, list[Any]] = {}  # id -> [scope, tokens asked (max_tokens), decoded, settled]
        self._spent: dict[Any, int] = {}  # scope -> answer tokens of its finished calls
        self._finished: dict[Any, int] = {}  # scope -> its finished calls
        self.decoded = 0  # answer tokens decoded by every call, finished or in flight
        self.started: float | None = None  # time.monotonic() when the first call was sent

    def start(self, asked: int) -> int:
        with self._lock:
            call = next(self._ids)
            self._calls[call] = [LIVE_SCOPE.get(), max(0, asked), 0, None]
            if self.started is None:
                self.started = time.monotonic()
            return call

    def add(self, call: int, tokens: int) -> None:
        with self._lock:
            entry = self._calls.get(call)
            if entry is not None and tokens > 0:
                entry[2] += tokens
                self.decoded += tokens

    def settle(self, call: int, tokens: int) -> None:
        """The answer's own token count (a backend that did not report as it decoded)."""
        with self._lock:
            entry = self._calls.get(call)
            if entry is not None:
                entry[3] = tokens

    def end(self, call: int) -> None:
        with self._lock:
            entry = self._calls.pop(call, None)
            if entry is None:
                return
            scope, _, decoded, settled = entry
            if settled is not None and settled > decoded:
                self.decoded += settled - decoded
            self._spent[scope] = self._spent.get(scope, 0) + (decoded if settled is None else max(settled, decoded))
            self._finished[scope] = self._finished.get(scope, 0) + 1

    def snapshot(self) -> dict[str, Any]:
        """``decoded`` (all answer tokens so far), ``in_flight`` (those of calls not yet
        answered, so not in the client's usage), ``seconds`` since the first call, and
        per scope: ``spent`` (tokens of its finished calls and decoded by those in
        flight), ``open`` (tokens its calls in flight may still decode: asked minus
        decoded), ``running`` and ``finished`` calls."""
        with self._lock:
            scopes: dict[Any, dict[str, int]] = {}
            for scope, spent in self._spent.items():
                scopes[scope] = {"spent": spent, "open": 0, "running": 0, "finished": self._finished[scope]}
            for scope, asked, decoded, _ in self._calls.values():
                entry = scopes.setdefault(scope, {"spent": 0, "open": 0, "running": 0, "finished": 0})
                entry["spent"] += decoded
                entry["open"] += max(0, asked - decoded)
                entry["running"] += 1
            since = None if self.started is None else time.monotonic() - self.started
            # a settled call is in the client's usage already (it is accounted before it ends)
            in_flight = sum(decoded for _, _, decoded, settled in self._calls.values() if settled is None)
            return {"decoded": self.decoded, "in_flight": in_flight, "seconds": since, "scopes": scopes}


class LLMClient:
    """See the module docstring. ``cache`` replaces the SQLite exchange cache (its
    ``get``/``put`` may return awaitables); ``ledger`` is shared with other clients of
    the same run; ``backend`` answers instead of the one ``model`` names."""

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        settings: LLMSettings | None = None,
        *,
        on_exchange: Callable[[dict], None] | None = None,
        cache: Any = None,
        ledger: Ledger | None = None,
        backend: Backend | None = None,
    ):
        self.model = model
        self.settings = settings or LLMSettings()
        # ``backend``: one built by the caller (``tczoo.rewards``' one-answer backend),
        # instead of the one the model string names
        self.backend: Backend = backend if backend is not None else make_backend(
            model, api_base=self.settings.api_base, api_key=self.settings.api_key
        )
        self.cache: ExchangeCache | None = None
        if self.settings.cache and self.backend.cacheable:
            self.cache = cache if cache is not None else ExchangeCache(
                self.settings.cache_path or cache_dir() / "llm.sqlite")
        self.on_exchange = on_exchange  # the run store logs every exchange through this
        self.usage = Usage()
        self._usage_lock = threading.Lock()
        self._identity: dict[str, Any] | None = None
        self.ledger = ledger or Ledger(self.settings.spent_before)
        self.live = LiveMeter()  # calls in flight and the tokens decoded so far (progress)
        self._consecutive = 0
        self._noted: set[str] = set()

    @property
    def halted(self) -> ProviderError | None:
        """Why calls fail at once (the circuit breaker, the cost limit), or None."""
        return self.ledger.halted

    @property
    def spent(self) -> float:
        """USD this run spent on new (uncached) calls, earlier sessions included."""
        return self.ledger.spent

    @property
    def identity(self) -> dict[str, Any]:
        """The backend's identity (computed once: a local GGUF is hashed)."""
        if self._identity is None:
            self._identity = self.backend.identity
        return self._identity

    # ------------------------------------------------------------------ public

    async def complete(
        self,
        messages: list[dict],
        *,
        n: int = 1,
        temperature: float | None = None,
        max_tokens: int | None = None,
        top_p: float | None = None,
        presence_penalty: float | None = None,
        stop: list[str] | None = None,
        seed: int | None = None,
        first_sample: int = 0,
        response_format: dict | None = None,
    ) -> list[Completion]:
        """``n`` samples for one prompt, in sample order; failures are ``ok=False``.
        ``top_p``/``presence_penalty`` are sent only when set (providers differ in
        which they accept). ``response_format`` (OpenAI's shape, e.g.
        ``{"type": "json_schema", ...}``) constrains the answer where the backend can
        enforce it (the embedded model does, with a grammar) and is part of the cache key
        there; other backends receive and key exactly what they would without it."""
        params: dict[str, Any] = {
            "temperature": self.settings.temperature if temperature is None else temperature,
            "max_tokens": self.settings.max_tokens if max_tokens is None else max_tokens,
        }
        if top_p is not None:
            params["top_p"] = top_p
        if presence_penalty is not None:
            params["presence_penalty"] = presence_penalty
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
        # One limit per provider and server, shared by every client of the process; one
        # semaphore per event loop (a client may be used from several asyncio.run()).
        cap = self.settings.max_connections
        if self.backend.max_concurrency:
            cap = min(cap, self.backend.max_concurrency)
        key = (f"{self.backend.connection_key}#{max(1, cap)}", id(asyncio.get_running_loop()))
        with _CONNECTIONS_GUARD:
            if key not in _CONNECTIONS:
                _CONNECTIONS[key] = asyncio.Semaphore(max(1, cap))
            return _CONNECTIONS[key]

    def _halt(self, error: ProviderError) -> None:
        self.ledger.halt(error)

    def _failed(self, messages, params, key: str, sample: int, error: str, reason: str,
                sent: dict[str, Any], notes: list[str], seconds: float = 0.0) -> Completion:
        failed = Completion(text="", ok=False, error=error, reason=reason, key=key, sample=sample)
        self._account(failed)
        self._log(messages, params, failed, sent, notes, seconds)
        return failed

    def _over_budget(self) -> bool:
        return self.settings.max_cost is not None and self.spent >= self.settings.max_cost

    def _fit(self, params: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        sent, notes = fit_params(self.backend, self.model, params)
        for note in notes:
            if note not in self._noted:
                self._noted.add(note)
                log.warning(note)
        return sent, notes

    async def _one(self, messages: list[dict], params: dict[str, Any], sample: int) -> Completion:
        # ``params`` as asked (what replay matches), ``sent`` as the model gets them (the cache key)
        sent, notes = self._fit(params)
        key = exchange_key(self.identity, messages, sent, sample)
        if self.cache is not None:
            hit = self.cache.get(key)
            if inspect.isawaitable(hit):
                hit = await hit
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
                self._log(messages, params, done, sent, notes)
                return done

        live = self.live.start(int(sent.get("max_tokens") or 0))
        try:
            return await self._uncached(messages, params, sample, sent, notes, key, live)
        finally:
            self.live.end(live)

    async def _uncached(self, messages: list[dict], params: dict[str, Any], sample: int, sent: dict[str, Any],
                        notes: list[str], key: str, live: int) -> Completion:
        call_params = dict(sent, timeout=self.settings.timeout_s)
        if self.backend.reports_tokens:
            call_params["on_tokens"] = functools.partial(self.live.add, live)
        attempt = 0
        async with self._semaphore():
            started = time.monotonic()  # latency counts the provider (and retries), not the queue
            while True:
                if self.halted is not None:
                    return self._failed(messages, params, key, sample, str(self.halted), self.halted.reason, sent,
                                        notes, time.monotonic() - started)
                if self._over_budget():
                    self._halt(ProviderError(f"the cost limit of ${self.settings.max_cost:g} is reached "
                                             f"(${self.spent:.4f} spent)", reason="cost_limit"))
                    continue
                try:
                    answer = await asyncio.wait_for(
                        self.backend.answer(messages, call_params, sample),
                        timeout=None if self.backend.watches_timeout else self.settings.timeout_s + 5,
                    )
                    break
                except (ProviderError, asyncio.TimeoutError) as exc:
                    err = (
                        exc
                        if isinstance(exc, ProviderError)
                        else ProviderError("call timed out", retryable=True, reason="timeout")
                    )
                    if err.retryable and attempt < self.settings.retries and self.halted is None:
                        attempt += 1
                        delay = self.settings.backoff_s * 2 ** (attempt - 1) * (0.5 + random.random())
                        if err.retry_after is not None:
                            delay = max(delay, err.retry_after)
                        await asyncio.sleep(min(delay, self.settings.max_wait_s))
                        continue
                    self._provider_failed(err)
                    return self._failed(messages, params, key, sample, str(err), err.reason, sent, notes,
                                        time.monotonic() - started)
                except Exception as exc:  # a backend bug must not take the run down either
                    err = ProviderError(f"{type(exc).__name__}: {exc}"[:500], reason="backend_crash")
                    self._provider_failed(err)
                    return self._failed(messages, params, key, sample, str(err), err.reason, sent, notes,
                                        time.monotonic() - started)
        self._consecutive = 0
        self.live.settle(live, answer.completion_tokens)

        done = Completion(
            text=answer.text,
            key=key,
            sample=sample,
            prompt_tokens=answer.prompt_tokens,
            completion_tokens=answer.completion_tokens,
            cost_usd=answer.cost_usd,
        )
        if self.cache is not None:
            stored = self.cache.put(
                key,
                self.model,
                self.identity,
                {"messages": messages, "params": sent, "sample": sample},
                answer.text,
                {"prompt_tokens": answer.prompt_tokens, "completion_tokens": answer.completion_tokens},
                answer.cost_usd,
            )
            if inspect.isawaitable(stored):
                await stored
        self.ledger.add(answer.cost_usd)
        self._account(done)
        self._log(messages, params, done, sent, notes, time.monotonic() - started)
        return done

    def _provider_failed(self, err: ProviderError) -> None:
        """Count a call the provider did not answer; enough in a row halt the client."""
        if err.reason not in PROVIDER_DOWN:
            self._consecutive = 0  # the provider answered; this prompt was the problem
            return
        self._consecutive += 1
        limit = self.settings.max_consecutive_errors
        if limit and self._consecutive >= limit:
            self._halt(ProviderError(f"{self._consecutive} calls in a row failed ({err.reason}); last error: {err}",
                                     reason="stopped"))

    def _account(self, c: Completion) -> None:
        with self._usage_lock:
            self.usage = self.usage.add(usage_of(c))

    def absorb(self, exchanges: list[dict]) -> None:
        """Count in this client's usage the exchanges another client made for it (a
        distributed run's nodes), as read from their exchange records."""
        for e in exchanges:
            usage = e.get("usage") or {}
            self._account(Completion(text="", ok=bool(e.get("ok")), cached=bool(e.get("cached")),
                                     prompt_tokens=usage.get("prompt_tokens", 0),
                                     completion_tokens=usage.get("completion_tokens", 0),
                                     cost_usd=float(e.get("cost_usd") or 0.0)))

    def _log(self, messages: list[dict], params: dict[str, Any], c: Completion,
             sent: dict[str, Any], notes: list[str], seconds: float = 0.0) -> None:
        if self.on_exchange is None:
            return
        extra: dict[str, Any] = {"sent": sent, "notes": notes} if notes else {}
        self.on_exchange(
            {
                "key": c.key,
                "model": self.model,
                "backend": self.identity,
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
                "seconds": round(seconds, 3),
                **extra,
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
    "LIVE_SCOPE",
    "LiveMeter",
    "Completion",
    "Ledger",
    "LLMClient",
    "LLMSettings",
    "ModelSpecError",
    "Session",
    "DEFAULT_MODEL",
]

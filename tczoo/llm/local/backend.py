"""``LocalBackend``: the client's view of the embedded engine.

Each ``answer`` call is one sample; the engine decodes every call in flight together,
so the client's usual fan-out (``n`` concurrent samples, concurrent tasks) is what
fills a batch. The backend lets the client run as many calls at once as the engine
has sequence slots.

The client's timeout is time without progress here, not a call's wall time: a call's
length is its tokens times the engine's step time, which grows with the sequences
beside it and with other work on the machine (beside two busy processes a 2,048-token
answer of the quickstart takes longer than the 600 s default). A wall-clock deadline
would cancel such a call, and the retry would start the same answer from its first
token, again and again; the engine is stuck only when it stops taking steps.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import time
from typing import Any, Callable

from tczoo.llm.interface import Answer, Backend, ProviderError
from tczoo.llm.local.engine import EngineConfig, Request, engine_for
from tczoo.llm.local.gguf import gguf_sha256, resolve_model_path
from tczoo.llm.local.sampling import TOP_P, grammar_for, sample_seed

DEFAULT_TEMPERATURE = 0.2
DEFAULT_MAX_TOKENS = 1024


class LocalBackend(Backend):
    """llama.cpp in-process, batched (see ``tczoo.llm.local.engine``)."""

    honours_response_format = True  # enforced with a grammar
    watches_timeout = True  # as time without progress (the module's note)
    reports_tokens = True  # each decoding step tells params["on_tokens"]

    def __init__(self, model: str):
        self.config = EngineConfig.from_env()
        self.path = resolve_model_path(model)
        self.max_concurrency = self.config.n_parallel
        self.context_window = self.config.n_ctx  # the client caps max_tokens here, and says so

    @property
    def identity(self) -> dict:
        # The loop guard decides where a looping answer ends, and the decoding mode which
        # kernels (which rounding) compute the logits: either changes the answers.
        # Speculation does not (the same tokens, only more of them per step): not here.
        return {"backend": "llama.cpp", "gguf_sha256": gguf_sha256(self.path),
                "loop_guard": self.config.loop_guard, "decode": self.config.decode}

    async def answer(self, messages: list[dict], params: dict[str, Any], sample: int) -> Answer:
        engine = await asyncio.to_thread(engine_for, self.path, self.config)  # loads once
        request = Request(
            messages=messages,
            temperature=float(params.get("temperature", DEFAULT_TEMPERATURE)),
            top_p=float(params.get("top_p", TOP_P)),
            presence_penalty=float(params.get("presence_penalty", 0.0)),
            max_tokens=int(params.get("max_tokens", DEFAULT_MAX_TOKENS)),
            stop=_stops(params.get("stop")),
            seed=sample_seed(int(params.get("seed", 0) or 0), sample),
            grammar=grammar_for(params.get("response_format")),
            on_tokens=params.get("on_tokens"),  # the client's live token count (not part of the request)
        )
        timeout = params.get("timeout")
        return await await_progressing(engine.submit(request), lambda: engine.progressed,
                                       None if timeout is None else float(timeout))


async def await_progressing(future: concurrent.futures.Future, progressed: Callable[[], float],
                            timeout: float | None, poll_s: float = 5.0) -> Answer:
    """The answer of ``future``, however long it takes while ``progressed()`` (a
    ``time.monotonic`` stamp) keeps moving; a retryable ``timeout`` error once neither
    it nor the call has moved for ``timeout`` seconds (the request is then cancelled).
    A cancelled caller cancels the request."""
    waiting, asked = asyncio.wrap_future(future), time.monotonic()
    try:
        while True:
            await asyncio.wait({waiting}, timeout=None if timeout is None else min(poll_s, timeout))
            if waiting.done():
                return waiting.result()
            idle = time.monotonic() - max(progressed(), asked)
            if timeout is not None and idle >= timeout:
                raise ProviderError(f"the local model made no progress for {idle:.0f} s", retryable=True,
                                    reason="timeout")
    except BaseException:
        waiting.cancel()  # the engine drops a cancelled request at its next step
        raise


def _stops(stop: Any) -> list[str]:
    if stop is None:
        return []
    if isinstance(stop, str):
        stop = [stop]
    return [s for s in stop if isinstance(s, str) and s]

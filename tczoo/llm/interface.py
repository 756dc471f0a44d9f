"""What a backend is (``Backend``), what it answers (``Answer``) and how it fails
(``ProviderError``, ``ModelSpecError``): the interface every backend implements —
the scripted, replay and LiteLLM ones (``tczoo.llm.backends``) and the embedded model
(``tczoo.llm.local``) — below all of them, so none imports another to find it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from tczoo.errors import UserError

# Sample indices reserved per independent generation of a task (see
# ``tczoo.method.Context.sample_base``): generation g asks for samples g*STRIDE + i.
SAMPLE_STRIDE = 1000


class ProviderError(Exception):
    """A call failed. ``retryable`` says whether trying again may help; ``retry_after``
    (seconds) is the provider's own answer to "when?" (HTTP ``Retry-After``)."""

    def __init__(self, message: str, *, retryable: bool = False, reason: str = "provider_error",
                 retry_after: float | None = None):
        super().__init__(message)
        self.retryable = retryable
        self.reason = reason
        self.retry_after = retry_after


class ModelSpecError(UserError, ValueError):
    """The model string names nothing usable (bad path, unknown local model ...)."""


@dataclass
class Answer:
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    raw: dict[str, Any] = field(default_factory=dict)


def render_prompt(messages: list[dict]) -> str:
    """All messages as one text, the way scripted rules see them."""
    return "\n".join(f"{m.get('role', '')}: {m.get('content', '')}" for m in messages)


class Backend:
    cacheable = True  # answers worth keeping in the exchange cache
    max_concurrency: int | None = None  # backend's own cap (the embedded model: its slots)
    context_window: int | None = None  # tokens the model holds, prompt + answer (None: not ours to know)
    # Whether the backend enforces ``params["response_format"]``; where it does not,
    # the client leaves it out of the call and of the cache key.
    honours_response_format = False
    # The client's timeout (LLMSettings.timeout_s) bounds each call's wall time: that is
    # how it finds a remote provider that stopped answering. A backend that computes its
    # answers itself, whose calls take longer when the machine is busy or its batch is
    # full, sets this and applies the timeout (``params["timeout"]``) itself, to time
    # without progress: the embedded model (``tczoo.llm.local.backend``).
    watches_timeout = False
    # Whether ``answer`` tells ``params["on_tokens"](n)`` the tokens it adds to the answer
    # as it decodes them (the embedded model does, each step): progress then counts
    # tokens during a call, not when it ends. The client passes it only to such backends.
    reports_tokens = False

    @property
    def identity(self) -> dict[str, Any]:
        """What answers: part of every cache key and of a run's provenance. Two
        backends with the same identity give the same answer to the same request."""
        return {"backend": type(self).__name__}

    @property
    def connection_key(self) -> str:
        """Calls with the same key share one connection limit (``--max-connections``)."""
        return json.dumps(self.identity, sort_keys=True)

    async def answer(self, messages: list[dict], params: dict[str, Any], sample: int) -> Answer:
        raise NotImplementedError

    def unsupported(self, names: list[str]) -> list[str]:
        """Which of these sampling parameters the model does not take (dropped from the
        call with a logged note, never an error)."""
        return []

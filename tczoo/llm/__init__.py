"""The one LLM client (``LLMClient``) and its per-problem view (``Session``)."""

from tczoo.llm.backends import ModelSpecError, ProviderError
from tczoo.llm.client import DEFAULT_MODEL, Completion, Ledger, LLMClient, LLMSettings, Session

__all__ = [
    "DEFAULT_MODEL",
    "Completion",
    "Ledger",
    "LLMClient",
    "LLMSettings",
    "ModelSpecError",
    "ProviderError",
    "Session",
]

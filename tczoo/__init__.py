"""tczoo: a zoo of LLM test-case-generation methods for algorithmic problems."""

__version__ = "0.1.0"

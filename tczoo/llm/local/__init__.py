"""The embedded models: Qwen2.5-Coder-1.5B-Instruct (the default) and -0.5B-Instruct (GGUF),
in-process via llama.cpp.

    gguf.py      the model files (assembled from PyPI parts, verified) and GGUF paths
    engine.py    one context, continuous batching, prefix reuse, speculation (the decoding thread)
    sampling.py  per-sequence seeded samplers, JSON grammars from response_format
    native.py    the ctypes calls llama-cpp-python does not wrap
    backend.py   ``LocalBackend``, what the client talks to

Model strings: ``local/qwen2.5-coder-1.5b`` (the embedded default model),
``local/qwen2.5-coder-0.5b`` (the small one) or ``local//abs/path/model.gguf`` (any GGUF on disk).
"""

from tczoo.llm.local.backend import LocalBackend
from tczoo.llm.local.gguf import (
    EMBEDDED_FILE,
    EMBEDDED_MODELS,
    EMBEDDED_NAME,
    EMBEDDED_PARTS,
    EMBEDDED_SHA256,
    EMBEDDED_SIZE,
    INSTALL_HINT,
    embedded_model_path,
    local_status,
    part_paths,
    resolve_model_path,
)

__all__ = [
    "EMBEDDED_FILE",
    "EMBEDDED_MODELS",
    "EMBEDDED_NAME",
    "EMBEDDED_PARTS",
    "EMBEDDED_SHA256",
    "EMBEDDED_SIZE",
    "INSTALL_HINT",
    "LocalBackend",
    "embedded_model_path",
    "local_status",
    "part_paths",
    "resolve_model_path",
]

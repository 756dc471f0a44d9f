"""The llama.cpp calls the engine needs beyond what llama-cpp-python wraps for it.

Everything here is ctypes over the libraries llama-cpp-python ships: importing
``llama_cpp``, a reusable candidates array for the sampler API, and the switch to
ggml's reference CPU kernels (see ``ReferenceKernels``).
"""

from __future__ import annotations

import ctypes
import logging
import os
from pathlib import Path

import numpy as np

from tczoo.llm.interface import ModelSpecError


log = logging.getLogger("tczoo.llm.local")

# How llama.cpp's threads wait for each other (TCZOO_LOCAL_WAIT). Its CPU backend is
# built with OpenMP (libgomp): the threads meet at a barrier after every operation of
# the graph, hundreds per token, and by default a thread that arrives first spins for
# ~300,000 iterations before it sleeps. Beside other busy processes the thread it waits
# for is often descheduled, and the spinning keeps it so: the model slowed to a
# fraction of its fair share (docs/local-model.md, "Threads and waiting"). "brief"
# (the default) spins 2,000 iterations, long enough for a partner that is running to
# arrive, then sleeps; "passive" sleeps at once (quiet decoding ~25% slower); "spin"
# leaves libgomp's default (fastest alone, 3-6x slower beside busy work).
WAIT_POLICIES = {"brief": {"GOMP_SPINCOUNT": "2000"}, "passive": {"OMP_WAIT_POLICY": "PASSIVE"}, "spin": {}}
DEFAULT_WAIT = "brief"


def wait_policy() -> str:
    value = (os.environ.get("TCZOO_LOCAL_WAIT") or DEFAULT_WAIT).strip().lower()
    if value not in WAIT_POLICIES:
        raise ModelSpecError(f"TCZOO_LOCAL_WAIT={value!r} must be one of {', '.join(WAIT_POLICIES)}")
    return value


def prepare_openmp() -> None:
    """Set the waiting policy before libgomp is loaded (it reads its environment once,
    when the first library that needs it loads: importing ``llama_cpp``). A user's own
    OMP_WAIT_POLICY or GOMP_SPINCOUNT wins."""
    if "OMP_WAIT_POLICY" in os.environ or "GOMP_SPINCOUNT" in os.environ:
        return
    settings = WAIT_POLICIES[wait_policy()]
    if settings and _libgomp_loaded():
        log.debug("libgomp is already loaded: llama.cpp's threads keep its waiting policy")
    os.environ.update(settings)


def _libgomp_loaded() -> bool:
    try:
        with open("/proc/self/maps") as maps:
            return any("libgomp" in line for line in maps)
    except OSError:
        return False


def llama_cpp_module():
    """``llama_cpp`` with its log output off (it prints every load step to stderr)."""
    from tczoo.llm.local.gguf import INSTALL_HINT

    prepare_openmp()
    try:
        import llama_cpp
        from llama_cpp import _logger
    except ImportError as exc:
        raise ModelSpecError(f"llama-cpp-python is not installed; {INSTALL_HINT}") from exc
    _logger.set_verbose(False)
    return llama_cpp


class Candidates:
    """One ``llama_token_data_array`` over the whole vocabulary, refilled for every
    sampling step (samplers sort and cut it in place)."""

    def __init__(self, llama_cpp, n_vocab: int):
        self.L = llama_cpp
        self.n_vocab = n_vocab
        dtype = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)], align=True)
        assert dtype.itemsize == ctypes.sizeof(llama_cpp.llama_token_data)
        self.ids = np.arange(n_vocab, dtype=np.int32)
        self.data = np.zeros(n_vocab, dtype=dtype)
        self.array = llama_cpp.llama_token_data_array(
            data=self.data.ctypes.data_as(llama_cpp.llama_token_data_p),
            size=n_vocab,
            selected=-1,
            sorted=False,
        )
        self.one = np.zeros(1, dtype=dtype)
        self.one_array = llama_cpp.llama_token_data_array(
            data=self.one.ctypes.data_as(llama_cpp.llama_token_data_p), size=1, selected=-1, sorted=False
        )

    def load(self, logits: np.ndarray):
        """The full vocabulary with these logits, ready for ``llama_sampler_apply``."""
        self.data["id"] = self.ids
        self.data["logit"] = logits
        self.data["p"] = 0.0
        self.array.size = self.n_vocab
        self.array.selected = -1
        self.array.sorted = False
        return ctypes.byref(self.array)

    def selected(self) -> int:
        return int(self.array.data[self.array.selected].id)

    def single(self, token: int):
        """A one-token array: what a grammar sampler says of one candidate."""
        self.one[0] = (token, 1.0, 0.0)
        self.one_array.size = 1
        self.one_array.selected = -1
        self.one_array.sorted = False
        return ctypes.byref(self.one_array)

    def single_allowed(self) -> bool:
        return bool(np.isfinite(self.one[0]["logit"]))


class ReferenceKernels:
    """Switches a context's CPU backend to ggml's reference kernels while decoding.

    ggml picks attention kernels by batch shape: a lone sequence with 512+ cached
    tokens gets its keys split across threads and re-combined, which rounds
    differently from the same sequence decoded beside others. The reference kernels
    compute every query row alone, so a sample's logits are bit-identical whatever
    else is in the batch. llama.cpp has no public call for this: the context's
    scheduler comes from ``llama_context::get_sched()`` (exported, C++ ABI) and the
    switch is ggml's ``ggml_backend_cpu_set_use_ref``. Where either is missing
    (another build or version), ``available`` is False and decoding runs with the
    default kernels: batching still works, the invariance then holds only below 512
    cached tokens per sequence.
    """

    def __init__(self, llama_cpp, ctx):
        self.backends: list[int] = []
        self._set = None
        try:
            lib_dir = Path(llama_cpp.__file__).parent / "lib"
            llama = llama_cpp.llama_cpp._lib
            base = ctypes.CDLL(str(_one_library(lib_dir, "ggml-base")))
            cpu = ctypes.CDLL(str(_one_library(lib_dir, "ggml-cpu")))
            get_sched = getattr(llama, "_ZNK13llama_context9get_schedEv")
            get_sched.restype, get_sched.argtypes = ctypes.c_void_p, [ctypes.c_void_p]
            n_backends = base.ggml_backend_sched_get_n_backends
            n_backends.restype, n_backends.argtypes = ctypes.c_int, [ctypes.c_void_p]
            get_backend = base.ggml_backend_sched_get_backend
            get_backend.restype, get_backend.argtypes = ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_int]
            is_cpu = cpu.ggml_backend_is_cpu
            is_cpu.restype, is_cpu.argtypes = ctypes.c_bool, [ctypes.c_void_p]
            self._set = cpu.ggml_backend_cpu_set_use_ref
            self._set.restype, self._set.argtypes = None, [ctypes.c_void_p, ctypes.c_bool]
            sched = get_sched(ctx)
            if sched:
                for i in range(n_backends(sched)):
                    backend = get_backend(sched, i)
                    if backend and is_cpu(backend):
                        self.backends.append(backend)
        except (OSError, AttributeError, FileNotFoundError):
            self.backends = []

    @property
    def available(self) -> bool:
        return bool(self.backends)

    def set(self, on: bool) -> None:
        for backend in self.backends:
            self._set(backend, on)


def _one_library(lib_dir: Path, stem: str) -> Path:
    for pattern in (f"lib{stem}.so", f"lib{stem}.dylib", f"{stem}.dll"):
        path = lib_dir / pattern
        if path.exists():
            return path
    raise FileNotFoundError(f"{stem} library not found in {lib_dir}")

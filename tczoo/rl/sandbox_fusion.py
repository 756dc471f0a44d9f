"""SandboxFusion's ``run_code`` (the API verl's ``sandbox_fusion`` reward calls) answered
by tczoo's sandbox: the request and response as SandboxFusion defines them, and the
mapping to and from a sandboxed run.

Request (JSON): ``code``, ``language``, ``stdin``, ``run_timeout`` and ``compile_timeout``
(seconds), ``memory_limit_MB`` (-1: none), ``files`` (name -> base64 content, placed beside
the program), ``fetch_files`` (names to send back). Response: ``status`` (``Success`` |
``Failed`` | ``SandboxError``), ``message``, ``compile_result`` and ``run_result`` (each
``status``: ``Finished`` | ``Error`` | ``TimeLimitExceeded``, ``execution_time`` in seconds,
``return_code``, ``stdout``, ``stderr``), ``files``.

How tczoo runs it: the program runs in tczoo's sandbox (``Sandbox.run_many``: a jail, its
own uid, no network, a private folder, cgroups) with ``run_timeout`` as its CPU-time limit
(and the sandbox's wall-clock guard, 2 x + 1 s) and ``memory_limit_MB`` as its memory
limit (-1, or more than ``max_memory_mb``: ``max_memory_mb``, 4096 by default: the server's
own bound), one process (no fork), output capped at 64 MiB. Compiles run under tczoo's
compile limits (30 s of CPU), whatever ``compile_timeout`` says. Verdicts map as
SandboxFusion reports them: ``AC`` -> ``Success``/``Finished`` 0; ``RE``, ``MLE``, ``OLE``
-> ``Failed``/``Finished`` with a non-zero return code (128 + the signal when a signal
ended it); ``TLE`` -> ``Failed``/``TimeLimitExceeded``; ``CE`` -> ``Failed`` with
``compile_result`` ``Finished``, return code 1 and the compiler's message; ``SE`` (the
sandbox's own failure, from the worker's channel) -> ``SandboxError``. Languages: python,
cpp, c, java (where the JDK is installed). ``fetch_files`` is refused (a 400: tczoo's runs
leave nothing behind to fetch).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tczoo.rewards import RewardConfigError

LANGUAGES = {"python": "python", "python3": "python", "cpp": "cpp", "c": "c", "java": "java"}
DEFAULT_MEMORY_MB = 1024  # verl's sandbox_fusion default, and the server's when a request says -1
MAX_MEMORY_MB = 4096
MAX_RUN_TIMEOUT_S = 60.0
MAX_FILES_BYTES = 8 << 20


class RunCodeRequest(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    code: str
    language: str = "python"
    stdin: str | None = None
    compile_timeout: float = 10.0
    run_timeout: float = 10.0
    memory_limit_mb: int = Field(-1, alias="memory_limit_MB")
    files: dict[str, str | None] = Field(default_factory=dict)
    fetch_files: list[str] = Field(default_factory=list)


def to_job(request: RunCodeRequest, *, max_memory_mb: int = MAX_MEMORY_MB) -> Any:
    """The sandbox job for a request; ``RewardConfigError`` (a 400) for what tczoo will
    not run: another language, a time limit out of range, files to fetch, bad base64."""
    from tczoo.sandbox.types import Job, Limits
    from tczoo.schema import Language, Program

    language = LANGUAGES.get(request.language.strip().lower())
    if language is None:
        raise RewardConfigError(f"language {request.language!r} is not run by tczoo "
                                f"(it runs: {', '.join(sorted(set(LANGUAGES.values())))})")
    if request.fetch_files:
        raise RewardConfigError("fetch_files is not supported: tczoo's runs leave nothing behind to fetch")
    if not 0 < request.run_timeout <= MAX_RUN_TIMEOUT_S:
        raise RewardConfigError(f"run_timeout must be in (0, {MAX_RUN_TIMEOUT_S:g}] seconds, "
                                f"not {request.run_timeout}")
    memory = request.memory_limit_mb
    if memory <= 0 or memory > max_memory_mb:
        memory = DEFAULT_MEMORY_MB if memory <= 0 else max_memory_mb
        memory = min(memory, max_memory_mb)
    files: dict[str, str] = {}
    total = 0
    for name, content in request.files.items():
        if not name or "/" in name or name in (".", "..") or "\0" in name:
            raise RewardConfigError(f"files: {name!r} is not a plain file name")
        try:
            raw = base64.b64decode(content or "", validate=True)
            text = raw.decode("utf-8")
        except (binascii.Error, ValueError):
            raise RewardConfigError(f"files: {name!r} is not base64 of UTF-8 text (tczoo places text files only)") \
                from None
        total += len(raw)
        if total > MAX_FILES_BYTES:
            raise RewardConfigError(f"files: more than {MAX_FILES_BYTES >> 20} MiB")
        files[name] = text
    limits = Limits(time_ms=max(1, int(request.run_timeout * 1000)), memory_mb=memory)
    program = Program(code=request.code, language=Language(language), name="run_code")
    return Job(program=program, stdin=request.stdin or "", limits=limits, files=files or None)


def executor_name() -> str:
    """What SandboxFusion's ``executor_pod_name`` says here: this host and process."""
    import os
    import socket

    return f"{socket.gethostname()}:{os.getpid()}"


def response_of(result: Any) -> dict[str, Any]:
    """SandboxFusion's response for a ``RunResult``."""
    from tczoo.sandbox.types import Verdict

    verdict = result.verdict
    seconds = round(result.wall_ms / 1000.0, 4)
    if verdict is Verdict.SE:
        return {"status": "SandboxError", "message": (result.message or "the sandbox failed the run")[:2000],
                "compile_result": None, "run_result": None, "files": {}, "executor_pod_name": executor_name()}
    if verdict is Verdict.CE:
        return {"status": "Failed", "message": "",
                "compile_result": {"status": "Finished", "execution_time": None, "return_code": 1, "stdout": "",
                                   "stderr": result.message or result.stderr},
                "run_result": None, "files": {}, "executor_pod_name": executor_name()}
    if verdict is Verdict.TLE:
        status, code = "TimeLimitExceeded", None
    elif verdict is Verdict.AC:
        status, code = "Finished", 0
    else:  # RE, MLE, OLE: a program that ended badly
        code = result.exit_code if result.exit_code not in (None, 0) else 128 + (result.signal or 9)
        status = "Finished"
    run = {"status": status, "execution_time": seconds, "return_code": code, "stdout": result.stdout,
           "stderr": result.stderr}
    return {"status": "Success" if verdict is Verdict.AC else "Failed",
            "message": "" if verdict is Verdict.AC else verdict.value, "compile_result": None, "run_result": run,
            "files": {}, "executor_pod_name": executor_name()}


__all__ = ["RunCodeRequest", "response_of", "to_job"]

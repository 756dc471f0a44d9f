"""The options every ``tczoo`` command shares, and the checks of their values — the
kernel's commands and every plugin's (a plugin's ``register(app)`` builds its commands
from these and from ``tczoo.cli.output``, so that all commands look and fail alike):

- ``CLIError``: a user's mistake, printed as one line ``error: ...`` with exit code 2;
- ``format_option``: the one flag for machine output, ``--format/-f``;
- ``split``, ``require_file``, ``require_run_dir``, ``require_runs``, ``check_benchmark``,
  ``parse_json_option``: argument parsing that refuses bad values where they are parsed;
- ``check_model``: a model string that names nothing, or a provider without its API
  key, is refused before any work starts;
- ``executor_option``/``address_option``/``execution_options``: ``--executor
  local|ray --address auto|HOST:PORT``, the same on every command that runs work;
- ``run_options``: how a run executes (sampling defaults, limits, retries, where it
  runs), declared once for ``run``, ``compare`` and ``reproduce``;
- ``resamples_option``/``bootstrap_seed_option``/``use_stats``: the bootstrap behind
  every interval a report prints (``tczoo.stats``);
- ``print_dry_run``/``dry_check_model``/``say_embedded_model``: ``--dry-run`` and the
  line a run without ``--model`` prints (``tczoo.estimate``).

Nothing here imports more than typer at import time: ``tczoo --help`` must stay fast.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

import typer

from tczoo.errors import UserError


class CLIError(UserError):
    """A user error in a command's arguments: printed as one line, exit code 2."""


# --------------------------------------------------------------------------- options


def format_option(*choices: str, default: str = "table", help: str | None = None) -> Any:
    """The ``--format/-f`` option every command with machine output takes."""
    allowed = tuple(choices) or ("table", "json")

    def check(value: str) -> str:
        if value not in allowed:
            raise typer.BadParameter(f"{value!r} is not one of {', '.join(allowed)}")
        return value

    return typer.Option(default, "--format", "-f", callback=check, metavar="|".join(allowed),
                        help=help or f"output format: {' | '.join(allowed)}")


def executor_option() -> Any:
    """``--executor``: where a command's runs and generations go (``tczoo.distributed``)."""
    return typer.Option("local", "--executor", metavar="local|ray",
                        help="local: this machine's sandbox slots; ray: a Ray cluster (pip install 'tczoo[dist]')")


def address_option() -> Any:
    """``--address``: which Ray cluster ``--executor ray`` uses."""
    return typer.Option(None, "--address", metavar="auto|HOST:PORT",
                        help="with --executor ray: auto (the cluster this machine joined) or the head's HOST:PORT; "
                             "default: $RAY_ADDRESS, else a private Ray instance on this machine")


def execution_options(executor: str, address: str | None) -> Any:
    """The ``tczoo.distributed.ExecutionOptions`` of ``--executor``/``--address``; a bad
    value is a one-line usage error. Every command that runs programs or generates
    passes it on (``tczoo.run.run``/``rescore``, or ``tczoo.distributed.open_cluster``)."""
    from tczoo.distributed import execution_options as make

    return make(executor, address)


def split(values: str | None) -> list[str] | None:
    """A comma-separated option as a list (None when absent or empty)."""
    if not values:
        return None
    return [v.strip() for v in values.split(",") if v.strip()] or None


def require_file(path: Path | None, what: str = "file") -> Path | None:
    """``path`` must be a readable regular file (a usage error otherwise)."""
    if path is None:
        return None
    if not path.exists():
        raise CLIError(f"cannot read {what} {path}: no such file")
    if not path.is_file():
        raise CLIError(f"cannot read {what} {path}: not a regular file")
    if not os.access(path, os.R_OK):
        raise CLIError(f"cannot read {what} {path}: permission denied")
    return path


def read_user_file(path: Path, what: str = "file") -> bytes:
    """The bytes of a user's file: a readable regular file (``require_file``), at most
    ``TCZOO_READ_FILE_MB`` (256 MiB by default; ``tczoo.safeio.read``), read once."""
    from tczoo.safeio.read import ReadLimits, Refused, read_file

    require_file(path, what)
    try:
        return read_file(path, cap=ReadLimits.from_env().file_bytes)
    except Refused as exc:
        raise CLIError(f"cannot read {what} {exc}") from None


def require_run_dir(path: Path) -> Path:
    """``path`` must be one run directory (a command that reads exactly one run; most
    take several and a comparison directory through ``require_runs``)."""
    if not (path / "config.json").is_file():
        from tczoo.store import is_grid

        if is_grid(path):
            raise CLIError(f"{path} is a comparison directory; name one of its runs "
                           f"(e.g. {path}/MODEL/METHOD, listed by tczoo report {path})")
        raise CLIError(f"{path} is not a tczoo run directory (no config.json)")
    return path


def require_runs(paths: list[Path] | Path) -> list[Path]:
    """The run directories a command's arguments name: run directories, comparison
    directories (``tczoo compare``/``reproduce --out``: every run in them), or several
    of both (``tczoo.store.run_dirs``); anything else is a one-line usage error."""
    from tczoo.store import run_dirs

    return run_dirs(paths)


# Where the running command writes, and the option that chooses each place (``writable``):
# a write that fails later (a full disk) is reported naming the option.
OUTPUTS: list[tuple[Path, str]] = []

WRITE_ERRNOS = {"EROFS": "read-only file system", "EACCES": "permission denied", "EPERM": "permission denied",
                "ENOSPC": "no space left on the device", "EDQUOT": "disk quota exceeded"}


def cannot_write(folder: Path, why: str, hint: str) -> str:
    return f"cannot write to {folder} ({why}); {hint}"


def _hint(option: str | None) -> str:
    return f"choose another folder with {option}" if option else "give a folder you can write to"


def writable(path: Path, what: str = "folder", option: str | None = "--out", *, hint: str | None = None) -> Path:
    """``path`` is where the command is about to write (a folder; a file's folder is
    checked for a file): refuse now, in one line naming it and the option that changes
    it, when it lies on a read-only file system or cannot be written; remember it so
    that a write failing later (a full disk) names the option too."""
    target = Path(path)
    OUTPUTS.append((target, hint or _hint(option)))
    probe = target
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        if probe == target and what != "file":
            raise CLIError(f"{option + ' ' if option else ''}{target} exists and is not a directory")
        probe = probe.parent
    readonly = False
    try:
        readonly = bool(os.statvfs(probe).f_flag & os.ST_RDONLY)
    except OSError:
        pass
    if readonly or not os.access(probe, os.W_OK | os.X_OK):
        why = WRITE_ERRNOS["EROFS" if readonly else "EACCES"]
        raise CLIError(cannot_write(probe if probe != target and not target.exists() else target, why,
                                    hint or _hint(option)))
    return target


def write_error(exc: OSError) -> tuple[str, bool] | None:
    """(one line, whether the disk is full) for a write that failed for want of a writable
    or roomy folder (read-only, full disk, quota; a permission error only under a folder
    the command declared with ``writable``: elsewhere it may be a file it could not read),
    naming the folder and the option that chooses it; None for any other error."""
    import errno

    name = errno.errorcode.get(exc.errno or 0, "")
    if name not in WRITE_ERRNOS:
        return None
    where = Path(exc.filename) if exc.filename else None
    hint, folder = _hint(None), (where.parent if where is not None else None)
    declared = next(((out, text) for out, text in reversed(OUTPUTS)
                     if where is not None and (where == out or out in where.parents)), None)
    if declared is None and where is None and OUTPUTS:  # a write to an open file: the last folder declared
        declared = OUTPUTS[-1]
    if declared is not None:
        folder, hint = declared
    elif name in ("EACCES", "EPERM"):
        return None
    return (cannot_write(folder if folder is not None else Path("."), WRITE_ERRNOS[name], hint),
            name in ("ENOSPC", "EDQUOT"))


def check_benchmark(benchmark: str) -> str:
    """A bundled or hub benchmark name, or SCHEMA:PATH (the loader checks the path)."""
    from tczoo.benchmarks import benchmark_names

    if benchmark not in benchmark_names() and ":" not in benchmark:
        raise CLIError(f"unknown benchmark {benchmark!r} (known: {', '.join(benchmark_names())}, or SCHEMA:PATH)")
    return benchmark


def parse_json_option(text: str | None, option: str) -> Any:
    """The JSON value of an option such as ``--params``: invalid JSON, NaN or infinity,
    or nesting deeper than ``tczoo.safeio.userfiles.MAX_DEPTH`` is one line, exit 2."""
    if not text:
        return None
    from tczoo.safeio.userfiles import UserFileError, loads

    try:
        return loads(text, option)
    except UserFileError as exc:  # "--params:1: not JSON (Expecting ...)", "--params:1: NaN is not ..."
        why = str(exc).split(": ", 1)[-1]
        if why.startswith("not JSON ("):
            raise CLIError(f"{option} is not valid JSON: {why[len('not JSON ('):-1]}") from None
        raise CLIError(f"{option}: {why}") from None


def resamples_option() -> Any:
    """``--resamples``: the bootstrap's resample count behind every interval."""
    return typer.Option(2000, "--resamples", min=100, max=1_000_000,
                        help="bootstrap resamples behind every 95% interval (over problems)")


def bootstrap_seed_option() -> Any:
    """``--bootstrap-seed``: the seed of the bootstrap's draws (the same seed, the same intervals)."""
    return typer.Option(0, "--bootstrap-seed", help="seed of the bootstrap behind every interval")


def use_stats(resamples: int, seed: int) -> None:
    """Make every report this command prints use these resamples and seed."""
    from tczoo.report import StatsOptions, use_stats as set_default

    set_default(StatsOptions(resamples=resamples, seed=seed))


# --------------------------------------------------------------------------- models


# The keys of the common providers, checked without importing LiteLLM (which takes
# seconds); other providers are asked of LiteLLM itself.
PROVIDER_KEYS = {
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "openrouter": ("OPENROUTER_API_KEY",),
    "together_ai": ("TOGETHERAI_API_KEY", "TOGETHER_AI_API_KEY"),
    "xai": ("XAI_API_KEY",),
    "dashscope": ("DASHSCOPE_API_KEY",),
}
KEYLESS = ("hosted_vllm", "ollama", "ollama_chat", "lm_studio", "llamafile")
# Providers with no default server: LiteLLM would send their calls to a host that is not
# yours and fail after every retry; refused before the run instead (the env variable is
# LiteLLM's own way to name the server).
NEEDS_API_BASE = {"hosted_vllm": "HOSTED_VLLM_API_BASE", "openai_like": "OPENAI_LIKE_API_BASE",
                  "lm_studio": "LM_STUDIO_API_BASE"}


def check_model(model: str, api_base: str | None = None, *, probe: bool = True) -> None:
    """Refuse, before any work starts, a model string that names nothing (no such
    file, no such local model, a provider LiteLLM does not know), a provider whose API
    key is missing, and an ``--api-base`` nothing answers on (one cheap GET)."""
    import importlib.util

    from tczoo.llm.backends import LiteLLMBackend, _litellm, make_backend

    if model.startswith("local/") and importlib.util.find_spec("llama_cpp") is None:
        from tczoo.llm.local.gguf import INSTALL_HINT

        raise CLIError(f"model {model}: llama-cpp-python is not installed; {INSTALL_HINT}")
    backend = make_backend(model, api_base=api_base)  # ModelSpecError is a UserError
    if not isinstance(backend, LiteLLMBackend):
        if api_base:
            raise CLIError(f"--api-base is for provider models (openai/..., hosted_vllm/...), not {model}")
        return  # local, scripted, replay
    provider = backend.provider
    base_env = NEEDS_API_BASE.get(provider)
    if base_env is not None and not api_base and not os.environ.get(base_env):
        raise CLIError(f"model {model}: {provider} models are served by a server of your own; pass --api-base URL "
                       f"(e.g. --api-base http://localhost:8000/v1) or set {base_env}")
    if provider not in PROVIDER_KEYS and provider not in KEYLESS:
        known = {getattr(p, "value", str(p)) for p in _litellm().provider_list}
        if provider not in known:
            raise CLIError(f"model {model}: unknown provider {provider!r} (e.g. openai, anthropic, gemini, "
                           "hosted_vllm, ollama; see https://docs.litellm.ai/docs/providers)")
    if api_base:
        if probe:
            probe_api_base(api_base)
        return  # a self-hosted server: its key, if any, is the server's business
    if provider in KEYLESS:
        return
    keys = PROVIDER_KEYS.get(provider)
    if keys is not None:
        missing = [] if any(os.environ.get(k) for k in keys) else [keys[0]]
    else:
        try:
            env = _litellm().validate_environment(model=model)
        except Exception:
            return  # unknown to LiteLLM's table: the call itself will report
        missing = [] if env.get("keys_in_environment") else list(env.get("missing_keys") or [])
    if missing:
        local = " (or, for an OpenAI-compatible server of your own, pass --api-base URL)" if provider == "openai" else ""
        raise CLIError(f"model {model}: missing API key: set {', '.join(missing)}{local}")


def probe_api_base(url: str, timeout: float = 5.0) -> None:
    """One cheap request to ``url``/models: refused connections, unknown hosts and
    silence are refused here, in seconds, instead of after every call's retries. Any
    HTTP answer (even an error status) means a server is there."""
    import http.client
    import socket
    import urllib.error
    import urllib.parse
    import urllib.request

    parsed = urllib.parse.urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise CLIError(f"--api-base {url!r} is not an http(s) URL (e.g. http://localhost:8000/v1)")
    target = url.rstrip("/") + "/models"
    try:
        with urllib.request.urlopen(urllib.request.Request(target, method="GET"), timeout=timeout):
            return
    except urllib.error.HTTPError:
        return  # a server answered
    except urllib.error.URLError as exc:
        reason = exc.reason
        why = reason.strerror if isinstance(reason, OSError) and reason.strerror else str(reason)
        raise CLIError(f"--api-base {url}: cannot connect ({why})") from None
    except (socket.timeout, TimeoutError):
        raise CLIError(f"--api-base {url}: no answer within {timeout:g} s") from None
    except (http.client.HTTPException, ConnectionError, OSError):
        return  # something answered, if badly: the calls will say what


# --------------------------------------------------------------------------- run options


def say_embedded_model(model: str) -> None:
    """One line when ``--model`` was left out: the embedded model answers, on this
    machine, at about what speed, and how to see the job's size first."""
    import sys

    if any(a == "--model" or a.startswith("--model=") or a == "--models" or a.startswith("--models=")
           for a in sys.argv[1:]) or not model.startswith("local/"):  # a target's own model (released:)
        return
    from tczoo.cli.output import echo
    from tczoo.estimate import LOCAL_TOKENS_PER_S

    echo(f"no --model: the embedded model {model} answers on this machine's CPU (about {LOCAL_TOKENS_PER_S:g} "
         "tokens/s on 2 cores); --dry-run prints this job's calls, tokens and worst-case decoding time first",
         err=True)


def dry_check_model(model: str, api_base: str | None) -> None:
    """A dry run sends nothing: the model must name something, but its API key may be
    missing (said in one line) and a server is not probed."""
    try:
        check_model(model, api_base, probe=False)
    except CLIError as exc:
        if "missing API key" not in str(exc):
            raise
        from tczoo.cli.output import warn

        warn(f"{exc} (a dry run sends nothing; the run itself will need it)")


def print_dry_run(configs: list, options, fmt: str) -> None:
    """``--dry-run``: what these runs would send (``tczoo.estimate``), per model and
    method, in ``fmt``; nothing is called or written."""
    import asyncio

    from tczoo.cli.output import print_tables
    from tczoo.cli.progress import progress
    from tczoo.estimate import estimate, estimate_table, merge

    async def all_of() -> list:
        out = []
        cluster = options.open_cluster()
        try:
            for config in configs:
                out.append(await estimate(config, options, cluster=cluster))
        finally:
            cluster.close()
        return merge(out)

    with progress("dry run (nothing is sent)", unit="runs"):
        estimates = asyncio.run(all_of())
    print_tables([estimate_table(estimates)], fmt)


def run_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Give a command the options of how a run executes — sampling defaults, the
    provider's ``--api-base``, concurrency, connection, cost and error limits, retries (``--retries``),
    the cache, where it runs (``--executor``/``--address``) — and call it with them as one ``options: tczoo.run.RunOptions`` argument.

    ``tczoo run``, ``compare`` and ``reproduce`` are decorated with it, so an execution
    option is declared here once (and its field added to ``RunOptions``)."""
    import functools
    import inspect
    from typing import Optional

    shared = {
        "temperature": (Optional[float], typer.Option(
            None, "--temperature", min=0, help="sampling temperature of methods whose paper fixes none (default 0.2)")),
        "max_tokens": (Optional[int], typer.Option(
            None, "--max-tokens", min=1, help="most tokens per answer, for methods that set none (default 2048)")),
        "api_base": (Optional[str], typer.Option(
            None, "--api-base", help="for hosted_vllm/ and openai-compatible servers (probed before the run)")),
        "concurrency": (int, typer.Option(4, "--concurrency", min=1, help="units generated at once")),
        "max_connections": (int, typer.Option(8, "--max-connections", min=1,
                                              help="requests in flight per provider and server")),
        "max_cost": (Optional[float], typer.Option(
            None, "--max-cost", min=0,
            help="stop generating once the run's LiteLLM-computed cost reaches this many USD (resumable)")),
        "max_errors": (int, typer.Option(5, "--max-consecutive-errors", min=0,
                                         help="stop the run after this many provider failures in a row (0: never)")),
        "retries": (Optional[int], typer.Option(
            None, "--retries", min=0,
            help="times a call that failed transiently (rate limit, 5xx, timeout, lost connection) is tried "
                 "again, waiting about 2, 4, 8 ... s or the provider's Retry-After (default 4)")),
        "retry_failed": (bool, typer.Option(
            False, "--retry-failed",
            help="generate every failed unit again (transient provider failures are retried without it)")),
        "no_cache": (bool, typer.Option(False, "--no-cache", help="do not read or write the LLM exchange cache")),
        "executor": (str, executor_option()),
        "address": (Optional[str], address_option()),
    }
    signature = inspect.signature(command)
    kept = [p for name, p in signature.parameters.items() if name != "options"]
    added = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=option, annotation=kind)
             for name, (kind, option) in shared.items()]

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from tczoo.llm import LLMSettings
        from tczoo.run import RunOptions

        given = {name: kwargs.pop(name) for name in shared}
        settings = LLMSettings(api_base=given["api_base"], cache=not given["no_cache"],
                               max_connections=given["max_connections"], max_cost=given["max_cost"],
                               max_consecutive_errors=given["max_errors"])
        if given["temperature"] is not None:
            settings.temperature = given["temperature"]
        if given["max_tokens"] is not None:
            settings.max_tokens = given["max_tokens"]
        if given["retries"] is not None:
            settings.retries = given["retries"]
        options = RunOptions(settings=settings, concurrency=given["concurrency"],
                             retry_failed=given["retry_failed"],
                             execution=execution_options(given["executor"], given["address"]),
                             given=frozenset(k for k in ("temperature", "max_tokens") if given[k] is not None))
        return command(*args, options=options, **kwargs)

    wrapper.__signature__ = signature.replace(parameters=kept + added)  # type: ignore[attr-defined]
    return wrapper

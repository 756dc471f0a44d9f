"""``tczoo serve rewards``: tczoo's rewards and SandboxFusion's ``run_code`` over HTTP
(``tczoo.rl.serve``; docs/rl.md, "Served")."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path
from typing import Optional

import typer

from tczoo.cli.options import CLIError, parse_json_option
from tczoo.cli.output import echo

serve_app = typer.Typer(help="Serve tczoo over HTTP (docs/rl.md).", no_args_is_help=True)

TOKEN_ENV = "TCZOO_SERVE_TOKEN"


def read_or_make_token(path: Optional[Path]) -> tuple[str, str]:
    """(token, where it came from): ``--token-file`` (read; made with a fresh token, owner
    only, when it does not exist), else ``TCZOO_SERVE_TOKEN``, else a fresh one."""
    from tczoo.rl.serve import new_token

    if path is not None:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            pass
        except OSError as exc:
            raise CLIError(f"--token-file {path}: cannot create it ({exc.strerror})") from None
        else:
            token = new_token()
            with os.fdopen(fd, "w") as f:
                f.write(token + "\n")
            return token, f"a new token in {path}"
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError as exc:
            raise CLIError(f"--token-file {path}: cannot read it ({exc.strerror})") from None
        with os.fdopen(fd, "rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise CLIError(f"--token-file {path}: not a regular file")
            if info.st_mode & 0o077:
                raise CLIError(f"--token-file {path}: readable by others (chmod 600 it)")
            token = f.read(4096).decode("utf-8", "replace").strip()
        if len(token) < 16:
            raise CLIError(f"--token-file {path}: the token must have at least 16 characters")
        return token, f"the token in {path}"
    token = os.environ.get(TOKEN_ENV, "").strip()
    if token:
        if len(token) < 16:
            raise CLIError(f"{TOKEN_ENV}: the token must have at least 16 characters")
        return token, TOKEN_ENV
    return new_token(), "a new token"


@serve_app.command("rewards")
def rewards(
    host: str = typer.Option("127.0.0.1", "--host", help="address to listen on (loopback unless --public)"),
    port: int = typer.Option(8765, "--port", min=0, max=65535, help="port (0: any free one; plain server only)"),
    public: bool = typer.Option(False, "--public", help="allow a non-loopback --host (docs/security.md)"),
    token_file: Optional[Path] = typer.Option(None, "--token-file",
                                              help="the token's file (made, owner only, when missing); "
                                                   f"else {TOKEN_ENV}, else a new token is printed"),
    workers: Optional[int] = typer.Option(None, "--workers", min=1,
                                          help="sandbox slots (default: this process's share of the machine)"),
    ranks: Optional[int] = typer.Option(None, "--ranks", min=1, help="processes sharing this node's cores"),
    time_budget: float = typer.Option(120.0, "--time-budget", min=0.1, help="seconds per reward"),
    max_tests: int = typer.Option(100, "--max-tests", min=1, help="tests scored per reward"),
    concurrency: Optional[int] = typer.Option(None, "--concurrency", min=1,
                                              help="rewards and runs at once (default 2 x workers)"),
    capacity: Optional[int] = typer.Option(None, "--capacity", min=1,
                                           help="work admitted at once, running or queued (default 16 x "
                                                "concurrency); past it: 429 with Retry-After"),
    benchmarks: Optional[str] = typer.Option(None, "--benchmarks",
                                             help='JSON: {"kattis:/data/x": "kattis:/mnt/x"}, where packages are here'),
    replicas: int = typer.Option(0, "--replicas", min=0,
                                 help="serve as this many Ray Serve replicas (0: one uvicorn server)"),
    address: Optional[str] = typer.Option(None, "--address", metavar="auto|HOST:PORT",
                                          help="with --replicas: the Ray cluster (default: a private one here)"),
) -> None:
    """Serve rewards (POST /v1/rewards), SandboxFusion's run_code (POST /run_code, for
    verl's sandbox_fusion reward) and GET /v1/health until Ctrl-C."""
    from tczoo.rl.serve import RayServe, ServeOptions, check_host, serve

    check_host(host, public)
    mapping = parse_json_option(benchmarks, "--benchmarks") or {}
    if not isinstance(mapping, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in mapping.items()):
        raise CLIError('--benchmarks must be a JSON object of benchmark specs, e.g. {"kattis:/a": "kattis:/b"}')
    if address is not None and not replicas:
        raise CLIError("--address is for --replicas (Ray Serve)")
    token, source = read_or_make_token(token_file)
    options = ServeOptions(token=token, workers=workers, ranks=ranks, time_budget_s=time_budget, max_tests=max_tests,
                           concurrency=concurrency, capacity=capacity, benchmarks=mapping)

    def ready(url: str) -> None:
        echo(f"tczoo rewards on {url} ({source})", err=True)
        if source == "a new token":
            echo(f"token: {token}", err=True)
        echo(f"  POST {url}/v1/rewards   POST {url}/run_code   GET {url}/v1/health", err=True)
        echo(f"  verl: reward.sandbox_fusion.url={url}/run_code?token=TOKEN", err=True)

    from tczoo.cli.interrupt import stopped

    if replicas and port == 0:
        raise CLIError("--port 0 is for the plain server; Ray Serve needs a port")
    try:
        if not replicas:
            # uvicorn stops on Ctrl-C (or SIGTERM), closes the pool, then hands the signal on
            serve(options, host=host, port=port, public=public, ready=ready)
        else:
            ray_serve = RayServe(options, replicas=replicas, host=host, port=port, address=address, public=public)
            try:
                ready(ray_serve.start())
                while True:
                    time.sleep(3600)
            finally:
                ray_serve.close()
    except KeyboardInterrupt:
        pass
    stopped.clear()  # Ctrl-C is how serving ends: not an interruption to resume
    echo("tczoo rewards: stopped", err=True)


def register(app: typer.Typer) -> None:
    app.add_typer(serve_app, name="serve")

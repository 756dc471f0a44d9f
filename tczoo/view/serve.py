"""``tczoo view --serve``: the site on a loopback HTTP server (the page needs none; this is
for a browser on another machine through an SSH tunnel, or for people who prefer a URL)."""

from __future__ import annotations

import functools
import http.server
import os
import stat
import sys
from pathlib import Path
from typing import Callable


LOOPBACK_NAMES = ("127.0.0.1", "localhost")


def host_allowed(host: str | None, port: int) -> bool:
    """Whether a request's ``Host`` header names this server: a loopback name it serves
    with its port (no port only when it serves on 80). Any other name is a page that
    reached 127.0.0.1 through DNS rebinding (``evil.example`` resolved to loopback):
    refused, so that no other site's page reads a run's prompts and answers."""
    if not host:
        return False
    host = host.strip()
    name, _, given = host.rpartition(":") if ":" in host else (host, "", "")
    if name.lower() not in LOOPBACK_NAMES:
        return False
    return given == str(port) if given else port == 80


class _Quiet(http.server.SimpleHTTPRequestHandler):
    """Serves regular files that resolve inside the site, and nothing else: no folder
    listings, no link that leads out of it, no FIFO or device (404 for all of them), and
    only to requests addressed to the loopback name and port it serves (421 otherwise)."""

    def log_message(self, format: str, *args) -> None:  # one line per request is noise here
        pass

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        hosts = self.headers.get_all("Host") or []
        if len(hosts) != 1 or not host_allowed(hosts[0], self.server.server_address[1]):
            self.send_error(421, "Misdirected Request", "this server answers only "
                            f"http://127.0.0.1:{self.server.server_address[1]}/ (or localhost)")
            return False
        return True

    def translate_path(self, path: str) -> str:
        site = os.path.realpath(self.directory)
        candidate = super().translate_path(path)
        if os.path.isdir(candidate):
            candidate = os.path.join(candidate, "index.html")
        real = os.path.realpath(candidate)
        try:
            inside = os.path.commonpath([site, real]) == site
            regular = stat.S_ISREG(os.stat(real).st_mode)
        except (OSError, ValueError):
            inside = regular = False
        # a path that cannot exist (below the marker file): http.server answers 404
        return real if inside and regular else os.path.join(site, ".tczoo-view", "not-served")

    def list_directory(self, path):  # noqa: ANN001 - http.server's signature
        self.send_error(404, "File not found")
        return None

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()


def server(site: Path, port: int) -> http.server.ThreadingHTTPServer:
    """A server for ``site`` bound to 127.0.0.1 only (never every interface)."""
    handler = functools.partial(_Quiet, directory=str(site))
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def serve_site(site: Path, port: int, announce: Callable[[str], None] = _to_stderr) -> None:
    """Serve ``site`` until Ctrl-C; ``announce`` is told the URL once it is bound (the
    command line prints it; this module prints nothing of its own)."""
    try:
        httpd = server(site, port)
    except OSError as exc:
        from tczoo.errors import UserError

        raise UserError(f"cannot serve on 127.0.0.1:{port}: {exc.strerror or exc}") from exc
    host, real_port = httpd.server_address[:2]
    announce(f"serving {site} at http://{host}:{real_port}/ (Ctrl-C stops)")
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()

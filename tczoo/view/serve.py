"""``tczoo view --serve``: the site on a loopback HTTP server (the page needs none; this is
for a browser on another machine through an SSH tunnel, or for people who prefer a URL)."""

from __future__ import annotations

import functools
import http.server
import sys
from pathlib import Path
from typing import Callable


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:  # one line per request is noise here
        pass

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

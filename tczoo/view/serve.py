"""``tczoo view --serve``: the site on a loopback HTTP server (the page needs none; this is
for a browser on another machine through an SSH tunnel, or for people who prefer a URL)."""

from __future__ import annotations

import functools
import http.server
from pathlib import Path


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


def serve_site(site: Path, port: int) -> None:
    from tczoo.cli.kit import err_console

    try:
        httpd = server(site, port)
    except OSError as exc:
        from tczoo.errors import UserError

        raise UserError(f"cannot serve on 127.0.0.1:{port}: {exc.strerror or exc}") from exc
    host, real_port = httpd.server_address[:2]
    err_console.print(f"serving {site} at http://{host}:{real_port}/ (Ctrl-C stops)", markup=False)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()

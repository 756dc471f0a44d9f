"""A client of ``tczoo serve rewards`` (standard library only: it runs in a trainer's
process, which needs nothing of tczoo's server side).

    client = RewardClient("http://10.0.0.7:8765", token)
    [r] = client.rewards([reference], [completion])   # {"id", "score", "reason", "seconds", "parts"}

A 429 (the server is full) is waited out as its ``Retry-After`` says and asked again,
up to ``max_wait_s`` in all: the server never times a request out, it refuses it at once,
so a busy server slows the trainer down instead of losing its rewards. Anything else that
is not a 200 is an error (``RewardServerError``) naming the status and the server's line.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from tczoo.errors import UserError

TOKEN_ENV = "TCZOO_SERVE_TOKEN"


class RewardServerError(UserError, RuntimeError):
    """The reward server refused a request or could not be reached."""


class RewardClient:
    def __init__(self, url: str, token: str | None = None, *, timeout_s: float = 3600.0, max_wait_s: float = 3600.0):
        import os

        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise RewardServerError(f"reward server URL {url!r}: expected http://HOST:PORT")
        self.url = url.rstrip("/")
        self.token = token or os.environ.get(TOKEN_ENV, "")
        if not self.token:
            raise RewardServerError(f"no token for the reward server (pass token= or set {TOKEN_ENV})")
        self.timeout_s = timeout_s
        self.max_wait_s = max_wait_s
        self.waited_s = 0.0  # time spent waiting out 429s
        self.refusals = 0

    def rewards(self, references: list[Any], completions: list[str], ids: list[Any] | None = None) -> list[dict]:
        """Rewards of a batch, in order (one request)."""
        if len(references) != len(completions):
            raise RewardServerError(f"{len(references)} references for {len(completions)} completions")
        ids = list(range(len(references))) if ids is None else list(ids)
        items = [{"id": i, "reference": r, "completion": c} for i, r, c in zip(ids, references, completions)]
        got = self.post("/v1/rewards", {"items": items})["rewards"]
        if [g.get("id") for g in got] != ids:
            raise RewardServerError("the reward server answered other items than it was asked")
        return got

    async def arewards(self, references: list[Any], completions: list[str], ids: list[Any] | None = None
                       ) -> list[dict]:
        return await asyncio.to_thread(self.rewards, references, completions, ids)

    def run_code(self, request: dict) -> dict:
        return self.post("/run_code", request)

    def health(self) -> dict:
        return self._send(urllib.request.Request(self.url + "/v1/health", method="GET"))

    def post(self, path: str, body: Any) -> Any:
        data = json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method="POST",
                                         headers={"Content-Type": "application/json"})
        return self._send(request)

    def _send(self, request: urllib.request.Request) -> Any:
        request.add_header("Authorization", f"Bearer {self.token}")
        deadline = time.monotonic() + self.max_wait_s
        while True:
            try:
                with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                    return json.loads(response.read().decode("utf-8"))
            except urllib.error.HTTPError as exc:
                line = _line(exc)
                if exc.code == 429:
                    wait = _seconds(exc.headers.get("Retry-After"))
                    if time.monotonic() + wait <= deadline:
                        self.refusals += 1
                        self.waited_s += wait
                        time.sleep(wait)
                        continue
                raise RewardServerError(f"reward server {self.url}: HTTP {exc.code}: {line}") from None
            except (urllib.error.URLError, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                raise RewardServerError(f"reward server {self.url} cannot be reached: {reason}") from None


def _line(exc: urllib.error.HTTPError) -> str:
    try:
        body = json.loads(exc.read().decode("utf-8", "replace"))
        return str(body.get("error", body))[:500]
    except (ValueError, AttributeError, OSError):
        return exc.reason or ""


def _seconds(value: str | None) -> float:
    try:
        return min(600.0, max(0.05, float(value or 1)))
    except ValueError:
        return 1.0


__all__ = ["RewardClient", "RewardServerError"]

"""A real OpenAI-compatible HTTP server on loopback, scripted per test.

Not a mock of tczoo: requests go through LiteLLM and the OpenAI SDK over real HTTP.

``script`` is consumed one entry per request, then every request gets ``default``
(a normal answer). An entry is ``(status, text)`` — a chat completion with ``text`` for
200, an error body otherwise — or a dict with any of ``status``, ``text``, ``headers``
(e.g. ``{"Retry-After": "1"}``), ``raw`` (bytes sent as the body as they are: garbage)
and ``close`` (drop the connection without answering). ``answer(messages)``, where
given, writes the text of every normal answer (a provider that answers by its own rules).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def closed_port() -> int:
    """A loopback port nothing listens on (connection refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class FakeOpenAI:
    def __init__(self, script=None, delay: float = 0.0, default=None, name: str = "echo", answer=None):
        self.script = list(script or [])
        self.default = default  # entry for every request once the script is used up
        self.delay = delay
        self.name = name  # prefix of default answers: tells two servers apart
        self.answer = answer
        self.requests: list[dict] = []
        self.times: list[float] = []
        self.active = 0
        self.max_active = 0
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):  # the CLI's probe of --api-base: GET /v1/models
                data = json.dumps({"object": "list", "data": [{"id": "fake-model", "object": "model"}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with owner._lock:
                    owner.requests.append(body)
                    owner.times.append(time.monotonic())
                    owner.active += 1
                    owner.max_active = max(owner.max_active, owner.active)
                    entry = owner.script.pop(0) if owner.script else owner.default
                try:
                    time.sleep(owner.delay)
                    self._answer(body, entry)
                finally:
                    with owner._lock:
                        owner.active -= 1

            def _answer(self, body, entry):
                if entry is None:
                    entry = {}
                elif isinstance(entry, tuple):
                    entry = {"status": entry[0], "text": entry[1]}
                if entry.get("close"):
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                status = entry.get("status", 200)
                text = entry.get("text")
                if "raw" in entry:
                    data = entry["raw"] if isinstance(entry["raw"], bytes) else entry["raw"].encode()
                else:
                    if text is None and owner.answer is not None:
                        text = owner.answer(body["messages"])
                    if text is None:
                        text = f"{owner.name}: " + body["messages"][-1]["content"][:40]
                    if status == 200:
                        payload = {
                            "id": "x", "object": "chat.completion", "created": 0, "model": body["model"],
                            "choices": [{"index": 0, "finish_reason": "stop",
                                         "message": {"role": "assistant", "content": text}}],
                            "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
                        }
                    else:
                        payload = {"error": {"message": text or "error", "type": "x", "code": status}}
                    data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                for k, v in (entry.get("headers") or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


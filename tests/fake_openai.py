"""A real OpenAI-compatible HTTP server on loopback, scripted per test.

Not a mock of tczoo: requests go through LiteLLM and the OpenAI SDK over real HTTP.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeOpenAI:
    def __init__(self, script=None, delay: float = 0.0):
        # script: list of (status, text) consumed in order; then always (200, default)
        self.script = list(script or [])
        self.delay = delay
        self.requests: list[dict] = []
        self.active = 0
        self.max_active = 0
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with owner._lock:
                    owner.requests.append(body)
                    owner.active += 1
                    owner.max_active = max(owner.max_active, owner.active)
                    status, text = owner.script.pop(0) if owner.script else (200, None)
                try:
                    time.sleep(owner.delay)
                    if text is None:
                        text = "echo: " + body["messages"][-1]["content"][:40]
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
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                finally:
                    with owner._lock:
                        owner.active -= 1

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
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

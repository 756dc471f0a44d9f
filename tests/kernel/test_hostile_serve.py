"""The viewer's server against DNS rebinding (issue 49, item 4).

``tczoo view --serve`` listens on 127.0.0.1 only, but a page on another site can still
reach it: its name is made to resolve to 127.0.0.1 after the page loads, and the
browser then sends the page's own name in ``Host``. The server answered any ``Host``,
so that page could read a run's prompts and answers. It answers now only requests
addressed to the loopback name and port it serves; the attacks below are real HTTP
requests with forged ``Host`` headers.
"""

from __future__ import annotations

import http.client
import socket
import threading

import pytest

SECRET = "PROMPT-AND-ANSWER-OF-THE-RUN"


@pytest.fixture()
def served(tmp_path):
    from tczoo.view.serve import server

    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(f"<html><body>{SECRET}</body></html>")
    (site / "data.js").write_text(f"window.RUN = {{answer: '{SECRET}'}};")
    httpd = server(site, 0)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd.server_address[1]
    finally:
        httpd.shutdown()
        httpd.server_close()


def request(port: int, hosts: list[str], path: str = "/index.html", method: str = "GET") -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    for host in hosts:
        conn.putheader("Host", host)
    conn.endheaders()
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return resp.status, body


def raw_request(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_the_loopback_names_it_serves_are_answered(served):
    port = served
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LocalHost:{port}"):
        for path in ("/", "/index.html", "/data.js"):
            status, body = request(port, [host], path)
            assert status == 200 and SECRET.encode() in body, (host, path, status)


def test_forged_host_headers_are_refused_before_anything_is_read(served):
    port = served
    forged = [
        f"evil.example:{port}", "evil.example",  # the rebinding page's own name
        f"127.0.0.1.nip.io:{port}", f"localhost.evil.example:{port}", f"evil.example:{port}@127.0.0.1",
        f"127.0.0.1:{port + 1}", f"localhost:{port}0", f"127.0.0.1:{port}:{port}",  # another port
        "127.0.0.1", "localhost",  # no port: port 80, which this server is not
        f"[::1]:{port}", f"0.0.0.0:{port}", f"127.0.0.2:{port}", f"localhost.:{port}",  # names it does not serve
        "", " ",
    ]
    for host in forged:
        for method in ("GET", "HEAD"):
            status, body = request(port, [host], "/data.js", method)
            assert status == 421 and SECRET.encode() not in body, (host, method, status)
    assert request(port, [f"127.0.0.1:{port}", f"evil.example:{port}"])[0] == 421  # two Hosts: which one?
    assert request(port, [f"evil.example:{port}"], method="POST")[0] == 421
    # HTTP/1.0 without any Host header, and an absolute URI naming another host
    answer = raw_request(port, b"GET /index.html HTTP/1.0\r\n\r\n")
    assert answer.startswith(b"HTTP/1.0 421") and SECRET.encode() not in answer
    answer = raw_request(port, b"GET http://evil.example/index.html HTTP/1.1\r\nHost: evil.example\r\n"
                               b"Connection: close\r\n\r\n")
    assert b" 421 " in answer.split(b"\r\n", 1)[0] and SECRET.encode() not in answer


def test_host_allowed_reads_the_header_as_the_server_does():
    from tczoo.view.serve import host_allowed

    assert host_allowed("127.0.0.1:8765", 8765) and host_allowed("localhost:8765", 8765)
    assert host_allowed("localhost", 80) and not host_allowed("localhost", 8765)
    assert not host_allowed(None, 8765) and not host_allowed("127.0.0.1:08765", 8765)

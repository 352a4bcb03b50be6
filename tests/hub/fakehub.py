"""A real local Hub for the upload tests (tests/hub/conftest.py's `hub_server`): an HTTP server on 127.0.0.1 in a
thread (stdlib `http.server`) that the real `HfApi` talks to. It answers the few endpoints an upload uses (whoami,
create repo, tree, preupload, validate-yaml, commit), keeps the files committed, records every request, and
misbehaves on request: `hub.fail(method, path_part, Answer(...))` makes the matching requests stall, or answer a
status, headers and body of the test's choosing."""
from __future__ import annotations

import base64
import hashlib
import json
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse

STALL_S = 30   # how long a stalled answer waits at most (the fixture releases it when the test ends)


@dataclass
class Answer:
    """What a misbehaving route answers: `stall` (no answer until the test ends), else status, headers, body."""
    status: int = 200
    headers: dict = field(default_factory=dict)
    body: bytes = b""
    stall: bool = False


@dataclass
class Request:
    method: str
    path: str
    authorization: str


class FakeHub:
    def __init__(self):
        self.requests: list[Request] = []
        self.files: dict[str, bytes] = {}
        self.commits: list[str] = []
        self.failures: list[tuple[str, str, Answer]] = []
        self.release = threading.Event()
        self.url = ""

    def fail(self, method: str, path_part: str, answer: Answer) -> None:
        """Requests of `method` whose path contains `path_part` get `answer` from now on."""
        self.failures.append((method, path_part, answer))

    def count(self, method: str, path_part: str) -> int:
        return sum(r.method == method and path_part in r.path for r in self.requests)

    def answer(self, method: str, path: str, body: bytes) -> Answer:
        for m, part, answer in self.failures:
            if m == method and part in path:
                return answer
        route = urlparse(path).path
        if method == "GET" and route == "/api/whoami-v2":
            return json_answer({"type": "user", "name": "tester", "auth": {"type": "access_token"}})
        if method == "POST" and route == "/api/repos/create":
            return json_answer({"url": f"{self.url}/datasets/org/name"})
        if method == "GET" and "/tree/" in route:
            return json_answer([tree_entry(p, data) for p, data in sorted(self.files.items())])
        if method == "POST" and route == "/api/validate-yaml":
            return json_answer({"errors": [], "warnings": []})
        if method == "POST" and "/preupload/" in route:
            files = json.loads(body)["files"]
            return json_answer({"files": [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False}
                                          for f in files]})
        if method == "POST" and "/commit/" in route:
            return json_answer(self.commit(body))
        return json_answer({"error": f"fake Hub: no route {method} {route}"}, status=404)

    def commit(self, body: bytes) -> dict:
        for line in body.splitlines():
            item = json.loads(line)
            if item["key"] == "file":
                self.files[item["value"]["path"]] = base64.b64decode(item["value"]["content"])
            elif item["key"] == "deletedFile":
                del self.files[item["value"]["path"]]
        oid = f"{len(self.commits):040x}"
        self.commits.append(oid)
        return {"commitUrl": f"{self.url}/datasets/org/name/commit/{oid}", "commitOid": oid, "pullRequestUrl": None}


def json_answer(value, status: int = 200) -> Answer:
    return Answer(status, {"Content-Type": "application/json"}, json.dumps(value).encode())


def tree_entry(path: str, data: bytes) -> dict:
    oid = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    return {"type": "file", "path": path, "size": len(data), "oid": oid}


def handler_for(hub: FakeHub):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def handle_one(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            hub.requests.append(Request(self.command, self.path, self.headers.get("Authorization", "")))
            answer = hub.answer(self.command, self.path, body)
            if answer.stall:
                hub.release.wait(STALL_S)
                return
            self.send_response(answer.status)
            for name, value in {"Content-Length": str(len(answer.body)), **answer.headers}.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(answer.body)

        do_GET = do_POST = do_PUT = do_DELETE = handle_one

        def log_message(self, *args) -> None:   # quiet: the test reads `hub.requests`
            pass

    return Handler


@contextmanager
def serving():
    """A FakeHub answering on 127.0.0.1 (a free port) from a thread, for the duration of the block."""
    hub = FakeHub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler_for(hub))
    server.daemon_threads = True
    hub.url = f"http://127.0.0.1:{server.server_port}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield hub
    finally:
        hub.release.set()
        server.shutdown()
        server.server_close()
        thread.join()

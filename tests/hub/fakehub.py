"""A real local Hub for the upload tests (tests/hub/conftest.py's `hub_server`): an HTTP server on 127.0.0.1 in a
thread (stdlib `http.server`) that the real `HfApi` talks to. It answers the few endpoints an upload uses (whoami,
create repo, tree, preupload, validate-yaml, commit, and Git LFS's batch API with a PUT upload for files over
LFS_MIN bytes: the client then announces each such file's sha256 in the commit, which the fake checks against
the bytes it was sent), keeps the files committed, records every request, and misbehaves on request:
`hub.fail(method, path_part, Answer(...))` makes the matching requests stall, or answer a status, headers and body
of the test's choosing. Xet storage is not faked: the fixture turns huggingface_hub's Xet path off."""
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
LFS_MIN = 4096   # bigger files go through LFS (the real Hub's rule is 10 MB or binary: small tests need both kinds)
LFS_PUT = "/fake-lfs/"


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
        self.lfs: dict[str, bytes] = {}          # sha256 -> bytes PUT through LFS
        self.announced: dict[str, str] = {}      # path -> the sha256 its commit announced (LFS files)
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
            return json_answer([tree_entry(p, data, p in self.announced) for p, data in sorted(self.files.items())])
        if method == "POST" and route == "/api/validate-yaml":
            return json_answer({"errors": [], "warnings": []})
        if method == "POST" and "/preupload/" in route:
            files = json.loads(body)["files"]
            return json_answer({"files": [{"path": f["path"], "shouldIgnore": False,
                                           "uploadMode": "lfs" if f["size"] > LFS_MIN else "regular"}
                                          for f in files]})
        if method == "POST" and route.endswith(".git/info/lfs/objects/batch"):
            return json_answer({"objects": [
                {"oid": o["oid"], "size": o["size"],
                 **({} if o["oid"] in self.lfs else {"actions": {"upload": {"href": self.url + LFS_PUT + o["oid"]}}})}
                for o in json.loads(body)["objects"]]})
        if method == "PUT" and route.startswith(LFS_PUT):
            self.lfs[route.removeprefix(LFS_PUT)] = body
            return Answer()
        if method == "POST" and "/commit/" in route:
            return self.commit(body)
        return json_answer({"error": f"fake Hub: no route {method} {route}"}, status=404)

    def commit(self, body: bytes) -> Answer:
        """Apply a commit; an LFS file must have been PUT with the bytes whose sha256 its commit line announces."""
        for line in body.splitlines():
            item = json.loads(line)
            path = item["value"].get("path")
            if item["key"] == "file":
                self.files[path] = base64.b64decode(item["value"]["content"])
                self.announced.pop(path, None)
            elif item["key"] == "lfsFile":
                oid = item["value"]["oid"]
                data = self.lfs.get(oid)
                if data is None or hashlib.sha256(data).hexdigest() != oid or len(data) != item["value"]["size"]:
                    return json_answer({"error": f"fake Hub: {path}: no LFS object with sha256 {oid}"}, status=400)
                self.files[path], self.announced[path] = data, oid
            elif item["key"] == "deletedFile":
                del self.files[path]
                self.announced.pop(path, None)
        oid = f"{len(self.commits):040x}"
        self.commits.append(oid)
        return json_answer({"commitUrl": f"{self.url}/datasets/org/name/commit/{oid}", "commitOid": oid,
                            "pullRequestUrl": None})


def json_answer(value, status: int = 200) -> Answer:
    return Answer(status, {"Content-Type": "application/json"}, json.dumps(value).encode())


def tree_entry(path: str, data: bytes, lfs: bool) -> dict:
    """What the Hub's tree lists for a file: git blob id, and for an LFS file its sha256 (what a plan compares)."""
    oid = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
    return {"type": "file", "path": path, "size": len(data), "oid": oid,
            **({"lfs": {"oid": hashlib.sha256(data).hexdigest(), "size": len(data), "pointerSize": 134}}
               if lfs else {})}


def read_body(handler: BaseHTTPRequestHandler) -> bytes:
    """The request body, sent with a length or in chunks (httpx streams a file object in chunks)."""
    if handler.headers.get("Transfer-Encoding", "").lower() != "chunked":
        length = int(handler.headers.get("Content-Length") or 0)
        return handler.rfile.read(length) if length else b""
    body = bytearray()
    while size := int(handler.rfile.readline().split(b";")[0], 16):
        body += handler.rfile.read(size)
        handler.rfile.readline()
    handler.rfile.readline()
    return bytes(body)


def handler_for(hub: FakeHub):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def handle_one(self) -> None:
            body = read_body(self)
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
    # serve_forever checks for shutdown every poll_interval: its default 0.5 s made each test's teardown wait
    # ~0.5 s (15 s of the hub tests)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield hub
    finally:
        hub.release.set()
        server.shutdown()
        server.server_close()
        thread.join()

"""The stand-in's network side. One loopback port (bound as port 0, so a busy port never matters):
- `CONNECT api.kaggle.com:443` (the client's HTTPS_PROXY): answered 200, then TLS with the test CA's
  certificate, then Kaggle's RPCs `POST /v1/<Service>/<Method>` (quota, SaveKernel, session status, session
  output, the output files' list, ListKernels), the log stream and the output files;
- plain `GET|POST /_standin/<op>`: the tests' control API (clock, scripts, failures, holds, what it charged).
It never connects anywhere: a CONNECT to a host it does not stand in for is refused with 403.
"""

from __future__ import annotations

import base64
import json
import ssl
import threading
import time
import traceback
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

from kagglesdk.kernels.types.kernels_api_service import (
    ApiGetKernelSessionStatusRequest,
    ApiListKernelFilesRequest,
    ApiListKernelSessionOutputRequest,
    ApiSaveKernelRequest,
)

from . import certs, wire
from .world import BareBadRequest, NotFound, World, iso, kaggle_log_text

SERVICE = "kernels.KernelsApiService"
HOLD_LIMIT_S = 60.0  # a held request is answered (or dropped) after this much real time at most
FOLLOW_LIMIT_S = 30.0  # a --follow stream ends after this much real time at most


class Faults:
    """Failures the tests asked for: an HTTP status for the next N calls of a method, or a hold (the request
    is taken in, carried out unless accept is false, and its answer withheld until released: then dropped,
    or sent when the rule says answer)."""

    def __init__(self):
        self.fail: list[dict] = []
        self.hold: list[dict] = []
        self.held: list[dict] = []
        self.release = threading.Event()

    def take_failure(self, method: str) -> int | None:
        for rule in self.fail:
            if rule["method"] in (method, "*") and rule["times"] != 0:
                rule["times"] -= 1
                return int(rule["status"])
        return None

    def take_hold(self, method: str) -> dict | None:
        for rule in self.hold:
            if rule["method"] == method and rule["times"] != 0:
                rule["times"] -= 1
                return rule
        return None


class StandinServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False

    def __init__(self, world: World, cert_dir: str):
        super().__init__(("127.0.0.1", 0), ProxyHandler)
        self.world = world
        self.faults = Faults()
        self.requests_log: list[dict] = []
        self.api_version: str | None = None  # X-Kaggle-APIVersion: the client warns when it is newer
        self.ca_path, cert, key = certs.make(cert_dir)
        self.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.tls.load_cert_chain(cert, key)


class ProxyHandler(BaseHTTPRequestHandler):
    """The proxy port: CONNECT tunnels into KaggleHandler; plain requests are the control API."""

    protocol_version = "HTTP/1.1"
    server: StandinServer

    def log_message(self, *args):  # quiet: the tests read the requests log instead
        pass

    def do_CONNECT(self):
        host = self.path.split(":")[0]
        if host not in certs.HOSTS:
            self.send_response(403, "the Kaggle stand-in only stands in for " + ", ".join(certs.HOSTS))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200, "Connection established")
        self.end_headers()
        self.wfile.flush()
        try:
            tls = self.server.tls.wrap_socket(self.connection, server_side=True)
        except (ssl.SSLError, OSError):
            self.close_connection = True
            return
        KaggleHandler(tls, self.client_address, self.server, host)
        self.close_connection = True

    def do_GET(self):
        self.control()

    def do_POST(self):
        self.control()

    def control(self):
        from .control_api import handle  # the control API's operations

        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}") if length else {}
        status, answer = handle(self.server, self.command, urlparse(self.path).path, body)
        data = json.dumps(answer, indent=1).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class KaggleHandler(BaseHTTPRequestHandler):
    """Inside the TLS tunnel: api.kaggle.com's RPCs and log stream, and the output files' host."""

    protocol_version = "HTTP/1.1"
    server: StandinServer

    def __init__(self, request, client_address, server, host):
        self.host = host
        super().__init__(request, client_address, server)

    def log_message(self, *args):
        pass

    def send_body(self, status: int, data: bytes, content_type: str | None, extra: dict | None = None):
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        if self.server.api_version:
            self.send_header("X-Kaggle-APIVersion", self.server.api_version)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_json(self, answer: dict):
        self.send_body(200, json.dumps(answer).encode(), "application/json")

    def send_status(self, status: int):
        """Kaggle's bare error answers: a status line, no JSON `code` (so the client prints the
        `NNN Client/Server Error: ... for url: ...` line, as in realdata's status-500 capture)."""
        body = b"Internal Server Error" if status >= 500 else b""
        self.send_body(status, body, "text/plain" if body else None)

    def do_POST(self):
        parts = urlparse(self.path).path.strip("/").split("/")
        if len(parts) != 3 or parts[0] != "v1" or parts[1] != SERVICE:
            self.send_status(404)
            return
        method = parts[2]
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        entry = self.record_call(method, body)
        if self.headers.get("Authorization") is None:
            entry["status"] = 401
            self.send_body(401, b'{"code":401,"message":"Unauthenticated"}', "application/json")
            return
        failure = self.server.faults.take_failure(method)
        if failure:
            entry["status"] = failure
            self.send_status(failure)
            return
        hold = self.server.faults.take_hold(method)
        if hold and not hold.get("accept", True):
            self.hold_answer(entry, hold)
            return
        status, answer = self.answer(method, body)
        entry["status"] = status
        entry["answer"] = answer
        if hold:
            self.hold_answer(entry, hold)
            if not hold.get("answer"):
                return
        if answer is None:
            self.send_status(status)
        else:
            self.send_json(answer)

    def record_call(self, method: str, body: dict) -> dict:
        with self.server.world.lock:
            entry = {"method": method, "at": iso(self.server.world.now), "request": body}
            self.server.requests_log.append(entry)
        return entry

    def hold_answer(self, entry: dict, hold: dict):
        """No answer while the test holds it (the client, or kgadvise, may be killed meanwhile)."""
        entry["held"] = True
        with self.server.world.lock:
            self.server.faults.held.append(entry)
            self.server.world.lock.notify_all()
        self.server.faults.release.wait(HOLD_LIMIT_S)
        if not hold.get("answer"):
            self.close_connection = True  # dropped: whoever waited is gone

    def answer(self, method: str, body: dict):
        world = self.server.world
        with world.lock:
            try:
                if method == "GetAcceleratorQuotaStatistics":
                    return 200, wire.quota(world)
                if method == "SaveKernel":
                    return self.save_kernel(world, ApiSaveKernelRequest.from_dict(body))
                if method == "GetKernelSessionStatus":
                    req = ApiGetKernelSessionStatusRequest.from_dict(body)
                    version = world.latest(f"{req.user_name}/{req.kernel_slug}", req.version_label)
                    answer = wire.session_status(world, version)
                    world.advance(world.status_step_s)
                    return 200, answer
                if method == "ListKernels":
                    return 200, wire.list_kernels(world, body.get("user") or self.authenticated_user())
                if method == "ListKernelSessionOutput":
                    req = ApiListKernelSessionOutputRequest.from_dict(body)
                    version = world.latest(f"{req.user_name}/{req.kernel_slug}", req.version_label)
                    return 200, wire.session_output(world, version)
                if method == "ListKernelFiles":
                    req = ApiListKernelFilesRequest.from_dict(body)
                    version = world.latest(f"{req.user_name}/{req.kernel_slug}", req.version_label)
                    return 200, wire.kernel_files(world, version, req.page_size, req.page_token)
            except NotFound:
                return 404, None
            except BareBadRequest:
                return 400, None
            except Exception:  # a bug of the stand-in: a 500 at once, never a dropped connection the client retries
                traceback.print_exc()
                return 500, None
        return 404, None

    def authenticated_user(self) -> str:
        """The user of the Basic credentials (KAGGLE_USERNAME / kaggle.json); the key is not checked."""
        auth = self.headers.get("Authorization") or ""
        if auth.startswith("Basic "):
            return base64.b64decode(auth[6:]).decode(errors="replace").split(":")[0]
        return self.server.world.user

    @staticmethod
    def save_kernel(world: World, req: ApiSaveKernelRequest):
        slug = req.slug or ""
        if slug.count("/") != 1:
            return 400, None
        version, error = world.push(
            slug, req.text, req.machine_shape, req.enable_gpu, req.enable_tpu, req.session_timeout_seconds
        )
        return 200, wire.save_kernel(version, error)

    def do_GET(self):
        url = urlparse(self.path)
        parts = url.path.strip("/").split("/")
        if self.host == "www.kaggleusercontent.com" and len(parts) == 4 and parts[0] == "kf":
            self.output_file(parts)
        elif parts[:4] == ["v1", "kernels", "logs", "stream"] and len(parts) == 6:
            self.log_stream(f"{parts[4]}/{parts[5]}", parse_qs(url.query).get("versionLabel", [None])[0])
        else:
            self.send_status(404)

    def output_file(self, parts: list[str]):
        world = self.server.world
        entry = self.record_call("download", {"path": "/".join(parts)})
        failure = self.server.faults.take_failure("download")
        if failure:
            entry["status"] = failure
            self.send_status(failure)
            return
        with world.lock:
            found = [
                v for v in world.versions if str(v.kernel_id) == parts[1] and str(v.number) == parts[2]
            ]
            content = found[0].fate.files.get(parts[3]) if found else None
            modified = found[0].ended_at if found else 0
        if content is None:
            entry["status"] = 404
            self.send_status(404)
            return
        data = content.encode() if isinstance(content, str) else bytes(content)
        entry["status"] = 200
        self.send_body(200, data, "application/octet-stream", {"Last-Modified": formatdate(modified, usegmt=True)})

    def log_stream(self, kernel: str, label: str | None):
        """`kaggle kernels logs -f`: a finished session's log as one JSON array; a running one as server-sent
        events, new lines as the simulated clock moves (by `follow_step_s` per tick, or by the tests), then
        END_OF_LOG when it ends."""
        world = self.server.world
        entry = self.record_call("logs-stream", {"kernel": kernel, "versionLabel": label})
        failure = self.server.faults.take_failure("logs-stream")
        with world.lock:
            try:
                version = world.latest(kernel, label)
            except NotFound:
                failure = failure or 404
            running = not failure and version.status(world.now) in ("QUEUED", "RUNNING")
        entry["status"] = failure or 200
        if failure:
            self.send_status(failure)
            return
        if not running:
            with world.lock:
                events = version.log_events(world.now)
            self.send_body(200, json.dumps(events).encode(), "application/json")
            return
        self.stream_events(version)

    def stream_events(self, version):
        world = self.server.world
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        sent = 0
        deadline = time.monotonic() + FOLLOW_LIMIT_S
        while time.monotonic() < deadline:
            with world.lock:
                if world.follow_step_s:
                    world.advance(world.follow_step_s)
                else:
                    world.lock.wait(0.05)
                events = version.log_events(world.now)
                done = version.status(world.now) not in ("QUEUED", "RUNNING")
            for event in events[sent:]:
                self.wfile.write(b"data: " + json.dumps(event).encode() + b"\n\n")
            sent = len(events)
            self.wfile.flush()
            if done:
                self.wfile.write(b"data: END_OF_LOG\n\n")
                break
            time.sleep(0.01)
        self.close_connection = True


def serve(world: World, cert_dir: str) -> StandinServer:
    server = StandinServer(world, cert_dir)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


__all__ = ["serve", "StandinServer", "kaggle_log_text"]

"""Starts the stand-in as a process and drives it: the tests' side of the control API, and the environment
under which the unmodified Kaggle client reaches it (HTTPS_PROXY, REQUESTS_CA_BUNDLE, fake credentials in a
temporary home: nothing of the user's own configuration is read or written)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request

STARTUP_LIMIT_S = 30.0
CONTROL_TIMEOUT_S = 30.0
_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class StandinError(RuntimeError):
    pass


class Standin:
    def __init__(self, workdir: str, user: str = "standin-user", start: str | None = None):
        self.workdir = workdir
        self.user = user
        os.makedirs(workdir, exist_ok=True)
        self.ready_file = os.path.join(workdir, "ready.json")
        self.log_path = os.path.join(workdir, "standin.log")
        args = [sys.executable, "-m", "kaggle_standin", "--dir", workdir, "--ready-file", self.ready_file]
        args += ["--user", user] + (["--start", start] if start else [])
        env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(args, stdout=self._log, stderr=subprocess.STDOUT, env=env)
        ready = self._await_ready()
        self.port = ready["port"]
        self.ca_bundle = ready["ca_bundle"]

    def _await_ready(self) -> dict:
        """The ready file, or a clear failure: the process died (its output), or it took too long."""
        deadline = time.monotonic() + STARTUP_LIMIT_S
        while time.monotonic() < deadline:
            if os.path.exists(self.ready_file):
                with open(self.ready_file) as f:
                    return json.load(f)
            if self.proc.poll() is not None:
                raise StandinError(f"the Kaggle stand-in exited ({self.proc.returncode}) before it answered:\n"
                                   + self.output())
            time.sleep(0.05)
        self.stop()
        raise StandinError(f"the Kaggle stand-in did not start within {STARTUP_LIMIT_S:.0f} s:\n" + self.output())

    def output(self) -> str:
        self._log.flush()
        with open(self.log_path, errors="replace") as f:
            return f.read()[-4000:]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._log.close()

    # --- the client's environment ---------------------------------------------------------------------
    def client_env(self, base: dict | None = None, credentials: str = "env", home: str | None = None) -> dict:
        """The environment the kaggle client (and kgadvise, which runs it) gets: every KAGGLE_* and proxy
        variable of the caller dropped, a temporary HOME, and fake credentials by env (KAGGLE_USERNAME,
        KAGGLE_KEY) or in a kaggle.json in KAGGLE_CONFIG_DIR (credentials="file")."""
        env = {k: v for k, v in (base or os.environ).items()
               if not k.upper().startswith(("KAGGLE_", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY"))
               and k not in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_FILE")}
        home = home or os.path.join(self.workdir, "home")
        config = os.path.join(home, ".kaggle")
        os.makedirs(config, exist_ok=True)
        proxy = f"http://127.0.0.1:{self.port}"
        env.update(HOME=home, HTTPS_PROXY=proxy, https_proxy=proxy, NO_PROXY="", no_proxy="",
                   REQUESTS_CA_BUNDLE=self.ca_bundle, KAGGLE_CONFIG_DIR=config, PYTHONDONTWRITEBYTECODE="1")
        if credentials == "env":
            env.update(KAGGLE_USERNAME=self.user, KAGGLE_KEY="0123456789abcdef0123456789abcdef")
        elif credentials == "file":
            path = os.path.join(config, "kaggle.json")
            with open(path, "w") as f:
                json.dump({"username": self.user, "key": "0123456789abcdef0123456789abcdef"}, f)
            os.chmod(path, 0o600)
        return env

    # --- the control API ------------------------------------------------------------------------------
    def call(self, op: str, body: dict | None = None) -> dict:
        url = f"http://127.0.0.1:{self.port}/_standin/{op}"
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(url, data=data, method="GET" if body is None else "POST",
                                     headers={"Content-Type": "application/json"})
        try:
            with _NO_PROXY.open(req, timeout=CONTROL_TIMEOUT_S) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as e:
            raise StandinError(f"control {op} {body}: {e.code} {e.read().decode(errors='replace')}") from None

    def reset(self, start: str | None = None) -> dict:
        """A fresh world in the running process (the tests' isolation without a new process each)."""
        return self.call("reset", {"user": self.user, **({"start": start} if start else {})})

    def state(self) -> dict:
        return self.call("state")

    def requests(self, method: str | None = None) -> list[dict]:
        calls = self.call("requests")["requests"]
        return [c for c in calls if method is None or c["method"] == method]

    def set_clock(self, when: str) -> dict:
        return self.call("clock", {"set": when})

    def advance(self, seconds: float) -> dict:
        return self.call("clock", {"advance": seconds})

    def status_step(self, seconds: float) -> dict:
        return self.call("clock", {"status_step": seconds})

    def script(self, kernel: str, **fate) -> dict:
        return self.call("script", {"kernel": kernel, **fate})

    def cancel(self, kernel: str) -> dict:
        return self.call("cancel", {"kernel": kernel})

    def quota(self, **fields) -> dict:
        return self.call("quota", fields)

    def fail(self, method: str, status: int = 500, times: int = 1) -> dict:
        return self.call("fail", {"method": method, "status": status, "times": times})

    def hold(self, method: str, accept: bool = True, times: int = 1, answer: bool = False) -> dict:
        return self.call("hold", {"method": method, "accept": accept, "times": times, "answer": answer})

    def wait_held(self, count: int = 1, timeout_s: float = 20) -> dict:
        return self.call("wait_held", {"count": count, "timeout_s": timeout_s})

    def release(self) -> dict:
        return self.call("release", {})

    def charged_h(self, kernel: str | None = None) -> float:
        """GPU+TPU hours charged so far, for one kernel or in all."""
        charged = self.state()["charged_h"]
        return charged.get(kernel, 0.0) if kernel else sum(charged.values())

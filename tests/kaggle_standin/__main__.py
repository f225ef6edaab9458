"""Runs the Kaggle stand-in as a process: `python -m kaggle_standin --dir D --ready-file F` (with tests/ on
PYTHONPATH). It binds a free loopback port, makes its test CA in D and, once it answers, writes
{"port", "ca_bundle", "pid"} to F (atomically). It stops on SIGTERM, or when the process that started it is
gone (so a killed test run leaves nothing behind)."""

import argparse
import json
import os
import signal
import sys
import threading

from .server import serve
from .world import DEFAULT_START, World


def main() -> int:
    p = argparse.ArgumentParser(prog="kaggle_standin")
    p.add_argument("--dir", required=True, help="folder for the test CA and the server certificate")
    p.add_argument("--ready-file", required=True)
    p.add_argument("--user", default="standin-user")
    p.add_argument("--start", default=DEFAULT_START, help="the simulated clock's start (ISO-8601)")
    args = p.parse_args()
    parent = os.getppid()
    server = serve(World(args.user, args.start), args.dir)
    tmp = args.ready_file + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"port": server.server_address[1], "ca_bundle": server.ca_path, "pid": os.getpid()}, f)
    os.replace(tmp, args.ready_file)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    while not stop.wait(0.5):
        if os.getppid() != parent:
            break
    server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())

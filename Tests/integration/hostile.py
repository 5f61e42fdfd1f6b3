#!/usr/bin/env python3
"""Attacks and operator mishaps for the integration suite, each against a running server.

  hostile.py shutdown --base-url URL --data-dir DIR --pid PID --token TOKEN
      Holds both SQLite stores locked, sends admin writes and event posts that queue behind the
      lock (their connections are suspended), sends SIGTERM, and checks that every request gets
      an HTTP answer. The caller checks that the server exits 0 (libmicrohttpd aborts it with
      exit 134 when it is stopped with a connection still suspended).

  hostile.py slow-clients --host 127.0.0.1 --port PORT [--connections 1100] [--addresses 5]
      Opens slow connections from several loopback addresses (each sends one header byte every
      3 s and reconnects when closed, like slowloris), then asks for a template 20 times as a
      normal client and counts the answers that came within 1 s.

Each prints one result line and exits 0 when the check holds, 1 otherwise.
"""

import argparse
import json
import os
import random
import selectors
import signal
import socket
import sqlite3
import sys
import threading
import time
import urllib.error
import urllib.request


def shutdown(args):
    """Requests suspended behind locked stores when SIGTERM arrives all get an answer; exit 0."""
    auth = {"Authorization": f"Bearer {args.token}"}
    request = urllib.request.Request(f"{args.base_url}/v1/admin/templates/connectionRefused", headers=auth)
    with urllib.request.urlopen(request, timeout=10) as response:
        document = json.load(response)["template"]

    # Both stores locked by another writer: every write waits for SQLite's busy timeout.
    locks = []
    for name in ("store.sqlite", "events.sqlite"):
        connection = sqlite3.connect(os.path.join(args.data_dir, name), timeout=10, isolation_level=None)
        connection.execute("BEGIN EXCLUSIVE")
        locks.append(connection)

    outcomes = []
    outcomes_lock = threading.Lock()

    def send(method, path, body, headers):
        data = json.dumps(body).encode()
        request = urllib.request.Request(
            f"{args.base_url}{path}",
            data=data,
            method=method,
            headers={"Content-Type": "application/json", **headers},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                outcome = response.status
        except urllib.error.HTTPError as error:
            outcome = error.code
        except Exception as error:  # no answer: the check fails
            outcome = f"no answer ({type(error).__name__}: {error})"
        with outcomes_lock:
            outcomes.append((method, path, outcome))

    threads = []
    run = random.getrandbits(32)
    for i in range(args.writes):
        copy = dict(document)
        copy["id"] = f"shutdownProbe{run:08x}x{i}"
        threads.append(
            threading.Thread(
                target=send,
                args=("PUT", f"/v1/admin/templates/{copy['id']}", copy, {**auth, "If-None-Match": "*"}),
            )
        )
    occurred = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    for i in range(args.posts):
        event = {
            "id": f"{run:08x}-0000-4000-8000-{i:012x}",
            "type": "displayed",
            "templateId": "connectionRefused",
            "revision": 1,
            "locale": "en",
            "platform": "ios",
            "appVersion": "1.0.0",
            "occurredAt": occurred,
        }
        threads.append(threading.Thread(target=send, args=("POST", "/v1/events", {"events": [event]}, {})))
    for thread in threads:
        thread.start()
    # Every request is in and waits for a worker or for the lock: the server holds all their
    # connections (on a loaded machine 60 client threads take more than a moment to connect;
    # a connection still in the listen backlog at SIGTERM was never accepted).
    deadline = time.time() + 20
    while time.time() < deadline:
        with urllib.request.urlopen(f"{args.base_url}/metrics", timeout=10) as response:
            metrics = response.read().decode()
        open_connections = next(
            (float(line.split()[-1]) for line in metrics.splitlines() if line.startswith("http_open_connections")),
            0.0,
        )
        if open_connections >= len(threads) + 1:  # and the /metrics request's own
            break
        time.sleep(0.1)
    time.sleep(0.5)  # their requests read, and handed to workers

    os.kill(args.pid, signal.SIGTERM)
    for thread in threads:
        thread.join(timeout=60)
    for connection in locks:
        connection.execute("ROLLBACK")
        connection.close()

    unanswered = [o for o in outcomes if not isinstance(o[2], int)]
    counts = {}
    for _, _, outcome in outcomes:
        counts[outcome] = counts.get(outcome, 0) + 1
    summary = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items(), key=str))
    print(f"{len(outcomes)} requests answered or not during shutdown ({summary})")
    for method, path, outcome in unanswered[:5]:
        print(f"  {method} {path}: {outcome}")
    ok = len(outcomes) == len(threads) and not unanswered
    return 0 if ok else 1


def slow_clients(args):
    """With slow clients holding more connections than the server allows, a normal client is
    still answered within 1 s at least 19 times out of 20."""
    selector = selectors.DefaultSelector()
    addresses = [f"127.0.0.{2 + i}" for i in range(args.addresses)]
    request_head = b"GET /v1/templates/connectionRefused HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 4096
    state = {}  # socket -> [bytes sent, next send time]
    reconnects = 0

    def open_slow(address):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        sock.bind((address, 0))
        try:
            sock.connect((args.host, args.port))
        except BlockingIOError:
            pass
        state[sock] = [0, time.monotonic() + random.uniform(0, args.interval), address]
        selector.register(sock, selectors.EVENT_READ)

    def close_slow(sock):
        selector.unregister(sock)
        del state[sock]
        sock.close()

    for n in range(args.connections):
        open_slow(addresses[n % len(addresses)])

    stop = time.monotonic() + args.warmup + 20 * args.pause + 5
    results = []

    def normal_client():
        time.sleep(args.warmup)
        for _ in range(20):
            started = time.monotonic()
            try:
                with socket.create_connection((args.host, args.port), timeout=1.0) as sock:
                    sock.settimeout(max(0.01, 1.0 - (time.monotonic() - started)))
                    sock.sendall(b"GET /v1/templates/connectionRefused HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    answer = sock.recv(64)
                elapsed = time.monotonic() - started
                results.append(answer.startswith(b"HTTP/1.1 200") and elapsed <= 1.0)
            except OSError:
                results.append(False)
            time.sleep(args.pause)

    client = threading.Thread(target=normal_client)
    client.start()
    while time.monotonic() < stop:
        now = time.monotonic()
        for key, _ in selector.select(timeout=0.05):
            sock = key.fileobj
            try:
                data = sock.recv(4096)
            except OSError:
                data = b""
            if not data:  # closed by the server: come back, as an attacker would
                address = state[sock][2]
                close_slow(sock)
                reconnects += 1
                open_slow(address)
        for sock, entry in list(state.items()):
            if entry[1] <= now:
                try:
                    sock.send(request_head[entry[0] : entry[0] + 1])
                    entry[0] = (entry[0] + 1) % len(request_head)
                except (BlockingIOError, OSError):
                    pass
                entry[1] = now + args.interval
    client.join()
    for sock in list(state):
        close_slow(sock)
    answered = sum(results)
    print(
        f"normal client answered within 1 s {answered} of {len(results)} times "
        f"({args.connections} slow connections from {len(addresses)} addresses, {reconnects} closed by the server)"
    )
    return 0 if answered >= 19 else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    stop = commands.add_parser("shutdown")
    stop.add_argument("--base-url", required=True)
    stop.add_argument("--data-dir", required=True)
    stop.add_argument("--pid", type=int, required=True)
    stop.add_argument("--token", required=True)
    stop.add_argument("--writes", type=int, default=20)
    stop.add_argument("--posts", type=int, default=40)
    slow = commands.add_parser("slow-clients")
    slow.add_argument("--host", default="127.0.0.1")
    slow.add_argument("--port", type=int, required=True)
    slow.add_argument("--connections", type=int, default=1100)
    slow.add_argument("--addresses", type=int, default=5)
    slow.add_argument("--interval", type=float, default=3.0, help="seconds between a slow client's bytes")
    slow.add_argument("--warmup", type=float, default=3.0, help="seconds of attack before the normal client")
    slow.add_argument("--pause", type=float, default=0.3, help="seconds between the normal client's requests")
    args = parser.parse_args()
    if args.command == "shutdown":
        return shutdown(args)
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * args.connections)), hard))
    return slow_clients(args)


if __name__ == "__main__":
    sys.exit(main())

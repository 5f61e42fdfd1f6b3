#!/usr/bin/env python3
"""Webhook delivery latency: the webhooks' part of `make bench`.

Against a release build of empty-state-server started here (fresh data dir, SQLite, and again on a
throwaway PostgreSQL through scripts/postgres.sh when it can start one), with
`--webhook-allow-loopback` and a local receiver (a threaded Python HTTP server answering 204):
  1. publish → delivered: an editor publishes app-policy changes one after the other (PUT, then
     waits for the delivery before the next); for each, the time from sending the PUT to the
     signed delivery reaching the receiver, and the PUT's own latency (the write acknowledged,
     i.e. committed). Their difference bounds commit → delivery from above;
  2. the baseline, measured in the same run: the same Python client POSTing the same body straight
     to the same receiver (one loopback HTTP exchange, what a delivery costs at the least).
Prints a markdown table and appends it to Benchmarks/results/latest.md.

Usage: webhooks.py SERVER_BINARY REPO_ROOT   (env: BENCH_WEBHOOK_SAMPLES=300)
"""
import http.client
import http.server
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import benchlib
from benchlib import percentile

BIN, ROOT = sys.argv[1], sys.argv[2]
SAMPLES = int(os.environ.get("BENCH_WEBHOOK_SAMPLES", "300"))
TOKEN = "bench-editor-secret-0123456789"


def log(message):
    print(f"[webhooks] {message}", file=sys.stderr, flush=True)


class Receiver:
    """Answers 204 to every POST and notes when each message (by its body's revision) arrived."""

    def __init__(self):
        self.arrivals = {}
        self.arrived = threading.Condition()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                at = time.perf_counter()
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()
                key = json.loads(body).get("data", {}).get("revision")
                with receiver.arrived:
                    receiver.arrivals[key] = at
                    receiver.arrived.notify_all()

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait(self, key, seconds=10):
        deadline = time.perf_counter() + seconds
        with self.arrived:
            while key not in self.arrivals:
                remaining = deadline - time.perf_counter()
                if remaining <= 0:
                    return None
                self.arrived.wait(remaining)
            return self.arrivals[key]


def start_server(data_dir, database_url=None):
    log_path = os.path.join(data_dir, "server.log")
    environment = dict(os.environ)
    if database_url:
        environment["EMPTY_STATE_DATABASE_URL"] = database_url
    process = subprocess.Popen(
        [BIN, "--host", "127.0.0.1", "--port", "0", "--data-dir", data_dir, "--log-level", "notice",
         "--config-dir", os.path.join(ROOT, "config"), "--openapi-path", os.path.join(ROOT, "openapi.yaml"),
         "--admin-token", f"bench:editor:{TOKEN}", "--webhook-allow-loopback"],
        stderr=open(log_path, "w"), env=environment)
    for _ in range(300):
        with open(log_path) as f:
            found = re.search(r"http\.port=(\d+)", f.read())
        if found:
            return process, int(found.group(1))
        if process.poll() is not None:
            break
        time.sleep(0.1)
    sys.exit(f"the server did not start; see {log_path}")


def request(connection, method, path, body=None, headers=None):
    all_headers = {"Authorization": f"Bearer {TOKEN}", **(headers or {})}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        all_headers["Content-Type"] = "application/json"
    connection.request(method, path, body=data, headers=all_headers)
    response = connection.getresponse()
    payload = response.read()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, payload


def measure(port, receiver):
    """(publish → delivered, publish latency) in seconds, one pair per sample."""
    admin = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    status, _, _ = request(admin, "POST", "/v1/admin/webhooks",
                           {"url": f"http://127.0.0.1:{receiver.port}/hook", "events": ["appPolicy.published"]})
    if status != 201:
        sys.exit(f"creating the webhook answered {status}")
    policy = {"minimumVersion": "1.0", "latestVersion": "9.0", "storeUrl": "https://apps.apple.com/app/id1"}
    etag = None
    delivered, published = [], []
    for sample in range(SAMPLES + 10):
        policy["minimumVersion"] = f"1.{sample}"
        headers = {"If-Match": etag} if etag else {"If-None-Match": "*"}
        sent = time.perf_counter()
        status, response_headers, body = request(admin, "PUT", "/v1/admin/app-policies/ios", policy, headers)
        acknowledged = time.perf_counter()
        if status not in (200, 201):
            sys.exit(f"the publish answered {status}: {body[:200]!r}")
        etag = response_headers["etag"]
        revision = json.loads(body)["revision"]
        arrived = receiver.wait(revision)
        if arrived is None:
            sys.exit(f"revision {revision} was not delivered within 10 s")
        if sample >= 10:  # the first ten warm up the connections and the caches
            delivered.append(arrived - sent)
            published.append(acknowledged - sent)
    admin.close()
    return delivered, published


def baseline(receiver):
    """The same client POSTing a delivery-sized body straight to the receiver, a new connection each
    time (as every delivery opens one)."""
    times = []
    body = json.dumps({"type": "appPolicy.published", "timestamp": "2026-11-28T12:00:00Z",
                       "data": {"platform": "ios", "revision": -1, "action": "replace", "actor": "bench"}}).encode()
    for sample in range(SAMPLES + 10):
        sent = time.perf_counter()
        connection = http.client.HTTPConnection("127.0.0.1", receiver.port, timeout=10)
        connection.request("POST", "/hook", body=body, headers={"Content-Type": "application/json", "Connection": "close"})
        connection.getresponse().read()
        connection.close()
        if sample >= 10:
            times.append(time.perf_counter() - sent)
    return times


def run(label, database_url=None):
    data_dir = tempfile.mkdtemp(prefix="webhooks-bench-")
    receiver = Receiver()
    process, port = start_server(data_dir, database_url)
    try:
        delivered, published = measure(port, receiver)
        floor = baseline(receiver)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
        receiver.server.shutdown()
        shutil.rmtree(data_dir, ignore_errors=True)
    log(f"{label}: publish → delivered p50 {statistics.median(delivered) * 1000:.2f} ms")
    return delivered, published, floor


def postgres_url(state):
    """A throwaway PostgreSQL's URL, or None when scripts/postgres.sh cannot start one."""
    result = subprocess.run(["bash", os.path.join(ROOT, "scripts/postgres.sh"), "start", state],
                            capture_output=True, text=True)
    if result.returncode != 0:
        log(f"no PostgreSQL ({result.stderr.strip()[:200]}): measuring SQLite only")
        return None
    return result.stdout.strip().splitlines()[-1]


def main():
    rows = [("SQLite", run("SQLite"))]
    state = tempfile.mkdtemp(prefix="webhooks-bench-pg-")
    url = postgres_url(state)
    if url:
        try:
            rows.append(("PostgreSQL", run("PostgreSQL", url)))
        finally:
            subprocess.run(["bash", os.path.join(ROOT, "scripts/postgres.sh"), "stop", state], capture_output=True)
    ms = lambda seconds: f"{seconds * 1000:.2f} ms"
    pair = lambda values: f"{ms(statistics.median(values))} / {ms(percentile(values, 0.99))}"
    lines = [
        "## Webhook delivery latency",
        "",
        "| store | publish → delivered, p50 / p99 | publish acknowledged (committed), p50 / p99 | baseline: one POST to the receiver, p50 / p99 |",
        "| --- | ---: | ---: | ---: |",
    ]
    for label, (delivered, published, floor) in rows:
        lines.append(f"| {label} | {pair(delivered)} | {pair(published)} | {pair(floor)} |")
    lines += [
        "",
        f"{SAMPLES} app-policy publishes one after the other (PUT with If-Match, then wait for its delivery), "
        "each delivered to a local receiver (Python, 204) subscribed to appPolicy.published; the baseline is the "
        "same client POSTing a delivery's body straight to that receiver, a new connection each time, in the same "
        "run. publish → delivered includes the write: commit → delivered is at most its difference with the "
        "acknowledgement (the delivery can arrive before the PUT's answer is read).",
    ]
    benchlib.report(ROOT, lines)


if __name__ == "__main__":
    main()

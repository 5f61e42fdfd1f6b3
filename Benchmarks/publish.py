#!/usr/bin/env python3
"""Publishing while serving: the admin half of `make bench`.

Measures, against a release build of empty-state-server started here with a fresh data dir:
  1. client read throughput (wrk on one template) with no writes, and while editors publish
     50 changes a second through the admin API, alternating rounds; goal ≥ 0.8× the no-write rate;
  2. the time from an acknowledged write (the PUT's 200) to the change being served to a client
     (polling GET until the new title appears); goal ≤ 10 ms; and the write's own latency.
Prints a markdown table and appends it to Benchmarks/results/latest.md.

Usage: publish.py SERVER_BINARY REPO_ROOT   (env: BENCH_DURATION=5s BENCH_ROUNDS=3)
"""
import http.client
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
DURATION = os.environ.get("BENCH_DURATION", "5s")
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
TOKEN = "bench-editor-secret-0123456789"
TEMPLATE = "connectionRefused"
WRITES_PER_SECOND = 50


def log(message):
    print(f"[publish] {message}", file=sys.stderr, flush=True)


def start_server(data_dir):
    log_path = os.path.join(data_dir, "server.log")
    log_file = open(log_path, "w")
    process = subprocess.Popen(
        [BIN, "--host", "127.0.0.1", "--port", "0", "--data-dir", data_dir,
         "--config-dir", os.path.join(ROOT, "config"), "--openapi-path", os.path.join(ROOT, "openapi.yaml"),
         "--admin-token", f"bench:editor:{TOKEN}"],
        stderr=log_file)
    for _ in range(100):
        with open(log_path) as f:
            found = re.search(r"http\.port=(\d+)", f.read())
        if found:
            return process, int(found.group(1))
        if process.poll() is not None:
            break
        time.sleep(0.1)
    sys.exit(f"the server did not start; see {log_path}")


class Editor:
    """One keep-alive admin connection that rewrites the French title of one template."""

    def __init__(self, port, template=TEMPLATE):
        self.template = template
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        self.revision = self.current_revision()
        self.strings = self.get_json(f"/v1/admin/templates/{template}")["template"]["strings"]["fr"]
        self.counter = 0

    def get_json(self, path):
        self.connection.request("GET", path, headers={"Authorization": f"Bearer {TOKEN}"})
        response = self.connection.getresponse()
        return json.loads(response.read())

    def current_revision(self):
        return self.get_json(f"/v1/admin/templates/{self.template}")["revision"]

    def publish(self):
        """Sets a new French title; returns (title, seconds the PUT took)."""
        self.counter += 1
        title = f"Hors ligne #{self.counter}"
        body = json.dumps(dict(self.strings, title=title))
        started = time.perf_counter()
        self.connection.request(
            "PUT", f"/v1/admin/templates/{self.template}/strings/fr", body=body,
            headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json",
                     "If-Match": f'"r{self.revision}"'})
        response = self.connection.getresponse()
        payload = response.read()
        elapsed = time.perf_counter() - started
        if response.status != 200:
            raise RuntimeError(f"publish answered {response.status}: {payload[:300]!r}")
        self.revision = json.loads(payload)["revision"]
        return title, elapsed


def wrk(port):
    return benchlib.wrk(f"http://127.0.0.1:{port}/v1/templates/{TEMPLATE}?locale=de&platform=ios", DURATION)[0]


def reads_while_publishing(port, editors):
    """wrk on one template while the editors together publish WRITES_PER_SECOND changes a second
    (each on its own template and connection, so a slow write does not lower the offered rate)."""
    stop = threading.Event()
    published = []
    errors = []

    def writer(editor):
        interval = len(editors) / WRITES_PER_SECOND
        next_at = time.perf_counter()
        while not stop.is_set():
            try:
                published.append(editor.publish()[1])
            except Exception as error:  # reported below; the round is then invalid
                errors.append(str(error))
                return
            next_at += interval
            time.sleep(max(0, next_at - time.perf_counter()))

    threads = [threading.Thread(target=writer, args=(editor,)) for editor in editors]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    rate = wrk(port)
    stop.set()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    if errors:
        sys.exit(f"writer failed: {errors[0]}")
    return rate, len(published) / elapsed


def time_to_served(port, editor, samples=100):
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    to_served, write_latency = [], []
    for _ in range(samples):
        title, took = editor.publish()
        acknowledged = time.perf_counter()
        while True:
            client.request("GET", f"/v1/templates/{TEMPLATE}?locale=fr")
            body = json.loads(client.getresponse().read())
            if body["title"] == title:
                to_served.append(time.perf_counter() - acknowledged)
                break
            if time.perf_counter() - acknowledged > 5:
                sys.exit("a published change was not served within 5 s")
        write_latency.append(took)
    return to_served, write_latency


def main():
    data_dir = tempfile.mkdtemp(prefix="publish-bench-")
    process, port = start_server(data_dir)
    try:
        editors = [Editor(port, "somethingWentWrong"), Editor(port, "pageNotAvailable")]
        quiet, busy, write_rates = [], [], []
        wrk(port) if DURATION != "0s" else None  # warm-up
        for round_number in range(1, ROUNDS + 1):
            quiet.append(wrk(port))
            rate, writes = reads_while_publishing(port, editors)
            busy.append(rate)
            write_rates.append(writes)
            log(f"round {round_number}: reads {quiet[-1]:.0f} req/s quiet, {rate:.0f} req/s with {writes:.1f} writes/s")
        # A fresh connection: one left idle during the rounds would have hit the server's idle timeout.
        served, writes = time_to_served(port, Editor(port))
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=20)
        shutil.rmtree(data_dir, ignore_errors=True)

    quiet_median, busy_median = statistics.median(quiet), statistics.median(busy)
    ratio = busy_median / quiet_median
    ms = lambda seconds: f"{seconds * 1000:.2f} ms"
    p99_served = percentile(served, 0.99)
    lines = [
        "## Publishing while serving",
        "",
        "| measure | value | goal | met? |",
        "| --- | ---: | --- | --- |",
        f"| client reads, no writes (median req/s) | {quiet_median:.0f} | | |",
        f"| client reads while publishing {statistics.median(write_rates):.1f} changes/s (median req/s) | {busy_median:.0f} | ≥ 0.8× | {'yes' if ratio >= 0.8 else 'no'} ({ratio:.2f}×) |",
        f"| acknowledged write → served, p50 / p99 / max | {ms(statistics.median(served))} / {ms(p99_served)} / {ms(max(served))} | ≤ 10 ms | {'yes' if p99_served <= 0.010 else 'no'} |",
        f"| write latency (PUT strings, fsync + re-render), p50 / p99 | {ms(statistics.median(writes))} / {ms(percentile(writes, 0.99))} | | |",
        "",
        f"Reads: `wrk -t2 -c64 -d{DURATION}` on one template, {ROUNDS} rounds alternating quiet/publishing; "
        f"writes: two editors (one connection and template each) PUT …/strings/fr paced at {WRITES_PER_SECOND}/s in all; "
        f"write → served: {len(served)} writes, each followed by client GETs until the new title is served.",
    ]
    benchlib.report(ROOT, lines)


if __name__ == "__main__":
    main()

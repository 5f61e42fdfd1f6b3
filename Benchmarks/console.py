#!/usr/bin/env python3
"""The admin console's catalogue search at 10,000 templates, measured in the browser: the row of
`make bench` for issue 22's target (a search answers in ≤ 200 ms).

Against a release build started here on Benchmarks/catalogue.py's catalogue (the built-ins
copied under new ids), headless Chromium (Debian's, through Playwright, as Tests/browser does)
signs in and runs the same searches over and over: each timed in the page with performance.now()
from submitting the search to its results drawn. Beside it, measured in the same run, the
baseline: the same searches as plain HTTP requests to GET /v1/admin/catalogue (what the server
and the loopback cost), so the difference is what the browser and the console add.

Prints a markdown table and appends it to Benchmarks/results/latest.md.

Usage: console.py SERVER_BINARY REPO_ROOT   (env: CONSOLE_TEMPLATES=10000, CONSOLE_ROUNDS=5)
"""
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse

import benchlib
from benchlib import percentile

BIN, ROOT = sys.argv[1], sys.argv[2]
COUNT = int(os.environ.get("CONSOLE_TEMPLATES", "10000"))
ROUNDS = int(os.environ.get("CONSOLE_ROUNDS", "5"))
sys.path.insert(0, os.path.join(ROOT, "Tests", "browser"))
from console_scale import SEARCHES, measure_search  # noqa: E402  (the browser checks' own measurement)
from harness import ADMIN_TOKEN, Server, chromium_path  # noqa: E402


def log(message):
    print(f"[console] {message}", file=sys.stderr, flush=True)


def http_searches(port):
    """Milliseconds of each search as one HTTP request (keep-alive), no browser."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    figures = []
    for query in SEARCHES:
        path = "/v1/admin/catalogue?" + urllib.parse.urlencode({"q": query, "pageSize": 50})
        started = time.perf_counter()
        connection.request("GET", path, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
        response = connection.getresponse()
        json.loads(response.read())
        figures.append((time.perf_counter() - started) * 1000)
        if response.status != 200:
            sys.exit(f"GET {path} answered {response.status}")
    connection.close()
    return figures


def main():
    from playwright.sync_api import sync_playwright

    directory = tempfile.mkdtemp(prefix="bench-console-")
    try:
        subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks", "catalogue.py"), str(COUNT), directory, ROOT],
                       check=True, capture_output=True)
        started = time.time()
        server = Server(BIN, ["--config-dir", directory], start_timeout=300)
        log(f"{COUNT} templates, server started in {time.time() - started:.1f} s")
        try:
            http_searches(server.port)  # the first request builds the catalogue's search index: not measured
            browser_ms, http_ms = [], []
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
                for round_ in range(ROUNDS):
                    http_ms += http_searches(server.port)
                    browser_ms += measure_search(browser, server)
                    log(f"round {round_ + 1}/{ROUNDS}: browser median {statistics.median(browser_ms):.0f} ms")
                browser.close()
        finally:
            server.stop()
    finally:
        shutil.rmtree(directory, ignore_errors=True)

    def row(name, values):
        return (f"| {name} | {len(values)} | {statistics.median(values):.1f} | {percentile(values, 0.95):.1f} | "
                f"{max(values):.1f} |")

    median = statistics.median(browser_ms)
    lines = [
        f"### Admin console: catalogue search at {COUNT:,} templates (release build)",
        "",
        "| measured | searches | median ms | p95 ms | max ms |",
        "| --- | --- | --- | --- | --- |",
        row("in the browser: submit → results drawn (performance.now())", browser_ms),
        row("baseline: GET /v1/admin/catalogue over HTTP, no browser", http_ms),
        "",
        f"Target ≤ 200 ms in the browser: {'met' if median <= 200 else 'NOT met'} (median {median:.0f} ms). "
        f"Searches: {', '.join(SEARCHES)}; {ROUNDS} rounds.",
    ]
    benchlib.report(ROOT, lines)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""What a token made through the admin API costs an admin request, beside a configured token
measured in the same run (issue 37; docs/security.md, "Through the admin API").

Usage: Benchmarks/admin_tokens.py path/to/empty-state-server [repository root]

Two servers (SQLite) with a configured admin token; the second also has N tokens made through
the API (BENCH_TOKENS, default 50: each request is checked against all of them). wrk sends
`GET /v1/admin/session` (who am I: authentication and nothing else, no store read) with the
configured token to the first (the baseline), and to the second with the configured token and
with one of the store's, in alternating rounds (BENCH_ROUNDS, default 6, of BENCH_DURATION, default
2s), 8 connections. The store's token costs a SHA-256 of the offered secret, a constant-time
comparison with each stored hash, and at most one last-use write a minute, queued off the
request's thread: no request reads the database. Prints a markdown table and appends it to
Benchmarks/results/latest.md.
"""

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

from benchlib import report

CONFIGURED = "bench-admin-token-0123456789abcdef"


def wrk(url, token, duration, connections=8):
    command = ["wrk", "-t2", f"-c{connections}", f"-d{duration}", "--latency", "-H", f"Authorization: Bearer {token}", url]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    p50 = re.search(r"50%\s+([\d.]+)(us|ms|s)", output)
    scale = {"us": 1, "ms": 1000, "s": 1_000_000}[p50.group(2)]
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if bad:
        sys.exit(f"wrk got {bad.group(1)} answers that are not 2xx with {token[:8]}…")
    return rate, float(p50.group(1)) * scale


def start(binary, root, data):
    """A server on a free port with the configured admin token; (process, base URL)."""
    log = open(os.path.join(data, "server.log"), "wb")
    server = subprocess.Popen(
        [binary, "--host", "127.0.0.1", "--port", "0", "--data-dir", os.path.join(data, "data"),
         "--config-dir", os.path.join(root, "config"), "--openapi-path", os.path.join(root, "openapi.yaml"),
         "--admin-token", f"bench:admin:{CONFIGURED}", "--log-level", "notice"],
        stdout=log, stderr=subprocess.STDOUT)
    for _ in range(600):
        match = re.search(r"http\.port=(\d+)", open(log.name, errors="replace").read())
        if match:
            return server, f"http://127.0.0.1:{match.group(1)}"
        time.sleep(0.05)
    server.kill()
    sys.exit("the server did not start: " + open(log.name, errors="replace").read())


def main():
    binary = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) > 2 else os.getcwd()
    count = int(os.environ.get("BENCH_TOKENS", "50"))
    rounds = int(os.environ.get("BENCH_ROUNDS", "6"))
    duration = os.environ.get("BENCH_DURATION", "2s")
    servers = []
    try:
        plain, plain_url = start(binary, root, tempfile.mkdtemp(prefix="bench-admin-tokens-"))
        servers.append(plain)
        with_tokens, url = start(binary, root, tempfile.mkdtemp(prefix="bench-admin-tokens-"))
        servers.append(with_tokens)
        secret = None
        for index in range(count):
            request = urllib.request.Request(
                url + "/v1/admin/tokens", method="POST",
                data=json.dumps({"name": f"bench-{index}", "role": "editor"}).encode(),
                headers={"Authorization": f"Bearer {CONFIGURED}", "Content-Type": "application/json"})
            with urllib.request.urlopen(request) as answer:
                secret = json.load(answer)["secret"]
        runs = {"baseline": [], "configured": [], "stored": []}
        targets = {"baseline": (plain_url, CONFIGURED), "configured": (url, CONFIGURED), "stored": (url, secret)}
        for base, token in targets.values():  # warm-up
            wrk(base + "/v1/admin/session", token, "1s")
        for _ in range(rounds):
            for name, (base, token) in targets.items():
                runs[name].append(wrk(base + "/v1/admin/session", token, duration))
    finally:
        for server in servers:
            server.terminate()
            server.wait(15)

    def median_rate(name):
        return statistics.median(rate for rate, _ in runs[name])

    def row(label, name):
        latency = statistics.median(latency for _, latency in runs[name])
        return f"| {label} | {median_rate(name):,.0f} | {latency:.0f} | {median_rate(name) / median_rate('baseline'):.1%} |"

    lines = [
        f"### Admin tokens: authentication of `GET /v1/admin/session` ({rounds} alternating rounds of {duration}, "
        "8 connections)",
        "",
        "| token | requests/s (median) | p50 µs (median) | of the baseline |",
        "| --- | ---: | ---: | ---: |",
        row("configured, no token in the store (baseline, same run)", "baseline"),
        row(f"configured, {count} tokens in the store", "configured"),
        row(f"made through the API, {count} tokens in the store", "stored"),
    ]
    report(root, lines)


if __name__ == "__main__":
    main()

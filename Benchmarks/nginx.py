#!/usr/bin/env python3
"""The nginx row of `make bench`: the service at its defaults (access log on) beside nginx with
its default access log, serving the same body, pinned and measured the same way.

nginx (Debian's package) runs one worker on the servers' CPU, serves the service's answer to
GET /v1/templates/connectionRefused?locale=fr&platform=ios as a static file, and writes its
default `combined` access log to a file. wrk runs on the other CPU. Rounds alternate.
Prints a markdown table and appends it to Benchmarks/results/latest.md.

Usage: nginx.py SERVER_BINARY REPO_ROOT   (env: BENCH_DURATION=5s BENCH_ROUNDS=3)
"""
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

import benchlib

BIN, ROOT = sys.argv[1], sys.argv[2]
DURATION = os.environ.get("BENCH_DURATION", "5s")
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
PATH = "/v1/templates/connectionRefused?locale=fr&platform=ios"
CPUS = os.sched_getaffinity(0)
SERVER_CPU, CLIENT_CPU = (str(min(CPUS)), str(max(CPUS))) if len(CPUS) > 1 else (None, None)


def pinned(cpu, command):
    return (["taskset", "-c", cpu] if cpu is not None else []) + command


def start_service(work):
    log_path = os.path.join(work, "service.log")
    log = open(log_path, "w")
    process = subprocess.Popen(
        pinned(SERVER_CPU, [BIN, "--host", "127.0.0.1", "--port", "0", "--data-dir", os.path.join(work, "data"),
                            "--config-dir", os.path.join(ROOT, "config"),
                            "--openapi-path", os.path.join(ROOT, "openapi.yaml")]),
        stderr=log)
    for _ in range(200):
        with open(log_path, errors="replace") as f:
            found = re.search(r"http\.port=(\d+)", f.read())
        if found:
            return process, int(found.group(1))
        time.sleep(0.05)
    sys.exit(f"the service did not start; see {log_path}")


def start_nginx(work, body):
    root = os.path.join(work, "www")
    os.makedirs(os.path.join(root, "v1", "templates"))
    with open(os.path.join(root, "v1", "templates", "connectionRefused"), "wb") as f:
        f.write(body)
    port = 18000 + os.getpid() % 1000
    config = os.path.join(work, "nginx.conf")
    with open(config, "w") as f:
        f.write(f"""
worker_processes 1;
daemon off;
user root;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log;
events {{ worker_connections 1024; }}
http {{
    access_log {work}/nginx-access.log;
    keepalive_requests 100000;
    server {{
        listen 127.0.0.1:{port};
        root {root};
        location / {{ default_type application/json; }}
    }}
}}
""")
    process = subprocess.Popen(pinned(SERVER_CPU, ["nginx", "-c", config, "-p", work]), stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}{PATH}", timeout=1).read()
            return process, port
        except OSError:
            time.sleep(0.05)
    sys.exit("nginx did not start")


def wrk(port):
    return benchlib.wrk(f"http://127.0.0.1:{port}{PATH}", DURATION, threads=1, pin=CLIENT_CPU)[0]


def main():
    if shutil.which("nginx") is None:
        sys.exit("nginx is not installed (apt-get install -y nginx)")
    work = tempfile.mkdtemp(prefix="nginx-bench-")
    service, service_port = start_service(work)
    nginx = None
    try:
        body = urllib.request.urlopen(f"http://127.0.0.1:{service_port}{PATH}").read()
        nginx, nginx_port = start_nginx(work, body)
        wrk(service_port), wrk(nginx_port)  # warm-up
        ours, theirs = [], []
        for round_number in range(ROUNDS):
            order = [(ours, service_port), (theirs, nginx_port)]
            for results, port in order if round_number % 2 == 0 else reversed(order):
                results.append(wrk(port))
        ratios = [a / b for a, b in zip(ours, theirs)]
    finally:
        service.send_signal(signal.SIGTERM)
        service.wait(timeout=30)
        if nginx is not None:
            nginx.send_signal(signal.SIGQUIT)
            nginx.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)
    lines = [
        "## Against nginx (both with their default access log)",
        "",
        "| server | req/s (median) | service ÷ nginx (median of rounds) |",
        "| --- | ---: | ---: |",
        f"| empty-state-server, defaults | {statistics.median(ours):.0f} | {statistics.median(ratios):.2f} |",
        f"| nginx, 1 worker, static file, `combined` access log | {statistics.median(theirs):.0f} | |",
        "",
        f"`wrk -t1 -c64 -d{DURATION}` on `{PATH}` (the same body), {ROUNDS} alternating rounds; "
        f"servers on CPU {SERVER_CPU}, wrk on CPU {CLIENT_CPU}. Per-round ratios: "
        + ", ".join(f"{r:.2f}" for r in ratios) + ".",
    ]
    benchlib.report(ROOT, lines)


if __name__ == "__main__":
    main()

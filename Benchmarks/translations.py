#!/usr/bin/env python3
"""The translation rows of `make bench`: exporting and importing the 10,000-template catalogue
(catalogue.py) as translators' files, against a release build started here at its defaults.

  1. export French as XLIFF 2.0 (every string, ~50,000 units): seconds and bytes; beside it, the
     first GET of the client bundle in French (the same catalogue serialized once for apps, before
     it is cached), measured in the same run;
  2. a dry-run import of that file (every string unchanged) and of the same file with every
     French target changed (every string planned, every template validated): seconds;
  3. the server's peak memory (VmHWM) after start, after the exports, after the imports.
Goals: export ≤ 2 s, dry-run import ≤ 5 s. Prints a markdown table and appends it to
Benchmarks/results/latest.md.

Usage: translations.py SERVER_BINARY REPO_ROOT   (env: TRANSLATIONS_SIZE=10000, BENCH_ROUNDS=3)
"""
import http.client
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import benchlib

BIN, ROOT = sys.argv[1], sys.argv[2]
SIZE = int(os.environ.get("TRANSLATIONS_SIZE", "10000"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
TOKEN = "bench-editor-secret-0123456789"
GOAL_EXPORT_S = 2.0
GOAL_IMPORT_S = 5.0


def log(message):
    print(f"[translations] {message}", file=sys.stderr, flush=True)


def memory_mb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(rf"{field}:\s+(\d+)", f.read()).group(1)) / 1024


def start_server(config_dir, data_dir):
    log_path = os.path.join(data_dir, "server.log")
    os.makedirs(data_dir, exist_ok=True)
    log_file = open(log_path, "w")
    process = subprocess.Popen(
        [BIN, "--host", "127.0.0.1", "--port", "0", "--data-dir", data_dir, "--config-dir", config_dir,
         "--openapi-path", os.path.join(ROOT, "openapi.yaml"), "--admin-token", f"bench:editor:{TOKEN}"],
        stderr=log_file)
    deadline = time.perf_counter() + 600
    while time.perf_counter() < deadline:
        with open(log_path, errors="replace") as f:
            found = re.search(r"http\.port=(\d+)", f.read())
        if found:
            return process, int(found.group(1))
        if process.poll() is not None:
            break
        time.sleep(0.1)
    process.kill()
    sys.exit(f"the server did not start; see {log_path}")


def request(port, method, path, body=None, content_type=None):
    """One request on a fresh connection: (status, body bytes, seconds until the body is read)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    if content_type:
        headers["Content-Type"] = content_type
    started = time.perf_counter()
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    data = response.read()
    elapsed = time.perf_counter() - started
    connection.close()
    if response.status != 200:
        sys.exit(f"{method} {path}: {response.status} {data[:300]!r}")
    return data, elapsed


def main():
    work = tempfile.mkdtemp(prefix="bench-translations-")
    process = None
    try:
        log(f"writing a {SIZE}-template catalogue")
        subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks", "catalogue.py"), str(SIZE), work, ROOT],
                       check=True)
        process, port = start_server(work, os.path.join(work, "data"))
        started_hwm = memory_mb(process.pid, "VmHWM")

        log("exporting French as XLIFF 2.0")
        bundle, bundle_s = request(port, "GET", "/v1/templates?locale=fr")
        exports = [request(port, "GET", "/v1/admin/translations/export?format=xliff2&locale=fr") for _ in range(ROUNDS)]
        xliff = exports[0][0]
        export_s = statistics.median(e[1] for e in exports)
        units = xliff.count(b"<unit ")
        export_hwm = memory_mb(process.pid, "VmHWM")

        log("importing it back (dry runs)")
        unchanged = [request(port, "POST", "/v1/admin/translations/import?fileName=fr.xlf", xliff,
                             "application/xliff+xml")[1] for _ in range(ROUNDS)]
        # Every French target changed: every string is planned as a change and every template
        # validated with it.
        changed_file = re.sub(rb"<target>", b"<target>\xe2\x80\x8b", xliff)
        changed = [request(port, "POST", "/v1/admin/translations/import?fileName=fr.xlf", changed_file,
                           "application/xliff+xml") for _ in range(ROUNDS)]
        report = changed[0][0]
        changed_count = int(re.search(rb'"changed":(\d+)', report).group(1))
        import_s = statistics.median(unchanged)
        changed_s = statistics.median(c[1] for c in changed)
        import_hwm = memory_mb(process.pid, "VmHWM")

        worst = max(export_s, 0)
        goal = []
        if worst > GOAL_EXPORT_S:
            goal.append(f"export > {GOAL_EXPORT_S:g} s")
        if max(import_s, changed_s) > GOAL_IMPORT_S:
            goal.append(f"dry run > {GOAL_IMPORT_S:g} s")
        lines = [
            f"### Translation files ({SIZE:,} templates, release build, median of {ROUNDS})",
            "",
            "| what | time | size | peak RSS after |",
            "| --- | --- | --- | --- |",
            f"| baseline: first GET /v1/templates?locale=fr (the client bundle, uncached) | {bundle_s:.2f} s | "
            f"{len(bundle) / 1e6:.1f} MB | {started_hwm:.0f} MB (after start) |",
            f"| export fr, XLIFF 2.0 ({units:,} units) | {export_s:.2f} s | {len(xliff) / 1e6:.1f} MB | {export_hwm:.0f} MB |",
            f"| dry-run import of it (all unchanged) | {import_s:.2f} s | | |",
            f"| dry-run import, every target changed ({changed_count:,} changed) | {changed_s:.2f} s | | {import_hwm:.0f} MB |",
            "",
            f"goal (export ≤ {GOAL_EXPORT_S:g} s, dry-run import ≤ {GOAL_IMPORT_S:g} s): "
            + ("met" if not goal else "no: " + ", ".join(goal)),
        ]
        benchlib.report(ROOT, lines)
    finally:
        if process is not None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The catalogue-size rows of `make bench`: what start-up, memory and publishing cost at 15 and at
10,000 templates (the built-ins copied under new ids by catalogue.py), the server at its defaults.

For each size, against a release build started here:
  1. start on a fresh data directory (imports the catalogue), then restart on it: seconds until
     the log says `listening`, the median of STARTUP_ROUNDS (3) rounds, each on a data directory
     of its own, with where the time went by the log's fields (catalogue.parse_ms: reading and
     validating the files; store.import_ms: the built-ins written into
     the store; the rest of catalogue.load_ms: the snapshot) and the CPU the process used. The
     15-template start is the fixed cost measured in the same run. With STARTUP_BEFORE_BIN set
     (another build, such as the one of the commit before a change), its starts are measured
     too, alternating with this build's, in a table of their own: before and after in one run.
     RSS after start;
  2. 200 publishes (PUT …/strings/fr, If-Match) back to back: p50 / p99 latency;
  3. client reads (wrk on one template) idle, and while publishing 20 changes/s: the ratio;
  4. 1,000 publishes back to back: RSS before and after (flat means ±10 %);
  5. the first GET of a gzip bundle after a publish: latency.
Prints a markdown table and appends it to Benchmarks/results/latest.md.

Usage: scale.py SERVER_BINARY REPO_ROOT [SIZES]
  env: BENCH_DURATION=5s, SCALE_SIZES=15,10000, STARTUP_ROUNDS=3, STARTUP_BEFORE_BIN=<binary>
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
SIZES = [int(n) for n in (sys.argv[3] if len(sys.argv) > 3 else os.environ.get("SCALE_SIZES", "15,10000")).split(",")]
DURATION = os.environ.get("BENCH_DURATION", "5s")
STARTUP_ROUNDS = int(os.environ.get("STARTUP_ROUNDS", "3"))
BEFORE_BIN = os.environ.get("STARTUP_BEFORE_BIN") or None
# Goals at 10,000 templates (issue 33): seconds until `listening`.
FRESH_GOAL, RESTART_GOAL = 2.0, 1.0
TOKEN = "bench-editor-secret-0123456789"
TEMPLATE = "connectionRefused"


def log(message):
    print(f"[scale] {message}", file=sys.stderr, flush=True)


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1)) / 1024


def start_server(config_dir, data_dir, binary=None):
    """Starts the server at its defaults; returns (process, port, seconds until `listening`)."""
    process, port, seconds, _ = start_timed(config_dir, data_dir, binary or BIN)
    return process, port, seconds


def start_timed(config_dir, data_dir, binary):
    """Starts `binary` at its defaults; returns (process, port, seconds until `listening`, the
    start's log fields in ms and the CPU seconds the process used until then)."""
    log_path = os.path.join(data_dir, f"server-{time.monotonic_ns()}.log")
    os.makedirs(data_dir, exist_ok=True)
    log_file = open(log_path, "w")
    started = time.perf_counter()
    process = subprocess.Popen(
        [binary, "--host", "127.0.0.1", "--port", "0", "--data-dir", data_dir, "--config-dir", config_dir,
         "--openapi-path", os.path.join(ROOT, "openapi.yaml"), "--admin-token", f"bench:editor:{TOKEN}"],
        stderr=log_file)
    while time.perf_counter() - started < 300:
        with open(log_path, errors="replace") as f:
            text = f.read()
        found = re.search(r"http\.port=(\d+)", text)
        if found:
            seconds = time.perf_counter() - started
            phases = {name: int(value) for name, value in
                      re.findall(r"(catalogue\.parse_ms|store\.import_ms|catalogue\.load_ms)=(\d+)", text)}
            phases["cpu"], phases["waited"] = cpu_seconds(process.pid)
            return process, int(found.group(1)), seconds, phases
        if process.poll() is not None:
            break
        time.sleep(0.01)
    sys.exit(f"the server did not start; see {log_path}")


def cpu_seconds(pid):
    """The CPU time process `pid` used (user + system), and the time its threads spent ready to
    run while other processes had the cores (the scheduler's run-queue delay, summed over
    threads), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    used = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    waited = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                waited += int(f.read().split()[1])
        except (OSError, IndexError, ValueError):
            continue  # a thread that ended meanwhile
    return used, waited / 1e9


def startup_rounds(config, work, binaries):
    """STARTUP_ROUNDS rounds of a fresh start and a restart for each of `binaries` (in turns
    within each round, so a slow minute of the machine falls on all of them); returns, per
    binary, the lists of fresh and restart results `(seconds, phases)`."""
    results = {binary: {"fresh": [], "restart": []} for binary in binaries}
    for round_number in range(STARTUP_ROUNDS):
        for index, binary in enumerate(binaries):
            data = os.path.join(work, f"startup-{round_number}-{index}")
            for kind in ("fresh", "restart"):
                process, _, seconds, phases = start_timed(config, data, binary)
                stop(process)
                results[binary][kind].append((seconds, phases))
            shutil.rmtree(data, ignore_errors=True)
    return results


def median_start(starts):
    """The start of median duration among `starts`, with its phases."""
    return sorted(starts, key=lambda start: start[0])[len(starts) // 2]


def stop(process):
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=60)


class Editor:
    """One keep-alive admin connection that rewrites the French title of one template."""

    def __init__(self, port, template):
        self.template = template
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        document = self.request("GET", f"/v1/admin/templates/{template}")
        self.revision = document["revision"]
        self.strings = document["template"]["strings"]["fr"]
        self.counter = 0

    def request(self, method, path, body=None, headers=None):
        self.connection.request(method, path, body=body, headers={"Authorization": f"Bearer {TOKEN}", **(headers or {})})
        response = self.connection.getresponse()
        payload = response.read()
        if response.status != 200:
            raise RuntimeError(f"{method} {path} answered {response.status}: {payload[:300]!r}")
        return json.loads(payload)

    def publish(self):
        self.counter += 1
        body = json.dumps(dict(self.strings, title=f"Hors ligne #{self.counter}"))
        started = time.perf_counter()
        answer = self.request("PUT", f"/v1/admin/templates/{self.template}/strings/fr", body,
                              {"Content-Type": "application/json", "If-Match": f'"r{self.revision}"'})
        self.revision = answer["revision"]
        return time.perf_counter() - started


def wrk(port):
    return benchlib.wrk(f"http://127.0.0.1:{port}/v1/templates/{TEMPLATE}?locale=de&platform=ios", DURATION)[0]


def reads_while_publishing(port, editor, per_second=20):
    stop_event = threading.Event()
    count = [0]

    def writer():
        next_at = time.perf_counter()
        while not stop_event.is_set():
            editor.publish()
            count[0] += 1
            next_at += 1 / per_second
            time.sleep(max(0, next_at - time.perf_counter()))

    thread = threading.Thread(target=writer)
    started = time.perf_counter()
    thread.start()
    rate = wrk(port)
    stop_event.set()
    thread.join()
    return rate, count[0] / (time.perf_counter() - started)


def first_bundle_after_publish(port, editor, samples=5):
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    times = []
    for _ in range(samples):
        editor.publish()
        started = time.perf_counter()
        client.request("GET", "/v1/templates?locale=fr&platform=ios", headers={"Accept-Encoding": "gzip"})
        client.getresponse().read()
        times.append(time.perf_counter() - started)
    return times


def measure(size):
    work = tempfile.mkdtemp(prefix=f"scale-{size}-")
    try:
        config = os.path.join(work, "config")
        subprocess.run([sys.executable, os.path.join(ROOT, "Benchmarks", "catalogue.py"), str(size), config, ROOT],
                       check=True, capture_output=True)
        binaries = [BIN] + ([BEFORE_BIN] if BEFORE_BIN else [])
        starts = startup_rounds(config, work, binaries)
        data = os.path.join(work, "data")
        process, port, _ = start_server(config, data)
        stop(process)
        process, port, _ = start_server(config, data)
        row = {"size": size, "rss_start": rss_mb(process.pid), "starts": starts}
        row["fresh"] = median_start(starts[BIN]["fresh"])[0]
        row["restart"] = median_start(starts[BIN]["restart"])[0]
        try:
            editor = Editor(port, TEMPLATE)
            latencies = [editor.publish() for _ in range(200)]
            row["p50"], row["p99"] = statistics.median(latencies), percentile(latencies, 0.99)
            wrk(port)  # warm-up
            idle, busy, rates = [], [], []
            for _ in range(3):
                idle.append(wrk(port))
                rate, writes = reads_while_publishing(port, editor)
                busy.append(rate)
                rates.append(writes)
            row["idle"], row["busy"], row["writes"] = statistics.median(idle), statistics.median(busy), statistics.median(rates)
            bundle = first_bundle_after_publish(port, editor)
            row["bundle"] = statistics.median(bundle)
            row["rss_before"] = rss_mb(process.pid)
            for _ in range(1000):
                editor.publish()
            row["rss_after"] = rss_mb(process.pid)
        finally:
            stop(process)
        log(f"{size} templates: { {key: value for key, value in row.items() if key != 'starts'} }")
        return row
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    rows = [measure(size) for size in SIZES]
    ms = lambda seconds: f"{seconds * 1000:.1f} ms"
    lines = [
        "## Catalogue size (server at its defaults)",
        "",
        "| templates | start fresh / restart | RSS after start | PUT strings p50 / p99 | publishes/s at 20/s asked | reads while publishing ÷ idle | first gzip bundle after a publish | RSS before → after 1,000 publishes |",
        "| ---: | --- | ---: | --- | ---: | --- | ---: | --- |",
    ]
    for row in rows:
        lines.append(
            f"| {row['size']:,} | {row['fresh']:.2f} / {row['restart']:.2f} s | {row['rss_start']:.0f} MB "
            f"| {ms(row['p50'])} / {ms(row['p99'])} | {row['writes']:.1f} | {row['busy'] / row['idle']:.2f} ({row['busy']:.0f} ÷ {row['idle']:.0f}) "
            f"| {ms(row['bundle'])} | {row['rss_before']:.0f} → {row['rss_after']:.0f} MB ({(row['rss_after'] / row['rss_before'] - 1) * 100:+.0f} %) |"
        )
    lines += [
        "",
        "Goals at 10,000: start as below; RSS ≤ 300 MB and flat (±10 %) after 1,000 publishes; "
        "publish p50 ≤ 10 ms, p99 ≤ 50 ms; reads while publishing 20/s ≥ 0.85× idle. "
        f"Reads: `wrk -t2 -c64 -d{DURATION}` on one template, 3 rounds; catalogues from Benchmarks/catalogue.py.",
        "",
    ]
    lines += startup_table(rows)
    benchlib.report(ROOT, lines)


def startup_table(rows):
    """The start-up rows: this build (and the STARTUP_BEFORE_BIN build) at each size."""
    builds = [("this build", BIN)] + ([("before (STARTUP_BEFORE_BIN)", BEFORE_BIN)] if BEFORE_BIN else [])
    lines = [
        f"## Start-up (median of {STARTUP_ROUNDS} rounds, seconds until `listening`)",
        "",
        "| build | templates | start | seconds | parse | import into the store | snapshot | CPU used | waited for a CPU | goal met? |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for label, binary in builds:
        for row in rows:
            for kind, goal in (("fresh", FRESH_GOAL), ("restart", RESTART_GOAL)):
                seconds, phases = median_start(row["starts"][binary][kind])
                parse, load = phases.get("catalogue.parse_ms", 0), phases.get("catalogue.load_ms", 0)
                imported = phases.get("store.import_ms", 0)
                verdict = ("yes" if seconds <= goal else f"no: > {goal:.0f} s") if row["size"] >= 10_000 else "(baseline)"
                lines.append(
                    f"| {label} | {row['size']:,} | {kind} | {seconds:.2f} | {parse} ms | {imported} ms "
                    f"| {max(0, load - parse - imported)} ms | {phases['cpu']:.2f} s | {phases['waited']:.2f} s | {verdict} |"
                )
    lines += [
        "",
        f"Goals at 10,000 templates (issue 33): fresh ≤ {FRESH_GOAL:.0f} s, restart ≤ {RESTART_GOAL:.0f} s. "
        "The columns are the log's `catalogue.parse_ms`, `store.import_ms` and the rest of `catalogue.load_ms`; "
        "the time after it until `listening` (admin tokens, routes, the HTTP server) is in the seconds only. "
        "CPU used: the process's user + system time until `listening` (the parse, the texts of the import and the "
        "snapshot's entries use every core). Waited for a CPU: the time its threads were ready to run while other "
        "processes had the cores (run-queue delay, summed over threads): on a busy machine the seconds are mostly this.",
    ]
    return lines


if __name__ == "__main__":
    main()

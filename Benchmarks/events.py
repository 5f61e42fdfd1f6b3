#!/usr/bin/env python3
"""Sustained event ingestion with durable acknowledgement: the analytics half of `make bench`.

Measures, against a release build of empty-state-server started here with a fresh data dir:
  1. the client's own ceiling: the same 16 clients sending the same batches with a wrong
     Content-Type, which the server answers 415 without parsing or storing anything;
  2. sustained ingestion: 16 processes, each on its own keep-alive connection, POST batches of
     100 valid events to /v1/events as fast as they can; every batch must get 202 with
     accepted == 100 (the 202 comes after the group commit's fsync). Accepted events/s (goal
     ≥ 50,000) and batch latency p50 / p99 (goal p99 ≤ 50 ms), client side;
  3. client reads (wrk on one template) quiet and while the 16 clients ingest, alternating rounds;
     goal ≥ 0.7× the quiet rate;
  4. that the stored count (GET /v1/admin/analytics/summary, displays + taps over a window
     covering the run) equals the acknowledged count.
Prints a markdown table and appends it to Benchmarks/results/latest.md.

Usage: events.py SERVER_BINARY REPO_ROOT
Environment: BENCH_DURATION (default 10s; ingestion, each wrk round and half of it for the
ceiling), BENCH_ROUNDS (quiet/ingesting read rounds, default 2).
"""
import http.client
import json
import multiprocessing
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from datetime import datetime, timedelta, timezone

import benchlib
from benchlib import percentile

BIN, ROOT = sys.argv[1], sys.argv[2]


def parse_duration(text):
    """wrk-style duration ("10s", "1m", "500ms", "10") to seconds."""
    found = re.fullmatch(r"\s*([\d.]+)\s*(ms|s|m|h)?\s*", text)
    if not found:
        sys.exit(f"BENCH_DURATION must look like 10s, 1m or 500ms (got {text!r})")
    factor = {"ms": 0.001, "s": 1, None: 1, "m": 60, "h": 3600}[found.group(2)]
    return float(found.group(1)) * factor


DURATION_TEXT = os.environ.get("BENCH_DURATION", "10s")
DURATION = parse_duration(DURATION_TEXT)
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "2"))
CEILING_DURATION = max(2.0, DURATION / 2)
TOKEN = "bench-editor-secret-0123456789"
TEMPLATE = "connectionRefused"
READ_PATH = f"/v1/templates/{TEMPLATE}?locale=fr&platform=ios"
CLIENTS = 16
BATCH = 100
# Bodies built before each timed phase: enough for this many events/s (3× the goal); past it a
# client builds more on the fly (counted and reported, as it costs client CPU during the run).
PREBUILD_EVENTS_PER_SECOND = 150_000
# Ingestion starts this long before wrk in the rounds with ingestion, so wrk sees it at full rate.
RAMP_SECONDS = 0.5

GOAL_EVENTS_PER_SECOND = 50_000
GOAL_P99_SECONDS = 0.050
GOAL_READ_RATIO = 0.7


def log(message):
    print(f"[events] {message}", file=sys.stderr, flush=True)


# --- the server -----------------------------------------------------------------------------------

def start_server(work_dir):
    data_dir = os.path.join(work_dir, "data")
    os.makedirs(data_dir)
    log_path = os.path.join(work_dir, "server.log")
    log_file = open(log_path, "w")
    process = subprocess.Popen(
        [BIN, "--host", "127.0.0.1", "--port", "0", "--data-dir", data_dir,
         "--config-dir", os.path.join(ROOT, "config"), "--openapi-path", os.path.join(ROOT, "openapi.yaml"),
         "--admin-token", f"bench:editor:{TOKEN}"],
        stdout=subprocess.DEVNULL, stderr=log_file)
    log_file.close()
    for _ in range(100):
        with open(log_path) as f:
            found = re.search(r"http\.port=(\d+)", f.read())
        if found:
            return process, int(found.group(1)), log_path
        if process.poll() is not None:
            break
        time.sleep(0.1)
    process.kill()
    with open(log_path) as f:
        sys.stderr.write(f.read())
    sys.exit("the server did not report http.port=<N> within 10 s")


def stop_server(process):
    if process.poll() is not None:
        # Gone before we stopped it: say how, or its failures look like the load's.
        how = f"signal {-process.returncode}" if process.returncode < 0 else f"status {process.returncode}"
        log(f"the server had already exited ({how})")
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def get_json(port, path):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request("GET", path, headers={"Authorization": f"Bearer {TOKEN}"})
        response = connection.getresponse()
        payload = response.read()
        if response.status != 200:
            sys.exit(f"GET {path} answered {response.status}: {payload[:300]!r}")
        return json.loads(payload), response
    finally:
        connection.close()


def process_cpu_seconds(pid):
    """User + system CPU seconds of a process (all its threads), from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_busy_seconds():
    """CPU seconds spent not idle by all cores of the machine, from /proc/stat."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    return (sum(values[:8]) - idle) / os.sysconf("SC_CLK_TCK")


# --- the clients ----------------------------------------------------------------------------------

def batch_format(revision, etag, occurred_at):
    """A %-format for one body of BATCH events, with one %s per event id. Half the events are
    displays, a quarter taps on retry, a quarter on back; locales fr/de/ja, platforms ios/android/web."""
    events = []
    for i in range(BATCH):
        event = {"id": "@ID@", "type": "displayed" if i % 2 == 0 else "actionTapped", "templateId": TEMPLATE,
                 "revision": revision, "etag": etag, "locale": ("fr", "de", "ja")[i % 3],
                 "platform": ("ios", "android", "web")[(i // 3) % 3], "appVersion": f"5.{i % 4}.{i % 7}",
                 "sessionId": f"bench-session-{i % 10}", "occurredAt": occurred_at}
        if i % 2:
            event["actionId"] = "retry" if i % 4 == 1 else "back"
        events.append(json.dumps(event, separators=(",", ":")).replace("%", "%%").replace('"@ID@"', '"%s"'))
    return '{"events":[' + ",".join(events) + "]}"


class BodyMaker:
    """Batch bodies with fresh UUIDs: a random v4 prefix per client and phase, a counter for the
    last 12 hex digits, so every id is unique across clients, phases and runs."""

    def __init__(self, revision, etag):
        occurred_at = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        self.format = batch_format(revision, etag, occurred_at)
        self.prefix = str(uuid.uuid4())[:24]
        self.counter = 0

    def next(self):
        start = self.counter
        self.counter += BATCH
        prefix = self.prefix
        return (self.format % tuple(f"{prefix}{n:012x}" for n in range(start, start + BATCH))).encode()


def client(mode, port, revision, etag, prebuild, barrier, stop, results, interval=None):
    """One client process: one keep-alive connection, batches back to back until `stop`, or, with
    `interval`, one batch every `interval` seconds on a fixed schedule (open loop: a batch whose
    turn came while the previous one was still out is sent at once, and its latency counts from
    its turn, not from when it went out, so a slow server cannot hide its delay by delaying the
    next send — the correction wrk2 makes).
    mode "ingest": valid JSON batches, each must get 202 with accepted == BATCH;
    mode "ceiling": the same bodies as text/plain, each must get 415 (nothing is stored)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us
    maker = BodyMaker(revision, etag)
    bodies = [maker.next() for _ in range(prebuild)]
    content_type = "application/json" if mode == "ingest" else "text/plain"
    expected = 202 if mode == "ingest" else 415
    headers = {"Content-Type": content_type, "Accept": "application/json"}
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.connect()
    connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    latencies, accepted, sent, failures, connects, built_late = [], 0, 0, 0, 1, 0
    failure_samples = []
    perf_counter = time.perf_counter
    barrier.wait()
    cpu_before = os.times()
    # Clients start spread over one interval, so paced batches do not arrive in bursts of CLIENTS.
    turn = perf_counter() + (interval or 0) * (os.getpid() % 97) / 97
    while not stop.value:
        if interval is not None:
            pause = turn - perf_counter()
            if pause > 0:
                time.sleep(pause)
        if mode == "ceiling":  # nothing is stored: the same bodies can go again
            body = bodies[sent % len(bodies)]
        elif sent < len(bodies):
            body = bodies[sent]
            bodies[sent] = None  # frees it
        else:
            body = maker.next()
            built_late += 1
        sent += 1
        if connection.sock is None:  # the server closed the previous one
            connects += 1
        started = perf_counter() if interval is None else turn
        if interval is not None:
            turn += interval
        try:
            connection.request("POST", "/v1/events", body=body, headers=headers)
            response = connection.getresponse()
            payload = response.read()
        except (OSError, http.client.HTTPException) as error:
            failures += 1
            if len(failure_samples) < 3:
                failure_samples.append(f"{type(error).__name__}: {error}")
            connection.close()
            continue
        latencies.append(perf_counter() - started)
        if response.status != expected:
            failures += 1
            if len(failure_samples) < 3:
                failure_samples.append(f"HTTP {response.status}: {payload[:200]!r}")
            continue
        if mode == "ingest":
            count = json.loads(payload)["accepted"]
            accepted += count
            if count != BATCH:
                failures += 1
                if len(failure_samples) < 3:
                    failure_samples.append(f"accepted {count}: {payload[:200]!r}")
    ended = time.monotonic()
    cpu_after = os.times()
    connection.close()
    results.put({
        "latencies": latencies, "accepted": accepted, "sent": sent, "failures": failures,
        "failure_samples": failure_samples, "connects": connects, "built_late": built_late, "ended": ended,
        "cpu": (cpu_after.user - cpu_before.user) + (cpu_after.system - cpu_before.system),
    })


def run_clients(mode, port, revision, etag, seconds, during=None, events_per_second=None):
    """Runs CLIENTS client processes for `seconds` (or, with `during`, for as long as during()
    takes, started RAMP_SECONDS after the clients): back to back, or with `events_per_second`
    paced to offer that rate in all (see `client`). Returns the phase summary and during()'s
    result."""
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(CLIENTS + 1, timeout=120)
    stop = context.RawValue("b", 0)
    results = context.Queue()
    if mode == "ceiling":
        prebuild = 64  # sent in turn
    else:
        prebuild = int(PREBUILD_EVENTS_PER_SECOND * (seconds + RAMP_SECONDS + 1) / CLIENTS / BATCH) + 1
    interval = None if events_per_second is None else CLIENTS * BATCH / events_per_second
    processes = [context.Process(target=client,
                                 args=(mode, port, revision, etag, prebuild, barrier, stop, results, interval))
                 for _ in range(CLIENTS)]
    for process in processes:
        process.start()
    try:
        try:
            barrier.wait()
        except threading.BrokenBarrierError:  # what a multiprocessing barrier raises too
            sys.exit(f"{mode}: the clients did not all start")
        started = time.monotonic()
        server_cpu_before = process_cpu_seconds(SERVER_PID)
        machine_before = machine_busy_seconds()
        if during is None:
            time.sleep(seconds)
            outcome = None
        else:
            time.sleep(RAMP_SECONDS)
            outcome = during()
        stop.value = 1
        collected = [results.get(timeout=120) for _ in processes]
        server_cpu = process_cpu_seconds(SERVER_PID) - server_cpu_before
        machine = machine_busy_seconds() - machine_before
        for process in processes:
            process.join(timeout=30)
    finally:
        stop.value = 1
        for process in processes:
            if process.is_alive():
                process.terminate()
                process.join()
    elapsed = max(r["ended"] for r in collected) - started
    latencies = [latency for r in collected for latency in r["latencies"]]
    phase = {
        "mode": mode, "elapsed": elapsed, "latencies": latencies,
        "requests": len(latencies), "sent": sum(r["sent"] for r in collected),
        "accepted": sum(r["accepted"] for r in collected), "failures": sum(r["failures"] for r in collected),
        "failure_samples": [s for r in collected for s in r["failure_samples"]][:5],
        "reconnects": sum(r["connects"] - 1 for r in collected),
        "built_late": sum(r["built_late"] for r in collected),
        "client_cores": sum(r["cpu"] for r in collected) / elapsed,
        "server_cores": server_cpu / elapsed, "machine_cores": machine / elapsed,
    }
    phase["batches_per_second"] = phase["requests"] / elapsed
    phase["events_per_second"] = phase["accepted"] / elapsed
    for sample in phase["failure_samples"]:
        log(f"  {mode} failure: {sample}")
    return phase, outcome


# --- reads ----------------------------------------------------------------------------------------

def wrk(port, duration_text):
    return benchlib.wrk(f"http://127.0.0.1:{port}{READ_PATH}", duration_text)


# --- report ---------------------------------------------------------------------------------------

def ms(seconds):
    return f"{seconds * 1000:.1f} ms"


def describe(phase):
    if phase["mode"] == "ingest" and phase["latencies"]:
        rates = (f"{phase['events_per_second']:.0f} events/s, {phase['batches_per_second']:.0f} batches/s, "
                 f"latency p50 {ms(statistics.median(phase['latencies']))} / p99 "
                 f"{ms(percentile(phase['latencies'], 0.99))} / max {ms(max(phase['latencies']))}")
    else:
        rates = f"{phase['batches_per_second']:.0f} batches/s"
    return (f"{rates}, {phase['failures']} failures, {phase['reconnects']} reconnects, CPU: client "
            f"{phase['client_cores']:.2f} + server {phase['server_cores']:.2f} of machine "
            f"{phase['machine_cores']:.2f} cores")


SERVER_PID = None


def main():
    global SERVER_PID
    if ROUNDS < 1:
        sys.exit("BENCH_ROUNDS must be a positive integer")
    work_dir = tempfile.mkdtemp(prefix="events-bench-")
    process, port, log_path = start_server(work_dir)
    SERVER_PID = process.pid
    run_started = datetime.now(timezone.utc)
    try:
        revision = get_json(port, f"/v1/admin/templates/{TEMPLATE}")[0]["revision"]
        etag = get_json(port, READ_PATH)[1].getheader("ETag").strip('"')
        log(f"server pid {process.pid} on port {port}; {CLIENTS} clients × {BATCH}-event batches, "
            f"{DURATION_TEXT} per phase, {ROUNDS} read rounds")

        ceiling, _ = run_clients("ceiling", port, revision, etag, CEILING_DURATION)
        log(f"client ceiling (415, nothing stored): {ceiling['batches_per_second'] * BATCH:.0f} events/s "
            f"offered; {describe(ceiling)}")

        ingest, _ = run_clients("ingest", port, revision, etag, DURATION)
        if not ingest["latencies"]:
            sys.exit("ingestion: no batch was answered")
        log(f"ingestion: {describe(ingest)}")

        wrk(port, "2s")  # warm-up of the read path
        quiet, busy, busy_phases, wrk_errors = [], [], [], []
        for round_number in range(1, ROUNDS + 1):
            rate, errors = wrk(port, DURATION_TEXT)
            quiet.append(rate)
            wrk_errors += [f"round {round_number} quiet: {e}" for e in errors]
            phase, (rate, errors) = run_clients("ingest", port, revision, etag, DURATION,
                                                during=lambda: wrk(port, DURATION_TEXT))
            busy.append(rate)
            busy_phases.append(phase)
            wrk_errors += [f"round {round_number} ingesting: {e}" for e in errors]
            log(f"round {round_number}: reads {quiet[-1]:.0f} req/s quiet, {rate:.0f} req/s while ingesting "
                f"{phase['events_per_second']:.0f} events/s ({phase['failures']} failures)")

        ingest_phases = [ingest] + busy_phases
        acknowledged = sum(p["accepted"] for p in ingest_phases)
        batches_ok = sum(p["requests"] - p["failures"] for p in ingest_phases)
        window_from = (run_started - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        window_to = (datetime.now(timezone.utc) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        summary = get_json(port, f"/v1/admin/analytics/summary?from={window_from}&to={window_to}")[0]["totals"]
        stored = summary["displays"] + summary["taps"]
        log(f"acknowledged {acknowledged}, stored {stored} (displays {summary['displays']}, taps "
            f"{summary['taps']}, by action {summary['tapsByAction']})")
    finally:
        stop_server(process)
        with open(log_path) as f:
            complaints = [line.rstrip() for line in f if re.search(r" (warning|error|critical) ", line)]
        for line in complaints[:10]:
            log(f"server: {line}")
        shutil.rmtree(work_dir, ignore_errors=True)

    failures = sum(p["failures"] for p in ingest_phases)
    p50, p99 = statistics.median(ingest["latencies"]), percentile(ingest["latencies"], 0.99)
    rate = ingest["events_per_second"]
    quiet_median, busy_median = statistics.median(quiet), statistics.median(busy)
    ratio = busy_median / quiet_median if quiet_median else 0
    busy_events = statistics.median(p["events_per_second"] for p in busy_phases)
    ceiling_events = ceiling["batches_per_second"] * BATCH
    # Each full batch is half displays, a quarter retry taps, a quarter back taps.
    expected_split = {"displays": batches_ok * BATCH // 2, "retry": batches_ok * BATCH // 4,
                      "back": batches_ok * BATCH // 4}
    split_ok = failures > 0 or (summary["displays"] == expected_split["displays"]
                                and summary["tapsByAction"].get("retry", 0) == expected_split["retry"]
                                and summary["tapsByAction"].get("back", 0) == expected_split["back"])
    errors_note = f"no ({failures} failed batches)" if failures else None
    lines = [
        "## Sustained event ingestion",
        "",
        "| measure | value | goal | met? |",
        "| --- | ---: | --- | --- |",
        f"| accepted events/s ({CLIENTS} clients × {BATCH}-event batches, 202 after fsync) | {rate:.0f} "
        f"| ≥ {GOAL_EVENTS_PER_SECOND:,} | {errors_note or ('yes' if rate >= GOAL_EVENTS_PER_SECOND else 'no')} |",
        f"| batch latency p50 / p99 / max (client side) | {ms(p50)} / {ms(p99)} / {ms(max(ingest['latencies']))} "
        f"| p99 ≤ {GOAL_P99_SECONDS * 1000:.0f} ms | {errors_note or ('yes' if p99 <= GOAL_P99_SECONDS else 'no')} |",
        f"| failed batches (not 202 with accepted = {BATCH}), all phases | {failures} of "
        f"{sum(p['sent'] for p in ingest_phases)} | 0 | {'yes' if failures == 0 else 'no'} |",
        f"| client reads, quiet (median req/s) | {quiet_median:.0f} | | |",
        f"| client reads while ingesting {busy_events:.0f} events/s (median req/s) | {busy_median:.0f} "
        f"| ≥ {GOAL_READ_RATIO}× | {'no (wrk errors)' if wrk_errors else ('yes' if ratio >= GOAL_READ_RATIO else 'no')} "
        f"({ratio:.2f}×) |",
        f"| acknowledged vs stored events (summary displays + taps) | {acknowledged} / {stored} | equal "
        f"| {'yes' if acknowledged == stored and split_ok else 'no'} |",
        f"| client ceiling (same clients and bodies, text/plain → 415) | {ceiling_events:.0f} events/s "
        f"({ceiling['batches_per_second']:.0f} batches/s, {ceiling['client_cores']:.2f} client cores"
        f"{', %d not 415' % ceiling['failures'] if ceiling['failures'] else ''}) "
        f"| ≫ accepted rate | {ceiling_events / rate if rate else 0:.1f}× |",
        f"| CPU while ingesting: client / server / whole machine (cores of {os.cpu_count()}) "
        f"| {ingest['client_cores']:.2f} / {ingest['server_cores']:.2f} / {ingest['machine_cores']:.2f} | | |",
        "",
        f"Ingestion: {CLIENTS} processes, one keep-alive connection each, batches of {BATCH} valid events "
        f"({TEMPLATE}, half displayed, a quarter actionTapped retry, a quarter back; fr/de/ja; ios/android/web; "
        f"fresh UUIDs) back to back for {DURATION_TEXT}; rate = acknowledged events ÷ time to the last answer. "
        f"Reads: `wrk -t2 -c64 -d{DURATION_TEXT}` on `{READ_PATH}`, {ROUNDS} rounds alternating quiet / "
        f"while the same {CLIENTS} clients ingest. Stored: `GET /v1/admin/analytics/summary` from {window_from} "
        f"to {window_to}, against every batch acknowledged in all phases. Ceiling: the client's own rate "
        f"against an answer that stores nothing; when it is not well above the accepted rate, the client "
        f"(which shares the machine's cores with the server) limits the figure.",
        "",
        f"Per phase — ingestion alone: {describe(ingest)}; "
        + "; ".join(f"round {i} with wrk: {describe(p)}, reads {q:.0f} quiet / {b:.0f} ingesting"
                    for i, (p, q, b) in enumerate(zip(busy_phases, quiet, busy), 1))
        + f"; ceiling: {describe(ceiling)}.",
    ]
    late = sum(p["built_late"] for p in ingest_phases + [ceiling])
    if late:
        lines.append(f"The clients ran out of prebuilt bodies and built {late} more during the run.")
    if not split_ok:
        lines.append(f"Stored split differs from the batches': expected {expected_split}, stored displays "
                     f"{summary['displays']}, taps by action {summary['tapsByAction']}.")
    if wrk_errors:
        lines.append("wrk errors: " + "; ".join(wrk_errors) + ".")
    if complaints:
        lines.append(f"Server logged {len(complaints)} warning/error lines, e.g. `{complaints[0][:200]}`.")
    benchlib.report(ROOT, lines)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Copy experiments at scale: the results endpoint's half of `make bench`.

For each store (SQLite, and PostgreSQL on a throwaway server from scripts/postgres.sh), against a
release build started here at its defaults:
  1. an experiment on somethingWentWrong (control and b, 50/50, metric: taps on retry) created
     and started through the admin API;
  2. its data written straight into the tables, as the service would have left them after a
     large experiment: EXPERIMENT_INSTALLS installs (default 1,000,000) in `experiment_install`
     (0.5 % of them seen in both variants; 10 % of control and 11 % of b converting, their first
     taps in `experiment_install_tap`), and EXPERIMENT_EVENTS events (default 3,000,000: a
     display for every install, a tap for every conversion, more displays for the rest) in the
     event table with their variant and install id, left to the service's rollup backfill as
     Benchmarks/analytics_data.py leaves its events (on PostgreSQL, then VACUUM ANALYZE, as
     autovacuum would);
  3. once the backfill is complete, `GET /v1/admin/experiments/{id}/results` asked BENCH_QUERIES
     times (default 20) as it is, with `?segment=platform` and with `?segment=appVersion`, in
     turns (the whole is the baseline of the segmented reads, measured in the same run): p50 and
     max against a goal of 100 ms, and a check that each answer adds up to what was loaded
     (installs, excluded installs, displays; each segmentation's segments to the whole). Each
     install has a platform (ios, android, web) and one of APP_VERSIONS app versions, as the
     service keeps them for segments.
Prints a markdown table and appends it to Benchmarks/results/latest.md.

Usage: experiments.py SERVER_BINARY REPO_ROOT
Environment: EXPERIMENT_INSTALLS, EXPERIMENT_EVENTS, BENCH_QUERIES, EXPERIMENT_STORES (default
"sqlite,postgres").
"""
import http.client
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone

import benchlib
from benchlib import percentile

BIN, ROOT = sys.argv[1], sys.argv[2]
INSTALLS = int(os.environ.get("EXPERIMENT_INSTALLS", "1000000"))
EVENTS = int(os.environ.get("EXPERIMENT_EVENTS", "3000000"))
QUERIES = int(os.environ.get("BENCH_QUERIES", "20"))
STORES = os.environ.get("EXPERIMENT_STORES", "sqlite,postgres").split(",")
TOKEN = "bench-editor-secret-0123456789"
POSTGRES = os.path.join(ROOT, "scripts", "postgres.sh")
EXPERIMENT = "bench-copy"
TEMPLATE = "somethingWentWrong"
CROSSED_SHARE = 0.005
RATES = {"control": 0.10, "b": 0.11}
GOAL = 0.100
PLATFORMS = ("ios", "android", "web")
APP_VERSIONS = ("5.8.0", "5.9.0", "5.9.1", "6.0.0", "6.1.0")
SEGMENTS = (None, "platform", "appVersion")
INSTALL_COLUMNS = ("experiment_install (experiment_id, install_id, variant, first_seen_at, converted_at, crossed, "
                   "platform, locale, app_version)")
EVENT_COLUMNS = ("id", "type", "template_id", "revision", "etag", "locale", "platform", "app_version", "action_id",
                 "session_id", "occurred_at", "received_at", "clock_skew_ms", "request_id", "variant", "install_id")


def log(message):
    print(f"[experiments] {message}", file=sys.stderr, flush=True)


class Server:
    """A release build started on a data directory (and a database URL), at its defaults."""

    def __init__(self, data_dir, database_url=None):
        os.makedirs(data_dir, exist_ok=True)
        self.log_path = os.path.join(data_dir, f"server-{time.time_ns()}.log")
        arguments = [BIN, "--host", "127.0.0.1", "--port", "0", "--data-dir", data_dir,
                     "--config-dir", os.path.join(ROOT, "config"), "--openapi-path", os.path.join(ROOT, "openapi.yaml"),
                     "--admin-token", f"bench:editor:{TOKEN}"]
        if database_url:
            arguments += ["--database-url", database_url]
        self.started = time.perf_counter()
        self.process = subprocess.Popen(arguments, stderr=open(self.log_path, "w"))
        while True:
            with open(self.log_path, errors="replace") as f:
                text = f.read()
            if "http.port=" in text:
                self.port = int(text.split("http.port=", 1)[1].split()[0])
                return
            if self.process.poll() is not None or time.perf_counter() - self.started > 300:
                sys.exit(f"the server did not start; its log:\n{text[-3000:]}")
            time.sleep(0.05)

    def request(self, method, path, body=None, headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        all_headers = {"Authorization": f"Bearer {TOKEN}", **(headers or {})}
        if body is not None:
            all_headers["Content-Type"] = "application/json"
        connection.request(method, path, body=body, headers=all_headers)
        response = connection.getresponse()
        answer = response.read()
        connection.close()
        return response.status, answer

    def metric(self, name):
        _, body = self.request("GET", "/metrics")
        for line in body.decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
        return None

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=60)


def start_experiment(server):
    """Creates and starts the experiment; returns when it started (ms since the epoch)."""
    document = {"id": EXPERIMENT, "templateId": TEMPLATE, "status": "draft", "coverage": 1,
                "primaryMetric": {"type": "tap", "action": "retry"},
                "variants": [{"key": "control", "weight": 0.5},
                             {"key": "b", "weight": 0.5, "strings": {"en": {"title": "We hit a problem on our side"}}}]}
    path = f"/v1/admin/experiments/{EXPERIMENT}"
    status, answer = server.request("PUT", path, json.dumps(document), {"If-None-Match": "*"})
    if status != 201:
        sys.exit(f"creating the experiment: {status} {answer[:300]!r}")
    document["status"] = "running"
    status, answer = server.request("PUT", path, json.dumps(document), {"If-Match": '"r1"'})
    if status != 200:
        sys.exit(f"starting the experiment: {status} {answer[:300]!r}")
    started = datetime.strptime(json.loads(answer)["experiment"]["startedAt"][:19], "%Y-%m-%dT%H:%M:%S")
    return int(started.replace(tzinfo=timezone.utc).timestamp() * 1000)


def data_set(started_ms, now_ms, seed=1):
    """(installs, taps, events, expected): the rows of `experiment_install` and
    `experiment_install_tap`, a generator of event rows (EVENT_COLUMNS order), and what the
    results must add up to."""
    rng = random.Random(seed)
    # Installs are first seen, and events fall, inside the experiment's window (its start to now):
    # an install seen before the start is excluded (`beforeStart`), and the rollups, by the hour,
    # are read over the window widened to whole hours.
    start = started_ms
    span = max(1, now_ms - start)
    installs, taps = [], []
    expected = {"installs": 0, "crossed": 0, "displayed": 0}
    for n in range(INSTALLS):
        install = f"install-{n:09d}"
        variant = "b" if rng.random() < 0.5 else "control"
        crossed = rng.random() < CROSSED_SHARE
        seen = start + int(rng.random() * span)
        converted = None
        if rng.random() < RATES[variant]:
            converted = seen + int(rng.random() * (start + span - seen))
            taps.append((EXPERIMENT, "retry", variant, install, converted))
        installs.append((EXPERIMENT, install, variant, seen, converted, crossed, PLATFORMS[n % 3], "en",
                         APP_VERSIONS[n % len(APP_VERSIONS)]))
        expected["crossed" if crossed else "installs"] += 1

    def events():
        made = 0

        def row(kind, install, variant, at, action=None):
            nonlocal made
            made += 1
            return (f"00000000-0000-4000-8000-{made:012x}", kind, TEMPLATE, 1, None, "en", "ios", "6.0.0", action,
                    None, at, at + 150, 0, f"bench{made // 20:016x}", f"{EXPERIMENT}/{variant}", install)

        for _, install, variant, seen, converted, crossed, *_ in installs:
            yield row("displayed", install, variant, seen)
            if crossed:
                yield row("displayed", install, "b" if variant == "control" else "control", seen)
            if converted is not None:
                yield row("actionTapped", install, variant, converted, "retry")
        while made < EVENTS:
            _, install, variant, seen, _, crossed, *_ = installs[rng.randrange(len(installs))]
            yield row("displayed", install, variant, seen + int(rng.random() * (start + span - seen)))

    first_pass = len(installs) + expected["crossed"] + len(taps)
    expected["displayed"] = max(EVENTS, first_pass) - len(taps)
    return installs, taps, events, expected


def load_sqlite(data_dir, installs, taps, events):
    connection = sqlite3.connect(os.path.join(data_dir, "events.sqlite"), isolation_level=None)
    connection.execute("PRAGMA synchronous = OFF")
    connection.execute("BEGIN")
    connection.executemany(f"INSERT INTO {INSTALL_COLUMNS} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", installs)
    connection.executemany("INSERT INTO experiment_install_tap VALUES (?, ?, ?, ?, ?)", sorted(taps))
    placeholders = ", ".join("?" for _ in EVENT_COLUMNS)
    connection.executemany(f"INSERT INTO event ({', '.join(EVENT_COLUMNS)}) VALUES ({placeholders})", events())
    # Counted by the service's backfill, as analytics_data.py's events are.
    connection.execute("""UPDATE rollup_backfill SET through_seq = (SELECT MAX(seq) FROM event), next_seq = 0,
        counted = 0, total = (SELECT COUNT(*) FROM event)""")
    connection.execute("COMMIT")
    connection.execute("ANALYZE")
    connection.close()


def psql(state, sql):
    subprocess.run(["bash", POSTGRES, "psql", state, "-v", "ON_ERROR_STOP=1", "-q", "-c", sql], check=True)


def copy_into(state, table_columns, rows):
    """COPY `rows` into `table_columns` (`table (a, b)`) through scripts/postgres.sh psql."""
    process = subprocess.Popen(["bash", POSTGRES, "psql", state, "-v", "ON_ERROR_STOP=1", "-q", "-c",
                                f"COPY {table_columns} FROM STDIN"], stdin=subprocess.PIPE, text=True,
                               bufsize=1 << 20)

    def field(value):
        if value is None:
            return "\\N"
        if isinstance(value, bool):
            return "t" if value else "f"
        return str(value)

    for row in rows:
        process.stdin.write("\t".join(field(value) for value in row) + "\n")
    process.stdin.close()
    if process.wait() != 0:
        sys.exit(f"COPY {table_columns} failed")


def load_postgres(state, installs, taps, events):
    copy_into(state, INSTALL_COLUMNS, installs)
    copy_into(state, "experiment_install_tap (experiment_id, action_id, variant, install_id, first_tapped_at)", taps)
    # As an earlier release's events (seq: transaction << 16 + position, from old transaction
    # numbers), for the backfill to count.
    copy_into(state, f"event_legacy (seq, {', '.join(EVENT_COLUMNS)})",
              ((((1 + position // 60_000) << 16) + position % 60_000, *row) for position, row in enumerate(events())))
    psql(state, """UPDATE rollup_backfill SET through_seq = (SELECT MAX(seq) FROM event_legacy), next_seq = 0,
        counted = 0, total = (SELECT COUNT(*) FROM event_legacy)""")
    # One statement a call: VACUUM does not run inside the transaction psql makes of several.
    for statement in ("VACUUM ANALYZE experiment_install", "VACUUM ANALYZE experiment_install_tap",
                      "ANALYZE event_legacy"):
        psql(state, statement)


def wait_backfill(server):
    while True:
        counted = server.metric("analytics_backfill_counted_events")
        total = server.metric("analytics_backfill_events")
        if counted is not None and total and counted >= total:
            return
        if server.process.poll() is not None:
            sys.exit("the server stopped during the backfill")
        time.sleep(0.5)


def measure(store, work):
    data_dir = os.path.join(work, f"{store}-data")
    state = os.path.join(work, "pg")
    url = None
    if store == "postgres":
        url = subprocess.run(["bash", POSTGRES, "start", state], capture_output=True, text=True,
                             check=True).stdout.strip()
    try:
        server = Server(data_dir, url)
        started_ms = start_experiment(server)
        server.stop()
        log(f"{store}: loading {INSTALLS:,} installs' exposures and {EVENTS:,} events")
        loading = time.perf_counter()
        installs, taps, events, expected = data_set(started_ms, int(time.time() * 1000))
        if store == "sqlite":
            load_sqlite(data_dir, installs, taps, events)
        else:
            load_postgres(state, installs, taps, events)
        log(f"{store}: loaded in {time.perf_counter() - loading:.0f} s; backfilling the rollups")
        server = Server(data_dir, url)
        wait_backfill(server)
        times = {segment: [] for segment in SEGMENTS}
        answers = {}
        for _ in range(QUERIES):
            for segment in SEGMENTS:
                path = f"/v1/admin/experiments/{EXPERIMENT}/results" + (f"?segment={segment}" if segment else "")
                asked = time.perf_counter()
                status, answer = server.request("GET", path)
                times[segment].append(time.perf_counter() - asked)
                if status != 200:
                    sys.exit(f"results {path}: {status} {answer[:300]!r}")
                answers[segment] = answer
        server.stop()
        results = json.loads(answers[None])
        counted = {"installs": sum(v["installs"] for v in results["variants"]),
                   "crossed": results["excludedInstalls"],
                   "displayed": sum(v["displayed"] for v in results["variants"])}
        if counted != expected:
            sys.exit(f"{store}: the results count {counted}, the data set holds {expected}")
        rows = []
        for segment in SEGMENTS:
            segmented = json.loads(answers[segment])
            what = f"results of {INSTALLS:,} installs, {EVENTS:,} events"
            notes = ""
            if segment:
                parts = segmented["segments"]
                summed = {"installs": sum(v["installs"] for p in parts for v in p["results"]["variants"]),
                          "crossed": sum(p["results"]["excludedInstalls"] for p in parts)}
                if summed != {"installs": expected["installs"], "crossed": expected["crossed"]} \
                        or segmented["variants"] != results["variants"]:
                    sys.exit(f"{store}: the {segment} segments count {summed}, the data set holds {expected}")
                what += f", ?segment={segment} ({len(parts)} segments)"
                notes = f"; {percentile(times[segment], 0.5) / percentile(times[None], 0.5):.1f}× the whole's p50"
            p50, worst = percentile(times[segment], 0.5) * 1000, max(times[segment]) * 1000
            verdict = "ok" if worst <= GOAL * 1000 else "over the 100 ms goal"
            rows.append((store, what, f"p50 {p50:.1f} ms, max {worst:.1f} ms",
                         f"{verdict}; verdict {segmented['verdict']}"
                         + (f" ({segmented['winner']})" if segmented.get("winner") else "") + notes))
        return rows
    finally:
        if store == "postgres":
            subprocess.run(["bash", POSTGRES, "stop", state], capture_output=True)


def main():
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-experiments-") as work:
        for store in STORES:
            rows += measure(store, work)
    lines = ["", f"## Copy experiments: the results endpoint ({QUERIES} asks each)", "",
             "| store | what | time | notes |", "| --- | --- | --- | --- |"]
    lines += [f"| {' | '.join(row)} |" for row in rows]
    benchlib.report(ROOT, lines)


if __name__ == "__main__":
    main()

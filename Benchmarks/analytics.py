#!/usr/bin/env python3
"""Analytics at scale: the rollups' half of `make bench`.

For each store (SQLite, and PostgreSQL on a throwaway server from scripts/postgres.sh), against a
release build started here at its defaults:
  1. the scale data set (Benchmarks/analytics_data.py: ANALYTICS_EVENTS events, default
     10,000,000, over ANALYTICS_DAYS days, default 30), loaded as a release before rollups stored
     it, so the service finds a database to backfill;
  2. the backfill: from start to "rollup backfill complete", the events counted per second, and
     while it runs, client reads (wrk on one template) and durable ingestion (batches of 100 from
     8 processes) against the same after it is done;
  3. summaries from the rollups: totals, per template, one template per locale, per app version,
     over 1, 7 and 30 days; each asked BENCH_QUERIES times (default 20), p50 and max against the
     goal of 50 ms;
  4. retention of one day: SQLite deletes an expired day's events in batches; PostgreSQL drops an
     expired day's partition (one day of events made here in a partition 31 days back): time and
     bytes freed, from the service's log.
Then durable ingestion into each store with rollups and without (EMPTY_STATE_BENCH_WITHOUT_ROLLUPS=1,
a process of its own) in the same run, INGEST_ROUNDS times each (default 3), alternating: the
medians of accepted events/s and batch p99, and their ratio.
Prints a markdown table and appends it to Benchmarks/results/latest.md.

Usage: analytics.py SERVER_BINARY REPO_ROOT
Environment: ANALYTICS_EVENTS, ANALYTICS_DAYS, BENCH_QUERIES, BENCH_DURATION (ingestion and reads,
default 5s), ANALYTICS_STORES (default "sqlite,postgres"), INGEST_ROUNDS (default 3).
"""
import http.client
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone

import benchlib
from benchlib import percentile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import events  # noqa: E402  (the ingestion clients of events.py and replicas.py; it reads the same argv)

BIN, ROOT = sys.argv[1], sys.argv[2]
EVENTS = int(os.environ.get("ANALYTICS_EVENTS", "10000000"))
DAYS = int(os.environ.get("ANALYTICS_DAYS", "30"))
QUERIES = int(os.environ.get("BENCH_QUERIES", "20"))
DURATION = float(os.environ.get("BENCH_DURATION", "5s").rstrip("s"))
STORES = os.environ.get("ANALYTICS_STORES", "sqlite,postgres").split(",")
INGEST_ROUNDS = int(os.environ.get("INGEST_ROUNDS", "3"))
TOKEN = "bench-editor-secret-0123456789"
POSTGRES = os.path.join(ROOT, "scripts", "postgres.sh")
READ_PATH = "/v1/templates/connectionRefused?locale=fr&platform=ios"
GOAL_SUMMARY = 0.050


def log(message):
    print(f"[analytics] {message}", file=sys.stderr, flush=True)


class Server:
    """A release build started on a data directory (and a database URL), at its defaults."""

    def __init__(self, data_dir, database_url=None, extra_env=None, extra_args=()):
        os.makedirs(data_dir, exist_ok=True)
        self.log_path = os.path.join(data_dir, f"server-{time.time_ns()}.log")
        arguments = [BIN, "--host", "127.0.0.1", "--port", "0", "--data-dir", data_dir,
                     "--config-dir", os.path.join(ROOT, "config"), "--openapi-path", os.path.join(ROOT, "openapi.yaml"),
                     "--admin-token", f"bench:editor:{TOKEN}", *extra_args]
        if database_url:
            arguments += ["--database-url", database_url]
        environment = dict(os.environ, **(extra_env or {}))
        self.started = time.perf_counter()
        self.process = subprocess.Popen(arguments, stderr=open(self.log_path, "w"), env=environment)
        while True:
            found = re.search(r"http\.port=(\d+)", self.text())
            if found:
                self.port = int(found.group(1))
                return
            if self.process.poll() is not None or time.perf_counter() - self.started > 300:
                sys.exit(f"the server did not start; its log:\n{self.text()[-3000:]}")
            time.sleep(0.05)

    def text(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def get(self, path, auth=True):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        connection.request("GET", path, headers={"Authorization": f"Bearer {TOKEN}"} if auth else {})
        response = connection.getresponse()
        body = response.read()
        connection.close()
        return response.status, body

    def metric(self, name):
        _, body = self.get("/metrics", auth=False)
        found = re.search(rf"^{name} (\S+)$", body.decode(), re.M)
        return float(found.group(1)) if found else None

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=60)


def rfc3339(moment):
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def poster(port, seconds, results, worker):
    """Durable ingestion from one process: batches of 100 new events for `seconds`; puts
    (accepted, [latency of each batch]) on `results`."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    now = rfc3339(datetime.now(timezone.utc))
    accepted, latencies = 0, []
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        batch = {"events": [{"id": str(uuid.uuid4()), "type": "displayed", "templateId": "connectionRefused",
                             "revision": 1, "locale": "fr", "platform": "ios", "appVersion": f"9.{worker}.0",
                             "occurredAt": now} for _ in range(100)]}
        body = json.dumps(batch)
        started = time.perf_counter()
        connection.request("POST", "/v1/events", body=body, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        answer = response.read()
        latencies.append(time.perf_counter() - started)
        if response.status != 202:
            sys.exit(f"ingestion: {response.status} {answer[:300]!r}")
        accepted += json.loads(answer)["accepted"]
    results.put((accepted, latencies))


def ingest(port, seconds=DURATION, processes=8):
    """Accepted events/s and batch p99 (ms) of `processes` posting for `seconds`."""
    results = multiprocessing.Queue()
    workers = [multiprocessing.Process(target=poster, args=(port, seconds, results, n)) for n in range(processes)]
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    outcomes = [results.get() for _ in workers]
    for worker in workers:
        worker.join()
    elapsed = time.perf_counter() - started
    latencies = [latency for _, batch in outcomes for latency in batch]
    return sum(accepted for accepted, _ in outcomes) / elapsed, percentile(latencies, 0.99) * 1000


def reads(port):
    rate, errors = benchlib.wrk(f"http://127.0.0.1:{port}{READ_PATH}", f"{int(DURATION)}s", threads=1, connections=32)
    if errors:
        sys.exit(f"reads: {errors}")
    return rate


def wait_backfill(server):
    """Seconds from the server's start until the backfill is complete (from /metrics)."""
    while True:
        counted = server.metric("analytics_backfill_counted_events")
        total = server.metric("analytics_backfill_events")
        if counted is not None and total and counted >= total:
            return time.perf_counter() - server.started
        if server.process.poll() is not None:
            sys.exit(f"the server stopped during the backfill:\n{server.text()[-3000:]}")
        time.sleep(0.5)


def summaries(server):
    """(label, days, p50 ms, max ms) of each summary over 1, 7 and 30 days."""
    now = datetime.now(timezone.utc)
    questions = [("totals", ""), ("per template", "&groupBy=template"),
                 ("one template per locale", "&templateId=connectionRefused&groupBy=locale"),
                 ("per app version", "&groupBy=appVersion")]
    rows = []
    for days in (1, 7, 30):
        window = f"from={rfc3339(now - timedelta(days=days))}&to={rfc3339(now)}"
        for label, query in questions:
            times = []
            for _ in range(QUERIES):
                started = time.perf_counter()
                status, body = server.get(f"/v1/admin/analytics/summary?{window}{query}")
                times.append(time.perf_counter() - started)
                if status != 200 or b'"partial"' in body:
                    sys.exit(f"summary {label}: {status} {body[:300]!r}")
            rows.append((label, days, percentile(times, 0.5) * 1000, max(times) * 1000))
    return rows


def scale(store, work):
    """The data set, the backfill, summaries and retention for one store; returns table rows."""
    data_dir = os.path.join(work, f"{store}-data")
    url = None
    state = os.path.join(work, "pg")
    if store == "postgres":
        url = subprocess.run(["bash", POSTGRES, "start", state], capture_output=True, text=True, check=True).stdout.strip()
    try:
        # The schema, then the data as an earlier release left it.
        Server(data_dir, url).stop()
        log(f"{store}: loading {EVENTS:,} events over {DAYS} days")
        loader = [sys.executable, os.path.join(ROOT, "Benchmarks", "analytics_data.py"), store,
                  os.path.join(data_dir, "events.sqlite") if store == "sqlite" else POSTGRES]
        if store == "postgres":
            loader.append(state)
        subprocess.run(loader + ["--events", str(EVENTS), "--days", str(DAYS)], check=True)

        server = Server(data_dir, url)
        log(f"{store}: backfilling")
        time.sleep(1)
        during_reads = reads(server.port)
        during_ingest = ingest(server.port)
        backfill = wait_backfill(server)
        after_reads = reads(server.port)
        after_ingest = ingest(server.port)
        log(f"{store}: backfill took {backfill:.0f} s; summaries")
        rows = [(store, f"backfill of {EVENTS:,} events", f"{backfill:.0f} s ({EVENTS / backfill:,.0f} events/s)", "")]
        rows.append((store, "reads during backfill ÷ after", f"{during_reads / after_reads:.2f}",
                     f"{during_reads:,.0f} / {after_reads:,.0f} req/s"))
        rows.append((store, "ingestion during backfill ÷ after", f"{during_ingest[0] / after_ingest[0]:.2f}",
                     f"{during_ingest[0]:,.0f} / {after_ingest[0]:,.0f} events/s; p99 {during_ingest[1]:.0f} / {after_ingest[1]:.0f} ms"))
        for label, days, p50, worst in summaries(server):
            verdict = "ok" if worst <= GOAL_SUMMARY * 1000 else "over the 50 ms goal"
            rows.append((store, f"summary {label}, {days} d", f"p50 {p50:.1f} ms, max {worst:.1f} ms", verdict))
        server.stop()

        # Retention of one day: restart with one day less than the data covers.
        if store == "postgres":
            expired_day(state, DAYS + 1)
        server = Server(data_dir, url, extra_args=("--event-retention-days", str(DAYS - 1 if store == "sqlite" else DAYS)))
        pattern = ("dropped an expired event partition" if store == "postgres"
                   else "pruned analytics events past retention")
        deadline = time.perf_counter() + 600
        while not re.search(pattern, server.text()) and time.perf_counter() < deadline:
            time.sleep(0.5)
        text = server.text()
        server.stop()
        if store == "postgres":
            line = next((l for l in text.splitlines() if "dropped an expired event partition" in l), "")
            values = dict(re.findall(r"store\.(\w+)=(\S+)", line))
            rows.append((store, "retention: one day's partition dropped",
                         f"{values.get('drop_ms', '?')} ms, {int(values.get('bytes_freed', 0)) / 2**20:.0f} MiB freed",
                         f"{int(values.get('events', 0)):,} events"))
        else:
            line = next((l for l in text.splitlines() if "pruned analytics events past retention" in l), "")
            values = dict(re.findall(r"events\.(\w+)=(\S+)", line))
            rows.append((store, "retention: one day's events deleted in batches",
                         f"{values.get('prune_ms', '?')} ms", f"{int(values.get('deleted', 0)):,} events"))
        return rows
    finally:
        if store == "postgres":
            subprocess.run(["bash", POSTGRES, "stop", state], capture_output=True)


def expired_day(state, days_back):
    """A day of events (a thirtieth of the data set) in the partition of `days_back` days ago."""
    day = (datetime.now(timezone.utc) - timedelta(days=days_back)).replace(hour=0, minute=0, second=0, microsecond=0)
    start = int(day.timestamp() * 1000)
    name = "event_p" + day.strftime("%Y%m%d")
    sql = f"""
        SET ROLE empty_state;  -- the app's user, as if the service had made it
        SET search_path TO public;
        CREATE TABLE {name} (LIKE event INCLUDING DEFAULTS INCLUDING CONSTRAINTS);
        ALTER TABLE event ATTACH PARTITION {name} FOR VALUES FROM ({start}) TO ({start + 86_400_000});
        INSERT INTO event (seq, id, type, template_id, revision, locale, platform, app_version, occurred_at,
            received_at, clock_skew_ms, request_id)
        SELECT 4000000000 * 65536 + n, gen_random_uuid()::text, 'displayed', 'connectionRefused', 1, 'en', 'ios', '5.0.0',
            {start} + n * (86400000 / {EVENTS // DAYS}), {start} + n * (86400000 / {EVENTS // DAYS}) + 150, 0, 'bench'
        FROM generate_series(0, {EVENTS // DAYS - 1}) n;
    """
    subprocess.run(["bash", POSTGRES, "psql", state, "-v", "ON_ERROR_STOP=1", "-q", "-c", sql], check=True)


def ingestion_cost(store, work):
    """Durable ingestion with rollups and without, same run, fresh stores, with events.py's 16
    clients (those of the ingestion figures of events.py and replicas.py): table rows. Each is
    measured INGEST_ROUNDS times, the two alternating (and which goes first alternating too), so
    a machine that gets busier or quieter during the run biases neither; medians are reported."""
    kinds = (("with rollups", {}), ("without rollups", {"EMPTY_STATE_BENCH_WITHOUT_ROLLUPS": "1"}))
    measured = {label: [] for label, _ in kinds}
    runs = 0
    for round_number in range(INGEST_ROUNDS):
        for label, env in (kinds if round_number % 2 == 0 else tuple(reversed(kinds))):
            runs += 1
            state = os.path.join(work, f"pg-ingest-{runs}")
            url = None
            if store == "postgres":
                url = subprocess.run(["bash", POSTGRES, "start", state], capture_output=True, text=True,
                                     check=True).stdout.strip()
            try:
                server = Server(os.path.join(work, f"{store}-ingest-{runs}"), url, extra_env=env)
                _, body = server.get(f"/v1/admin/templates/{events.TEMPLATE}")
                revision = json.loads(body)["revision"]
                connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
                connection.request("GET", events.READ_PATH)
                response = connection.getresponse()
                response.read()
                etag = response.getheader("ETag").strip('"')
                connection.close()
                events.SERVER_PID = server.process.pid
                phase, _ = events.run_clients("ingest", server.port, revision, etag, events.DURATION)
                server.stop()
            finally:
                if store == "postgres":
                    subprocess.run(["bash", POSTGRES, "stop", state], capture_output=True)
            if phase["failures"]:
                sys.exit(f"ingestion {label}: {phase['failures']} failures: {phase['failure_samples']}")
            p99 = percentile(phase["latencies"], 0.99) * 1000
            log(f"{store}: ingestion {label}, round {round_number + 1}: "
                f"{phase['events_per_second']:,.0f} events/s, batch p99 {p99:.0f} ms")
            measured[label].append((phase["events_per_second"], p99))
    rows = []
    for label, _ in kinds:
        rates = [rate for rate, _ in measured[label]]
        p99s = [p99 for _, p99 in measured[label]]
        rows.append((store, f"durable ingestion {label} (median of {INGEST_ROUNDS})",
                     f"{percentile(rates, 0.5):,.0f} events/s", f"batch p99 {percentile(p99s, 0.5):.0f} ms"))
    with_rollups = percentile([rate for rate, _ in measured["with rollups"]], 0.5)
    without = percentile([rate for rate, _ in measured["without rollups"]], 0.5)
    rows.append((store, "ingestion with rollups ÷ without", f"{with_rollups / without:.2f}", ""))
    return rows


def main():
    work = tempfile.mkdtemp(prefix="analytics-bench-")
    try:
        rows = []
        for store in STORES:
            for part in (ingestion_cost, scale):
                found = part(store, work)
                for row in found:
                    log(" | ".join(row))  # as they come: a long run shows its figures early
                rows += found
        lines = [f"\n### Analytics at scale ({EVENTS:,} events over {DAYS} days)\n",
                 "| store | what | figure | note |", "| --- | --- | --- | --- |"]
        lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
        benchlib.report(ROOT, lines)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

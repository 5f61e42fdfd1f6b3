#!/usr/bin/env python3
"""Three replicas on one PostgreSQL: the deployment half of `make bench`.

Starts a throwaway PostgreSQL (scripts/postgres.sh: fsync and synchronous_commit on, wal_init_zero off),
three replicas of the release build on it and, as the baseline of the same run, one server in
SQLite mode (no --database-url). Every server runs at its defaults (access log on, to a file),
with an editor token passed on the command line. Measures:
  1. publish → served by all: BENCH_PUBLISHES (200) publications of a French title on replica 1,
     paced 20 ms apart; after each 200, one poller per replica (own keep-alive connection) GETs
     the template until it serves the new title. The figure per publication is the slowest of the
     three, from the 200. Goal p99 ≤ 20 ms; it must be ≤ 100 ms;
  2. reads per replica: `wrk -t2 -c64` on one template against each PostgreSQL replica and the
     SQLite server in turn, BENCH_ROUNDS rounds (order rotated each round); per round, each
     replica's rate over the SQLite server's. Goal ≥ 0.95×;
  3. durable ingestion from one replica: Benchmarks/events.py's 16 client processes and batches
     of 100 against replica 1 (PostgreSQL), first paced to offer 50,000 events/s in all for twice
     BENCH_DURATION (open loop, latency counted from each batch's turn, so a stalled server cannot
     hide its delay by delaying the next send): the batch p99 at the required rate (goal ≤ 50 ms);
     then as fast as they can, against replica 1 and then the SQLite server: accepted events/s
     (must be ≥ 50,000, goal 100,000), client batch latency, and the p99 of the events store's
     commits from `store_commit_duration_seconds{store="events"}` in /metrics (the bucket it
     falls in); then acknowledged against stored (the analytics summary, read through replica 2).
Prints a markdown table and appends it to Benchmarks/results/latest.md.

Usage: replicas.py SERVER_BINARY REPO_ROOT
Environment: BENCH_DURATION (ingestion, default 10s), BENCH_READ_DURATION (each wrk run, default
5s), BENCH_ROUNDS (read rounds, default 3), BENCH_PUBLISHES (default 200).
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
from datetime import datetime, timedelta, timezone

BIN, ROOT = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
from benchlib import percentile  # noqa: E402
import events  # noqa: E402  (the ingestion clients; it reads the same BIN and ROOT from argv)

READ_DURATION = os.environ.get("BENCH_READ_DURATION", "5s")
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
PUBLISHES = int(os.environ.get("BENCH_PUBLISHES", "200"))
PUBLISH_INTERVAL = 0.020
TOKEN = events.TOKEN
READ_PATH = events.READ_PATH
PUBLISH_TEMPLATE = "somethingWentWrong"
PUBLISH_PATH = f"/v1/templates/{PUBLISH_TEMPLATE}?locale=fr&platform=ios"

GOAL_SERVED_P99 = 0.020
LIMIT_SERVED_P99 = 0.100
GOAL_READ_RATIO = 0.95
GOAL_EVENTS = 100_000
LIMIT_EVENTS = 50_000
GOAL_BATCH_P99 = 0.050


def log(message):
    print(f"[replicas] {message}", file=sys.stderr, flush=True)


def ms(seconds):
    return f"{seconds * 1000:.2f} ms"


# --- processes ------------------------------------------------------------------------------------

class Server:
    """One empty-state-server on a free port; database_url None means SQLite mode."""

    def __init__(self, name, work, database_url=None):
        self.name = name
        self.data_dir = os.path.join(work, name)
        self.log_path = os.path.join(work, f"{name}.log")
        environment = dict(os.environ)
        environment.pop("EMPTY_STATE_DATABASE_URL", None)
        if database_url:
            environment["EMPTY_STATE_DATABASE_URL"] = database_url  # not a flag: no password in cmdline
        with open(self.log_path, "w") as log_file:
            self.process = subprocess.Popen(
                [BIN, "--host", "127.0.0.1", "--port", "0", "--data-dir", self.data_dir,
                 "--config-dir", os.path.join(ROOT, "config"), "--openapi-path", os.path.join(ROOT, "openapi.yaml"),
                 "--admin-token", f"bench:editor:{TOKEN}"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log_file, env=environment)
        self.port = None

    def wait_ready(self, seconds=90):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.port is None:
                with open(self.log_path, errors="replace") as f:
                    found = re.search(r"http\.port=(\d+)", f.read())
                if found:
                    self.port = int(found.group(1))
            if self.port is not None:
                try:
                    connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                    connection.request("GET", "/readyz")
                    if connection.getresponse().status == 200:
                        return
                except OSError:
                    pass
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        with open(self.log_path, errors="replace") as f:
            sys.stderr.write(f.read()[-3000:])
        sys.exit(f"{self.name} did not become ready (exit status {self.process.poll()})")

    def stop(self):
        if self.process.poll() is not None:
            how = f"signal {-self.process.returncode}" if self.process.returncode < 0 else f"status {self.process.returncode}"
            log(f"{self.name} had already exited ({how})")
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def complaints(self):
        with open(self.log_path, errors="replace") as f:
            return [line.rstrip() for line in f if re.search(r" (warning|error|critical) ", line)]


def postgres(command, state_dir):
    result = subprocess.run(["bash", os.path.join(ROOT, "scripts", "postgres.sh"), command, state_dir],
                            stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"scripts/postgres.sh {command} failed: {result.stderr.strip()}")
    return result.stdout.strip()


def dirty_kilobytes():
    """Dirty and under-writeback page cache, from /proc/meminfo."""
    with open("/proc/meminfo") as f:
        return sum(int(line.split()[1]) for line in f if line.startswith(("Dirty:", "Writeback:")))


def postgres_cpu_seconds(state_dir):
    """CPU seconds of the postmaster and its children (the backends), from /proc."""
    with open(os.path.join(state_dir, "cluster")) as f:
        cluster = f.read().strip()
    with open(os.path.join(cluster, "data", "postmaster.pid")) as f:
        postmaster = int(f.readline())
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry) == postmaster or int(fields[1]) == postmaster:
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


# --- HTTP -----------------------------------------------------------------------------------------

class Connection:
    def __init__(self, port):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def request(self, method, path, body=None, headers=None):
        self.connection.request(method, path, body=body, headers=dict(headers or {}, Authorization=f"Bearer {TOKEN}"))
        response = self.connection.getresponse()
        return response.status, response.read()

    def close(self):
        self.connection.close()


def commit_histogram(port, store="events"):
    """The cumulative buckets {le: count} of store_commit_duration_seconds for one store."""
    connection = Connection(port)
    status, payload = connection.request("GET", "/metrics")
    if status != 200:
        sys.exit(f"/metrics answered {status}")
    buckets = {}
    pattern = re.compile(r'^store_commit_duration_seconds_bucket\{store="%s",le="([^"]+)"\} (\d+)' % store)
    for line in payload.decode().splitlines():
        found = pattern.match(line)
        if found:
            buckets[float(found.group(1))] = int(found.group(2))
    return buckets


def histogram_quantile(before, after, fraction):
    """(upper bound of the bucket holding the quantile, count) of the commits between two scrapes."""
    bounds = sorted(after)
    deltas = [after[b] - before.get(b, 0) for b in bounds]
    count = deltas[-1] if deltas else 0
    if count == 0:
        return None, 0
    for bound, cumulative in zip(bounds, deltas):
        if cumulative >= fraction * count:
            return bound, count
    return float("inf"), count


# --- 1. publish → served by all ---------------------------------------------------------------------

def publish_served(writer_port, ports):
    editor = Connection(writer_port)
    status, payload = editor.request("GET", f"/v1/admin/templates/{PUBLISH_TEMPLATE}")
    document = json.loads(payload)
    revision, strings = document["revision"], document["template"]["strings"]["fr"]

    target = {"title": None, "acknowledged": 0.0}
    go = [threading.Event() for _ in ports]
    done = [threading.Event() for _ in ports]
    seen = [0.0] * len(ports)
    polls = [0] * len(ports)
    stop = threading.Event()

    def poller(index, port):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while True:
            go[index].wait()
            go[index].clear()
            if stop.is_set():
                connection.close()  # an idle connection would meet the server's --header-timeout
                return
            title = target["title"]
            while True:
                connection.request("GET", PUBLISH_PATH)
                body = connection.getresponse().read()
                polls[index] += 1
                if json.loads(body)["title"] == title:
                    seen[index] = time.perf_counter() - target["acknowledged"]
                    break
                if time.perf_counter() - target["acknowledged"] > 5:
                    seen[index] = float("inf")
                    break
            done[index].set()

    threads = [threading.Thread(target=poller, args=(i, p), daemon=True) for i, p in enumerate(ports)]
    for thread in threads:
        thread.start()
    served, writes = [], []
    for n in range(PUBLISHES):
        title = f"Erreur #{n} ({time.time():.3f})"
        body = json.dumps(dict(strings, title=title)).encode()
        started = time.perf_counter()
        status, payload = editor.request("PUT", f"/v1/admin/templates/{PUBLISH_TEMPLATE}/strings/fr", body=body,
                                         headers={"Content-Type": "application/json", "If-Match": f'"r{revision}"'})
        acknowledged = time.perf_counter()
        if status != 200:
            sys.exit(f"publish answered {status}: {payload[:300]!r}")
        revision = json.loads(payload)["revision"]
        writes.append(acknowledged - started)
        target["title"], target["acknowledged"] = title, acknowledged
        for event in go:
            event.set()
        for event in done:
            event.wait()
            event.clear()
        served.append(max(seen))
        time.sleep(max(0.0, PUBLISH_INTERVAL - (time.perf_counter() - started)))
    stop.set()
    for event in go:
        event.set()
    editor.close()
    if any(s == float("inf") for s in served):
        sys.exit("a publication was not served by every replica within 5 s")
    return served, writes, sum(polls)


# --- 2. reads --------------------------------------------------------------------------------------

def wrk(port):
    rate, errors = benchlib.wrk(f"http://127.0.0.1:{port}{READ_PATH}", READ_DURATION)
    return rate, bool(errors)


# --- 3. ingestion -----------------------------------------------------------------------------------

def ingest(server, revision, etag, events_per_second=None, seconds=None):
    events.SERVER_PID = server.process.pid
    before = commit_histogram(server.port)
    phase, _ = events.run_clients("ingest", server.port, revision, etag, seconds or events.DURATION,
                                  events_per_second=events_per_second)
    after = commit_histogram(server.port)
    p99_commit, commits = histogram_quantile(before, after, 0.99)
    return phase, p99_commit, commits


def main():
    for tool in ("wrk",):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is not installed (apt-get install -y {tool})")
    work = tempfile.mkdtemp(prefix="replicas-bench-")
    pg_state = os.path.join(work, "pg")
    servers = []
    run_started = datetime.now(timezone.utc)
    try:
        database_url = postgres("start", pg_state)
        replicas = [Server(f"replica{n}", work, database_url) for n in (1, 2, 3)]
        servers += replicas
        for replica in replicas:
            replica.wait_ready()
        sqlite = Server("sqlite", work)
        servers.append(sqlite)
        sqlite.wait_ready()
        log("replicas on ports " + ", ".join(str(r.port) for r in replicas) + f"; SQLite server on {sqlite.port}")

        served, writes, polls = publish_served(replicas[0].port, [r.port for r in replicas])
        log(f"publish → served by all: p50 {ms(statistics.median(served))}, p99 {ms(percentile(served, 0.99))}, "
            f"max {ms(max(served))} ({polls} polls)")

        for server in replicas + [sqlite]:  # warm-up
            subprocess.run(["wrk", "-t2", "-c64", "-d1s", f"http://127.0.0.1:{server.port}{READ_PATH}"], capture_output=True)
        reads = {server.name: [] for server in replicas + [sqlite]}
        ratios = {replica.name: [] for replica in replicas}
        wrk_bad = []
        for round_number in range(ROUNDS):
            order = (replicas + [sqlite])[round_number % 4:] + (replicas + [sqlite])[:round_number % 4]
            rates = {}
            for server in order:
                rates[server.name], bad = wrk(server.port)
                if bad:
                    wrk_bad.append(f"round {round_number + 1} {server.name}")
                reads[server.name].append(rates[server.name])
            for replica in replicas:
                ratios[replica.name].append(rates[replica.name] / rates["sqlite"])
            log(f"reads round {round_number + 1}: " + ", ".join(f"{k} {v:.0f}" for k, v in rates.items()))

        admin = Connection(replicas[0].port)
        revision = json.loads(admin.request("GET", f"/v1/admin/templates/{events.TEMPLATE}")[1])["revision"]
        admin.close()
        connection = http.client.HTTPConnection("127.0.0.1", replicas[0].port, timeout=10)
        connection.request("GET", READ_PATH)
        response = connection.getresponse()
        response.read()
        etag = response.getheader("ETag").strip('"')
        connection.close()

        events.SERVER_PID = replicas[0].process.pid
        # The read rounds left near a gigabyte of access log in the page cache; written back during
        # ingestion they would compete with PostgreSQL's WAL flushes for the disk. Write them now.
        dirty = dirty_kilobytes()
        synced = time.monotonic()
        os.sync()
        log(f"wrote back {dirty / 1024:.0f} MiB of dirty pages (the read rounds' logs) in {time.monotonic() - synced:.1f} s")
        ceiling, _ = events.run_clients("ceiling", replicas[0].port, revision, etag, events.CEILING_DURATION)
        log(f"client ceiling: {ceiling['batches_per_second'] * events.BATCH:.0f} events/s offered")
        # Paced first: the rate's own steady state (its checkpoints and autovacuum included, over
        # twice the duration), not the catching up after a burst at full speed.
        paced_phase, paced_commit_p99, _ = ingest(replicas[0], revision, etag, events_per_second=LIMIT_EVENTS,
                                                  seconds=2 * events.DURATION)
        log(f"PostgreSQL ingestion paced at {LIMIT_EVENTS} events/s: {events.describe(paced_phase)}")
        pg_cpu_before = postgres_cpu_seconds(pg_state)
        pg_phase, pg_commit_p99, pg_commits = ingest(replicas[0], revision, etag)
        pg_cpu = (postgres_cpu_seconds(pg_state) - pg_cpu_before) / pg_phase["elapsed"]
        log(f"PostgreSQL ingestion: {events.describe(pg_phase)}, postgres {pg_cpu:.2f} cores")
        sqlite_phase, sqlite_commit_p99, sqlite_commits = ingest(sqlite, revision, etag)
        log(f"SQLite ingestion: {events.describe(sqlite_phase)}")

        window_from = (run_started - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        window_to = (datetime.now(timezone.utc) + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        summary = events.get_json(replicas[1].port, f"/v1/admin/analytics/summary?from={window_from}&to={window_to}")[0]
        stored = summary["totals"]["displays"] + summary["totals"]["taps"]
    finally:
        for server in servers:
            server.stop()
        complaints = [f"{s.name}: {line}" for s in servers for line in s.complaints()]
        for line in complaints[:10]:
            log(f"server: {line}")
        if os.path.exists(os.path.join(pg_state, "cluster")):
            postgres("stop", pg_state)
        shutil.rmtree(work, ignore_errors=True)

    served_p99 = percentile(served, 0.99)
    served_met = ("yes" if served_p99 <= GOAL_SERVED_P99 else
                  "limit only (≤ 100 ms, goal 20 ms missed)" if served_p99 <= LIMIT_SERVED_P99 else "no")
    all_ratios = [r for values in ratios.values() for r in values]
    ratio = statistics.median(all_ratios)
    ratio_met = "no (wrk errors)" if wrk_bad else ("yes" if ratio >= GOAL_READ_RATIO else "no")
    rate = pg_phase["events_per_second"]
    failures = pg_phase["failures"]
    rate_met = (f"no ({failures} failed batches)" if failures else
                "yes" if rate >= GOAL_EVENTS else
                "limit only (≥ 50,000, goal 100,000 missed)" if rate >= LIMIT_EVENTS else "no")
    batch_p99 = percentile(pg_phase["latencies"], 0.99)
    paced_p99 = percentile(paced_phase["latencies"], 0.99)
    paced_rate = paced_phase["events_per_second"]
    # Paced clients that fell behind their schedule did not offer the rate: then it is not met.
    paced_met = (f"no ({paced_phase['failures']} failed batches)" if paced_phase["failures"] else
                 f"no (served {paced_rate:.0f} events/s)" if paced_rate < 0.98 * LIMIT_EVENTS else
                 "yes" if paced_p99 <= GOAL_BATCH_P99 else "no")
    acknowledged = pg_phase["accepted"] + paced_phase["accepted"] + sqlite_phase["accepted"]
    # The SQLite server's events are in its own file: the summary through replica 2 counts PostgreSQL's.
    stored_met = "yes" if stored == pg_phase["accepted"] + paced_phase["accepted"] else "no"

    def bucket(bound):
        return "none" if bound is None else f"≤ {bound * 1000:g} ms"

    lines = [
        "## Three replicas on PostgreSQL",
        "",
        "| measure | value | goal | met? |",
        "| --- | ---: | --- | --- |",
        f"| publish on replica 1 → served by all 3, p50 / p99 / max (from the 200) | {ms(statistics.median(served))} / "
        f"{ms(served_p99)} / {ms(max(served))} | p99 ≤ 20 ms (must ≤ 100 ms) | {served_met} |",
        f"| the publication's own latency (PUT strings), p50 / p99 | {ms(statistics.median(writes))} / "
        f"{ms(percentile(writes, 0.99))} | | |",
    ]
    for replica in replicas:
        lines.append(f"| reads, {replica.name} (PostgreSQL mode), median req/s | {statistics.median(reads[replica.name]):.0f} "
                     f"| | {statistics.median(ratios[replica.name]):.2f}× SQLite |")
    lines += [
        f"| reads, SQLite mode (same binary, same run), median req/s | {statistics.median(reads['sqlite']):.0f} | | |",
        f"| reads PostgreSQL ÷ SQLite mode (median of the per-round, per-replica ratios) | {ratio:.2f}× | ≥ 0.95× | {ratio_met} |",
        f"| durable ingestion into PostgreSQL from replica 1 ({events.CLIENTS} clients × {events.BATCH}-event batches) "
        f"| {rate:.0f} events/s | ≥ 50,000 (goal 100,000) | {rate_met} |",
        f"| its batch latency at that full speed, p50 / p99 / max (client side) "
        f"| {ms(statistics.median(pg_phase['latencies']))} / {ms(batch_p99)} / "
        f"{ms(max(pg_phase['latencies']))} | p99 ≤ 50 ms | {'yes' if batch_p99 <= GOAL_BATCH_P99 else 'no'} |",
        f"| batch latency at {LIMIT_EVENTS:,} events/s offered ({events.CLIENTS} clients paced, open loop, latency from "
        f"each batch's turn), p50 / p99 / max; served, commit p99 | {ms(statistics.median(paced_phase['latencies']))} / "
        f"{ms(paced_p99)} / {ms(max(paced_phase['latencies']))}; {paced_rate:.0f} events/s, {bucket(paced_commit_p99)} "
        f"| p99 ≤ 50 ms | {paced_met} |",
        f"| its group commits: p99 (bucket of `store_commit_duration_seconds{{store=\"events\"}}`), commits "
        f"| {bucket(pg_commit_p99)}, {pg_commits} commits ({pg_phase['accepted'] / max(pg_commits, 1):.0f} events each) | | |",
        f"| the same clients against the SQLite server | {sqlite_phase['events_per_second']:.0f} events/s, batch p99 "
        f"{ms(percentile(sqlite_phase['latencies'], 0.99))}, commit p99 {bucket(sqlite_commit_p99)} ({sqlite_commits} commits) "
        f"| | {rate / sqlite_phase['events_per_second'] if sqlite_phase['events_per_second'] else 0:.2f}× |",
        f"| acknowledged by replica 1 vs stored (summary through replica 2) | {pg_phase['accepted'] + paced_phase['accepted']} "
        f"/ {stored} | equal | {stored_met} |",
        f"| CPU while ingesting into PostgreSQL: clients / replica 1 / postgres / machine (cores of {os.cpu_count()}) "
        f"| {pg_phase['client_cores']:.2f} / {pg_phase['server_cores']:.2f} / {pg_cpu:.2f} / {pg_phase['machine_cores']:.2f} | | |",
        f"| client ceiling (same clients and bodies, text/plain → 415) | {ceiling['batches_per_second'] * events.BATCH:.0f} events/s | | |",
        "",
        f"PostgreSQL 15 from scripts/postgres.sh (fsync, synchronous_commit on; wal_init_zero off), on loopback TCP, "
        f"sharing the machine's cores with the replicas and the clients. Publish: {PUBLISHES} PUT …/strings/fr of "
        f"`{PUBLISH_TEMPLATE}` on replica 1, {PUBLISH_INTERVAL * 1000:.0f} ms apart; after each 200, one poller per "
        f"replica GETs `{PUBLISH_PATH}` until the new title is served ({polls} GETs in all); the slowest replica counts. "
        f"Reads: `wrk -t2 -c64 -d{READ_DURATION}` on `{READ_PATH}`, {ROUNDS} rounds, the four servers in rotated order. "
        f"Ingestion: Benchmarks/events.py's clients into replica 1 paced at {LIMIT_EVENTS:,} events/s for "
        f"{2 * events.DURATION:g} s, then for {events.DURATION_TEXT} as fast as they can into replica 1 and then into "
        f"the SQLite server. "
        f"Acknowledged in all: {acknowledged}.",
    ]
    if wrk_bad:
        lines.append("wrk saw socket errors or non-2xx answers in: " + ", ".join(wrk_bad) + ".")
    if complaints:
        lines.append(f"The servers logged {len(complaints)} warning/error lines, e.g. `{complaints[0][:200]}`.")
    benchlib.report(ROOT, lines)


if __name__ == "__main__":
    main()

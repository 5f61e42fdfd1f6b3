#!/usr/bin/env python3
"""The scale data set of the analytics benchmark: N analytics events over D days, written straight
into a service's event table, as an existing database that holds a month of an app's events.

The events look like those of an app with a few hundred thousand daily users: 200 templates (the
15 built-ins and 185 others), five locales, three platforms, eight app versions, about one tap
for every nine displays, times spread over the days with a daily cycle, stored in time order
(as a service stores them). A seed makes the set the same on every run.

    analytics_data.py sqlite EVENTS_SQLITE [--events N] [--days D] [--seed S]
    analytics_data.py postgres PSQL_SCRIPT STATE_DIR [--events N] [--days D] [--seed S]

The file or database must exist with the service's schema (start the server on it once). The
rows are written with ids the service would accept (UUIDs), `received_at` a moment after
`occurred_at`, and no clock skew, as a release before rollups stored them: into `event` on
SQLite and `event_legacy` on PostgreSQL, and `rollup_backfill` is set to count them all, as the
migration to rollups does on such a database. The service's backfill then counts them into the
rollups in the background.
"""
import argparse
import math
import os
import random
import sqlite3
import subprocess
import sys
import time
import uuid

BUILTINS = {
    # template id -> its action ids (config/templates); the others get retry/back.
    "accessRestricted": ["back"], "appUpdateRequired": ["update"], "connectionRefused": ["retry", "back"],
    "continueToBrowser": ["openBrowser", "back"], "loading": [], "loginRequired": ["signIn", "back"],
    "noDocuments": ["create"], "noFavorites": ["findContacts"], "noSearchResults": ["clearFilters", "saveSearch"],
    "noTransactions": ["cashIn"], "optionalUpdateAvailable": ["update", "skip"], "osUpdateRequired": ["settings"],
    "pageNotAvailable": ["back"], "somethingWentWrong": ["retry", "back"], "verifyIdentity": ["verify"],
}
LOCALES = ["en", "es", "fr", "de", "ja"]
LOCALE_WEIGHTS = [50, 15, 12, 13, 10]
PLATFORMS = ["ios", "android", "web"]
PLATFORM_WEIGHTS = [45, 45, 10]
VERSIONS = [f"5.{minor}.0" for minor in range(8)]
VERSION_WEIGHTS = [2, 3, 5, 8, 12, 20, 25, 25]
COLUMNS = ("id", "type", "template_id", "revision", "etag", "locale", "platform", "app_version", "action_id",
           "session_id", "occurred_at", "received_at", "clock_skew_ms", "request_id")


def templates():
    """200 template ids with their actions, most popular first (traffic falls off as a Zipf law)."""
    ids = list(BUILTINS.items())
    ids += [(f"bench{n:03d}", ["retry", "back"]) for n in range(200 - len(ids))]
    return ids


def events(count, days, seed, now_ms):
    """Yields `count` event rows (tuples in COLUMNS order) over the `days` before `now_ms`."""
    rng = random.Random(seed)
    catalogue = templates()
    weights = [1 / (rank + 1) ** 0.8 for rank in range(len(catalogue))]
    span = days * 86_400_000
    start = now_ms - span
    # The moments first, sorted: a service stores events about in the order they happen, so a
    # table's `seq` order is its time order (what the backfill's batches by `seq` meet).
    # A daily cycle: more events in the (UTC) afternoon and evening.
    times = []
    while len(times) < count:
        at = start + int(rng.random() * span)
        hour = (at // 3_600_000) % 24
        if rng.random() < 0.55 + 0.45 * math.sin((hour - 9) / 24 * 2 * math.pi):
            times.append(at)
    times.sort()
    # Batches of choices: random.choices is much faster per call for many draws.
    batch = 100_000
    made = 0
    while made < count:
        n = min(batch, count - made)
        picks = rng.choices(range(len(catalogue)), weights=weights, k=n)
        locales = rng.choices(LOCALES, weights=LOCALE_WEIGHTS, k=n)
        platforms = rng.choices(PLATFORMS, weights=PLATFORM_WEIGHTS, k=n)
        versions = rng.choices(VERSIONS, weights=VERSION_WEIGHTS, k=n)
        for i in range(n):
            template, actions = catalogue[picks[i]]
            at = times[made + i]
            tapped = actions and rng.random() < 0.1
            yield (
                str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                "actionTapped" if tapped else "displayed",
                template,
                1 + (picks[i] + i) % 2 if picks[i] < 20 else 1,
                None,
                locales[i],
                platforms[i],
                versions[i],
                rng.choice(actions) if tapped else None,
                None,
                at,
                at + 150,
                0,
                f"bench{(made + i) // 20:016x}",
            )
        made += n


def load_sqlite(path, rows):
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA synchronous = OFF")
    connection.execute("BEGIN")
    placeholders = ", ".join("?" for _ in COLUMNS)
    connection.executemany(f"INSERT INTO event ({', '.join(COLUMNS)}) VALUES ({placeholders})", rows)
    connection.execute("""UPDATE rollup_backfill SET through_seq = (SELECT MAX(seq) FROM event), next_seq = 0,
        counted = 0, total = (SELECT COUNT(*) FROM event)""")
    connection.execute("COMMIT")
    connection.close()


def load_postgres(psql_script, state_dir, rows):
    """COPY through `scripts/postgres.sh psql STATE_DIR`; `seq` as the service makes it
    (transaction << 16 + position), from old transaction numbers so exports see every row."""
    command = ["bash", psql_script, "psql", state_dir, "-v", "ON_ERROR_STOP=1", "-q", "-c",
               f"COPY event_legacy (seq, {', '.join(COLUMNS)}) FROM STDIN"]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, text=True, bufsize=1 << 20)

    def field(value):
        return "\\N" if value is None else str(value)

    for position, row in enumerate(rows):
        seq = ((1 + position // 60_000) << 16) + position % 60_000
        process.stdin.write(str(seq) + "\t" + "\t".join(field(value) for value in row) + "\n")
    process.stdin.close()
    if process.wait() != 0:
        sys.exit("COPY into PostgreSQL failed")
    reset = subprocess.run(
        ["bash", psql_script, "psql", state_dir, "-v", "ON_ERROR_STOP=1", "-q", "-c",
         """ANALYZE event_legacy; UPDATE rollup_backfill SET through_seq = (SELECT MAX(seq) FROM event_legacy),
            next_seq = 0, counted = 0, total = (SELECT COUNT(*) FROM event_legacy)"""])
    if reset.returncode != 0:
        sys.exit("setting the backfill in PostgreSQL failed")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("backend", choices=["sqlite", "postgres"])
    parser.add_argument("target", help="events.sqlite, or scripts/postgres.sh")
    parser.add_argument("state", nargs="?", help="postgres: the state directory of scripts/postgres.sh")
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--now-ms", type=int, default=int(time.time() * 1000))
    arguments = parser.parse_args()
    started = time.perf_counter()
    rows = events(arguments.events, arguments.days, arguments.seed, arguments.now_ms)
    if arguments.backend == "sqlite":
        load_sqlite(arguments.target, rows)
    else:
        load_postgres(arguments.target, arguments.state, rows)
    print(f"loaded {arguments.events} events over {arguments.days} days in {time.perf_counter() - started:.0f} s",
          file=sys.stderr)


if __name__ == "__main__":
    main()

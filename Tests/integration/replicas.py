#!/usr/bin/env python3
"""The concurrent parts of the replicas test (replicas.sh), which curl in a loop cannot time or
synchronize. Python 3 standard library only. Each subcommand prints one JSON object on stdout,
which replicas.sh asserts on; nothing here decides pass or fail.

  publish  --writer URL --readers URL,URL --token T --template ID [--samples N]
      N publications (PUT …/strings/fr with If-Match) on the writer; after each 200, polls every
      reader until it serves the new French title. {"ms": [...], "missed": k, "etags_differ": k}
  race     --urls URL,URL,URL --token T --template ID [--rounds R] [--per-replica W]
      each round: the current revision, then W writers per replica released together by a
      barrier, all with that If-Match. {"rounds": [{"200": 1, "412": 5}, ...]}
  dedupe   --urls URL,URL,URL --token T --template ID [--events N]
      the same batch of N fresh ids to the first two replicas at once, then again to the third;
      the export read through the third. {"first": [...], "again": {...}, "stored": {id: count}}
  readers  --urls URL,… --template ID --stop-file F
      GETs the template from each replica in turn until F exists. {"ok": n, "failed": n, "samples": [...]}
  stream   --url URL --token T --template ID --acked-writes F --acked-events F [--seconds S]
      one writer publishing and two clients posting event batches as fast as acknowledged, until
      the server is gone; appends each acknowledged write ("revision<TAB>title") and event id to
      the files as soon as it is acknowledged. {"writes": n, "batches": n, "ended": "..."}
  verify   --url URL --token T --template ID --acked-writes F --acked-events F
      every acknowledged write is a revision with its title, every acknowledged event id is in
      the export, through URL. {"writes": n, "writes_missing": [...], "events": n, "events_missing": n}
"""
import argparse
import http.client
import json
import statistics
import sys
import threading
import time
import uuid
from datetime import datetime, timezone
from urllib.parse import urlsplit


class Client:
    """One keep-alive connection to one replica."""

    def __init__(self, base, token=None, timeout=20):
        parts = urlsplit(base)
        self.base = base
        self.host, self.port = parts.hostname, parts.port
        self.token = token
        self.timeout = timeout
        self.connection = None

    def request(self, method, path, body=None, headers=None):
        """Returns (status, headers as a dict with lower-case names, body bytes); reconnects once
        when a kept-alive connection turns out closed."""
        all_headers = dict(headers or {})
        if self.token:
            all_headers["Authorization"] = f"Bearer {self.token}"
        if body is not None and not isinstance(body, bytes):
            body = json.dumps(body).encode()
            all_headers.setdefault("Content-Type", "application/json")
        for attempt in (1, 2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            try:
                self.connection.request(method, path, body=body, headers=all_headers)
                response = self.connection.getresponse()
                payload = response.read()
                return response.status, {k.lower(): v for k, v in response.getheaders()}, payload
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                self.close()
                if attempt == 2 or method not in ("GET", "HEAD"):
                    raise

    def close(self):
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def json(self, path):
        status, _, payload = self.request("GET", path)
        if status != 200:
            raise RuntimeError(f"GET {self.base}{path} answered {status}: {payload[:200]!r}")
        return json.loads(payload)


def french_strings(client, template):
    """(revision, French strings) of the template, from the admin API."""
    document = client.json(f"/v1/admin/templates/{template}")
    return document["revision"], document["template"]["strings"]["fr"]


def put_title(client, template, revision, strings, title):
    return client.request("PUT", f"/v1/admin/templates/{template}/strings/fr", body=dict(strings, title=title),
                          headers={"If-Match": f'"r{revision}"'})


def client_path(template):
    return f"/v1/templates/{template}?locale=fr&platform=ios"


def now_text():
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def events_batch(ids, template, revision):
    return {"events": [{"id": i, "type": "displayed", "templateId": template, "revision": revision, "locale": "fr",
                        "platform": "ios", "appVersion": "5.2.0", "occurredAt": now_text()} for i in ids]}


def export_ids(client):
    """Every stored event id with how many times it is stored, through the NDJSON export."""
    counts, after = {}, 0
    while True:
        status, headers, payload = client.request("GET", f"/v1/admin/analytics/events?after={after}&limit=10000")
        if status != 200:
            raise RuntimeError(f"export answered {status}: {payload[:200]!r}")
        lines = [line for line in payload.decode().splitlines() if line.strip()]
        if not lines:
            return counts
        for line in lines:
            event_id = json.loads(line)["id"]
            counts[event_id] = counts.get(event_id, 0) + 1
        after = headers.get("x-next-cursor") or json.loads(lines[-1])["cursor"]


# --- subcommands -----------------------------------------------------------------------------------

def publish(args):
    writer = Client(args.writer, args.token)
    readers = [Client(url) for url in args.readers.split(",")]
    revision, strings = french_strings(writer, args.template)
    waits, missed, etags_differ = [], 0, 0
    for n in range(args.samples):
        title = f"Publié {uuid.uuid4().hex[:8]} #{n}"
        status, _, payload = put_title(writer, args.template, revision, strings, title)
        if status != 200:
            raise RuntimeError(f"publish answered {status}: {payload[:200]!r}")
        acknowledged = time.perf_counter()
        revision = json.loads(payload)["revision"]
        etags, slowest = set(), 0.0
        for reader in readers:
            while True:
                status, headers, body = reader.request("GET", client_path(args.template))
                if status == 200 and json.loads(body)["title"] == title:
                    slowest = max(slowest, time.perf_counter() - acknowledged)
                    etags.add(headers.get("etag"))
                    break
                if time.perf_counter() - acknowledged > args.deadline:
                    missed += 1
                    break
        waits.append(round(slowest * 1000, 3))
        etags_differ += len(etags) > 1
    print(json.dumps({"ms": waits, "missed": missed, "etags_differ": etags_differ,
                      "p50": round(statistics.median(waits), 3), "max": max(waits)}))


def race(args):
    urls = args.urls.split(",")
    rounds = []
    reader = Client(urls[0], args.token)
    for round_number in range(args.rounds):
        revision, strings = french_strings(reader, args.template)
        writers = [Client(url, args.token) for url in urls for _ in range(args.per_replica)]
        for writer in writers:  # connected before the barrier, so the PUTs leave together
            writer.request("GET", "/healthz")
        barrier = threading.Barrier(len(writers))
        statuses = [None] * len(writers)

        def write(index):
            barrier.wait()
            try:
                statuses[index] = put_title(writers[index], args.template, revision, strings,
                                            f"Course {round_number} écrivain {index}")[0]
            except OSError as error:
                statuses[index] = f"{type(error).__name__}"

        threads = [threading.Thread(target=write, args=(i,)) for i in range(len(writers))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        counts = {}
        for status in statuses:
            counts[str(status)] = counts.get(str(status), 0) + 1
        rounds.append(counts)
        for writer in writers:
            writer.close()
    print(json.dumps({"rounds": rounds}))


def dedupe(args):
    urls = args.urls.split(",")
    clients = [Client(url, args.token) for url in urls]
    revision = clients[0].json(f"/v1/admin/templates/{args.template}")["revision"]
    ids = [str(uuid.uuid4()) for _ in range(args.events)]
    body = json.dumps(events_batch(ids, args.template, revision)).encode()
    headers = {"Content-Type": "application/json"}
    for client in clients[:2]:
        client.request("GET", "/healthz")
    barrier = threading.Barrier(2)
    first = [None, None]

    def post(index):
        barrier.wait()
        status, _, payload = clients[index].request("POST", "/v1/events", body=body, headers=headers)
        first[index] = {"status": status, **(json.loads(payload) if status == 202 else {"body": payload[:200].decode()})}

    threads = [threading.Thread(target=post, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    status, _, payload = clients[2].request("POST", "/v1/events", body=body, headers=headers)
    again = {"status": status, **(json.loads(payload) if status == 202 else {})}
    stored = export_ids(clients[2])
    print(json.dumps({"first": first, "again": again, "stored": {i: stored.get(i, 0) for i in ids}}))


def readers(args):
    import os
    clients = [Client(url, timeout=5) for url in args.urls.split(",")]
    ok, failed, samples = 0, 0, []
    while not os.path.exists(args.stop_file):
        for client in clients:
            try:
                status, _, body = client.request("GET", client_path(args.template))
                good = status == 200 and b'"title"' in body
            except OSError as error:
                status, good = f"{type(error).__name__}: {error}", False
                client.close()
            if good:
                ok += 1
            else:
                failed += 1
                if len(samples) < 5:
                    samples.append(f"{client.base}: {status}")
        time.sleep(0.005)
    print(json.dumps({"ok": ok, "failed": failed, "samples": samples}))


def stream(args):
    deadline = time.monotonic() + args.seconds
    writes, batches, ended = [0], [0], []
    lock = threading.Lock()
    writes_file = open(args.acked_writes, "a", buffering=1)
    events_file = open(args.acked_events, "a", buffering=1)

    def writer():
        client = Client(args.url, args.token, timeout=10)
        try:
            revision, strings = french_strings(client, args.template)
            n = 0
            while time.monotonic() < deadline:
                n += 1
                title = f"Flux {uuid.uuid4().hex[:8]} #{n}"
                status, _, payload = put_title(client, args.template, revision, strings, title)
                if status != 200:
                    raise RuntimeError(f"write answered {status}: {payload[:200]!r}")
                revision = json.loads(payload)["revision"]
                with lock:
                    writes_file.write(f"{revision}\t{title}\n")
                writes[0] += 1
            ended.append("writer: deadline")
        except (OSError, http.client.HTTPException) as error:
            ended.append(f"writer: {type(error).__name__}")
        except RuntimeError as error:
            ended.append(f"writer: {error}")

    def poster(number):
        client = Client(args.url, args.token, timeout=10)
        try:
            revision = client.json(f"/v1/admin/templates/{args.template}")["revision"]
            while time.monotonic() < deadline:
                ids = [str(uuid.uuid4()) for _ in range(20)]
                status, _, payload = client.request("POST", "/v1/events",
                                                    body=events_batch(ids, args.template, revision))
                if status != 202 or json.loads(payload)["accepted"] != len(ids):
                    raise RuntimeError(f"events answered {status}: {payload[:200]!r}")
                with lock:
                    events_file.write("".join(f"{i}\n" for i in ids))
                batches[0] += 1
            ended.append(f"poster {number}: deadline")
        except (OSError, http.client.HTTPException) as error:
            ended.append(f"poster {number}: {type(error).__name__}")
        except RuntimeError as error:
            ended.append(f"poster {number}: {error}")

    threads = [threading.Thread(target=writer)] + [threading.Thread(target=poster, args=(i,)) for i in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(json.dumps({"writes": writes[0], "batches": batches[0], "ended": "; ".join(ended)}))


def verify(args):
    client = Client(args.url, args.token)
    writes_missing = []
    with open(args.acked_writes) as f:
        acked_writes = [line.rstrip("\n").split("\t", 1) for line in f if line.strip()]
    for revision, title in acked_writes:
        status, _, payload = client.request("GET", f"/v1/admin/templates/{args.template}/revisions/{revision}")
        stored = json.loads(payload)["template"]["strings"]["fr"]["title"] if status == 200 else f"status {status}"
        if stored != title:
            writes_missing.append(f"r{revision}: {stored!r} instead of {title!r}")
    with open(args.acked_events) as f:
        acked_events = [line.strip() for line in f if line.strip()]
    stored = export_ids(client)
    missing = [i for i in acked_events if stored.get(i, 0) != 1]
    print(json.dumps({"writes": len(acked_writes), "writes_missing": writes_missing[:5],
                      "events": len(acked_events), "events_missing": len(missing), "events_sample": missing[:3]}))


def atomic(args):
    """Change requests changing the French titles of several templates, each published on the
    writer while threads read the whole French bundle from every reader replica without pause:
    a bundle holding some of a request's titles and not all is a torn publication. Prints the
    reads, the torn ones and the publications some reader never served within the deadline."""
    writer = Client(args.writer, args.token)
    templates = args.templates.split(",")
    torn, reads, missed, waits = [], [0], 0, []
    for n in range(args.rounds):
        marker = f"Atomique {uuid.uuid4().hex[:8]} #{n}"
        changes = []
        for template in templates:
            document = writer.json(f"/v1/admin/templates/{template}")
            strings = dict(document["template"]["strings"]["fr"], title=f"{marker} {template}")
            changes.append({"kind": "templateStrings", "id": template, "locale": "fr", "strings": strings,
                            "baseRevision": document["revision"]})
        status, headers, payload = writer.request("POST", "/v1/admin/change-requests",
                                                  body={"title": marker, "changes": changes})
        if status != 201:
            raise RuntimeError(f"opening a change request answered {status}: {payload[:200]!r}")
        request = json.loads(payload)
        done = threading.Event()
        served = {url: None for url in args.readers.split(",")}
        lock = threading.Lock()

        def read(url):
            client = Client(url)
            while not done.is_set():
                status, _, body = client.request("GET", "/v1/templates?locale=fr&platform=ios")
                if status != 200:
                    continue
                titles = {t["id"]: t["title"] for t in json.loads(body)["templates"] if t["id"] in templates}
                new = sum(1 for title in titles.values() if title.startswith(marker))
                with lock:
                    reads[0] += 1
                    if 0 < new < len(templates):
                        torn.append({"replica": url, "round": n, "new": new})
                    if new == len(templates) and served[url] is None:
                        served[url] = time.perf_counter()
            client.close()

        threads = [threading.Thread(target=read, args=(url,)) for url in served]
        for thread in threads:
            thread.start()
        time.sleep(0.05)
        status, _, payload = writer.request("POST", f"/v1/admin/change-requests/{request['id']}/publish",
                                            headers={"If-Match": headers["etag"]})
        acknowledged = time.perf_counter()
        if status != 200:
            done.set()
            raise RuntimeError(f"publishing answered {status}: {payload[:200]!r}")
        while time.perf_counter() - acknowledged < args.deadline:
            with lock:
                if all(served.values()):
                    break
            time.sleep(0.01)
        time.sleep(0.05)  # a few more reads after every replica served it
        done.set()
        for thread in threads:
            thread.join()
        missed += sum(1 for at in served.values() if at is None)
        waits += [round(max(0.0, at - acknowledged) * 1000, 3) for at in served.values() if at is not None]
    print(json.dumps({"rounds": args.rounds, "reads": reads[0], "torn": torn, "missed": missed,
                      "p50": round(statistics.median(waits), 3) if waits else None}))

def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("publish")
    p.add_argument("--writer", required=True)
    p.add_argument("--readers", required=True)
    p.add_argument("--samples", type=int, default=20)
    p.add_argument("--deadline", type=float, default=5.0)
    p = commands.add_parser("race")
    p.add_argument("--urls", required=True)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--per-replica", type=int, default=2)
    p = commands.add_parser("dedupe")
    p.add_argument("--urls", required=True)
    p.add_argument("--events", type=int, default=50)
    p = commands.add_parser("readers")
    p.add_argument("--urls", required=True)
    p.add_argument("--stop-file", required=True)
    p = commands.add_parser("stream")
    p.add_argument("--url", required=True)
    p.add_argument("--acked-writes", required=True)
    p.add_argument("--acked-events", required=True)
    p.add_argument("--seconds", type=float, default=30)
    p = commands.add_parser("atomic")
    p.add_argument("--writer", required=True)
    p.add_argument("--readers", required=True)
    p.add_argument("--templates", default="noDocuments,noFavorites,noSearchResults")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--deadline", type=float, default=5.0)
    p = commands.add_parser("verify")
    p.add_argument("--url", required=True)
    p.add_argument("--acked-writes", required=True)
    p.add_argument("--acked-events", required=True)
    for sub in commands.choices.values():
        sub.add_argument("--token")
        sub.add_argument("--template", default="noDocuments")
    args = parser.parse_args()
    {"publish": publish, "race": race, "dedupe": dedupe, "readers": readers, "stream": stream,
     "verify": verify, "atomic": atomic}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())

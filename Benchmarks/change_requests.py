#!/usr/bin/env python3
"""Change requests: their half of `make bench` (issue 34).

Against a release build on SQLite, started here at its defaults with an admin token:
  1. Reads with open change requests: two servers side by side, one holding no change request,
     the other OPEN_REQUESTS (default 100) open ones (each proposing a whole template and a
     locale's strings); `GET /v1/templates/{id}` (French, iOS) measured with wrk on each in
     turn, ROUNDS times (default 3) alternated, so both see the same machine. Goal: the server
     with open requests serves at least 0.97× the requests per second of the other (medians).
  2. Publication of a PUBLISH_TEMPLATES-template request (default 20; templates beyond the
     built-ins are created first): PUBLISHES requests (default 30), each opened with a French
     title change of every template and published; the publication's latency (the POST …/publish
     round trip, which includes the one transaction and the snapshot swap) at p50 and p99.
Prints a markdown table and appends it to Benchmarks/results/latest.md.

Usage: change_requests.py SERVER_BINARY REPO_ROOT
Environment: OPEN_REQUESTS, ROUNDS, WRK_DURATION (default "5s"), PUBLISH_TEMPLATES, PUBLISHES.
"""
import copy
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import benchlib
from benchlib import percentile

BIN, ROOT = sys.argv[1], sys.argv[2]
OPEN_REQUESTS = int(os.environ.get("OPEN_REQUESTS", "100"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
DURATION = os.environ.get("WRK_DURATION", "5s")
PUBLISH_TEMPLATES = int(os.environ.get("PUBLISH_TEMPLATES", "20"))
PUBLISHES = int(os.environ.get("PUBLISHES", "30"))
TOKEN = "bench-admin-secret-0123456789"
READ_PATH = "/v1/templates/noDocuments?locale=fr&platform=ios"
GOAL = 0.97


def log(message):
    print(f"[change-requests] {message}", file=sys.stderr, flush=True)


class Server:
    """A release build on a data directory of its own, with an admin token."""

    def __init__(self, data_dir):
        os.makedirs(data_dir, exist_ok=True)
        self.log_path = os.path.join(data_dir, "server.log")
        self.process = subprocess.Popen(
            [BIN, "--host", "127.0.0.1", "--port", "0", "--data-dir", data_dir, "--config-dir",
             os.path.join(ROOT, "config"), "--admin-token", f"bench:admin:{TOKEN}"],
            stderr=open(self.log_path, "w"))
        started = time.perf_counter()
        while True:
            with open(self.log_path, errors="replace") as f:
                text = f.read()
            if "http.port=" in text:
                self.port = int(text.split("http.port=", 1)[1].split()[0])
                break
            if self.process.poll() is not None or time.perf_counter() - started > 300:
                sys.exit(f"the server did not start; its log:\n{text[-3000:]}")
            time.sleep(0.05)
        self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)

    def request(self, method, path, body=None, headers=None):
        all_headers = {"Authorization": f"Bearer {TOKEN}", **(headers or {})}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            all_headers["Content-Type"] = "application/json"
        self.connection.request(method, path, body=data, headers=all_headers)
        response = self.connection.getresponse()
        payload = response.read()
        return response.status, response.getheader("ETag"), payload

    def json(self, method, path, body=None, headers=None, expect=200):
        status, etag, payload = self.request(method, path, body, headers)
        if status != expect:
            sys.exit(f"{method} {path} answered {status}: {payload[:300]!r}")
        return etag, json.loads(payload)

    def stop(self):
        self.connection.close()
        self.process.terminate()
        self.process.wait(timeout=30)


def live_template(server, template_id):
    _, document = server.json("GET", f"/v1/admin/templates/{template_id}")
    return document["template"]


def open_requests(server, count):
    """`count` open requests, each proposing a whole template and one locale's strings."""
    ids = [item["id"] for item in server.json("GET", "/v1/admin/templates?pageSize=200")[1]["items"]]
    for n in range(count):
        template = live_template(server, ids[n % len(ids)])
        changed = copy.deepcopy(template)
        changed["strings"]["en"]["title"] = f"Proposal {n}"
        other = ids[(n + 1) % len(ids)]
        strings = dict(live_template(server, other)["strings"]["en"], title=f"Proposed title {n}")
        server.json("POST", "/v1/admin/change-requests", {
            "title": f"Proposal {n}",
            "changes": [{"kind": "template", "id": template["id"], "document": changed},
                        {"kind": "templateStrings", "id": other, "locale": "en", "strings": strings}],
        }, expect=201)


def ensure_templates(server, count):
    """At least `count` live templates: copies of noDocuments under new ids."""
    ids = [item["id"] for item in server.json("GET", "/v1/admin/templates?pageSize=200")[1]["items"]]
    model = live_template(server, "noDocuments")
    n = 0
    while len(ids) < count:
        copy_id = f"benchCopy{n}"
        n += 1
        document = copy.deepcopy(model)
        document["id"] = copy_id
        document.pop("aliases", None)
        server.json("PUT", f"/v1/admin/templates/{copy_id}", document, {"If-None-Match": "*"}, expect=201)
        ids.append(copy_id)
    return ids[:count]


def publish_latencies(server, template_ids, publishes):
    latencies = []
    for n in range(publishes):
        changes = []
        for template_id in template_ids:
            _, document = server.json("GET", f"/v1/admin/templates/{template_id}")
            strings = dict(document["template"]["strings"]["fr"], title=f"Publication {n} {template_id}")
            changes.append({"kind": "templateStrings", "id": template_id, "locale": "fr", "strings": strings,
                            "baseRevision": document["revision"]})
        etag, request = server.json("POST", "/v1/admin/change-requests", {"title": f"Bench {n}", "changes": changes},
                                    expect=201)
        started = time.perf_counter()
        server.json("POST", f"/v1/admin/change-requests/{request['id']}/publish", headers={"If-Match": etag})
        latencies.append(time.perf_counter() - started)
    return latencies


def main():
    work = tempfile.mkdtemp(prefix="bench-change-requests-")
    plain = Server(os.path.join(work, "plain"))
    busy = Server(os.path.join(work, "busy"))
    try:
        log(f"opening {OPEN_REQUESTS} change requests on the second server")
        open_requests(busy, OPEN_REQUESTS)
        rates = {"plain": [], "busy": []}
        for round_number in range(ROUNDS):
            for name, server in (("plain", plain), ("busy", busy)):
                rate, errors = benchlib.wrk(f"http://127.0.0.1:{server.port}{READ_PATH}", DURATION)
                if errors:
                    sys.exit(f"wrk on the {name} server: {errors}")
                rates[name].append(rate)
                log(f"round {round_number + 1}: {name} {rate:.0f} req/s")
        plain_rate, busy_rate = statistics.median(rates["plain"]), statistics.median(rates["busy"])
        ratio = busy_rate / plain_rate
        log(f"publishing {PUBLISHES} requests of {PUBLISH_TEMPLATES} templates")
        templates = ensure_templates(plain, PUBLISH_TEMPLATES)
        latencies = publish_latencies(plain, templates, PUBLISHES)
    finally:
        plain.stop()
        busy.stop()
    benchlib.report(ROOT, [
        "### Change requests (SQLite)",
        "",
        "| measure | value | goal |",
        "| --- | --- | --- |",
        f"| `GET {READ_PATH}`, no change request (median of {ROUNDS}) | {plain_rate:.0f} req/s | |",
        f"| the same with {OPEN_REQUESTS} open change requests | {busy_rate:.0f} req/s ({ratio:.3f}×) | ≥ {GOAL}× {'✅' if ratio >= GOAL else '❌'} |",
        f"| publish a {PUBLISH_TEMPLATES}-template request, p50 ({PUBLISHES} publications) | {percentile(latencies, 0.5) * 1000:.1f} ms | |",
        f"| publish a {PUBLISH_TEMPLATES}-template request, p99 | {percentile(latencies, 0.99) * 1000:.1f} ms | |",
    ])
    return 0 if ratio >= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Signed webhooks against the real binary, with real receivers: small HTTP servers on loopback
that verify every delivery with the `standardwebhooks` package from PyPI (the Standard Webhooks
reference library), as an integrator's receiver would.

  python3 webhooks.py --binary PATH --root REPO [--database-url URL]

Starts its own servers (one that allows loopback receivers, one that does not), each with a
scratch data directory (or the PostgreSQL at --database-url), and checks:
  - the subscriptions API: create (the secret shown once), read, list, change with If-Match,
    422 naming the field for a bad URL or event, rotate, delete;
  - the SSRF guard: loopback and private addresses refused without the operator's permission,
    at save time (a literal) and at delivery (a name that resolves to loopback);
  - deliveries: every event type that exists (appPolicy.published, experiment.started, .stopped,
    .shipped) and the ping, each verified by `standardwebhooks.Webhook.verify`;
  - retries: a receiver that answers 500 gets the same message again (same webhook-id) ~5 s later;
  - a receiver that hangs does not delay a publish, nor another receiver's delivery;
  - a redirect is not followed (its target never hears of it) and is logged as such;
  - the delivery log, a redelivery (same webhook-id), a rotated secret (old and new both verify
    during the overlap);
  - kill -9 between commit and delivery: a delivery queued and not yet attempted when the process
    is killed is delivered after the restart;
  - with --database-url: three replicas on it, each with its dispatcher, deliver every event once;
  - /metrics counts the attempts.
Prints "ok …" / "FAIL …" per check and "N passed, M failed"; exits 1 on any failure.
"""
import argparse
import http.client
import http.server
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from urllib.parse import urlsplit

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

PASSED = 0
FAILED = 0


def check(name, condition, detail=""):
    global PASSED, FAILED
    if condition:
        PASSED += 1
        print(f"ok    {name}")
    else:
        FAILED += 1
        print(f"FAIL  {name}{' — ' + str(detail) if detail else ''}")
    sys.stdout.flush()


# --- Receivers -------------------------------------------------------------------------------


class Receiver:
    """An HTTP server on 127.0.0.1:0 whose answer to each POST is decided by `behaviour`
    (a function of the request's number, from 1: returns (status, headers) or "hang").
    Every delivery is verified against `secrets` (any one verifying is enough: a rotation)."""

    def __init__(self, name, behaviour=None):
        self.name = name
        self.behaviour = behaviour or (lambda n: (200, {}))
        self.secrets = []
        self.received = []  # dicts: id, timestamp, signature, body, verified, payload, at
        self.lock = threading.Lock()
        self.release = threading.Event()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                headers = {k.lower(): v for k, v in self.headers.items()}
                verified_by = None
                for index, secret in enumerate(receiver.secrets):
                    try:
                        payload = Webhook(secret).verify(body, headers)
                        verified_by = index
                        break
                    except WebhookVerificationError:
                        continue
                with receiver.lock:
                    receiver.received.append(
                        {
                            "id": headers.get("webhook-id"),
                            "timestamp": headers.get("webhook-timestamp"),
                            "signature": headers.get("webhook-signature"),
                            "body": body,
                            "verified_by": verified_by,
                            "payload": json.loads(body) if body else None,
                            "at": time.monotonic(),
                        }
                    )
                    number = len(receiver.received)
                answer = receiver.behaviour(number)
                if answer == "hang":
                    receiver.release.wait(120)
                    return
                status, extra = answer
                self.send_response(status)
                for name, value in extra.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path="/hook"):
        return f"http://127.0.0.1:{self.port}{path}"

    def messages(self, event_type=None):
        with self.lock:
            return [r for r in self.received if event_type is None or (r["payload"] or {}).get("type") == event_type]

    def wait_for(self, predicate, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with self.lock:
                if predicate(list(self.received)):
                    return True
            time.sleep(0.05)
        return False

    def stop(self):
        self.release.set()
        self.server.shutdown()


# --- The service -----------------------------------------------------------------------------


class Server:
    def __init__(self, binary, root, data_dir, flags, database_url=None):
        self.binary, self.root, self.data_dir, self.flags = binary, root, data_dir, flags
        self.database_url = database_url
        self.process = None
        self.log_path = os.path.join(data_dir, "server.log")
        self.token = "ops:editor:webhook-test-token-0123456789"

    def start(self):
        os.makedirs(self.data_dir, exist_ok=True)
        log = open(self.log_path, "a")
        command = [
            self.binary, "--host", "127.0.0.1", "--port", "0", "--config-dir", os.path.join(self.root, "config"),
            "--openapi-path", os.path.join(self.root, "openapi.yaml"), "--data-dir", self.data_dir,
            "--log-level", "info", "--admin-token", self.token,
        ] + self.flags
        environment = dict(os.environ)
        if self.database_url:
            environment["EMPTY_STATE_DATABASE_URL"] = self.database_url
        offset = os.path.getsize(self.log_path)
        self.process = subprocess.Popen(command, stderr=log, stdout=subprocess.DEVNULL, env=environment)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with open(self.log_path) as f:
                f.seek(offset)
                match = re.search(r"http\.port=(\d+)", f.read())
            if match:
                self.port = int(match.group(1))
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        raise RuntimeError(f"the server did not start; see {self.log_path}")

    def kill9(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.kill9()

    def request(self, method, path, body=None, headers=None, timeout=30):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        all_headers = {"Authorization": "Bearer " + self.token.split(":", 2)[2]}
        all_headers.update(headers or {})
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            all_headers["Content-Type"] = "application/json"
        connection.request(method, path, body=data, headers=all_headers)
        response = connection.getresponse()
        payload = response.read()
        connection.close()
        parsed = None
        if payload and response.getheader("Content-Type", "").find("json") >= 0:
            parsed = json.loads(payload)
        return response.status, {k.lower(): v for k, v in response.getheaders()}, parsed

    def create_webhook(self, url, events, description=""):
        return self.request("POST", "/v1/admin/webhooks", {"url": url, "events": events, "description": description})

    def put_policy(self, platform, minimum):
        status, headers, _ = self.request("GET", f"/v1/admin/app-policies/{platform}")
        precondition = {"If-Match": headers["etag"]} if status == 200 else {"If-None-Match": "*"}
        policy = {
            "minimumVersion": minimum, "latestVersion": "9.0", "storeUrl": "https://apps.apple.com/app/id1",
        }
        started = time.monotonic()
        result = self.request("PUT", f"/v1/admin/app-policies/{platform}", policy, precondition)
        return result, time.monotonic() - started

    def deliveries(self, webhook_id):
        status, _, body = self.request("GET", f"/v1/admin/webhooks/{webhook_id}/deliveries")
        return body["items"] if status == 200 else []

    def wait_delivery(self, webhook_id, predicate, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            items = self.deliveries(webhook_id)
            if any(predicate(item) for item in items):
                return items
            time.sleep(0.1)
        return self.deliveries(webhook_id)


# --- Scenarios -------------------------------------------------------------------------------


def guard_without_permission(server):
    """A server without --webhook-allow-*: loopback and private receivers are refused."""
    for url, why in [
        ("http://127.0.0.1:9/hook", "plain http to loopback"),
        ("https://127.0.0.1/hook", "a loopback literal"),
        ("https://10.1.2.3/hook", "a private address"),
        ("https://[::1]/hook", "IPv6 loopback"),
        ("https://169.254.169.254/latest/meta-data", "the metadata service"),
        ("https://100.64.0.1/hook", "CGNAT"),
        ("http://hooks.example.com/hook", "plain http to a public name"),
        ("ftp://hooks.example.com/hook", "not http(s)"),
    ]:
        status, _, body = server.create_webhook(url, ["appPolicy.published"])
        pointers = [e.get("pointer") for e in (body or {}).get("errors", [])]
        check(f"guard: {why} is refused (422 at /url)", status == 422 and "/url" in pointers, (status, body))
    status, _, body = server.create_webhook("https://hooks.example.com/x", ["appPolicy.published", "nope.happened"])
    pointers = [e.get("pointer") for e in (body or {}).get("errors", [])]
    check("subscription: an unknown event is 422 at /events/1", status == 422 and "/events/1" in pointers, body)
    # A name is judged by what it resolves to, at every delivery (DNS rebinding).
    status, _, created = server.create_webhook("https://localhost:9/hook", ["appPolicy.published"])
    check("guard: a name is accepted when saved (judged at delivery)", status == 201, (status, created))
    if status != 201:
        return
    server.put_policy("android", "1.0")
    items = server.wait_delivery(created["id"], lambda d: d["attempts"], 10)
    errors = [a.get("error") or "" for d in items for a in d["attempts"]]
    check(
        "guard: a name resolving to loopback is refused at delivery, and logged",
        any("refused" in e and "loopback" in e for e in errors),
        errors,
    )


def scenarios(server, receivers):
    good, flaky, hanging, redirecting, target = receivers
    events = ["appPolicy.published", "experiment.started", "experiment.stopped", "experiment.shipped"]

    # Subscriptions API.
    status, headers, created = server.create_webhook(good.url(), events, "release bot")
    check("create: 201", status == 201, (status, created))
    check("create: the secret is whsec_ and shown", (created or {}).get("secret", "").startswith("whsec_"), created)
    check("create: ETag r1 and Location", headers.get("etag") == '"r1"' and headers.get("location", "").endswith(created["id"]))
    good.secrets.append(created["secret"])
    good_id = created["id"]
    status, headers, read = server.request("GET", f"/v1/admin/webhooks/{good_id}")
    check("read: 200 without the secret", status == 200 and "secret" not in read, read)
    status, _, listed = server.request("GET", "/v1/admin/webhooks")
    check("list: has it with its health", status == 200 and any(w["id"] == good_id and "health" in w for w in listed["items"]), listed)
    status, _, body = server.request("PUT", f"/v1/admin/webhooks/{good_id}", {"url": good.url(), "events": events})
    check("change: without If-Match is 428", status == 428, status)
    status, _, body = server.request(
        "PUT", f"/v1/admin/webhooks/{good_id}", {"url": good.url(), "events": events, "description": "x"}, {"If-Match": '"r7"'}
    )
    check("change: a stale If-Match is 412", status == 412, status)
    status, headers, body = server.request(
        "PUT", f"/v1/admin/webhooks/{good_id}", {"url": good.url(), "events": events, "description": "release bot, v2"},
        {"If-Match": '"r1"'},
    )
    check("change: 200 at r2", status == 200 and body["revision"] == 2 and "secret" not in body, body)
    status, _, body = server.request("GET", "/v1/admin/webhooks/wh_00000000000000000000")
    check("read: an unknown webhook is 404 unknown-webhook", status == 404 and body["type"].endswith("unknown-webhook"), body)

    others = {}
    for name, receiver in [("flaky", flaky), ("hanging", hanging), ("redirecting", redirecting)]:
        status, _, made = server.create_webhook(receiver.url(), ["appPolicy.published"], name)
        check(f"create: the {name} receiver", status == 201, made)
        receiver.secrets.append(made["secret"])
        others[name] = made["id"]

    # A publish: every receiver is sent it; the hanging one delays neither the publish nor the others.
    (status, _, _), seconds = server.put_policy("ios", "1.0")
    check("publish: a policy publish answers while a receiver hangs", status in (200, 201) and seconds < 2, (status, seconds))
    check("delivery: the good receiver gets appPolicy.published", good.wait_for(lambda r: any((m["payload"] or {}).get("type") == "appPolicy.published" for m in r), 10))
    check("delivery: the hanging receiver was sent it too", hanging.wait_for(lambda r: len(r) >= 1, 10))
    (status, _, _), seconds = server.put_policy("ios", "1.1")
    check("publish: a second publish is not delayed by the hanging receiver", status == 200 and seconds < 2, (status, seconds))
    check("delivery: the good receiver gets the second one too", good.wait_for(lambda r: len([m for m in r if (m["payload"] or {}).get("type") == "appPolicy.published"]) >= 2, 10))
    published = good.messages("appPolicy.published")
    check("signature: every delivery verifies with standardwebhooks", published and all(m["verified_by"] == 0 for m in published), [m["verified_by"] for m in published])
    first = published[0]["payload"]
    check(
        "payload: type, timestamp, data (platform, revision, action, actor)",
        first["type"] == "appPolicy.published" and re.match(r"\d{4}-\d\d-\d\dT", first["timestamp"])
        and first["data"]["platform"] == "ios" and first["data"]["revision"] == 1 and first["data"]["action"] == "create"
        and first["data"]["actor"] == "ops",
        first,
    )
    check("headers: webhook-id is msg_…", all(m["id"].startswith("msg_") for m in published))

    # Retries: the flaky receiver answered 500 to its first request; that message comes again.
    def repeated(records):
        ids = [m["id"] for m in records]
        return [i for i in dict.fromkeys(ids) if ids.count(i) >= 2]

    check("retry: the flaky receiver is sent the message again after its 500", flaky.wait_for(lambda r: repeated(r), 15), len(flaky.received))
    again = repeated(flaky.messages())
    if again:
        a, b = [m for m in flaky.messages() if m["id"] == again[0]][:2]
        check("retry: the same webhook-id and body", a["id"] == b["id"] and a["body"] == b["body"])
        check("retry: about 5 s later (the schedule's first wait)", 4.0 <= b["at"] - a["at"] <= 8.0, b["at"] - a["at"])
        check("retry: both verify", a["verified_by"] == 0 and b["verified_by"] == 0)
    items = server.wait_delivery(others["flaky"], lambda d: d["status"] == "succeeded" and d["attemptCount"] == 2, 10)
    attempts = [a for d in items for a in d["attempts"] if d["attemptCount"] == 2]
    check("log: the flaky delivery shows 500 then 200", [a.get("statusCode") for a in attempts] == [500, 200], items)
    check("log: the 500 is logged as an error", (attempts[:1] or [{}])[0].get("error") == "HTTP 500", attempts)
    check("log: attempts have a latency and an address", attempts and all("latencyMs" in a and a.get("address", "").startswith("127.0.0.1:") for a in attempts), attempts)

    # Redirects are not followed.
    items = server.wait_delivery(others["redirecting"], lambda d: d["attempts"], 10)
    errors = [a.get("error") or "" for d in items for a in d["attempts"]]
    check("redirect: logged as a redirect not followed", any("not followed" in e for e in errors), errors)
    check("redirect: the delivery stays pending for a retry", any(d["status"] == "pending" and d.get("nextAttemptAt") for d in items), items)
    time.sleep(0.5)
    check("redirect: its target was never sent anything", len(target.received) == 0, len(target.received))

    # Experiments: started, stopped, shipped.
    experiment = {
        "id": "webhook-copy", "templateId": "connectionRefused", "status": "draft", "coverage": 1,
        "primaryMetric": {"type": "tap", "action": "retry"},
        "variants": [
            {"key": "control", "weight": 0.5},
            {"key": "reconnect", "weight": 0.5, "strings": {"en": {"actions.retry": "Reconnect", "title": "No connection"}}},
        ],
    }
    status, headers, _ = server.request("PUT", "/v1/admin/experiments/webhook-copy", experiment, {"If-None-Match": "*"})
    experiment["status"] = "running"
    status, headers, _ = server.request("PUT", "/v1/admin/experiments/webhook-copy", experiment, {"If-Match": headers.get("etag", "")})
    check("experiment: started", status == 200, status)
    experiment["status"] = "stopped"
    status, headers, _ = server.request("PUT", "/v1/admin/experiments/webhook-copy", experiment, {"If-Match": headers.get("etag", "")})
    check("experiment: stopped", status == 200, status)
    status, _, body = server.request(
        "POST", "/v1/admin/experiments/webhook-copy/ship", {"variant": "reconnect"}, {"If-Match": headers.get("etag", "")}
    )
    check("experiment: shipped", status == 200, (status, body))
    for kind in ("experiment.started", "experiment.stopped", "experiment.shipped"):
        check(f"delivery: {kind}", good.wait_for(lambda r, k=kind: any((m["payload"] or {}).get("type") == k for m in r), 10))
    shipped = good.messages("experiment.shipped")
    if shipped:
        data = shipped[0]["payload"]["data"]
        check("payload: experiment.shipped names the experiment and variant", data.get("experimentId") == "webhook-copy" and data.get("variant") == "reconnect", data)
    check("delivery: unsubscribed receivers get no experiment events", not flaky.messages("experiment.started"))

    # Ping, redelivery.
    status, _, ping = server.request("POST", f"/v1/admin/webhooks/{good_id}/ping")
    check("ping: 202 with the queued delivery", status == 202 and ping["eventType"] == "webhook.test", ping)
    check("ping: received and verified", good.wait_for(lambda r: any((m["payload"] or {}).get("type") == "webhook.test" and m["verified_by"] == 0 for m in r), 10))
    items = server.deliveries(good_id)
    done = next((d for d in items if d["status"] == "succeeded" and d["eventType"] == "appPolicy.published"), None)
    if done:
        status, _, one = server.request("GET", f"/v1/admin/webhooks/{good_id}/deliveries/{done['id']}")
        check("log: one delivery with its payload", status == 200 and one["payload"]["type"] == "appPolicy.published", one)
        count = len(good.messages())
        status, _, again = server.request("POST", f"/v1/admin/webhooks/{good_id}/deliveries/{done['id']}/redeliver")
        check("redeliver: 202, a new delivery of the same message", status == 202 and again["redeliveryOf"] == done["id"] and again["messageId"] == done["messageId"], again)
        check("redeliver: received with the same webhook-id", good.wait_for(lambda r: len(r) > count and r[-1]["id"] == done["messageId"], 10))
    status, _, body = server.request("GET", f"/v1/admin/webhooks/{good_id}/deliveries/dlv_000000000000000000000000")
    check("log: an unknown delivery is 404 unknown-delivery", status == 404 and body["type"].endswith("unknown-delivery"), body)
    status, _, body = server.request("GET", f"/v1/admin/webhooks/{good_id}/deliveries?status=bogus")
    check("log: a bad status filter is 400 naming it", status == 400 and body["errors"][0]["parameter"] == "status", body)

    # Rotation: the new secret signs; the old one still signs beside it during the overlap.
    status, headers, read = server.request("GET", f"/v1/admin/webhooks/{good_id}")
    status, _, rotated = server.request(
        "POST", f"/v1/admin/webhooks/{good_id}/rotate-secret", {"previousSecretValidForSeconds": 3600}, {"If-Match": headers["etag"]}
    )
    check("rotate: 200 with a new secret", status == 200 and rotated["secret"].startswith("whsec_") and rotated["secret"] != good.secrets[0], rotated)
    old = good.secrets[0]
    good.secrets[:] = [rotated["secret"]]
    count = len(good.messages())
    server.request("POST", f"/v1/admin/webhooks/{good_id}/ping")
    check("rotate: a delivery verifies with the new secret", good.wait_for(lambda r: len(r) > count and r[-1]["verified_by"] == 0, 10))
    last = good.messages()[-1]
    try:
        Webhook(old).verify(last["body"], {"webhook-id": last["id"], "webhook-timestamp": last["timestamp"], "webhook-signature": last["signature"]})
        old_verifies = True
    except WebhookVerificationError:
        old_verifies = False
    check("rotate: … and with the previous one during the overlap", old_verifies, last["signature"])

    # Metrics.
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request("GET", "/metrics")
    metrics = connection.getresponse().read().decode()
    succeeded = re.search(r'webhook_delivery_attempts_total\{outcome="succeeded"\} (\d+)', metrics)
    check("metrics: succeeded attempts counted", succeeded and int(succeeded.group(1)) >= 5, succeeded and succeeded.group(0))
    check("metrics: the outbox backlog is exported", "webhook_outbox_pending" in metrics and "webhook_outbox_oldest_age_seconds" in metrics)

    # The documented snippets, on the newest message (two signatures: a rotation).
    documented_snippets(server.root, good.messages()[-1], good.secrets[0])

    # Delete: nothing more is sent.
    status, headers, _ = server.request("GET", f"/v1/admin/webhooks/{others['redirecting']}")
    status, _, _ = server.request("DELETE", f"/v1/admin/webhooks/{others['redirecting']}", headers={"If-Match": headers["etag"]})
    check("delete: 204", status == 204, status)
    status, _, _ = server.request("GET", f"/v1/admin/webhooks/{others['redirecting']}")
    check("delete: then 404", status == 404, status)
    for webhook_id in (others["hanging"], others["flaky"]):
        status, headers, _ = server.request("GET", f"/v1/admin/webhooks/{webhook_id}")
        server.request("DELETE", f"/v1/admin/webhooks/{webhook_id}", headers={"If-Match": headers["etag"]})
    return good_id


def documented_snippets(root, message, secret):
    """The verification snippets of docs/webhooks.md, run on a message the service sent: the
    Python one as it is, the shell one with bash, curl's openssl and a body file; the Swift one
    must be in DocumentedVerificationTests.swift verbatim (swift test runs it there)."""
    doc = open(os.path.join(root, "docs/webhooks.md")).read()

    def snippet(name, language):
        match = re.search(r"<!-- snippet: " + name + r" -->\n```" + language + r"\n(.*?)```", doc, re.S)
        return match.group(1) if match else ""

    headers = {"webhook-id": message["id"], "webhook-timestamp": message["timestamp"], "webhook-signature": message["signature"]}
    namespace = {}
    exec(snippet("python", "python"), namespace)
    try:
        payload = namespace["verify"](secret, headers, message["body"])
        python_ok = payload["type"] == message["payload"]["type"]
    except Exception as error:  # the snippet's failure is the check's
        python_ok = error
    check("docs: the Python snippet verifies a real message", python_ok is True, python_ok)
    try:
        namespace["verify"](secret, headers, message["body"] + b" ")
        tampered = False
    except Exception:
        tampered = True
    check("docs: … and refuses it changed", tampered)

    shell = snippet("shell", "sh")
    with tempfile.TemporaryDirectory() as directory:
        body = os.path.join(directory, "body.json")
        for label, content, want in [("verifies a real message", message["body"], 0), ("refuses it changed", message["body"] + b" ", 1)]:
            with open(body, "wb") as f:
                f.write(content)
            environment = dict(os.environ, SECRET=secret, WEBHOOK_ID=message["id"], WEBHOOK_TIMESTAMP=message["timestamp"],
                               WEBHOOK_SIGNATURE=message["signature"], BODY_FILE=body)
            result = subprocess.run(["bash", "-c", shell], env=environment, capture_output=True, text=True)
            check(f"docs: the curl/openssl snippet {label}", result.returncode == want, (result.returncode, result.stdout, result.stderr))

    swift = snippet("swift", "swift")
    test = open(os.path.join(root, "Tests/WebhookClientTests/DocumentedVerificationTests.swift")).read()
    region = test.split("// BEGIN docs/webhooks.md\n")[1].split("// END docs/webhooks.md")[0] if "// BEGIN docs/webhooks.md" in test else None
    check("docs: the Swift snippet is the one DocumentedVerificationTests runs", region is not None and swift.endswith(region), "differs")


def kill_nine(server, receiver):
    """A delivery committed and not yet attempted when the process is killed is delivered after
    the restart. The receiver hangs its first four requests, which fills the webhook's four
    delivery slots, so the fifth publish's delivery stays in the outbox, unclaimed; then kill -9."""
    status, _, made = server.create_webhook(receiver.url(), ["appPolicy.published"], "kill -9")
    receiver.secrets.append(made["secret"])
    for minimum in ("2.0", "2.1", "2.2", "2.3"):
        server.put_policy("ios", minimum)
    check("kill -9: four deliveries hang at the receiver", receiver.wait_for(lambda r: len(r) >= 4, 10), len(receiver.received))
    (status, _, policy), _ = server.put_policy("ios", "2.4")
    revision = policy["revision"]
    time.sleep(0.3)
    items = server.deliveries(made["id"])
    waiting = [d for d in items if d["attemptCount"] == 0]
    check("kill -9: the fifth is committed and not attempted", len(waiting) == 1, [(d["status"], d["attemptCount"]) for d in items])
    server.kill9()
    receiver.release.set()
    receiver.behaviour = lambda n: (200, {})
    server.start()
    ok = receiver.wait_for(
        lambda r: any((m["payload"] or {}).get("data", {}).get("revision") == revision and m["verified_by"] == 0 for m in r), 15
    )
    check("kill -9: the delivery is made after the restart", ok, [(m["payload"] or {}).get("data", {}).get("revision") for m in receiver.received])


def replicas(binary, root, work, database_url):
    """Three replicas on one PostgreSQL, each with its dispatcher: every event is delivered once,
    whichever replica published it and whichever claimed it."""
    receiver = Receiver("replicas")
    servers = [
        Server(binary, root, os.path.join(work, f"replica-{n}"), ["--webhook-allow-loopback"], database_url)
        for n in range(3)
    ]
    try:
        for server in servers:
            server.start()
        status, _, made = servers[0].create_webhook(receiver.url(), ["appPolicy.published"], "replicas")
        receiver.secrets.append(made["secret"])
        for n in range(30):
            (status, _, _), _ = servers[n % 3].put_policy("web", f"3.{n}")
            if status not in (200, 201):
                check("replicas: a publish through each replica", False, status)
                return
        complete = receiver.wait_for(lambda r: len({m["id"] for m in r}) >= 30, 20)
        time.sleep(2)  # any second delivery of a message would come within a poll or two
        ids = [m["id"] for m in receiver.messages()]
        check("replicas: 30 publishes through three replicas, 30 messages", complete and len(set(ids)) == 30, len(set(ids)))
        check("replicas: each delivered once", len(ids) == len(set(ids)), len(ids))
        check("replicas: each verifies", all(m["verified_by"] == 0 for m in receiver.messages()))
        claimed_by = set()
        for index, server in enumerate(servers):
            with open(server.log_path) as f:
                if "webhook delivered" in f.read():
                    claimed_by.add(index)
        print(f"      (delivered by replicas {sorted(claimed_by)})")
    finally:
        for server in servers:
            server.stop()
        receiver.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--database-url")
    arguments = parser.parse_args()
    work = tempfile.mkdtemp(prefix="webhooks-")
    servers = []
    receivers = []
    try:
        print("== webhooks: without the operator's permission")
        strict = Server(arguments.binary, arguments.root, os.path.join(work, "strict"), [], arguments.database_url)
        servers.append(strict)
        strict.start()
        guard_without_permission(strict)
        strict.stop()

        print("== webhooks: receivers on loopback (--webhook-allow-loopback)")
        target = Receiver("target")
        good = Receiver("good")
        flaky = Receiver("flaky", lambda n: (500, {}) if n == 1 else (200, {}))
        hanging = Receiver("hanging", lambda n: "hang")
        redirecting = Receiver("redirecting", lambda n: (302, {"Location": target.url()}))
        receivers += [target, good, flaky, hanging, redirecting]
        server = Server(
            arguments.binary, arguments.root, os.path.join(work, "loopback"), ["--webhook-allow-loopback"],
            arguments.database_url,
        )
        servers.append(server)
        server.start()
        scenarios(server, [good, flaky, hanging, redirecting, target])

        print("== webhooks: kill -9 between commit and delivery")
        stuck = Receiver("stuck", lambda n: "hang" if n <= 4 else (200, {}))
        receivers.append(stuck)
        kill_nine(server, stuck)
        server.stop()

        if arguments.database_url:
            print("== webhooks: three replicas on one PostgreSQL")
            replicas(arguments.binary, arguments.root, work, arguments.database_url)
    finally:
        for server in servers:
            server.stop()
        for receiver in receivers:
            receiver.stop()
    print(f"{PASSED} passed, {FAILED} failed")
    sys.exit(0 if FAILED == 0 else 1)


if __name__ == "__main__":
    main()

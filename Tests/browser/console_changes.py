#!/usr/bin/env python3
"""The console's Changes and Webhooks screens in headless Chromium, against the real server.

Usage: Tests/browser/console_changes.py path/to/empty-state-server [--database-url-env NAME] [--screenshots DIR]

SQLite in a throwaway data directory, or the PostgreSQL whose URL the named environment variable
holds. An admin sets the review rules through the API (1 approval; `offline` templates 0); the
rest is driven in the console by role and label, each person in a browser context of their own:

  propose     an editor (in New York's time zone) edits French copy: the button says "Propose
              change…", the dialog opens a change request, nothing is served yet; the request's
              own author cannot approve it (the reason shown)
  review      a reviewer, in another session, opens the request from the Changes list, reads the
              diff against live, comments and approves it: the approvals line and state follow
  schedule    the author schedules it a few seconds ahead in their zone (the zone named on
              screen): the API holds that instant in UTC; it fires (the server says within a
              second), the client API and the gallery serve the copy, the page says it was
              published as scheduled
  add         a second edit of the same template goes into the author's open request (the
              choice offered), which then holds both changes; a schedule set and cancelled
  conflict    two approved requests on one template; one published through the API; publishing
              the other in the console answers 409, shown beside the field in conflict; rebase
  direct      a template whose rule needs 0 approvals keeps "Review and publish…", with
              "Propose…" beside it
  viewer      every step disabled with the reason; the webhook form too; forged approve refused;
              a title and a comment with markup and a bidi override shown as text
  keyboard    an editor proposes and a reviewer comments and approves with the keyboard alone;
              the request's page right to left mirrors and does not scroll sideways
  webhooks    a webhook created in the console to a local receiver (loopback allowed by the
              operator flag), its secret shown once; a ping the receiver first answers 500 (the
              attempt in the log), "Attempt now" delivers it (verified with `standardwebhooks`),
              redeliver, rotate the secret (the new one shown once), disable, delete
  axe         0 violations on the list, a request, the proposal dialog, the webhooks and a
              webhook, light and dark; at 320 px nothing scrolls sideways (SQLite run)
  console     no error in the browser's console on these screens, beside the 409 and the 422
              the conflict and webhook checks ask for

Screenshots (desktop 1280 px and a 390 px phone) go to --screenshots when given.
Prints one line per failure and ends with `N passed, N failed`.
"""

import http.server
import json
import os
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from console import VIEWER_TOKEN, Console
from harness import ADMIN_TOKEN, Results, Server, axe_source, check_parser, chromium_path, run_flows, store_backend

REVIEWER_TOKEN = "browser-checks-reviewer-token-0123456789"
ADMIN_ROLE_TOKEN = "browser-checks-admin-token-0123456789ab"
ZONE = "America/New_York"
SCHEDULED_TITLE = "Rien ici pour l’instant"
HOSTILE_TEXT = '<img src=x onerror="window.__pwned=1"> \u202egnp.exe\u202c review'



class Receiver:
    """A webhook receiver on loopback: answers 500 to its first delivery, 200 afterwards, and
    verifies each with the Standard Webhooks library once it knows the secret."""

    def __init__(self):
        self.secret = None
        self.received = []  # {type, verified}
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                verified = False
                if receiver.secret:
                    from standardwebhooks.webhooks import Webhook
                    try:
                        Webhook(receiver.secret).verify(body, {k.lower(): v for k, v in self.headers.items()})
                        verified = True
                    except Exception:
                        verified = False
                first = not receiver.received
                receiver.received.append({"type": json.loads(body).get("type"), "verified": verified})
                self.send_response(500 if first else 200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"no" if first else b"ok")

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/hooks/empty-states"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()


class ChangeChecks(Console):

    def __init__(self, *args, screenshots=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.screenshots = screenshots
        self.console_errors = []

    def context(self, csp=False, **options):
        context = super().context(csp=csp, **options)
        context.on("page", self.watch)
        return context

    def watch(self, page):
        page.on("console", lambda message: self.console_errors.append(f"{page.url}: {message.text}") if message.type == "error" else None)
        page.on("pageerror", lambda error: self.console_errors.append(f"{page.url}: {error}"))

    def api(self, method, path, body=None, token=ADMIN_TOKEN, headers=None):
        all_headers = {"Authorization": f"Bearer {token}", **(headers or {})}
        if body is not None:
            all_headers["Content-Type"] = "application/json"
        status, answer_headers, data = self.server.request(method, "/v1/admin" + path, body, all_headers)
        return status, answer_headers, (json.loads(data) if data and data[:1] in (b"{", b"[") else data)

    def open(self, page, route, ready, timeout=5000):
        page.goto(f"{self.server.url}/admin/#{route}")
        page.wait_for_selector(ready, timeout=timeout)

    def shoot(self, page, name):
        if not self.screenshots:
            return
        os.makedirs(self.screenshots, exist_ok=True)
        for width, height, suffix in ((1280, 900, "desktop"), (390, 844, "phone")):
            page.set_viewport_size({"width": width, "height": height})
            time.sleep(0.2)
            page.screenshot(path=os.path.join(self.screenshots, f"console-{name}-{suffix}.png"), full_page=True)
        page.set_viewport_size({"width": 1400, "height": 1000})

    def propose_request(self, template_id, changed, locale="fr", title="Via the API", token=ADMIN_TOKEN):
        """Opens a request through the API: `changed` strings of `locale` over the live ones."""
        _, _, live = self.api("GET", f"/templates/{template_id}")
        strings = {**live["template"]["strings"][locale], **changed}
        status, _, data = self.api("POST", "/change-requests", {"title": title, "changes": [
            {"kind": "templateStrings", "id": template_id, "locale": locale, "strings": strings}]}, token)
        assert status == 201, (status, data)
        return data

    def approve(self, request_id, version=1):
        status, _, data = self.api("POST", f"/change-requests/{request_id}/approve", {"version": version}, REVIEWER_TOKEN)
        assert status == 200, (status, data)
        return data

    # -- flows ----------------------------------------------------------------------------------

    def propose_review_schedule(self):
        check = self.check
        editor_context, editor = self.signed_in(timezone_id=ZONE)
        before = self.client_title("noDocuments", "fr")
        self.open_editor(editor, "noDocuments", "fr")
        publish = editor.locator("#publish")
        publish.wait_for(timeout=5000)
        editor.wait_for_function("document.querySelector('#publish')?.textContent === 'Propose change…'", timeout=5000)
        check("propose: the button says Propose change… under a rule of 1 approval", publish.text_content() == "Propose change…", publish.text_content())
        check("propose: the rule is named beside it", "1 approval" in editor.locator("#review-rule-note").text_content())
        check("propose: no direct publish is offered", editor.locator("#propose").count() == 0)
        editor.get_by_label("Title (fr)").fill(SCHEDULED_TITLE)
        editor.wait_for_function("!document.querySelector('#publish').disabled", timeout=5000)
        publish.click()
        dialog = editor.get_by_role("dialog", name="Propose a change to noDocuments")
        dialog.wait_for(timeout=5000)
        check("propose: the dialog shows the diff", SCHEDULED_TITLE in dialog.text_content() and before in dialog.text_content())
        dialog.get_by_role("button", name="Open change request").click()
        check("propose: a title is asked for", dialog.get_by_label("Title").get_attribute("aria-invalid") == "true")
        self.axe(editor, "proposal dialog")
        dialog.get_by_label("Title").fill("French empty documents copy")
        dialog.get_by_label("Description").fill("Shorter, friendlier.")
        dialog.get_by_role("button", name="Open change request").click()
        editor.wait_for_function("document.querySelector('.edit-status')?.textContent.includes('Proposed as change request #')", timeout=5000)
        status_text = editor.locator(".edit-status").text_content()
        check("propose: the editor says where it went and that nothing is served yet",
              "needs 1 approval" in status_text and "live revision until then" in status_text, status_text)
        check("propose: focus moves to that message", editor.evaluate("document.activeElement.classList.contains('edit-status')"))
        _, _, listed = self.api("GET", "/change-requests?state=open&target=template:noDocuments")
        check("propose: the API has the open request", listed["total"] == 1, listed)
        request_id = listed["items"][0]["id"]
        _, _, request = self.api("GET", f"/change-requests/{request_id}")
        check("propose: it is a strings change of fr", [c["kind"] for c in request["changes"]] == ["templateStrings"]
              and request["changes"][0]["locale"] == "fr" and request["description"] == "Shorter, friendlier.", request["changes"])
        check("propose: nothing is served yet", self.client_title("noDocuments", "fr") == before)

        # Its author cannot approve it.
        editor.get_by_role("link", name=f"Open change request #{request_id}").click()
        editor.wait_for_selector(".change-request[data-state=ready]", timeout=5000)
        approve = editor.get_by_role("button", name="Approve")
        check("propose: its author's Approve is disabled, with the reason",
              approve.is_disabled() and "someone else reviews it" in editor.locator(".reasons").text_content())

        # A reviewer, in another session, approves it.
        reviewer_context, reviewer = self.signed_in(REVIEWER_TOKEN)
        self.open(reviewer, "/changes", ".results[data-state=ready]")
        reviewer.get_by_role("link", name=f"#{request_id} French empty documents copy").click()
        reviewer.wait_for_selector(".change-request[data-state=ready]", timeout=5000)
        row = reviewer.locator("tr[data-pointer='/strings/fr/title']")
        check("review: the diff shows live and proposed", row.count() == 1 and before in row.text_content() and SCHEDULED_TITLE in row.text_content(),
              row.count() and row.text_content())
        check("review: the approvals say 0 of 1", "0 of 1 approval" in reviewer.locator(".approvals").text_content())
        reviewer.get_by_label("Comment").fill("Reads well.")
        reviewer.get_by_role("button", name="Approve").click()
        reviewer.wait_for_selector(".change-request[data-request-state=approved]", timeout=5000)
        check("review: approved, the line says by whom", "1 of 1 approval" in reviewer.locator(".approvals").text_content()
              and "reviewer" in reviewer.locator(".approvals").text_content())
        check("review: the comment is listed", "Reads well." in reviewer.locator("ol.reviews").text_content())
        check("review: focus goes to the result", reviewer.evaluate("document.activeElement.id") == "step-result")
        self.shoot(reviewer, "change-request")
        reviewer_context.close()

        # The author schedules it a few seconds ahead, in New York time.
        editor.reload()
        editor.wait_for_selector(".change-request[data-request-state=approved]", timeout=5000)
        check("schedule: the zone is named", ZONE in editor.locator(".schedule .zone").text_content(), editor.locator(".schedule").text_content())
        # Ten seconds ahead: time enough to fill the field and send it on a loaded machine.
        due = (datetime.now(timezone.utc) + timedelta(seconds=10)).replace(microsecond=0)
        local = due.astimezone(ZoneInfo(ZONE)).strftime("%Y-%m-%dT%H:%M:%S")
        editor.get_by_label("Publish at").fill(local)
        expected_utc = due.strftime("%Y-%m-%d %H:%M:%S")
        check("schedule: the UTC instant is shown before sending", expected_utc in editor.locator("#schedule-utc").text_content(),
              editor.locator("#schedule-utc").text_content())
        editor.get_by_role("button", name="Schedule", exact=True).click()
        editor.wait_for_selector(".scheduled-at", timeout=5000)
        check("schedule: focus goes to when it publishes", editor.evaluate("document.activeElement.id") == "scheduled-at")
        _, _, request = self.api("GET", f"/change-requests/{request_id}")
        at = datetime.fromisoformat(request.get("schedule", {}).get("at", "1970-01-01T00:00:00Z").replace("Z", "+00:00"))
        check("schedule: the API holds the instant chosen in New York, in UTC", at == due, (request.get("schedule"), due))
        check("schedule: the page shows it in UTC too", f"{expected_utc} UTC" in editor.locator(".scheduled-at").text_content(),
              editor.locator(".scheduled-at").text_content())
        deadline = time.time() + 20
        while time.time() < deadline and self.client_title("noDocuments", "fr") != SCHEDULED_TITLE:
            time.sleep(0.25)
        served_at = datetime.now(timezone.utc)
        check("schedule: it fires; the client API serves the copy", self.client_title("noDocuments", "fr") == SCHEDULED_TITLE,
              self.client_title("noDocuments", "fr"))
        _, _, published = self.api("GET", f"/change-requests/{request_id}")
        publication = published.get("publication") or {}
        check("schedule: published by the scheduler within a second of its time (the server's measure)",
              publication.get("scheduledAt") and publication.get("lateMilliseconds", 9999) < 1000, publication)
        check("schedule: served within a few seconds of its time (polled from here)", (served_at - due).total_seconds() < 5,
              (served_at - due).total_seconds())
        status, _, gallery = self.server.request("GET", "/preview?locale=fr")
        check("schedule: the gallery shows it", status == 200 and SCHEDULED_TITLE in gallery.decode(), status)
        editor.reload()
        editor.wait_for_selector(".change-request[data-request-state=published]", timeout=5000)
        check("schedule: the page says it was published as scheduled", "It was scheduled for" in editor.locator("#schedule").text_content())
        editor_context.close()

    def add_to_open(self):
        check = self.check
        context, page = self.signed_in()
        for locale, text in (("de", "Noch keine Favoriten da"), ("fr", "Pas encore de favoris ici")):
            self.open_editor(page, "noFavorites", locale)
            page.wait_for_function("document.querySelector('#publish')?.textContent === 'Propose change…'", timeout=5000)
            page.get_by_label(f"Title ({locale})").fill(text)
            page.wait_for_function("!document.querySelector('#publish').disabled", timeout=5000)
            page.locator("#publish").click()
            dialog = page.get_by_role("dialog")
            dialog.wait_for(timeout=5000)
            if locale == "de":
                dialog.get_by_label("Title").fill("Favourites copy")
                dialog.get_by_role("button", name="Open change request").click()
            else:
                offered = dialog.get_by_label("Add to your open change request", exact=False)
                check("add: the author's open request is offered, and chosen", offered.count() == 1 and offered.is_checked())
                check("add: another locale's change is kept, not replaced", dialog.locator(".replacing").count() == 0)
                dialog.get_by_role("button", name="Propose", exact=True).click()
            page.wait_for_function("/(Proposed as|Added to) change request/.test(document.querySelector('.edit-status')?.textContent)", timeout=5000)
        check("add: the editor says it was added", "Added to change request" in page.locator(".edit-status").text_content())
        # A third edit of German: the dialog says it would replace the request's German change.
        self.open_editor(page, "noFavorites", "de")
        page.get_by_label("Title (de)").fill("Noch nichts gemerkt")
        page.wait_for_function("!document.querySelector('#publish').disabled", timeout=5000)
        page.locator("#publish").click()
        dialog = page.get_by_role("dialog")
        dialog.wait_for(timeout=5000)
        replacing = dialog.locator(".replacing")
        check("add: the dialog says which change of the request this replaces",
              replacing.count() == 1 and "noFavorites (de strings)" in replacing.text_content(), replacing.count() and replacing.text_content())
        dialog.get_by_role("button", name="Cancel").click()
        page.get_by_role("button", name="Discard changes").click()
        _, _, listed = self.api("GET", "/change-requests?state=open&target=template:noFavorites")
        check("add: one request", listed["total"] == 1, listed)
        request_id = listed["items"][0]["id"]
        _, _, request = self.api("GET", f"/change-requests/{request_id}")
        check("add: it holds both locales' changes", sorted(c.get("locale") for c in request["changes"]) == ["de", "fr"], request["changes"])
        # Approved through the API; scheduled an hour ahead in the console, then cancelled.
        self.approve(request_id, request["version"])
        self.open(page, f"/changes/{request_id}", ".change-request[data-request-state=approved]")
        page.get_by_role("button", name="Schedule", exact=True).click()
        page.wait_for_selector(".scheduled-at", timeout=5000)
        page.get_by_role("button", name="Cancel the schedule").click()
        page.wait_for_selector("#schedule-at", timeout=5000)
        _, _, request = self.api("GET", f"/change-requests/{request_id}")
        check("add: scheduled, then cancelled", "schedule" not in request, request.get("schedule"))
        check("add: focus goes back to the time field", page.evaluate("document.activeElement.id") == "schedule-at")
        context.close()

    def conflict(self):
        check = self.check
        first = self.propose_request("loginRequired", {"title": "Connectez-vous (A)"}, title="First")
        second = self.propose_request("loginRequired", {"title": "Connectez-vous (B)"}, title="Second")
        for request in (first, second):
            self.approve(request["id"])
        status, headers, _ = self.api("GET", f"/change-requests/{first['id']}")
        status, _, body = self.api("POST", f"/change-requests/{first['id']}/publish", {}, headers={"If-Match": headers["ETag"]})
        assert status == 200, body
        context, page = self.signed_in()
        self.open(page, f"/changes/{second['id']}", ".change-request[data-state=ready]")
        # The request already knows: the conflict is shown before anyone publishes.
        check("conflict: the page shows the conflict before publishing", page.locator("tr.in-conflict[data-pointer='/strings/fr/title']").count() == 1)
        check("conflict: publish is disabled with the reason", page.locator("#publish-request").is_disabled()
              and "rebase it first" in page.locator(".reasons").text_content())
        page.get_by_role("button", name="Rebase on live…").click()
        page.get_by_role("dialog").get_by_role("button", name="Rebase").click()
        page.wait_for_function("document.querySelector('#step-result')?.textContent.includes('Rebased')", timeout=5000)
        _, _, rebased = self.api("GET", f"/change-requests/{second['id']}")
        check("conflict: rebased, approvals start again", rebased["conflicts"] == [] and rebased["approvals"]["approvedBy"] == [] and rebased["version"] == 2,
              rebased["approvals"])
        # Live moves again while this page is open: the publish's 409 shows beside the field.
        third = self.propose_request("loginRequired", {"title": "Connectez-vous (C)"}, title="Third")
        self.approve(third["id"])
        self.approve(second["id"], 2)
        page.reload()
        page.wait_for_selector(".change-request[data-request-state=approved]", timeout=5000)
        status, headers, _ = self.api("GET", f"/change-requests/{third['id']}")
        status, _, body = self.api("POST", f"/change-requests/{third['id']}/publish", {}, headers={"If-Match": headers["ETag"]})
        assert status == 200, body
        page.get_by_role("button", name="Publish now…").click()
        page.get_by_role("dialog").get_by_role("button", name="Publish").click()
        page.wait_for_selector("#step-result .problem", timeout=5000)
        check("conflict: the 409 is shown", "changed since" in page.locator("#step-result").text_content(), page.locator("#step-result").text_content())
        row = page.locator("tr.in-conflict[data-pointer='/strings/fr/title']")
        check("conflict: beside the field in conflict", row.count() == 1 and "Changed on live since revision" in row.text_content())
        check("conflict: nothing was overwritten", self.client_title("loginRequired", "fr") == "Connectez-vous (C)")
        self.shoot(page, "change-request-conflict")
        self.axe(page, "change request with a conflict")
        context.close()

    def direct(self):
        check = self.check
        context, page = self.signed_in()
        self.open_editor(page, "connectionRefused", "fr")
        page.get_by_label("Title (fr)").fill("Connexion refusée, réessayez")
        page.wait_for_function("document.querySelector('#propose') && !document.querySelector('#propose').disabled", timeout=5000)
        check("direct: 0 approvals keep Review and publish…", page.locator("#publish").text_content() == "Review and publish…")
        check("direct: Propose… is offered", page.locator("#propose").text_content() == "Propose…")
        page.locator("#publish").click()
        page.get_by_role("dialog").get_by_role("button", name="Publish").click()
        page.wait_for_function("document.querySelector('.edit-status')?.textContent.includes('Published')", timeout=5000)
        check("direct: published at once", self.client_title("connectionRefused", "fr") == "Connexion refusée, réessayez")
        context.close()

    def viewer(self):
        check = self.check
        request = self.propose_request("verifyIdentity", {"title": "Confirmez votre identité"}, title=HOSTILE_TEXT)
        status, _, _ = self.api("POST", f"/change-requests/{request['id']}/comments", {"text": HOSTILE_TEXT}, REVIEWER_TOKEN)
        assert status == 201, status
        context, page = self.signed_in(VIEWER_TOKEN)
        for where, route, ready in ((f"request #{request['id']}", f"/changes/{request['id']}", ".change-request[data-state=ready]"),
                                    ("webhooks", "/webhooks", ".results[data-state=ready]")):
            self.open(page, route, ready)
            writes = page.evaluate("""() => [...document.querySelectorAll('[data-write]')].map(b => ({
                text: b.textContent, disabled: b.disabled, reason: b.getAttribute('aria-describedby')}))""")
            check(f"viewer {where}: every step disabled, with the reason",
                  writes and all(w["disabled"] and w["reason"] == "viewer-note" for w in writes), writes)
        self.open(page, f"/changes/{request['id']}", ".change-request[data-state=ready]")
        check("hostile: a title and a comment with markup show as text, nothing runs",
              page.evaluate("window.__pwned") is None and page.locator("h1").text_content().endswith(HOSTILE_TEXT)
              and HOSTILE_TEXT in page.locator("ol.reviews").text_content(), page.evaluate("window.__pwned"))
        status, _, _ = self.api("POST", f"/change-requests/{request['id']}/approve", {"version": 1}, VIEWER_TOKEN)
        check("viewer: a forged approval is refused", status == 403, status)
        context.close()

    def webhooks(self, receiver):
        check = self.check
        context, page = self.signed_in()
        self.open(page, "/webhooks", ".results[data-state=ready]")
        page.get_by_role("button", name="Create webhook").click()
        check("webhooks: an empty form names the URL", page.get_by_label("URL").get_attribute("aria-invalid") == "true")
        page.get_by_label("URL").fill("ftp://example.com/hook")
        page.get_by_label("changeRequest.published", exact=False).check()
        page.get_by_role("button", name="Create webhook").click()
        page.wait_for_selector("#webhook-url[aria-invalid=true]", timeout=5000)
        check("webhooks: the server's refusal lands on the URL", page.locator("#webhook-url-error").is_visible(), page.locator("#webhook-url-error").text_content())
        page.get_by_label("URL").fill(receiver.url)
        page.get_by_label("Description").fill("Copy desk")
        page.get_by_role("button", name="Create webhook").click()
        page.wait_for_selector("#webhook-secret", timeout=5000)
        secret = page.locator("#webhook-secret").text_content()
        check("webhooks: the secret is shown once", secret.startswith("whsec_"), secret)
        check("webhooks: focus goes to it", page.evaluate("document.activeElement.id") == "created-secret")
        receiver.secret = secret
        page.wait_for_selector("table.webhooks", timeout=5000)
        check("webhooks: listed", "Copy desk" in page.locator("table.webhooks").text_content())
        page.get_by_role("link", name="Open wh_", exact=False).click()
        page.wait_for_selector(".webhook[data-state=ready]", timeout=5000)
        webhook_id = page.evaluate("location.hash").split("/")[-1]
        page.get_by_role("button", name="Send a ping").click()
        deadline = time.time() + 10
        while time.time() < deadline and "HTTP 500" not in (page.locator("#deliveries").text_content() or ""):
            time.sleep(0.3)
            page.get_by_role("button", name="Refresh").click()
        check("webhooks: the first attempt's 500 is in the log", "HTTP 500" in page.locator("#deliveries").text_content(), page.locator("#deliveries").text_content())
        page.get_by_role("button", name="Redeliver webhook.test", exact=False).first.click()
        deadline = time.time() + 10
        while time.time() < deadline and "succeeded" not in (page.locator("#deliveries").text_content() or ""):
            time.sleep(0.3)
            page.get_by_role("button", name="Refresh").click()
        text = page.locator("#deliveries").text_content()
        check("webhooks: attempted now, delivered", "succeeded" in text and "HTTP 200" in text, text)
        check("webhooks: the receiver verified it with standardwebhooks", any(m["verified"] and m["type"] == "webhook.test" for m in receiver.received), receiver.received)
        page.get_by_role("button", name="Redeliver webhook.test", exact=False).first.click()
        page.wait_for_function("document.querySelector('#deliveries')?.textContent.includes('redelivery of')", timeout=10000)
        check("webhooks: a redelivery is logged", True)
        self.shoot(page, "webhook")
        self.axe(page, "webhook")
        page.get_by_role("button", name="Rotate secret…").click()
        page.get_by_role("dialog").get_by_role("button", name="Rotate the secret").click()
        page.wait_for_selector("#step-result #webhook-secret", timeout=5000)
        rotated = page.locator("#webhook-secret").text_content()
        check("webhooks: a rotated secret is shown once, new", rotated.startswith("whsec_") and rotated != secret, rotated)
        check("webhooks: focus goes to it", page.evaluate("document.activeElement.id") == "step-result")
        page.get_by_role("button", name="Disable").click()
        page.wait_for_function("document.querySelector('#webhook-state')?.textContent === 'disabled'", timeout=5000)
        _, _, hook = self.api("GET", f"/webhooks/{webhook_id}")
        check("webhooks: disabled", hook["enabled"] is False, hook)
        check("webhooks: focus stays on the toggle", page.evaluate("document.activeElement.id") == "toggle-webhook")
        page.get_by_role("button", name="Delete…").click()
        page.get_by_role("dialog").get_by_role("button", name="Delete").click()
        page.wait_for_function("location.hash === '#/webhooks'", timeout=5000)
        page.wait_for_selector("h1:text('Webhooks')", timeout=5000)
        status, _, _ = self.api("GET", f"/webhooks/{webhook_id}")
        check("webhooks: deleted", status == 404, status)
        context.close()

    def keyboard(self):
        """An editor proposes and a reviewer approves, with the keyboard alone."""
        check = self.check
        context, page = self.signed_in()
        keys = page.keyboard
        self.open_editor(page, "noTransactions", "fr")
        page.wait_for_function("document.querySelector('#publish')?.textContent === 'Propose change…'", timeout=5000)
        page.evaluate("document.activeElement.blur()")
        if not self.tab_to(page, "the French title", "document.activeElement.id === 'f-strings-fr-title'"):
            return
        keys.press("Control+A")
        keys.type("Pas encore de transaction")
        page.wait_for_function("!document.querySelector('#publish').disabled", timeout=5000)
        if not self.tab_to(page, "Propose change…", "document.activeElement.id === 'publish'"):
            return
        keys.press("Enter")
        page.get_by_role("dialog").wait_for(timeout=5000)
        check("keyboard: the proposal dialog starts on its title", page.evaluate("document.activeElement.id") == "propose-title")
        keys.type("Transactions, by keyboard")
        if not self.tab_to(page, "Open change request", "document.activeElement.textContent === 'Open change request'"):
            return
        keys.press("Enter")
        page.wait_for_function("document.querySelector('.edit-status')?.textContent.includes('Proposed as change request #')", timeout=5000)
        _, _, listed = self.api("GET", "/change-requests?state=open&target=template:noTransactions")
        check("keyboard: proposed", listed["total"] == 1, listed)
        context.close()
        request_id = listed["items"][0]["id"]
        context, page = self.signed_in(REVIEWER_TOKEN)
        keys = page.keyboard
        self.open(page, "/changes", ".results[data-state=ready]")
        page.evaluate("document.activeElement.blur()")
        if not self.tab_to(page, "the request's link", f"document.activeElement.textContent.startsWith('#{request_id} ')"):
            return
        keys.press("Enter")
        page.wait_for_selector(".change-request[data-state=ready]", timeout=5000)
        check("keyboard: the request's heading has the focus", page.evaluate("document.activeElement.tagName") == "H1")
        if not self.tab_to(page, "the comment", "document.activeElement.id === 'review-comment'"):
            return
        keys.type("Fine by me.")
        if not self.tab_to(page, "Approve", "document.activeElement.id === 'approve'"):
            return
        keys.press("Enter")
        page.wait_for_selector(".change-request[data-request-state=approved]", timeout=5000)
        check("keyboard: approved, focus on the result", page.evaluate("document.activeElement.id") == "step-result")
        # Right to left: the page mirrors (its steps start on the right) and nothing scrolls sideways.
        page.evaluate("document.documentElement.dir = 'rtl'")
        geometry = page.evaluate("""() => {
            const button = document.querySelector('#publish-request').getBoundingClientRect();
            const steps = document.querySelector('.steps').getBoundingClientRect();
            return {button: [button.left, button.right], steps: [steps.left, steps.right],
                    overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
                    direction: getComputedStyle(document.querySelector('main')).direction};
        }""")
        check("rtl: the steps start on the right", geometry["direction"] == "rtl" and abs(geometry["button"][1] - geometry["steps"][1]) <= 2, geometry)
        check("rtl: nothing scrolls sideways", geometry["overflow"] <= 0, geometry)
        self.axe(page, "change request right to left")
        context.close()

    def screens_axe(self):
        """axe on the new screens, light and dark; at 320 px nothing scrolls sideways."""
        request = self.propose_request("pageNotAvailable", {"title": "Page introuvable"}, title="A request for the screens")
        status, _, hook = self.api("POST", "/webhooks", {"url": "http://127.0.0.1:9/nowhere", "events": ["changeRequest.opened"], "description": "Nowhere"})
        assert status == 201, hook
        # A delivery that fails (nothing listens on port 9): its attempt's long error is in the log.
        status, _, body = self.api("POST", f"/webhooks/{hook['id']}/ping")
        assert status in (200, 201, 202), (status, body)
        deadline = time.time() + 10
        while time.time() < deadline:
            _, _, log = self.api("GET", f"/webhooks/{hook['id']}/deliveries")
            if log["items"] and log["items"][0]["attempts"]:
                break
            time.sleep(0.2)
        screens = (("changes", "/changes", ".results[data-state=ready]"),
                   ("change request", f"/changes/{request['id']}", ".change-request[data-state=ready]"),
                   ("webhooks", "/webhooks", ".results[data-state=ready]"),
                   ("webhook", f"/webhooks/{hook['id']}", ".webhook[data-state=ready]"))
        for dark in (False, True):
            context, page = self.signed_in(REVIEWER_TOKEN, color_scheme="dark" if dark else "light")
            for name, route, ready in screens:
                self.open(page, route, ready)
                time.sleep(0.2)
                self.axe(page, f"{name}{' dark' if dark else ''}")
                if not dark and name == "changes":
                    self.shoot(page, "changes")
            context.close()
        context, page = self.signed_in(viewport={"width": 320, "height": 720})
        for name, route, ready in screens:
            self.open(page, route, ready)
            time.sleep(0.2)
            width = page.evaluate("document.documentElement.scrollWidth")
            wide = page.evaluate("""() => [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 321
                && !e.closest('.table-region')).map(e => e.tagName + '.' + e.className).slice(0, 5)""")
            self.check(f"320 px {name}: nothing scrolls sideways", width <= 320, (width, wide))
            self.axe(page, f"{name} at 320 px")
        context.close()

    def no_console_errors(self):
        # The conflict check's publish answers 409 and the webhook form's bad URL 422, on purpose:
        # the browser logs each as a failed load.
        unexpected = [e for e in self.console_errors if "status of 409" not in e and "status of 422" not in e]
        self.check("console: no error in the browser's console", not unexpected, unexpected[:5])


def main():
    parser = check_parser()
    parser.add_argument("--screenshots", help="a directory for PNGs of the screens (desktop and phone)")
    parser.add_argument("--only", help="run the flows with these names only (comma-separated), while working on one")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright
    axe = axe_source()
    backend_args, backend = store_backend(args)
    started = time.time()
    results = Results()
    tokens = ["--admin-token", f"viewer:viewer:{VIEWER_TOKEN}", "--admin-token", f"reviewer:reviewer:{REVIEWER_TOKEN}",
              "--admin-token", f"boss:admin:{ADMIN_ROLE_TOKEN}", "--webhook-allow-loopback"]
    server = Server(args.binary, tokens + backend_args)
    receiver = Receiver()
    try:
        status, _, body = server.request("PUT", "/v1/admin/review-rules", json.dumps({"requiredApprovals": 1, "categories": {"offline": 0}}).encode(),
                                         {"Authorization": f"Bearer {ADMIN_ROLE_TOKEN}", "Content-Type": "application/json", "If-Match": '"r0"'})
        assert status == 200, body
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
            checks = ChangeChecks(server, browser, results, axe, backend, screenshots=args.screenshots)
            flows = [checks.propose_review_schedule, checks.add_to_open, checks.conflict, checks.direct, checks.viewer,
                     checks.keyboard, lambda: checks.webhooks(receiver)]
            if backend == "sqlite":  # the markup does not depend on the backend
                flows.append(checks.screens_axe)
            flows.append(checks.no_console_errors)
            if args.only:
                flows = [flow for flow in flows if getattr(flow, "__name__", "webhooks") in args.only.split(",")]
            run_flows(flows, results, backend)
            browser.close()
    finally:
        receiver.stop()
        server.stop()
    print(f"[{backend}] axe-core: {checks.axe_violations} violations on {checks.axe_pages} screens")
    print(f"[{backend}] changes and webhooks browser checks took {time.time() - started:.1f} s")
    print(f"{results.passed} passed, {results.failed} failed")
    sys.exit(1 if results.failed else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""PNGs of the gallery (/preview) and of the admin console (/admin/) from headless Chromium, for
the docs and for review.

Usage: Tests/browser/screenshots.py path/to/empty-state-server OUTPUT_DIRECTORY

Writes gallery-<locale>-<size>[-dark].png for a few combinations: English and Arabic at
400x400, German at 200x150, and Arabic at 400x400 in the dark scheme; and console-<screen>.png
for the console's main screens (catalogue, editor with its preview, the review before
publishing, history, app policy, audit log, numbers, translations, an experiment with its
results; the editor at 320 px and in the dark scheme, its first screen at 1280×800 and on a
phone while typing; the Changes list, a change request under review, and a webhook with its
delivery log).
"""

import os
import sys

import json
import time
import uuid
from datetime import datetime, timezone

from harness import ADMIN_TOKEN, Server, chromium_path

REVIEWER_TOKEN = "screenshots-reviewer-token-0123456789"
OPS_TOKEN = "screenshots-admin-token-0123456789ab"

SHOTS = [
    ("en", "400x400", "default", False),
    ("ar", "400x400", "subtle", False),
    ("de", "200x150", "template", False),
    ("en-XA", "360x640", "template", False),
    ("ar", "400x400", "template", True),
]


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    from playwright.sync_api import sync_playwright

    output = sys.argv[2]
    os.makedirs(output, exist_ok=True)
    server = Server(sys.argv[1], ["--admin-token", f"rosa:reviewer:{REVIEWER_TOKEN}", "--admin-token", f"ops:admin:{OPS_TOKEN}",
                                  "--webhook-allow-loopback"])
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1720, "height": 900})
            console_shots(server, browser, output)
            changes_shots(server, browser, output)
            for locale, size, style, dark in SHOTS:
                page.emulate_media(color_scheme="dark" if dark else "light")
                page.goto(f"{server.url}/preview?locale={locale}&size={size}&style={style}")
                name = f"gallery-{locale}-{size}{'-dark' if dark else ''}.png"
                page.screenshot(path=os.path.join(output, name), full_page=True)
                print(os.path.join(output, name))
            browser.close()
    finally:
        server.stop()


def console_shots(server, browser, output):
    """The console's screens, with something on each: a second revision to compare, a policy,
    a few events."""
    document = json.loads(server.admin("GET", "/templates/noDocuments")[2])["template"]
    document["strings"]["fr"]["title"] = "Rien pour le moment"
    server.admin("PUT", "/templates/noDocuments", document, {"If-Match": '"r1"'})
    # An English change a second later: every translation of that title is stale.
    time.sleep(1.1)
    english = json.loads(server.admin("GET", "/templates/loading")[2])["template"]["strings"]["en"]
    english["title"] = "Loading your things"
    server.admin("PUT", "/templates/loading/strings/en", english, {"If-Match": '"r1"'})
    server.admin("PUT", "/app-policies/ios", {
        "minimumVersion": "5.0", "latestVersion": "5.3.0", "minimumOSVersion": "16.0", "blockedVersions": ["5.1.2"],
        "storeUrl": "https://apps.apple.com/app/id123456789", "rolloutPercentage": 25}, {"If-None-Match": "*"})
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    events = []
    for locale, platform, displays, taps in (("fr", "ios", 5, 2), ("de", "android", 3, 1), ("en", "web", 8, 5), ("ar", "ios", 2, 0)):
        for index in range(displays):
            events.append({"id": str(uuid.uuid4()), "type": "displayed", "templateId": "connectionRefused", "revision": 1,
                           "locale": locale, "platform": platform, "appVersion": "5.2.0", "occurredAt": now})
            if index < taps:
                events.append({"id": str(uuid.uuid4()), "type": "actionTapped", "templateId": "connectionRefused", "revision": 1,
                               "locale": locale, "platform": platform, "appVersion": "5.2.0", "actionId": "retry", "occurredAt": now})
    server.request("POST", "/v1/events", json.dumps({"events": events}).encode(), {"Content-Type": "application/json"})

    def shoot(page, name, full=True):
        time.sleep(0.4)  # the debounced preview and checks
        path = os.path.join(output, f"console-{name}.png")
        page.screenshot(path=path, full_page=full)
        print(path)

    for viewport, dark, suffix in (({"width": 1440, "height": 900}, False, ""), ({"width": 1440, "height": 900}, True, "-dark"),
                                   ({"width": 320, "height": 720}, False, "-320")):
        context = browser.new_context(viewport=viewport, color_scheme="dark" if dark else "light")
        page = context.new_page()
        page.goto(server.url + "/admin/")
        if not suffix:
            page.wait_for_selector("form.signin")
            shoot(page, "sign-in", full=False)
        page.get_by_label("Admin token").fill(ADMIN_TOKEN)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_selector(".results[data-state=ready]")
        page.goto(server.url + "/admin/#/templates/connectionRefused?locale=fr")
        page.wait_for_selector(".preview-frame .es")
        title = page.get_by_label("Title (fr)")
        title.fill("Vous êtes hors ligne : vérifiez votre connexion puis réessayez, s’il vous plaît")
        page.wait_for_selector("#f-strings-fr-title-error:not([hidden])")
        shoot(page, "edit" + suffix)
        if suffix:
            context.close()
            continue
        title.fill("Pas de connexion")
        page.wait_for_selector("#f-strings-fr-title-error[hidden]", state="attached")
        page.get_by_label("Container").select_option("200x150")
        page.get_by_label("Locale", exact=True).select_option("ar-XB")
        time.sleep(0.5)
        page.get_by_role("button", name="Review and publish…").click()
        page.get_by_role("dialog").wait_for()
        shoot(page, "review", full=False)
        page.get_by_role("button", name="Cancel").click()
        run_experiment(server)
        for name, route, ready in (("experiments", "#/experiments/retry-wording", ".results-chart"),
                                   ("catalogue", "#/?q=offline", ".results[data-state=ready]"),
                                   ("history", "#/templates/noDocuments/history", ".comparison table"),
                                   ("policies", "#/policies/ios", ".decisions-table"),
                                   ("audit", "#/audit", ".results table"),
                                   ("numbers", "#/numbers?template=connectionRefused", ".chart"),
                                   ("translations", "#/translations", ".translations section")):
            page.goto(server.url + "/admin/" + route)
            page.wait_for_selector(ready)
            shoot(page, name)
        context.close()
    # The first screen as an editor whose browser speaks French sees it, at 1280×800 and on a
    # phone while typing the message (the preview stays at the top).
    for viewport, name in (({"width": 1280, "height": 800}, "edit-first-screen"), ({"width": 390, "height": 844}, "edit-phone")):
        context = browser.new_context(viewport=viewport, locale="fr-FR")
        page = context.new_page()
        page.goto(server.url + "/admin/")
        page.get_by_label("Admin token").fill(ADMIN_TOKEN)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_selector(".results[data-state=ready]")
        page.goto(server.url + "/admin/#/templates/noSearchResults")
        page.wait_for_selector(".preview-frame .es")
        if name == "edit-phone":
            page.get_by_label("Message (fr)").focus()
            page.keyboard.press("End")
            page.keyboard.type(" Essayez un autre mot.")
        shoot(page, name, full=False)
        context.close()


def changes_shots(server, browser, output):
    """Review in the console: the rules ask for one approval; a request of two changes with a
    reviewer's comment; a webhook to a loopback port nothing listens on, pinged (its failed
    attempt in the log). Taken after the other console shots, which publish directly."""
    def api(method, path, body=None, token=ADMIN_TOKEN, headers=None):
        all_headers = {"Authorization": f"Bearer {token}", **(headers or {})}
        if body is not None:
            all_headers["Content-Type"] = "application/json"
        status, answer_headers, data = server.request(method, "/v1/admin" + path, body, all_headers)
        return json.loads(data) if data else None

    rules = api("GET", "/review-rules", token=OPS_TOKEN)
    api("PUT", "/review-rules", {"requiredApprovals": 1}, OPS_TOKEN, {"If-Match": f'"r{rules["revision"]}"'})
    changes = []
    for template_id, locale, key, text in (("noSearchResults", "fr", "title", "Aucun résultat pour cette recherche"),
                                           ("noFavorites", "de", "message", "Tippe auf den Stern, um etwas hier abzulegen.")):
        strings = api("GET", f"/templates/{template_id}")["template"]["strings"][locale]
        changes.append({"kind": "templateStrings", "id": template_id, "locale": locale, "strings": {**strings, key: text}})
    request = api("POST", "/change-requests", {"title": "Friendlier empty lists", "description": "Shorter French title, a German hint.",
                                               "changes": changes})
    api("POST", f"/change-requests/{request['id']}/comments", {"text": "The German hint reads well; checking the French on a phone."},
        REVIEWER_TOKEN)
    hook = api("POST", "/webhooks", {"url": "http://127.0.0.1:9/hooks/empty-states", "events": ["changeRequest.published"],
                                     "description": "Release bot"})
    api("POST", f"/webhooks/{hook['id']}/ping")
    time.sleep(1.5)  # the ping's first attempt
    context = browser.new_context(viewport={"width": 1440, "height": 900}, timezone_id="Europe/Paris")
    page = context.new_page()
    page.goto(server.url + "/admin/")
    page.get_by_label("Admin token").fill(REVIEWER_TOKEN)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_selector("#account:not([hidden])")
    for name, route, ready in (("changes", "#/changes", ".results[data-state=ready]"),
                               ("change-request", f"#/changes/{request['id']}", ".change-request[data-state=ready]"),
                               ("webhook", f"#/webhooks/{hook['id']}", "#deliveries[data-state=ready]")):
        page.goto(server.url + "/admin/" + route)
        page.wait_for_selector(ready)
        time.sleep(0.3)
        path = os.path.join(output, f"console-{name}.png")
        page.screenshot(path=path, full_page=True)
        print(path)
    context.close()


def run_experiment(server):
    """A running experiment on connectionRefused with real results: 600 installs ask for the
    template (the server assigns their variants) and send their events; Retry is tapped by 18 %
    under control and 27 % under "reconnect"."""
    from console_experiments import expose
    document = {"id": "retry-wording", "templateId": "connectionRefused", "status": "draft", "coverage": 1,
                "primaryMetric": {"type": "tap", "action": "retry"},
                "variants": [{"key": "control", "weight": 0.5},
                             {"key": "reconnect", "weight": 0.5, "strings": {
                                 "en": {"actions.retry": "Reconnect", "title": "No connection"},
                                 "fr": {"actions.retry": "Se reconnecter"}}}]}
    server.admin("PUT", "/experiments/retry-wording", document, {"If-None-Match": "*"})
    document["status"] = "running"
    server.admin("PUT", "/experiments/retry-wording", document, {"If-Match": '"r1"'})
    expose(server, "retry-wording", "connectionRefused", "retry", 600, {"control": 0.18, "reconnect": 0.27})


if __name__ == "__main__":
    main()

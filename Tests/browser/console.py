#!/usr/bin/env python3
"""The admin console (/admin/) checked in headless Chromium, against the real server binary.

Usage: Tests/browser/console.py path/to/empty-state-server [--database-url-env NAME] [--scale N]

Runs against SQLite in a throwaway data directory, or, with --database-url-env, against the
PostgreSQL whose URL that environment variable holds (`make browser-test` starts a throwaway one
with scripts/postgres.sh). Every flow drives the console as a person does, by role and label:

  editor      sign in, search, edit French, the preview changes, a 3-line title gets the
              server's 422 on its field, fix, the diff, publish (the client API serves it), roll
              back from the history after its diff (the client API serves the old copy)
  race        two browser contexts edit one template; the first publish wins, the second gets the
              412, sees what the other changed, rebases (keeping its side of the conflict), and
              publishes
  viewer      every write control disabled with the reason, a forged write refused by the server
  secrets     neither token in document.cookie, localStorage, sessionStorage, any URL requested,
              or the server's log
  csrf        a cross-site form post and a cross-origin fetch with the session are refused
              (cross-site: the cookie is not sent; another origin of the same site: the Origin
              check), and nothing changed
  hostile     script tags, event attributes and bidi overrides in copy and in an author's name
              show as text on every screen
  axe         axe-core: 0 violations on every screen (and the review dialog), light and dark, and
              at 320 px no screen scrolls sideways
  keyboard    the edit-publish flow with the keyboard alone
  scale       (SQLite, with --scale N, default 10000; 0 skips) the catalogue answers a search in
              ≤ 200 ms at N templates, measured in the page with performance.now()

Prints one line per failure and ends with `N passed, N failed`.
"""

import concurrent.futures
import json
import statistics
import sys
import time
import urllib.parse

from console_plurals import plural_flow
from console_scale import measure_search, scale_server
from harness import ADMIN_TOKEN, OtherOrigin, Results, Server, axe_source, check_parser, chromium_path, run_flows, store_backend

VIEWER_TOKEN = "browser-checks-viewer-token-0123456789"
SECOND_EDITOR = "browser-checks-second-editor-0123456789"
HOSTILE_ACTOR_TOKEN = "browser-checks-hostile-actor-0123456789"
HOSTILE_ACTOR = "<img src=x onerror=window.__pwned=9>"
HOSTILE_TITLE = "<script>window.__pwned=1</script>"
HOSTILE_MESSAGE = '"><img src=x onerror="window.__pwned=2"> \u202egnp.exe\u202c text'
HOSTILE_LABEL = "<img src=x onerror=alert(4)>Open"
HOSTILE = {
    "id": "hostileCopy",
    "category": "error",
    "style": "default",
    "defaultLocale": "en",
    "visual": {"icon": {"ios": "xmark", "android": "close", "web": "triangle-alert"}},
    "actions": [
        {"id": "go", "role": "primary", "type": "navigate", "target": "javascript:window.__pwned=3"},
        {"id": "back", "role": "secondary", "type": "navigateBack"},
    ],
    "strings": {
        "en": {"title": HOSTILE_TITLE, "message": HOSTILE_MESSAGE, "actions.go": HOSTILE_LABEL, "actions.back": "Back \u2067home\u2069"},
        "fr": {"title": HOSTILE_TITLE + " fr", "message": HOSTILE_MESSAGE, "actions.go": HOSTILE_LABEL, "actions.back": "Retour"},
    },
}
LONG_FRENCH_TITLE = "Aucun document pour le moment dans votre espace de travail partagé"  # 66 columns: 3 lines


class Console:
    """The checks, over one server (and one browser)."""

    def __init__(self, server, browser, results, axe_source, backend):
        self.server = server
        self.browser = browser
        self.results = results
        self.axe_source = axe_source
        self.backend = backend
        self.urls = []  # every URL any page requested
        self.axe_pages = 0
        self.axe_violations = 0

    def check(self, name, ok, detail=""):
        return self.results.check(f"[{self.backend}] {name}", ok, detail)

    # -- pages ----------------------------------------------------------------------------------

    def context(self, csp=False, **options):
        """A browser context. The console's CSP allows no eval or inline script, which Playwright's
        waits and axe's injection need: those contexts bypass it (the hostile checks then hold the
        escaping itself, not the CSP behind it), and `csp_in_force` checks the console under it."""
        options.setdefault("viewport", {"width": 1400, "height": 1000})
        context = self.browser.new_context(bypass_csp=not csp, **options)
        context.on("request", lambda request: self.urls.append(request.url))
        return context

    def signed_in(self, token=ADMIN_TOKEN, csp=False, **options):
        context = self.context(csp=csp, **options)
        page = context.new_page()
        page.goto(self.server.url + "/admin/")
        page.get_by_label("Admin token").fill(token)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_selector("#account:not([hidden])", timeout=5000)
        return context, page

    def client_title(self, template_id, locale):
        status, _, body = self.server.request("GET", f"/v1/templates/{template_id}?locale={locale}")
        return json.loads(body)["title"] if status == 200 else f"HTTP {status}"

    def open_editor(self, page, template_id, locale="fr"):
        page.goto(f"{self.server.url}/admin/#/templates/{template_id}?locale={locale}")
        page.wait_for_selector(".preview-frame .es", timeout=5000)

    def axe(self, page, name):
        page.add_script_tag(content=self.axe_source) if not page.evaluate("typeof axe !== 'undefined'") else None
        violations = page.evaluate(
            "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
            ".map(v => ({id: v.id, help: v.help, nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 3)}))"
        )
        self.axe_pages += 1
        self.axe_violations += len(violations)
        self.check(f"axe {name}: 0 violations", not violations, json.dumps(violations))

    # -- flows ----------------------------------------------------------------------------------

    def editor_flow(self):
        context, page = self.signed_in()
        check = self.check
        before = self.client_title("noDocuments", "fr")
        page.get_by_label("Search").fill("documents")
        page.get_by_role("button", name="Search").click()
        page.wait_for_selector('.results[data-state=ready][data-results-for="documents"]', timeout=5000)
        page.get_by_role("link", name="noDocuments", exact=True).click()
        page.wait_for_selector(".preview-frame .es", timeout=5000)
        page.get_by_label("Edit locale").select_option("fr")
        page.get_by_label("Locale", exact=True).select_option("fr")
        title = page.get_by_label("Title (fr)")
        title.fill("Rien pour le moment")
        page.wait_for_function("document.querySelector('.preview-frame .es-title')?.textContent === 'Rien pour le moment'", timeout=5000)
        check("editor: the preview shows what is typed", True)
        # A title of three lines: the server's 422 lands on the field.
        title.fill(LONG_FRENCH_TITLE)
        error = page.locator("#f-strings-fr-title-error")
        try:
            error.wait_for(state="visible", timeout=5000)
        except Exception:
            pass
        check("editor: the 422 for a 3-line title lands on its field",
              "a title must fit 2 lines" in (error.text_content() or "") and title.get_attribute("aria-invalid") == "true",
              error.text_content())
        check("editor: the live count says it is too long", "too long" in page.locator("#f-strings-fr-title-hint").text_content())
        title.fill("Rien pour le moment")
        page.wait_for_function("document.querySelector('#f-strings-fr-title-error').hidden", timeout=5000)
        check("editor: fixed, the error goes", title.get_attribute("aria-invalid") is None)
        page.get_by_role("button", name="Review and publish…").click()
        dialog = page.get_by_role("dialog")
        dialog.wait_for(timeout=5000)
        row = dialog.locator("tr", has_text="/strings/fr/title")
        check("editor: the diff shows the field, before and after",
              row.count() == 1 and before in row.text_content() and "Rien pour le moment" in row.text_content(), dialog.text_content())
        self.axe(page, "review dialog")
        dialog.get_by_role("button", name="Publish").click()
        page.wait_for_function("document.querySelector('.edit-status')?.textContent.includes('revision 2')", timeout=5000)
        check("editor: published, the client API serves it", self.client_title("noDocuments", "fr") == "Rien pour le moment",
              self.client_title("noDocuments", "fr"))
        page.get_by_role("link", name="History and rollback").click()
        page.get_by_role("button", name="Roll back to r1…").click()
        dialog = page.get_by_role("dialog")
        dialog.wait_for(timeout=5000)
        check("editor: the rollback shows its diff first", "Rien pour le moment" in dialog.text_content() and before in dialog.text_content())
        dialog.get_by_role("button", name="Roll back").click()
        page.wait_for_selector("text=r3", timeout=5000)
        check("editor: rolled back, the client API serves the old copy", self.client_title("noDocuments", "fr") == before,
              self.client_title("noDocuments", "fr"))
        self.axe(page, "history")
        context.close()

    def race(self):
        check = self.check
        a_context, a = self.signed_in()
        b_context, b = self.signed_in(SECOND_EDITOR)
        for page in (a, b):
            self.open_editor(page, "loading", "fr")
        a.get_by_label("Title (fr)").fill("Chargement (A)")
        b.get_by_label("Title (fr)").fill("Chargement (B)")
        b.get_by_label("Message (fr)").fill("Un instant, nous préparons tout (B).")
        a.get_by_role("button", name="Review and publish…").click()
        a.get_by_role("dialog").get_by_role("button", name="Publish").click()
        a.wait_for_function("document.querySelector('.edit-status')?.textContent.includes('revision 2')", timeout=5000)
        check("race: the first publish wins", self.client_title("loading", "fr") == "Chargement (A)")
        b.get_by_role("button", name="Review and publish…").click()
        b.get_by_role("dialog").get_by_role("button", name="Publish").click()
        conflict = b.get_by_role("dialog", name="loading changed while you edited")
        conflict.wait_for(timeout=5000)
        text = conflict.text_content()
        check("race: the second sees what the other changed", "Chargement (A)" in text and "What they changed" in text, text)
        check("race: the conflicting field is offered both ways", conflict.get_by_label("Theirs: Chargement (A)").count() == 1
              and conflict.get_by_label("Mine: Chargement (B)").count() == 1)
        self.axe(b, "conflict dialog")
        conflict.get_by_role("button", name="Rebase my changes onto revision 2").click()
        b.wait_for_function("document.querySelector('.edit-status')?.textContent.includes('revision 2')", timeout=5000)
        b.get_by_role("button", name="Review and publish…").click()
        b.get_by_role("dialog").get_by_role("button", name="Publish").click()
        b.wait_for_function("document.querySelector('.edit-status')?.textContent.includes('revision 3')", timeout=5000)
        status, _, body = self.server.request("GET", "/v1/templates/loading?locale=fr")
        served = json.loads(body)
        check("race: rebased and published, both changes served",
              served["title"] == "Chargement (B)" and served["message"] == "Un instant, nous préparons tout (B).", served)
        a_context.close()
        b_context.close()

    def viewer(self):
        check = self.check
        context, page = self.signed_in(VIEWER_TOKEN)
        check("viewer: the reason is shown", page.locator("#viewer-note").is_visible())
        self.open_editor(page, "connectionRefused")
        for where, url in (("editor", None), ("history", "#/templates/noDocuments/history"), ("policies", "#/policies/ios")):
            if url:
                page.goto(self.server.url + "/admin/" + url)
                page.wait_for_selector("[data-write]", state="attached", timeout=5000)
                time.sleep(0.3)
            writes = page.evaluate("""() => [...document.querySelectorAll('[data-write]')].map(b => ({
                text: b.textContent, disabled: b.disabled, reason: b.getAttribute('aria-describedby')}))""")
            check(f"viewer {where}: every write control is disabled, with the reason",
                  writes and all(w["disabled"] and w["reason"] == "viewer-note" for w in writes), writes)
            editable = page.evaluate("""() => [...document.querySelectorAll('main input:not([type=search]):not([type=checkbox]):not([type=radio]), main textarea')]
                .filter(e => !e.readOnly && !e.disabled && !e.closest('.filters, .preview, .what-if')).map(e => e.id)""")
            check(f"viewer {where}: no field can be typed in", editable == [], editable)
        page.goto(self.server.url + "/admin/#/templates/connectionRefused")
        page.wait_for_selector(".preview-frame .es", timeout=5000)
        forged = page.evaluate("""async () => {
            const got = await fetch('/v1/admin/templates/connectionRefused');
            const doc = await got.json();
            doc.template.strings.fr.title = 'Forged';
            const put = await fetch('/v1/admin/templates/connectionRefused', {method: 'PUT',
              headers: {'Content-Type': 'application/json', 'If-Match': got.headers.get('ETag')}, body: JSON.stringify(doc)});
            return {status: put.status, body: await put.json()};
        }""")
        check("viewer: a forged write is refused by the server", forged["status"] == 403 and forged["body"]["type"].endswith(":forbidden"), forged)
        check("viewer: and nothing changed", self.client_title("connectionRefused", "fr") != "Forged")
        self.axe(page, "editor (viewer)")
        context.close()

    def secrets(self):
        check = self.check
        tokens = [ADMIN_TOKEN, VIEWER_TOKEN, SECOND_EDITOR, HOSTILE_ACTOR_TOKEN]
        context, page = self.signed_in()
        page.wait_for_selector(".results[data-state=ready]", timeout=5000)
        state = page.evaluate("""() => ({cookie: document.cookie, local: JSON.stringify(localStorage),
            session: JSON.stringify(sessionStorage), url: location.href})""")
        check("secrets: the session cookie is HttpOnly (document.cookie is empty)", state["cookie"] == "", state)
        check("secrets: no token in document.cookie, localStorage or sessionStorage",
              not any(t in json.dumps(state) for t in tokens), state)
        cookies = context.cookies()
        session = [c for c in cookies if c["name"] in ("es_console", "__Host-es_console")]
        check("secrets: the cookie is HttpOnly, SameSite=Strict, Path=/",
              len(session) == 1 and session[0]["httpOnly"] and session[0]["sameSite"] == "Strict" and session[0]["path"] == "/", cookies)
        check("secrets: the cookie is not the token", not any(t in json.dumps(cookies) for t in tokens))
        context.close()
        leaked = [u for u in self.urls if any(t in u or urllib.parse.quote(t) in u for t in tokens)]
        check(f"secrets: no token in any of the {len(self.urls)} URLs requested", not leaked, leaked[:3])
        log = open(self.server.log_path, encoding="utf-8", errors="replace").read()
        check("secrets: no token in the server's log", not any(t in log for t in tokens))

    def csrf(self, other):
        """Pages elsewhere try to change a template with the editor's session."""
        check = self.check
        context, page = self.signed_in()
        revision = self.current_revision("noDocuments")
        target = f"{self.server.url}/v1/admin/templates/noDocuments/rollback"

        def answered():
            """The statuses the server answered the target with (its access log), in order."""
            time.sleep(0.3)  # the access log is written every 100 ms
            lines = open(self.server.log_path, encoding="utf-8", errors="replace").read().splitlines()
            return [int(line.split("http.status=")[1].split()[0]) for line in lines
                    if 'http.path="/v1/admin/templates/noDocuments/rollback"' in line and "http.method=POST" in line]
        form = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>form</title></head><body><main>
<form id="f" method="post" action="{target}" enctype="text/plain">
<input type="hidden" name='{{"revision": 1, "x": "' value='"}}'><button>Go</button></form>
<script>document.getElementById('f').submit()</script></main></body></html>"""
        fetcher = f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>fetch</title></head><body><main>
<script>
window.outcome = fetch('{target}', {{method: 'POST', credentials: 'include', headers: {{'Content-Type': 'text/plain'}},
  body: JSON.stringify({{revision: 1}})}}).then(r => 'read ' + r.status, e => 'blocked: ' + e.message);
window.preflighted = fetch('{target}', {{method: 'POST', credentials: 'include', headers: {{'Content-Type': 'application/json'}},
  body: JSON.stringify({{revision: 1}})}}).then(r => 'read ' + r.status, e => 'blocked: ' + e.message);
</script></main></body></html>"""
        other.add("/csrf-form.html", form)
        other.add("/csrf-fetch.html", fetcher)
        port = other.url.rsplit(":", 1)[1]
        for origin, kind in ((f"http://localhost:{port}", "cross-site"), (other.url, "same-site, other origin")):
            want = 401 if kind == "cross-site" else 403
            seen = len(answered())
            page.goto(origin + "/csrf-form.html")
            page.wait_for_load_state("load")
            statuses = answered()[seen:]
            check(f"csrf {kind}: a form post with the session is refused ({want})", statuses == [want], statuses)
            seen += len(statuses)
            page.goto(origin + "/csrf-fetch.html")
            outcome = page.evaluate("window.outcome")
            preflighted = page.evaluate("window.preflighted")
            # The text/plain post is sent (a simple request) and refused; the JSON one never is
            # (its preflight gets no CORS answer).
            statuses = answered()[seen:]
            check(f"csrf {kind}: a cross-origin fetch with the session is refused ({want}) and unreadable",
                  outcome.startswith("blocked") and preflighted.startswith("blocked") and statuses == [want],
                  (outcome, preflighted, statuses))
        check("csrf: nothing changed", self.current_revision("noDocuments") == revision)
        # The same session from the console's own page still works.
        page.goto(self.server.url + "/admin/")
        page.wait_for_selector(".results[data-state=ready]", timeout=5000)
        own = page.evaluate(f"""async () => (await fetch('/v1/admin/preview?locale=fr', {{method: 'POST',
            headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify({json.dumps(HOSTILE)})}})).status""")
        check("csrf: the console's own requests go through", own == 200, own)
        context.close()

    def csp_in_force(self):
        """Under its own CSP (no bypass), the console signs in, searches, edits and previews, and
        the browser reports no violation: it needs no inline script, style or eval."""
        check = self.check
        violations = []
        context, page = None, None
        try:
            context = self.context(csp=True)
            page = context.new_page()
            page.on("console", lambda message: violations.append(message.text) if "Content Security Policy" in message.text else None)
            response = page.goto(self.server.url + "/admin/")
            headers = response.headers
            policy = headers.get("content-security-policy", "")
            check("csp: the console's CSP forbids inline script and framing",
                  "default-src 'self'" in policy and "script-src 'self'" in policy and "'unsafe-inline'" not in policy
                  and "frame-ancestors 'none'" in policy, policy)
            check("csp: nosniff and no referrer", headers.get("x-content-type-options") == "nosniff"
                  and headers.get("referrer-policy") == "no-referrer", headers)
            page.get_by_label("Admin token").fill(ADMIN_TOKEN)
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_selector(".results[data-state=ready]", timeout=5000)
            page.goto(self.server.url + "/admin/#/templates/connectionRefused?locale=fr")
            page.wait_for_selector(".preview-frame .es", timeout=5000)
            page.get_by_label("Title (fr)").fill("Vous êtes hors ligne (CSP)")
            page.wait_for_selector(".preview-frame .es-title >> text=Vous êtes hors ligne (CSP)", timeout=5000)
            check("csp: the console works under its CSP, with no violation", not violations, violations)
        finally:
            if context:
                context.close()

    def current_revision(self, template_id):
        status, _, body = self.server.admin("GET", f"/templates/{template_id}")
        return json.loads(body)["revision"]

    def hostile(self):
        check = self.check
        context, page = self.signed_in()
        screens = [
            ("catalogue", "#/?q=script", ".results[data-state=ready]"),
            ("editor", "#/templates/hostileCopy?locale=en", ".preview-frame .es"),
            ("history", "#/templates/hostileCopy/history", ".comparison table"),
            ("audit", "#/audit?templateId=hostileCopy", ".results table"),
            ("numbers", "#/numbers?template=hostileCopy", ".totals"),
            ("translations", "#/translations", ".translations section"),
        ]
        for name, route, ready in screens:
            page.goto(self.server.url + "/admin/" + route)
            page.wait_for_selector(ready, timeout=5000)
            time.sleep(0.3)
            state = page.evaluate("""() => ({
                pwned: window.__pwned === undefined ? null : window.__pwned,
                scripts: [...document.querySelectorAll('main script, dialog script')].length,
                images: [...document.querySelectorAll('main img')].map(i => i.outerHTML),
                text: document.querySelector('main').innerText,
                values: [...document.querySelectorAll('main input, main textarea')].map(e => e.value),
            })""")
            shown = state["text"] + "\n" + "\n".join(state["values"])
            expected = {"catalogue": [HOSTILE_TITLE, HOSTILE_ACTOR], "editor": [HOSTILE_TITLE, HOSTILE_MESSAGE, HOSTILE_LABEL],
                        "history": [HOSTILE_ACTOR, "Retour \u202e"], "audit": [HOSTILE_ACTOR], "numbers": ["hostileCopy"],
                        "translations": []}[name]
            check(f"hostile {name}: nothing ran, no element made of copy",
                  state["pwned"] is None and state["scripts"] == 0 and state["images"] == [], state)
            missing = [text for text in expected if text not in shown]
            check(f"hostile {name}: the copy shows as text (bidi overrides included)", not missing, missing)
        context.close()

    def screens_axe(self):
        """axe on every screen, light and dark; at 320 px nothing scrolls sideways."""
        for dark in (False, True):
            context = self.context(color_scheme="dark" if dark else "light")
            page = context.new_page()
            page.goto(self.server.url + "/admin/")
            page.wait_for_selector("form.signin", timeout=5000)
            self.axe(page, f"sign-in{' dark' if dark else ''}")
            page.get_by_label("Admin token").fill(ADMIN_TOKEN)
            page.get_by_role("button", name="Sign in").click()
            for name, route, ready in (
                ("catalogue", "#/", ".results[data-state=ready]"),
                ("editor", "#/templates/verifyIdentity?locale=ar", ".preview-frame .es"),
                ("history", "#/templates/noDocuments/history", ".comparison table"),
                ("audit", "#/audit", ".results table"),
                ("policies", "#/policies/ios", ".decisions-table"),
                ("numbers", "#/numbers?template=connectionRefused", ".chart"),
                ("translations", "#/translations", ".translations section"),
            ):
                page.goto(self.server.url + "/admin/" + route)
                page.wait_for_selector(ready, timeout=5000)
                time.sleep(0.3)
                self.axe(page, f"{name}{' dark' if dark else ''}")
            context.close()
        context = self.context()
        context.close()
        narrow = self.context(viewport={"width": 320, "height": 720})
        page = narrow.new_page()
        page.goto(self.server.url + "/admin/")
        page.get_by_label("Admin token").fill(ADMIN_TOKEN)
        page.get_by_role("button", name="Sign in").click()
        for name, route, ready in (("catalogue", "#/", ".results[data-state=ready]"),
                                   ("editor", "#/templates/connectionRefused?locale=de", ".preview-frame .es"),
                                   ("policies", "#/policies/ios", ".decisions-table"), ("audit", "#/audit", ".results table"),
                                   ("numbers", "#/numbers?template=connectionRefused", ".chart")):
            page.goto(self.server.url + "/admin/" + route)
            page.wait_for_selector(ready, timeout=5000)
            time.sleep(0.2)
            width = page.evaluate("document.documentElement.scrollWidth")
            self.check(f"320 px {name}: nothing scrolls sideways", width <= 320, width)
            self.axe(page, f"{name} at 320 px")
        narrow.close()

    def tab_to(self, page, description, predicate, limit=120):
        """Presses Tab until the JavaScript `predicate` holds for the focused element; a failed
        check (with what has the focus) after `limit` presses."""
        for _ in range(limit):
            page.keyboard.press("Tab")
            if page.evaluate(predicate):
                return True
        self.check(f"keyboard: reach {description}", False,
                   page.evaluate("document.activeElement.outerHTML.slice(0, 200)"))
        return False

    def keyboard(self):
        """Search, open, edit French and publish, with the keyboard alone."""
        check = self.check
        context, page = self.signed_in()
        page.wait_for_selector(".results[data-state=ready]", timeout=5000)
        keys = page.keyboard

        def tab_to(description, predicate):
            return self.tab_to(page, description, predicate)

        page.evaluate("document.activeElement.blur()")
        if not tab_to("the search field", "document.activeElement.type === 'search'"):
            return
        keys.type("verify")
        keys.press("Enter")
        page.wait_for_selector('.results[data-state=ready][data-results-for="verify"]', timeout=5000)
        if not tab_to("the template's link", "document.activeElement.textContent === 'verifyIdentity'"):
            return
        keys.press("Enter")
        page.wait_for_selector(".preview-frame .es", timeout=5000)
        if not tab_to("the locale to edit", "document.activeElement.id === 'edit-locale'"):
            return
        page.evaluate("document.activeElement.id")
        while page.evaluate("document.activeElement.value") != "fr":
            keys.press("ArrowDown")
        if not tab_to("the French title", "document.activeElement.id === 'f-strings-fr-title'"):
            return
        keys.press("Control+A")
        keys.type("Confirmez votre identité, s’il vous plaît")
        if not tab_to("Review and publish", "document.activeElement.id === 'publish'"):
            return
        page.wait_for_function("!document.getElementById('publish').disabled", timeout=5000)
        keys.press("Enter")
        page.get_by_role("dialog").wait_for(timeout=5000)
        focused = page.evaluate("document.activeElement.textContent")
        check("keyboard: the dialog opens with Publish focused", focused == "Publish", focused)
        keys.press("Enter")
        page.wait_for_function("document.querySelector('.edit-status')?.textContent.includes('revision 2')", timeout=5000)
        status, _, body = self.server.request("GET", "/v1/templates/verifyIdentity?locale=fr")
        check("keyboard: published with the keyboard alone", json.loads(body)["title"] == "Confirmez votre identité, s’il vous plaît",
              json.loads(body)["title"])
        context.close()

    def scale(self, prepared):
        """At `count` templates, a search in the catalogue answers within 200 ms, in the page."""
        server, count, startup = prepared.result()
        try:
            figures = measure_search(self.browser, server)
        finally:
            server.stop()
        median = statistics.median(figures)
        self.check(f"scale: at {count} templates a search answers in ≤ 200 ms in the browser (median {median:.0f} ms)",
                   median <= 200, figures)
        print(f"[{self.backend}] catalogue search at {count} templates, in the browser: median {median:.0f} ms, "
              f"max {max(figures):.0f} ms over {len(figures)} searches (server start {startup:.1f} s)", flush=True)
        return figures


def main():
    parser = check_parser()
    parser.add_argument("--scale", type=int, default=10000, help="templates for the search timing (0: skip)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright
    axe = axe_source()
    backend_args, backend = store_backend(args)
    started = time.time()
    results = Results()
    tokens = ["--admin-token", f"viewer:viewer:{VIEWER_TOKEN}", "--admin-token", f"second:editor:{SECOND_EDITOR}",
              "--admin-token", f"{HOSTILE_ACTOR}:editor:{HOSTILE_ACTOR_TOKEN}"]
    # At info, the access log: the CSRF checks read what the server answered from it.
    server = Server(args.binary, tokens + backend_args, log_level="info")
    background = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    prepared = background.submit(scale_server, args.binary, args.scale) if args.scale and backend == "sqlite" else None
    other = OtherOrigin()
    try:
        # Hostile copy, written by an author with a hostile name, twice (so the history has a diff).
        status, _, body = server.request("PUT", "/v1/admin/templates/hostileCopy", json.dumps(HOSTILE).encode(),
                                         {"Authorization": f"Bearer {HOSTILE_ACTOR_TOKEN}", "Content-Type": "application/json",
                                          "If-None-Match": "*"})
        assert status == 201, body
        changed = json.loads(json.dumps(HOSTILE))
        changed["strings"]["fr"]["actions.back"] = "Retour \u202e"
        status, _, body = server.request("PUT", "/v1/admin/templates/hostileCopy", json.dumps(changed).encode(),
                                         {"Authorization": f"Bearer {HOSTILE_ACTOR_TOKEN}", "Content-Type": "application/json",
                                          "If-Match": '"r1"'})
        assert status == 200, body
        status, _, body = server.admin("PUT", "/app-policies/ios", {
            "minimumVersion": "5.0", "latestVersion": "5.3.0", "minimumOSVersion": "16.0", "blockedVersions": ["5.1.2"],
            "storeUrl": "https://apps.apple.com/app/id1", "rolloutPercentage": 25}, {"If-None-Match": "*"})
        assert status == 201, body
        post_events(server)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
            checks = Console(server, browser, results, axe, backend)
            timings = [f"server start {time.time() - started:.1f} s"]
            def plurals():
                plural_flow(checks)

            flows = [checks.csp_in_force, checks.editor_flow, plurals, checks.race, checks.viewer, lambda: checks.csrf(other),
                     checks.hostile, checks.keyboard, checks.secrets]
            # The screens' markup does not depend on the backend: axe and 320 px run once, on SQLite.
            if backend == "sqlite":
                flows.insert(-2, checks.screens_axe)
            run_flows(flows, results, backend, timings)
            if prepared:
                try:
                    checks.scale(prepared)
                except Exception as error:
                    results.check(f"[{backend}] scale ran to the end", False, repr(error)[:600])
            browser.close()
    finally:
        other.stop()
        server.stop()
        background.shutdown(wait=True)
        if prepared and prepared.exception() is None:
            prepared.result()[0].stop()  # again, if a failure came before the scale check (stop is idempotent)
    print(f"[{backend}] axe-core: {checks.axe_violations} violations on {checks.axe_pages} screens")
    print(f"[{backend}] console browser checks took {time.time() - started:.1f} s ({', '.join(timings)})")
    print(f"{results.passed} passed, {results.failed} failed")
    sys.exit(1 if results.failed else 0)


def post_events(server):
    """A few displays and taps today, so the numbers screen draws its charts."""
    import uuid
    from datetime import datetime, timezone
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    events = []
    for locale, platform, taps in (("fr", "ios", 1), ("de", "android", 0), ("en", "web", 2)):
        events.append({"id": str(uuid.uuid4()), "type": "displayed", "templateId": "connectionRefused", "revision": 1,
                       "locale": locale, "platform": platform, "appVersion": "5.2.0", "occurredAt": now})
        for _ in range(taps):
            events.append({"id": str(uuid.uuid4()), "type": "actionTapped", "templateId": "connectionRefused", "revision": 1,
                           "locale": locale, "platform": platform, "appVersion": "5.2.0", "actionId": "retry", "occurredAt": now})
    status, _, body = server.request("POST", "/v1/events", json.dumps({"events": events}).encode(), {"Content-Type": "application/json"})
    assert status == 202, body


if __name__ == "__main__":
    main()

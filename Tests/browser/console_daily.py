#!/usr/bin/env python3
"""The console as an editor uses it every day (issue 38), in headless Chromium against the real server.

Usage: Tests/browser/console_daily.py path/to/empty-state-server [--database-url-env NAME] [--measure-only]

SQLite in a throwaway data directory, or the PostgreSQL whose URL the named environment variable
holds. An editor whose browser speaks French changes a French title:

  measure     from opening the template to the client API serving the new title: the editor's
              actions (open, pick a locale when the editor did not open on French, type, review,
              publish), how far the page scrolled (the sum of every scroll the actions needed) and
              the seconds, at 1280×800 and on a 390×844 phone. Printed as `measure …` lines; the
              checks then hold the editor to opening on French with nothing to scroll at 1280×800.

  locale      the editor opens on the locale this editor last edited (remembered in the browser),
              else the browser's language, else the first locale with a missing or stale string,
              and says which
  layout      at 1280×800 the edited locale's fields, the source beside them, the preview and
              Review and publish on the first screen; General, Visual and Actions one click away
              (and opened when the server names one of their fields); on a 390×844 phone the
              preview in view while typing the title and the message
  strings     a strings-only change is sent as PUT …/strings/{locale} (audited `strings`, which the
              audit screen filters by), another change as the whole document (`replace`)
  status      after publishing, focus on the status line, which says what was published; the
              locale's "last changed … by" is the publisher, now
  fields      the title and the message in text areas as tall as their line limits (2 and 3 lines),
              showing a long title whole; Enter adds no line break
  translations  complete means nothing missing and nothing stale; one locale chosen (kept in the
              route); a stale key listed once, with the locales it affects
  quiet       a visit (sign-in page, sign in, catalogue, editor, translations) logs no error in the
              browser's console and asks for no /favicon.ico
  axe         0 violations on the editor (groups opened, and on a phone) and the translations
              screen, light and dark; at 320 px nothing scrolls sideways

`--measure-only` prints the figures without the checks (to measure a console that predates them).
Prints one line per failure and ends with `N passed, N failed`.
"""

import json
import sys
import time

from harness import ADMIN_TOKEN, Results, Server, axe_source, check_parser, chromium_path, run_flows, store_backend

# A template made for the locale checks: its German is stale (its English title changed after it
# was translated) while its Arabic was fixed since.
STALE = {
    "id": "dailyStale", "category": "noResults", "style": "default", "defaultLocale": "en",
    "visual": {"icon": {"ios": "xmark", "android": "close", "web": "triangle-alert"}},
    "strings": {"en": {"title": "Nothing yet", "message": "Come back later."},
                "ar": {"title": "لا شيء بعد", "message": "عد لاحقا."},
                "de": {"title": "Noch nichts", "message": "Komm später wieder."},
                "fr": {"title": "Rien encore", "message": "Revenez plus tard."}},
}
LONG_FRENCH_TITLE = "Aucun document pour le moment dans votre espace de travail partagé"  # 66 columns: 3 lines

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


class Daily:
    """The checks, over one server (and one browser)."""

    def __init__(self, server, browser, results, axe_source, backend):
        self.server = server
        self.browser = browser
        self.results = results
        self.axe_source = axe_source
        self.backend = backend
        self.axe_pages = 0
        self.axe_violations = 0

    def check(self, name, ok, detail=""):
        return self.results.check(f"[{self.backend}] {name}", ok, detail)

    def signed_in(self, token=ADMIN_TOKEN, **options):
        options.setdefault("viewport", DESKTOP)
        context = self.browser.new_context(bypass_csp=True, **options)
        page = context.new_page()
        page.goto(self.server.url + "/admin/")
        page.get_by_label("Admin token").fill(token)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_selector("#account:not([hidden])", timeout=5000)
        return context, page

    def open_editor(self, page, template_id):
        page.goto(f"{self.server.url}/admin/#/templates/{template_id}")
        # The new screen, not the one before it (a hash change keeps the page).
        page.wait_for_function("(id) => document.querySelector('h1 code')?.textContent === id && document.getElementById('edit-locale')"
                               " && document.querySelector('.preview-frame .es')", arg=template_id, timeout=5000)

    def axe(self, page, name):
        if not page.evaluate("typeof axe !== 'undefined'"):
            page.add_script_tag(content=self.axe_source)
        violations = page.evaluate(
            "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
            ".map(v => ({id: v.id, help: v.help, nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 3)}))"
        )
        self.axe_pages += 1
        self.axe_violations += len(violations)
        self.check(f"axe {name}: 0 violations", not violations, json.dumps(violations))

    def audit_actions(self, template_id):
        status, _, body = self.server.admin("GET", f"/audit?templateId={template_id}")
        return [item["action"] for item in json.loads(body)["items"]]

    def client_title(self, template_id, locale):
        status, _, body = self.server.request("GET", f"/v1/templates/{template_id}?locale={locale}")
        return json.loads(body)["title"] if status == 200 else f"HTTP {status}"

    # -- the measurement ------------------------------------------------------------------------

    def measure(self, viewport, template_id, new_title):
        """An editor with a French browser changes `template_id`'s French title and publishes it.
        Returns {actions, scrolled, seconds, opened, title_top, publish_top}."""
        context, page = self.signed_in(viewport=viewport, locale="fr-FR")
        try:
            page.wait_for_selector(".results[data-state=ready]", timeout=5000)
            scrolled = 0
            actions = 0

            def act(step):
                nonlocal scrolled, actions
                before = page.evaluate("scrollY")
                step()
                scrolled += abs(page.evaluate("scrollY") - before)
                actions += 1

            # Opening the template (its link in the catalogue) is the first action; the scrolling
            # counted is the editor's, from its top.
            started = time.monotonic()
            page.get_by_role("link", name=template_id, exact=True).click()
            actions += 1
            page.wait_for_selector(".preview-frame .es", timeout=5000)
            page.evaluate("scrollTo(0, 0)")
            opened = page.evaluate("document.getElementById('edit-locale').value")
            geometry = page.evaluate("""() => {
                const top = (element) => element ? Math.round(element.getBoundingClientRect().top + scrollY) : null;
                return {title: top(document.querySelector('[id$="-title"][lang]')), publish: top(document.getElementById('publish'))};
            }""")
            if opened != "fr":
                act(lambda: page.get_by_label("Edit locale").select_option("fr"))
            act(lambda: page.get_by_label("Title (fr)").fill(new_title))
            act(lambda: page.get_by_role("button", name="Review and publish…").click())
            dialog = page.get_by_role("dialog")
            dialog.wait_for(timeout=5000)
            act(lambda: dialog.get_by_role("button", name="Publish").click())
            while self.client_title(template_id, "fr") != new_title:
                if time.monotonic() - started > 20:
                    raise AssertionError("the client API did not serve the new title within 20 s")
                time.sleep(0.02)
            seconds = time.monotonic() - started
            return {"actions": actions, "scrolled": scrolled, "seconds": seconds, "opened": opened,
                    "title_top": geometry["title"], "publish_top": geometry["publish"]}
        finally:
            context.close()

    # -- the locale the editor opens on -------------------------------------------------------------

    def opened_on(self, page):
        return page.evaluate("document.getElementById('edit-locale').value"), page.locator("#edit-locale-reason").text_content()

    def locale(self):
        check = self.check
        # A browser in a language the template lacks: the first locale with a stale string. (Every
        # locale of a template has the same keys, so a missing string is a locale it lacks.)
        context, page = self.signed_in(locale="it-IT")
        self.open_editor(page, "dailyStale")
        locale, reason = self.opened_on(page)
        check("locale: without a choice or a browser match, the first locale with a stale string (not the first after the source)",
              locale == "de" and "stale" in reason, (locale, reason))
        self.open_editor(page, "connectionRefused")
        locale, reason = self.opened_on(page)
        check("locale: and when none is stale, the first after the source", locale == "ar" and "after the source" in reason, (locale, reason))
        # Editing a string remembers its locale, for this editor, in this browser.
        self.open_editor(page, "dailyStale")
        page.get_by_label("Edit locale").select_option("ar")
        check("locale: once another is picked, the reason goes", page.locator("#edit-locale-reason").text_content() == "")
        page.get_by_label("Title (ar)").fill("لا شيء بعد!")
        page.get_by_role("button", name="Discard changes").click()
        self.open_editor(page, "loading")
        locale, reason = self.opened_on(page)
        check("locale: the locale this editor last edited comes first", locale == "ar" and "edited last" in reason, (locale, reason))
        stored = page.evaluate("JSON.stringify(localStorage)")
        check("locale: remembered in the browser, the locale only", "ar" in stored and ADMIN_TOKEN not in stored, stored)
        context.close()
        context, page = self.signed_in(locale="fr-CA")
        self.open_editor(page, "connectionRefused")
        locale, reason = self.opened_on(page)
        check("locale: a French (Canada) browser gets fr, and is told why",
              locale == "fr" and reason == "Opened on fr: your browser's language (fr-CA).", (locale, reason))
        check("locale: the preview draws the same locale", page.evaluate("document.querySelector('.preview-frame').dataset.locale") == "fr")
        page.goto(f"{self.server.url}/admin/#/templates/connectionRefused?locale=ja")
        page.wait_for_selector(".preview-frame .es", timeout=5000)
        locale, reason = self.opened_on(page)
        check("locale: a link that names a locale wins", locale == "ja" and "link" in reason, (locale, reason))
        context.close()

    # -- the layout -------------------------------------------------------------------------------

    def layout(self):
        check = self.check
        context, page = self.signed_in(locale="fr-FR")
        self.open_editor(page, "connectionRefused")
        boxes = page.evaluate("""() => {
            const box = (element) => { const r = element.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; };
            const title = document.getElementById('f-strings-fr-title');
            return {title: box(title), source: box(title.closest('.copy-row').querySelector('.source')),
                    message: box(document.getElementById('f-strings-fr-message')), preview: box(document.querySelector('.preview-frame')),
                    publish: box(document.getElementById('publish')), height: innerHeight, scrollY};
        }""")
        first = lambda box: box["top"] >= 0 and box["bottom"] <= boxes["height"]
        check("layout 1280×800: the title, the message, the preview and Review and publish on the first screen",
              all(first(boxes[name]) for name in ("title", "message", "preview", "publish")) and boxes["scrollY"] == 0, boxes)
        check("layout 1280×800: the source beside the field", boxes["source"]["right"] <= boxes["title"]["left"]
              and boxes["source"]["top"] < boxes["title"]["bottom"], boxes)
        groups = page.evaluate("[...document.querySelectorAll('details.more')].map(d => [d.querySelector('summary').textContent, d.open])")
        check("layout: General, Visual and Actions are closed groups after the copy",
              [g[0].split(":")[0].split(" (")[0] for g in groups] == ["General", "Visual", "Actions"] and not any(g[1] for g in groups), groups)
        page.get_by_text("General: category, style").click()
        check("layout: General is one click away", page.get_by_label("Category").is_visible())
        # A page reached far down scrolls; publishing stays in view all the same.
        page.locator("summary", has_text="Actions (").click()
        page.evaluate("scrollTo(0, document.body.scrollHeight)")
        check("layout: Review and publish stays in view at the bottom of a long form",
              page.evaluate("(() => { const r = document.getElementById('publish').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()"))
        # The server's error on a field of a closed group opens it.
        page.get_by_text("Visual: icon").click()  # closes nothing: open Visual, then close it again
        page.get_by_text("Visual: icon").click()
        page.get_by_label("Aliases").fill("BAD ALIAS!")
        page.get_by_text("General: category, style").click()  # close General
        page.wait_for_function("document.querySelector('details[data-group=general]').open", timeout=5000)
        check("layout: a closed group opens when the server names one of its fields",
              page.get_by_label("Aliases").get_attribute("aria-invalid") == "true")
        self.axe(page, "editor, groups open")
        page.get_by_role("button", name="Discard changes").click()
        context.close()
        for dark in (False, True):
            context, page = self.signed_in(locale="fr-FR", color_scheme="dark" if dark else "light")
            self.open_editor(page, "noDocuments")
            self.axe(page, f"editor at 1280×800{' dark' if dark else ''}")
            context.close()
        # A phone: the preview stays in view while typing, and the field under it too.
        context, page = self.signed_in(viewport=PHONE, locale="fr-FR")
        self.open_editor(page, "loading")
        for label, text in (("Title (fr)", "Chargement en cours"), ("Message (fr)", "Un instant, nous préparons tout pour vous.")):
            field = page.get_by_label(label)
            field.focus()
            page.keyboard.press("End")
            page.keyboard.type("!")
            time.sleep(0.6)
            view = page.evaluate("""(id) => {
                const frame = document.querySelector('.preview-frame').getBoundingClientRect();
                const preview = document.querySelector('.preview').getBoundingClientRect();
                const field = document.activeElement.getBoundingClientRect();
                return {frame: [frame.top, frame.bottom], preview: [preview.top, preview.bottom], field: [field.top, field.bottom], height: innerHeight,
                        drawn: document.querySelector('.preview-frame .es-title')?.textContent, value: document.activeElement.value};
            }""", None)
            check(f"phone 390×844: typing in {label}, the preview is in view",
                  view["frame"][0] >= 0 and view["frame"][1] <= view["height"], view)
            check(f"phone 390×844: typing in {label}, the field is not under the preview",
                  view["field"][0] >= view["preview"][1] - 1 and view["field"][1] <= view["height"], view)
        check("phone 390×844: the preview draws what is typed", page.evaluate("document.querySelector('.preview-frame .es-title').textContent").endswith("!"))
        toggle = page.get_by_role("button", name="Hide preview")
        toggle.click()
        check("phone: the preview can be hidden to make room", not page.locator(".preview-frame").is_visible()
              and page.get_by_role("button", name="Show preview").get_attribute("aria-expanded") == "false")
        page.get_by_role("button", name="Show preview").click()
        self.axe(page, "editor on a phone")
        page.get_by_role("button", name="Discard changes").click()
        context.close()
        context, page = self.signed_in(viewport={"width": 320, "height": 720}, locale="fr-FR")
        for name, route, ready in (("editor", "#/templates/connectionRefused", ".preview-frame .es"),
                                   ("translations", "#/translations", ".translations section")):
            page.goto(self.server.url + "/admin/" + route)
            page.wait_for_selector(ready, timeout=5000)
            time.sleep(0.3)
            width = page.evaluate("document.documentElement.scrollWidth")
            check(f"320 px {name}: nothing scrolls sideways", width <= 320, width)
            self.axe(page, f"{name} at 320 px")
        context.close()

    # -- what is sent, and what is said after -------------------------------------------------------

    def strings_and_status(self):
        check = self.check
        actions = self.audit_actions("noDocuments")
        check("strings: the measured French title went as a strings change", actions[:1] == ["strings"], actions)
        context, page = self.signed_in(locale="fr-FR")
        self.open_editor(page, "verifyIdentity")
        title = page.get_by_label("Title (fr)")
        check("fields: the title is a text area of 2 lines, the message of 3",
              page.evaluate("[document.getElementById('f-strings-fr-title'), document.getElementById('f-strings-fr-message')].map(e => [e.localName, e.rows])")
              == [["textarea", 2], ["textarea", 3]])
        title.fill(LONG_FRENCH_TITLE)
        whole = page.evaluate("(() => { const e = document.getElementById('f-strings-fr-title'); return [e.scrollHeight, e.clientHeight]; })()")
        check("fields: a long title shows whole (no hidden overflow)", whole[0] <= whole[1] + 1, whole)
        title.press("End")
        title.press("Enter")
        check("fields: Enter adds no line break to copy", "\n" not in title.input_value())
        title.fill("Confirmez votre identité")
        page.get_by_role("button", name="Review and publish…").click()
        page.get_by_role("dialog").get_by_role("button", name="Publish").click()
        page.wait_for_function("document.querySelector('.edit-status').textContent.includes('revision 2')", timeout=5000)
        focused = page.evaluate("document.activeElement.className")
        check("status: after publishing, focus is on the status line", focused == "edit-status", focused)
        status = page.locator(".edit-status").text_content()
        check("status: it says what was published", status.startswith("Published the fr strings: revision 2") and "by browser" in status, status)
        hint = page.locator(".group.copy > .hint").last.text_content()
        check("status: the locale's last change is the publisher's, without a reload", hint.startswith("fr last changed") and hint.endswith("by browser."), hint)
        check("strings: audited as strings", self.audit_actions("verifyIdentity")[:1] == ["strings"], self.audit_actions("verifyIdentity"))
        # A change outside the strings goes as the whole document.
        page.get_by_text("General: category, style").click()
        page.get_by_label("Style").select_option("subtle")
        page.get_by_role("button", name="Review and publish…").click()
        page.get_by_role("dialog").get_by_role("button", name="Publish").click()
        page.wait_for_function("document.querySelector('.edit-status').textContent.includes('revision 3')", timeout=5000)
        check("strings: another change is audited as replace", self.audit_actions("verifyIdentity")[:2] == ["replace", "strings"],
              self.audit_actions("verifyIdentity"))
        check("status: the whole template published says so", page.locator(".edit-status").text_content().startswith("Published the template: revision 3"))
        # The audit screen finds the strings change by its action.
        page.goto(f"{self.server.url}/admin/#/audit?templateId=verifyIdentity&action=strings")
        page.wait_for_selector(".results table", timeout=5000)
        rows = page.locator(".results tbody tr")
        check("audit screen: filtered by strings, the console's strings edit is there",
              rows.count() == 1 and "/strings/fr/title" in rows.first.text_content() and "r2" in rows.first.text_content(),
              [rows.nth(i).text_content() for i in range(rows.count())])
        context.close()

    # -- translations -------------------------------------------------------------------------------

    def translations(self):
        check = self.check
        status, _, body = self.server.admin("GET", "/locales")
        report = {entry["locale"]: entry for entry in json.loads(body)["locales"]}
        fr = report["fr"]
        incomplete = {item["templateId"] for item in fr["missing"] + fr["stale"]}
        expected = fr["templates"] - len(incomplete)
        context, page = self.signed_in(locale="fr-FR")
        page.goto(self.server.url + "/admin/#/translations")
        page.wait_for_selector(".translations section", timeout=5000)
        text = page.locator("#locale-fr").locator("xpath=..").text_content()
        check("translations: complete means nothing missing and nothing stale",
              f"{expected} of {fr['templates']} templates complete" in text and expected < fr["templates"], (expected, text))
        stale = page.locator("section.stale li", has_text="dailyStale · title")
        check("translations: a stale key is listed once, with the locales it affects",
              stale.count() == 1 and [a.text_content() for a in stale.get_by_role("link").all()] == ["de", "fr"],
              [stale.nth(i).text_content() for i in range(stale.count())])
        href = stale.get_by_role("link", name="dailyStale · title in fr").get_attribute("href")
        check("translations: each locale of it links to its field", href == "#/templates/dailyStale?locale=fr&field=title", href)
        page.get_by_label("Locale").focus()
        page.get_by_label("Locale").select_option("fr")
        sections = page.evaluate("[...document.querySelectorAll('.translations section.locale h2')].map(h => h.textContent)")
        check("translations: one locale can be chosen", sections == ["fr"], sections)
        where = page.evaluate("[location.hash, document.activeElement.id]")
        check("translations: the choice is in the route, focus stays on the chooser", where == ["#/translations?locale=fr", "translations-locale"], where)
        stale_de = page.locator("section.stale li", has_text="dailyStale · title")
        check("translations: the stale list follows the choice", stale_de.count() == 1 and stale_de.get_by_role("link").count() == 1)
        page.reload()
        page.wait_for_selector(".translations section", timeout=5000)
        check("translations: a reload keeps the choice", page.evaluate("[...document.querySelectorAll('section.locale h2')].map(h => h.textContent)") == ["fr"])
        for dark in (False, True):
            page.emulate_media(color_scheme="dark" if dark else "light")
            self.axe(page, f"translations{' dark' if dark else ''}")
        context.close()

    # -- a quiet console ------------------------------------------------------------------------------

    def quiet(self):
        check = self.check
        context = self.browser.new_context(viewport=DESKTOP, locale="fr-FR")  # under the console's own CSP
        page = context.new_page()
        errors, asked = [], []
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("request", lambda request: asked.append(request.url))
        page.goto(self.server.url + "/admin/")
        page.wait_for_selector("form.signin", timeout=5000)
        time.sleep(0.5)
        check("quiet: the sign-in page logs no error", not errors, errors)
        page.get_by_label("Admin token").fill(ADMIN_TOKEN)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_selector(".results[data-state=ready]", timeout=5000)
        for route, ready in (("#/templates/connectionRefused", ".preview-frame .es"), ("#/translations", ".translations section")):
            page.goto(self.server.url + "/admin/" + route)
            page.wait_for_selector(ready, timeout=5000)
        time.sleep(0.5)
        check("quiet: a visit logs no error in the browser's console", not errors, errors)
        check("quiet: no /favicon.ico asked for (the page names its icon)", not [u for u in asked if "favicon" in u], asked)
        icon = page.evaluate("document.querySelector('link[rel=icon]')?.href || ''")
        check("quiet: the page names an icon", icon.startswith("data:image/svg+xml,"), icon[:60])
        context.close()

    def measurements(self, checks=True):
        figures = {}
        for name, viewport, template_id, title in (("1280x800", DESKTOP, "noDocuments", "Rien pour le moment"),
                                                   ("390x844", PHONE, "noSearchResults", "Aucun résultat ici")):
            figure = self.measure(viewport, template_id, title)
            figures[name] = figure
            print(f"[{self.backend}] measure {name}: {figure['actions']} actions, scrolled {figure['scrolled']} px, "
                  f"{figure['seconds']:.2f} s from opening {template_id} to the client API serving its French title "
                  f"(opened on {figure['opened']}; the title field at {figure['title_top']} px, "
                  f"Review and publish at {figure['publish_top']} px)", flush=True)
        if checks:
            desktop = figures["1280x800"]
            self.check("measure: a French browser opens the editor on fr", desktop["opened"] == "fr", desktop)
            self.check("measure: at 1280×800 the change takes 4 actions and no scrolling",
                       desktop["actions"] == 4 and desktop["scrolled"] == 0, desktop)
            self.check("measure: at 1280×800 the title field and Review and publish are on the first screen",
                       desktop["title_top"] < DESKTOP["height"] and desktop["publish_top"] < DESKTOP["height"], desktop)
        return figures


def main():
    parser = check_parser()
    parser.add_argument("--measure-only", action="store_true", help="print the measurement, check nothing")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright
    axe = axe_source()
    backend_args, backend = store_backend(args)
    started = time.time()
    results = Results()
    server = Server(args.binary, backend_args)
    try:
        prepare(server)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
            checks = Daily(server, browser, results, axe, backend)
            measure = lambda: checks.measurements(checks=not args.measure_only)  # noqa: E731
            measure.__name__ = "measure"
            flows = [measure]
            if not args.measure_only:
                flows += [checks.locale, checks.strings_and_status, checks.translations, checks.quiet]
                if backend == "sqlite":  # the markup does not depend on the backend
                    flows.insert(2, checks.layout)
            run_flows(flows, results, backend)
            browser.close()
    finally:
        server.stop()
    print(f"[{backend}] axe-core: {checks.axe_violations} violations on {checks.axe_pages} screens")
    print(f"[{backend}] daily-use browser checks took {time.time() - started:.1f} s")
    print(f"{results.passed} passed, {results.failed} failed")
    sys.exit(1 if results.failed else 0)


def prepare(server):
    """The locale checks' template: German stale, while Arabic was fixed after the English change."""
    server.put_template(STALE)
    # Who changed a string when is said to the second: the changes are a second apart, as people's are.
    time.sleep(1.1)
    english = dict(STALE["strings"]["en"], title="Nothing yet, sorry")
    status, _, body = server.admin("PUT", "/templates/dailyStale/strings/en", english, {"If-Match": '"r1"'})
    assert status == 200, body
    time.sleep(1.1)
    arabic = dict(STALE["strings"]["ar"], title="لا شيء بعد، آسف")
    status, _, body = server.admin("PUT", "/templates/dailyStale/strings/ar", arabic, {"If-Match": '"r2"'})
    assert status == 200, body


if __name__ == "__main__":
    main()

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

`--measure-only` prints the figures without the checks (to measure a console that predates them).
Prints one line per failure and ends with `N passed, N failed`.
"""

import argparse
import json
import os
import sys
import time

from harness import ADMIN_TOKEN, Results, Server, chromium_path

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

            started = time.monotonic()
            act(lambda: page.get_by_role("link", name=template_id, exact=True).click())
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
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--database-url-env", help="the environment variable holding a PostgreSQL URL")
    parser.add_argument("--measure-only", action="store_true", help="print the measurement, check nothing")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright
    import axe_playwright_python

    axe_source = open(os.path.join(os.path.dirname(axe_playwright_python.__file__), "axe.min.js"), encoding="utf-8").read()
    backend_args, backend = [], "sqlite"
    if args.database_url_env:
        url = os.environ.get(args.database_url_env)
        if not url:
            raise SystemExit(f"{args.database_url_env} is not set")
        backend_args, backend = ["--database-url", url], "postgres"
    started = time.time()
    results = Results()
    server = Server(args.binary, backend_args)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
            checks = Daily(server, browser, results, axe_source, backend)
            flows = [lambda: checks.measurements(checks=not args.measure_only)]
            for flow in flows:
                try:
                    flow()
                except Exception as error:  # a flow that breaks is a failure, and the others still run
                    results.check(f"[{backend}] {getattr(flow, '__name__', 'flow')} ran to the end", False, repr(error)[:600])
            browser.close()
    finally:
        server.stop()
    print(f"[{backend}] axe-core: {checks.axe_violations} violations on {checks.axe_pages} screens")
    print(f"[{backend}] daily-use browser checks took {time.time() - started:.1f} s")
    print(f"{results.passed} passed, {results.failed} failed")
    sys.exit(1 if results.failed else 0)


if __name__ == "__main__":
    main()

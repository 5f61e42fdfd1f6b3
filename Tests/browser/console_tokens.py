#!/usr/bin/env python3
"""The console's Tokens screen (#/tokens) in headless Chromium, against the real server.

Usage: Tests/browser/console_tokens.py path/to/empty-state-server [--database-url-env NAME]

SQLite in a throwaway data directory, or the PostgreSQL whose URL the named environment variable
holds. An admin token, an editor and a viewer are configured; the console is driven by role and
label:

  list        the admin sees the link and every token with its role and source, never a secret
  create      with the keyboard alone: name, role, Enter; the secret shown once, focused, copied
              with the button (the clipboard holds it), and it works against the admin API
  refused     a name already taken: the server's 409 shown on the Name field (aria-invalid)
  revoke      Revoke → a confirmation (Escape cancels, focus back) → confirmed: the row says
              Revoked, and the token gets 401 at once
  others      an editor has no Tokens link, and the screen says only an admin manages tokens
  axe         0 violations on the list, the secret panel and the confirmation, light and dark,
              and at 320 px, where nothing scrolls sideways (SQLite run); screenshots written
              to $SCREENSHOTS (default: a temporary directory) for a look

Prints one line per failure and ends with `N passed, N failed`.
"""

import os
import sys
import tempfile
import time

from console import Console, VIEWER_TOKEN
from harness import ADMIN_TOKEN, Results, Server, axe_source, check_parser, chromium_path, run_flows, store_backend

ROOT_TOKEN = "browser-checks-admin-token-0123456789"


class TokenChecks(Console):
    """The Tokens screen's checks, over one server."""

    def __init__(self, *args, shots):
        super().__init__(*args)
        self.shots = shots

    def open(self, page):
        page.goto(self.server.url + "/admin/#/tokens")
        page.wait_for_selector(".results table", timeout=5000)

    def api_status(self, secret):
        status, _, _ = self.server.request("GET", "/v1/admin/templates?pageSize=1", headers={"Authorization": f"Bearer {secret}"})
        return status

    def list_and_create(self):
        check = self.check
        context, page = self.signed_in(ROOT_TOKEN)
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=self.server.url)
        check("list: the admin has a Tokens link", page.get_by_role("link", name="Tokens").is_visible())
        page.get_by_role("link", name="Tokens").click()
        page.wait_for_selector(".results table", timeout=5000)
        rows = page.locator("table.tokens tbody tr").all_inner_texts()
        check("list: every configured token, with its role and source",
              any("root" in r and "admin" in r and "Configuration" in r for r in rows)
              and any("viewer" in r for r in rows) and any("browser" in r and "editor" in r for r in rows), rows)
        check("list: no secret on the page", ROOT_TOKEN not in page.content() and VIEWER_TOKEN not in page.content())
        self.axe(page, "tokens list")
        page.screenshot(path=os.path.join(self.shots, f"tokens-list-{self.backend}.png"), full_page=True)

        # Create with the keyboard alone.
        self.tab_to(page, "the Name field", "document.activeElement.id === 'token-name'")
        page.keyboard.type("ci-browser")
        page.keyboard.press("Tab")
        check("create: Tab goes from Name to Role", page.evaluate("document.activeElement.id") == "token-role",
              page.evaluate("document.activeElement.outerHTML.slice(0, 120)"))
        page.keyboard.press("ArrowDown")
        check("create: the arrow keys choose the role", page.evaluate("document.activeElement.value") == "editor",
              page.evaluate("document.activeElement.value"))
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Enter")  # the form's implicit submission
        page.wait_for_selector("#new-token-secret", timeout=5000)
        secret = page.get_by_label("The editor token “ci-browser”").input_value()
        check("create: the secret is shown", secret.startswith("est_") and len(secret) == 68, secret)
        check("create: focus moves to the panel's heading",
              page.evaluate("document.activeElement.id") == "secret-heading", page.evaluate("document.activeElement.outerHTML"))
        page.get_by_role("button", name="Copy the token").press("Enter")
        page.wait_for_selector("text=Copied.", timeout=3000)
        copied = page.evaluate("navigator.clipboard.readText()")
        check("create: the copy button puts the secret on the clipboard", copied == secret)
        check("create: the new token works against the admin API", self.api_status(secret) == 200)
        page.wait_for_function("document.querySelectorAll('table.tokens tbody tr').length >= 4", timeout=5000)
        row = page.locator("table.tokens tbody tr", has_text="ci-browser").inner_text()
        check("create: the list shows it, made here, with who made it", "Made here" in row and "root" in row and "editor" in row, row)
        self.axe(page, "tokens with a new secret")
        page.screenshot(path=os.path.join(self.shots, f"tokens-secret-{self.backend}.png"), full_page=True)
        page.get_by_role("button", name="Done: hide it").click()
        check("create: the secret is gone once hidden", secret not in page.content())
        page.reload()
        page.wait_for_selector(".results table", timeout=5000)
        check("create: … and never shown again", secret not in page.content())

        # A name already taken: the server's 409 on the field.
        page.get_by_label("Name").fill("ci-browser")
        page.get_by_role("button", name="Create token").click()
        page.wait_for_selector("#token-name[aria-invalid=true]", timeout=5000)
        error = page.locator("#token-name-error").inner_text()
        check("refused: a taken name is shown on the Name field", "taken" in error, error)
        check("refused: focus on the field", page.evaluate("document.activeElement.id") == "token-name")

        # Revoke, after a confirmation.
        page.get_by_role("button", name="Revoke ci-browser").click()
        dialog = page.get_by_role("dialog")
        dialog.wait_for(timeout=3000)
        self.axe(page, "revoke confirmation")
        page.keyboard.press("Escape")
        check("revoke: Escape cancels, focus back on the button",
              page.evaluate("document.activeElement.textContent") == "Revoke ci-browser")
        check("revoke: … and nothing is revoked", self.api_status(secret) == 200)
        page.get_by_role("button", name="Revoke ci-browser").click()
        page.get_by_role("dialog").get_by_role("button", name="Revoke").click()
        page.wait_for_function(
            "[...document.querySelectorAll('table.tokens tbody tr')].some(r => r.textContent.includes('ci-browser') && r.textContent.includes('Revoked'))",
            timeout=5000)
        check("revoke: the token is refused at once", self.api_status(secret) == 401)
        check("revoke: no Revoke button on a revoked token", page.get_by_role("button", name="Revoke ci-browser").count() == 0)
        page.goto(self.server.url + "/admin/#/audit")
        page.wait_for_selector(".results table", timeout=5000)
        audit = page.locator(".results table tbody").inner_text()
        check("audit: the creation and the revocation are in the audit log, by root",
              audit.count("admin token tok_") >= 2 and "root" in audit, audit[:300])
        context.close()

    def others(self):
        context, page = self.signed_in(ADMIN_TOKEN)  # an editor
        self.check("others: an editor has no Tokens link", not page.get_by_role("link", name="Tokens").is_visible())
        page.goto(self.server.url + "/admin/#/tokens")
        page.wait_for_selector("h1:has-text('Admin tokens')", timeout=5000)
        note = page.locator("main .notice").inner_text()
        self.check("others: the screen says only an admin manages tokens", "Only an admin" in note, note)
        self.check("others: no form, no list", page.locator("main form, main table").count() == 0)
        context.close()

    def screens_axe(self):
        for dark in (False, True):
            context, page = self.signed_in(ROOT_TOKEN, color_scheme="dark" if dark else "light")
            self.open(page)
            self.axe(page, "tokens" + (" dark" if dark else ""))
            context.close()
        context, page = self.signed_in(ROOT_TOKEN, viewport={"width": 320, "height": 720})
        self.open(page)
        page.get_by_label("Name").fill("narrow")
        page.get_by_role("button", name="Create token").click()
        page.wait_for_selector("#new-token-secret", timeout=5000)
        time.sleep(0.2)
        width = page.evaluate("document.documentElement.scrollWidth")
        self.check("320 px tokens with a secret: nothing scrolls sideways", width <= 320, width)
        self.axe(page, "tokens at 320 px")
        page.screenshot(path=os.path.join(self.shots, f"tokens-320-{self.backend}.png"), full_page=True)
        context.close()


def main():
    parser = check_parser()
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright
    axe = axe_source()
    backend_args, backend = store_backend(args)
    shots = os.environ.get("SCREENSHOTS") or tempfile.mkdtemp(prefix="console-tokens-")
    os.makedirs(shots, exist_ok=True)
    started = time.time()
    results = Results()
    tokens = ["--admin-token", f"viewer:viewer:{VIEWER_TOKEN}", "--admin-token", f"root:admin:{ROOT_TOKEN}"]
    server = Server(args.binary, tokens + backend_args)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
            checks = TokenChecks(server, browser, results, axe, backend, shots=shots)
            flows = [checks.list_and_create, checks.others]
            if backend == "sqlite":  # the markup does not depend on the backend
                flows.append(checks.screens_axe)
            run_flows(flows, results, backend)
            browser.close()
    finally:
        server.stop()
    print(f"[{backend}] axe-core: {checks.axe_violations} violations on {checks.axe_pages} screens")
    print(f"[{backend}] screenshots in {shots}")
    print(f"[{backend}] tokens browser checks took {time.time() - started:.1f} s")
    print(f"{results.passed} passed, {results.failed} failed")
    sys.exit(1 if results.failed else 0)


if __name__ == "__main__":
    main()

"""The console editor and plural strings (issue 36): a field per CLDR plural category of the
edited locale, the service's 422 on the form's field, and a publish the client API serves with
`param.count`. Run by console.py, on each backend."""

import json

PLURAL = {
    "id": "plHiddenConsole",
    "category": "noResults",
    "style": "default",
    "defaultLocale": "en",
    "visual": {"icon": {"ios": "magnifyingglass", "android": "search_off", "web": "search-x"}},
    "actions": [],
    "strings": {
        "en": {"title": "Nothing matches your filters",
               "message": {"plural": "count", "one": "One result is hidden by filters.", "other": "{count} results are hidden by filters."}},
        "ru": {"title": "Ничего не найдено",
               "message": {"plural": "count", "one": "{count} результат скрыт фильтрами.", "few": "{count} результата скрыты фильтрами.",
                           "many": "{count} результатов скрыто фильтрами.", "other": "{count} результата скрыто фильтрами."}},
    },
}
FEW = "{count} результата скрыто вашими фильтрами."


def plural_flow(checks):
    """Opens a plural template in Russian, checks its fields, provokes a 422 on one form and
    publishes another form."""
    check = checks.check
    status, _, body = checks.server.admin("PUT", f"/templates/{PLURAL['id']}", PLURAL, {"If-None-Match": "*"})
    check("plurals: the template is created", status == 201, body[:300])
    context, page = checks.signed_in()
    checks.open_editor(page, PLURAL["id"], locale="ru")
    labels = [page.get_by_label(f"Message, {category} (ru)", exact=True).count() for category in ("zero", "one", "two", "few", "many", "other")]
    check("plurals: a field per CLDR category of ru (one, few, many, other), none for zero or two", labels == [0, 1, 0, 1, 1, 1], str(labels))
    check("plurals: each field says which numbers take it",
          "For 1, 21, 31" in (page.locator("#f-strings-ru-message-one").locator("xpath=ancestor::div[contains(@class,'copy-row')]").text_content() or ""))
    one = page.get_by_label("Message, one (ru)", exact=True)
    one.fill("Один результат скрыт фильтрами.")
    error = page.locator("#f-strings-ru-message-one-error")
    try:
        error.wait_for(state="visible", timeout=5000)
    except Exception:
        pass
    check("plurals: the 422 for a ru one form without {count} lands on its field",
          "must show {count}" in (error.text_content() or "") and one.get_attribute("aria-invalid") == "true", error.text_content())
    one.fill("{count} результат скрыт фильтрами.")
    page.wait_for_function("document.querySelector('#f-strings-ru-message-one-error').hidden", timeout=5000)
    page.get_by_label("Message, few (ru)", exact=True).fill(FEW)
    checks.axe(page, "editor with a plural string")
    page.get_by_role("button", name="Review and publish…").click()
    dialog = page.get_by_role("dialog")
    dialog.wait_for(timeout=5000)
    dialog.get_by_role("button", name="Publish").click()
    page.wait_for_function("document.querySelector('.edit-status')?.textContent.includes('revision 2')", timeout=5000)
    status, _, body = checks.server.request("GET", f"/v1/templates/{PLURAL['id']}?locale=ru&param.count=3")
    served = json.loads(body).get("message") if status == 200 else f"HTTP {status}"
    check("plurals: published, the client API serves the few form for 3", served == FEW.replace("{count}", "3"), served)
    status, _, body = checks.server.admin("GET", f"/templates/{PLURAL['id']}")
    forms = json.loads(body)["template"]["strings"]["ru"]["message"] if status == 200 else {}
    check("plurals: the other forms are kept", forms.get("many") == PLURAL["strings"]["ru"]["message"]["many"], json.dumps(forms, ensure_ascii=False))
    context.close()
    # Gone again, so the other flows see the catalogue they expect.
    status, _, _ = checks.server.admin("DELETE", f"/templates/{PLURAL['id']}", None, {"If-Match": '"r2"'})
    check("plurals: the template is deleted", status == 204)

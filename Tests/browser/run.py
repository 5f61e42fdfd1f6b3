#!/usr/bin/env python3
"""The web platform checked in headless Chromium, against the real server binary.

Usage: Tests/browser/run.py path/to/empty-state-server

For every built-in template in en, de (long words), ar (RTL), en-XA and ar-XB (pseudo-locales),
the spec's conformance vectors (../shared/seeds 002):
  empty-001  in a 400x400 container the content's centre is within 1 px of the container's
  empty-002  icon + heading only renders both, and nothing empty (a template saved for it)
  empty-003  with two actions both render, the primary is first in tab order and prominent
  empty-004  in a 200x150 container nothing overflows or scrolls; clamped text ends in an ellipsis
  empty-006  the icon is not in the accessibility tree, the heading is its first node
then axe-core (0 violations) on the preview page of each template, LTR and RTL, and the gallery
in light and dark; hostile copy saved through the admin API renders as text in the fragment, the
page and the web component; and the component itself from another origin (CORS, the same
markup, the two log lines, the action event, events delivered when the page is left); and its
`preview-token` attribute (a change request's copy beside live copy, no events from it, nothing
rendered once the token is revoked); its install id's kept time, sent as X-Installed-At, so an
experiment targeting new installs admits a browser whose id it made now and not one whose id
predates the kept time or the start.

One browser, one page per locale and size: the gallery (/preview) puts every template in its own
container side by side, so a locale's vectors cost two page loads. Prints a table and ends with
`N passed, N failed`.
"""

import json
import re
import sys
import time
from datetime import datetime, timezone

from harness import OtherOrigin, Results, Server, axe_source, builtin_document, builtin_ids, chromium_path

LOCALES = ["en", "de", "ar", "en-XA", "ar-XB"]
VECTORS = ["empty-001", "empty-002", "empty-003", "empty-004", "empty-006"]

BARE = {
    "id": "iconHeadingOnly",
    "category": "loading",
    "style": "default",
    "defaultLocale": "en",
    "visual": {"icon": {"ios": "hourglass", "android": "hourglass_empty", "web": "hourglass"}},
    "strings": {
        "en": {"title": "Loading your statements"},
        "de": {"title": "Ihre Kontoauszüge werden geladen"},
        "ar": {"title": "جارٍ تحميل كشوف حسابك"},
    },
}

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
        "en": {
            "title": HOSTILE_TITLE,
            "message": HOSTILE_MESSAGE,
            "actions.go": HOSTILE_LABEL,
            "actions.back": "Back \u2067home\u2069",
        }
    },
}

# Per gallery item: geometry, clamping and order, measured in the page.
MEASURE = """
() => [...document.querySelectorAll('.gallery-item')].map(item => {
  const frame = item.querySelector('.gallery-frame');
  const es = frame.querySelector('.es');
  const body = es.querySelector('.es-body');
  const rect = e => { const r = e.getBoundingClientRect(); return {x: r.x, y: r.y, w: r.width, h: r.height}; };
  const shown = [...body.children].filter(e => getComputedStyle(e).display !== 'none');
  let top = Infinity, left = Infinity, bottom = -Infinity, right = -Infinity;
  for (const e of shown) {
    const r = e.getBoundingClientRect();
    top = Math.min(top, r.top); left = Math.min(left, r.left);
    bottom = Math.max(bottom, r.bottom); right = Math.max(right, r.right);
  }
  const texts = [...es.querySelectorAll('.es-title, .es-message, .es-action')]
    .filter(e => getComputedStyle(e).display !== 'none')
    .map(e => {
      const s = getComputedStyle(e);
      return {
        tag: e.tagName.toLowerCase(), text: e.textContent,
        sw: e.scrollWidth, cw: e.clientWidth, sh: e.scrollHeight, ch: e.clientHeight,
        clamp: s.webkitLineClamp, ellipsis: s.textOverflow, overflow: s.overflowX + '/' + s.overflowY,
        box: rect(e),
      };
    });
  const buttons = [...es.querySelectorAll('button')].map(b => {
    const s = getComputedStyle(b);
    return {role: b.dataset.role, type: b.getAttribute('type'), tabindex: b.getAttribute('tabindex'),
            bg: s.backgroundColor, border: s.borderTopColor, box: rect(b), label: b.textContent};
  });
  const empty = [...es.querySelectorAll('*')].filter(e =>
    !(e instanceof SVGElement) && e.children.length === 0 && e.textContent.trim() === '' && e.tagName !== 'IMG'
  ).map(e => e.outerHTML);
  const pageBg = getComputedStyle(es).backgroundColor;
  return {
    id: es.dataset.template, frame: rect(frame),
    content: {x: left, y: top, w: right - left, h: bottom - top},
    es: {sw: es.scrollWidth, cw: es.clientWidth, sh: es.scrollHeight, ch: es.clientHeight},
    frameScroll: {sw: frame.scrollWidth, cw: frame.clientWidth, sh: frame.scrollHeight, ch: frame.clientHeight},
    visual: body.querySelector('.es-visual') ? rect(body.querySelector('.es-visual')) : null,
    visualShown: !!body.querySelector('.es-visual') && getComputedStyle(body.querySelector('.es-visual')).display !== 'none',
    heading: es.querySelector('.es-title') ? {tag: es.querySelector('.es-title').tagName.toLowerCase(),
                                               box: rect(es.querySelector('.es-title'))} : null,
    texts, buttons, empty, pageBg,
  };
})
"""

# A comparable form of a subtree (tag, sorted attributes, text), to hold the component's markup
# against the server's fragment.
SHAPE = """
(root) => {
  const shape = node => {
    if (node.nodeType === Node.TEXT_NODE) return node.data;
    if (node.nodeType !== Node.ELEMENT_NODE) return null;
    const attributes = [...node.attributes].filter(a => a.name !== 'xmlns').map(a => a.name + '=' + a.value).sort();
    return [node.localName, attributes, [...node.childNodes].map(shape).filter(x => x !== null && x !== '')];
  };
  return JSON.stringify(shape(root));
}
"""


def parse_rgb(text):
    parts = text[text.index("(") + 1 : text.index(")")].replace("/", ",").split(",")
    values = [float(p) for p in parts if p.strip()]
    alpha = values[3] if len(values) > 3 else 1.0
    return values[:3], alpha


def luminance(rgb):
    def channel(c):
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b):
    la, lb = luminance(a), luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def effective_background(css, page):
    rgb, alpha = parse_rgb(css)
    base, _ = parse_rgb(page)
    return [alpha * c + (1 - alpha) * p for c, p in zip(rgb, base)]


class Checks:
    def __init__(self, server, browser, results):
        self.server = server
        self.browser = browser
        self.results = results
        self.table = {(vector, locale): None for vector in VECTORS for locale in LOCALES}
        self.ids = builtin_ids()
        self.axe_violations = 0
        self.axe_pages = 0

    def record(self, vector, locale, ok):
        key = (vector, locale)
        self.table[key] = (self.table[key] is not False) and ok

    def gallery(self, page, locale, size):
        response = page.goto(f"{self.server.url}/preview?locale={locale}&size={size}")
        self.results.check(f"GET /preview {locale} {size}", response.status == 200, response.status)
        return {item["id"]: item for item in page.evaluate(MEASURE)}

    def conformance(self, page, locale):
        square = self.gallery(page, locale, "400x400")
        small = self.gallery(page, locale, "200x150")
        check = self.results.check
        for template_id in self.ids:
            document = builtin_document(template_id)
            item = square.get(template_id)
            if not check(f"{template_id} {locale}: in the gallery", item is not None):
                for vector in VECTORS:
                    self.record(vector, locale, False)
                continue
            # empty-001: centred within 1 px.
            frame, content = item["frame"], item["content"]
            dx = abs((frame["x"] + frame["w"] / 2) - (content["x"] + content["w"] / 2))
            dy = abs((frame["y"] + frame["h"] / 2) - (content["y"] + content["h"] / 2))
            self.record(
                "empty-001", locale, check(f"empty-001 {template_id} {locale}: centred", dx <= 1 and dy <= 1, f"dx={dx:.2f} dy={dy:.2f}")
            )
            # empty-003: two (or more) actions: all render, primary first and prominent.
            buttons = item["buttons"]
            if len(document.get("actions", [])) >= 2:
                ok = check(f"empty-003 {template_id} {locale}: every action renders",
                           len(buttons) == len(document["actions"]) and all(b["box"]["w"] > 0 and b["box"]["h"] > 0 for b in buttons),
                           buttons)
                ok &= check(f"empty-003 {template_id} {locale}: primary first in tab order",
                            buttons[0]["role"] == "primary" and all(b["tabindex"] is None for b in buttons), buttons)
                ok &= check(f"empty-003 {template_id} {locale}: buttons are type=button",
                            all(b["type"] == "button" for b in buttons))
                page_bg = effective_background(item["pageBg"], "rgb(255, 255, 255)")
                primary = contrast(effective_background(buttons[0]["bg"], item["pageBg"]), page_bg)
                secondary = contrast(effective_background(buttons[1]["bg"], item["pageBg"]), page_bg)
                ok &= check(f"empty-003 {template_id} {locale}: primary filled, prominent",
                            primary >= 3 and secondary < 1.5, f"primary {primary:.2f}:1, secondary {secondary:.2f}:1")
                self.record("empty-003", locale, ok)
            # empty-006: run on the gallery's accessibility tree, below.
            # empty-004: 200x150.
            tiny = small.get(template_id)
            ok = check(f"empty-004 {template_id} {locale}: in the small gallery", tiny is not None)
            if ok:
                for name, box in (("frame", tiny["frameScroll"]), ("es", tiny["es"])):
                    ok &= check(f"empty-004 {template_id} {locale}: {name} does not overflow",
                                box["sw"] <= box["cw"] and box["sh"] <= box["ch"], box)
                for text in tiny["texts"]:
                    overflows = text["sw"] > text["cw"] or text["sh"] > text["ch"] + 1
                    clamped = text["clamp"] not in ("none", "", None) or text["ellipsis"] == "ellipsis"
                    ok &= check(f"empty-004 {template_id} {locale}: {text['tag']} fits or is clamped with an ellipsis",
                                not overflows or (clamped and "hidden" in text["overflow"]), text)
                f = tiny["frame"]
                inside = lambda b: b["x"] >= f["x"] - 0.5 and b["y"] >= f["y"] - 0.5 and b["x"] + b["w"] <= f["x"] + f["w"] + 0.5 and b["y"] + b["h"] <= f["y"] + f["h"] + 0.5
                if "icon" in document["visual"]:
                    ok &= check(f"empty-004 {template_id} {locale}: icon shown inside",
                                tiny["visualShown"] and tiny["visual"] and tiny["visual"]["h"] > 0 and inside(tiny["visual"]), tiny["visual"])
                ok &= check(f"empty-004 {template_id} {locale}: heading shown inside",
                            tiny["heading"] and tiny["heading"]["box"]["h"] > 0 and inside(tiny["heading"]["box"]), tiny["heading"])
                ok &= check(f"empty-004 {template_id} {locale}: actions shown inside",
                            len(tiny["buttons"]) == len(document.get("actions", []))
                            and all(b["box"]["w"] > 0 and inside(b["box"]) for b in tiny["buttons"]), tiny["buttons"])
            self.record("empty-004", locale, ok)
        # empty-002: icon + heading only.
        bare = square.get("iconHeadingOnly")
        ok = self.results.check(f"empty-002 {locale}: in the gallery", bare is not None)
        if ok:
            ok &= self.results.check(f"empty-002 {locale}: icon shown", bare["visual"] and bare["visual"]["w"] > 0, bare["visual"])
            ok &= self.results.check(f"empty-002 {locale}: heading shown", bare["heading"] and bare["heading"]["box"]["h"] > 0)
            ok &= self.results.check(f"empty-002 {locale}: nothing else, nothing empty",
                                     not bare["empty"] and not bare["buttons"] and all(t["tag"] == "h3" for t in bare["texts"]), bare)
        self.record("empty-002", locale, ok)
        # empty-006: the icon is not in the accessibility tree, the heading comes first.
        page.goto(f"{self.server.url}/preview?locale={locale}&size=400x400")
        for template_id in self.ids + ["iconHeadingOnly"]:
            document = builtin_document(template_id) if template_id != "iconHeadingOnly" else BARE
            tree = page.locator(f'.es[data-template="{template_id}"]').aria_snapshot()
            lines = [line.strip() for line in tree.splitlines() if line.strip()]
            decorative = "visual.label" not in document["strings"][document["defaultLocale"]]
            ok = self.results.check(f"empty-006 {template_id} {locale}: heading first", lines and lines[0].startswith("- heading"), tree)
            if decorative:
                ok &= self.results.check(f"empty-006 {template_id} {locale}: no image announced", "img" not in tree, tree)
            if template_id != "iconHeadingOnly":
                self.record("empty-006", locale, ok)

    def axe(self, page, url, name, axe_source, dark=False):
        page.emulate_media(color_scheme="dark" if dark else "light")
        response = page.goto(url)
        self.results.check(f"axe {name}: page loads", response.status == 200, response.status)
        page.add_script_tag(content=axe_source)
        violations = page.evaluate(
            "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
            ".map(v => ({id: v.id, help: v.help, nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 3)}))"
        )
        self.axe_pages += 1
        self.axe_violations += len(violations)
        self.results.check(f"axe {name}: 0 violations", not violations, json.dumps(violations))
        page.emulate_media(color_scheme="light")

    def hostile_dom(self, page, root_selector, where):
        """The hostile template's copy is text in the DOM: nothing ran, no element was made of it."""
        state = page.evaluate(
            """(selector) => {
              const root = document.querySelector(selector);
              return root && {
                pwned: window.__pwned === undefined ? null : window.__pwned,
                scripts: root.querySelectorAll('script').length,
                images: root.querySelectorAll('img').length,
                title: root.querySelector('.es-title')?.textContent,
                message: root.querySelector('.es-message')?.textContent,
                label: root.querySelector('[data-action-id=go]')?.textContent,
                target: root.querySelector('[data-action-id=go]')?.getAttribute('data-action-target'),
                links: root.querySelectorAll('a').length,
              };
            }""",
            root_selector,
        )
        check = self.results.check
        ok = check(f"hostile {where}: rendered", state is not None)
        if ok:
            ok &= check(f"hostile {where}: no script ran", state["pwned"] is None, state)
            ok &= check(f"hostile {where}: no element made of copy",
                        state["scripts"] == 0 and state["images"] == 0 and state["links"] == 0, state)
            ok &= check(f"hostile {where}: copy shown as text",
                        state["title"] == HOSTILE_TITLE and state["message"] == HOSTILE_MESSAGE and state["label"] == HOSTILE_LABEL,
                        state)
            ok &= check(f"hostile {where}: javascript: target inert data", state["target"] == "javascript:window.__pwned=3", state)
        return ok

    def hostile(self, page, other):
        # The fragment, fetched and inserted as a page would (innerHTML: the worst case).
        page.goto(f"{self.server.url}/preview?locale=en")
        page.evaluate(
            """async (url) => {
              const html = await (await fetch(url)).text();
              const box = document.createElement('div');
              box.id = 'inserted';
              box.innerHTML = html;
              document.body.append(box);
              await new Promise(r => setTimeout(r, 100));
            }""",
            f"{self.server.url}/v1/web/templates/hostileCopy?locale=en",
        )
        self.hostile_dom(page, "#inserted", "fragment")
        self.hostile_dom(page, '.gallery-item .es[data-template="hostileCopy"]', "gallery")
        clicked = page.locator('#inserted [data-action-id="go"]')
        clicked.click()
        self.results.check("hostile fragment: pressing the javascript: action runs nothing",
                           page.evaluate("window.__pwned === undefined"))
        page.goto(f"{self.server.url}/v1/web/templates/hostileCopy/page?locale=en")
        self.hostile_dom(page, "main", "page")
        self.results.check("hostile page: the title is text", page.title() == HOSTILE_TITLE, page.title())
        url = other.add(
            "/hostile.html",
            f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>hostile</title>
<script type="module" src="{self.server.url}/v1/web/assets/empty-state.js"></script></head>
<body><main><empty-state id="h" template="hostileCopy"></empty-state></main></body></html>""",
        )
        page.goto(url)
        page.wait_for_selector("#h .es", timeout=5000)
        self.hostile_dom(page, "#h", "component")

    def component(self, page, other):
        check = self.results.check
        logs = []
        page.on("console", lambda message: logs.append((message.type, message.text)))
        sent = []  # (URL, X-Install-ID, X-Installed-At) of each template request
        page.on("request", lambda request: sent.append((request.url, request.all_headers().get("x-install-id"),
                                                          request.all_headers().get("x-installed-at")))
                if "/v1/templates/" in request.url and request.method == "GET" else None)
        url = other.add(
            "/component.html",
            f"""<!doctype html><html lang="de"><head><meta charset="utf-8"><title>component</title>
<script type="module" src="{self.server.url}/v1/web/assets/empty-state.js"></script></head>
<body><main>
<empty-state id="a" template="noInternetConnection" class="es-frame" style="inline-size: 400px; block-size: 400px"></empty-state>
<empty-state id="b" template="verifyIdentity" locale="ar" heading-level="2" param-provider="BankID"></empty-state>
</main>
<script>
  window.actions = [];
  document.addEventListener('empty-state-action', e => window.actions.push(e.detail));
</script></body></html>""",
        )
        page.goto(url)
        page.wait_for_selector("#a .es", timeout=5000)
        page.wait_for_selector("#b .es", timeout=5000)
        # The same markup as the server's fragment.
        for element, path in (("#a", "/v1/web/templates/noInternetConnection?locale=de"),
                              ("#b", "/v1/web/templates/verifyIdentity?locale=ar&level=2&param.provider=BankID")):
            served = page.evaluate(
                f"""async () => {{
                  const t = document.createElement('template');
                  t.innerHTML = await (await fetch('{self.server.url}{path}')).text();
                  return ({SHAPE})(t.content.firstElementChild);
                }}"""
            )
            rendered = page.evaluate(f"() => ({SHAPE})(document.querySelector('{element} .es'))")
            check(f"component {element}: the same markup as {path}", served == rendered, f"{served}\n!=\n{rendered}")
        check("component: German from the page's lang", page.locator("#a .es").get_attribute("lang") == "de")
        install = page.evaluate("localStorage.getItem('empty-state-install-id')") or ""
        check("component: an install id (a UUID) is made once and kept in localStorage",
              re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", install) is not None, install)
        installed = page.evaluate("localStorage.getItem('empty-state-installed-at')") or ""
        check("component: the id's birth is kept beside it (RFC 3339, to the second, within the last minute)",
              re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", installed) is not None
              and abs(time.time() - datetime.strptime(installed, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc).timestamp()) < 60,
              installed)
        check("component: every template request sends the install id and its time (X-Installed-At)",
              len(sent) >= 2 and all((i, t) == (install, installed) for _, i, t in sent), sent)
        check("component: right-to-left from locale=ar", page.locator("#b .es").get_attribute("dir") == "rtl")
        check("component: the stylesheet linked once",
              page.evaluate("document.querySelectorAll('link[rel=stylesheet][href$=\"empty-state.css\"]').length") == 1)
        check("component: styled (centred flex column)",
              page.evaluate("getComputedStyle(document.querySelector('#a .es')).display") == "flex")
        time.sleep(0.3)
        heading = page.locator("#a .es-title").text_content()
        check("component: log line displayed",
              ("debug", f'EmptyState: displayed "{heading}"') in logs, logs)
        page.locator('#a [data-action-id="retry"]').click()
        label = page.locator('#a [data-action-id="retry"]').text_content()
        check("component: log line action tapped", ("debug", f'EmptyState: action "{label}" tapped') in logs, logs)
        actions = page.evaluate("window.actions")
        check("component: empty-state-action event",
              actions == [{"templateId": "connectionRefused", "actionId": "retry", "type": "retry", "target": None, "label": label}], actions)
        # Leaving the page sends what is queued (fetch keepalive, with its CORS preflight).
        page.goto("about:blank")
        events = []
        deadline = time.time() + 10
        while time.time() < deadline:
            status, _, body = self.server.admin("GET", "/analytics/events?limit=1000")
            events = [json.loads(line) for line in body.decode().splitlines() if line.strip()]
            web = [e for e in events if e.get("platform") == "web"]
            if len([e for e in web if e["templateId"] in ("connectionRefused", "verifyIdentity")]) >= 3:
                break
            time.sleep(0.2)
        web = [e for e in events if e.get("platform") == "web"]
        kinds = sorted((e["type"], e["templateId"], e["locale"], e.get("actionId")) for e in web
                       if e["templateId"] in ("connectionRefused", "verifyIdentity"))
        check("component: events delivered when the page is left",
              kinds == [("actionTapped", "connectionRefused", "de", "retry"),
                        ("displayed", "connectionRefused", "de", None),
                        ("displayed", "verifyIdentity", "ar", None)], kinds)
        # An id kept by an earlier version of the component has no time: it is never called new.
        page.goto(url)
        page.wait_for_selector("#a .es", timeout=5000)
        page.evaluate("localStorage.removeItem('empty-state-installed-at')")
        sent.clear()
        page.reload()
        page.wait_for_selector("#a .es", timeout=5000)
        check("component: an id without a kept time sends no X-Installed-At (and keeps its id)",
              len(sent) >= 2 and all((i, t) == (install, None) for _, i, t in sent)
              and page.evaluate("localStorage.getItem('empty-state-installed-at')") is None, sent)

    def new_installs(self, browser, other):
        """An experiment that targets new installs admits a browser whose install id the component
        made now (it sends X-Installed-At), and not one whose id predates the component's kept time
        or was made before the start."""
        check = self.results.check
        document = {
            "id": "web-new-installs", "templateId": "noTransactions", "status": "draft", "coverage": 1,
            "primaryMetric": {"type": "anyTap"}, "targeting": {"newInstalls": True},
            "variants": [{"key": "control", "weight": 0.5},
                         {"key": "b", "weight": 0.5, "strings": {"en": {"title": "No payments yet"}}}],
        }
        status, _, body = self.server.admin("PUT", "/experiments/web-new-installs", document, {"If-None-Match": "*"})
        status, _, body = self.server.admin("PUT", "/experiments/web-new-installs", dict(document, status="running"),
                                            {"If-Match": '"r1"'})
        if not check("new installs: a running experiment targeting new installs", status == 200, body[:300]):
            return
        url = other.add(
            "/new-installs.html",
            f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>new installs</title>
<script type="module" src="{self.server.url}/v1/web/assets/empty-state.js"></script></head>
<body><main><empty-state id="n" template="noTransactions"></empty-state></main></body></html>""",
        )

        def served(stored):
            """The experiment member the component rendered, with `stored` put in localStorage first."""
            context = browser.new_context()
            if stored:
                context.add_init_script("".join(f"localStorage.setItem({json.dumps(k)}, {json.dumps(v)});"
                                                for k, v in stored.items()))
            page = context.new_page()
            page.goto(url)
            page.wait_for_selector("#n .es", timeout=5000)
            member = page.evaluate("document.querySelector('#n .es').dataset.experimentId || null")
            context.close()
            return member

        check("new installs: a browser whose id the component makes now is in the experiment",
              served({}) == "web-new-installs")
        check("new installs: an id kept without a time (an earlier component) is not new",
              served({"empty-state-install-id": "legacy-browser-0001"}) is None)
        check("new installs: an id made before the start is not new",
              served({"empty-state-installed-at": "2020-01-01T00:00:00Z",
                      "empty-state-install-id": "old-browser-0001"}) is None)
        self.server.admin("PUT", "/experiments/web-new-installs", dict(document, status="stopped"), {"If-Match": '"r2"'})

    def preview(self, page, other):
        """`preview-token`: a change request's copy in one element, live copy in its neighbour,
        and no events from the preview."""
        check = self.results.check
        status, _, body = self.server.admin("GET", "/templates/noDocuments")
        template = json.loads(body)["template"]
        template["strings"]["en"]["title"] = "Nothing here yet (browser preview)"
        status, _, body = self.server.admin("POST", "/change-requests", {
            "title": "Browser preview", "changes": [{"kind": "template", "id": "noDocuments", "document": template}]})
        request = json.loads(body)["id"]
        status, _, body = self.server.admin("POST", f"/change-requests/{request}/preview-tokens", {"label": "browser"})
        check("preview: a token is made", status == 201, status)
        token, token_id = json.loads(body)["token"], json.loads(body)["id"]
        url = other.add(
            "/preview.html",
            f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>preview</title>
<script type="module" src="{self.server.url}/v1/web/assets/empty-state.js"></script></head>
<body><main>
<empty-state id="live" template="noDocuments"></empty-state>
<empty-state id="preview" template="noDocuments" preview-token="{token}"></empty-state>
</main></body></html>""",
        )
        page.goto(url)
        page.wait_for_selector("#live .es", timeout=5000)
        page.wait_for_selector("#preview .es", timeout=5000)
        live = page.locator("#live .es-title").text_content()
        check("preview: the element with the token shows the request's copy (cross-origin, preflighted)",
              page.locator("#preview .es-title").text_content() == "Nothing here yet (browser preview)",
              page.locator("#preview .es-title").text_content())
        check("preview: its neighbour without one shows live copy", live != "Nothing here yet (browser preview)", live)
        time.sleep(0.3)
        page.goto("about:blank")
        shown = []
        deadline = time.time() + 10
        while time.time() < deadline:
            status, _, body = self.server.admin("GET", "/analytics/events?limit=1000")
            events = [json.loads(line) for line in body.decode().splitlines() if line.strip()]
            shown = [e for e in events if e.get("platform") == "web" and e["templateId"] == "noDocuments"]
            if shown:
                break
            time.sleep(0.2)
        time.sleep(0.5)
        status, _, body = self.server.admin("GET", "/analytics/events?limit=1000")
        events = [json.loads(line) for line in body.decode().splitlines() if line.strip()]
        shown = [e["type"] for e in events if e.get("platform") == "web" and e["templateId"] == "noDocuments"]
        check("preview: only the live element's display is counted", shown == ["displayed"], shown)
        status, _, _ = self.server.admin("DELETE", f"/change-requests/{request}/preview-tokens/{token_id}")
        check("preview: the token is revoked", status == 204, status)
        page.goto(url)
        page.wait_for_selector("#live .es", timeout=5000)
        time.sleep(1.0)
        check("preview: a revoked token renders nothing (the page's own fallback stays)",
              page.evaluate("document.querySelector('#preview .es') === null && document.querySelector('#preview').template === null"))



def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    from playwright.sync_api import sync_playwright

    axe = axe_source()
    started = time.time()
    results = Results()
    server = Server(sys.argv[1])
    other = OtherOrigin()
    try:
        server.put_template(BARE)
        server.put_template(HOSTILE)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
            # bypass_csp: axe is injected as a script, which the pages' CSP forbids; and the
            # hostile checks then hold the escaping itself, not the CSP behind it.
            context = browser.new_context(viewport={"width": 1400, "height": 1000}, bypass_csp=True)
            page = context.new_page()
            checks = Checks(server, browser, results)
            for locale in LOCALES:
                checks.conformance(page, locale)
            for template_id in checks.ids:
                for locale in ("en", "ar"):
                    checks.axe(page, f"{server.url}/v1/web/templates/{template_id}/page?locale={locale}",
                               f"{template_id} {locale}", axe)
            for locale in ("de", "ar-XB"):
                for dark in (False, True):
                    checks.axe(page, f"{server.url}/preview?locale={locale}", f"gallery {locale}{' dark' if dark else ''}",
                               axe, dark=dark)
            checks.hostile(page, other)
            component_page = context.new_page()
            checks.component(component_page, other)
            checks.preview(context.new_page(), other)
            checks.new_installs(browser, other)
            browser.close()
    finally:
        other.stop()
        server.stop()

    print("\nconformance (vector x locale):")
    print("| vector | " + " | ".join(LOCALES) + " |")
    print("| --- |" + " --- |" * len(LOCALES))
    for vector in VECTORS:
        cells = []
        for locale in LOCALES:
            value = checks.table[(vector, locale)]
            cells.append("pass" if value else ("n/a" if value is None else "FAIL"))
        print(f"| {vector} | " + " | ".join(cells) + " |")
    print(f"axe-core: {checks.axe_violations} violations on {checks.axe_pages} pages")
    print(f"browser checks took {time.time() - started:.1f} s")
    print(f"{results.passed} passed, {results.failed} failed")
    sys.exit(1 if results.failed else 0)


if __name__ == "__main__":
    main()

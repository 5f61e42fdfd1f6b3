#!/usr/bin/env python3
"""The console's Experiments screen (#/experiments) in headless Chromium, against the real server.

Usage: Tests/browser/console_experiments.py path/to/empty-state-server [--database-url-env NAME]

SQLite in a throwaway data directory, or the PostgreSQL whose URL the named environment variable
holds. The experiments are created through the admin API; the console is driven by role and label:

  render      the list (id, template, status, started) and the detail (variants, their strings)
  lifecycle   start (confirm, PUT with If-Match) → running, the results panel from the real
              endpoint ("Collecting data: …"), stop → stopped; a stale revision's 412 shown
  keyboard    with the keyboard alone: open the screen, start an experiment, ship a variant; the
              client API then serves the variant's copy
  real        the results of a running experiment from the real endpoint, after 400 installs asked
              for the template (the server assigned their variants) and sent their events, one
              of them under both variants: the table shows the server's counts and rates, the
              crossed install excluded, the verdict the server's in its words, a day over time, the
              CSV link downloading with the console's session
  segments    the same experiment per segment: the picker from the keyboard, a row group per
              platform and a row per variant with the server's installs and verdict sentence, the
              caveat that a segment's verdict is a hint, axe clean; by app version at 320 px,
              nothing scrolls sideways
  overrides   QA overrides on a running experiment: an empty or malformed install id refused on its
              field (the server's 422), one added (stored, served its variant by the client API),
              shown in the summary, removed (back to its hashed variant); axe clean
  verdicts    the results panel's table (one-look and always-valid figures), chart, exclusions by
              reason, plan and progress, chart and table over time, and verdict in words for each
              verdict the contract names, and an error answer (these answers are fixtures served
              through Playwright's routing: contract-shaped, not computed by the server)
  json        a new experiment in the JSON editor: text that is not JSON refused on the field, the
              server's 422 pointer listed beside it, fixed, checked, created (If-None-Match: *)
  viewer      every write control disabled with the reason, the JSON read-only; a forged ship
              refused (403)
  hostile     script tags, event attributes and bidi overrides in variant strings and in the
              author's name shown as text
  rtl         right to left, the chart mirrors (names on the right, the axis from the right)
  axe         0 violations on the list, the detail (with its chart) and the confirmation dialog,
              light and dark, and at 320 px, where nothing scrolls sideways (SQLite run)
  csp         the screens under the console's own CSP, with no violation reported

Prints one line per failure and ends with `N passed, N failed`.
"""

import json
import random
import sys
import time
import uuid
from datetime import datetime, timezone

from console import HOSTILE_ACTOR, HOSTILE_ACTOR_TOKEN, HOSTILE_MESSAGE, HOSTILE_TITLE, VIEWER_TOKEN, Console
from harness import ADMIN_TOKEN, Results, Server, axe_source, check_parser, chromium_path, run_flows, store_backend

HOSTILE_LABEL = "Try \u202eagain\u202c now"
ARABIC_TITLE = "أنت غير متصل بالإنترنت"
KEYBOARD_TITLE = "Nothing here yet"


def experiment(experiment_id, template_id, action, b_strings, status="draft"):
    return {
        "id": experiment_id, "templateId": template_id, "status": status, "coverage": 1,
        "primaryMetric": {"type": "tap", "action": action},
        "variants": [{"key": "control", "weight": 0.5}, {"key": "b", "weight": 0.5, "strings": b_strings}],
    }


HOSTILE_EXPERIMENT = experiment("hostile-copy", "connectionRefused", "retry", {
    "en": {"title": HOSTILE_TITLE, "message": HOSTILE_MESSAGE, "actions.retry": HOSTILE_LABEL},
    "ar": {"title": ARABIC_TITLE},
})
KEYBOARD_EXPERIMENT = experiment("keyboard-ship", "noDocuments", "create", {"en": {"title": KEYBOARD_TITLE}})
VIEWER_EXPERIMENT = dict(experiment("viewer-view", "verifyIdentity", "verify", {"en": {"title": "Confirm it is you"}}),
                         targeting={"platforms": ["ios", "android"], "locales": ["en", "fr"], "appVersion": {"min": "5.2"}},
                         overrides=[{"installId": "qa-viewer-phone", "variant": "b"}])
REAL_EXPERIMENT = experiment("real-results", "somethingWentWrong", "retry", {"en": {"actions.retry": "Reload the page"}})


def expose(server, experiment_id, template_id, action, installs, rates, seed=24, platforms=("ios",)):
    """`installs` installs ask for `template_id` (the server assigns each its variant: the
    `experiment` member of the answer), are each displayed it once, and tap `action` with the
    chance `rates[variant]`: real events, so the results are the server's own. Install n reports
    platform `platforms[n % len(platforms)]`."""
    chance = random.Random(seed)
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    events = []
    for index in range(installs):
        install = f"{experiment_id}-install-{index:05d}"
        status, _, body = server.request("GET", f"/v1/templates/{template_id}?locale=en", headers={"X-Install-ID": install})
        served = json.loads(body)
        member = served.get("experiment")
        if status != 200 or not member or member["id"] != experiment_id:
            raise SystemExit(f"GET {template_id} as {install}: {status}, experiment {member}")
        common = {"templateId": template_id, "revision": served["revision"], "locale": "en",
                  "platform": platforms[index % len(platforms)],
                  "appVersion": "5.2.0", "occurredAt": now, "experimentId": experiment_id, "variant": member["variant"],
                  "installId": install}
        events.append({"id": str(uuid.uuid4()), "type": "displayed", **common})
        if chance.random() < rates[member["variant"]]:
            events.append({"id": str(uuid.uuid4()), "type": "actionTapped", "actionId": action, **common})
    for start in range(0, len(events), 500):
        status, _, body = server.request("POST", "/v1/events", json.dumps({"events": events[start:start + 500]}).encode(),
                                         {"Content-Type": "application/json"})
        if status != 202:
            raise SystemExit(f"POST /v1/events: {status} {body[:300]}")


def arm(key, control, installs, conversions, rate, difference=None, p=None, chance=None, significant=None, sequential=None):
    value = {"key": key, "control": control, "weight": 0.5, "installs": installs, "conversions": conversions,
             "displayed": installs * 3, "tapped": conversions * 2,
             "rate": {"value": rate[0], "lower": rate[1], "upper": rate[2]}}
    if not control:
        value.update({"difference": {"value": difference[0], "lower": difference[1], "upper": difference[2]},
                      "pValue": p, "chanceToBeatControl": chance, "significant": significant})
        if sequential:
            value["sequential"] = {"difference": sequential[0], "lower": sequential[1], "upper": sequential[2],
                                   "pValue": sequential[3], "significant": sequential[1] > 0 or sequential[2] < 0,
                                   "drifted": False, "since": "2026-11-20"}
    return value


PLAN = {"baselineRate": 0.1, "minimumDetectableEffect": {"relative": 0.1}, "alpha": 0.05, "power": 0.8,
        "absoluteEffect": 0.01, "relativeEffect": 0.1, "fixedHorizonInstalls": [14751, 14751],
        "sequentialInstalls": [28242, 28242],
        "expectedDuration": {"basis": "displays", "dailyInstalls": 2480, "days": 23, "recommendedDays": 28}}


def timeline(variants, days=3):
    """Cumulative days ending at `variants`' counts, the always-valid interval narrowing."""
    points = []
    for day in range(days):
        share = (day + 1) / days
        arms = []
        for v in variants:
            point = {"key": v["key"], "installs": round(v["installs"] * share), "conversions": round(v["conversions"] * share),
                     "rate": v["rate"]["value"]}
            if "sequential" in v:
                widen = 1 + (days - 1 - day)
                s = v["sequential"]
                point["difference"] = v["difference"]
                point["sequential"] = dict(s, lower=s["difference"] - (s["difference"] - s["lower"]) * widen,
                                           upper=s["difference"] + (s["upper"] - s["difference"]) * widen)
            arms.append(point)
        points.append({"date": f"2026-11-{20 + day:02d}", "variants": arms})
    return points


def points(difference):
    """A difference in percentage points as the console writes it: "+1.0", "−0.1" (a minus sign)."""
    value = 100 * difference
    text = f"{abs(value):.1f}"
    return f"+{text}" if value > 1e-7 else f"−{text}" if value < -1e-7 else "0.0"


def fixture(verdict, words, winner=None, variants=None, mismatch=False, excluded=12, plan=True):
    """A results answer shaped as the contract says (docs/experiments.md), for the rendering checks."""
    variants = variants or [
        arm("control", True, 15000, 1500, (0.1, 0.0952, 0.1049)),
        arm("b", False, 15003, 1650, (0.11, 0.105, 0.115), (0.01, 0.003, 0.017), 0.004, 0.998, True, (0.01, 0.002, 0.018, 0.01)),
    ]
    answer = {
        "experimentId": "hostile-copy", "templateId": "connectionRefused", "status": "running",
        "primaryMetric": {"type": "tap", "action": "retry"}, "minimumInstallsPerVariant": 100,
        "enoughData": verdict != "collecting", "excludedInstalls": excluded,
        "excluded": {"crossed": excluded - 4, "override": 1, "outsideTarget": 1, "notAssigned": 1, "beforeStart": 1,
                     "afterStop": 0} if excluded else
                    {"crossed": 0, "override": 0, "outsideTarget": 0, "notAssigned": 0, "beforeStart": 0, "afterStop": 0},
        "sampleRatio": {"chiSquare": 14.2 if mismatch else 0.83, "pValue": 0.0002 if mismatch else 0.36, "mismatch": mismatch},
        "verdict": verdict, "winner": winner, "verdictText": words, "warnings": [],
        "guardrails": [{"key": "back", "harm": "increase", "state": "harmed" if verdict == "winner" else "inconclusive",
                        "variants": [{"variant": "b", "controlRate": 0.15, "rate": 0.3 if verdict == "winner" else 0.16,
                                      "harm": 0.15 if verdict == "winner" else 0.01, "lowerBound": 0.1 if verdict == "winner" else -0.02,
                                      "upperBound": 0.2 if verdict == "winner" else 0.04, "pValue": 0.0001 if verdict == "winner" else 0.4,
                                      "margin": 0.015, "state": "harmed" if verdict == "winner" else "inconclusive", "drifted": False}]}],
        "fixedHorizonVerdict": "winner" if verdict == "keep-running" else verdict, "fixedHorizonWinner": "b" if verdict == "keep-running" else winner,
        "variants": variants, "timeline": timeline(variants),
    }
    if plan:
        answer["plan"] = PLAN
        answer["progress"] = {"installs": 30003, "plannedInstalls": 56484, "share": 0.5312, "reached": False,
                              "dailyInstalls": 1420, "remainingDays": 19}
    return answer


def fixture_case(verdict, words, **kwargs):
    return fixture(verdict, words, **kwargs), words


FIXTURES = {
    "winner": fixture_case("winner", "Variant b wins: 11.0 % of its installs converted against 10.0 % for control.", winner="b"),
    "collecting": fixture_case("collecting", "Collecting: every variant needs 100 installs before its results are read; control has 40 so far.",
                               variants=[arm("control", True, 40, 4, (0.1, 0.04, 0.23)),
                                         arm("b", False, 52, 7, (0.13, 0.07, 0.25), (0.03, -0.1, 0.16), 0.6, 0.7, False)],
                               plan=False),
    "sample-ratio-mismatch": fixture_case("sample-ratio-mismatch", "Do not use these results: installs are not split as the weights say.", mismatch=True),
    "keep-running": fixture_case("keep-running", "Keep running: no variant differs clearly from control yet.", variants=[
        arm("control", True, 15000, 1500, (0.1, 0.0952, 0.1049)),
        arm("b", False, 15003, 1650, (0.11, 0.105, 0.115), (0.01, 0.003, 0.017), 0.004, 0.998, True, (0.01, -0.001, 0.021, 0.091))]),
}


class ExperimentChecks(Console):

    def open(self, page, route, ready):
        page.goto(f"{self.server.url}/admin/#{route}")
        page.wait_for_selector(ready, timeout=5000)

    def serve_fixture(self, page, answer, status=200):
        body = json.dumps(answer)
        content_type = "application/json" if status == 200 else "application/problem+json"
        page.unroute("**/v1/admin/experiments/hostile-copy/results")
        page.route("**/v1/admin/experiments/hostile-copy/results",
                   lambda route: route.fulfill(status=status, content_type=content_type, body=body))

    def experiment_status(self, experiment_id):
        status, headers, body = self.server.admin("GET", f"/experiments/{experiment_id}")
        return json.loads(body)["experiment"]["status"] if status == 200 else f"HTTP {status}"

    # -- flows ----------------------------------------------------------------------------------

    def render(self):
        check = self.check
        context, page = self.signed_in()
        page.get_by_role("link", name="Experiments").click()
        # The experiments table itself: the screen signed in on may show a ready results table too.
        page.wait_for_selector(".results[data-state=ready] table.experiments", timeout=5000)
        rows = page.evaluate("""() => [...document.querySelectorAll('table.experiments tbody tr')].map(r =>
            [...r.children].map(c => c.textContent))""")
        ids = [row[0] for row in rows]
        check("render: the list shows every experiment", sorted(ids) == ["hostile-copy", "keyboard-ship", "real-results", "viewer-view"], rows)
        check("render: an editor is offered a new experiment", page.get_by_role("link", name="New experiment…").count() == 1)
        hostile = next((row for row in rows if row[0] == "hostile-copy"), [])
        check("render: with its template, status and start", hostile[1:3] == ["connectionRefused", "draft"] and hostile[4] == "not yet", hostile)
        check("render: the nav marks the section",
              page.get_by_role("link", name="Experiments").get_attribute("aria-current") == "page")
        page.get_by_role("link", name="hostile-copy").click()
        page.wait_for_selector(".experiment-summary[data-state=ready]", timeout=5000)
        page.wait_for_selector(".experiment-results[data-state=ready]", timeout=5000)
        variants = page.evaluate("""() => [...document.querySelectorAll('article.variant')].map(a => ({
            key: a.dataset.variant, text: a.innerText,
            cells: [...a.querySelectorAll('td.copy')].map(c => [c.lang, c.dir, c.textContent])}))""")
        check("render: the detail shows both variants, weights and overridden strings per locale",
              [v["key"] for v in variants] == ["control", "b"] and "Weight 50.0 %" in variants[1]["text"]
              and ["ar", "rtl", ARABIC_TITLE] in variants[1]["cells"] and ["en", "ltr", HOSTILE_TITLE] in variants[1]["cells"], variants)
        check("render: the heading names the experiment", page.locator("h1").text_content() == "Experiment hostile-copy")
        context.close()

    def lifecycle(self):
        check = self.check
        context, page = self.signed_in()
        self.open(page, "/experiments/hostile-copy", ".experiment-results[data-state=ready]")
        verdict = page.locator(".verdict").text_content()
        check("lifecycle: the real results of a draft: the server's words", verdict == "Not started: a draft has no results yet.", verdict)
        page.get_by_role("button", name="Start…").click()
        dialog = page.get_by_role("dialog", name="Start hostile-copy?")
        dialog.wait_for(timeout=5000)
        self.axe(page, "start confirmation")
        dialog.get_by_role("button", name="Start").click()
        page.wait_for_selector(".experiment-summary[data-status=running]", timeout=5000)
        check("lifecycle: started, the server has it running", self.experiment_status("hostile-copy") == "running")
        check("lifecycle: the start is shown", page.locator(".experiment-summary").get_by_text("not yet").count() == 0)
        # Someone else changes it meanwhile: the stop's If-Match is stale, the 412 is shown.
        status, headers, body = self.server.admin("GET", "/experiments/hostile-copy")
        stored = json.loads(body)
        self.server.admin("PUT", "/experiments/hostile-copy", stored["experiment"], {"If-Match": headers["ETag"]})
        page.get_by_role("button", name="Stop…").click()
        page.get_by_role("dialog").get_by_role("button", name="Stop").click()
        page.wait_for_selector(".action-status .problem", timeout=5000)
        check("lifecycle: a stale stop shows the 412 and does not stop",
              "someone changed this experiment" in page.locator(".action-status").text_content()
              and self.experiment_status("hostile-copy") == "running", page.locator(".action-status").text_content())
        page.wait_for_selector(".experiment-summary[data-state=ready]", timeout=5000)
        page.get_by_role("button", name="Stop…").click()
        page.get_by_role("dialog").get_by_role("button", name="Stop").click()
        page.wait_for_selector(".experiment-summary[data-status=stopped]", timeout=5000)
        check("lifecycle: stopped, the server has it stopped", self.experiment_status("hostile-copy") == "stopped")
        check("lifecycle: no start or stop button on a stopped experiment",
              page.get_by_role("button", name="Start…").count() == 0 and page.get_by_role("button", name="Stop…").count() == 0)
        context.close()

    def keyboard(self):
        """Open the screen, start keyboard-ship and ship b, with the keyboard alone."""
        check = self.check
        context, page = self.signed_in()
        page.wait_for_selector(".results[data-state=ready]", timeout=5000)
        keys = page.keyboard

        def tab_to(description, predicate):
            return self.tab_to(page, description, predicate, limit=80)

        page.evaluate("document.activeElement.blur()")
        if not tab_to("the Experiments link", "document.activeElement.dataset.nav === 'experiments'"):
            return
        keys.press("Enter")
        page.wait_for_selector("table.experiments", timeout=5000)
        if not tab_to("keyboard-ship", "document.activeElement.textContent === 'keyboard-ship'"):
            return
        keys.press("Enter")
        page.wait_for_selector(".experiment-results[data-state=ready]", timeout=5000)
        if not tab_to("Start", "document.activeElement.textContent === 'Start…'"):
            return
        keys.press("Enter")
        page.get_by_role("dialog").wait_for(timeout=5000)
        focused = page.evaluate("document.activeElement.textContent")
        check("keyboard: the confirmation opens with Start focused", focused == "Start", focused)
        keys.press("Enter")
        page.wait_for_selector(".experiment-summary[data-status=running]", timeout=5000)
        check("keyboard: started", self.experiment_status("keyboard-ship") == "running")
        page.wait_for_selector(".experiment-results[data-state=ready]", timeout=5000)
        if not tab_to("Ship b", "document.activeElement.textContent === 'Ship b…'"):
            return
        keys.press("Enter")
        dialog = page.get_by_role("dialog", name="Ship b?")
        dialog.wait_for(timeout=5000)
        check("keyboard: the ship confirmation says the results do not name b",
              "do not say b wins" in dialog.text_content(), dialog.text_content())
        keys.press("Enter")
        page.wait_for_selector(".shipped", timeout=5000)
        shipped = page.locator(".shipped").text_content()
        status, _, body = self.server.request("GET", "/v1/templates/noDocuments?locale=en")
        served = json.loads(body)
        check("keyboard: shipped, the template's new revision is shown",
              f"noDocuments is at revision {served['revision']}" in shipped, (shipped, served.get("revision")))
        check("keyboard: the client API serves b's copy", served["title"] == KEYBOARD_TITLE, served["title"])
        check("keyboard: the experiment is shipped", self.experiment_status("keyboard-ship") == "shipped")
        focused = page.evaluate("document.activeElement.textContent")
        check("keyboard: focus lands on the link to the template's history", focused == "History of noDocuments", focused)
        context.close()

    def real(self):
        """The server's own results, after real assignments and events."""
        check = self.check
        status, headers, body = self.server.admin("GET", "/experiments/real-results")
        started = dict(json.loads(body)["experiment"], status="running")
        status, _, body = self.server.admin("PUT", "/experiments/real-results", started, {"If-Match": headers["ETag"]})
        if not check("real: started through the API", status == 200, body[:300]):
            return
        expose(self.server, "real-results", "somethingWentWrong", "retry", 400, {"control": 0.15, "b": 0.3},
               platforms=("ios", "android"))
        # One install reports the other variant too (a reinstall, a bug in an app): it is crossed.
        _, _, body = self.server.request("GET", "/v1/templates/somethingWentWrong?locale=en", headers={"X-Install-ID": "real-results-install-00000"})
        served = json.loads(body)
        other = "b" if served["experiment"]["variant"] == "control" else "control"
        crossed = {"id": str(uuid.uuid4()), "type": "displayed", "templateId": "somethingWentWrong", "revision": served["revision"],
                   "locale": "en", "platform": "web", "appVersion": "5.2.0",
                   "occurredAt": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                   "experimentId": "real-results", "variant": other, "installId": "real-results-install-00000"}
        self.server.request("POST", "/v1/events", json.dumps({"events": [crossed]}).encode(), {"Content-Type": "application/json"})
        status, _, body = self.server.admin("GET", "/experiments/real-results/results")
        answer = json.loads(body)
        context, page = self.signed_in()
        self.open(page, "/experiments/real-results", ".experiment-results[data-state=ready]")
        rows = page.evaluate("""() => [...document.querySelectorAll('.results-table tbody tr')].map(r =>
            [r.querySelector('th').firstChild.textContent, ...[...r.children].slice(1).map(c => c.textContent)])""")
        wanted = [[v["key"], f"{v['installs']:,}", f"{v['conversions']:,}", f"{100 * v['rate']['value']:.1f} %"] for v in answer["variants"]]
        shown = [[row[0], row[2], row[3], row[6].split(" (")[0]] for row in rows]
        check("real: the table shows the server's installs, conversions and rates per variant",
              shown == wanted and sum(v["installs"] for v in answer["variants"]) == 399, (shown, wanted))
        excluded = page.locator(".excluded").text_content()
        check("real: the crossed install is excluded and counted, by reason", answer["excludedInstalls"] == 1
              and answer["excluded"]["crossed"] == 1 and excluded == "1 install is excluded: 1 saw more than one variant.",
              (answer["excludedInstalls"], excluded))
        verdict = page.locator(".verdict").get_attribute("data-verdict")
        words = page.locator(".verdict").text_content()
        check("real: the verdict is the server's, in the server's words", verdict == answer["verdict"]
              and words == answer["verdictText"] and words, (answer["verdict"], words))
        timeline = page.evaluate("""() => ({days: [...document.querySelectorAll('.timeline-table tbody th')].map(th => th.textContent),
            csv: document.querySelector('a[download]')?.getAttribute('href')})""")
        check("real: the results over time, a day so far, and the CSV link",
              timeline["days"] == [p["date"] for p in answer["timeline"]] and len(timeline["days"]) == 1
              and timeline["csv"] == "/v1/admin/experiments/real-results/results/export", timeline)
        csv = page.evaluate("""async (href) => { const r = await fetch(href); return [r.status, await r.text()]; }""", timeline["csv"])
        check("real: the CSV link downloads the rows with the console's session", csv[0] == 200
              and csv[1].startswith("date,variant,installs") and len(csv[1].strip().splitlines()) == 3, csv[:1] + [csv[1][:200]])
        self.axe(page, "experiment with real results")
        context.close()

    def segments(self):
        """Results per segment of the running experiment `real` filled: the picker (by keyboard),
        the table against the server's `?segment=` answer, the caveat, axe, and 320 px."""
        check = self.check
        status, _, body = self.server.admin("GET", "/experiments/real-results/results?segment=platform")
        if not check("segments: the server answers per platform", status == 200, body[:300]):
            return
        answer = json.loads(body)
        context, page = self.signed_in()
        self.open(page, "/experiments/real-results", ".experiment-results[data-state=ready]")
        section = page.locator(".experiment-segments")
        check("segments: the section says a segment's verdict is a hint, not a result",
              "hint, not a result" in (section.locator(".segments-caveat").text_content() or ""))
        picker = page.get_by_label("Break the results down by")
        picker.focus()
        page.keyboard.press("ArrowDown")  # None → Platform, from the keyboard alone
        page.wait_for_selector(".experiment-segments[data-state=ready] .segments-table", timeout=10000)
        rows = page.evaluate("""() => [...document.querySelectorAll('.segments-table tbody')].flatMap(group =>
            [...group.querySelectorAll('tr')].map(r => [group.dataset.segment, r.dataset.variant,
                ...[...r.querySelectorAll('td')].map(c => c.textContent)]))""")
        wanted = [[s["value"], v["key"]] for s in answer["segments"] for v in s["results"]["variants"]]
        check("segments: a row group per platform (android, ios), a row per variant",
              [row[:2] for row in rows] == wanted and [s["value"] for s in answer["segments"]] == ["android", "ios"],
              (rows, wanted))
        shown = page.evaluate("""() => [...document.querySelectorAll('.segments-table tbody tr')].map(r =>
            [r.closest('tbody').dataset.segment, r.dataset.variant,
             [...r.children].find(c => c.tagName === 'TH' && c.scope === 'row').nextElementSibling.textContent])""")
        expected = [[s["value"], v["key"], f"{v['installs']:,}"] for s in answer["segments"] for v in s["results"]["variants"]]
        check("segments: each row shows the server's installs", shown == expected, (shown, expected))
        check("segments: the segments add up to the whole",
              sum(v["installs"] for s in answer["segments"] for v in s["results"]["variants"])
              == sum(v["installs"] for v in answer["variants"]) == 399)
        verdicts = page.evaluate("() => [...document.querySelectorAll('.segments-table .verdict-cell')].map(c => c.title)")
        check("segments: each segment's verdict is the server's sentence",
              verdicts == [s["results"]["verdictText"] for s in answer["segments"]], verdicts)
        check("segments: no stray text (\"null\", \"undefined\") in the section",
              not any(word in section.text_content() for word in ("null", "undefined")), section.text_content()[-200:])
        self.axe(page, "experiment results per platform")
        page.keyboard.press("ArrowDown")  # → Locale
        page.wait_for_function("document.querySelector('.segments-table caption')?.textContent.includes('locale')", timeout=10000)
        check("segments: by locale, one segment (en)",
              page.evaluate("() => [...document.querySelectorAll('.segments-table tbody')].map(g => g.dataset.segment)") == ["en"])
        context.close()
        context, page = self.signed_in(viewport={"width": 320, "height": 720})
        self.open(page, "/experiments/real-results", ".experiment-results[data-state=ready]")
        page.get_by_label("Break the results down by").select_option("appVersion")
        page.wait_for_selector(".experiment-segments[data-state=ready] .segments-table", timeout=10000)
        time.sleep(0.2)
        width = page.evaluate("document.documentElement.scrollWidth")
        check("segments: at 320 px nothing scrolls sideways (the table scrolls in its region)", width <= 320, width)
        self.axe(page, "experiment results per app version at 320 px")
        context.close()

    def json_editor(self):
        check = self.check
        context, page = self.signed_in()
        self.open(page, "/experiments", "table.experiments")
        page.get_by_role("link", name="New experiment…").click()
        text = page.get_by_label("Experiment (JSON)")
        text.wait_for(timeout=5000)
        text.fill("{\"id\": ")
        page.get_by_role("button", name="Check").click()
        error = page.locator(".json-editor .error")
        check("json: text that is not JSON is refused on the field",
              (error.text_content() or "").startswith("Not JSON") and text.get_attribute("aria-invalid") == "true", error.text_content())
        document = experiment("json-made", "loginRequired", "signIn", {"en": {"actions.signIn": "OK"}})
        text.fill(json.dumps(document, indent=2))
        page.get_by_role("button", name="Check").click()
        problem = page.locator(".json-outcome .problem")
        problem.wait_for(timeout=5000)
        check("json: the server's 422 pointer is listed beside the text",
              "/variants/1/strings/en/actions.signIn" in problem.text_content() and text.get_attribute("aria-invalid") == "true",
              problem.text_content())
        self.axe(page, "new experiment with a 422")
        document["variants"][1]["strings"]["en"]["actions.signIn"] = "Sign in now"
        text.fill(json.dumps(document, indent=2))
        page.get_by_role("button", name="Check").click()
        page.wait_for_selector(".json-outcome .ok", timeout=5000)
        check("json: checked, valid, nothing stored", self.experiment_status("json-made") == "HTTP 404")
        page.get_by_role("button", name="Create").click()
        page.wait_for_selector(".experiment-summary[data-status=draft]", timeout=5000)
        check("json: created, the detail shows it", self.experiment_status("json-made") == "draft"
              and page.locator("h1").text_content() == "Experiment json-made")
        context.close()

    def verdicts(self):
        check = self.check
        context, page = self.signed_in()
        for verdict, (answer, words) in FIXTURES.items():
            self.serve_fixture(page, answer)
            self.open(page, f"/experiments/hostile-copy?v={verdict}", ".experiment-results[data-state=ready]")
            shown = page.locator(".verdict").text_content()
            check(f"verdicts {verdict}: in words", shown.startswith(words), shown)
            rows = page.evaluate("""() => [...document.querySelectorAll('.results-table tbody tr')].map(r =>
                [...r.children].map(c => c.textContent))""")
            b = answer["variants"][1]
            check(f"verdicts {verdict}: a row per variant with installs, rate and interval, difference, p, chance, significant",
                  len(rows) == 2 and rows[1][2] == f"{b['installs']:,}"
                  and rows[1][6] == f"{100 * b['rate']['value']:.1f} % ({100 * b['rate']['lower']:.1f} % to {100 * b['rate']['upper']:.1f} %)"
                  and rows[1][10] == ("yes" if b["significant"] else "no") and rows[0][7] == "—", rows)
            chart = page.evaluate("""() => ({rows: [...document.querySelectorAll('.results-chart .arm')].map(g => g.dataset.variant),
                label: document.querySelector('.results-chart').getAttribute('aria-label'),
                described: document.querySelector('figure.results-figure').getAttribute('aria-describedby')})""")
            check(f"verdicts {verdict}: the chart draws each variant, labelled in words, described by the table",
                  chart["rows"] == ["control", "b"] and "95 % interval" in chart["label"] and chart["described"] == "results-table", chart)
            excluded = page.locator(".excluded").text_content()
            check(f"verdicts {verdict}: the excluded installs are counted, by reason",
                  excluded.startswith(f"{answer['excludedInstalls']} installs are excluded: {answer['excludedInstalls'] - 4} saw more than one variant; "
                                     "1 forced to a variant by a QA override; 1 reported from outside the target"), excluded)
            b_seq = b.get("sequential")
            wanted = (f"{points(b_seq['difference'])} points ({points(b_seq['lower'])} to {points(b_seq['upper'])})"
                      if b_seq else "—")
            check(f"verdicts {verdict}: the always-valid interval and p beside the one-look figures",
                  rows[1][11] == wanted and rows[0][11] == "—", (rows[1][11:], wanted))
            plan = page.locator("dl.plan").text_content() if page.locator("dl.plan").count() else page.locator(".plan-missing").text_content()
            check(f"verdicts {verdict}: the plan and the progress, or why there is none",
                  ("28,242 / 28,242 read any day" in plan and "30,003 of 56,484 installs" in plan and "about 19 more days" in plan)
                  if "plan" in answer else plan.startswith("No plan:"), plan)
            over_time = page.evaluate("""() => ({series: [...document.querySelectorAll('.timeline-chart .series')].map(g => g.dataset.variant),
                label: document.querySelector('.timeline-chart')?.getAttribute('aria-label'),
                rows: document.querySelectorAll('.timeline-table tbody tr').length})""")
            guardrail = page.locator("li.guardrail").text_content()
            harmed = answer["guardrails"][0]["state"] == "harmed"
            check(f"verdicts {verdict}: the guardrail's state and rates in words",
                  guardrail == ("Guardrail “back” (taps must not rise): harmed — b 30.0 % against 15.0 % (harmed)." if harmed
                                else "Guardrail “back” (taps must not rise): not known yet — b 16.0 % against 15.0 % (inconclusive)."), guardrail)
            has_interval = "sequential" in b
            check(f"verdicts {verdict}: the chart over time draws b's always-valid band (when it has one), and the table every day",
                  over_time["rows"] == 6 and (over_time["series"] == ["b"] and "always-valid interval" in over_time["label"]
                                              if has_interval else over_time["series"] == []), over_time)
        winner = page.evaluate("document.querySelector('.results-chart .arm.winner')?.dataset.variant")
        check("verdicts: the chart marks no winner without one", winner is None, winner)
        self.serve_fixture(page, FIXTURES["winner"][0])
        self.open(page, "/experiments/hostile-copy?v=again", ".experiment-results[data-state=ready]")
        check("verdicts: the winner's row and bar are marked",
              page.evaluate("document.querySelector('.results-chart .arm.winner')?.dataset.variant") == "b"
              and page.locator(".results-table .badge.winner").count() == 1)
        self.serve_fixture(page, {"type": "urn:empty-state:problem:unavailable", "title": "Service Unavailable", "status": 503,
                                  "detail": "The results need the event store."}, status=503)
        self.open(page, "/experiments/hostile-copy?v=error", ".experiment-results[data-state=error]")
        text = page.locator(".experiment-results").text_content()
        check("verdicts: an error answer is shown, the rest of the screen stays",
              "The results need the event store." in text and page.locator("article.variant").count() == 2, text)
        context.close()

    def overrides(self):
        """QA overrides on a running experiment: added and removed in the console, served by the client API."""
        check = self.check
        if self.experiment_status("real-results") != "running":
            status, headers, body = self.server.admin("GET", "/experiments/real-results")
            self.server.admin("PUT", "/experiments/real-results", dict(json.loads(body)["experiment"], status="running"),
                              {"If-Match": headers["ETag"]})

        def served(install):
            _, _, body = self.server.request("GET", "/v1/templates/somethingWentWrong?locale=en", headers={"X-Install-ID": install})
            return (json.loads(body).get("experiment") or {}).get("variant")
        # An install the hash gives control, to force into b.
        install = next(f"qa-browser-{n}" for n in range(200) if served(f"qa-browser-{n}") == "control")
        context, page = self.signed_in()
        self.open(page, "/experiments/real-results", ".experiment-results[data-state=ready]")
        section = page.get_by_role("region", name="QA overrides")
        check("overrides: none yet", "No install is forced to a variant." in section.text_content())
        section.get_by_role("button", name="Add override").click()
        page.wait_for_selector(".override-form [aria-invalid=true]", timeout=5000)
        check("overrides: an empty install id is refused on its field",
              "Give the install id" in section.text_content() and page.evaluate("document.activeElement.name") == "installId")
        section.get_by_label("Install id", exact=True).fill("has space")
        section.get_by_role("button", name="Add override").click()
        page.wait_for_selector(".experiment-overrides .problem", timeout=5000)
        problem = section.locator(".problem").text_content()
        check("overrides: the server's 422 is shown at the override's field", "override 1: installId" in problem, problem)
        section.get_by_label("Install id", exact=True).fill(install)
        section.get_by_label("Variant", exact=True).select_option("b")
        section.get_by_role("button", name="Add override").click()
        page.wait_for_selector("table.qa-overrides", timeout=5000)
        rows = page.evaluate("() => [...document.querySelectorAll('table.qa-overrides tbody tr')].map(r => [...r.children].slice(0, 2).map(c => c.textContent))")
        _, _, body = self.server.admin("GET", "/experiments/real-results")
        stored = json.loads(body)["experiment"].get("overrides")
        check("overrides: added, shown, stored", rows == [[install, "b"]] and stored == [{"installId": install, "variant": "b"}], (rows, stored))
        check("overrides: the device is served b now (the hash gives it control)", served(install) == "b")
        check("overrides: the summary names it", page.locator(".facts").get_by_text(f"{install} → b").count() == 1)
        self.axe(page, "experiment with a QA override")
        page.get_by_role("button", name=f"Remove the override of {install}").click()
        page.wait_for_selector("text=No install is forced to a variant.", timeout=5000)
        _, _, body = self.server.admin("GET", "/experiments/real-results")
        check("overrides: removed, the device is back to its hashed variant",
              "overrides" not in json.loads(body)["experiment"] and served(install) == "control")
        context.close()

    def viewer(self):
        check = self.check
        context, page = self.signed_in(VIEWER_TOKEN)
        self.open(page, "/experiments/viewer-view", ".experiment-results[data-state=ready]")
        writes = page.evaluate("""() => [...document.querySelectorAll('[data-write]')].map(b => ({
            text: b.textContent, disabled: b.disabled, reason: b.getAttribute('aria-describedby')}))""")
        check("viewer: start and ship are there, disabled, with the reason",
              sorted(w["text"] for w in writes) == ["Add override", "Check", "Remove", "Save", "Ship b…", "Ship control…", "Start…"]
              and all(w["disabled"] and w["reason"] == "viewer-note" for w in writes), writes)
        check("viewer: the results are shown", page.locator(".results-table").count() == 1)
        facts = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.facts dt')].map(dt =>
            [dt.textContent, dt.nextElementSibling.textContent]))""")
        check("viewer: the target and the QA overrides are shown in words",
              facts.get("Target") == "iOS and Android · locales en, fr · app 5.2.0 or later"
              and facts.get("QA overrides") == "qa-viewer-phone → b", facts)
        check("viewer: the override form's fields are disabled too",
              page.get_by_label("Install id", exact=True).is_disabled() and page.get_by_label("Variant", exact=True).is_disabled())
        check("viewer: the JSON cannot be typed in", page.evaluate("document.querySelector('.json-text').readOnly"))
        check("viewer: no link to create an experiment", page.goto(self.server.url + "/admin/#/experiments") is None
              and page.wait_for_selector("table.experiments", timeout=5000) is not None
              and page.get_by_role("link", name="New experiment…").count() == 0)
        forged = page.evaluate("""async () => {
            const got = await fetch('/v1/admin/experiments/viewer-view');
            const put = await fetch('/v1/admin/experiments/viewer-view/ship', {method: 'POST',
              headers: {'Content-Type': 'application/json', 'If-Match': got.headers.get('ETag')}, body: JSON.stringify({variant: 'b'})});
            return {status: put.status, body: await put.json()};
        }""")
        check("viewer: a forged ship is refused by the server", forged["status"] == 403, forged)
        check("viewer: and nothing changed", self.experiment_status("viewer-view") == "draft")
        self.axe(page, "experiment (viewer)")
        context.close()

    def hostile(self):
        check = self.check
        context, page = self.signed_in()
        for name, route, ready, expected in (
            ("list", "/experiments", "table.experiments", [HOSTILE_ACTOR]),
            ("detail", "/experiments/hostile-copy", ".experiment-results[data-state=ready]",
             [HOSTILE_TITLE, HOSTILE_MESSAGE, HOSTILE_LABEL, HOSTILE_ACTOR]),
        ):
            self.open(page, route, ready)
            time.sleep(0.2)
            state = page.evaluate("""() => ({
                pwned: window.__pwned === undefined ? null : window.__pwned,
                scripts: document.querySelectorAll('main script').length,
                images: [...document.querySelectorAll('main img')].map(i => i.outerHTML),
                text: document.querySelector('main').innerText})""")
            check(f"hostile {name}: nothing ran, no element made of copy",
                  state["pwned"] is None and state["scripts"] == 0 and state["images"] == [], state)
            missing = [text for text in expected if text not in state["text"]]
            check(f"hostile {name}: the copy and the author show as text (bidi overrides included)", not missing, missing)
        context.close()

    def rtl(self):
        check = self.check
        context, page = self.signed_in()
        self.serve_fixture(page, FIXTURES["winner"][0])
        geometry = """() => {
            const label = document.querySelector('.results-chart .arm.control .arm-label').getBoundingClientRect();
            const bar = document.querySelector('.results-chart .arm.control .arm-bar').getBoundingClientRect();
            const value = document.querySelector('.results-chart .arm.control .arm-value').getBoundingClientRect();
            return {label: [label.left, label.right], bar: [bar.left, bar.right], value: [value.left, value.right],
                    overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
                    direction: getComputedStyle(document.querySelector('main')).direction};
        }"""
        self.open(page, "/experiments/hostile-copy", ".results-chart")
        ltr = page.evaluate(geometry)
        check("rtl: left to right, the name is left of its bar, the value right of it",
              ltr["label"][1] <= ltr["bar"][0] + 1 and ltr["value"][0] >= ltr["bar"][1] - 1, ltr)
        page.evaluate("document.documentElement.dir = 'rtl'")
        self.open(page, "/experiments/hostile-copy?dir=rtl", ".results-chart")
        rtl = page.evaluate(geometry)
        check("rtl: right to left, the chart mirrors: the name right of its bar, the value left of it",
              rtl["direction"] == "rtl" and rtl["label"][0] >= rtl["bar"][1] - 1 and rtl["value"][1] <= rtl["bar"][0] + 1, rtl)
        check("rtl: nothing scrolls sideways", rtl["overflow"] <= 0, rtl)
        self.axe(page, "experiment right to left")
        context.close()

    def screens_axe(self):
        for dark in (False, True):
            context, page = self.signed_in(color_scheme="dark" if dark else "light")
            self.serve_fixture(page, FIXTURES["winner"][0])
            suffix = " dark" if dark else ""
            self.open(page, "/experiments", "table.experiments")
            self.axe(page, "experiments list" + suffix)
            self.open(page, "/experiments/hostile-copy", ".results-chart")
            self.axe(page, "experiment detail" + suffix)
            page.get_by_role("button", name="Start…").click()
            page.get_by_role("dialog").wait_for(timeout=5000)
            self.axe(page, "start confirmation" + suffix)
            page.get_by_role("button", name="Cancel").click()
            focused = page.evaluate("document.activeElement.textContent")
            self.check("axe: cancelling the confirmation returns focus to its button" + suffix, focused == "Start…", focused)
            context.close()
        context, page = self.signed_in(viewport={"width": 320, "height": 720})
        self.serve_fixture(page, FIXTURES["winner"][0])
        for name, route, ready in (("experiments list", "/experiments", "table.experiments"),
                                   ("experiment detail", "/experiments/hostile-copy", ".results-chart")):
            self.open(page, route, ready)
            time.sleep(0.2)
            width = page.evaluate("document.documentElement.scrollWidth")
            self.check(f"320 px {name}: nothing scrolls sideways", width <= 320, width)
            self.axe(page, f"{name} at 320 px")
        context.close()

    def csp(self):
        check = self.check
        violations = []
        context = self.context(csp=True)
        try:
            page = context.new_page()
            page.on("console", lambda message: violations.append(message.text) if "Content Security Policy" in message.text else None)
            page.goto(self.server.url + "/admin/")
            page.get_by_label("Admin token").fill(ADMIN_TOKEN)
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_selector("#account:not([hidden])", timeout=5000)
            page.get_by_role("link", name="Experiments").click()
            page.wait_for_selector("table.experiments", timeout=5000)
            page.get_by_role("link", name="viewer-view").click()
            page.wait_for_selector(".results-chart", timeout=5000)
            page.get_by_role("button", name="Start…").click()
            page.get_by_role("dialog").wait_for(timeout=5000)
            page.get_by_role("button", name="Cancel").click()
            check("csp: the experiments screens work under the CSP, with no violation", not violations, violations)
        finally:
            context.close()


def main():
    parser = check_parser()
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright
    axe = axe_source()
    backend_args, backend = store_backend(args)
    started = time.time()
    results = Results()
    tokens = ["--admin-token", f"viewer:viewer:{VIEWER_TOKEN}", "--admin-token", f"{HOSTILE_ACTOR}:editor:{HOSTILE_ACTOR_TOKEN}"]
    server = Server(args.binary, tokens + backend_args)
    try:
        for document, token in ((HOSTILE_EXPERIMENT, HOSTILE_ACTOR_TOKEN), (KEYBOARD_EXPERIMENT, ADMIN_TOKEN), (VIEWER_EXPERIMENT, ADMIN_TOKEN),
                                (REAL_EXPERIMENT, ADMIN_TOKEN)):
            status, _, body = server.request("PUT", f"/v1/admin/experiments/{document['id']}", json.dumps(document).encode(),
                                             {"Authorization": f"Bearer {token}", "Content-Type": "application/json", "If-None-Match": "*"})
            assert status == 201, (document["id"], status, body)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
            checks = ExperimentChecks(server, browser, results, axe, backend)
            flows = [checks.render, checks.hostile, checks.real, checks.segments, checks.overrides, checks.verdicts, checks.json_editor, checks.viewer, checks.rtl, checks.csp, checks.lifecycle, checks.keyboard]
            if backend == "sqlite":  # the markup does not depend on the backend
                flows.insert(3, checks.screens_axe)
            run_flows(flows, results, backend)
            browser.close()
    finally:
        server.stop()
    print(f"[{backend}] axe-core: {checks.axe_violations} violations on {checks.axe_pages} screens")
    print(f"[{backend}] experiments browser checks took {time.time() - started:.1f} s")
    print(f"{results.passed} passed, {results.failed} failed")
    sys.exit(1 if results.failed else 0)


if __name__ == "__main__":
    main()

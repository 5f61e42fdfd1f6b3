// Numbers: how often each template (and each of its revisions) was displayed and tapped, and
// its tap-through rate, over a chosen range, by day, locale and platform: SVG charts drawn here,
// each with its table beside it. The numbers are the service's (GET /v1/admin/analytics/summary);
// the screen says when they are partial.

import { get } from "./api.js";
import { field, h, routeLink, select, tableRegion } from "./dom.js";
import { barChart } from "./part-chart.js";

const DAY = 86_400_000;
const RANGES = [["7", "Last 7 days"], ["30", "Last 30 days"], ["90", "Last 90 days"], ["custom", "Custom"]];
const percent = (rate) => `${(100 * (rate || 0)).toFixed(1)} %`;
const dateOnly = (instant) => new Date(instant).toISOString().slice(0, 10);

export function mount(main, { query }, context) {
  context.title("Numbers");
  const state = { template: query.template || "", range: query.range || "7", from: query.from || "", to: query.to || "", revision: query.revision || "" };
  const template = h("input", { type: "text", value: state.template, spellcheck: "false", autocomplete: "off", placeholder: "all templates" });
  const range = select(RANGES, state.range, {});
  const from = h("input", { type: "date", value: state.from ? dateOnly(state.from) : "" });
  const to = h("input", { type: "date", value: state.to ? dateOnly(state.to) : "" });
  const revision = select([["", "Every revision"]], state.revision, {});
  const output = h("div", { class: "numbers" });
  const notes = h("div", { class: "notes", "aria-live": "polite" });
  let revisions = [];

  function span() {
    if (state.revision) {
      const index = revisions.findIndex((r) => String(r.revision) === state.revision);
      if (index >= 0) {
        const start = Date.parse(revisions[index].createdAt);
        const newer = revisions.slice(0, index).reverse().find((r) => Date.parse(r.createdAt) > start);
        return { from: start, to: newer ? Date.parse(newer.createdAt) : Date.now() + 1000 };
      }
    }
    if (state.range === "custom" && from.value && to.value) {
      return { from: Date.parse(`${from.value}T00:00:00Z`), to: Date.parse(`${to.value}T00:00:00Z`) + DAY };
    }
    const days = Number(state.range) || 7;
    const end = Math.ceil((Date.now() + 1) / 3_600_000) * 3_600_000; // the next whole hour
    return { from: end - days * DAY, to: end };
  }

  async function loadRevisions() {
    revisions = [];
    if (!state.template) {
      revision.replaceChildren(h("option", { value: "" }, "Every revision"));
      revision.disabled = true;
      return;
    }
    try {
      const { data } = await get(`/v1/admin/templates/${encodeURIComponent(state.template)}/revisions`, { query: { pageSize: 50 } });
      revisions = data.items.filter((r) => r.action !== "delete");
      revision.disabled = false;
      revision.replaceChildren(
        h("option", { value: "" }, "Every revision"),
        ...revisions.map((r) => h("option", { value: String(r.revision), selected: String(r.revision) === state.revision }, `r${r.revision}, live from ${new Date(r.createdAt).toLocaleString()}`)),
      );
    } catch {
      revision.disabled = true;
    }
  }

  async function load() {
    const { from: start, to: end } = span();
    history.replaceState(null, "", routeLink("/numbers", { template: state.template, range: state.range, revision: state.revision,
      from: state.range === "custom" ? new Date(start).toISOString() : "", to: state.range === "custom" ? new Date(end).toISOString() : "" }));
    const base = { from: new Date(start).toISOString(), to: new Date(end).toISOString(), templateId: state.template || undefined };
    output.replaceChildren(h("p", {}, "Loading…"));
    try {
      // Per revision: from the events' own revision, for one template (across templates the
      // numbers would mean nothing).
      const groupings = ["day", "locale", "platform", ...(state.template ? ["revision"] : [])];
      const [byDay, byLocale, byPlatform, byRevision] = await Promise.all(
        groupings.map((groupBy) => get("/v1/admin/analytics/summary", { query: { ...base, groupBy } }).then((r) => r.data)),
      );
      render(byDay, byLocale, byPlatform, byRevision, start);
    } catch (error) {
      output.replaceChildren(h("p", { role: "alert" }, error.message));
    }
  }

  function section(title, id, groups, { keyLabel, categories }) {
    const keys = categories || groups.map((g) => g.key);
    const byKey = new Map(groups.map((g) => [g.key, g]));
    const rows = keys.map((key) => byKey.get(key) || { key, displays: 0, taps: 0, tapThroughRate: 0 });
    const heading = h("h2", { id }, title);
    if (!rows.some((r) => r.displays || r.taps)) {
      return h("section", { class: "chart-section", "aria-labelledby": id }, heading, h("p", {}, "No event in this range."));
    }
    const chart = barChart({
      label: `${title}: displays and taps; the table beside it has the numbers`,
      categories: keys,
      series: [
        { name: "Displayed", values: rows.map((r) => r.displays), className: "displays" },
        { name: "Tapped", values: rows.map((r) => r.taps), className: "taps" },
      ],
    });
    const table = h(
      "table",
      {},
      h("caption", {}, title),
      h("thead", {}, h("tr", {}, [keyLabel, "Displayed", "Tapped", "Tap-through"].map((name) => h("th", { scope: "col" }, name)))),
      h("tbody", {}, rows.map((r) => h("tr", {}, h("th", { scope: "row" }, r.key), h("td", {}, String(r.displays)), h("td", {}, String(r.taps)), h("td", {}, percent(r.tapThroughRate))))),
    );
    return h("section", { class: "chart-section", "aria-labelledby": id }, heading, h("div", { class: "chart-pair" }, h("figure", {}, chart), tableRegion(`${title}: the numbers`, table)));
  }

  function render(byDay, byLocale, byPlatform, byRevision, start) {
    const totals = byDay.totals;
    const days = [];
    for (let t = Date.parse(byDay.from.slice(0, 10)); t < Date.parse(byDay.to); t += DAY) days.push(dateOnly(t));
    const note = [];
    const retention = context.session?.eventRetentionDays || 90;
    if ([byDay, byLocale, byPlatform].some((summary) => summary.partial)) note.push("The service marks these numbers partial: part of the range is not counted yet.");
    if (start < Date.now() - retention * DAY) note.push(`Events older than ${retention} days are deleted: the start of this range is partial.`);
    if (byDay.from !== new Date(start).toISOString()) note.push(`The service counted from ${byDay.from} to ${byDay.to}.`);
    note.push("Every event the apps sent is counted (no sampling); apps offline or with analytics off send none.");
    notes.replaceChildren(...note.map((text) => h("p", {}, text)));
    output.replaceChildren(
      h(
        "dl",
        { class: "totals" },
        h("div", {}, h("dt", {}, "Displayed"), h("dd", {}, String(totals.displays))),
        h("div", {}, h("dt", {}, "Tapped"), h("dd", {}, String(totals.taps))),
        h("div", {}, h("dt", {}, "Tap-through"), h("dd", {}, percent(totals.tapThroughRate))),
      ),
      section("By day", "numbers-day", byDay.groups, { keyLabel: "Day (UTC)", categories: days }),
      section("By locale", "numbers-locale", byLocale.groups, { keyLabel: "Locale" }),
      section("By platform", "numbers-platform", byPlatform.groups, { keyLabel: "Platform" }),
      ...(byRevision
        ? [section("By revision shown", "numbers-revision", byRevision.groups.map((g) => ({ ...g, key: g.key === "0" ? "none named" : `r${g.key}` })), { keyLabel: "Revision" })]
        : []),
    );
  }

  const customFields = h("div", { class: "grid", hidden: state.range !== "custom" },
    field("From (UTC day)", from, { id: "numbers-from" }).root, field("To (UTC day, included)", to, { id: "numbers-to" }).root);
  range.addEventListener("change", () => {
    customFields.hidden = range.value !== "custom";
  });
  const form = h(
    "form",
    {
      class: "filters",
      "aria-label": "What to count",
      async onsubmit(event) {
        event.preventDefault();
        const changedTemplate = template.value.trim() !== state.template;
        state.template = template.value.trim();
        state.range = range.value;
        state.revision = changedTemplate ? "" : revision.value;
        if (changedTemplate) await loadRevisions();
        load();
      },
    },
    h(
      "div",
      { class: "grid" },
      field("Template id", template, { hint: "Empty: every template.", id: "numbers-template" }).root,
      field("Range", range, { id: "numbers-range" }).root,
      field("Revision", revision, { hint: "The window in which a revision was live.", id: "numbers-revision" }).root,
    ),
    customFields,
    h("button", { type: "submit", class: "primary" }, "Show"),
  );
  main.append(h("h1", { tabindex: "-1" }, "Numbers"), form, notes, output);
  loadRevisions().then(load);
}

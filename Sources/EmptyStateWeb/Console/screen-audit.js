// The audit log across the catalogue and the app policies: filtered by who, what (a template, a
// policy, a field), when and which action, paged, and exported whole as NDJSON or CSV.

import { get } from "./api.js";
import { field, h, routeLink, select, tableRegion, time } from "./dom.js";

const PAGE_SIZE = 50;
// The Revision schema's actions (openapi.yaml), in the order a change goes through them.
const ACTIONS = ["import", "create", "replace", "strings", "delete", "rollback", "propose", "edit", "rebase", "comment",
  "approve", "reject", "withdraw", "schedule", "unschedule", "publish", "previewToken"];
const KINDS = [["", "Everything"], ["template", "Templates"], ["appPolicy", "App policies"], ["experiment", "Experiments"],
  ["changeRequest", "Change requests"], ["reviewRules", "Review rules"], ["webhook", "Webhooks"], ["adminToken", "Admin tokens"]];

/** What a revision is of, linked to its screen where the console has one. */
function subject(item) {
  if (item.templateId !== undefined) {
    return h("a", { href: routeLink(`/templates/${encodeURIComponent(item.templateId)}/history`, { b: item.revision }) }, item.templateId);
  }
  if (item.appPolicy !== undefined) return h("a", { href: routeLink(`/policies/${item.appPolicy}`) }, `${item.appPolicy} app policy`);
  if (item.experiment !== undefined) {
    return h("a", { href: routeLink(`/experiments/${encodeURIComponent(item.experiment)}`) }, `experiment ${item.experiment}`);
  }
  if (item.changeRequest !== undefined) return h("a", { href: routeLink(`/changes/${item.changeRequest}`) }, `change request #${item.changeRequest}`);
  if (item.adminToken !== undefined) return h("a", { href: routeLink("/tokens") }, `admin token ${item.adminToken}`);
  if (item.webhook !== undefined) return h("a", { href: routeLink(`/webhooks/${encodeURIComponent(item.webhook)}`) }, `webhook ${item.webhook}`);
  return "review rules";
}
const FILTERS = ["actor", "kind", "templateId", "appPolicy", "field", "action", "from", "to"];

/** A `datetime-local` value (local time) as RFC 3339 UTC, or "". */
const toInstant = (local) => (local ? new Date(local).toISOString() : "");
/** RFC 3339 as a `datetime-local` value in local time. */
function toLocal(instant) {
  if (!instant) return "";
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return "";
  const pad = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

export function mount(main, { query }, context) {
  context.title("Audit log");
  const filters = Object.fromEntries(FILTERS.map((name) => [name, query[name] || ""]));
  let page = Number(query.page) || 1;
  let generation = 0;

  const controls = {
    actor: h("input", { type: "text", name: "actor", value: filters.actor, autocomplete: "off" }),
    kind: select(KINDS, filters.kind, { name: "kind" }),
    templateId: h("input", { type: "text", name: "templateId", value: filters.templateId, autocomplete: "off", spellcheck: "false" }),
    appPolicy: select([["", "Any"], "ios", "android", "web"], filters.appPolicy, { name: "appPolicy" }),
    field: h("input", { type: "text", name: "field", value: filters.field, placeholder: "/strings/fr", autocomplete: "off", spellcheck: "false" }),
    action: select([["", "Any action"], ...ACTIONS], filters.action, { name: "action" }),
    from: h("input", { type: "datetime-local", name: "from", value: toLocal(filters.from) }),
    to: h("input", { type: "datetime-local", name: "to", value: toLocal(filters.to) }),
  };
  const labels = {
    actor: ["Who", "The token's name, exactly."],
    kind: ["What", ""],
    templateId: ["Template id", ""],
    appPolicy: ["App policy", ""],
    field: ["Field", "A JSON pointer: its changes and those below it."],
    action: ["Action", ""],
    from: ["From", "Your local time."],
    to: ["Before", "Your local time."],
  };
  const fieldsRoot = h("div", { class: "grid" }, FILTERS.map((name) => field(labels[name][0], controls[name], { hint: labels[name][1], id: `audit-${name}` }).root));
  const summary = h("p", { class: "summary", "aria-live": "polite" });
  const results = h("div", { class: "results" });
  const pager = h("nav", { class: "pager", "aria-label": "Pages" });
  const exports = h("p", { class: "exports" });
  const problem = h("div", { role: "alert" });

  function read() {
    for (const name of FILTERS) {
      const value = controls[name].value.trim();
      filters[name] = name === "from" || name === "to" ? toInstant(value) : value;
    }
  }

  function exportLink(format, label) {
    const url = new URL("/v1/admin/audit/export", location.origin);
    url.searchParams.set("format", format);
    for (const [name, value] of Object.entries(filters)) if (value) url.searchParams.set(name, value);
    return h("a", { href: url.pathname + url.search, download: `audit.${format}`, class: "button" }, label);
  }

  async function load() {
    const mine = ++generation;
    history.replaceState(null, "", routeLink("/audit", { ...filters, page: page > 1 ? page : "" }));
    exports.replaceChildren("Export everything these filters select: ", exportLink("ndjson", "NDJSON"), " ", exportLink("csv", "CSV"));
    try {
      const { data } = await get("/v1/admin/audit", { query: { ...filters, page, pageSize: PAGE_SIZE } });
      if (mine !== generation) return;
      problem.replaceChildren();
      const pages = Math.max(1, Math.ceil(data.total / data.pageSize));
      summary.textContent = `${data.total} ${data.total === 1 ? "change" : "changes"}; page ${data.page} of ${pages}.`;
      const rows = data.items.map((item) => {
        const what = subject(item);
        return h(
          "tr",
          {},
          h("td", {}, time(item.createdAt)),
          h("td", {}, item.createdBy),
          h("th", { scope: "row" }, what),
          h("td", {}, `r${item.revision}`),
          h("td", {}, item.action),
          h("td", {}, h("ul", { class: "fields" }, item.changedFields.slice(0, 6).map((pointer) => h("li", {}, h("code", {}, pointer)))),
            item.changedFields.length > 6 ? `and ${item.changedFields.length - 6} more` : null),
        );
      });
      results.replaceChildren(
        data.items.length
          ? tableRegion(
              "Changes",
              h(
                "table",
                { class: "audit" },
                h("caption", { class: "visually-hidden" }, "Changes, newest first"),
                h("thead", {}, h("tr", {}, ["When", "Who", "What", "Revision", "Action", "Fields"].map((name) => h("th", { scope: "col" }, name)))),
                h("tbody", {}, rows),
              ),
            )
          : h("p", {}, "No change matches."),
      );
      pager.replaceChildren(
        h("button", { type: "button", disabled: data.page <= 1, onclick: () => { page -= 1; load(); } }, "Newer changes"),
        h("span", {}, `Page ${data.page} of ${pages}`),
        h("button", { type: "button", disabled: data.page >= pages, onclick: () => { page += 1; load(); } }, "Older changes"),
      );
    } catch (error) {
      if (mine !== generation) return;
      summary.textContent = "";
      results.replaceChildren();
      problem.replaceChildren(h("p", {}, error.message), h("ul", {}, error.errors.map((item) => h("li", {}, `${item.parameter ?? ""}: ${item.detail}`))));
    }
  }

  const form = h(
    "form",
    {
      class: "filters",
      "aria-label": "Filters",
      onsubmit(event) {
        event.preventDefault();
        read();
        page = 1;
        load();
      },
    },
    fieldsRoot,
    h("div", { class: "buttons" }, h("button", { type: "submit", class: "primary" }, "Apply filters"), h("button", {
      type: "button",
      onclick() {
        for (const name of FILTERS) controls[name].value = "";
        read();
        page = 1;
        load();
      },
    }, "Clear filters")),
  );

  main.append(h("h1", { tabindex: "-1" }, "Audit log"), form, problem, exports, summary, results, pager);
  load();
}

// The change requests list (#/changes): open requests by default, newest first, with a filter by
// state, author and template; each row links to the request's page.

import { get } from "./api.js";
import { field, h, problemView, routeLink, select, tableRegion, time } from "./dom.js";

const PAGE_SIZE = 50;
const STATES = [
  ["open", "Open (awaiting review, or approved)"],
  ["open,rejected", "Open and rejected"],
  ["published", "Published"],
  ["withdrawn", "Withdrawn"],
  ["rejected", "Rejected"],
  ["open,rejected,withdrawn,published", "All"],
];

/** A request's state as a badge: the words people read, the state as data. */
export function stateBadge(state) {
  const words = { open: "open", approved: "approved", rejected: "rejected", withdrawn: "withdrawn", published: "published" };
  return h("span", { class: `badge cr-${state}`, "data-state": state }, words[state] ?? state);
}

/** Mounts the list into `main`. */
export function mountList(main, query, context) {
  context.title("Changes");
  const filters = { state: query.state || "open", author: query.author || "", target: query.target || "", page: Number(query.page) || 1 };
  const controls = {
    state: select(STATES, filters.state, { name: "state" }),
    author: h("input", { type: "text", name: "author", value: filters.author, autocomplete: "off" }),
    target: h("input", { type: "text", name: "target", value: filters.target, placeholder: "template:loading", autocomplete: "off", spellcheck: "false" }),
  };
  const output = h("div", { class: "results", "data-state": "loading" }, h("p", {}, "Loading…"));
  const summary = h("p", { class: "summary", "aria-live": "polite" });
  const pager = h("nav", { class: "pager", "aria-label": "Pages" });
  let generation = 0;

  async function load() {
    const mine = ++generation;
    output.dataset.state = "loading";
    history.replaceState(null, "", routeLink("/changes", { ...filters, state: filters.state === "open" ? "" : filters.state, page: filters.page > 1 ? filters.page : "" }));
    try {
      const { data } = await get("/v1/admin/change-requests", {
        query: { state: filters.state, author: filters.author, target: filters.target, page: filters.page, pageSize: PAGE_SIZE },
      });
      if (mine !== generation) return;
      const pages = Math.max(1, Math.ceil(data.total / data.pageSize));
      summary.textContent = `${data.total} ${data.total === 1 ? "change request" : "change requests"}; page ${data.page} of ${pages}.`;
      output.replaceChildren(
        data.items.length
          ? tableRegion(
              "Change requests",
              h(
                "table",
                { class: "changes" },
                h("caption", { class: "visually-hidden" }, "Change requests, newest first"),
                h("thead", {}, h("tr", {}, ["Request", "State", "Author", "Changes", "Updated", "Scheduled"].map((name) => h("th", { scope: "col" }, name)))),
                h(
                  "tbody",
                  {},
                  data.items.map((item) =>
                    h(
                      "tr",
                      {},
                      h("th", { scope: "row" }, h("a", { href: routeLink(`/changes/${item.id}`) }, `#${item.id} `, h("span", { dir: "auto" }, item.title))),
                      h("td", {}, stateBadge(item.state)),
                      h("td", { dir: "auto" }, item.author),
                      h("td", {}, h("ul", { class: "fields" }, item.targets.slice(0, 4).map((target) => h("li", {}, h("code", {}, target)))),
                        item.targets.length > 4 ? `and ${item.targets.length - 4} more` : null),
                      h("td", {}, time(item.updatedAt)),
                      h("td", {}, item.scheduledAt ? time(item.scheduledAt) : "—"),
                    ),
                  ),
                ),
              ),
            )
          : h("p", {}, filters.state === "open" ? "No open change request." : "No change request matches."),
      );
      pager.replaceChildren(
        h("button", { type: "button", disabled: data.page <= 1, onclick: () => { filters.page -= 1; load(); } }, "Newer"),
        h("span", {}, `Page ${data.page} of ${pages}`),
        h("button", { type: "button", disabled: data.page >= pages, onclick: () => { filters.page += 1; load(); } }, "Older"),
      );
      output.dataset.state = "ready";
    } catch (error) {
      if (mine !== generation) return;
      summary.textContent = "";
      output.replaceChildren(problemView(error));
      output.dataset.state = "error";
    }
  }

  const form = h(
    "form",
    {
      class: "filters",
      "aria-label": "Filters",
      onsubmit(event) {
        event.preventDefault();
        for (const name of ["state", "author", "target"]) filters[name] = controls[name].value.trim();
        filters.page = 1;
        load();
      },
    },
    h(
      "div",
      { class: "grid" },
      field("State", controls.state, { id: "changes-state" }).root,
      field("Author", controls.author, { hint: "A token's name, exactly.", id: "changes-author" }).root,
      field("Document", controls.target, { hint: "template:<id>, appPolicy:<platform> or experiment:<id>.", id: "changes-target" }).root,
    ),
    h("div", { class: "buttons" }, h("button", { type: "submit", class: "primary" }, "Show")),
  );

  main.append(
    h("h1", { tabindex: "-1" }, "Changes"),
    h(
      "p",
      { class: "hint" },
      "Change requests gather edits for review: nothing of one is served until it is published. Editors propose from a template's editor (",
      h("a", { href: "#/" }, "the catalogue"),
      "); reviewers approve here.",
    ),
    form,
    summary,
    output,
    pager,
  );
  load();
  return () => {
    generation += 1;
  };
}

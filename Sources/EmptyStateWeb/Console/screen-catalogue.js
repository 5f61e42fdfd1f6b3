// The catalogue: every template with its category, style, locales present and missing, last
// change and author, and lint warnings; searched by id, alias or any string of any locale, and
// filtered by category, missing locale and lint, on the server (GET /v1/admin/catalogue), one
// page at a time, so 10,000 templates cost the same as fifteen.

import { get } from "./api.js";
import { debounce, field, fieldName, h, routeLink, select, tableRegion, time } from "./dom.js";
import { CATEGORIES } from "./template-model.js";

const PAGE_SIZE = 50;

/** `text` with each case-insensitive occurrence of `term` in a <mark>, as text nodes. */
function highlighted(text, term) {
  if (!term) return [text];
  const nodes = [];
  const lower = text.toLowerCase();
  let from = 0;
  for (let at = lower.indexOf(term); at >= 0 && term; at = lower.indexOf(term, at + term.length)) {
    nodes.push(text.slice(from, at), h("mark", {}, text.slice(at, at + term.length)));
    from = at + term.length;
  }
  nodes.push(text.slice(from));
  return nodes;
}

export function mount(main, { query }, context) {
  context.title("Catalogue");
  const state = {
    q: query.q || "",
    category: query.category || "",
    missingLocale: query.missingLocale || "",
    lint: query.lint === "true",
    page: Number(query.page) || 1,
    locales: [],
  };
  let generation = 0;

  const search = h("input", { type: "search", name: "q", value: state.q, autocomplete: "off", spellcheck: "false" });
  const searchField = field("Search", search, {
    hint: "Ids, aliases, and every string in every locale; every word must match.",
  });
  const category = select([["", "All categories"], ...CATEGORIES], state.category, { name: "category" });
  const missing = select([["", "Any"]], state.missingLocale, { name: "missingLocale" });
  const lint = h("input", { type: "checkbox", name: "lint", checked: state.lint });
  const summary = h("p", { class: "summary", id: "results-summary", "aria-live": "polite" });
  const results = h("div", { class: "results", "data-state": "loading" });
  const pager = h("nav", { class: "pager", "aria-label": "Pages" });

  const run = async () => {
    const mine = ++generation;
    results.dataset.state = "loading";
    const params = { q: state.q.trim(), category: state.category, missingLocale: state.missingLocale, lint: state.lint ? "true" : "", page: state.page, pageSize: PAGE_SIZE };
    history.replaceState(null, "", routeLink("/", { ...params, pageSize: undefined, page: state.page > 1 ? state.page : "" }));
    try {
      const { data } = await get("/v1/admin/catalogue", { query: params });
      if (mine !== generation) return;
      render(data, params.q);
    } catch (error) {
      if (mine !== generation) return;
      results.dataset.state = "error";
      results.replaceChildren(h("p", { role: "alert" }, error.message));
    }
  };
  const later = debounce(run, 250);

  function render(data, q) {
    if (state.locales.join() !== data.locales.join()) {
      state.locales = data.locales;
      missing.replaceChildren(
        ...[["", "Any"], ...data.locales.map((locale) => [locale, locale])].map(([value, label]) =>
          h("option", { value, selected: value === state.missingLocale }, label),
        ),
      );
    }
    const pages = Math.max(1, Math.ceil(data.total / data.pageSize));
    summary.textContent =
      data.total === 0
        ? "No template matches."
        : `${data.total} ${data.total === 1 ? "template" : "templates"}${q ? ` match “${q}”` : ""}; page ${data.page} of ${pages}.`;
    const term = q.toLowerCase().split(/\s+/).filter(Boolean)[0];
    const rows = data.items.map((item) =>
      h(
        "tr",
        {},
        h(
          "th",
          { scope: "row" },
          h("a", { href: routeLink(`/templates/${encodeURIComponent(item.id)}`) }, item.id),
          h("span", { class: "subtitle", lang: item.defaultLocale }, item.title),
          item.aliases.length ? h("span", { class: "aliases" }, `aliases: ${item.aliases.join(", ")}`) : null,
          item.match && item.match.pointer !== "/id"
            ? h("span", { class: "match" }, `${fieldName(item.match.pointer)}: `, highlighted(item.match.text, term))
            : null,
        ),
        h("td", {}, item.category),
        h("td", {}, item.style),
        h(
          "td",
          {},
          `${item.locales.length} locales`,
          item.missingLocales.length ? h("span", { class: "missing" }, `missing ${item.missingLocales.join(", ")}`) : null,
        ),
        h("td", {}, time(item.updatedAt), h("span", { class: "subtitle" }, item.updatedBy || "—")),
        h(
          "td",
          {},
          item.lint.length
            ? h(
                "details",
                { class: "lint" },
                h("summary", {}, `${item.lint.length} ${item.lint.length === 1 ? "warning" : "warnings"}`),
                h("ul", {}, item.lint.map((issue) => h("li", {}, h("code", {}, issue.pointer), " ", issue.rule))),
              )
            : "—",
        ),
      ),
    );
    const table = h(
      "table",
      { class: "catalogue" },
      h("caption", { class: "visually-hidden" }, "Templates"),
      h(
        "thead",
        {},
        h("tr", {}, ["Template", "Category", "Style", "Locales", "Last change", "Lint"].map((name) => h("th", { scope: "col" }, name))),
      ),
      h("tbody", {}, rows),
    );
    results.replaceChildren(data.items.length ? tableRegion("Templates", table) : h("p", {}, "Nothing to show."));
    results.dataset.state = "ready";
    results.dataset.resultsFor = q;
    pager.replaceChildren(
      h("button", { type: "button", disabled: data.page <= 1, onclick: () => go(data.page - 1) }, "Previous page"),
      h("span", {}, `Page ${data.page} of ${pages}`),
      h("button", { type: "button", disabled: data.page >= pages, onclick: () => go(data.page + 1) }, "Next page"),
    );
  }

  function go(page) {
    state.page = page;
    run();
  }

  const form = h(
    "form",
    {
      role: "search",
      class: "filters",
      onsubmit(event) {
        event.preventDefault();
        state.q = search.value;
        state.page = 1;
        later.now();
      },
    },
    searchField.root,
    h("div", { class: "field" }, h("label", { for: "filter-category" }, "Category"), Object.assign(category, { id: "filter-category" })),
    h("div", { class: "field" }, h("label", { for: "filter-missing" }, "Missing locale"), Object.assign(missing, { id: "filter-missing" })),
    h("div", { class: "field checkbox" }, Object.assign(lint, { id: "filter-lint" }), h("label", { for: "filter-lint" }, "Only templates with lint warnings")),
    h("button", { type: "submit", class: "primary" }, "Search"),
  );
  search.addEventListener("input", () => {
    state.q = search.value;
    state.page = 1;
    later();
  });
  for (const [control, key] of [[category, "category"], [missing, "missingLocale"]]) {
    control.addEventListener("change", () => {
      state[key] = control.value;
      state.page = 1;
      later.now();
    });
  }
  lint.addEventListener("change", () => {
    state.lint = lint.checked;
    state.page = 1;
    later.now();
  });

  main.append(h("h1", { tabindex: "-1" }, "Catalogue"), form, summary, results, pager);
  run();
  return () => later.cancel();
}

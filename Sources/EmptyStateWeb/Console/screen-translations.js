// Translation status: per locale, how complete it is, and what is missing or stale (the source
// changed after the translation: `stale` in GET /v1/admin/locales), each a link to the field in
// the editor.

import { get } from "./api.js";
import { h, routeLink } from "./dom.js";

const SHOWN = 40;

export function mount(main, { query }, context) {
  context.title("Translations");
  const output = h("div", { class: "translations" });
  main.append(
    h("h1", { tabindex: "-1" }, "Translations"),
    h("p", {}, "Each key a locale lacks, or whose source changed after it was translated, links to its field in the editor."),
    output,
  );

  function keyList(kind, entries, locale) {
    let shown = SHOWN;
    const list = h("ul", { class: "keys" });
    const more = h("button", { type: "button", class: "link" });
    const draw = () => {
      const items = [];
      for (const entry of entries.slice(0, shown)) {
        for (const key of entry.keys) {
          items.push(
            h(
              "li",
              {},
              h("a", { href: routeLink(`/templates/${encodeURIComponent(entry.templateId)}`, { locale, field: key }) }, `${entry.templateId} · ${key}`),
            ),
          );
        }
      }
      list.replaceChildren(...items);
      more.hidden = entries.length <= shown;
      more.textContent = `Show all ${entries.length} templates`;
    };
    more.addEventListener("click", () => {
      shown = entries.length;
      draw();
      list.querySelector("li:nth-child(" + (SHOWN + 1) + ") a")?.focus();
    });
    draw();
    return h("div", { class: `key-list ${kind}` }, h("h3", {}, kind === "missing" ? "Missing" : "Stale (the source changed since)"), list, more);
  }

  async function load() {
    try {
      const { data } = await get("/v1/admin/locales");
      const selected = query.locale;
      output.replaceChildren(
        ...data.locales
          .filter((entry) => !selected || entry.locale === selected)
          .map((entry) => {
            const id = `locale-${entry.locale}`;
            const stale = Array.isArray(entry.stale) ? entry.stale : [];
            return h(
              "section",
              { class: "locale", "aria-labelledby": id },
              h("h2", { id, lang: entry.locale }, entry.locale),
              h(
                "p",
                {},
                h("progress", { max: "1", value: String(entry.completeness), "aria-labelledby": id }),
                ` ${entry.completeTemplates} of ${entry.templates} templates complete (${Math.floor(100 * entry.completeness)} %).`,
              ),
              entry.missing.length ? keyList("missing", entry.missing, entry.locale) : h("p", {}, "Nothing missing."),
              stale.length ? keyList("stale", stale, entry.locale) : null,
            );
          }),
      );
    } catch (error) {
      output.replaceChildren(h("p", { role: "alert" }, error.message));
    }
  }
  load();
}

// Translation status (#/translations[?locale=fr]): per locale, how many templates are complete —
// nothing missing and nothing stale — and what each lacks; then every stale string (its source
// changed after it was translated: `stale` in GET /v1/admin/locales) once, with the locales it
// affects. Every key links to its field in the editor. One locale can be picked; the choice is
// kept in the route, so the screen can be linked and reloaded.

import { get } from "./api.js";
import { h, routeLink, select } from "./dom.js";

const SHOWN = 40;

/** The editor's link to `key` of `templateId` in `locale`. */
const fieldLink = (templateId, locale, key) => routeLink(`/templates/${encodeURIComponent(templateId)}`, { locale, field: key });

/**
 * A list of at most SHOWN items of `entries` (made by `item`), and a button that shows them
 * all and moves focus to the first one it adds.
 */
function shortList(entries, item, noun) {
  let shown = SHOWN;
  const list = h("ul", { class: "keys" });
  const more = h("button", { type: "button", class: "link" });
  const draw = () => {
    list.replaceChildren(...entries.slice(0, shown).flatMap(item));
    more.hidden = entries.length <= shown;
    more.textContent = `Show all ${entries.length} ${noun}`;
  };
  more.addEventListener("click", () => {
    const before = list.children.length;
    shown = entries.length;
    draw();
    list.children[before]?.querySelector("a")?.focus();
  });
  draw();
  return [list, more];
}

/** The templates of `entry` (a locale's report) that are complete: nothing missing, nothing stale. */
function completeTemplates(entry) {
  const incomplete = new Set([...entry.missing, ...(entry.stale || [])].map((item) => item.templateId));
  return entry.templates - incomplete.size;
}

/** Every stale key once, in template then key order, with its locales in alphabetical order: [{templateId, key, locales}]. */
export function staleByKey(entries) {
  const byKey = new Map();
  for (const entry of entries) {
    for (const item of entry.stale || []) {
      for (const key of item.keys) {
        const id = `${item.templateId}\u0000${key}`;
        if (!byKey.has(id)) byKey.set(id, { templateId: item.templateId, key, locales: [] });
        byKey.get(id).locales.push(entry.locale);
      }
    }
  }
  for (const item of byKey.values()) item.locales.sort();
  return [...byKey.values()].sort((a, b) => (a.templateId === b.templateId ? (a.key < b.key ? -1 : 1) : a.templateId < b.templateId ? -1 : 1));
}

export function mount(main, { query }, context) {
  context.title("Translations");
  const output = h("div", { class: "translations" });
  const picker = h("div", { class: "filters translations-picker" });
  main.append(
    h("h1", { tabindex: "-1" }, "Translations"),
    h(
      "p",
      {},
      "A template is complete in a locale when nothing is missing and nothing is stale (its source changed after it was translated). Each key links to its field in the editor.",
    ),
    picker,
    output,
  );

  function localeSection(entry) {
    const id = `locale-${entry.locale}`;
    const complete = completeTemplates(entry);
    const staleCount = (entry.stale || []).reduce((sum, item) => sum + item.keys.length, 0);
    const missingCount = entry.missing.reduce((sum, item) => sum + item.keys.length, 0);
    const missingItem = (item) => item.keys.map((key) => h("li", {}, h("a", { href: fieldLink(item.templateId, entry.locale, key) }, `${item.templateId} · ${key}`)));
    return h(
      "section",
      { class: "locale", "aria-labelledby": id },
      h("h2", { id, lang: entry.locale }, entry.locale),
      h(
        "p",
        {},
        h("progress", { max: String(entry.templates || 1), value: String(complete), "aria-labelledby": id }),
        ` ${complete} of ${entry.templates} templates complete (${entry.templates ? Math.floor((100 * complete) / entry.templates) : 100} %): `,
        `${missingCount} ${missingCount === 1 ? "string" : "strings"} missing, ${staleCount} stale.`,
      ),
      entry.missing.length
        ? h("div", { class: "key-list missing" }, h("h3", {}, "Missing"), ...shortList(entry.missing, missingItem, "templates"))
        : h("p", {}, "Nothing missing."),
    );
  }

  function staleSection(entries) {
    const stale = staleByKey(entries);
    const item = ({ templateId, key, locales }) =>
      h(
        "li",
        {},
        `${templateId} · ${key}: `,
        locales.flatMap((locale, index) => [index ? ", " : "", h("a", { href: fieldLink(templateId, locale, key), lang: locale, "aria-label": `${templateId} · ${key} in ${locale}` }, locale)]),
      );
    return h(
      "section",
      { class: "stale", "aria-labelledby": "stale-heading" },
      h("h2", { id: "stale-heading" }, "Stale: the source changed since"),
      stale.length ? shortList(stale, item, "stale strings") : h("p", {}, "Nothing stale."),
    );
  }

  async function load() {
    try {
      const { data } = await get("/v1/admin/locales");
      const locales = data.locales.map((entry) => entry.locale);
      const chooser = select([["", "Every locale"], ...locales], locales.includes(query.locale) ? query.locale : "", { id: "translations-locale" });
      const draw = () => {
        const entries = data.locales.filter((entry) => !chooser.value || entry.locale === chooser.value);
        output.replaceChildren(...entries.map(localeSection), staleSection(entries));
      };
      chooser.addEventListener("change", () => {
        // The route keeps the choice (a link, a reload) without remounting the screen, so focus
        // stays on the chooser.
        history.replaceState(null, "", routeLink("/translations", { locale: chooser.value || undefined }));
        draw();
      });
      picker.replaceChildren(h("div", { class: "field" }, h("label", { for: "translations-locale" }, "Locale"), chooser));
      draw();
    } catch (error) {
      output.replaceChildren(h("p", { role: "alert" }, error.message));
    }
  }
  load();
}

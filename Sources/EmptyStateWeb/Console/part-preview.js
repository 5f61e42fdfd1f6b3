// The live preview: the draft drawn by the service's web renderer (POST /v1/admin/preview, the
// markup of /v1/web/templates/{id} and <empty-state>, styled by empty-state.css), in a chosen
// locale (pseudo-locales and right-to-left included), light or dark, in the spec's 400×400 and
// 200×150 containers. Redrawn as the editor types, a quarter second after the last key.
// `compact` (a narrow screen, where the preview stays at the top while the fields scroll under
// it, drawn smaller by the stylesheet): a button hides the picture to make room.

import { post } from "./api.js";
import { debounce, h, select, uid } from "./dom.js";

const SIZES = [["400x400", "400 × 400"], ["200x150", "200 × 150"]];
const SCHEMES = [["light", "Light"], ["dark", "Dark"]];
const PSEUDO = [["en-XA", "en-XA (pseudo: accented, longer)"], ["ar-XB", "ar-XB (pseudo: mirrored, right to left)"]];

/**
 * The renderer's HTML as nodes of this document. The HTML is the service's own (every string
 * escaped by HTMLRenderer); it is parsed inert by DOMParser (no script runs, no resource loads
 * until adopted), and the page's CSP allows no inline script or handler even so.
 */
function parseFragment(html) {
  const parsed = new DOMParser().parseFromString(html, "text/html");
  return [...parsed.body.childNodes].map((node) => document.importNode(node, true));
}

/** Returns {root, update(document), setLocales(locales)}. */
export function preview({ initialLocale, compact = false }) {
  const localeID = uid("preview-locale");
  const initialSize = "400x400";
  const locale = select([], initialLocale, { id: localeID });
  const scheme = select(SCHEMES, "light", { id: uid("preview-scheme") });
  const size = select(SIZES, initialSize, { id: uid("preview-size") });
  const frame = h("div", { class: "preview-frame es-frame", "data-size": initialSize, "data-es-scheme": "light" });
  const note = h("p", { class: "hint preview-note", "aria-live": "polite" });
  let draft = null;
  let generation = 0;

  const draw = async () => {
    if (!draft) return;
    const mine = ++generation;
    try {
      const { data } = await post("/v1/admin/preview", draft, { query: { locale: locale.value, platform: "web" } });
      if (mine !== generation) return;
      frame.replaceChildren(...parseFragment(data.html));
      frame.dataset.locale = data.locale;
      note.textContent = `Drawn in ${data.locale} (${data.direction === "rtl" ? "right to left" : "left to right"})${
        data.issues.length ? `; ${data.issues.length} ${data.issues.length === 1 ? "rule is" : "rules are"} broken, and it is drawn as clients would cut it` : ""
      }.`;
    } catch (error) {
      if (mine !== generation) return;
      note.textContent = `The preview cannot be drawn yet: ${error.message}`;
    }
  };
  const later = debounce(draw, 250);

  locale.addEventListener("change", () => later.now());
  scheme.addEventListener("change", () => {
    frame.dataset.esScheme = scheme.value;
  });
  size.addEventListener("change", () => {
    frame.dataset.size = size.value;
  });

  const stageID = uid("preview-stage");
  const toggle = h("button", { type: "button", class: "quiet preview-toggle", "aria-expanded": "true", "aria-controls": stageID }, "Hide preview");
  const root = h(
    "section",
    { class: "preview", "aria-labelledby": "preview-heading", "data-compact": compact ? "true" : undefined },
    h("div", { class: "preview-head" }, h("h2", { id: "preview-heading" }, "Preview"), toggle),
    h(
      "div",
      { class: "preview-controls" },
      h("div", { class: "field" }, h("label", { for: localeID }, "Locale"), locale),
      h("div", { class: "field" }, h("label", { for: scheme.id }, "Scheme"), scheme),
      h("div", { class: "field" }, h("label", { for: size.id }, "Container"), size),
    ),
    h("div", { class: "preview-stage", id: stageID, "data-es-scheme-stage": "" }, frame),
    note,
  );
  toggle.addEventListener("click", () => {
    const shown = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", String(shown));
    toggle.textContent = shown ? "Hide preview" : "Show preview";
    root.dataset.hidden = String(!shown);
  });

  return {
    root,
    frame,
    /** Redraws with `document` (a template document), debounced. */
    update(document, { now = false } = {}) {
      draft = structuredClone(document);
      if (now) later.now();
      else later();
    },
    /** The locales to offer: the template's, then the pseudo-locales. */
    setLocales(locales, selected) {
      const current = selected || locale.value || initialLocale;
      locale.replaceChildren(
        ...[...locales.map((tag) => [tag, tag]), ...PSEUDO].map(([value, label]) => h("option", { value, selected: value === current }, label)),
      );
    },
    get locale() {
      return locale.value;
    },
    cancel: () => later.cancel(),
  };
}

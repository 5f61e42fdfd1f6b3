// The editor's General group: aliases, category, style and the default (source) locale.

import { h } from "./dom.js";
import { CATEGORIES, STYLES } from "./template-model.js";

/** The General group of `draft`, its fields made with `editor`'s field makers. */
export function generalGroup(draft, editor) {
  const { textInput, selectField, changed, build } = editor;
  const aliases = textInput("/aliases", "Aliases", (draft.aliases || []).join(", "), (value) => {
    const list = value.split(",").map((item) => item.trim()).filter(Boolean);
    if (list.length) draft.aliases = list;
    else delete draft.aliases;
    changed();
  }, { hint: "Other names apps may ask for, separated by commas." });
  const category = selectField("/category", "Category", CATEGORIES, draft.category, (value) => {
    draft.category = value;
    changed();
  });
  const style = selectField("/style", "Style", STYLES, draft.style, (value) => {
    draft.style = value;
    changed();
  });
  const defaultLocale = selectField("/defaultLocale", "Default (source) locale", Object.keys(draft.strings), draft.defaultLocale, (value) => {
    draft.defaultLocale = value;
    changed();
    build();
  });
  return h("fieldset", { class: "group" }, h("legend", {}, "General"), h("div", { class: "grid" }, aliases.root, category.root, style.root, defaultLocale.root));
}

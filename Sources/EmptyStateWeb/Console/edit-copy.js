// The editor's Copy group: the locale being edited (and why the editor opened on it, and a new
// one to add), then each string of that locale beside the source locale's, with its live limit
// in columns and its placeholders checked against the source's, and who changed the locale last.
// The title and the message are edited in text areas as tall as their line limits (2 and 3
// lines), growing with a longer text, so the whole text is always in view.

import { check, limitOf, placeholders, runs } from "./copy-rules.js";
import { direction, h, select, time } from "./dom.js";
import { generalForm, isPlural, pluralRows } from "./edit-plurals.js";
import { setGroupError } from "./part-edit-fields.js";
import { keyLabel, keysOf } from "./template-model.js";

/** The Copy group of `draft` in `editor.state.locale`, its fields registered with `editor`. */
export function copyGroup(draft, editor) {
  const { state, fields, main, readOnly, writeProps, textInput, changed, build, showErrors, focusField, labels } = editor;
  const source = draft.defaultLocale;
  const locales = Object.keys(draft.strings);
  const localeSelect = select(locales.map((locale) => [locale, locale === source ? `${locale} (source)` : locale]), state.locale, { id: "edit-locale" });
  localeSelect.addEventListener("change", () => {
    state.locale = localeSelect.value;
    state.localeReason = "";
    build();
    showErrors();
    editor.preview()?.setLocales(Object.keys(draft.strings), state.locale);
    editor.preview()?.update(state.draft, { now: true });
    main.querySelector("#edit-locale")?.focus();
  });
  const absent = state.absentLocale && !draft.strings[state.absentLocale] ? state.absentLocale : "";
  const newLocale = h("input", { type: "text", id: "new-locale", size: "8", readOnly, placeholder: "e.g. it", value: absent });
  const addLocale = h(
    "button",
    {
      type: "button",
      ...writeProps(),
      onclick() {
        const tag = newLocale.value.trim();
        if (!tag || draft.strings[tag]) return;
        draft.strings[tag] = Object.fromEntries(keysOf(draft, labels.keyOf).map((key) => [key, ""]));
        state.locale = tag;
        changed();
        build();
        focusField(`/strings/${tag}/title`);
      },
    },
    "Add locale",
  );
  const group = h(
    "fieldset",
    { class: "group copy" },
    h("legend", {}, "Copy"),
    h(
      "div",
      { class: "grid" },
      h(
        "div",
        { class: "field" },
        h("label", { for: "edit-locale" }, "Edit locale"),
        localeSelect,
        h("p", { class: "hint", id: "edit-locale-reason" }, state.localeReason ? `Opened on ${state.locale}: ${state.localeReason}.` : ""),
      ),
      h("div", { class: "field" }, h("label", { for: "new-locale" }, "New locale"), h("div", { class: "inline" }, newLocale, addLocale)),
    ),
  );
  if (absent) {
    group.append(h("p", { class: "notice" }, `This template has no ${absent} strings yet: “Add locale” makes them, to translate from the source.`));
  }
  fields.set(`/strings/${state.locale}`, { control: localeSelect, setError: (text) => setGroupError(group, text) });
  fields.set("/strings", { control: localeSelect, setError: (text) => setGroupError(group, text) });
  localeSelect.setAttribute("aria-describedby", "edit-locale-reason");
  const values = draft.strings[state.locale];
  const sourceValues = draft.strings[source];
  for (const key of keysOf(draft, labels.keyOf)) {
    if (isPlural(values[key]) || isPlural(sourceValues[key])) {
      const onChange = () => {
        editor.edited(state.locale);
        changed();
      };
      const lines = Number.parseInt(limitOf(key).lines, 10) || 1;
      group.append(pluralRows(key, { values, sourceValue: sourceValues[key], locale: state.locale, source, textInput, liveChecks, onChange, lines }));
      continue;
    }
    const sourceText = state.locale === source ? null : sourceValues[key];
    const handle = textInput(`/strings/${state.locale}/${key}`, `${keyLabel(key)} (${state.locale})`, values[key], (value) => {
      values[key] = value;
      live(value);
      editor.edited(state.locale);
      changed();
    }, { multiline: key === "title" || key === "message", lines: Number.parseInt(limitOf(key).lines, 10) || 1, lang: state.locale });
    const live = liveChecks(key, handle, { sourceText, isSource: state.locale === source });
    live(values[key] ?? "");
    const row = h(
      "div",
      { class: "copy-row" },
      h(
        "div",
        { class: "source", lang: source, dir: direction(source) },
        h("span", { class: "source-label" }, state.locale === source ? "Live" : `Source (${source})`),
        h("p", {}, runs(generalForm(state.locale === source ? state.base.strings?.[source]?.[key] : sourceText)).map((run) => (run.placeholder ? h("mark", {}, run.text) : run.text))),
      ),
      handle.root,
    );
    group.append(row);
  }
  const who = (state.live.stringUpdates || []).filter((update) => update.locale === state.locale);
  if (who.length) {
    const latest = who.reduce((a, b) => (a.updatedAt > b.updatedAt ? a : b));
    group.append(h("p", { class: "hint" }, `${state.locale} last changed `, time(latest.updatedAt), ` by ${latest.updatedBy}.`));
  }
  return group;
}

/**
 * The live checks of the string at `key` under its field (`handle.hint`): its width in columns
 * against the key's limit, and its placeholders against the source's. Returns the function that
 * updates them for a value.
 */
function liveChecks(key, handle, { sourceText, isSource, optional = [] }) {
  const limit = limitOf(key);
  const counter = h("span", { class: "counter" });
  const placeholderLine = h("span", { class: "placeholders" });
  handle.hint.replaceChildren(counter, " ", placeholderLine);
  return (value) => {
    const verdict = check(key, value, isSource ? undefined : sourceText);
    counter.textContent = `${verdict.columns} / ${verdict.limit} columns (${limit.lines})${verdict.columns > verdict.limit ? ": too long" : ""}`;
    counter.classList.toggle("over", verdict.columns > verdict.limit);
    const want = placeholders(isSource ? value : sourceText);
    const have = placeholders(value);
    const missing = want.filter((name) => !have.includes(name) && !optional.includes(name));
    const extra = have.filter((name) => !want.includes(name));
    placeholderLine.textContent = !want.length && !have.length ? "" : missing.length || extra.length
      ? `Placeholders: ${missing.map((n) => `{${n}} missing`).concat(extra.map((n) => `{${n}} not in the source`)).join(", ")}`
      : `Placeholders: ${want.map((n) => `{${n}}`).join(", ")} ✓`;
    placeholderLine.classList.toggle("over", missing.length > 0 || extra.length > 0);
  };
}

// A plural string in the Copy group (issue 36): one field per CLDR plural category of the edited
// locale, beside the source's forms. The categories come from the browser's Intl.PluralRules,
// which carries CLDR's rules (no table of our own to keep in step); the service checks every
// form again against its generated CLDR tables and answers 422 at the form's pointer, which
// these fields are registered under (`/strings/<locale>/<key>/<category>`).

import { direction, h } from "./dom.js";
import { keyLabel } from "./template-model.js";

/** CLDR's order of the categories, which is the order the fields are shown in. */
const ORDER = ["zero", "one", "two", "few", "many", "other"];

/** Whether a string's value is a plural string's object (`{"plural": "count", "one": …}`). */
export function isPlural(value) {
  return value !== null && typeof value === "object";
}

/** The text a plain check can read of a value: a plural's general (`other`) form. */
export function generalForm(value) {
  return isPlural(value) ? (value.other ?? "") : (value ?? "");
}

/** The categories `locale` has by CLDR, with any the value already holds, in CLDR's order. */
function categoriesOf(locale, value) {
  let categories = ["other"];
  try {
    categories = new Intl.PluralRules(locale).resolvedOptions().pluralCategories;
  } catch {
    // A tag the browser does not know: `other` alone, as CLDR's root.
  }
  const held = isPlural(value) ? Object.keys(value) : [];
  return ORDER.filter((category) => category === "other" || categories.includes(category) || held.includes(category));
}

/** Up to three whole numbers that take `category` in `locale`: the field's hint. */
function examplesOf(locale, category) {
  let rules;
  try {
    rules = new Intl.PluralRules(locale);
  } catch {
    return [];
  }
  const found = [];
  for (let number = 0; number <= 1000 && found.length < 3; number += 1) {
    if (rules.select(number) === category) found.push(number);
  }
  return found;
}

/**
 * The rows of the plural string at `key` in `locale`: the source's forms, then a field per
 * category. The value becomes a plural object on the first input (a translation that was a plain
 * string keeps its text as the general form); an emptied form other than `other` is removed, so
 * that number takes the general form.
 */
export function pluralRows(key, { values, sourceValue, locale, source, textInput, liveChecks, onChange, lines }) {
  const variable = (isPlural(values[key]) && values[key].plural) || (isPlural(sourceValue) && sourceValue.plural) || "count";
  const isSource = locale === source;
  const sourceOther = isSource ? undefined : generalForm(sourceValue);
  const forms = isPlural(sourceValue) ? ORDER.filter((category) => sourceValue[category] !== undefined) : ["other"];
  const sourceList = h(
    "dl",
    { class: "plural-source" },
    ...forms.flatMap((category) => [h("dt", {}, category), h("dd", {}, isPlural(sourceValue) ? sourceValue[category] : (sourceValue ?? ""))]),
  );
  const rows = h(
    "fieldset",
    { class: "plural" },
    h("legend", {}, `${keyLabel(key)} (${locale}): a form per number, the number in {${variable}}`),
    h("div", { class: "source", lang: source, dir: direction(source) }, h("span", { class: "source-label" }, isSource ? "Forms" : `Source (${source})`), sourceList),
  );
  for (const category of categoriesOf(locale, values[key])) {
    const current = isPlural(values[key]) ? values[key][category] : category === "other" ? values[key] : undefined;
    const numbers = examplesOf(locale, category);
    const general = "every number without a form of its own (fractions such as 1.5 included)";
    const hint = category === "other" ? (numbers.length ? `For ${numbers.join(", ")}… and ${general}` : `For ${general}`) : `For ${numbers.join(", ")}…`;
    const handle = textInput(`/strings/${locale}/${key}/${category}`, `${keyLabel(key)}, ${category} (${locale})`, current, (value) => {
      if (!isPlural(values[key])) values[key] = { plural: variable, other: typeof values[key] === "string" ? values[key] : "" };
      if (value === "" && category !== "other") delete values[key][category];
      else values[key][category] = value;
      live(value);
      onChange();
    }, { multiline: true, lines, lang: locale });
    // The number may be left out of a form for one number alone (English "One result"): the
    // live check does not insist on it; the service does, where the category holds more.
    const live = liveChecks(key, handle, { sourceText: sourceOther, isSource, optional: category === "other" ? [] : [variable] });
    live(current ?? "");
    const label = h("p", { class: "hint plural-hint" }, hint);
    rows.append(h("div", { class: "copy-row" }, label, handle.root));
  }
  return rows;
}

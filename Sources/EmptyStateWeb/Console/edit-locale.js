// Which locale the editor opens on, and why. An editor works in one language day after day: the
// editor opens on the locale this person last edited (remembered in this browser, per signed-in
// name: a preference, never a draft or a secret), else the browser's language negotiated
// against the template's locales, else the first locale with a missing or stale string, else
// the first one after the source. The reason is shown beside the locale, so the choice is never
// a surprise.

import { keysOf } from "./template-model.js";

const STORAGE_PREFIX = "empty-state-console.last-locale.";

/** The locale `name` last edited in this browser, or null (storage may be off: then nothing). */
export function rememberedLocale(name) {
  try {
    return localStorage.getItem(STORAGE_PREFIX + name);
  } catch {
    return null;
  }
}

/** Remembers that `name` edited `locale` (called on each edit of a string, cheap when unchanged). */
export function rememberLocale(name, locale) {
  try {
    if (localStorage.getItem(STORAGE_PREFIX + name) !== locale) localStorage.setItem(STORAGE_PREFIX + name, locale);
  } catch {
    // Storage refused (private mode, quota): the editor still works, it opens as if never used.
  }
}

/**
 * The first of `wanted` (BCP 47 tags in preference order, like `navigator.languages`) that one of
 * `available` matches: the same tag (case aside), else the same language (`fr-CA` → `fr`,
 * `pt` → `pt-BR`). Returns the available tag, or null.
 */
export function negotiate(wanted, available) {
  const lower = available.map((tag) => tag.toLowerCase());
  const language = (tag) => tag.toLowerCase().split("-")[0];
  for (const tag of wanted) {
    const exact = lower.indexOf(tag.toLowerCase());
    if (exact >= 0) return available[exact];
    const same = available.find((candidate) => language(candidate) === language(tag));
    if (same) return same;
  }
  return null;
}

/**
 * The locale of `draft` (a template document) to open on, with the reason to show:
 * {locale, reason}. `asked` is the route's `?locale=` (a link that names one wins);
 * `stringUpdates` (who changed each string when) tells stale translations apart: a translation
 * changed before its source string (to the second, as the API says when; the translation report's
 * `stale`, by revision, stays the authority).
 */
export function chooseLocale(draft, { asked, remembered, languages = [], stringUpdates = [] }) {
  const locales = Object.keys(draft.strings);
  const source = draft.defaultLocale;
  if (asked && locales.includes(asked)) return { locale: asked, reason: "the locale the link names" };
  if (remembered && locales.includes(remembered)) return { locale: remembered, reason: "the locale you edited last" };
  const spoken = negotiate(languages, locales);
  if (spoken) return { locale: spoken, reason: `your browser's language (${languages.find((tag) => negotiate([tag], locales))})` };
  const keys = keysOf(draft);
  const changed = new Map(stringUpdates.map((update) => [`${update.locale}\u0000${update.key}`, update.updatedAt]));
  const at = (locale, key) => changed.get(`${locale}\u0000${key}`) || "";
  for (const locale of locales) {
    if (locale === source) continue;
    if (keys.some((key) => !draft.strings[locale][key])) return { locale, reason: "the first locale with a missing string" };
    if (keys.some((key) => at(locale, key) && at(locale, key) < at(source, key))) return { locale, reason: "the first locale with a stale string" };
  }
  const first = locales.find((locale) => locale !== source) || source;
  return { locale: first, reason: first === source ? "the source: the template has no other locale" : "the first locale after the source" };
}

// The template document as the console edits and lists it: the values the service accepts for
// its enumerations (the server's validation stays the authority; these fill the controls), and
// the string keys a locale has. Shared by the screens; imports nothing.

/** The categories a template may have, in the order the controls offer them. */
export const CATEGORIES = ["firstUse", "noResults", "error", "offline", "access", "auth", "update", "redirect", "loading"];

/** The styles, with what each looks like. */
export const STYLES = [
  ["default", "default (white)"],
  ["subtle", "subtle (grey blue)"],
];

/** An action's roles, with what each looks like. */
export const ACTION_ROLES = [
  ["primary", "primary (filled)"],
  ["secondary", "secondary"],
];

/** The types of action. */
export const ACTION_TYPES = ["retry", "navigateBack", "navigate", "openURL", "openStore", "openSettings", "signIn", "dismiss", "custom"];

/** The types whose action has a target, with what the target is. */
export const NEEDS_TARGET = { navigate: "an app route", openURL: "an https:// URL", custom: "the event name the app handles", openStore: "a store URL (optional)" };

/** A template has at most this many actions. */
export const MAXIMUM_ACTIONS = 3;

/**
 * The string keys a locale of `document` has, in the order a form shows them; `labelKeyOf` says
 * where an action's labels are (`actions.<id>` unless an editor keeps them elsewhere meanwhile).
 */
export function keysOf(document, labelKeyOf = (action) => `actions.${action.id}`) {
  const source = document.strings?.[document.defaultLocale] || {};
  const keys = ["title"];
  if ("message" in source) keys.push("message");
  for (const action of document.actions || []) keys.push(labelKeyOf(action));
  if ("visual.label" in source) keys.push("visual.label");
  return keys;
}

/** What a person calls the string at `key`: "Title", "Label of retry", … */
export function keyLabel(key) {
  if (key === "title") return "Title";
  if (key === "message") return "Message";
  if (key === "visual.label") return "Visual label";
  return `Label of ${key.slice("actions.".length)}`;
}

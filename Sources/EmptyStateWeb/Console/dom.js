// Building the console's DOM: every string from the service is set as text (textContent or an
// attribute value), never parsed as markup. The one exception, the preview's HTML, is the
// service's own renderer output and goes through part-preview.js.

/**
 * An element: h("button", {type: "button", onclick: f, class: "x", "aria-label": "…"}, "text", child).
 * Props: `on<event>` listens; `class`, attributes and `data-*` are set as attributes; `value`,
 * `checked`, `disabled`, `hidden`, `readOnly`, `selected` as properties. Children: nodes, strings
 * (text), arrays, and null/false/undefined (skipped).
 */
export function h(tag, props = {}, ...children) {
  const element = tag.includes(":svg")
    ? document.createElementNS("http://www.w3.org/2000/svg", tag.replace(":svg", ""))
    : document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") element.addEventListener(key.slice(2), value);
    else if (["value", "checked", "disabled", "hidden", "readOnly", "selected", "indeterminate"].includes(key)) element[key] = value;
    else element.setAttribute(key, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

function append(parent, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

const RTL = new Set(["ar", "he", "fa", "ur", "ps", "sd", "ug", "yi", "dv", "ckb"]);

/** The writing direction of `locale`'s script: "rtl" or "ltr" (for `dir` beside `lang`). */
export const direction = (locale) => (RTL.has(String(locale).split("-")[0].toLowerCase()) ? "rtl" : "ltr");

let idCounter = 0;
/** A unique id for labels and descriptions. */
export const uid = (prefix = "id") => `${prefix}-${++idCounter}`;

/** Says `message` to screen readers (the polite status region) and shows it briefly. */
export function announce(message) {
  const region = document.getElementById("status");
  if (!region) return;
  region.textContent = "";
  // A new text node in a later task, so the same message twice is announced twice.
  setTimeout(() => {
    region.textContent = message;
  }, 30);
}

/** `fn` called once `ms` have passed without another call; `.now()` calls it at once. */
export function debounce(fn, ms) {
  let timer = 0;
  const debounced = (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
  debounced.cancel = () => clearTimeout(timer);
  debounced.now = (...args) => {
    clearTimeout(timer);
    return fn(...args);
  };
  return debounced;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
/** A timestamp for people, in their time zone; the ISO text stays in `datetime`. */
export function time(iso) {
  if (!iso) return h("span", {}, "—");
  const date = new Date(iso);
  return h("time", { datetime: iso }, Number.isNaN(date.getTime()) ? iso : dateTime.format(date));
}

/**
 * A labelled form field: the label, the control, a hint and an error line, wired with `for`,
 * `aria-describedby` and `aria-invalid`. Returns {root, control, hint, setError(text)}.
 */
export function field(label, control, { hint, id = uid("field"), className = "field" } = {}) {
  control.id = control.id || id;
  const hintLine = h("p", { class: "hint", id: `${control.id}-hint` }, hint || "");
  const errorLine = h("p", { class: "error", id: `${control.id}-error`, hidden: true });
  control.setAttribute("aria-describedby", `${control.id}-hint ${control.id}-error`);
  const root = h("div", { class: className }, h("label", { for: control.id }, label), control, hintLine, errorLine);
  return {
    root,
    control,
    hint: hintLine,
    setError(text) {
      errorLine.textContent = text || "";
      errorLine.hidden = !text;
      if (text) control.setAttribute("aria-invalid", "true");
      else control.removeAttribute("aria-invalid");
    },
  };
}

/** A `<select>` of `options` ([value, label] pairs or strings). */
export function select(options, value, props = {}) {
  return h(
    "select",
    props,
    options.map((option) => {
      const [optionValue, label] = Array.isArray(option) ? option : [option, option];
      return h("option", { value: optionValue, selected: optionValue === value }, label);
    }),
  );
}

/** A scrollable table region, reachable by keyboard (axe: scrollable-region-focusable). */
export function tableRegion(label, table) {
  return h("div", { class: "table-region", role: "region", "aria-label": label, tabindex: "0" }, table);
}

/** The hash route's query as an object. */
export function routeQuery() {
  const index = location.hash.indexOf("?");
  return Object.fromEntries(new URLSearchParams(index >= 0 ? location.hash.slice(index + 1) : ""));
}

/** A hash link: `#/path?query`, empty query values left out. */
export function routeLink(path, query = {}) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== null && value !== "") params.set(key, value);
  const text = params.toString();
  return `#${path}${text ? `?${text}` : ""}`;
}

/** Shows a problem: the message, and each field error as a list item. */
export function problemView(error) {
  const items = (error.errors || []).map((item) =>
    h("li", {}, h("code", {}, item.pointer ?? item.parameter ?? item.header ?? ""), " ", item.detail || ""),
  );
  return h("div", { class: "problem", role: "alert" }, h("p", {}, error.message), items.length ? h("ul", {}, items) : null);
}

/** "/strings/fr/title" → "fr · title"; "/aliases/0" → "alias". */
export function fieldName(pointer) {
  const parts = pointer.split("/").slice(1).map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"));
  if (parts[0] === "strings") return `${parts[1]} · ${parts.slice(2).join("/")}`;
  if (parts[0] === "aliases") return "alias";
  return parts.join("/");
}

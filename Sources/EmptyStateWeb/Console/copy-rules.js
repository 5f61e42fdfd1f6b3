// The copy rules of config/templates/README.md (CopyRules.swift), for the live counts as an
// editor types. The server's validation (PUT ?validateOnly=true) stays the judge: these only
// say early what it will say.

export const LIMITS = { title: 60, message: 140, label: 32, "visual.label": 140 };

/** What a field may hold: its column limit and the lines the design systems give it. */
export function limitOf(key) {
  if (key === "title") return { columns: LIMITS.title, lines: "2 lines" };
  if (key === "message") return { columns: LIMITS.message, lines: "3 lines" };
  if (key.startsWith("actions.")) return { columns: LIMITS.label, lines: "1 line" };
  return { columns: LIMITS["visual.label"], lines: "an accessibility label" };
}

const NON_SPACING = /\p{Mn}|\p{Me}/u;

/** Display columns: wide and full-width characters count two, combining marks and bidi marks none. */
export function columns(text) {
  let total = 0;
  for (const character of text) {
    const value = character.codePointAt(0);
    if (
      NON_SPACING.test(character) ||
      value === 0x200b ||
      (value >= 0x200e && value <= 0x200f) ||
      (value >= 0x202a && value <= 0x202e)
    ) {
      continue;
    }
    const wide =
      (value >= 0x1100 && value <= 0x115f) ||
      (value >= 0x2e80 && value <= 0xa4cf) ||
      (value >= 0xac00 && value <= 0xd7a3) ||
      (value >= 0xf900 && value <= 0xfaff) ||
      (value >= 0xfe30 && value <= 0xfe4f) ||
      (value >= 0xff00 && value <= 0xff60) ||
      (value >= 0xffe0 && value <= 0xffe6) ||
      (value >= 0x1f300 && value <= 0x1f64f) ||
      (value >= 0x1f900 && value <= 0x1f9ff) ||
      (value >= 0x20000 && value <= 0x3fffd);
    total += wide ? 2 : 1;
  }
  return total;
}

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]{0,31})\}/g;

/** The `{name}` placeholders of `text`, in order, without repeats. */
export function placeholders(text) {
  const names = [];
  for (const match of (text || "").matchAll(PLACEHOLDER)) if (!names.includes(match[1])) names.push(match[1]);
  return names;
}

/** `text` split into [{text, placeholder: bool}] runs, to highlight the placeholders. */
export function runs(text) {
  const parts = [];
  let last = 0;
  for (const match of (text || "").matchAll(PLACEHOLDER)) {
    if (match.index > last) parts.push({ text: text.slice(last, match.index), placeholder: false });
    parts.push({ text: match[0], placeholder: true });
    last = match.index + match[0].length;
  }
  if (last < (text || "").length) parts.push({ text: text.slice(last), placeholder: false });
  return parts;
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u;

/**
 * What is wrong with `text` in field `key` against its source (the default locale's string):
 * {columns, limit, problems: [text]}.
 */
export function check(key, text, source) {
  const limit = limitOf(key);
  const count = columns(text || "");
  const problems = [];
  if (count > limit.columns) problems.push(`${count} columns: at most ${limit.columns} (${limit.lines})`);
  if (CONTROL.test(text || "")) problems.push("no line breaks, tabs or other control characters");
  if (source !== undefined && source !== null) {
    const want = placeholders(source).sort().join(",");
    const have = placeholders(text).sort().join(",");
    if (want !== have) {
      const wanted = placeholders(source).map((name) => `{${name}}`).join(", ") || "none";
      problems.push(`placeholders must match the source: ${wanted}`);
    }
  }
  return { columns: count, limit: limit.columns, problems };
}

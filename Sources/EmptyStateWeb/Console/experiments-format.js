// The experiments screens' words and numbers: the verdict in a sentence, counts, percentages
// with their intervals, p-values and chances, and the small pieces the list and one experiment
// both show (a status badge, a fact of a description list).

import { h } from "./dom.js";
import { percent } from "./part-experiment-chart.js";

/** An experiment's status as a badge (its class gives the colour; the text says it). */
export function statusBadge(status) {
  return h("span", { class: `status status-${status}` }, status);
}

/**
 * The verdict in words: the server's (`verdictText`, from the always-valid figures), so the console
 * and the API say the same thing.
 */
export function verdictText(r) {
  return r.verdictText || `Verdict: ${r.verdict}`;
}

const numberFormat = new Intl.NumberFormat("en");
export const count = (value) => numberFormat.format(value ?? 0);

/** "10.0 % (9.5 % to 10.5 %)"; a difference is signed. */
export function interval(estimate, signed = false) {
  const sign = (value) => (signed && value > 0 ? "+" : "");
  const p = (value) => `${sign(value)}${percent(value)}`;
  return `${p(estimate.value)} (${p(estimate.lower)} to ${p(estimate.upper)})`;
}

/** A probability that rounds to 0 % or 100 % is not certain: "> 99.9 %", "< 0.1 %". */
export function chance(value) {
  if (value > 0.999) return "> 99.9 %";
  if (value < 0.001) return "< 0.1 %";
  return percent(value);
}

/** The installs left out of the results, in words, by reason. */
export function excludedText(r) {
  const total = r.excludedInstalls || 0;
  if (!total) return "No install is excluded: none saw two variants, reported a variant it was not assigned, or came outside the running window.";
  const reasons = [
    [r.excluded?.crossed, "saw more than one variant"],
    [r.excluded?.override, "forced to a variant by a QA override"],
    [r.excluded?.outsideTarget, "reported from outside the target"],
    [r.excluded?.notAssigned, "reported a variant the assignment does not give it"],
    [r.excluded?.beforeStart, "first seen before the start"],
    [r.excluded?.afterStop, "first seen after the stop"],
  ]
    .filter(([n]) => n)
    .map(([n, why]) => `${count(n)} ${why}`);
  const head = total === 1 ? "1 install is excluded" : `${count(total)} installs are excluded`;
  return reasons.length ? `${head}: ${reasons.join("; ")}.` : `${head}.`;
}

/** "0.042", or "< 0.001". */
export function pValue(value) {
  return value < 0.001 ? "< 0.001" : value.toFixed(3);
}

/** One term of a description list: `label`, then `value` (text and nodes). */
export function fact(label, ...value) {
  return h("div", {}, h("dt", {}, label), h("dd", {}, ...value));
}

/** The experiment's target in words ("iOS and Android · locales en, fr · app 5.2.0 to 6.0.0 · new installs only"). */
export function targetText(targeting) {
  if (!targeting) return "Everyone: every platform, locale and app version.";
  const names = { ios: "iOS", android: "Android", web: "web" };
  const parts = [];
  if (targeting.platforms?.length) parts.push(targeting.platforms.map((p) => names[p] || p).join(" and "));
  if (targeting.locales?.length) parts.push(`${targeting.locales.length === 1 ? "locale" : "locales"} ${targeting.locales.join(", ")}`);
  const range = targeting.appVersion;
  if (range?.min && range?.max) parts.push(`app ${range.min} to ${range.max}`);
  else if (range?.min) parts.push(`app ${range.min} or later`);
  else if (range?.max) parts.push(`app ${range.max} or earlier`);
  if (targeting.newInstalls) parts.push("new installs only");
  return parts.length ? parts.join(" · ") : "Everyone: every platform, locale and app version.";
}

/** The QA overrides in words ("qa-pixel-7 → b, qa-iphone → control"). */
export function overridesText(overrides) {
  if (!overrides?.length) return "None.";
  return overrides.map((o) => `${o.installId} → ${o.variant}`).join(", ");
}

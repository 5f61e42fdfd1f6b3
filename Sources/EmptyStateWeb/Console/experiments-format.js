// The experiments screens' words and numbers: the verdict in a sentence, counts, percentages
// with their intervals, p-values and chances, and the small pieces the list and one experiment
// both show (a status badge, a fact of a description list).

import { h } from "./dom.js";
import { percent } from "./part-experiment-chart.js";

/** An experiment's status as a badge (its class gives the colour; the text says it). */
export function statusBadge(status) {
  return h("span", { class: `status status-${status}` }, status);
}

/** The verdict in words. */
export function verdictText(r) {
  switch (r.verdict) {
    case "collecting": {
      const short = [...r.variants].sort((a, b) => a.installs - b.installs)[0];
      return short
        ? `Collecting data: ${short.key} has ${count(short.installs)} of the ${count(r.minimumInstallsPerVariant)} installs needed`
        : "Collecting data";
    }
    case "sample-ratio-mismatch":
      return "Sample ratio mismatch — do not trust these numbers: the installs are not split as the weights say (look for a bug in assignment or in which installs send events)";
    case "winner": {
      const control = r.variants.find((v) => v.control) || r.variants[0];
      return r.winner === control?.key ? `${r.winner} beats every other variant` : `${r.winner} beats ${control?.key ?? "control"}`;
    }
    case "no-significant-difference":
      return "No significant difference";
    default:
      return `Verdict: ${r.verdict}`;
  }
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

/** How many installs saw more than one variant, in words. */
export function excludedText(installs) {
  if (!installs) return "No install saw more than one variant: none is excluded.";
  return installs === 1 ? "1 install saw more than one variant and is excluded." : `${count(installs)} installs saw more than one variant and are excluded.`;
}

/** "0.042", or "< 0.001". */
export function pValue(value) {
  return value < 0.001 ? "< 0.001" : value.toFixed(3);
}

/** One term of a description list: `label`, then `value` (text and nodes). */
export function fact(label, ...value) {
  return h("div", {}, h("dt", {}, label), h("dd", {}, ...value));
}

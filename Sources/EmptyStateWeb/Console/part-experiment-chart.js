// The experiment results chart, drawn here as SVG (no chart library): one row per variant, its
// conversion rate as a bar and a point, the 95 % interval as a whisker, and a dashed line at
// control's rate. The SVG is a picture of the results table beside it (role="img", labelled with
// the same numbers in words); the table is what a screen reader or a keyboard reads.
//
// Right to left, the axis starts at the right and the variants' names sit on the right: every
// x is mirrored (`mx`) and every text anchor swapped, rather than flipping the drawing (which
// would mirror the text too).

import { h } from "./dom.js";

const ROW = 44;
const PAD = { top: 30, bottom: 12, end: 64 };

/** "10.5 %": a rate for people (one decimal, two below 1 %). */
export function percent(rate) {
  const value = 100 * (rate || 0);
  return `${value.toFixed(Math.abs(value) < 1 && value !== 0 ? 2 : 1)} %`;
}

/** A round step in [0, 1] for `top` split into about four ticks. */
function step(top) {
  const raw = top / 4;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((n) => n * magnitude).find((n) => n >= raw);
}

/**
 * The chart of `variants` (the results' `variants`, control first) as an <svg>. `winner` is
 * the results' winner key (drawn in the "ok" colour); `rtl` mirrors it. `width` is the space it
 * has in CSS pixels: the drawing is made that wide (within 280–720), so its text keeps its size
 * at 320 px instead of being scaled down with the picture.
 */
export function resultsChart({ variants, winner, rtl, label, width = 640 }) {
  const chartWidth = Math.round(Math.min(720, Math.max(280, width)));
  const labelWidth = Math.round(Math.min(112, chartWidth * 0.25));
  const height = PAD.top + variants.length * ROW + PAD.bottom;
  const highest = Math.max(0, ...variants.map((v) => v.rate?.upper ?? 0));
  const tick = step(highest > 0 ? highest * 1.1 : 0.1);
  const top = Math.max(tick, Math.ceil((highest > 0 ? highest * 1.05 : 0.1) / tick) * tick);
  const plot = chartWidth - labelWidth - PAD.end;
  const x = (rate) => labelWidth + (Math.min(Math.max(rate, 0), top) / top) * plot;
  const mx = (value) => (rtl ? chartWidth - value : value);
  const anchor = (name) => (rtl ? { start: "end", end: "start" }[name] || name : name);
  const svg = h("svg:svg", {
    viewBox: `0 0 ${chartWidth} ${height}`,
    role: "img",
    "aria-label": label,
    class: "chart results-chart",
    direction: "ltr",
    preserveAspectRatio: "xMidYMid meet",
  });
  // The axis: ticks in percent along the top, a grid line each.
  for (let value = 0; value <= top + tick / 1000; value += tick) {
    svg.append(
      h("line:svg", { x1: mx(x(value)), x2: mx(x(value)), y1: PAD.top - 6, y2: height - PAD.bottom, class: "grid-line" }),
      h("text:svg", { x: mx(x(value)), y: PAD.top - 12, "text-anchor": "middle", class: "tick" }, percent(value)),
    );
  }
  const control = variants.find((v) => v.control) || variants[0];
  variants.forEach((variant, index) => {
    const middle = PAD.top + index * ROW + ROW / 2;
    const rate = variant.rate || { value: 0, lower: 0, upper: 0 };
    const kind = variant.key === winner ? "winner" : variant.control ? "control" : "variant";
    const [a, b] = [mx(x(0)), mx(x(rate.value))];
    const [low, high] = [mx(x(rate.lower)), mx(x(rate.upper))];
    const group = h("g:svg", { class: `arm ${kind}`, "data-variant": variant.key });
    group.append(
      h("text:svg", { x: mx(labelWidth - 10), y: middle + 4, "text-anchor": anchor("end"), class: "arm-label" }, variant.key),
      h("rect:svg", { x: Math.min(a, b), y: middle - 9, width: Math.max(0.5, Math.abs(b - a)), height: 18, class: "arm-bar" }),
      h("line:svg", { x1: low, x2: high, y1: middle, y2: middle, class: "whisker" }),
      h("line:svg", { x1: low, x2: low, y1: middle - 7, y2: middle + 7, class: "whisker" }),
      h("line:svg", { x1: high, x2: high, y1: middle - 7, y2: middle + 7, class: "whisker" }),
      h("circle:svg", { cx: b, cy: middle, r: 4.5, class: "arm-point" }),
      h("text:svg", { x: mx(x(rate.upper) + 8), y: middle + 4, "text-anchor": anchor("start"), class: "arm-value" }, percent(rate.value)),
    );
    svg.append(group);
  });
  if (control?.rate) {
    const at = mx(x(control.rate.value));
    svg.append(h("line:svg", { x1: at, x2: at, y1: PAD.top - 4, y2: height - PAD.bottom, class: "reference" }));
  }
  return svg;
}

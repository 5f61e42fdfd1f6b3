// Charts drawn here as SVG (no chart library): grouped bars, with every number also in the table
// the screens put beside each chart. The SVG is a picture of that table (role="img", labelled);
// the table is what a screen reader or a keyboard reads.

import { h } from "./dom.js";

const WIDTH = 640;
const HEIGHT = 240;
const PAD = { top: 16, right: 12, bottom: 44, left: 48 };

/** A round step (a whole number: these are counts) for `max` split into about five ticks. */
function step(max) {
  const raw = Math.max(1, max / 5);
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((n) => n * magnitude).find((n) => n >= raw);
}

/**
 * Grouped bars: one group per category, one bar per series ([{name, values, className}]).
 * Returns an <svg> element.
 */
export function barChart({ label, categories, series }) {
  const max = Math.max(1, ...series.flatMap((s) => s.values));
  const tick = step(max);
  const top = Math.ceil(max / tick) * tick;
  const innerWidth = WIDTH - PAD.left - PAD.right;
  const innerHeight = HEIGHT - PAD.top - PAD.bottom;
  const group = innerWidth / Math.max(1, categories.length);
  const barWidth = Math.max(1, (group * 0.8) / series.length);
  const y = (value) => PAD.top + innerHeight - (value / top) * innerHeight;
  const svg = h("svg:svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-label": label, class: "chart", preserveAspectRatio: "xMidYMid meet" });
  for (let value = 0; value <= top; value += tick) {
    svg.append(
      h("line:svg", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(value), y2: y(value), class: "grid-line" }),
      h("text:svg", { x: PAD.left - 6, y: y(value) + 4, "text-anchor": "end", class: "tick" }, String(value)),
    );
  }
  const labelEvery = Math.ceil(categories.length / 12);
  categories.forEach((category, index) => {
    const x0 = PAD.left + index * group + group * 0.1;
    series.forEach((s, seriesIndex) => {
      const value = s.values[index] || 0;
      svg.append(
        h("rect:svg", { x: x0 + seriesIndex * barWidth, y: y(value), width: Math.max(0.5, barWidth - 1), height: Math.max(0, y(0) - y(value)), class: `bar ${s.className}` }),
      );
    });
    if (index % labelEvery === 0) {
      svg.append(h("text:svg", { x: x0 + (group * 0.8) / 2, y: HEIGHT - PAD.bottom + 16, "text-anchor": "middle", class: "tick" }, category));
    }
  });
  // The legend.
  series.forEach((s, index) => {
    const x = PAD.left + index * 140;
    svg.append(
      h("rect:svg", { x, y: HEIGHT - 16, width: 12, height: 12, class: `bar ${s.className}` }),
      h("text:svg", { x: x + 18, y: HEIGHT - 6, class: "legend" }, s.name),
    );
  });
  return svg;
}

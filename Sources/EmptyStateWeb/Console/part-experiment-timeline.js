// The experiment's results over time, drawn here as SVG (no chart library): for each variant
// beside control, its difference to control day by day (a line with a point a day) inside its
// always-valid interval (a band), and a line at zero. Where the band has left zero the difference
// holds however often the results were read. The SVG is a picture (role="img", labelled in
// words); the table after it (`timelineTable`) has every number.
//
// Right to left, time runs from the right: every x is mirrored (`mx`) and every text anchor
// swapped, as in part-experiment-chart.js.

import { h } from "./dom.js";

const PAD = { top: 16, bottom: 28, start: 64, end: 16 };
const HEIGHT = 220;

/** "+1.0" / "−0.4" points for a difference of rates. */
export function points(difference) {
  const value = 100 * (difference || 0);
  const text = Math.abs(value).toFixed(1);
  return value > 0.0000001 ? `+${text}` : value < -0.0000001 ? `−${text}` : "0.0";
}

/** The days that have a sequential comparison for `key`, with it. */
function series(timeline, key) {
  return timeline
    .map((point) => ({ date: point.date, arm: point.variants.find((v) => v.key === key) }))
    .filter((day) => day.arm?.sequential);
}

/** A round step for a range of `span` rate points split into about four ticks. */
function step(span) {
  const raw = span / 4;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((n) => n * magnitude).find((n) => n >= raw);
}

/** The words the chart says, for its label. */
export function timelineLabel(timeline, keys) {
  const parts = keys.map((key) => {
    const days = series(timeline, key);
    if (!days.length) return `${key}: no interval yet`;
    const first = days[0];
    const last = days[days.length - 1];
    const say = (day) => `${points(day.arm.sequential.difference)} points (${points(day.arm.sequential.lower)} to ${points(day.arm.sequential.upper)}) on ${day.date}`;
    return days.length === 1 ? `${key}: ${say(first)}` : `${key}: from ${say(first)} to ${say(last)}`;
  });
  return `Difference to control over time, in percentage points, with the always-valid interval. ${parts.join("; ")}.`;
}

/**
 * The chart of `timeline` (the results' `timeline`) for the variants `keys` (control left out),
 * as an <svg> laid out `width` CSS pixels wide (280–720); `null` when no day has an interval yet.
 */
export function timelineChart({ timeline, keys, rtl, width = 640, label }) {
  const all = keys.map((key, index) => ({ key, index, days: series(timeline, key) })).filter((s) => s.days.length);
  if (!all.length) return null;
  const dates = [...new Set(all.flatMap((s) => s.days.map((d) => d.date)))].sort();
  const chartWidth = Math.round(Math.min(720, Math.max(280, width)));
  const values = all.flatMap((s) => s.days.flatMap((d) => [d.arm.sequential.lower, d.arm.sequential.upper])).filter(Number.isFinite);
  let low = Math.min(0, ...values);
  let high = Math.max(0, ...values);
  if (high - low < 0.002) [low, high] = [low - 0.001, high + 0.001];
  const tick = step(high - low);
  low = Math.floor(low / tick) * tick;
  high = Math.ceil(high / tick) * tick;
  const plot = chartWidth - PAD.start - PAD.end;
  const x = (date) => PAD.start + (dates.length === 1 ? plot / 2 : (dates.indexOf(date) / (dates.length - 1)) * plot);
  const y = (value) => PAD.top + ((high - Math.min(Math.max(value, low), high)) / (high - low)) * (HEIGHT - PAD.top - PAD.bottom);
  const mx = (value) => (rtl ? chartWidth - value : value);
  const anchor = (name) => (rtl ? { start: "end", end: "start" }[name] || name : name);
  const svg = h("svg:svg", {
    viewBox: `0 0 ${chartWidth} ${HEIGHT}`,
    role: "img",
    "aria-label": label,
    class: "chart timeline-chart",
    direction: "ltr",
    preserveAspectRatio: "xMidYMid meet",
  });
  for (let value = low; value <= high + tick / 1000; value += tick) {
    svg.append(
      h("line:svg", { x1: mx(PAD.start), x2: mx(chartWidth - PAD.end), y1: y(value), y2: y(value), class: "grid-line" }),
      h("text:svg", { x: mx(PAD.start - 8), y: y(value) + 4, "text-anchor": anchor("end"), class: "tick" }, points(value)),
    );
  }
  svg.append(h("line:svg", { x1: mx(PAD.start), x2: mx(chartWidth - PAD.end), y1: y(0), y2: y(0), class: "zero" }));
  // The first and last day under the axis, each kept inside the drawing by its anchor.
  const ends = dates.length === 1 ? [[dates[0], "middle"]] : [[dates[0], "start"], [dates[dates.length - 1], "end"]];
  for (const [date, side] of ends) {
    svg.append(h("text:svg", { x: mx(x(date)), y: HEIGHT - 8, "text-anchor": anchor(side), class: "tick" }, date));
  }
  for (const { key, index, days } of all) {
    const group = h("g:svg", { class: `series series-${index % 4}`, "data-variant": key });
    const upper = days.map((d) => `${mx(x(d.date))},${y(d.arm.sequential.upper)}`);
    const lower = days.map((d) => `${mx(x(d.date))},${y(d.arm.sequential.lower)}`).reverse();
    group.append(h("polygon:svg", { points: [...upper, ...lower].join(" "), class: "band" }));
    group.append(h("polyline:svg", { points: days.map((d) => `${mx(x(d.date))},${y(d.arm.sequential.difference)}`).join(" "), class: "estimate" }));
    for (const d of days) group.append(h("circle:svg", { cx: mx(x(d.date)), cy: y(d.arm.sequential.difference), r: 3, class: "day" }));
    const last = days[days.length - 1];
    group.append(
      h("text:svg", { x: mx(x(last.date) - 6), y: y(last.arm.sequential.difference) - 8, "text-anchor": anchor("end"), class: "series-label" }, key),
    );
    svg.append(group);
  }
  return svg;
}

/** Every day and arm of `timeline` as a table: the chart's numbers, and the days before it. */
export function timelineTable(timeline, { id, caption, count, interval }) {
  return h(
    "table",
    { id, class: "timeline-table" },
    h("caption", {}, caption),
    h(
      "thead",
      {},
      h("tr", {}, ["Day", "Variant", "Installs", "Conversions", "Difference (95 % interval, one look)", "Always-valid interval", "Always-valid p"].map((name) => h("th", { scope: "col" }, name))),
    ),
    h(
      "tbody",
      {},
      timeline.flatMap((point) =>
        point.variants.map((arm, index) =>
          h(
            "tr",
            {},
            index === 0 ? h("th", { scope: "row", rowspan: point.variants.length }, point.date) : null,
            h("td", {}, arm.key),
            h("td", {}, count(arm.installs)),
            h("td", {}, count(arm.conversions)),
            h("td", {}, arm.difference ? interval(arm.difference, true) : "—"),
            h("td", {}, arm.sequential ? `${points(arm.sequential.difference)} points (${points(arm.sequential.lower)} to ${points(arm.sequential.upper)})` : "—"),
            h("td", {}, arm.sequential ? arm.sequential.pValue.toFixed(3) : "—"),
          ),
        ),
      ),
    ),
  );
}

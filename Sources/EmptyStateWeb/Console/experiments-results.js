// An experiment's results (GET /v1/admin/experiments/{id}/results) as people read them: the
// verdict in words, the notes (metric, exclusions, the split against the weights), the chart
// with its intervals and the table of every number.

import { h, tableRegion } from "./dom.js";
import { chance, count, excludedText, interval, pValue, verdictText } from "./experiments-format.js";
import { percent, resultsChart } from "./part-experiment-chart.js";

/**
 * The results section's content for results `r`: the chart laid out `width` pixels wide,
 * mirrored when `rtl`.
 */
export function resultsView(r, { rtl, width }) {
  const control = r.variants.find((v) => v.control) || r.variants[0];
  const metric = r.primaryMetric?.type === "tap" ? `taps on “${r.primaryMetric.action}”` : "taps on any action";
  const tableID = "results-table";
  const chartLabel =
    `Conversion rate per variant with its 95 % interval: ` +
    r.variants.map((v) => `${v.key} ${percent(v.rate.value)} (${percent(v.rate.lower)} to ${percent(v.rate.upper)})`).join("; ") +
    `. ${verdictText(r)}.`;
  const figure = h(
    "figure",
    { class: "results-figure", "aria-describedby": tableID },
    resultsChart({ variants: r.variants, winner: r.verdict === "winner" ? r.winner : null, rtl, label: chartLabel, width }),
    h("figcaption", {}, `Conversion rate (installs that converted: ${metric}) per variant, with its 95 % interval; the dashed line is ${control.key}’s rate. The table has every number.`),
  );
  const yesNo = (value) => (value === undefined || value === null ? "—" : value ? "yes" : "no");
  const table = h(
    "table",
    { id: tableID, class: "results-table" },
    h("caption", {}, `Results of ${r.experimentId} per variant`),
    h(
      "thead",
      {},
      h("tr", {}, ["Variant", "Weight", "Installs", "Conversions", "Displayed", "Tapped", "Rate (95 % interval)", `Difference to ${control.key} (95 % interval)`, "p-value", `Chance to beat ${control.key}`, "Significant"].map((name) => h("th", { scope: "col" }, name))),
    ),
    h(
      "tbody",
      {},
      r.variants.map((v) =>
        h(
          "tr",
          { "data-variant": v.key },
          h("th", { scope: "row" }, v.key, v.control ? h("span", { class: "badge" }, "control") : null, r.verdict === "winner" && r.winner === v.key ? h("span", { class: "badge winner" }, "winner") : null),
          h("td", {}, percent(v.weight)),
          h("td", {}, count(v.installs)),
          h("td", {}, count(v.conversions)),
          h("td", {}, count(v.displayed)),
          h("td", {}, count(v.tapped)),
          h("td", {}, interval(v.rate)),
          h("td", {}, v.difference ? interval(v.difference, true) : "—"),
          h("td", {}, v.pValue === undefined || v.pValue === null ? "—" : pValue(v.pValue)),
          h("td", {}, v.chanceToBeatControl === undefined || v.chanceToBeatControl === null ? "—" : chance(v.chanceToBeatControl)),
          h("td", {}, yesNo(v.significant)),
        ),
      ),
    ),
  );
  const srm = r.sampleRatio;
  return [
    h("h2", { id: "results-heading" }, "Results"),
    h("p", { class: `verdict verdict-${r.verdict}`, "data-verdict": r.verdict }, verdictText(r)),
    h(
      "ul",
      { class: "notes" },
      h("li", {}, `Primary metric: ${metric}; an install counts once, converted or not. At least ${count(r.minimumInstallsPerVariant)} installs per variant before any verdict.`),
      h("li", { class: "excluded" }, excludedText(r.excludedInstalls)),
      h("li", {}, `Split against the weights: χ² ${srm.chiSquare.toFixed(2)}, p ${pValue(srm.pValue)}${srm.mismatch ? " — a mismatch (p < 0.001)" : ", as expected"}.`),
    ),
    figure,
    tableRegion(`Results of ${r.experimentId}: the numbers`, table),
  ];
}

// An experiment's results (GET /v1/admin/experiments/{id}/results) as people read them: the
// verdict in words (the server's, from the always-valid figures), the notes (metric, exclusions by
// reason, the split against the weights), the plan and how far the experiment is, the chart with
// its intervals and the table of every number, then the results over time (a chart of the
// always-valid interval day by day, its table, and the CSV export).

import { h, tableRegion } from "./dom.js";
import { chance, count, excludedText, fact, interval, pValue, verdictText } from "./experiments-format.js";
import { percent, resultsChart } from "./part-experiment-chart.js";
import { points, timelineChart, timelineLabel, timelineTable } from "./part-experiment-timeline.js";

/** The plan and the progress against it, as a description list (or why there is none). */
function planView(r) {
  const plan = r.plan;
  if (!plan) {
    return h("p", { class: "plan-missing" }, "No plan: set a baseline rate and a minimum detectable effect before starting (the experiment's plan), so the results can say how many installs it needs and when it is done.");
  }
  const effect = plan.minimumDetectableEffect.relative !== undefined ? `${plan.minimumDetectableEffect.relative > 0 ? "+" : ""}${(100 * plan.minimumDetectableEffect.relative).toFixed(1)} % of the baseline` : `${points(plan.minimumDetectableEffect.absolute)} points`;
  const duration = plan.expectedDuration;
  const progress = r.progress;
  return h(
    "dl",
    { class: "facts plan" },
    fact("Baseline rate", percent(plan.baselineRate)),
    fact("Minimum detectable effect", `${effect} (${points(plan.absoluteEffect)} points), α ${plan.alpha}, power ${Math.round(100 * plan.power)} %`),
    fact("Installs needed per variant", `${plan.sequentialInstalls.map(count).join(" / ")} read any day (always-valid); ${plan.fixedHorizonInstalls.map(count).join(" / ")} read once (fixed horizon)`),
    fact(
      "Expected duration",
      duration?.days !== undefined && duration?.days !== null
        ? `at least ${count(duration.days)} days (${count(Math.round(duration.dailyInstalls))} a day from the template's recent displays); plan on ${count(duration.recommendedDays)} days, whole weeks`
        : "unknown: the template had no displays in the last 28 days",
    ),
    progress
      ? fact(
          "Progress",
          `${count(progress.installs)} of ${count(progress.plannedInstalls)} installs (${percent(progress.share)})` +
            (progress.reached ? ", the planned size is reached" : progress.remainingDays !== undefined && progress.remainingDays !== null ? `, about ${count(progress.remainingDays)} more days at the recent pace` : ""),
        )
      : null,
  );
}

/** The results over time: the chart (once a day has an interval), its table, the CSV link. */
function timelineView(r, { rtl, width }) {
  const keys = r.variants.filter((v) => !v.control).map((v) => v.key);
  const tableID = "timeline-table";
  const chart = timelineChart({ timeline: r.timeline || [], keys, rtl, width, label: timelineLabel(r.timeline || [], keys) });
  return [
    h("h3", { id: "timeline-heading" }, "Results over time"),
    chart
      ? h(
          "figure",
          { class: "results-figure timeline-figure", "aria-describedby": tableID },
          chart,
          h("figcaption", {}, "Each variant’s difference to control day by day, in percentage points, inside its always-valid interval (the band). Where the band has left the zero line, the difference holds however often the results were read. The table has every day."),
        )
      : h("p", {}, "The chart over time starts once every variant has the minimum installs."),
    tableRegion(`Results of ${r.experimentId} over time`, timelineTable(r.timeline || [], { id: tableID, caption: `Results of ${r.experimentId} per day (cumulative)`, count, interval })),
    h("p", {}, h("a", { href: `/v1/admin/experiments/${encodeURIComponent(r.experimentId)}/results/export`, download: `${r.experimentId}-results.csv` }, "Download the results over time (CSV)")),
  ];
}

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
    `. ${verdictText(r)}`;
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
      h("tr", {}, ["Variant", "Weight", "Installs", "Conversions", "Displayed", "Tapped", "Rate (95 % interval)", `Difference to ${control.key} (95 % interval, one look)`, "p-value (one look)", `Chance to beat ${control.key}`, "Significant (one look)", "Always-valid interval", "Always-valid p"].map((name) => h("th", { scope: "col" }, name))),
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
          h("td", {}, v.sequential ? `${points(v.sequential.difference)} points (${points(v.sequential.lower)} to ${points(v.sequential.upper)})` : "—"),
          h("td", {}, v.sequential ? pValue(v.sequential.pValue) : "—"),
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
      h("li", { class: "excluded" }, excludedText(r)),
      ...(r.guardrails || []).map((g) =>
        h(
          "li",
          { class: `guardrail guardrail-${g.state}`, "data-guardrail": g.key },
          `Guardrail “${g.key}” (taps must not ${g.harm === "increase" ? "rise" : "fall"}): ${g.state === "harmed" ? "harmed" : g.state === "not-harmed" ? "not harmed" : "not known yet"}` +
            (g.variants.length ? ` — ${g.variants.map((v) => `${v.variant} ${percent(v.rate)} against ${percent(v.controlRate)} (${v.state})`).join("; ")}` : "") +
            ".",
        ),
      ),
      r.fixedHorizonVerdict && r.fixedHorizonVerdict !== r.verdict
        ? h("li", {}, `The fixed-horizon test alone would say ${r.fixedHorizonVerdict}${r.fixedHorizonWinner ? ` (${r.fixedHorizonWinner})` : ""}: valid for one look at a size fixed in advance, not for a decision taken while the results are read day by day.`)
        : null,
      h("li", {}, `Split against the weights: χ² ${srm.chiSquare.toFixed(2)}, p ${pValue(srm.pValue)}${srm.mismatch ? " — a mismatch (p < 0.001)" : ", as expected"}.`),
    ),
    h("h3", { id: "plan-heading" }, "Plan"),
    planView(r),
    figure,
    tableRegion(`Results of ${r.experimentId}: the numbers`, table),
    ...timelineView(r, { rtl, width }),
  ];
}

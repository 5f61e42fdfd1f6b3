// An experiment's results per segment (GET …/results?segment=platform|locale|appVersion|newInstall): a
// picker, then one table with a group of rows per segment value (its verdict and each variant's
// installs, conversions, rate and always-valid difference to control). The note above the table
// says why a segment's verdict is a hint and not a result: each segment is one more comparison.

import { get, seg } from "./api.js";
import { announce, field, h, problemView, select, tableRegion } from "./dom.js";
import { count, interval, pValue } from "./experiments-format.js";
import { points } from "./part-experiment-timeline.js";

const SEGMENTS = [
  ["", "None (the whole experiment)"],
  ["platform", "Platform"],
  ["locale", "Locale"],
  ["appVersion", "App version"],
  ["newInstall", "New or existing install"],
];

const label = (segment) => SEGMENTS.find(([value]) => value === segment)?.[1] || segment;

/** The verdict of one segment in a few words (the full sentence is the row group's title). */
function verdictWords(results) {
  const words = {
    collecting: "collecting (too few installs)",
    "sample-ratio-mismatch": "split mismatch",
    "keep-running": "no clear difference yet",
    winner: `${results.winner} ahead`,
    "no-detectable-difference": "no detectable difference",
    inconclusive: "inconclusive",
  };
  return words[results.verdict] || results.verdict;
}

/** The table of `data.segments`: a row group per value, a row per variant. */
function segmentsTable(data, id) {
  const control = data.variants.find((v) => v.control) || data.variants[0];
  return h(
    "table",
    { id, class: "results-table segments-table" },
    h("caption", {}, `Results of ${data.experimentId} per ${label(data.segment).toLowerCase()}`),
    h(
      "thead",
      {},
      h("tr", {}, [label(data.segment), "Verdict (a hint)", "Variant", "Installs", "Conversions", "Rate (95 % interval)", `Always-valid difference to ${control.key}`, "Always-valid p", "Excluded installs"].map((name) => h("th", { scope: "col" }, name))),
    ),
    data.segments.map((segment) => {
      const results = segment.results;
      const value = segment.value === null ? "unknown" : segment.value;
      const rows = results.variants.length;
      return h(
        "tbody",
        { "data-segment": value },
        results.variants.map((v, index) =>
          h(
            "tr",
            { "data-variant": v.key },
            index === 0 ? h("th", { scope: "rowgroup", rowspan: rows }, value) : null,
            index === 0 ? h("td", { rowspan: rows, class: `verdict-cell verdict-${results.verdict}`, title: results.verdictText }, verdictWords(results)) : null,
            h("th", { scope: "row" }, v.key),
            h("td", {}, count(v.installs)),
            h("td", {}, count(v.conversions)),
            h("td", {}, interval(v.rate)),
            h("td", {}, v.sequential ? `${points(v.sequential.difference)} points (${points(v.sequential.lower)} to ${points(v.sequential.upper)})` : "—"),
            h("td", {}, v.sequential ? pValue(v.sequential.pValue) : "—"),
            index === 0 ? h("td", { rowspan: rows }, count(results.excludedInstalls)) : null,
          ),
        ),
      );
    }),
  );
}

/**
 * The "Results per segment" section of experiment `experimentID`: returns {element, refresh};
 * `refresh()` reads the chosen segment again (after a start or a stop).
 */
export function segmentsPanel(experimentID) {
  const picker = select(SEGMENTS, "", { name: "segment" });
  const chooser = field("Break the results down by", picker, {
    hint: "Each install counts in the segment it entered the experiment in (its first event), so the segments add up to the whole.",
  });
  const body = h("div", { class: "segments-body", "aria-live": "polite" });
  const element = h(
    "section",
    { class: "experiment-segments", "aria-labelledby": "segments-heading", "data-state": "idle" },
    h("h3", { id: "segments-heading" }, "Results per segment"),
    h(
      "p",
      { class: "segments-caveat" },
      "A segment’s verdict is a hint, not a result: each segment is one more comparison, so with several segments one of them “wins” by chance far more often than 5 % of the time. To act on a segment, run an experiment targeted at it.",
    ),
    chooser.root,
    body,
  );
  let asked = 0;

  async function refresh() {
    const segment = picker.value;
    const ask = ++asked;
    if (!segment) {
      body.replaceChildren();
      element.dataset.state = "idle";
      return;
    }
    element.dataset.state = "loading";
    body.replaceChildren(h("p", {}, "Loading…"));
    try {
      const { data } = await get(`/v1/admin/experiments/${seg(experimentID)}/results?segment=${encodeURIComponent(segment)}`);
      if (ask !== asked) return; // a later choice is on its way
      if (!data.segments.length) {
        body.replaceChildren(h("p", {}, `No installs yet, so no segments by ${label(segment).toLowerCase()}.`));
      } else {
        const id = "segments-table";
        const unknown = data.segments.some((s) => s.value === null);
        body.replaceChildren(
          tableRegion(`Results of ${experimentID} per ${label(segment).toLowerCase()}`, segmentsTable(data, id)),
          ...(unknown ? [h("p", { class: "hint" }, "“unknown”: installs counted before the service kept this attribute, or whose events did not carry it.")] : []),
        );
      }
      element.dataset.state = "ready";
      announce(`Results per ${label(segment).toLowerCase()}: ${data.segments.length} segments.`);
    } catch (error) {
      if (ask !== asked) return;
      body.replaceChildren(h("p", {}, "The results per segment could not be read."), problemView(error));
      element.dataset.state = "error";
    }
  }

  picker.addEventListener("change", refresh);
  return { element, refresh };
}

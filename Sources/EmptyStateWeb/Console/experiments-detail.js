// One experiment (#/experiments/{id}): its facts, start and stop (a PUT of the document with the
// new status and If-Match, after a confirmation), the results, the variants and shipping one
// (POST …/ship with If-Match, after a confirmation that says whether the results call it the
// winner), and the document edited as JSON. A 412 says someone changed it meanwhile and shows
// it as it is now.

import { get, ifMatch, post, put, seg } from "./api.js";
import { announce, h, problemView, time } from "./dom.js";
import { fact, overridesText, statusBadge, targetText, verdictText } from "./experiments-format.js";
import { resultsView } from "./experiments-results.js";
import { segmentsPanel } from "./experiments-segments.js";
import { overridesView, variantsView } from "./experiments-variants.js";
import { confirmDialog } from "./part-dialog.js";
import { percent } from "./part-experiment-chart.js";
import { jsonEditor } from "./part-json-editor.js";

/** Mounts experiment `experimentID` into `main`; returns its unmount function. */
export function mountDetail(main, experimentID, context) {
  context.title(`Experiment ${experimentID}`);
  const summary = h("div", { class: "experiment-summary", "data-state": "loading" }, h("p", {}, "Loading…"));
  const actions = h("div", { class: "experiment-actions" });
  const actionStatus = h("div", { class: "action-status", "aria-live": "polite" });
  const variantsSection = h("section", { class: "variants", "aria-labelledby": "variants-heading" });
  const overridesSection = h("section", { class: "experiment-overrides", "aria-labelledby": "overrides-heading" });
  const resultsSection = h("section", { class: "experiment-results", "aria-labelledby": "results-heading", "data-state": "loading" });
  const editorSection = h("div", { class: "experiment-editor" });
  const segments = segmentsPanel(experimentID);
  let current = null; // {revision, updatedAt, updatedBy, experiment}
  let results = null;
  let disposed = false;

  async function load() {
    try {
      const { data } = await get(`/v1/admin/experiments/${seg(experimentID)}`);
      if (disposed) return;
      current = data;
      renderSummary();
      renderVariants();
    } catch (error) {
      if (disposed) return;
      summary.replaceChildren(error.status === 404 ? h("p", { role: "alert" }, `There is no experiment ${experimentID}.`) : problemView(error));
      summary.dataset.state = "error";
      resultsSection.hidden = true;
      segments.element.hidden = true;
      return;
    }
    await loadResults();
  }

  async function loadResults() {
    resultsSection.dataset.state = "loading";
    try {
      const { data } = await get(`/v1/admin/experiments/${seg(experimentID)}/results`);
      if (disposed) return;
      results = data;
      renderResults();
      resultsSection.dataset.state = "ready";
      segments.refresh();
    } catch (error) {
      if (disposed) return;
      results = null;
      resultsSection.replaceChildren(h("h2", { id: "results-heading" }, "Results"), h("p", {}, "The results could not be read."), problemView(error));
      resultsSection.dataset.state = "error";
    }
    renderVariants(); // the ship buttons follow what the results say
  }

  function renderSummary() {
    const { experiment } = current;
    const metric = experiment.primaryMetric?.type === "tap" ? `taps on the action “${experiment.primaryMetric.action}”` : "taps on any action";
    summary.replaceChildren(
      h(
        "dl",
        { class: "facts" },
        fact("Template", h("a", { href: `#/templates/${seg(experiment.templateId)}` }, experiment.templateId)),
        fact("Status", statusBadge(experiment.status)),
        fact("Coverage", `${percent(experiment.coverage)} of installs`),
        fact("Target", targetText(experiment.targeting)),
        fact("QA overrides", overridesText(experiment.overrides)),
        fact("Primary metric", metric),
        fact("Started", experiment.startedAt ? time(experiment.startedAt) : "not yet"),
        fact("Stopped", experiment.stoppedAt ? time(experiment.stoppedAt) : "—"),
        fact("Revision", `r${current.revision}, by `, h("span", { class: "who" }, current.updatedBy), ", ", time(current.updatedAt)),
      ),
    );
    summary.dataset.state = "ready";
    summary.dataset.status = experiment.status;
    renderActions();
    renderEditor();
  }

  function renderEditor() {
    const { experiment } = current;
    const final = experiment.status === "shipped";
    const editor = jsonEditor({
      context,
      document: experiment,
      heading: "The experiment document",
      saveLabel: "Save",
      readOnlyReason: final ? "A shipped experiment is final: it cannot change." : "",
      async save(document, { validateOnly }) {
        const options = validateOnly ? { query: { validateOnly: "true" } } : { headers: ifMatch(current.revision) };
        const answer = await put(`/v1/admin/experiments/${seg(experimentID)}`, document, options);
        if (!validateOnly) {
          current = answer.data;
          announce(`Saved ${experimentID}: revision ${current.revision}.`);
          renderSummary();
          renderVariants();
          await loadResults();
        }
        return answer;
      },
    });
    editorSection.replaceChildren(
      h("details", { class: "json-details" }, h("summary", {}, "Edit as JSON"), editor.root),
    );
  }

  function renderActions() {
    const { experiment } = current;
    const writeProps = { "data-write": "true", disabled: !context.canEdit, "aria-describedby": context.canEdit ? undefined : context.viewerReasonID };
    const buttons = [];
    if (experiment.status === "draft") {
      buttons.push(h("button", { type: "button", class: "primary", ...writeProps, onclick: () => changeStatus("running") }, "Start…"));
    } else if (experiment.status === "running") {
      buttons.push(h("button", { type: "button", ...writeProps, onclick: () => changeStatus("stopped") }, "Stop…"));
    }
    actions.replaceChildren(
      ...buttons,
      h("p", { class: "hint" }, {
        draft: "Starting freezes the split: weights cannot change while it runs.",
        running: "Stopping ends the split: every install gets control again, and the results stop counting.",
        stopped: "Stopped: ship a variant from the results, or leave the template as it is.",
        shipped: "Shipped: this experiment is final.",
      }[experiment.status] || ""),
    );
  }

  async function changeStatus(status) {
    const starting = status === "running";
    const ok = await confirmDialog({
      title: starting ? `Start ${experimentID}?` : `Stop ${experimentID}?`,
      text: starting
        ? `Installs that ask for ${current.experiment.templateId} are split between ${current.experiment.variants.map((v) => v.key).join(", ")} from now on. The weights are frozen while it runs.`
        : `Every install is served control again. The results keep what was counted until now.`,
      confirmLabel: starting ? "Start" : "Stop",
    });
    if (!ok) return;
    actionStatus.replaceChildren();
    const body = { ...current.experiment, status };
    try {
      const { data } = await put(`/v1/admin/experiments/${seg(experimentID)}`, body, { headers: ifMatch(current.revision) });
      current = data;
      announce(starting ? `Started ${experimentID}.` : `Stopped ${experimentID}.`);
      actionStatus.replaceChildren(h("p", {}, starting ? "Started." : "Stopped."));
      renderSummary();
      await loadResults();
    } catch (error) {
      actionStatus.replaceChildren(
        error.status === 412 ? problemView({ message: "Not changed: someone changed this experiment meanwhile. It is shown as it is now; try again.", errors: [] }) : problemView(error),
      );
      announce(`Not changed: ${error.message}`);
      if (error.status === 412) await load();
    }
    actions.querySelector("button")?.focus();
  }

  function renderVariants() {
    if (!current) return;
    variantsSection.replaceChildren(...variantsView(current.experiment, { context, onShip: ship }));
    overridesSection.replaceChildren(...overridesView(current.experiment, { context, onSave: saveOverrides }));
  }

  /** Writes the experiment with `overrides` (If-Match); a 412 reloads it as it is now. */
  async function saveOverrides(overrides, message) {
    const body = { ...current.experiment, overrides };
    if (!overrides.length) delete body.overrides;
    try {
      const { data } = await put(`/v1/admin/experiments/${seg(experimentID)}`, body, { headers: ifMatch(current.revision) });
      current = data;
      announce(message);
      renderSummary();
      renderVariants();
      overridesSection.querySelector("h2")?.setAttribute("tabindex", "-1");
      overridesSection.querySelector("h2")?.focus();
    } catch (error) {
      announce(`Not saved: ${error.message}`);
      if (error.status === 412) await load();
      throw error;
    }
  }

  async function ship(variant) {
    const verdictNote =
      results && results.verdict === "winner" && results.winner === variant.key
        ? `The results say ${variant.key} wins.`
        : `The results do not say ${variant.key} wins (${results ? verdictText(results) : "no results"}).`;
    const ok = await confirmDialog({
      title: `Ship ${variant.key}?`,
      text: `${verdictNote} Shipping makes ${variant.key}’s copy the new revision of ${current.experiment.templateId}, served to everyone at once, and ends the experiment.`,
      confirmLabel: `Ship ${variant.key}`,
    });
    if (!ok) return;
    actionStatus.replaceChildren();
    try {
      const { data } = await post(`/v1/admin/experiments/${seg(experimentID)}/ship`, { variant: variant.key }, { headers: ifMatch(current.revision) });
      current = { revision: data.revision, updatedAt: data.updatedAt, updatedBy: data.updatedBy, experiment: data.experiment };
      const template = current.experiment.templateId;
      announce(`Shipped ${variant.key}: ${template} revision ${data.shippedRevision}.`);
      actionStatus.replaceChildren(
        h(
          "p",
          { class: "notice shipped" },
          `Shipped ${variant.key}: ${template} is at revision ${data.shippedRevision}. `,
          h("a", { href: `#/templates/${seg(template)}/history` }, `History of ${template}`),
        ),
      );
      renderSummary();
      // Focus the result at once: the results reload below may take a while, and the keyboard
      // user should not be left on the Ship button meanwhile.
      actionStatus.querySelector("a")?.focus();
      await loadResults();
    } catch (error) {
      actionStatus.replaceChildren(
        error.status === 412 ? problemView({ message: "Not shipped: someone changed this experiment meanwhile. It is shown as it is now; try again.", errors: [] }) : problemView(error),
      );
      announce(`Not shipped: ${error.message}`);
      if (error.status === 412) await load();
    }
  }

  function renderResults() {
    const rtl = getComputedStyle(main).direction === "rtl";
    resultsSection.replaceChildren(...resultsView(results, { rtl, width: resultsSection.clientWidth || main.clientWidth }));
  }

  main.append(
    h("h1", { tabindex: "-1" }, "Experiment ", h("code", {}, experimentID)),
    h("p", { class: "screen-links" }, h("a", { href: "#/experiments" }, "All experiments")),
    summary,
    actions,
    actionStatus,
    resultsSection,
    segments.element,
    variantsSection,
    overridesSection,
    editorSection,
  );
  load();
  return () => {
    disposed = true;
  };
}

// Experiments: the list (#/experiments) and one experiment (#/experiments/{id}): its variants and
// the strings each overrides, start and stop (a PUT of the document with the new status and
// If-Match), the results (GET …/results: a table, a chart, the verdict in words) and shipping a
// variant (POST …/ship, after a confirmation). Creating and editing is a JSON editor of the
// experiment document (#/experiments/new, and "Edit as JSON" on one): checked by the server
// (?validateOnly=true) and saved with If-None-Match: * or If-Match, each 422 pointer listed
// beside it.

import { get, post, put, seg } from "./api.js";
import { announce, field, h, problemView, tableRegion, time } from "./dom.js";
import { direction } from "./part-edit-fields.js";
import { percent, resultsChart } from "./part-experiment-chart.js";

const STATUS_ORDER = { running: 0, draft: 1, stopped: 2, shipped: 3 };

export function mount(main, { id }, context) {
  if (id === "new") return create(main, context);
  return id ? detail(main, id, context) : list(main, context);
}

// -- The list -------------------------------------------------------------------------------------

function list(main, context) {
  context.title("Experiments");
  const output = h("div", { class: "results", "data-state": "loading" }, h("p", {}, "Loading…"));
  main.append(
    h("h1", { tabindex: "-1" }, "Experiments"),
    h("p", { class: "hint" }, "Copy experiments split installs between variants of a template's copy: start one, read its results, ship the winner."),
    h("p", {}, context.canEdit ? h("a", { href: "#/experiments/new" }, "New experiment…") : null),
    output,
  );
  let disposed = false;
  get("/v1/admin/experiments")
    .then(({ data }) => {
      if (disposed) return;
      const items = [...data.items].sort(
        (a, b) =>
          (STATUS_ORDER[a.experiment.status] ?? 9) - (STATUS_ORDER[b.experiment.status] ?? 9) || a.experiment.id.localeCompare(b.experiment.id),
      );
      if (!items.length) {
        output.replaceChildren(h("p", {}, "No experiment yet."));
      } else {
        output.replaceChildren(
          tableRegion(
            "Experiments",
            h(
              "table",
              { class: "experiments" },
              h("caption", {}, `Experiments, running first (${items.length})`),
              h("thead", {}, h("tr", {}, ["Experiment", "Template", "Status", "Variants", "Started", "Changed by"].map((name) => h("th", { scope: "col" }, name)))),
              h(
                "tbody",
                {},
                items.map(({ experiment, updatedBy }) =>
                  h(
                    "tr",
                    {},
                    h("th", { scope: "row" }, h("a", { href: `#/experiments/${seg(experiment.id)}` }, experiment.id)),
                    h("td", {}, h("a", { href: `#/templates/${seg(experiment.templateId)}` }, experiment.templateId)),
                    h("td", {}, statusBadge(experiment.status)),
                    h("td", {}, (experiment.variants || []).map((v) => v.key).join(", ")),
                    h("td", {}, experiment.startedAt ? time(experiment.startedAt) : "not yet"),
                    h("td", {}, updatedBy),
                  ),
                ),
              ),
            ),
          ),
        );
      }
      output.dataset.state = "ready";
    })
    .catch((error) => {
      if (disposed) return;
      output.replaceChildren(problemView(error));
      output.dataset.state = "error";
    });
  return () => {
    disposed = true;
  };
}

function statusBadge(status) {
  return h("span", { class: `status status-${status}` }, status);
}

// -- One experiment -------------------------------------------------------------------------------

function detail(main, experimentID, context) {
  context.title(`Experiment ${experimentID}`);
  const summary = h("div", { class: "experiment-summary", "data-state": "loading" }, h("p", {}, "Loading…"));
  const actions = h("div", { class: "experiment-actions" });
  const actionStatus = h("div", { class: "action-status", "aria-live": "polite" });
  const variantsSection = h("section", { class: "variants", "aria-labelledby": "variants-heading" });
  const resultsSection = h("section", { class: "experiment-results", "aria-labelledby": "results-heading", "data-state": "loading" });
  const editorSection = h("div", { class: "experiment-editor" });
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
        const options = validateOnly ? { query: { validateOnly: "true" } } : { headers: { "If-Match": `"r${current.revision}"` } };
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
      const { data } = await put(`/v1/admin/experiments/${seg(experimentID)}`, body, { headers: { "If-Match": `"r${current.revision}"` } });
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
    const { experiment } = current;
    const shippable = experiment.status === "running" || experiment.status === "stopped";
    const cards = experiment.variants.map((variant, index) => {
      const control = index === 0;
      const overrides = Object.entries(variant.strings || {}).flatMap(([locale, values]) =>
        Object.entries(values).map(([key, value]) => ({ locale, key, value })),
      );
      const headingID = `variant-${variant.key}`;
      const shipReason = !context.canEdit
        ? context.viewerReasonID
        : !shippable
          ? `ship-reason-${variant.key}`
          : undefined;
      return h(
        "article",
        { class: "variant", "aria-labelledby": headingID, "data-variant": variant.key },
        h("h3", { id: headingID }, variant.key, control ? h("span", { class: "badge" }, "control") : null),
        h("p", {}, `Weight ${percent(variant.weight)}`, control ? " · the live copy" : ""),
        overrides.length
          ? tableRegion(
              `Strings ${variant.key} overrides`,
              h(
                "table",
                { class: "overrides" },
                h("caption", {}, `Strings ${variant.key} overrides`),
                h("thead", {}, h("tr", {}, ["Locale", "Key", "Copy"].map((name) => h("th", { scope: "col" }, name)))),
                h(
                  "tbody",
                  {},
                  overrides.map(({ locale, key, value }) =>
                    h("tr", {}, h("td", {}, locale), h("td", {}, h("code", {}, key)), h("td", { lang: locale, dir: direction(locale), class: "copy" }, value)),
                  ),
                ),
              ),
            )
          : h("p", { class: "hint" }, control ? "Control overrides nothing." : "Overrides no string."),
        variant.visual ? h("p", {}, "Visual: ", h("code", {}, JSON.stringify(variant.visual))) : null,
        h(
          "p",
          { class: "ship" },
          h(
            "button",
            {
              type: "button",
              "data-write": "true",
              disabled: !context.canEdit || !shippable,
              "aria-describedby": shipReason,
              onclick: () => ship(variant),
            },
            `Ship ${variant.key}…`,
          ),
          context.canEdit && !shippable
            ? h("span", { class: "hint", id: `ship-reason-${variant.key}` }, experiment.status === "draft" ? " A draft has no results to ship." : " Already shipped.")
            : null,
        ),
      );
    });
    variantsSection.replaceChildren(h("h2", { id: "variants-heading" }, "Variants"), h("div", { class: "variant-list" }, cards));
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
      const { data } = await post(`/v1/admin/experiments/${seg(experimentID)}/ship`, { variant: variant.key }, { headers: { "If-Match": `"r${current.revision}"` } });
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
      await loadResults();
      actionStatus.querySelector("a")?.focus();
    } catch (error) {
      actionStatus.replaceChildren(
        error.status === 412 ? problemView({ message: "Not shipped: someone changed this experiment meanwhile. It is shown as it is now; try again.", errors: [] }) : problemView(error),
      );
      announce(`Not shipped: ${error.message}`);
      if (error.status === 412) await load();
    }
  }

  function renderResults() {
    const r = results;
    const control = r.variants.find((v) => v.control) || r.variants[0];
    const metric = r.primaryMetric?.type === "tap" ? `taps on “${r.primaryMetric.action}”` : "taps on any action";
    const rtl = getComputedStyle(main).direction === "rtl";
    const tableID = "results-table";
    const chartLabel =
      `Conversion rate per variant with its 95 % interval: ` +
      r.variants.map((v) => `${v.key} ${percent(v.rate.value)} (${percent(v.rate.lower)} to ${percent(v.rate.upper)})`).join("; ") +
      `. ${verdictText(r)}.`;
    const figure = h(
      "figure",
      { class: "results-figure", "aria-describedby": tableID },
      resultsChart({ variants: r.variants, winner: r.verdict === "winner" ? r.winner : null, rtl, label: chartLabel, width: resultsSection.clientWidth || main.clientWidth }),
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
    resultsSection.replaceChildren(
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
    );
  }

  main.append(
    h("h1", { tabindex: "-1" }, "Experiment ", h("code", {}, experimentID)),
    h("p", { class: "screen-links" }, h("a", { href: "#/experiments" }, "All experiments")),
    summary,
    actions,
    actionStatus,
    resultsSection,
    variantsSection,
    editorSection,
  );
  load();
  return () => {
    disposed = true;
  };
}

/** A new experiment: the JSON editor on a starting document, saved with If-None-Match: *. */
function create(main, context) {
  context.title("New experiment");
  const starter = {
    id: "",
    templateId: "",
    status: "draft",
    coverage: 1,
    primaryMetric: { type: "tap", action: "" },
    variants: [
      { key: "control", weight: 0.5 },
      { key: "b", weight: 0.5, strings: { en: { title: "" } } },
    ],
  };
  const editor = jsonEditor({
    context,
    document: starter,
    heading: "The experiment document",
    saveLabel: "Create",
    async save(document, { validateOnly }) {
      const id = typeof document.id === "string" ? document.id : "";
      if (!id) throw { message: "The document needs an id.", errors: [{ pointer: "/id", detail: "required" }] };
      const options = validateOnly ? { query: { validateOnly: "true" } } : { headers: { "If-None-Match": "*" } };
      const answer = await put(`/v1/admin/experiments/${seg(id)}`, document, options);
      if (!validateOnly) {
        announce(`Created ${id}.`);
        context.navigate(`#/experiments/${seg(id)}`);
      }
      return answer;
    },
  });
  main.append(
    h("h1", { tabindex: "-1" }, "New experiment"),
    h("p", { class: "screen-links" }, h("a", { href: "#/experiments" }, "All experiments")),
    h("p", { class: "hint" }, "Control (the first variant) is the live copy and overrides nothing; every other variant overrides strings per locale (action labels are actions.<id>) or the visual. The weights add up to 1. See docs/experiments.md."),
    editor.root,
  );
}

/**
 * The experiment document as JSON text, checked by the server (`save(document, {validateOnly:
 * true})`) and saved (`save(document, {validateOnly: false})`); text that is not JSON is refused
 * here, and each pointer of a 422 is listed beside the text. Returns {root, set(document)}.
 */
function jsonEditor({ context, document, heading, saveLabel, save, readOnlyReason }) {
  const headingID = `json-${saveLabel.toLowerCase().replace(/\W+/g, "-")}`;
  const text = h("textarea", {
    class: "json-text",
    rows: "18",
    spellcheck: "false",
    autocomplete: "off",
    value: JSON.stringify(document, null, 2),
    readOnly: !context.canEdit || Boolean(readOnlyReason),
  });
  const input = field("Experiment (JSON)", text, { id: `${headingID}-text`, hint: "Checked by the service: the copy rules apply to every string a variant overrides." });
  const outcome = h("div", { class: "json-outcome", "aria-live": "polite" });
  const disabled = !context.canEdit || Boolean(readOnlyReason);
  const describedBy = !context.canEdit ? context.viewerReasonID : readOnlyReason ? `${headingID}-reason` : undefined;
  const parse = () => {
    try {
      const value = JSON.parse(text.value);
      if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error("the document must be a JSON object");
      input.setError("");
      return value;
    } catch (error) {
      input.setError(`Not JSON: ${error.message}`);
      outcome.replaceChildren();
      text.focus();
      return null;
    }
  };
  async function run(validateOnly) {
    const value = parse();
    if (!value) return;
    try {
      await save(value, { validateOnly });
      outcome.replaceChildren(h("p", { class: "ok" }, validateOnly ? "Valid: the service accepts it." : "Saved."));
    } catch (error) {
      const problem = error instanceof Error || error.errors ? error : { message: String(error), errors: [] };
      outcome.replaceChildren(problemView(problem));
      if ((problem.errors || []).length) text.setAttribute("aria-invalid", "true");
    }
  }
  text.addEventListener("input", () => text.removeAttribute("aria-invalid"));
  const root = h(
    "section",
    { class: "json-editor", "aria-labelledby": headingID },
    h("h2", { id: headingID }, heading),
    readOnlyReason ? h("p", { class: "hint", id: `${headingID}-reason` }, readOnlyReason) : null,
    h(
      "div",
      { class: "json-pair" },
      input.root,
      outcome,
    ),
    h(
      "div",
      { class: "buttons" },
      h("button", { type: "button", "data-write": "true", disabled, "aria-describedby": describedBy, onclick: () => run(true) }, "Check"),
      h("button", { type: "button", class: "primary", "data-write": "true", disabled, "aria-describedby": describedBy, onclick: () => run(false) }, saveLabel),
    ),
  );
  return {
    root,
    set(next) {
      text.value = JSON.stringify(next, null, 2);
      outcome.replaceChildren();
      input.setError("");
    },
  };
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
const count = (value) => numberFormat.format(value ?? 0);

/** "10.0 % (9.5 % to 10.5 %)"; a difference is signed. */
function interval(estimate, signed = false) {
  const sign = (value) => (signed && value > 0 ? "+" : "");
  const p = (value) => `${sign(value)}${percent(value)}`;
  return `${p(estimate.value)} (${p(estimate.lower)} to ${p(estimate.upper)})`;
}

/** A probability that rounds to 0 % or 100 % is not certain: "> 99.9 %", "< 0.1 %". */
function chance(value) {
  if (value > 0.999) return "> 99.9 %";
  if (value < 0.001) return "< 0.1 %";
  return percent(value);
}

function excludedText(installs) {
  if (!installs) return "No install saw more than one variant: none is excluded.";
  return installs === 1 ? "1 install saw more than one variant and is excluded." : `${count(installs)} installs saw more than one variant and are excluded.`;
}

function pValue(value) {
  return value < 0.001 ? "< 0.001" : value.toFixed(3);
}

function fact(label, ...value) {
  return h("div", {}, h("dt", {}, label), h("dd", {}, ...value));
}

/** A modal confirmation: resolves true (confirmed) or false. Focus starts on the confirm button. */
function confirmDialog({ title, text, confirmLabel }) {
  return new Promise((resolve) => {
    const confirm = h("button", { type: "button", class: "primary" }, confirmLabel);
    const cancel = h("button", { type: "button" }, "Cancel");
    const dialog = h(
      "dialog",
      { class: "review confirm", "aria-labelledby": "confirm-title", "aria-describedby": "confirm-text" },
      h("h2", { id: "confirm-title" }, title),
      h("p", { id: "confirm-text" }, text),
      h("div", { class: "buttons" }, confirm, cancel),
    );
    const opener = document.activeElement;
    const close = (value) => {
      dialog.close();
      dialog.remove();
      if (!value && opener instanceof HTMLElement) opener.focus();
      resolve(value);
    };
    confirm.addEventListener("click", () => close(true));
    cancel.addEventListener("click", () => close(false));
    dialog.addEventListener("cancel", (event) => {
      event.preventDefault();
      close(false);
    });
    document.body.append(dialog);
    dialog.showModal();
    confirm.focus();
  });
}

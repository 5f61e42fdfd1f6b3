// A JSON document edited as text: parsed here (text that is not a JSON object is refused at
// once), checked and saved by the caller's `save` (the server's ?validateOnly=true, then the
// write), each pointer of a 422 listed beside the text. Used for experiment documents; any
// document the admin API takes as JSON can use it.

import { field, h, problemView } from "./dom.js";

/**
 * A document as JSON text, checked by the server (`save(document, {validateOnly:
 * true})`) and saved (`save(document, {validateOnly: false})`); text that is not JSON is refused
 * here, and each pointer of a 422 is listed beside the text. Returns {root, set(document)}.
 */
export function jsonEditor({ context, document, heading, saveLabel, save, readOnlyReason }) {
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

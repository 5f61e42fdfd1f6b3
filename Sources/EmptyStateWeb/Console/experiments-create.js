// A new experiment (#/experiments/new): the experiment document edited as JSON from a starting
// point, checked by the server and created with If-None-Match: *, so an existing experiment is
// never overwritten.

import { ifAbsent, put, seg } from "./api.js";
import { announce, h } from "./dom.js";
import { jsonEditor } from "./part-json-editor.js";

/** A new experiment: the JSON editor on a starting document, saved with If-None-Match: *. */
export function mountCreate(main, context) {
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
      const options = validateOnly ? { query: { validateOnly: "true" } } : { headers: ifAbsent() };
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

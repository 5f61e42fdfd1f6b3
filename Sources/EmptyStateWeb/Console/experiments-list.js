// The experiments list (#/experiments): every experiment, running first, with its template,
// status, variants, start and last author, each a link to its page.

import { get, seg } from "./api.js";
import { h, problemView, tableRegion, time } from "./dom.js";
import { statusBadge } from "./experiments-format.js";

const STATUS_ORDER = { running: 0, draft: 1, stopped: 2, shipped: 3 };

/** Mounts the list into `main`; returns its unmount function. */
export function mountList(main, context) {
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

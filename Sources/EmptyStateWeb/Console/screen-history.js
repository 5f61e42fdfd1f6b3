// A template's history: every revision (who, when, what kind of change, which fields), the
// field-level difference between any two, and rollback to one, after seeing what it changes
// against what is live (the same review as a publish).

import { ApiError, get, ifMatch, post, seg } from "./api.js";
import { diff } from "./diff.js";
import { announce, h, routeLink, tableRegion, time } from "./dom.js";
import { diffTable, reviewDialog } from "./part-diff-view.js";

const PAGE_SIZE = 50;

export function mount(main, { id, query }, context) {
  const templateID = id;
  context.title(`History of ${templateID}`);
  const list = h("div", { class: "history-list" });
  const comparison = h("section", { class: "comparison", "aria-labelledby": "compare-heading" });
  const pager = h("nav", { class: "pager", "aria-label": "Pages of revisions" });
  const documents = new Map(); // revision → document (null: a deletion)
  let page = Number(query.page) || 1;
  let revisions = [];
  let pick = { a: Number(query.a) || null, b: Number(query.b) || null };
  let disposed = false;

  async function documentOf(revision) {
    if (!documents.has(revision)) {
      const { data } = await get(`/v1/admin/templates/${seg(templateID)}/revisions/${revision}`);
      documents.set(revision, data.template ?? null);
    }
    return documents.get(revision);
  }

  async function load() {
    try {
      const { data } = await get(`/v1/admin/templates/${seg(templateID)}/revisions`, { query: { page, pageSize: PAGE_SIZE } });
      if (disposed) return;
      revisions = data.items;
      const newest = revisions[0]?.revision;
      pick.b ??= newest;
      pick.a ??= revisions.find((r) => r.revision < (pick.b ?? 0) && r.action !== "delete")?.revision ?? newest;
      render(data);
      compare();
    } catch (error) {
      list.replaceChildren(h("p", { role: "alert" }, error.status === 404 ? `There is no template ${templateID}.` : error.message));
    }
  }

  function render(data) {
    const rows = revisions.map((revision) => {
      const radio = (side) =>
        h("input", {
          type: "radio",
          name: `compare-${side}`,
          value: String(revision.revision),
          checked: pick[side] === revision.revision,
          disabled: revision.action === "delete",
          "aria-label": `Compare ${side === "a" ? "from" : "to"} revision ${revision.revision}`,
          onchange() {
            pick[side] = revision.revision;
            history.replaceState(null, "", routeLink(`/templates/${encodeURIComponent(templateID)}/history`, { a: pick.a, b: pick.b }));
            compare();
          },
        });
      const newest = revision.revision === revisions[0]?.revision && data.page === 1;
      return h(
        "tr",
        {},
        h("td", {}, radio("a")),
        h("td", {}, radio("b")),
        h("th", { scope: "row" }, `r${revision.revision}`, newest ? h("span", { class: "badge" }, "live") : null),
        h("td", {}, revision.action),
        h("td", {}, time(revision.createdAt)),
        h("td", {}, revision.createdBy),
        h("td", {}, h("ul", { class: "fields" }, revision.changedFields.slice(0, 8).map((pointer) => h("li", {}, h("code", {}, pointer)))),
          revision.changedFields.length > 8 ? `and ${revision.changedFields.length - 8} more` : null),
        h(
          "td",
          {},
          newest || revision.action === "delete"
            ? "—"
            : h(
                "button",
                {
                  type: "button",
                  "data-write": "true",
                  disabled: !context.canEdit,
                  "aria-describedby": context.canEdit ? undefined : context.viewerReasonID,
                  onclick: () => rollback(revision.revision),
                },
                `Roll back to r${revision.revision}…`,
              ),
        ),
      );
    });
    list.replaceChildren(
      tableRegion(
        "Revisions",
        h(
          "table",
          { class: "revisions" },
          h("caption", {}, `Revisions of ${templateID}, newest first (${data.total})`),
          h("thead", {}, h("tr", {}, ["From", "To", "Revision", "Change", "When", "Who", "Fields", "Roll back"].map((name) => h("th", { scope: "col" }, name)))),
          h("tbody", {}, rows),
        ),
      ),
    );
    const pages = Math.max(1, Math.ceil(data.total / data.pageSize));
    pager.replaceChildren(
      h("button", { type: "button", disabled: data.page <= 1, onclick: () => { page -= 1; load(); } }, "Newer revisions"),
      h("span", {}, `Page ${data.page} of ${pages}`),
      h("button", { type: "button", disabled: data.page >= pages, onclick: () => { page += 1; load(); } }, "Older revisions"),
    );
  }

  async function compare() {
    if (!pick.a || !pick.b) return;
    const [a, b] = [Math.min(pick.a, pick.b), Math.max(pick.a, pick.b)];
    try {
      const [before, after] = await Promise.all([documentOf(a), documentOf(b)]);
      if (disposed) return;
      comparison.replaceChildren(
        h("h2", { id: "compare-heading" }, `From r${a} to r${b}`),
        diffTable(diff(before ?? {}, after ?? {}), { caption: `What changed from revision ${a} to revision ${b}`, before: `r${a}`, after: `r${b}` }),
      );
    } catch (error) {
      comparison.replaceChildren(h("h2", { id: "compare-heading" }, "Comparison"), h("p", { role: "alert" }, error.message));
    }
  }

  async function rollback(target) {
    let current;
    try {
      current = (await get(`/v1/admin/templates/${seg(templateID)}`)).data;
    } catch (error) {
      // A deleted template: a rollback restores it.
      if (!(error instanceof ApiError && error.status === 404)) throw error;
    }
    const targetDocument = await documentOf(target);
    const ok = await reviewDialog({
      title: `Roll ${templateID} back to revision ${target}`,
      intro: current
        ? `What clients are served (revision ${current.revision}) against revision ${target}. Rolling back makes its content revision ${current.revision + 1}, served at once.`
        : `${templateID} is deleted; rolling back restores revision ${target}.`,
      changes: diff(current?.template ?? {}, targetDocument ?? {}),
      confirmLabel: "Roll back",
    });
    if (!ok) return;
    try {
      // A deleted template has no revision to match: the rollback restores it.
      const headers = current ? ifMatch(current.revision) : {};
      const { data } = await post(`/v1/admin/templates/${seg(templateID)}/rollback`, { revision: target }, { headers });
      announce(`Rolled back: revision ${data.revision} has the content of revision ${target}.`);
      documents.clear();
      pick = { a: null, b: null };
      page = 1;
      await load();
      main.querySelector("h1")?.focus();
    } catch (error) {
      announce(error.status === 412 ? "Not rolled back: someone published meanwhile. Review again." : `Not rolled back: ${error.message}`);
      await load();
    }
  }

  main.append(
    h("h1", { tabindex: "-1" }, "History of ", h("code", {}, templateID)),
    h("p", { class: "screen-links" }, h("a", { href: routeLink(`/templates/${encodeURIComponent(templateID)}`) }, "Edit"), " · ", h("a", { href: routeLink("/audit", { templateId: templateID }) }, "Audit log")),
    list,
    pager,
    comparison,
  );
  load();
  return () => {
    disposed = true;
  };
}

// One change request (#/changes/{id}): what it is (title, author, state, version), its approvals
// against the review rule, every change with the diff of its fields against live (the fields in
// conflict marked beside them, from the request's `conflicts` or a publish's 409), the comments
// and reviews, and the steps its state and the session's role allow (changes-steps.js).

import { ApiError, changeRequestPath, get, revisionOf } from "./api.js";
import { stateBadge } from "./changes-list.js";
import { steps } from "./changes-steps.js";
import { fieldName, h, problemView, routeLink, tableRegion, time } from "./dom.js";
import { shown } from "./part-diff-view.js";

/** "templateStrings" of loading, fr → "loading · fr strings". */
function changeLabel(change) {
  const target = change.kind === "appPolicy" ? `${change.platform} app policy` : change.kind === "experiment" ? `experiment ${change.id}` : change.id;
  const what = { template: "the template", templateStrings: `${change.locale} strings`, templateDeletion: "deleted", appPolicy: "the policy", experiment: "the experiment" };
  return `${target} · ${what[change.kind] ?? change.kind}`;
}

/** The conflict of change `index`, and whether `pointer` (a field it changes) moved on live. */
function conflictOf(conflicts, index) {
  const conflict = conflicts.find((item) => item.index === index);
  if (!conflict) return { conflict: null, moved: () => false };
  // Both are the document's pointers; a field moved when it or what holds it changed.
  const moved = (pointer) => conflict.fields.some((f) => f === "/" || f === pointer || pointer.startsWith(`${f}/`) || f.startsWith(`${pointer}/`));
  return { conflict, moved };
}

/** The table of a change's fields, before (live) and after (proposed), conflicts marked. */
function fieldsTable(change, index, conflicts) {
  const { conflict, moved } = conflictOf(conflicts, index);
  if (!change.fields.length) return h("p", { class: "no-changes" }, "No difference from live.");
  const cell = (value, tag) => {
    const text = shown(value);
    return h("td", { dir: "auto" }, text === null ? h("span", { class: "absent" }, "(none)") : h(tag, {}, text));
  };
  return tableRegion(
    `Changes to ${changeLabel(change)}`,
    h(
      "table",
      { class: "diff" },
      h("caption", {}, `What changes against live revision ${change.liveRevision}`),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Field"), h("th", { scope: "col" }, "Live"), h("th", { scope: "col" }, "Proposed"))),
      h(
        "tbody",
        {},
        change.fields.map((item) => {
          const pointer = item.pointer;
          const inConflict = conflict && moved(pointer);
          return h(
            "tr",
            { class: inConflict ? "in-conflict" : undefined, "data-pointer": pointer },
            h(
              "th",
              { scope: "row" },
              h("code", {}, pointer),
              h("span", { class: "subtitle" }, fieldName(pointer)),
              inConflict ? h("span", { class: "conflict-note" }, `Changed on live since revision ${conflict.baseRevision} (now ${conflict.liveRevision})`) : null,
            ),
            cell(item.before, "del"),
            cell(item.after, "ins"),
          );
        }),
      ),
    ),
  );
}

/** What moved on live under a change, in words (the fields it does not change too). */
function conflictSummary(conflict) {
  const fields = conflict.fields.map((f) => (f === "/" ? "the whole document" : f));
  return h(
    "div",
    { class: "problem conflict", role: "note" },
    h("p", {}, `${conflict.target} changed on live since this request was made: revision ${conflict.baseRevision} → ${conflict.liveRevision}${conflict.liveDeleted ? " (deleted)" : ""}. Publishing is refused until the request is rebased or edited.`),
    h("p", {}, "Fields that moved: ", fields.map((f, i) => [i ? ", " : "", h("code", {}, f)])),
    conflict.overlapping.length ? h("p", {}, "Changed by both: ", conflict.overlapping.map((f, i) => [i ? ", " : "", h("code", {}, f)])) : null,
  );
}

/** The approvals, in words: "1 of 2 approvals (rule /categories/update): rv". */
function approvalsLine(request) {
  const { required, rule, approvedBy } = request.approvals;
  if (!required) return h("p", { class: "approvals" }, `No approval needed (review rule ${rule}).`);
  return h(
    "p",
    { class: "approvals", "data-approved": String(approvedBy.length >= required) },
    `${approvedBy.length} of ${required} ${required === 1 ? "approval" : "approvals"} for version ${request.version} (review rule ${rule})`,
    approvedBy.length ? `: approved by ${approvedBy.join(", ")}.` : ".",
  );
}

function reviewsList(request) {
  if (!request.reviews.length) return h("p", {}, "No comment or review yet.");
  const words = { comment: "commented", approval: "approved", rejection: "rejected" };
  return h(
    "ol",
    { class: "reviews" },
    request.reviews.map((review) =>
      h(
        "li",
        { "data-kind": review.kind },
        h("p", { class: "review-head" }, h("strong", { dir: "auto" }, review.author), ` ${words[review.kind] ?? review.kind} version ${review.version}, `, time(review.at)),
        review.text ? h("p", { dir: "auto", class: "review-text" }, review.text) : null,
      ),
    ),
  );
}

/** Mounts one request into `main`. */
export function mountDetail(main, id, context) {
  const heading = h("h1", { tabindex: "-1" }, `Change request #${id}`);
  context.title(`Change request #${id}`);
  const body = h("div", { class: "change-request", "data-state": "loading" }, h("p", {}, "Loading…"));
  main.append(heading, h("p", { class: "screen-links" }, h("a", { href: routeLink("/changes") }, "All change requests")), body);
  let disposed = false;
  /** Conflicts a publish's 409 reported, shown until the next read says otherwise. */
  let reported = [];

  /** Reads the request and draws it; `focus` (an id) is focused afterwards. */
  async function load(focus) {
    try {
      const { data, headers } = await get(changeRequestPath(id));
      if (disposed) return;
      draw(data, revisionOf(headers.get("ETag")) ?? data.revision, focus);
    } catch (error) {
      if (disposed) return;
      body.replaceChildren(error instanceof ApiError && error.status === 404 ? h("p", { role: "alert" }, `There is no change request #${id}.`) : problemView(error));
      body.dataset.state = "error";
    }
  }

  function draw(request, revision, focus) {
    heading.textContent = `#${request.id} `;
    heading.append(h("span", { dir: "auto" }, request.title));
    context.title(`Change request #${request.id}`);
    const conflicts = request.conflicts.length ? request.conflicts : reported;
    const fact = (name, ...value) => h("div", {}, h("dt", {}, name), h("dd", { dir: "auto" }, ...value));
    const facts = h(
      "dl",
      { class: "facts" },
      fact("State", stateBadge(request.state), request.schedule ? " (scheduled)" : null),
      fact("Author", request.author),
      request.contributors.length > 1 ? fact("Edited by", request.contributors.join(", ")) : null,
      fact("Version", `${request.version}`),
      fact("Opened", time(request.createdAt)),
      fact("Updated", time(request.updatedAt)),
      request.rollbackOf ? fact("Rolls back", h("a", { href: routeLink(`/changes/${request.rollbackOf}`) }, `#${request.rollbackOf}`)) : null,
      request.rolledBackBy ? fact("Rolled back by", h("a", { href: routeLink(`/changes/${request.rolledBackBy}`) }, `#${request.rolledBackBy}`)) : null,
    );
    const changes = request.changes.map((change, index) => {
      const conflict = conflicts.find((item) => item.index === index);
      const link = change.kind === "appPolicy" ? routeLink(`/policies/${change.platform}`) : change.kind === "experiment" ? routeLink(`/experiments/${change.id}`) : routeLink(`/templates/${change.id}`);
      return h(
        "section",
        { class: "change", "aria-labelledby": `change-${index}`, "data-conflict": conflict ? "true" : undefined },
        h("h3", { id: `change-${index}` }, h("a", { href: link }, changeLabel(change)), ` (from revision ${change.baseRevision})`),
        conflict ? conflictSummary(conflict) : null,
        fieldsTable(change, index, conflicts),
      );
    });
    // What to read comes first (the diff, then what others said), then where the request
    // stands against the rule and the steps it allows.
    body.replaceChildren(
      ...[
        facts,
        request.description ? h("p", { class: "description", dir: "auto" }, request.description) : null,
        h("h2", { id: "changes-heading" }, `Changes (${request.changes.length})`),
        h("div", { class: "changes-list" }, changes),
        h("h2", {}, "Comments and reviews"),
        reviewsList(request),
        steps(request, revision, context, { reload: load, conflicts: (found) => (reported = found), standing: approvalsLine(request) }),
      ].filter(Boolean),
    );
    body.dataset.state = "ready";
    body.dataset.requestState = request.state;
    if (focus) (document.getElementById(focus) || heading).focus();
  }

  load();
  return () => {
    disposed = true;
  };
}

// The steps a change request's page offers, each shown to every role and disabled with its reason
// when this session may not take it (a viewer, the request's own author reviewing, a state it does
// not fit): comment, approve and reject (a reviewer, never a contributor), publish (409 conflicts
// drawn beside their fields by the page), rebase, schedule a publish in the editor's time zone
// (sent as UTC) and cancel it, withdraw, roll back. After each, the page is read again and focus
// goes to the step's result.

import { ApiError, changeRequestPath, del, ifMatch, isProblem, post, put } from "./api.js";
import { announce, field, h, problemView, uid } from "./dom.js";
import { confirmDialog } from "./part-dialog.js";

/** The editor's time zone, named: "Europe/Paris (UTC+01:00)". */
export function zoneName(date = new Date()) {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "local time";
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? "+" : "−";
  const pad = (n) => String(Math.floor(Math.abs(n))).padStart(2, "0");
  return `${zone} (UTC${sign}${pad(offset / 60)}:${pad(offset % 60)})`;
}

/** A `datetime-local` value (the editor's zone) as an instant, or null. */
export function instantOf(local) {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(local || "")) return null;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** An instant in the editor's zone, with seconds and the zone: people check a launch time. */
export function zoned(iso) {
  const date = new Date(iso);
  const local = new Intl.DateTimeFormat(undefined, { dateStyle: "full", timeStyle: "long" }).format(date);
  return h("time", { datetime: iso }, local);
}

/** `date` as a `datetime-local` value in the editor's zone, to the second. */
function localValue(date) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/**
 * The steps panel of `request` (read at `revision`), under `page.standing` (where it stands
 * against the rule). `page.reload(focusID)` reads it again; `page.conflicts(list)` keeps a
 * 409's conflicts for the page to draw beside their fields.
 */
export function steps(request, revision, context, page) {
  const session = context.session ?? {};
  const role = session.role;
  const closed = request.state === "published" || request.state === "withdrawn";
  const result = h("div", { class: "step-result", id: "step-result", tabindex: "-1", "aria-live": "polite" });
  const reasons = [];

  /** A step's button: enabled, or disabled with the reason beside it (aria-describedby). */
  function button(label, { id, primary = false, reason = "", onclick }) {
    const reasonID = reason ? (reason === "viewer" ? context.viewerReasonID : uid("reason")) : undefined;
    if (reason && reason !== "viewer") reasons.push(h("li", { id: reasonID }, `${label.replace(/…$/, "")}: ${reason}`));
    return h("button", { type: "button", id, class: primary ? "primary" : undefined, "data-write": "true", disabled: Boolean(reason), "aria-describedby": reasonID, onclick }, label);
  }

  /** Runs one write; success reads the page again (focus to `focusID`), failure says why. */
  async function run(write, done, focusID = "step-result") {
    try {
      await write();
      announce(done);
      await page.reload(focusID);
      document.getElementById("step-result")?.replaceChildren(h("p", {}, done));
    } catch (error) {
      if (isProblem(error, "change-request-conflict")) page.conflicts(error.problem.conflicts || []);
      const view = problemView(error);
      if (isProblem(error, "change-request-conflict")) {
        // Drawn again so the conflicts show beside their fields; the message stays on top.
        await page.reload("step-result");
        document.getElementById("step-result")?.replaceChildren(view, h("p", {}, h("a", { href: "#changes-heading" }, "See the fields in conflict")));
        return;
      }
      result.replaceChildren(view);
      announce(error.message);
      result.focus();
      if (error instanceof ApiError && (error.status === 409 || error.status === 412)) {
        // The request moved under this page: show where it stands now, the message kept.
        await page.reload("step-result");
        document.getElementById("step-result")?.replaceChildren(view);
      }
    }
  }

  // -- who may do what ---------------------------------------------------------------------------
  const editorReason = context.canEdit ? "" : "viewer";
  const contributor = request.contributors.includes(session.name);
  const reviewReason = role === "viewer" ? "viewer"
    : contributor ? "you opened or edited this request; someone else reviews it."
      : !["reviewer", "admin"].includes(role) ? `it needs a reviewer (your role is ${role}).`
        : closed ? `it is ${request.state}.` : "";
  const approvedByMe = request.approvals.approvedBy.includes(session.name);
  const missing = Math.max(0, request.approvals.required - request.approvals.approvedBy.length);
  const publishReason = editorReason || (closed ? `it is ${request.state}.` : request.state === "rejected" ? "it was rejected; edit it to reopen it."
    : missing ? `it needs ${missing} more ${missing === 1 ? "approval" : "approvals"}.` : request.conflicts.length ? "live changed under it: rebase it first." : "");
  const withdrawReason = editorReason || (closed ? `it is ${request.state}.` : request.author !== session.name && role !== "admin" ? "only its author or an admin withdraws it." : "");

  // -- comment -------------------------------------------------------------------------------------
  const comment = field("Comment", h("textarea", { rows: "3", maxlength: "10000", disabled: Boolean(editorReason), "aria-describedby": editorReason ? context.viewerReasonID : undefined }), {
    hint: "Sent with an approval or rejection, or on its own.",
    id: "review-comment",
  });
  const text = () => comment.control.value.trim();

  const review = (kind) => () =>
    run(
      () => post(changeRequestPath(request.id, kind), { version: request.version, comment: text() || undefined }),
      kind === "approve" ? `You approved version ${request.version}.` : `You rejected version ${request.version}.`,
    );

  const reviewButtons = h(
    "div",
    { class: "buttons" },
    button("Approve", { id: "approve", primary: true, reason: reviewReason || (approvedByMe ? `you approved version ${request.version} already.` : ""), onclick: review("approve") }),
    button("Reject", { id: "reject", reason: reviewReason, onclick: review("reject") }),
    button("Add comment", {
      id: "add-comment",
      reason: editorReason,
      onclick() {
        if (!text()) {
          comment.setError("Write the comment first.");
          comment.control.focus();
          return;
        }
        comment.setError("");
        return run(() => post(changeRequestPath(request.id, "comments"), { text: text() }), "Comment added.", "step-result");
      },
    }),
  );

  // -- publish, rebase, withdraw, roll back -------------------------------------------------------
  const publishButton = button("Publish now…", {
    id: "publish-request",
    primary: true,
    reason: publishReason,
    async onclick() {
      const ok = await confirmDialog({
        title: `Publish change request #${request.id}?`,
        text: `Every change of “${request.title}” goes live at once; apps are served it immediately.`,
        confirmLabel: "Publish",
      });
      if (ok) await run(() => post(changeRequestPath(request.id, "publish"), {}, { headers: ifMatch(revision) }), `Published change request #${request.id}.`);
    },
  });
  const lifecycle = h(
    "div",
    { class: "buttons" },
    publishButton,
    request.conflicts.length
      ? button("Rebase on live…", {
          id: "rebase",
          reason: editorReason || (closed ? `it is ${request.state}.` : ""),
          async onclick() {
            const ok = await confirmDialog({
              title: "Rebase on what is live?",
              text: "Every change is based on the live revision now and keeps what it proposes. It is an edit: approvals start again, and you may not approve it.",
              confirmLabel: "Rebase",
            });
            if (ok) await run(() => post(changeRequestPath(request.id, "rebase"), undefined, { headers: ifMatch(revision) }), "Rebased: approvals start again.");
          },
        })
      : null,
    button("Withdraw…", {
      id: "withdraw",
      reason: withdrawReason,
      async onclick() {
        const ok = await confirmDialog({ title: `Withdraw change request #${request.id}?`, text: "It is closed for good: nothing of it is published.", confirmLabel: "Withdraw" });
        if (ok) await run(() => post(changeRequestPath(request.id, "withdraw"), undefined, { headers: ifMatch(revision) }), `Withdrew change request #${request.id}.`);
      },
    }),
    request.state === "published"
      ? button("Roll back…", {
          id: "rollback",
          reason: editorReason || (request.rolledBackBy ? `rolled back by #${request.rolledBackBy} already.` : ""),
          async onclick() {
            const ok = await confirmDialog({
              title: `Roll back change request #${request.id}?`,
              text: "This opens a new change request that puts every document back as it was before; it is reviewed like any other.",
              confirmLabel: "Open the rollback request",
            });
            if (!ok) return;
            try {
              const { data } = await post(changeRequestPath(request.id, "rollback"), {});
              announce(`Opened change request #${data.id}, the rollback.`);
              context.navigate(`#/changes/${data.id}`);
            } catch (error) {
              result.replaceChildren(problemView(error));
              result.focus();
            }
          },
        })
      : null,
  );

  return h(
    "section",
    { class: "steps", "aria-labelledby": "steps-heading" },
    h("h2", { id: "steps-heading" }, "Review and publish"),
    page.standing,
    result,
    h("div", { class: "review-step" }, comment.root, reviewButtons),
    scheduleStep(request, revision, { button, run, editorReason, closed, viewerID: context.viewerReasonID }),
    lifecycle,
    reasons.length ? h("ul", { class: "reasons hint", "aria-label": "Why some steps are unavailable" }, reasons) : null,
  );
}

/** The schedule: when it publishes (the editor's zone, and UTC), cancel; or a form to set one. */
function scheduleStep(request, revision, { button, run, editorReason, closed, viewerID }) {
  const publication = request.publication;
  if (publication) {
    return h(
      "div",
      { class: "schedule", id: "schedule" },
      h("h3", {}, "Published"),
      h("p", {}, zoned(publication.at), ` by ${publication.by}`, publication.emergency ? " (an emergency rollback)" : "", "."),
      publication.scheduledAt
        ? h("p", {}, "It was scheduled for ", zoned(publication.scheduledAt), publication.lateMilliseconds > 1000 ? `, and ran ${Math.round(publication.lateMilliseconds / 1000)} s late.` : ".")
        : null,
    );
  }
  if (closed) return null;
  if (request.schedule) {
    const at = request.schedule.at;
    return h(
      "div",
      { class: "schedule", id: "schedule" },
      h("h3", {}, "Scheduled"),
      h("p", { class: "scheduled-at", id: "scheduled-at", tabindex: "-1" }, "Publishes at ", zoned(at), ` — ${at.replace("T", " ").replace(/\.\d+Z$|Z$/, "")} UTC. Set by ${request.schedule.by}.`),
      h("div", { class: "buttons" }, button("Cancel the schedule", {
        id: "unschedule",
        reason: editorReason,
        onclick: () => run(() => del(changeRequestPath(request.id, "schedule"), { headers: ifMatch(revision) }), "Schedule cancelled.", "schedule-at"),
      })),
    );
  }
  const zone = zoneName();
  const input = h("input", { type: "datetime-local", step: "1", disabled: Boolean(editorReason), "aria-describedby": editorReason ? viewerID : undefined });
  const when = field("Publish at", input, { hint: `In your time zone, ${zone}; the server is sent UTC.`, id: "schedule-at" });
  const utc = h("p", { class: "hint", id: "schedule-utc", "aria-live": "polite" });
  const showUTC = () => {
    const date = instantOf(input.value);
    utc.textContent = date ? `That is ${date.toISOString().replace("T", " ").replace(/\.\d+Z$/, "")} UTC.` : "";
  };
  input.addEventListener("input", showUTC);
  const soon = new Date(Date.now() + 60 * 60 * 1000);
  soon.setMinutes(0, 0, 0);
  input.value = localValue(soon);
  showUTC();
  const reason = editorReason || (request.state !== "approved" ? "only an approved request is scheduled." : "");
  return h(
    "div",
    { class: "schedule", id: "schedule" },
    h("h3", {}, "Schedule a publish"),
    h("p", { class: "zone" }, `Times are in your time zone: ${zone}.`),
    when.root,
    utc,
    h("div", { class: "buttons" }, button("Schedule", {
      id: "schedule-button",
      reason,
      onclick() {
        const date = instantOf(input.value);
        if (!date) {
          when.setError("Choose a date and a time.");
          input.focus();
          return;
        }
        if (date.getTime() <= Date.now()) {
          when.setError("Choose a time in the future.");
          input.focus();
          return;
        }
        when.setError("");
        return run(async () => {
          try {
            await put(changeRequestPath(request.id, "schedule"), { at: date.toISOString() }, { headers: ifMatch(revision) });
          } catch (error) {
            const atError = error instanceof ApiError && error.errors.find((item) => item.pointer === "/at");
            if (atError) when.setError(atError.detail);
            throw error;
          }
        }, `Scheduled for ${date.toLocaleString()} (${zone}).`, "scheduled-at");
      },
    })),
  );
}

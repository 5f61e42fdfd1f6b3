// Publishing from the editor: the review of the field-level diff against the live revision,
// the write with If-Match, a 412 turned into the conflict view and a rebase of this editor's
// changes onto what the other person published, and discarding the draft.
//
// The write says what the editor changed: strings of one locale only go as `PUT
// …/strings/{locale}` (audited as `strings`, the unit translators work in), anything else as the
// whole document (`replace`). Every way of publishing goes through `write` below, so a change of
// where publications go (change requests) is made here.
//
// Change requests: when the review rules ask for approvals of this template (its category's
// rule, or the global one), "Review and publish…" becomes "Propose change…": the edit goes into
// the editor's newest open request for this template when there is one (they choose; its
// approvals reset, as any edit's do), else into a new one. With 0 approvals needed, direct
// publishing stays, with "Propose…" beside it.

import { ApiError, approvalsNeeded, changeRequestPath, get, ifMatch, isProblem, patch, post, put, revisionOf, seg } from "./api.js";
import { diff, merge, setAt } from "./diff.js";
import { announce, field, h, routeLink } from "./dom.js";
import { modal } from "./part-dialog.js";
import { conflictDialog, diffTable, reviewDialog } from "./part-diff-view.js";

/**
 * The editor's publishing steps: {review, propose, discard, controls}; `controls()` makes the
 * publish bar's buttons for the review rule in force.
 */
export function publishing(editor) {
  const { state, templateID, main, status, build, changed, showErrors, updateStatus } = editor;
  /** The review rules (AdminReviewRules), once read; null until then or when they cannot be. */
  let rules = null;
  get("/v1/admin/review-rules")
    .then(({ data }) => {
      rules = data;
      refreshBar();
    })
    .catch(() => {});

  /** The approvals this draft needs (its category before and after), or 0 while unknown. */
  function needed() {
    if (!rules || !state.live) return 0;
    return approvalsNeeded(rules, state.live.template?.category, state.draft?.category);
  }

  /** Which rule decides: the JSON pointer the server names (`/categories/update`). */
  function rulePointer() {
    const category = [state.live?.template?.category, state.draft?.category].find((c) => rules?.categories?.[c] === needed());
    return category ? `/categories/${category}` : "/requiredApprovals";
  }

  /** The publish bar's buttons and the note that says which rule applies. */
  function controls() {
    const need = needed();
    const off = editor.readOnly || !editor.dirty();
    const write = editor.writeProps();
    if (need > 0) {
      const note = h(
        "p",
        { class: "hint review-note", id: "review-rule-note" },
        `Changes to this template need ${need} ${need === 1 ? "approval" : "approvals"} (review rule ${rulePointer()}): they go live through a change request, once approved and published.`,
      );
      const describedBy = [write["aria-describedby"], "review-rule-note"].filter(Boolean).join(" ");
      return [
        h("button", { type: "button", id: "publish", class: "primary", ...write, disabled: off, "aria-describedby": describedBy, onclick: propose }, "Propose change…"),
        h("button", { type: "button", id: "discard", ...write, onclick: discard }, "Discard changes"),
        note,
      ];
    }
    return [
      h("button", { type: "button", id: "publish", class: "primary", ...write, disabled: off, onclick: review }, "Review and publish…"),
      h("button", { type: "button", id: "propose", class: "quiet", ...write, disabled: off, onclick: propose }, "Propose…"),
      h("button", { type: "button", id: "discard", ...write, onclick: discard }, "Discard changes"),
    ];
  }

  /** Redraws the publish bar (the rules arrived, or changed under a write), focus kept. */
  function refreshBar() {
    const bar = main.querySelector(".publish-bar");
    if (!bar) return;
    const focused = bar.contains(document.activeElement) ? document.activeElement.id : "";
    bar.replaceChildren(...controls().filter(Boolean));
    if (focused) (document.getElementById(focused) || document.getElementById("publish"))?.focus();
  }

  /** Validates the draft when the last check was of another one. */
  async function validated() {
    if (state.validated !== JSON.stringify(state.draft)) {
      editor.validateLater.cancel();
      await editor.validate();
    }
  }

  async function review() {
    if (!editor.dirty()) return;
    await validated();
    if (needed() > 0) return propose();
    const changes = diff(state.base, state.draft);
    const problems = state.serverErrors.length;
    const ok = await reviewDialog({
      title: `Publish ${templateID}`,
      intro: `Changes against revision ${state.live.revision}, which clients are served now. Publishing makes revision ${state.live.revision + 1}, served at once.`,
      changes,
      confirmLabel: "Publish",
      confirmDisabled: problems > 0,
      disabledReason: problems ? `Fix the ${problems === 1 ? "problem" : `${problems} problems`} the server found first.` : "",
    });
    if (!ok) {
      main.querySelector("#publish")?.focus();
      return;
    }
    await publish();
  }

  async function publish() {
    const changes = diff(state.base, state.draft);
    const locale = stringsLocaleOf(changes);
    try {
      const { data } = await write(locale);
      state.live = { ...data, stringUpdates: stringUpdatesAfter(state.live.stringUpdates, changes, data) };
      state.base = structuredClone(data.template);
      state.draft = structuredClone(data.template);
      state.serverErrors = [];
      state.published = { revision: data.revision, what: locale ? `the ${locale} strings` : "the template" };
      editor.forgetDraft();
      build();
      changed({ validate: false });
      announce(`Published revision ${data.revision} of ${templateID}.`);
      // Focus goes to the result: the status line that says what is served now (the publish
      // button is disabled once nothing is left to publish).
      status.focus();
    } catch (error) {
      if (error instanceof ApiError && error.status === 412) return conflict();
      if (isProblem(error, "review-required")) {
        // The rules changed since the editor opened: read them again and propose instead.
        rules = (await get("/v1/admin/review-rules").catch(() => ({ data: rules }))).data;
        refreshBar();
        announce(`Not published: ${error.message} Propose the change instead.`);
        return propose();
      }
      if (error instanceof ApiError && error.status === 422) {
        state.serverErrors = error.errors.map((e) => ({ pointer: documentPointer(e.pointer ?? "", locale), detail: e.detail }));
        showErrors();
        updateStatus();
        announce(`Not published: ${error.message}`);
        return;
      }
      announce(`Not published: ${error.message}`);
      status.replaceChildren(h("span", { role: "alert" }, `Not published: ${error.message}`));
    }
  }

  async function conflict() {
    const { data: current } = await get(`/v1/admin/templates/${seg(templateID)}`);
    const theirs = { revision: current.revision, document: current.template };
    const result = merge(state.base, state.draft, theirs.document);
    const answer = await conflictDialog({
      title: `${templateID} changed while you edited`,
      theirs,
      base: state.base,
      mine: state.draft,
      merge: result,
      who: `${current.updatedBy}, ${new Date(current.updatedAt).toLocaleString()}`,
    });
    if (!answer.rebase) {
      announce("Not rebased: publishing will be refused until you rebase.");
      main.querySelector("#publish")?.focus();
      return;
    }
    const merged = result.merged;
    for (const conflictItem of result.conflicts) {
      if (answer.choices.get(conflictItem.pointer) === "mine") setAt(merged, conflictItem.pointer, structuredClone(conflictItem.mine));
    }
    state.live = current;
    state.base = structuredClone(current.template);
    state.draft = merged;
    build();
    changed();
    announce(`Rebased onto revision ${current.revision}. Review and publish again.`);
    main.querySelector("#publish")?.focus();
  }

  /**
   * Writes the draft against the live revision: the strings of `locale` alone when they are all
   * that changed, else the whole document. Resolves to the API's answer (AdminTemplateWritten).
   */
  function write(locale) {
    const options = { headers: ifMatch(state.live.revision) };
    if (locale) return put(`/v1/admin/templates/${seg(templateID)}/strings/${seg(locale)}`, state.draft.strings[locale], options);
    return put(`/v1/admin/templates/${seg(templateID)}`, state.draft, options);
  }

  function discard() {
    state.draft = structuredClone(state.base);
    state.serverErrors = [];
    editor.forgetDraft();
    build();
    changed({ validate: false });
    announce("Changes discarded.");
    main.querySelector("#discard")?.focus();
  }

  /**
   * Proposes the draft as a change request: into the editor's newest open request for this
   * template (their choice, default) or a new one. The template's change in that request is
   * replaced by this draft (a strings change of one locale replaces that locale's only).
   */
  async function propose() {
    if (!editor.dirty()) return;
    await validated();
    const changes = diff(state.base, state.draft);
    const locale = stringsLocaleOf(changes);
    const change = locale
      ? { kind: "templateStrings", id: templateID, locale, strings: state.draft.strings[locale], baseRevision: state.live.revision }
      : { kind: "template", id: templateID, document: state.draft, baseRevision: state.live.revision };
    const me = editor.session?.name ?? "";
    const open = await get("/v1/admin/change-requests", { query: { state: "open", author: me, target: `template:${templateID}`, pageSize: 1 } })
      .then(({ data }) => data.items[0] ?? null)
      .catch(() => null);
    // What adding would replace in that request, said before the editor chooses.
    const replacing = open ? await get(changeRequestPath(open.id)).then(({ data }) => data.changes.filter((c) => supersedes(c, change)).map(changeWords), () => []) : [];
    const answer = await proposeDialog({ templateID, changes, open, replacing, need: needed(), rule: rules ? rulePointer() : null, problems: state.serverErrors.length });
    if (!answer) {
      main.querySelector("#publish")?.focus();
      return;
    }
    try {
      let request;
      if (answer.into) {
        const { data: current, headers } = await get(changeRequestPath(answer.into.id));
        const kept = current.changes.filter((other) => !supersedes(other, change)).map(changeInput);
        const revision = revisionOf(headers.get("ETag")) ?? current.revision;
        ({ data: request } = await patch(changeRequestPath(current.id), { title: answer.title, description: answer.description, changes: [...kept, change] }, { headers: ifMatch(revision) }));
        request.changeIndex = kept.length;
      } else {
        ({ data: request } = await post("/v1/admin/change-requests", { title: answer.title, description: answer.description, changes: [change] }));
        request.changeIndex = 0;
      }
      state.base = structuredClone(state.live.template);
      state.draft = structuredClone(state.live.template);
      state.serverErrors = [];
      editor.forgetDraft();
      build();
      changed({ validate: false });
      const what = answer.into ? `Added to change request #${request.id}` : `Proposed as change request #${request.id}`;
      const need = request.approvals?.required ?? needed();
      status.replaceChildren(
        `${what}, “${request.title}” (version ${request.version}): `,
        need ? `it needs ${need} ${need === 1 ? "approval" : "approvals"}, then a publish. ` : "it can be published now. ",
        "Clients are served the live revision until then. ",
        h("a", { href: routeLink(`/changes/${request.id}`) }, `Open change request #${request.id}`),
      );
      announce(`${what}. Nothing is served until it is published.`);
      status.focus();
    } catch (error) {
      if (error instanceof ApiError && error.status === 422) {
        // Pointers into the request body: those of this change lead to the editor's fields.
        const prefix = /^\/changes\/\d+/;
        state.serverErrors = error.errors.map((e) => ({ pointer: proposalPointer(e.pointer ?? "", locale, prefix), detail: e.detail }));
        showErrors();
        updateStatus();
      }
      const message = isProblem(error, "change-request-closed")
        ? "Not proposed: that change request was published or withdrawn meanwhile. Propose again to open a new one."
        : error instanceof ApiError && error.status === 412
          ? "Not proposed: the change request changed while you proposed. Propose again."
          : `Not proposed: ${error.message}`;
      announce(message);
      status.replaceChildren(h("span", { role: "alert" }, message));
      status.focus();
    }
  }

  return { review, propose, discard, controls };
}

/** Whether `change` (this template's new change) replaces `other` in a request's list. */
function supersedes(other, change) {
  if (other.id !== change.id || other.kind === "appPolicy" || other.kind === "experiment") return false;
  if (change.kind === "templateStrings" && other.kind === "templateStrings") return other.locale === change.locale;
  return true;
}

/** "noDocuments (fr strings)": a template change in words. */
const changeWords = (change) => `${change.id} (${change.kind === "templateStrings" ? `${change.locale} strings` : change.kind === "template" ? "the whole template" : "its deletion"})`;

/** A change as read (with its diff) as the API takes it back (ProposedChangeInput). */
function changeInput({ kind, id, platform, locale, baseRevision, document, strings }) {
  return { kind, id, platform, locale, baseRevision, document, strings };
}

/** A 422 pointer of a proposal as a document pointer, for the editor's fields. */
function proposalPointer(pointer, locale, prefix) {
  if (!prefix.test(pointer)) return pointer;
  const rest = pointer.replace(prefix, "");
  if (rest.startsWith("/document")) return rest.slice("/document".length);
  if (rest.startsWith("/strings") && locale) return `/strings/${locale}${rest.slice("/strings".length)}`;
  return "";
}

/**
 * The proposal dialog: what changes, where it goes (the editor's open request, or a new one),
 * a title and a description. Resolves to {into, title, description} or null (cancelled).
 */
function proposeDialog({ templateID, changes, open, replacing, need, rule, problems }) {
  const title = field("Title", h("input", { type: "text", maxlength: "200", required: true, value: open?.title ?? "", autocomplete: "off" }), {
    hint: "What the change is for, as reviewers will see it in the list.",
    id: "propose-title",
  });
  const description = field("Description", h("textarea", { rows: "3", maxlength: "10000" }), { hint: "Optional: why, and what to look at.", id: "propose-description" });
  const choices = open
    ? h(
        "fieldset",
        { class: "choices" },
        h("legend", {}, "Where it goes"),
        h("label", {}, h("input", { type: "radio", name: "propose-into", value: "open", checked: true }), ` Add to your open change request #${open.id}, “${open.title}” (its approvals start again; a schedule is dropped)`,
          replacing.length ? h("span", { class: "hint replacing" }, ` It replaces its change to ${replacing.join(" and ")} with this one.`) : null),
        h("label", {}, h("input", { type: "radio", name: "propose-into", value: "new" }), " Open a new change request"),
      )
    : null;
  const rulesText = need > 0
    ? `The review rules ask for ${need} ${need === 1 ? "approval" : "approvals"} (${rule}) before this goes live.`
    : "No approval is needed: it can be published as soon as it is proposed.";
  const confirm = h("button", { type: "button", class: "primary", "data-write": "true" }, open ? "Propose" : "Open change request");
  const cancel = h("button", { type: "button" }, "Cancel");
  const dialog = h(
    "dialog",
    { class: "review", "aria-labelledby": "propose-heading" },
    h("h2", { id: "propose-heading" }, `Propose a change to ${templateID}`),
    h("p", {}, `${rulesText} Nothing is served to apps until the change request is published.`),
    problems ? h("p", { class: "error" }, `The server found ${problems === 1 ? "a problem" : `${problems} problems`} in this draft: reviewers will see ${problems === 1 ? "it" : "them"} too.`) : null,
    choices,
    title.root,
    description.root,
    diffTable(changes, { caption: "What changes" }),
    h("div", { class: "buttons" }, confirm, cancel),
  );
  const { result, settle } = modal(dialog, { focus: open ? confirm : title.control, cancelValue: null });
  if (open) {
    // Adding keeps the open request's title unless the editor changes it.
    for (const radio of dialog.querySelectorAll("input[name=propose-into]")) {
      radio.addEventListener("change", () => {
        const into = dialog.querySelector("input[name=propose-into]:checked").value === "open";
        confirm.textContent = into ? "Propose" : "Open change request";
        if (!into && title.control.value === open.title) title.control.value = "";
        if (into && !title.control.value.trim()) title.control.value = open.title;
      });
    }
  }
  confirm.addEventListener("click", () => {
    const text = title.control.value.trim();
    if (!text) {
      title.setError("A change request needs a title.");
      title.control.focus();
      return;
    }
    const into = open && dialog.querySelector("input[name=propose-into]:checked")?.value === "open" ? open : null;
    const wanted = description.control.value;
    settle({ into, title: text, description: into && !wanted ? undefined : wanted });
  });
  cancel.addEventListener("click", () => settle(null));
  return result;
}

/** The locale whose strings are all that `changes` touch (a field diff), or null. */
export function stringsLocaleOf(changes) {
  const locales = new Set(changes.map((change) => /^\/strings\/([^/]+)(?:\/|$)/.exec(change.pointer)?.[1] ?? null));
  return changes.length && locales.size === 1 && !locales.has(null) ? [...locales][0] : null;
}

/**
 * A pointer of a strings write's 422 as a document pointer: pointers into the locale are relative
 * to the body (`/title`, `/actions.retry`, `` for the body), others are the document's already.
 */
export function documentPointer(pointer, locale) {
  if (!locale) return pointer;
  const first = pointer.split("/")[1] ?? "";
  const relative = pointer === "" || first === "title" || first === "message" || first.startsWith("actions.") || first.startsWith("visual.");
  return relative ? `/strings/${locale}${pointer}` : pointer;
}

/**
 * Who changed each string when, after a publication: the strings `changes` touched are now by
 * the answer's author at its time (the write's answer carries no `stringUpdates`, and reading the
 * template again for them would show another person's later change as this one).
 */
function stringUpdatesAfter(updates = [], changes, answer) {
  const touched = new Map();
  for (const change of changes) {
    const match = /^\/strings\/([^/]+)\/(.+)$/.exec(change.pointer);
    if (match) touched.set(`${match[1]}\u0000${match[2]}`, { locale: match[1], key: match[2], removed: change.kind === "removed" });
  }
  const kept = updates.filter((update) => !touched.has(`${update.locale}\u0000${update.key}`));
  const made = [...touched.values()].filter((item) => !item.removed)
    .map(({ locale, key }) => ({ locale, key, updatedAt: answer.updatedAt, updatedBy: answer.updatedBy }));
  return [...kept, ...made];
}

// Publishing from the editor: the review of the field-level diff against the live revision,
// the write with If-Match, a 412 turned into the conflict view and a rebase of this editor's
// changes onto what the other person published, and discarding the draft.
//
// The write says what the editor changed: strings of one locale only go as `PUT
// …/strings/{locale}` (audited as `strings`, the unit translators work in), anything else as the
// whole document (`replace`). Every way of publishing goes through `write` below, so a change of
// where publications go (change requests) is made here.

import { ApiError, get, ifMatch, put, seg } from "./api.js";
import { diff, merge, setAt } from "./diff.js";
import { announce, h } from "./dom.js";
import { conflictDialog, reviewDialog } from "./part-diff-view.js";

/** The editor's publishing steps: {review, discard}, the handlers of its two buttons. */
export function publishing(editor) {
  const { state, templateID, main, status, build, changed, showErrors, updateStatus } = editor;

  async function review() {
    if (!editor.dirty()) return;
    if (state.validated !== JSON.stringify(state.draft)) {
      editor.validateLater.cancel();
      await editor.validate();
    }
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

  return { review, discard };
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

// Publishing from the editor: the review of the field-level diff against the live revision,
// the PUT with If-Match, a 412 turned into the conflict view and a rebase of this editor's
// changes onto what the other person published, and discarding the draft.

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
    try {
      const { data } = await put(`/v1/admin/templates/${seg(templateID)}`, state.draft, { headers: ifMatch(state.live.revision) });
      state.live = { ...data, stringUpdates: state.live.stringUpdates };
      state.base = structuredClone(data.template);
      state.draft = structuredClone(data.template);
      state.serverErrors = [];
      editor.forgetDraft();
      build();
      changed({ validate: false });
      announce(`Published revision ${data.revision} of ${templateID}.`);
      main.querySelector("#publish")?.focus();
    } catch (error) {
      if (error instanceof ApiError && error.status === 412) return conflict();
      if (error instanceof ApiError && error.status === 422) {
        state.serverErrors = error.errors.map((e) => ({ pointer: e.pointer ?? "", detail: e.detail }));
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

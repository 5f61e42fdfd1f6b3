// Editing one template (#/templates/{id}): its general fields, visual (icon picker or
// illustration), actions (0–3) and copy, the source locale beside the edited one with live
// limits and placeholder checks, the live preview beside the form, and publishing through a
// field-level diff with If-Match. A 412 shows what the other person published and rebases this
// editor's changes onto it.
//
// Every keystroke updates the draft; a debounced PUT ?validateOnly=true returns the server's
// verdict, whose JSON pointers land on the fields they name. The draft of each template is kept
// in memory while the console is open (never in storage), so leaving the screen loses nothing.
//
// This module holds the editor's state and its cycle (load, change, validate, show the errors,
// build the form); each group of the form (edit-general.js, part-edit-fields.js's visual,
// edit-actions.js, edit-copy.js) and publishing (edit-publish.js) is a module of its own that
// is handed the `editor` object below. A new group is a function (draft, editor) → element,
// added to `build`.
//
// Copy is what editors change most, so it comes first: the edited locale's fields beside the
// source, the preview beside them (on a phone, kept in view while typing), publishing in a bar
// that stays in view; General, Visual and Actions are one click away (closed <details>, opened
// by themselves when the server names one of their fields). The locale it opens on is chosen in
// edit-locale.js, which says why.

import { get, put, seg } from "./api.js";
import { debounce, h, routeLink, time } from "./dom.js";
import { actionLabels, actionsGroup } from "./edit-actions.js";
import { copyGroup } from "./edit-copy.js";
import { generalGroup } from "./edit-general.js";
import { chooseLocale, rememberedLocale, rememberLocale } from "./edit-locale.js";
import { publishing } from "./edit-publish.js";
import { formFields, visualGroup } from "./part-edit-fields.js";
import { preview } from "./part-preview.js";

/** Drafts by template id, while the console is open. */
const drafts = new Map();

/** Forgets every draft (sign-out). */
export function forgetDrafts() {
  drafts.clear();
}

export function mount(main, { id, query }, context) {
  const templateID = id;
  context.title(`Edit ${templateID}`);
  const heading = h("h1", { tabindex: "-1" }, "Edit ", h("code", {}, templateID));
  // Focused after publishing (the result of the action), so it can take focus.
  const status = h("p", { class: "edit-status", "aria-live": "polite", tabindex: "-1" });
  main.append(heading, h("p", {}, "Loading…"));

  const state = {
    live: null, // {revision, updatedAt, updatedBy, template}
    base: null, // the document the draft was made from
    draft: null,
    locale: query.locale || null,
    localeReason: "", // why the editor opened on `locale` (edit-locale.js), until another is picked
    published: null, // {revision, what} of this editor's last publication, shown until the next edit
    open: new Set(), // the groups (general, visual, actions) opened: kept across rebuilds
    serverErrors: [], // [{pointer, detail}] from the last validation
    validated: "", // the JSON of the draft last validated
    checking: false,
  };
  const fields = new Map(); // pointer → {setError, control}
  let previewPart = null;
  let disposed = false;

  const readOnly = !context.canEdit;
  const writeProps = () => ({
    "data-write": "true",
    disabled: readOnly,
    "aria-describedby": readOnly ? context.viewerReasonID : undefined,
  });
  const validateLater = debounce(validate, 400);

  /** What the form's groups and publishing are given: the state, and the editor's steps. */
  const editor = {
    state,
    templateID,
    main,
    status,
    fields,
    readOnly,
    writeProps,
    viewerReasonID: context.viewerReasonID,
    session: context.session,
    labels: actionLabels(),
    ...formFields({ fields, readOnly }),
    preview: () => previewPart,
    dirty,
    changed,
    validate,
    validateLater,
    updateStatus,
    showErrors,
    focusField,
    build,
    forgetDraft: () => drafts.delete(templateID),
    /** Called when a string of `locale` is edited: the editor opens on it next time. */
    edited: (locale) => rememberLocale(context.session?.name ?? "", locale),
  };
  const { controls } = publishing(editor);

  async function load() {
    try {
      const { data } = await get(`/v1/admin/templates/${seg(templateID)}`);
      if (disposed) return;
      state.live = data;
      const kept = drafts.get(templateID);
      if (kept && kept.base.revision === data.revision) {
        state.base = kept.base.document;
        state.draft = kept.draft;
      } else {
        state.base = structuredClone(data.template);
        state.draft = structuredClone(data.template);
      }
      const locales = Object.keys(state.draft.strings);
      // A link from the translation status to a locale the template lacks: offer to add it.
      if (state.locale && !locales.includes(state.locale)) state.absentLocale = state.locale;
      const chosen = chooseLocale(state.draft, {
        asked: state.locale,
        remembered: rememberedLocale(context.session?.name ?? ""),
        languages: navigator.languages || [navigator.language],
        stringUpdates: data.stringUpdates,
      });
      state.locale = chosen.locale;
      state.localeReason = chosen.reason;
      build();
      if (query.field) focusField(`/strings/${state.locale}/${query.field}`);
      changed({ validate: false });
    } catch (error) {
      main.replaceChildren(heading, h("p", { role: "alert" }, error.status === 404 ? `There is no template ${templateID}.` : error.message));
    }
  }

  function keep() {
    drafts.set(templateID, { base: { revision: state.live.revision, document: state.base }, draft: state.draft });
  }

  function dirty() {
    return JSON.stringify(state.base) !== JSON.stringify(state.draft);
  }

  /** After any edit: keep the draft, redraw the preview, and (debounced) validate. */
  function changed({ validate = true } = {}) {
    keep();
    if (dirty()) state.published = null;
    previewPart?.update(state.draft);
    updateStatus();
    if (validate && context.canEdit) validateLater();
    else if (context.canEdit && dirty()) validateLater();
  }

  async function validate() {
    const sent = JSON.stringify(state.draft);
    state.checking = true;
    updateStatus();
    try {
      await put(`/v1/admin/templates/${seg(templateID)}`, state.draft, { query: { validateOnly: "true" } });
      if (disposed || sent !== JSON.stringify(state.draft)) return;
      state.serverErrors = [];
    } catch (error) {
      if (disposed || sent !== JSON.stringify(state.draft)) return;
      state.serverErrors = error.status === 422 ? error.errors.map((e) => ({ pointer: e.pointer ?? "", detail: e.detail })) : [{ pointer: "", detail: error.message }];
    } finally {
      state.checking = false;
    }
    state.validated = sent;
    showErrors();
    updateStatus();
  }

  function updateStatus() {
    if (!state.live) return;
    const parts = state.published
      ? [`Published ${state.published.what}: revision ${state.live.revision}, served now, `]
      : [`Live: revision ${state.live.revision}, `];
    parts.push(time(state.live.updatedAt), ` by ${state.live.updatedBy}.`);
    if (dirty()) {
      parts.push(" Unpublished changes");
      if (state.checking) parts.push(", checking…");
      else if (state.validated === JSON.stringify(state.draft)) {
        parts.push(state.serverErrors.length ? `: ${state.serverErrors.length} ${state.serverErrors.length === 1 ? "problem" : "problems"}.` : ": the server accepts them.");
      } else parts.push(".");
    }
    status.replaceChildren(...parts);
    for (const button of main.querySelectorAll("#publish, #propose")) if (context.canEdit) button.disabled = !dirty();
  }

  /** The server's errors on their fields; the rest in the summary, with a way to them. */
  function showErrors() {
    for (const handle of fields.values()) handle.setError("");
    for (const error of state.serverErrors) {
      const handle = fields.get(error.pointer) || nearestField(error.pointer);
      handle?.setError(error.detail);
      reveal(handle?.control);
    }
    const summary = main.querySelector("#form-problems");
    if (!summary) return;
    summary.replaceChildren();
    summary.hidden = state.serverErrors.length === 0;
    if (!state.serverErrors.length) return;
    summary.append(
      h("h2", {}, `The server refuses ${state.serverErrors.length === 1 ? "one thing" : `${state.serverErrors.length} things`}`),
      h(
        "ul",
        {},
        state.serverErrors.map((error) => {
          const locale = /^\/strings\/([^/]+)\//.exec(error.pointer)?.[1];
          const target = fields.get(error.pointer) || nearestField(error.pointer);
          return h(
            "li",
            {},
            h("code", {}, error.pointer || "/"),
            " ",
            error.detail,
            " ",
            target || locale
              ? h("button", { type: "button", class: "link", onclick: () => focusField(error.pointer) }, target ? "Go to the field" : `Show ${locale}`)
              : null,
          );
        }),
      ),
    );
  }

  function nearestField(pointer) {
    for (let path = pointer; path.includes("/"); path = path.slice(0, path.lastIndexOf("/"))) {
      if (fields.has(path)) return fields.get(path);
    }
    return null;
  }

  function focusField(pointer) {
    const locale = /^\/strings\/([^/]+)\//.exec(pointer)?.[1];
    if (locale && locale !== state.locale && state.draft.strings[locale]) {
      state.locale = locale;
      build();
      showErrors();
    }
    const handle = fields.get(pointer) || nearestField(pointer);
    reveal(handle?.control);
    handle?.control.focus();
  }

  /** Opens the closed group (General, Visual, Actions) that holds `control`, if any. */
  function reveal(control) {
    const details = control?.closest("details.more");
    if (details && !details.open) {
      details.open = true;
      state.open.add(details.dataset.group);
    }
  }

  /** A group one click away: a <details> whose open state survives the form's rebuilds. */
  function more(name, summary, group) {
    const details = h("details", { class: "more", "data-group": name, open: state.open.has(name) }, h("summary", {}, summary), group);
    details.addEventListener("toggle", () => (details.open ? state.open.add(name) : state.open.delete(name)));
    return details;
  }

  /** Makes the form again (after a structural change): focus stays on the control it was on. */
  function build() {
    const activeID = main.contains(document.activeElement) ? document.activeElement.id : "";
    fields.clear();
    const draft = state.draft;
    const form = h("form", { class: "editor", novalidate: true, onsubmit: (event) => event.preventDefault() });
    const actionCount = (draft.actions || []).length;
    form.append(
      copyGroup(draft, editor),
      more("general", "General: category, style, aliases, source locale", generalGroup(draft, editor)),
      more("visual", `Visual: ${draft.visual?.illustration ? "illustration" : "icon"}`, visualGroup(draft, { fields, readOnly, textInput: editor.textInput, changed, build })),
      more("actions", `Actions (${actionCount})`, actionsGroup(draft, editor)),
    );
    const publishBar = h(
      "div",
      { class: "publish-bar" },
      // "Review and publish…", or "Propose change…" when the review rules ask for approvals.
      ...controls(),
    );
    if (!previewPart) {
      previewPart = preview({ initialLocale: state.locale, compact: matchMedia("(max-width: 69.99rem)").matches });
    }
    previewPart.setLocales(Object.keys(draft.strings), state.locale);
    const problems = h("div", { id: "form-problems", class: "problems", role: "region", "aria-label": "Problems", hidden: true });
    main.replaceChildren(
      heading,
      h(
        "p",
        { class: "screen-links" },
        h("a", { href: routeLink(`/templates/${encodeURIComponent(templateID)}/history`) }, "History and rollback"),
        " · ",
        h("a", { href: routeLink("/numbers", { template: templateID }) }, "Numbers"),
        " · ",
        h("a", { href: routeLink("/") }, "Back to the catalogue"),
      ),
      status,
      // The preview comes first: on a phone it stays at the top while the fields scroll under it;
      // from 70rem it is the second column.
      h("div", { class: "edit-layout" }, previewPart.root, h("div", { class: "edit-form" }, form, problems, publishBar)),
    );
    updateStatus();
    showErrors();
    if (activeID) document.getElementById(activeID)?.focus();
  }

  load();
  return () => {
    disposed = true;
    validateLater.cancel();
    previewPart?.cancel();
  };
}

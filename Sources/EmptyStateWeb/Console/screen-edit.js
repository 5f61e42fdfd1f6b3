// Editing one template: its general fields, visual (icon picker or illustration), actions (0–3)
// and copy, the source locale beside the edited one with live limits and placeholder checks,
// the live preview beside the form, and publishing through a field-level diff with If-Match. A
// 412 shows what the other person published and rebases this editor's changes onto it.
//
// Every keystroke updates the draft; a debounced PUT ?validateOnly=true returns the server's
// verdict, whose JSON pointers land on the fields they name. The draft of each template is kept
// in memory while the console is open (never in storage), so leaving the screen loses nothing.

import { ApiError, get, put, seg } from "./api.js";
import { check, limitOf, placeholders, runs } from "./copy-rules.js";
import { CATEGORIES } from "./screen-catalogue.js";
import { diff, merge, setAt } from "./diff.js";
import { announce, debounce, h, routeLink, select, time, uid } from "./dom.js";
import { conflictDialog, reviewDialog } from "./part-diff-view.js";
import { direction, fieldID, formFields, setGroupError, visualGroup } from "./part-edit-fields.js";
import { preview } from "./part-preview.js";

const ACTION_TYPES = ["retry", "navigateBack", "navigate", "openURL", "openStore", "openSettings", "signIn", "dismiss", "custom"];
const NEEDS_TARGET = { navigate: "an app route", openURL: "an https:// URL", custom: "the event name the app handles", openStore: "a store URL (optional)" };

/** Drafts by template id, while the console is open. */
const drafts = new Map();

/** Forgets every draft (sign-out). */
export function forgetDrafts() {
  drafts.clear();
}

/** The string keys a locale has, in the order the form shows them; `labelKeyOf` says where an
 *  action's labels are. */
function keysOf(document, labelKeyOf = (action) => `actions.${action.id}`) {
  const source = document.strings?.[document.defaultLocale] || {};
  const keys = ["title"];
  if ("message" in source) keys.push("message");
  for (const action of document.actions || []) keys.push(labelKeyOf(action));
  if ("visual.label" in source) keys.push("visual.label");
  return keys;
}

export function mount(main, { id, query }, context) {
  const templateID = id;
  context.title(`Edit ${templateID}`);
  const heading = h("h1", { tabindex: "-1" }, "Edit ", h("code", {}, templateID));
  const status = h("p", { class: "edit-status", "aria-live": "polite" });
  main.append(heading, h("p", {}, "Loading…"));

  const state = {
    live: null, // {revision, updatedAt, updatedBy, template}
    base: null, // the document the draft was made from
    draft: null,
    locale: query.locale || null,
    serverErrors: [], // [{pointer, detail}] from the last validation
    validated: "", // the JSON of the draft last validated
    checking: false,
  };
  const fields = new Map(); // pointer → {setError, control}
  const labelKeys = new WeakMap(); // action → the key of its labels, while it differs from its id
  let form = null;
  let previewPart = null;
  let disposed = false;

  const readOnly = !context.canEdit;
  const writeProps = () => ({
    "data-write": "true",
    disabled: readOnly,
    "aria-describedby": readOnly ? context.viewerReasonID : undefined,
  });

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
      if (!state.locale || !locales.includes(state.locale)) {
        state.locale = locales.find((locale) => locale !== state.draft.defaultLocale) || state.draft.defaultLocale;
      }
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

  const dirty = () => JSON.stringify(state.base) !== JSON.stringify(state.draft);

  /** After any edit: keep the draft, redraw the preview, and (debounced) validate. */
  function changed({ validate = true } = {}) {
    keep();
    previewPart?.update(state.draft);
    updateStatus();
    if (validate && context.canEdit) validateLater();
    else if (context.canEdit && dirty()) validateLater();
  }

  const validateLater = debounce(validate, 400);

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
    const parts = [`Live: revision ${state.live.revision}, `, time(state.live.updatedAt), ` by ${state.live.updatedBy}.`];
    if (dirty()) {
      parts.push(" Unpublished changes");
      if (state.checking) parts.push(", checking…");
      else if (state.validated === JSON.stringify(state.draft)) {
        parts.push(state.serverErrors.length ? `: ${state.serverErrors.length} ${state.serverErrors.length === 1 ? "problem" : "problems"}.` : ": the server accepts them.");
      } else parts.push(".");
    }
    status.replaceChildren(...parts);
    const publish = main.querySelector("#publish");
    if (publish && context.canEdit) publish.disabled = !dirty();
  }

  /** The server's errors on their fields; the rest in the summary, with a way to them. */
  function showErrors() {
    for (const handle of fields.values()) handle.setError("");
    for (const error of state.serverErrors) {
      (fields.get(error.pointer) || nearestField(error.pointer))?.setError(error.detail);
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
    handle?.control.focus();
  }

  // MARK: - The form

  function build() {
    // The form is made again after a structural change: focus stays on the control it was on.
    const activeID = main.contains(document.activeElement) ? document.activeElement.id : "";
    fields.clear();
    const draft = state.draft;
    form = h("form", { class: "editor", novalidate: true, onsubmit: (event) => event.preventDefault() });
    form.append(general(draft), visual(draft), actions(draft), copy(draft));
    const publishBar = h(
      "div",
      { class: "publish-bar" },
      h("button", { type: "button", id: "publish", class: "primary", ...writeProps(), disabled: readOnly || !dirty(), onclick: review }, "Review and publish…"),
      h("button", { type: "button", id: "discard", ...writeProps(), onclick: discard }, "Discard changes"),
    );
    if (!previewPart) {
      previewPart = preview({ initialLocale: state.locale });
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
      h("div", { class: "edit-layout" }, h("div", { class: "edit-form" }, form, problems, publishBar), previewPart.root),
    );
    updateStatus();
    showErrors();
    if (activeID) document.getElementById(activeID)?.focus();
  }

  const { textInput, selectField } = formFields({ fields, readOnly });

  function general(draft) {
    const aliases = textInput("/aliases", "Aliases", (draft.aliases || []).join(", "), (value) => {
      const list = value.split(",").map((item) => item.trim()).filter(Boolean);
      if (list.length) draft.aliases = list;
      else delete draft.aliases;
      changed();
    }, { hint: "Other names apps may ask for, separated by commas." });
    const category = selectField("/category", "Category", CATEGORIES, draft.category, (value) => {
      draft.category = value;
      changed();
    });
    const style = selectField("/style", "Style", [["default", "default (white)"], ["subtle", "subtle (grey blue)"]], draft.style, (value) => {
      draft.style = value;
      changed();
    });
    const defaultLocale = selectField("/defaultLocale", "Default (source) locale", Object.keys(draft.strings), draft.defaultLocale, (value) => {
      draft.defaultLocale = value;
      changed();
      build();
    });
    return h("fieldset", { class: "group" }, h("legend", {}, "General"), h("div", { class: "grid" }, aliases.root, category.root, style.root, defaultLocale.root));
  }

  const visual = (draft) => visualGroup(draft, { fields, readOnly, textInput, changed, build });

  /** The key of an action's labels: `actions.<id>`, unless its id was typed into another
   *  action's while its labels stayed where they were (see the id field in `actions`). */
  const labelKeyOf = (action) => labelKeys.get(action) ?? `actions.${action.id}`;

  /** Moves an action's labels to a new key in every locale. */
  function renameKey(from, to) {
    if (from === to) return;
    for (const values of Object.values(state.draft.strings)) {
      if (from in values) {
        values[to] = values[from];
        delete values[from];
      }
    }
  }

  function actions(draft) {
    draft.actions ??= [];
    const list = draft.actions;
    const group = h("fieldset", { class: "group" }, h("legend", {}, `Actions (${list.length} of at most 3)`));
    fields.set("/actions", { control: group, setError: (text) => setGroupError(group, text) });
    list.forEach((action, index) => {
      const base = `/actions/${index}`;
      // The labels follow the id as it is typed. While the id is another action's, they stay
      // where they are (moving them would overwrite that action's labels; the server reports the
      // duplicate id) and follow once the id is unique again, even after the form is rebuilt.
      const idField = textInput(`${base}/id`, "Id", action.id, (value) => {
        const from = labelKeyOf(action);
        if (list.some((other) => other !== action && other.id === value)) {
          labelKeys.set(action, from);
        } else {
          renameKey(from, `actions.${value}`);
          labelKeys.delete(action);
        }
        action.id = value;
        changed();
      }, { hint: "Letters and digits, starting with a lowercase letter." });
      idField.control.addEventListener("change", () => build());
      const role = selectField(`${base}/role`, "Role", [["primary", "primary (filled)"], ["secondary", "secondary"]], action.role, (value) => {
        action.role = value;
        changed();
      });
      const type = selectField(`${base}/type`, "Type", ACTION_TYPES, action.type, (value) => {
        action.type = value;
        if (!(value in NEEDS_TARGET)) delete action.target;
        changed();
        build();
      });
      const parts = [idField.root, role.root, type.root];
      if (action.type in NEEDS_TARGET) {
        const target = textInput(`${base}/target`, "Target", action.target, (value) => {
          if (value) action.target = value;
          else delete action.target;
          changed();
        }, { hint: NEEDS_TARGET[action.type] });
        parts.push(target.root);
      }
      const move = (offset) => {
        const [moved] = list.splice(index, 1);
        list.splice(index + offset, 0, moved);
        changed();
        build();
        main.querySelector(`#${fieldID(`/actions/${index + offset}/id`)}`)?.focus();
      };
      group.append(
        h(
          "div",
          { class: "action-row", role: "group", "aria-label": `Action ${index + 1}: ${action.id}` },
          h("div", { class: "grid" }, parts),
          h(
            "div",
            { class: "buttons" },
            h("button", { type: "button", ...writeProps(), disabled: readOnly || index === 0, onclick: () => move(-1) }, `Move ${action.id} up`),
            h("button", { type: "button", ...writeProps(), disabled: readOnly || index === list.length - 1, onclick: () => move(1) }, `Move ${action.id} down`),
            h(
              "button",
              {
                type: "button",
                ...writeProps(),
                onclick() {
                  list.splice(index, 1);
                  const key = labelKeyOf(action);
                  for (const values of Object.values(draft.strings)) delete values[key];
                  if (!list.length) delete draft.actions;
                  changed();
                  build();
                },
              },
              `Remove ${action.id}`,
            ),
          ),
        ),
      );
    });
    const full = list.length >= 3;
    const reason = uid("actions-full");
    group.append(
      h(
        "button",
        {
          type: "button",
          ...writeProps(),
          disabled: readOnly || full,
          "aria-describedby": readOnly ? context.viewerReasonID : full ? reason : undefined,
          onclick() {
            let n = list.length + 1;
            while (list.some((action) => action.id === `action${n}`)) n += 1;
            const action = { id: `action${n}`, role: list.length ? "secondary" : "primary", type: "dismiss" };
            list.push(action);
            for (const values of Object.values(draft.strings)) values[`actions.${action.id}`] = "";
            changed();
            build();
            main.querySelector(`#${fieldID(`/actions/${list.length - 1}/id`)}`)?.focus();
          },
        },
        "Add an action",
      ),
    );
    if (full) group.append(h("p", { class: "hint", id: reason }, "A template has at most 3 actions."));
    return group;
  }

  function copy(draft) {
    const source = draft.defaultLocale;
    const locales = Object.keys(draft.strings);
    const localeSelect = select(locales.map((locale) => [locale, locale === source ? `${locale} (source)` : locale]), state.locale, { id: "edit-locale" });
    localeSelect.addEventListener("change", () => {
      state.locale = localeSelect.value;
      build();
      showErrors();
      previewPart?.setLocales(Object.keys(draft.strings), state.locale);
      previewPart?.update(state.draft, { now: true });
      main.querySelector("#edit-locale")?.focus();
    });
    const absent = state.absentLocale && !draft.strings[state.absentLocale] ? state.absentLocale : "";
    const newLocale = h("input", { type: "text", id: "new-locale", size: "8", readOnly, placeholder: "e.g. it", value: absent });
    const addLocale = h(
      "button",
      {
        type: "button",
        ...writeProps(),
        onclick() {
          const tag = newLocale.value.trim();
          if (!tag || draft.strings[tag]) return;
          draft.strings[tag] = Object.fromEntries(keysOf(draft, labelKeyOf).map((key) => [key, ""]));
          state.locale = tag;
          changed();
          build();
          focusField(`/strings/${tag}/title`);
        },
      },
      "Add locale",
    );
    const group = h(
      "fieldset",
      { class: "group copy" },
      h("legend", {}, "Copy"),
      h(
        "div",
        { class: "grid" },
        h("div", { class: "field" }, h("label", { for: "edit-locale" }, "Edit locale"), localeSelect),
        h("div", { class: "field" }, h("label", { for: "new-locale" }, "New locale"), h("div", { class: "inline" }, newLocale, addLocale)),
      ),
    );
    if (absent) {
      group.append(h("p", { class: "notice" }, `This template has no ${absent} strings yet: “Add locale” makes them, to translate from the source.`));
    }
    fields.set(`/strings/${state.locale}`, { control: localeSelect, setError: (text) => setGroupError(group, text) });
    fields.set("/strings", { control: localeSelect, setError: (text) => setGroupError(group, text) });
    const values = draft.strings[state.locale];
    const sourceValues = draft.strings[source];
    for (const key of keysOf(draft, labelKeyOf)) {
      const pointer = `/strings/${state.locale}/${key}`;
      const limit = limitOf(key);
      const sourceText = state.locale === source ? null : sourceValues[key];
      const label = key === "title" ? "Title" : key === "message" ? "Message" : key === "visual.label" ? "Visual label" : `Label of ${key.slice(8)}`;
      const counter = h("span", { class: "counter" });
      const placeholderLine = h("span", { class: "placeholders" });
      const handle = textInput(pointer, `${label} (${state.locale})`, values[key], (value) => {
        values[key] = value;
        live(value);
        changed();
      }, { multiline: key === "message", lang: state.locale });
      handle.hint.replaceChildren(counter, " ", placeholderLine);
      const live = (value) => {
        const verdict = check(key, value, state.locale === source ? undefined : sourceText);
        counter.textContent = `${verdict.columns} / ${verdict.limit} columns (${limit.lines})${verdict.columns > verdict.limit ? ": too long" : ""}`;
        counter.classList.toggle("over", verdict.columns > verdict.limit);
        const want = placeholders(state.locale === source ? value : sourceText);
        const have = placeholders(value);
        const missing = want.filter((name) => !have.includes(name));
        const extra = have.filter((name) => !want.includes(name));
        placeholderLine.textContent = !want.length && !have.length ? "" : missing.length || extra.length
          ? `Placeholders: ${missing.map((n) => `{${n}} missing`).concat(extra.map((n) => `{${n}} not in the source`)).join(", ")}`
          : `Placeholders: ${want.map((n) => `{${n}}`).join(", ")} ✓`;
        placeholderLine.classList.toggle("over", missing.length > 0 || extra.length > 0);
      };
      live(values[key] ?? "");
      const row = h(
        "div",
        { class: "copy-row" },
        h(
          "div",
          { class: "source", lang: source, dir: direction(source) },
          h("span", { class: "source-label" }, state.locale === source ? "Live" : `Source (${source})`),
          h("p", {}, runs((state.locale === source ? state.base.strings?.[source]?.[key] : sourceText) ?? "").map((run) => (run.placeholder ? h("mark", {}, run.text) : run.text))),
        ),
        handle.root,
      );
      group.append(row);
    }
    const who = (state.live.stringUpdates || []).filter((update) => update.locale === state.locale);
    if (who.length) {
      const latest = who.reduce((a, b) => (a.updatedAt > b.updatedAt ? a : b));
      group.append(h("p", { class: "hint" }, `${state.locale} last changed `, time(latest.updatedAt), ` by ${latest.updatedBy}.`));
    }
    return group;
  }

  // MARK: - Publishing

  async function review() {
    if (!dirty()) return;
    if (state.validated !== JSON.stringify(state.draft)) {
      validateLater.cancel();
      await validate();
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
      const { data } = await put(`/v1/admin/templates/${seg(templateID)}`, state.draft, { headers: { "If-Match": `"r${state.live.revision}"` } });
      state.live = { ...data, stringUpdates: state.live.stringUpdates };
      state.base = structuredClone(data.template);
      state.draft = structuredClone(data.template);
      state.serverErrors = [];
      drafts.delete(templateID);
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
    drafts.delete(templateID);
    build();
    changed({ validate: false });
    announce("Changes discarded.");
    main.querySelector("#discard")?.focus();
  }

  load();
  return () => {
    disposed = true;
    validateLater.cancel();
    previewPart?.cancel();
  };
}

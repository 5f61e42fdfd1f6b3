// Differences shown to people: a table of field, before and after (text, never markup), the
// review dialog every publish and rollback goes through, and the conflict view of a 412.

import { diff } from "./diff.js";
import { fieldName, h, tableRegion } from "./dom.js";
import { modal } from "./part-dialog.js";

/** A value as text: strings as they are, anything else as JSON; absent as an em dash. */
export function shown(value) {
  if (value === undefined) return null;
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** A table of `changes` (from diff.js). */
export function diffTable(changes, { caption = "Changes", before = "Before", after = "After" } = {}) {
  if (!changes.length) return h("p", { class: "no-changes" }, "No differences.");
  const cell = (value, tag) => {
    const text = shown(value);
    return h("td", { dir: "auto" }, text === null ? h("span", { class: "absent" }, "(none)") : h(tag, {}, text));
  };
  return tableRegion(
    caption,
    h(
      "table",
      { class: "diff" },
      h("caption", {}, caption),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Field"), h("th", { scope: "col" }, before), h("th", { scope: "col" }, after))),
      h(
        "tbody",
        {},
        changes.map((change) =>
          h(
            "tr",
            { "data-kind": change.kind },
            h("th", { scope: "row" }, h("code", {}, change.pointer), h("span", { class: "subtitle" }, fieldName(change.pointer))),
            cell(change.before, "del"),
            cell(change.after, "ins"),
          ),
        ),
      ),
    ),
  );
}

/**
 * Opens a modal dialog that shows `changes` and asks to confirm: resolves true (confirmed) or
 * false (cancelled). `body` adds content above the table (problems, a note).
 */
export function reviewDialog({ title, intro, changes, confirmLabel, body = null, confirmDisabled = false, disabledReason = "" }) {
  const reasonID = `dialog-reason-${Date.now()}`;
  const confirm = h(
    "button",
    { type: "button", class: "primary", "data-write": "true", disabled: confirmDisabled, "aria-describedby": disabledReason ? reasonID : undefined },
    confirmLabel,
  );
  const cancel = h("button", { type: "button" }, "Cancel");
  const dialog = h(
    "dialog",
    { class: "review", "aria-labelledby": "review-title" },
    h("h2", { id: "review-title" }, title),
    intro ? h("p", {}, intro) : null,
    body,
    diffTable(changes, { caption: "What changes" }),
    disabledReason ? h("p", { class: "error", id: reasonID }, disabledReason) : null,
    h("div", { class: "buttons" }, confirm, cancel),
  );
  const { result, settle } = modal(dialog, { focus: changes.length && !confirmDisabled ? confirm : cancel, cancelValue: false });
  confirm.addEventListener("click", () => settle(true));
  cancel.addEventListener("click", () => settle(false));
  return result;
}

/**
 * After a 412: what the other person published, what this editor changed, and a choice for each
 * field both changed. Resolves to {rebase: true, choices: Map(pointer → "mine" | "theirs")} or
 * {rebase: false}.
 */
export function conflictDialog({ title, theirs, base, mine, merge, who }) {
  const { conflicts } = merge;
  const choices = new Map(conflicts.map((conflict) => [conflict.pointer, "mine"]));
  const conflictList = conflicts.length
    ? h(
        "fieldset",
        { class: "conflicts" },
        h("legend", {}, `${conflicts.length} ${conflicts.length === 1 ? "field" : "fields"} you both changed: keep which?`),
        conflicts.map((conflict, index) =>
          h(
            "div",
            { class: "conflict" },
            h("p", {}, h("code", {}, conflict.pointer), " ", fieldName(conflict.pointer)),
            ["mine", "theirs"].map((side) => {
              const id = `conflict-${index}-${side}`;
              return h(
                "div",
                { class: "choice" },
                h("input", {
                  type: "radio",
                  name: `conflict-${index}`,
                  id,
                  value: side,
                  checked: side === "mine",
                  onchange: () => choices.set(conflict.pointer, side),
                }),
                h("label", { for: id, dir: "auto" }, side === "mine" ? "Mine: " : "Theirs: ", shown(conflict[side]) ?? "(none)"),
              );
            }),
          ),
        ),
      )
    : h("p", {}, "None of the fields you changed was changed by them: your changes apply on top of theirs.");
  const rebase = h("button", { type: "button", class: "primary" }, `Rebase my changes onto revision ${theirs.revision}`);
  const cancel = h("button", { type: "button" }, "Keep editing without rebasing");
  const dialog = h(
    "dialog",
    { class: "review conflict-dialog", "aria-labelledby": "conflict-title" },
    h("h2", { id: "conflict-title" }, title),
    h("p", { role: "alert" }, `Someone else published revision ${theirs.revision}${who ? ` (${who})` : ""} while you were editing. Nothing of yours was saved. Review what they changed, then rebase your changes onto it and publish again.`),
    h("h3", {}, "What they changed"),
    diffTable(diff(base, theirs.document), { caption: "Their changes" }),
    h("h3", {}, "What you changed"),
    diffTable(diff(base, mine), { caption: "Your changes" }),
    conflictList,
    h("div", { class: "buttons" }, rebase, cancel),
  );
  const refused = { rebase: false };
  const { result, settle } = modal(dialog, { focus: rebase, cancelValue: refused });
  rebase.addEventListener("click", () => settle({ rebase: true, choices }));
  cancel.addEventListener("click", () => settle(refused));
  return result;
}

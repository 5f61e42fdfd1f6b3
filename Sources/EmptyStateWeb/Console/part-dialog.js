// Modal dialogs: the one way the console opens a <dialog> (appended to the page, modal, removed
// once answered, Escape as a refusal), and the confirmation every irreversible step asks for.
// The review and conflict dialogs (part-diff-view.js) are built on `modal`.

import { h } from "./dom.js";

/**
 * Shows `dialog` (a <dialog> element) as a modal and focuses `focus`. Returns {result, settle}:
 * `settle(value)` closes and removes the dialog and resolves `result` with `value`; Escape
 * settles with `cancelValue`. With `returnFocus`, settling with `cancelValue` puts focus back on
 * what had it before (a confirmed step moves focus itself).
 */
export function modal(dialog, { focus, cancelValue = false, returnFocus = false } = {}) {
  const opener = document.activeElement;
  let settle;
  const result = new Promise((resolve) => {
    settle = (value) => {
      dialog.close();
      dialog.remove();
      if (returnFocus && value === cancelValue && opener instanceof HTMLElement) opener.focus();
      resolve(value);
    };
  });
  dialog.addEventListener("cancel", (event) => {
    event.preventDefault();
    settle(cancelValue);
  });
  document.body.append(dialog);
  dialog.showModal();
  focus?.focus();
  return { result, settle };
}

/** A modal confirmation: resolves true (confirmed) or false. Focus starts on the confirm button. */
export function confirmDialog({ title, text, confirmLabel }) {
  const confirm = h("button", { type: "button", class: "primary" }, confirmLabel);
  const cancel = h("button", { type: "button" }, "Cancel");
  const dialog = h(
    "dialog",
    { class: "review confirm", "aria-labelledby": "confirm-title", "aria-describedby": "confirm-text" },
    h("h2", { id: "confirm-title" }, title),
    h("p", { id: "confirm-text" }, text),
    h("div", { class: "buttons" }, confirm, cancel),
  );
  const { result, settle } = modal(dialog, { focus: confirm, cancelValue: false, returnFocus: true });
  confirm.addEventListener("click", () => settle(true));
  cancel.addEventListener("click", () => settle(false));
  return result;
}

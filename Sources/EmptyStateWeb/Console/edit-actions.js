// The editor's Actions group: up to three actions, each with its id, role, type and target,
// moved up and down, removed and added. An action's labels (`actions.<id>` in every locale)
// follow its id as it is typed.

import { h, uid } from "./dom.js";
import { fieldID, setGroupError } from "./part-edit-fields.js";
import { ACTION_ROLES, ACTION_TYPES, MAXIMUM_ACTIONS, NEEDS_TARGET } from "./template-model.js";

/**
 * Where each action's labels are while they cannot follow its id: `keyOf(action)` is
 * `actions.<id>` unless the id was typed into another action's while its labels stayed where
 * they were (moving them would overwrite that action's labels; the server reports the duplicate
 * id), and they follow once the id is unique again, even after the form is rebuilt.
 */
export function actionLabels() {
  const held = new WeakMap();
  return {
    keyOf: (action) => held.get(action) ?? `actions.${action.id}`,
    hold: (action, key) => held.set(action, key),
    release: (action) => held.delete(action),
  };
}

/** Moves an action's labels to a new key in every locale of `draft`. */
function renameKey(draft, from, to) {
  if (from === to) return;
  for (const values of Object.values(draft.strings)) {
    if (from in values) {
      values[to] = values[from];
      delete values[from];
    }
  }
}

/** The Actions group of `draft`, its fields registered with `editor`. */
export function actionsGroup(draft, editor) {
  const { fields, main, readOnly, writeProps, textInput, selectField, changed, build, labels, viewerReasonID } = editor;
  draft.actions ??= [];
  const list = draft.actions;
  const group = h("fieldset", { class: "group" }, h("legend", {}, `Actions (${list.length} of at most ${MAXIMUM_ACTIONS})`));
  fields.set("/actions", { control: group, setError: (text) => setGroupError(group, text) });
  list.forEach((action, index) => {
    const base = `/actions/${index}`;
    const idField = textInput(`${base}/id`, "Id", action.id, (value) => {
      const from = labels.keyOf(action);
      if (list.some((other) => other !== action && other.id === value)) {
        labels.hold(action, from);
      } else {
        renameKey(draft, from, `actions.${value}`);
        labels.release(action);
      }
      action.id = value;
      changed();
    }, { hint: "Letters and digits, starting with a lowercase letter." });
    idField.control.addEventListener("change", () => build());
    const role = selectField(`${base}/role`, "Role", ACTION_ROLES, action.role, (value) => {
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
                const key = labels.keyOf(action);
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
  const full = list.length >= MAXIMUM_ACTIONS;
  const reason = uid("actions-full");
  group.append(
    h(
      "button",
      {
        type: "button",
        ...writeProps(),
        disabled: readOnly || full,
        "aria-describedby": readOnly ? viewerReasonID : full ? reason : undefined,
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
  if (full) group.append(h("p", { class: "hint", id: reason }, `A template has at most ${MAXIMUM_ACTIONS} actions.`));
  return group;
}

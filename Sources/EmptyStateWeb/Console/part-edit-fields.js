// The editor's controls: text and select fields registered under the JSON pointer the server's
// 422 names (so its error lands on that field), a group's own error line, and the Visual group
// (an icon chosen from the icon set with a picture, or an illustration).

import { announce, direction, field, h, select, uid } from "./dom.js";
import { iconPicker } from "./part-icon-picker.js";

/** The element id of the field at `pointer`. */
export const fieldID = (pointer) => `f${pointer.replace(/[^A-Za-z0-9]+/g, "-")}`;

/** Shows `text` (or nothing) as the error of a whole group of fields. */
export function setGroupError(group, text) {
  let line = group.querySelector(":scope > .error");
  if (!line) {
    line = h("p", { class: "error", role: "alert" });
    group.append(line);
  }
  line.textContent = text || "";
  line.hidden = !text;
}

/**
 * The field makers of one editor. `fields` maps each pointer to its handle ({control, setError,
 * root, hint}); every control is read-only for a viewer.
 */
export function formFields({ fields, readOnly }) {
  /**
   * A text field. `multiline`: a text area `lines` tall that grows with its text, for copy that
   * wraps (a title, a message); copy holds no line break (config/templates/README.md), so Enter
   * adds none and a pasted one becomes a space, as in a one-line input.
   */
  function textInput(pointer, label, value, onInput, { hint, multiline = false, lines = 3, lang, readonlyAlways = false } = {}) {
    const control = h(multiline ? "textarea" : "input", {
      type: multiline ? undefined : "text",
      id: fieldID(pointer),
      value: value ?? "",
      rows: multiline ? String(lines) : undefined,
      class: multiline ? `copy-text lines-${lines}` : undefined,
      readOnly: readOnly || readonlyAlways,
      lang,
      dir: lang ? direction(lang) : "auto",
      spellcheck: lang ? "true" : "false",
    });
    if (multiline) {
      control.value = value ?? "";
      control.addEventListener("keydown", (event) => {
        if (event.key === "Enter") event.preventDefault();
      });
    }
    const handle = field(label, control, { hint });
    control.addEventListener("input", () => {
      if (multiline && /[\r\n]/.test(control.value)) {
        const at = control.selectionStart;
        control.value = control.value.replace(/\r\n?|\n/g, " ");
        control.setSelectionRange(at, at);
      }
      onInput(control.value, handle);
    });
    fields.set(pointer, handle);
    return handle;
  }

  function selectField(pointer, label, options, value, onChange) {
    const control = select(options, value, { id: fieldID(pointer), disabled: readOnly });
    const handle = field(label, control);
    control.addEventListener("change", () => onChange(control.value));
    fields.set(pointer, handle);
    return handle;
  }

  return { textInput, selectField };
}

/**
 * The Visual group of `draft`: the kind (icon or illustration), then its fields. `changed` after
 * an edit, `build` after a change of kind (the form is made again).
 */
export function visualGroup(draft, { fields, readOnly, textInput, changed, build }) {
  const isIcon = !!draft.visual?.icon;
  const kindName = uid("visual-kind");
  const kinds = ["icon", "illustration"].map((kind) =>
    h(
      "div",
      { class: "choice" },
      h("input", {
        type: "radio",
        name: kindName,
        id: `${kindName}-${kind}`,
        value: kind,
        checked: (kind === "icon") === isIcon,
        disabled: readOnly,
        onchange() {
          draft.visual = kind === "icon" ? { icon: { ios: "", android: "", web: "" } } : { illustration: { asset: "" } };
          changed();
          build();
        },
      }),
      h("label", { for: `${kindName}-${kind}` }, kind === "icon" ? "Icon (64 × 64)" : "Illustration (360 × 230)"),
    ),
  );
  const group = h("fieldset", { class: "group" }, h("legend", {}, "Visual"), h("div", { class: "choices", role: "radiogroup", "aria-label": "Kind of visual" }, kinds));
  fields.set("/visual", { control: group.querySelector("input"), setError: (text) => setGroupError(group, text) });
  if (isIcon) {
    const icon = draft.visual.icon;
    const web = textInput("/visual/icon/web", "Web icon", icon.web, (value) => {
      icon.web = value;
      changed();
    }, { hint: "A name of the service's icon set (choose below)." });
    const ios = textInput("/visual/icon/ios", "iOS SF Symbol", icon.ios, (value) => {
      icon.ios = value;
      changed();
    });
    const android = textInput("/visual/icon/android", "Android Material icon", icon.android, (value) => {
      icon.android = value;
      changed();
    });
    const picker = iconPicker({
      current: icon.web,
      disabled: readOnly,
      onChoose(name) {
        icon.web = name;
        web.control.value = name;
        changed();
        announce(`Web icon ${name} chosen`);
      },
    });
    group.append(h("div", { class: "grid" }, web.root, ios.root, android.root), picker.root);
  } else {
    const asset = textInput("/visual/illustration/asset", "Illustration asset", draft.visual.illustration.asset, (value) => {
      draft.visual.illustration.asset = value;
      changed();
    }, { hint: "The name of an illustration the apps ship." });
    group.append(asset.root);
  }
  return group;
}

// An experiment's variants: each variant's weight, the strings it overrides (in their locale's
// direction) and its visual, and the button that ships it (enabled while the experiment runs
// or has stopped, and for editors only, with the reason beside it otherwise). Then the QA
// overrides: the install ids forced to a variant, each removable, and a form to add one.

import { direction, field, h, select, tableRegion } from "./dom.js";
import { percent } from "./part-experiment-chart.js";

/**
 * The variants section's content for `experiment`; `onShip(variant)` when a ship button is
 * pressed.
 */
export function variantsView(experiment, { context, onShip }) {
  const shippable = experiment.status === "running" || experiment.status === "stopped";
  const cards = experiment.variants.map((variant, index) => {
    const control = index === 0;
    const overrides = Object.entries(variant.strings || {}).flatMap(([locale, values]) =>
      Object.entries(values).map(([key, value]) => ({ locale, key, value })),
    );
    const headingID = `variant-${variant.key}`;
    const shipReason = !context.canEdit
      ? context.viewerReasonID
      : !shippable
        ? `ship-reason-${variant.key}`
        : undefined;
    return h(
      "article",
      { class: "variant", "aria-labelledby": headingID, "data-variant": variant.key },
      h("h3", { id: headingID }, variant.key, control ? h("span", { class: "badge" }, "control") : null),
      h("p", {}, `Weight ${percent(variant.weight)}`, control ? " · the live copy" : ""),
      overrides.length
        ? tableRegion(
            `Strings ${variant.key} overrides`,
            h(
              "table",
              { class: "overrides" },
              h("caption", {}, `Strings ${variant.key} overrides`),
              h("thead", {}, h("tr", {}, ["Locale", "Key", "Copy"].map((name) => h("th", { scope: "col" }, name)))),
              h(
                "tbody",
                {},
                overrides.map(({ locale, key, value }) =>
                  h("tr", {}, h("td", {}, locale), h("td", {}, h("code", {}, key)), h("td", { lang: locale, dir: direction(locale), class: "copy" }, value)),
                ),
              ),
            ),
          )
        : h("p", { class: "hint" }, control ? "Control overrides nothing." : "Overrides no string."),
      variant.visual ? h("p", {}, "Visual: ", h("code", {}, JSON.stringify(variant.visual))) : null,
      h(
        "p",
        { class: "ship" },
        h(
          "button",
          {
            type: "button",
            "data-write": "true",
            disabled: !context.canEdit || !shippable,
            "aria-describedby": shipReason,
            onclick: () => onShip(variant),
          },
          `Ship ${variant.key}…`,
        ),
        context.canEdit && !shippable
          ? h("span", { class: "hint", id: `ship-reason-${variant.key}` }, experiment.status === "draft" ? " A draft has no results to ship." : " Already shipped.")
          : null,
      ),
    );
  });
  return [h("h2", { id: "variants-heading" }, "Variants"), h("div", { class: "variant-list" }, cards)];
}

/**
 * The QA overrides section's content for `experiment`: a table of the install ids forced to a
 * variant, each with a Remove button, and a form to add one. `onSave(overrides)` writes the new
 * list (a PUT of the document; it throws the problem on failure, whose field errors are shown
 * here). Editable while the experiment runs (they move nobody else), not once it is shipped.
 */
export function overridesView(experiment, { context, onSave }) {
  const overrides = experiment.overrides || [];
  const editable = context.canEdit && experiment.status !== "shipped";
  const writeProps = { "data-write": "true", disabled: !editable, "aria-describedby": context.canEdit ? undefined : context.viewerReasonID };
  const status = h("div", { class: "override-status", "aria-live": "polite" });
  async function save(next, message) {
    status.replaceChildren();
    try {
      await onSave(next, message);
    } catch (error) {
      status.replaceChildren(problemFor(error));
    }
  }
  const table = overrides.length
    ? tableRegion(
        "Install ids forced to a variant",
        h(
          "table",
          { class: "qa-overrides" },
          h("caption", {}, "Install ids forced to a variant"),
          h("thead", {}, h("tr", {}, ["Install id", "Variant", "Remove"].map((name) => h("th", { scope: "col" }, name)))),
          h(
            "tbody",
            {},
            overrides.map((item, index) =>
              h(
                "tr",
                {},
                h("td", {}, h("code", { dir: "ltr" }, item.installId)),
                h("td", {}, item.variant),
                h(
                  "td",
                  {},
                  h(
                    "button",
                    {
                      type: "button",
                      ...writeProps,
                      "aria-label": `Remove the override of ${item.installId}`,
                      onclick: () => save(overrides.filter((_, i) => i !== index), `Removed the override of ${item.installId}.`),
                    },
                    "Remove",
                  ),
                ),
              ),
            ),
          ),
        ),
      )
    : h("p", { class: "hint" }, "No install is forced to a variant.");
  const install = field("Install id", h("input", { type: "text", name: "installId", autocomplete: "off", spellcheck: "false", dir: "ltr", disabled: !editable }), {
    hint: "As the app sends it in X-Install-ID (its debug screen shows it).",
  });
  const variant = field("Variant", select(experiment.variants.map((v) => v.key), experiment.variants[1]?.key, { name: "variant", disabled: !editable }));
  const form = h(
    "form",
    {
      class: "override-form",
      "aria-label": "Add a QA override",
      onsubmit: (event) => {
        event.preventDefault();
        const installId = install.control.value.trim();
        install.setError(installId ? "" : "Give the install id of the test device.");
        if (!installId) return install.control.focus();
        const next = [...overrides.filter((item) => item.installId !== installId), { installId, variant: variant.control.value }];
        save(next, `${installId} is forced to ${variant.control.value}.`);
      },
    },
    install.root,
    variant.root,
    h("button", { type: "submit", ...writeProps }, "Add override"),
  );
  return [
    h("h2", { id: "overrides-heading" }, "QA overrides"),
    h(
      "p",
      { class: "hint" },
      "A test device listed here is served its variant whatever the split and the target say; its events are left out of the results. Changing the list moves no other install.",
    ),
    table,
    form,
    status,
  ];
}

/** A failed save's problem, its field pointers (/overrides/0/installId) said in words. */
function problemFor(error) {
  const errors = (error.errors || []).map((item) => ({ ...item, pointer: item.pointer?.replace(/^\/overrides\/(\d+)\//, (_, i) => `override ${Number(i) + 1}: `) }));
  return h(
    "div",
    { class: "problem", role: "alert" },
    h("p", {}, error.status === 412 ? "Not saved: someone changed this experiment meanwhile. It is shown as it is now; try again." : error.message),
    errors.length ? h("ul", {}, errors.map((item) => h("li", {}, item.pointer || "", " ", item.detail || ""))) : null,
  );
}

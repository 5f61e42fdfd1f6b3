// An experiment's variants: each variant's weight, the strings it overrides (in their locale's
// direction) and its visual, and the button that ships it (enabled while the experiment runs
// or has stopped, and for editors only, with the reason beside it otherwise).

import { direction, h, tableRegion } from "./dom.js";
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

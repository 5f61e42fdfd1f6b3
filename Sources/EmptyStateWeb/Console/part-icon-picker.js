// Choosing a web icon from the service's set (GET /v1/admin/icons?svg=true): a search field and
// a grid of buttons, each showing the icon. The SVG goes through the web component's allow-list
// sanitizer before it is inserted, as <empty-state> does.

import { get } from "./api.js";
import { debounce, field, h } from "./dom.js";
import { sanitizedSVG } from "/v1/web/assets/empty-state.js";

/** Returns {root}: `onChoose(name)` is called with the icon chosen. */
export function iconPicker({ current, onChoose, disabled }) {
  const search = h("input", { type: "search", autocomplete: "off", value: "", disabled });
  const searchField = field("Find an icon", search, { hint: "Lucide names: wifi, search, lock, …" });
  const grid = h("div", { class: "icon-grid", role: "group", "aria-label": "Icons" });
  const count = h("p", { class: "hint", "aria-live": "polite" });
  let chosen = current;
  let generation = 0;

  const load = async () => {
    const mine = ++generation;
    try {
      const { data } = await get("/v1/admin/icons", { query: { q: search.value.trim() || chosen || "", limit: 48, svg: "true" } });
      if (mine !== generation) return;
      count.textContent = `${data.total} ${data.total === 1 ? "icon" : "icons"}${data.total > data.icons.length ? `, the first ${data.icons.length} shown` : ""}.`;
      grid.replaceChildren(
        ...data.icons.map((icon) => {
          const picture = icon.svg ? sanitizedSVG(icon.svg) : null;
          return h(
            "button",
            {
              type: "button",
              class: "icon-choice",
              "aria-pressed": icon.name === chosen ? "true" : "false",
              "data-icon": icon.name,
              disabled,
              onclick() {
                chosen = icon.name;
                for (const button of grid.querySelectorAll("[aria-pressed]")) button.setAttribute("aria-pressed", String(button.dataset.icon === chosen));
                onChoose(icon.name);
              },
            },
            picture,
            h("span", {}, icon.name),
          );
        }),
      );
    } catch (error) {
      if (mine === generation) count.textContent = error.message;
    }
  };
  search.addEventListener("input", debounce(load, 200));
  load();
  return { root: h("div", { class: "icon-picker" }, searchField.root, count, grid) };
}

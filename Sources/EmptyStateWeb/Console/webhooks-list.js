// The webhook subscriptions (#/webhooks): each with its events, state and how its deliveries are
// doing, and a form that creates one (URL, events, description) and shows its secret once.

import { ApiError, get, post } from "./api.js";
import { announce, field, h, problemView, routeLink, tableRegion, time } from "./dom.js";

/** The events a webhook may subscribe to (WebhookEventType), with what each means. */
export const EVENTS = [
  ["changeRequest.opened", "a change request is opened"],
  ["changeRequest.approved", "a change request has its approvals"],
  ["changeRequest.published", "a change request is published"],
  ["changeRequest.rolledBack", "a change request is rolled back"],
  ["appPolicy.published", "an app policy is published"],
  ["experiment.started", "an experiment starts"],
  ["experiment.stopped", "an experiment stops"],
  ["experiment.shipped", "an experiment's variant ships"],
];

/** "3 pending, 1 failed, last 200" — a webhook's health in a few words. */
export function healthText(health) {
  if (!health) return "—";
  const parts = [];
  if (health.pending) parts.push(`${health.pending} pending`);
  if (health.failed) parts.push(`${health.failed} failed`);
  if (health.lastAttemptAt) parts.push(`last attempt ${health.lastAttemptSucceeded ? "succeeded" : "failed"}${health.lastAttemptStatus ? ` (${health.lastAttemptStatus})` : ""}`);
  return parts.length ? parts.join(", ") : "no delivery yet";
}

/** Mounts the list and the creation form into `main`. */
export function mountList(main, context) {
  context.title("Webhooks");
  const output = h("div", { class: "results", "data-state": "loading" }, h("p", {}, "Loading…"));
  const created = h("div", { class: "created-secret", id: "created-secret", tabindex: "-1" });
  let disposed = false;

  async function load() {
    try {
      const { data } = await get("/v1/admin/webhooks");
      if (disposed) return;
      output.replaceChildren(
        data.items.length
          ? tableRegion(
              "Webhooks",
              h(
                "table",
                { class: "webhooks" },
                h("caption", { class: "visually-hidden" }, "Webhook subscriptions"),
                h("thead", {}, h("tr", {}, ["Webhook", "URL", "Events", "State", "Deliveries", "Changed"].map((name) => h("th", { scope: "col" }, name)))),
                h(
                  "tbody",
                  {},
                  data.items.map((hook) =>
                    h(
                      "tr",
                      {},
                      h("th", { scope: "row" }, h("a", { href: routeLink(`/webhooks/${hook.id}`) }, hook.description || hook.id), hook.description ? h("span", { class: "subtitle" }, hook.id) : null),
                      h("td", { class: "url" }, h("code", {}, hook.url)),
                      h("td", {}, h("ul", { class: "fields" }, hook.events.map((event) => h("li", {}, h("code", {}, event))))),
                      h("td", {}, h("span", { class: `badge ${hook.enabled ? "wh-enabled" : "wh-disabled"}` }, hook.enabled ? "enabled" : "disabled")),
                      h("td", {}, healthText(hook.health)),
                      h("td", {}, time(hook.updatedAt), ` by ${hook.updatedBy}`),
                    ),
                  ),
                ),
              ),
            )
          : h("p", {}, "No webhook yet."),
      );
      output.dataset.state = "ready";
    } catch (error) {
      if (disposed) return;
      output.replaceChildren(problemView(error));
      output.dataset.state = "error";
    }
  }

  // -- a new webhook -------------------------------------------------------------------------------
  const readOnly = !context.canEdit;
  const viewer = readOnly ? context.viewerReasonID : undefined;
  const url = field("URL", h("input", { type: "url", name: "url", required: true, maxlength: "2048", autocomplete: "off", spellcheck: "false", disabled: readOnly }), {
    hint: "https://… (plain http only to loopback, when the operator allows it).",
    id: "webhook-url",
  });
  const description = field("Description", h("input", { type: "text", name: "description", maxlength: "500", autocomplete: "off", disabled: readOnly }), {
    hint: "What it is for, shown in lists and logs.",
    id: "webhook-description",
  });
  const eventsError = h("p", { class: "error", id: "webhook-events-error", hidden: true });
  const events = h(
    "fieldset",
    { class: "choices events", "aria-describedby": "webhook-events-error" },
    h("legend", {}, "Events"),
    EVENTS.map(([name, words]) =>
      h("label", {}, h("input", { type: "checkbox", name: "events", value: name, disabled: readOnly }), " ", h("code", {}, name), ` — ${words}`),
    ),
    eventsError,
  );
  const formProblem = h("div", {});
  const form = h(
    "form",
    {
      class: "webhook-form",
      "aria-labelledby": "new-webhook",
      novalidate: true,
      async onsubmit(event) {
        event.preventDefault();
        url.setError("");
        description.setError("");
        eventsError.hidden = true;
        formProblem.replaceChildren();
        const chosen = [...form.querySelectorAll("input[name=events]:checked")].map((box) => box.value);
        let invalid = null;
        if (!url.control.value.trim()) {
          url.setError("Give the receiver's URL.");
          invalid ??= url.control;
        }
        if (!chosen.length) {
          eventsError.textContent = "Choose at least one event.";
          eventsError.hidden = false;
          invalid ??= form.querySelector("input[name=events]");
        }
        if (invalid) return invalid.focus();
        try {
          const { data } = await post("/v1/admin/webhooks", { url: url.control.value.trim(), events: chosen, description: description.control.value.trim() });
          form.reset();
          created.replaceChildren(
            h("h3", {}, `Created ${data.id}`),
            h("p", {}, "Its signing secret, shown this once: give it to the receiver now (it verifies every delivery with it). To get another, rotate the secret."),
            h("p", {}, h("code", { class: "secret", id: "webhook-secret" }, data.secret)),
            h("p", {}, h("a", { href: routeLink(`/webhooks/${data.id}`) }, `Open ${data.id}: send a ping, see its deliveries`)),
          );
          announce(`Created webhook ${data.id}. Its secret is shown once.`);
          created.focus();
          load();
        } catch (error) {
          const targets = { "/url": url, "/description": description };
          let placed = false;
          if (error instanceof ApiError) {
            for (const item of error.errors) {
              const target = targets[item.pointer];
              if (target) {
                target.setError(item.detail);
                placed = true;
              } else if ((item.pointer || "").startsWith("/events")) {
                eventsError.textContent = item.detail;
                eventsError.hidden = false;
                placed = true;
              }
            }
          }
          formProblem.replaceChildren(problemView(error));
          announce(`Not created: ${error.message}`);
          (placed ? form.querySelector("[aria-invalid=true]") || url.control : url.control).focus();
        }
      },
    },
    h("h2", { id: "new-webhook" }, "New webhook"),
    url.root,
    description.root,
    events,
    formProblem,
    h("div", { class: "buttons" }, h("button", { type: "submit", class: "primary", "data-write": "true", disabled: readOnly, "aria-describedby": viewer }, "Create webhook")),
  );

  main.append(
    h("h1", { tabindex: "-1" }, "Webhooks"),
    h(
      "p",
      { class: "hint" },
      "Other systems hear about changes here: each delivery is signed (Standard Webhooks) and retried for a day. Receivers verify it as docs/webhooks.md says.",
    ),
    output,
    created,
    form,
  );
  load();
  return () => {
    disposed = true;
  };
}

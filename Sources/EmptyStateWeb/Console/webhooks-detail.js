// One webhook (#/webhooks/{id}): what it receives, enable or disable it (PUT with If-Match), send
// a ping, rotate its secret (the new one shown once), delete it, and its delivery log: each delivery with every attempt (code, latency, error,
// address) and a redeliver button. The log is read again after each step and on "Refresh".

import { ApiError, del, get, ifMatch, post, put, revisionOf, webhookPath } from "./api.js";
import { announce, h, problemView, routeLink, select, tableRegion, time } from "./dom.js";
import { confirmDialog } from "./part-dialog.js";

const PAGE_SIZE = 50;

/** One fact of a description list: its name and value, together (a grid cell). */
const fact = (name, ...value) => h("div", {}, h("dt", {}, name), h("dd", { dir: "auto" }, ...value));

function attemptsList(delivery) {
  if (!delivery.attempts.length) return h("span", {}, "not attempted yet");
  return h(
    "ol",
    { class: "attempts" },
    delivery.attempts.map((attempt) =>
      h(
        "li",
        { "data-status": attempt.statusCode ?? "none" },
        `#${attempt.number} `,
        time(attempt.startedAt),
        `: ${attempt.statusCode ? `HTTP ${attempt.statusCode}` : "no answer"}, ${attempt.latencyMs} ms`,
        attempt.address ? `, ${attempt.address}` : "",
        attempt.error ? h("span", { class: "attempt-error", dir: "auto" }, ` — ${attempt.error}`) : null,
      ),
    ),
  );
}

/** Mounts one webhook into `main`. */
export function mountDetail(main, id, context) {
  context.title(`Webhook ${id}`);
  const heading = h("h1", { tabindex: "-1" }, `Webhook ${id}`);
  const about = h("div", { class: "webhook", "data-state": "loading" }, h("p", {}, "Loading…"));
  const result = h("div", { class: "step-result", id: "step-result", tabindex: "-1", "aria-live": "polite" });
  const log = h("div", { class: "results", id: "deliveries", tabindex: "-1", "data-state": "loading" });
  const filter = select([["", "Every delivery"], ["pending", "Pending"], ["succeeded", "Succeeded"], ["failed", "Failed"]], "", { id: "delivery-status" });
  const readOnly = !context.canEdit;
  const write = { "data-write": "true", disabled: readOnly, "aria-describedby": readOnly ? context.viewerReasonID : undefined };
  let hook = null;
  let revision = null;
  let disposed = false;

  /** One step: done, the page is read again and focus goes to `focusID` (the step's result). */
  async function step(action, done, focusID = "step-result") {
    try {
      await action();
      result.replaceChildren(h("p", {}, done));
      announce(done);
      await load(focusID);
    } catch (error) {
      result.replaceChildren(problemView(error));
      announce(error.message);
      result.focus();
      if (error instanceof ApiError && error.status === 412) await load();
    }
  }

  function drawAbout() {
    const toggle = h("button", {
      type: "button",
      id: "toggle-webhook",
      ...write,
      onclick: () =>
        step(
          () => put(webhookPath(id), { url: hook.url, events: hook.events, description: hook.description, enabled: !hook.enabled }, { headers: ifMatch(revision) }),
          hook.enabled ? "Disabled: nothing is queued for it, and its pending deliveries wait." : "Enabled: deliveries resume.",
          "toggle-webhook",
        ),
    }, hook.enabled ? "Disable" : "Enable");
    const ping = h("button", {
      type: "button",
      id: "ping-webhook",
      class: "primary",
      ...write,
      onclick: () => step(() => post(webhookPath(id, "ping")), "Ping queued: it shows in the delivery log within a moment.", "deliveries"),
    }, "Send a ping");
    const rotate = h("button", {
      type: "button",
      id: "rotate-secret",
      ...write,
      async onclick() {
        const ok = await confirmDialog({
          title: `Give ${id} a new secret?`,
          text: "The new secret signs every delivery from now on; the old one keeps signing beside it for a day, so the receiver can switch without refusing a delivery. The new secret is shown once.",
          confirmLabel: "Rotate the secret",
        });
        if (!ok) return;
        try {
          const { data } = await post(webhookPath(id, "rotate-secret"), {}, { headers: ifMatch(revision) });
          await load();
          result.replaceChildren(
            h("p", {}, "The new signing secret, shown this once: give it to the receiver now. The old one signs beside it until ", time(data.previousSecretExpiresAt), "."),
            h("p", {}, h("code", { class: "secret", id: "webhook-secret" }, data.secret)),
          );
          announce("Secret rotated. The new one is shown once.");
          result.focus();
        } catch (error) {
          result.replaceChildren(problemView(error));
          result.focus();
          if (error instanceof ApiError && error.status === 412) await load();
        }
      },
    }, "Rotate secret…");
    const remove = h("button", {
      type: "button",
      id: "delete-webhook",
      ...write,
      async onclick() {
        const ok = await confirmDialog({ title: `Delete webhook ${id}?`, text: "Its secret, pending deliveries and delivery log go with it; nothing more is sent to it.", confirmLabel: "Delete" });
        if (!ok) return;
        try {
          await del(webhookPath(id), { headers: ifMatch(revision) });
          announce(`Deleted webhook ${id}.`);
          context.navigate("#/webhooks");
        } catch (error) {
          result.replaceChildren(problemView(error));
          result.focus();
        }
      },
    }, "Delete…");
    about.replaceChildren(
      h(
        "dl",
        { class: "facts" },
        fact("URL", h("code", {}, hook.url)),
        fact("Description", hook.description || "—"),
        fact("Events", hook.events.map((event, index) => [index ? ", " : "", h("code", {}, event)])),
        fact("State", h("span", { class: `badge ${hook.enabled ? "wh-enabled" : "wh-disabled"}`, id: "webhook-state" }, hook.enabled ? "enabled" : "disabled")),
        fact("Changed", time(hook.updatedAt), ` by ${hook.updatedBy} (revision ${revision})`),
      ),
      h("div", { class: "buttons" }, ping, toggle, rotate, remove),
    );
    about.dataset.state = "ready";
  }

  async function loadLog() {
    try {
      const { data } = await get(webhookPath(id, "deliveries"), { query: { status: filter.value, pageSize: PAGE_SIZE } });
      if (disposed) return;
      log.replaceChildren(
        h("p", { class: "summary" }, `${data.total} ${data.total === 1 ? "delivery" : "deliveries"}${data.total > data.items.length ? `, the newest ${data.items.length} shown` : ""}.`),
        data.items.length
          ? tableRegion(
              "Deliveries",
              h(
                "table",
                { class: "deliveries" },
                h("caption", { class: "visually-hidden" }, "Deliveries, newest first"),
                h("thead", {}, h("tr", {}, ["Event", "Status", "Attempts", "Queued", "Next attempt", "Send again"].map((name) => h("th", { scope: "col" }, name)))),
                h(
                  "tbody",
                  {},
                  data.items.map((delivery) =>
                    h(
                      "tr",
                      { "data-delivery": delivery.id, "data-status": delivery.status },
                      h("th", { scope: "row" }, h("code", {}, delivery.eventType), h("span", { class: "subtitle" }, delivery.id),
                        delivery.redeliveryOf ? h("span", { class: "subtitle" }, `redelivery of ${delivery.redeliveryOf}${delivery.requestedBy ? ` by ${delivery.requestedBy}` : ""}`) : null),
                      h("td", {}, h("span", { class: `badge wh-${delivery.status}` }, delivery.status)),
                      h("td", {}, attemptsList(delivery)),
                      h("td", {}, time(delivery.createdAt)),
                      h("td", {}, delivery.nextAttemptAt ? time(delivery.nextAttemptAt) : "—"),
                      h("td", {}, h("button", {
                        type: "button",
                        ...write,
                        "aria-label": `Redeliver ${delivery.eventType} ${delivery.id}`,
                        onclick: () => step(() => post(webhookPath(id, `deliveries/${delivery.id}/redeliver`)), `Redelivery of ${delivery.id} queued.`, "deliveries"),
                      }, delivery.status === "pending" ? "Attempt now" : "Redeliver")),
                    ),
                  ),
                ),
              ),
            )
          : h("p", {}, "Nothing was sent to it yet: send a ping to try it."),
      );
      log.dataset.state = "ready";
    } catch (error) {
      if (disposed) return;
      log.replaceChildren(problemView(error));
      log.dataset.state = "error";
    }
  }

  /** Reads the webhook and its log; `focusID` is focused once the webhook is drawn. */
  async function load(focusID) {
    try {
      const { data, headers } = await get(webhookPath(id));
      if (disposed) return;
      hook = data;
      revision = revisionOf(headers.get("ETag")) ?? data.revision;
      heading.textContent = `Webhook ${hook.description || id}`;
      drawAbout();
      if (focusID) document.getElementById(focusID)?.focus();
      await loadLog();
    } catch (error) {
      if (disposed) return;
      about.replaceChildren(error instanceof ApiError && error.status === 404 ? h("p", { role: "alert" }, `There is no webhook ${id}.`) : problemView(error));
      about.dataset.state = "error";
    }
  }

  filter.addEventListener("change", loadLog);
  main.append(
    heading,
    h("p", { class: "screen-links" }, h("a", { href: routeLink("/webhooks") }, "All webhooks")),
    result,
    about,
    h("h2", { id: "log-heading" }, "Delivery log"),
    h("div", { class: "log-controls" }, h("label", { for: "delivery-status" }, "Show"), filter, h("button", { type: "button", id: "refresh-log", onclick: loadLog }, "Refresh")),
    log,
  );
  load();
  return () => {
    disposed = true;
  };
}

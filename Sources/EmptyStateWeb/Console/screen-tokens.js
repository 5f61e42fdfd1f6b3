// Admin tokens (#/tokens), for admins: every token that works, wherever it comes from (never a
// secret), a form that makes one and shows its secret once with a copy button, and revocation
// after a confirmation. Only the store's tokens (made here, or PostgreSQL's generated first one)
// can be revoked; the others are removed where they are configured. Other roles get a note: the
// server answers them 403 anyway.

import { ApiError, del, get, post, seg } from "./api.js";
import { announce, field, h, problemView, select, tableRegion, time } from "./dom.js";
import { confirmDialog } from "./part-dialog.js";

const ROLES = ["viewer", "editor", "reviewer", "admin"];
const SOURCES = {
  configuration: "Configuration (flag or variable)",
  file: "Tokens file",
  generated: "Generated on first start",
  api: "Made here",
};

/** A `datetime-local` value (local time) as RFC 3339 UTC, or null when empty. */
const toInstant = (local) => (local ? new Date(local).toISOString() : null);

export function mount(main, _params, context) {
  context.title("Admin tokens");
  const heading = h("h1", { tabindex: "-1" }, "Admin tokens");
  if (context.session?.role !== "admin") {
    main.append(heading, h("p", { class: "notice" }, "Only an admin token manages tokens. Ask an admin to make or revoke one."));
    return;
  }

  let generation = 0;
  const problem = h("div");
  const list = h("div", { class: "results", "aria-busy": "true" }, h("p", {}, "Loading…"));
  const secretPanel = h("div");

  async function load() {
    const mine = ++generation;
    try {
      const { data } = await get("/v1/admin/tokens");
      if (mine !== generation) return;
      list.replaceChildren(table(data.items));
    } catch (error) {
      if (mine !== generation) return;
      list.replaceChildren(problemView(error));
    } finally {
      list.removeAttribute("aria-busy");
    }
  }

  function table(items) {
    const rows = items.map((token) =>
      h(
        "tr",
        {},
        h("th", { scope: "row" }, token.name),
        h("td", {}, token.role),
        h("td", {}, SOURCES[token.source] || token.source),
        h("td", {}, token.createdAt ? [time(token.createdAt), token.createdBy ? ` by ${token.createdBy}` : ""] : "—"),
        h("td", {}, time(token.lastUsedAt)),
        h("td", {}, time(token.expiresAt)),
        h("td", {}, state(token)),
      ),
    );
    return tableRegion(
      "Tokens",
      h(
        "table",
        { class: "tokens" },
        h("caption", { class: "visually-hidden" }, "Admin tokens: configured ones first, then the ones made here"),
        h("thead", {}, h("tr", {}, ["Name", "Role", "Source", "Created", "Last used", "Expires", "State"].map((name) => h("th", { scope: "col" }, name)))),
        h("tbody", {}, rows),
      ),
    );
  }

  function state(token) {
    if (token.revokedAt) return ["Revoked ", time(token.revokedAt), token.revokedBy ? ` by ${token.revokedBy}` : ""];
    const expired = token.expiresAt && new Date(token.expiresAt).getTime() <= Date.now();
    const label = expired ? "Expired" : "In force";
    if (!token.revocable) return label;
    return [label, " ", h("button", { type: "button", class: "quiet", onclick: () => revoke(token) }, `Revoke ${token.name}`)];
  }

  async function revoke(token) {
    const own = token.name === context.session?.name;
    const confirmed = await confirmDialog({
      title: `Revoke the token “${token.name}”?`,
      text: `It is refused from now on, on every replica, and the console sessions opened with it end. This cannot be undone.${own ? " It is the token you signed in with: you will be signed out." : ""}`,
      confirmLabel: "Revoke",
    });
    if (!confirmed) return;
    problem.replaceChildren();
    try {
      await del(`/v1/admin/tokens/${seg(token.id)}`);
      announce(`Token ${token.name} revoked.`);
      await load();
      heading.focus();
    } catch (error) {
      problem.replaceChildren(problemView(error));
      problem.querySelector("[role=alert]")?.setAttribute("tabindex", "-1");
      problem.querySelector("[role=alert]")?.focus();
    }
  }

  // The creation form.
  const fields = {
    name: field("Name", h("input", { type: "text", name: "name", required: true, maxlength: "64", autocomplete: "off", spellcheck: "false" }), {
      hint: "Who or what uses it (ci-2026-12): the author of every change made with it. Never reused.",
      id: "token-name",
    }),
    role: field("Role", select(ROLES, "viewer", { name: "role" }), { hint: "Viewer reads; editor changes; reviewer also approves; admin also manages tokens.", id: "token-role" }),
    expiresAt: field("Expires (optional)", h("input", { type: "datetime-local", name: "expiresAt" }), { hint: "Your local time. Empty: never.", id: "token-expires" }),
  };
  const formProblem = h("div");
  const submit = h("button", { type: "submit", class: "primary" }, "Create token");
  const form = h(
    "form",
    { class: "filters", "aria-labelledby": "new-token-heading", novalidate: true, onsubmit: create },
    h("h2", { id: "new-token-heading" }, "New token"),
    h("div", { class: "grid" }, Object.values(fields).map((item) => item.root)),
    formProblem,
    h("div", { class: "buttons" }, submit),
  );

  async function create(event) {
    event.preventDefault();
    for (const item of Object.values(fields)) item.setError("");
    formProblem.replaceChildren();
    const name = fields.name.control.value.trim();
    if (!name) {
      fields.name.setError("A name is required.");
      fields.name.control.focus();
      return;
    }
    submit.disabled = true;
    try {
      const { data } = await post("/v1/admin/tokens", {
        name,
        role: fields.role.control.value,
        expiresAt: toInstant(fields.expiresAt.control.value),
      });
      form.reset();
      showSecret(data);
      await load();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      let first = null;
      for (const item of error.errors) {
        const target = fields[(item.pointer || "").slice(1)];
        if (target) {
          target.setError(item.detail);
          first ||= target.control;
        }
      }
      if (first) first.focus();
      else formProblem.replaceChildren(problemView(error));
    } finally {
      submit.disabled = false;
    }
  }

  function showSecret(token) {
    const output = h("input", { type: "text", readOnly: true, value: token.secret, id: "new-token-secret", class: "secret", spellcheck: "false" });
    const copied = h("p", { class: "hint", role: "status" });
    const copy = h("button", {
      type: "button",
      async onclick() {
        try {
          await navigator.clipboard.writeText(token.secret);
          copied.textContent = "Copied.";
        } catch {
          output.select();
          copied.textContent = "Select and copy it yourself (Ctrl+C or ⌘C): the browser did not let the console copy it.";
        }
      },
    }, "Copy the token");
    const title = h("h2", { id: "secret-heading", tabindex: "-1" }, `Token “${token.name}” made: copy it now`);
    secretPanel.replaceChildren(
      h(
        "section",
        { class: "notice secret-panel", "aria-labelledby": "secret-heading" },
        title,
        h("p", {}, "This is the only time the console shows it: the service keeps only its SHA-256. Give it to whoever uses it, as Authorization: Bearer <token>."),
        h("label", { for: "new-token-secret" }, `The ${token.role} token “${token.name}”`),
        h("div", { class: "inline" }, output, copy),
        copied,
        h("div", { class: "buttons" }, h("button", { type: "button", onclick: () => { secretPanel.replaceChildren(); heading.focus(); } }, "Done: hide it")),
      ),
    );
    title.focus();
    announce(`Token ${token.name} made. Copy it now: it is shown only once.`);
  }

  main.append(
    heading,
    h("p", {}, "Tokens made here are kept as a hash and work on every replica; revoking one takes effect at once. Tokens of the configuration or the tokens file are listed but removed where they are configured."),
    problem,
    secretPanel,
    list,
    form,
  );
  load();
  return () => {
    generation += 1;
  };
}

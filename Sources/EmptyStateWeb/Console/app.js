// The admin console: signs in (a cookie session), then routes `#/…` to a screen. Each screen
// module exports mount(main, params, context) and may return an unmount function.
//
// Screens: catalogue (#/), edit (#/templates/{id}), history (#/templates/{id}/history),
// translations, app policies (#/policies/{platform}), audit log, numbers, experiments
// (#/experiments[/{id}]), change requests (#/changes[/{id}]), webhooks (#/webhooks[/{id}]),
// admin tokens (#/tokens, admins only). The server decides what a session may do; the console
// only mirrors it (a viewer's write controls are disabled, with the reason beside them).

import { del, get, onSessionEnded } from "./api.js";
import { announce, h, routeQuery } from "./dom.js";
import * as audit from "./screen-audit.js";
import * as changes from "./screen-changes.js";
import * as catalogue from "./screen-catalogue.js";
import * as edit from "./screen-edit.js";
import * as experiments from "./screen-experiments.js";
import * as history from "./screen-history.js";
import * as numbers from "./screen-numbers.js";
import * as policies from "./screen-policies.js";
import * as signin from "./screen-signin.js";
import * as tokens from "./screen-tokens.js";
import * as translations from "./screen-translations.js";
import * as webhooks from "./screen-webhooks.js";

const ROUTES = [
  [/^\/?$/, catalogue, "catalogue"],
  [/^\/templates\/([^/]+)$/, edit, "catalogue"],
  [/^\/templates\/([^/]+)\/history$/, history, "catalogue"],
  [/^\/translations$/, translations, "translations"],
  [/^\/policies(?:\/([^/]+))?$/, policies, "policies"],
  [/^\/audit$/, audit, "audit"],
  [/^\/numbers$/, numbers, "numbers"],
  [/^\/experiments(?:\/([^/]+))?$/, experiments, "experiments"],
  [/^\/changes(?:\/(\d+))?$/, changes, "changes"],
  [/^\/webhooks(?:\/([^/]+))?$/, webhooks, "webhooks"],
  [/^\/tokens$/, tokens, "tokens"],
];

const main = document.getElementById("main");
let unmount = null;
let firstScreen = true;

/** What every screen is given. */
const context = {
  session: null,
  /** Whether the session may change anything (an editor). */
  get canEdit() {
    // Roles are ordered: reviewers and admins may do everything an editor may.
    return ["editor", "reviewer", "admin"].includes(this.session?.role);
  },
  /** The id of the text that says why a write control is disabled (for aria-describedby). */
  viewerReasonID: "viewer-note",
  /** Sets the document title after the screen's heading. */
  title(text) {
    document.title = `${text} · Empty states console`;
  },
  navigate(hash) {
    if (location.hash === hash) route();
    else location.hash = hash;
  },
};

function showShell(signedIn) {
  document.getElementById("nav").hidden = !signedIn;
  document.getElementById("account").hidden = !signedIn;
  document.getElementById("viewer-note").hidden = !signedIn || context.canEdit;
  // Tokens are an admin's: the screen says so to others, who have no link to it.
  document.getElementById("nav-tokens").hidden = !signedIn || context.session?.role !== "admin";
  if (signedIn) {
    const session = context.session;
    document.getElementById("who").textContent = `${session.name} (${session.role})`;
  }
}

function mount(screen, params) {
  unmount?.();
  unmount = null;
  main.replaceChildren();
  unmount = screen.mount(main, params, context) || null;
  // After the first screen, a navigation moves focus to the new screen's heading, as a page
  // load would for a screen reader.
  if (!firstScreen) (main.querySelector("h1") || main).focus({ preventScroll: false });
  firstScreen = false;
}

function route() {
  if (!context.session) return;
  const hash = location.hash.replace(/^#/, "");
  const path = decodeURIComponent(hash.split("?")[0]);
  for (const link of document.querySelectorAll("[data-nav]")) link.removeAttribute("aria-current");
  for (const [pattern, screen, section] of ROUTES) {
    const match = pattern.exec(path);
    if (!match) continue;
    document.querySelector(`[data-nav="${section}"]`)?.setAttribute("aria-current", "page");
    mount(screen, { id: match[1], query: routeQuery() });
    return;
  }
  main.replaceChildren(h("h1", { tabindex: "-1" }, "Not found"), h("p", {}, "The console has no such screen. ", h("a", { href: "#/" }, "Go to the catalogue")));
  context.title("Not found");
}

function signIn(message) {
  context.session = null;
  showShell(false);
  mount(signin, {
    message,
    onSignedIn(session) {
      context.session = session;
      showShell(true);
      announce(`Signed in as ${session.name}, ${session.role}`);
      route();
    },
  }, context);
}

async function start() {
  try {
    // Nobody signed in answers 204 (no error in the browser's console); a session that has
    // ended, 401.
    const { data } = await get("/v1/admin/session");
    if (!data) return signIn();
    context.session = data;
    showShell(true);
    route();
  } catch {
    signIn();
  }
}

document.getElementById("sign-out").addEventListener("click", async () => {
  try {
    await del("/v1/admin/session");
  } finally {
    edit.forgetDrafts();
    signIn("You signed out.");
  }
});

document.getElementById("skip-link").addEventListener("click", (event) => {
  // The console's routes live in the hash: move focus instead of navigating to #main.
  event.preventDefault();
  (main.querySelector("h1") || main).focus();
});

onSessionEnded(() => {
  if (context.session) signIn("Your session has ended (signed out elsewhere, idle, or expired). Sign in again.");
});

addEventListener("hashchange", route);
start();

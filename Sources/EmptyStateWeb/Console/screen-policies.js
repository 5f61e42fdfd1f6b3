// App policies (update gates), edited like templates: the form, the server's verdict as you type
// (PUT ?validateOnly=true), a "which versions see what" table computed by the server's own
// decision code for sample versions of the draft, publishing through a diff with If-Match (or
// If-None-Match: * for a platform's first policy), a 412 rebased, and the history with rollback.

import { ApiError, get, ifMatch, ifRevision, post, put } from "./api.js";
import { diff, merge, setAt } from "./diff.js";
import { announce, debounce, field, h, routeLink, tableRegion, time } from "./dom.js";
import { conflictDialog, reviewDialog } from "./part-diff-view.js";

const PLATFORMS = [["ios", "iOS"], ["android", "Android"], ["web", "Web"]];
const STATE_TEXT = {
  ok: "nothing (ok)",
  updateAvailable: "optional update (optionalUpdateAvailable)",
  updateRequired: "update required (appUpdateRequired)",
  osUpdateRequired: "OS update required (osUpdateRequired)",
};
const FIELDS = [
  ["minimumVersion", "Minimum version", "Below it, apps must update."],
  ["latestVersion", "Latest version", "Below it (at or above the minimum), an update is offered."],
  ["minimumOSVersion", "Minimum OS version", "Optional: below it, the OS must update first."],
  ["blockedVersions", "Blocked versions", "Releases with a known bad bug, separated by commas: they must update."],
  ["storeUrl", "Store URL", "https://, the target of the update button."],
  ["rolloutPercentage", "Rollout (%)", "How many app instances in a hundred are offered the optional update."],
  ["askAgainAfterSeconds", "Ask again after (seconds)", "How long a dismissed optional update stays away."],
];

const NEW_POLICY = { minimumVersion: "1.0.0", latestVersion: "1.0.0", storeUrl: "https://", rolloutPercentage: 100, askAgainAfterSeconds: 86400 };

export function mount(main, { id, query }, context) {
  const platform = PLATFORMS.some(([value]) => value === id) ? id : "ios";
  const platformName = PLATFORMS.find(([value]) => value === platform)[1];
  context.title(`${platformName} app policy`);
  const readOnly = !context.canEdit;
  const state = { live: null, base: null, draft: null, errors: [], decisions: null, samples: query.samples || "" };
  const controls = new Map();
  const handles = new Map();
  const status = h("p", { "aria-live": "polite" });
  const decisions = h("section", { class: "decisions", "aria-labelledby": "decisions-heading" });
  const historySection = h("section", { "aria-labelledby": "policy-history-heading" });
  const problems = h("div", { class: "problems", role: "region", "aria-label": "Problems", hidden: true });
  let disposed = false;

  const path = `/v1/admin/app-policies/${platform}`;
  const writeProps = () => ({ "data-write": "true", disabled: readOnly, "aria-describedby": readOnly ? context.viewerReasonID : undefined });
  const dirty = () => JSON.stringify(state.base) !== JSON.stringify(state.draft);

  async function load() {
    try {
      const { data } = await get(path);
      state.live = data;
      state.base = structuredClone(data.policy);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) {
        status.replaceChildren(h("span", { role: "alert" }, error.message));
        return;
      }
      state.live = null;
      state.base = null;
    }
    if (disposed) return;
    state.draft = structuredClone(state.base ?? { platform, ...NEW_POLICY });
    fill();
    update({ validate: false });
    loadHistory();
  }

  /** The draft from the form. */
  function read() {
    const draft = { platform };
    for (const [name] of FIELDS) {
      const text = controls.get(name).value.trim();
      if (name === "blockedVersions") {
        const list = text.split(",").map((item) => item.trim()).filter(Boolean);
        if (list.length) draft.blockedVersions = list;
      } else if (name === "rolloutPercentage" || name === "askAgainAfterSeconds") {
        if (text !== "") draft[name] = Number(text);
      } else if (text !== "") {
        draft[name] = text;
      }
    }
    state.draft = draft;
  }

  function fill() {
    for (const [name] of FIELDS) {
      const value = state.draft[name];
      controls.get(name).value = Array.isArray(value) ? value.join(", ") : value ?? "";
    }
  }

  const later = debounce(() => check(), 350);

  function update({ validate = true } = {}) {
    const when = state.live ? [`Live: revision ${state.live.revision}, `, time(state.live.updatedAt), ` by ${state.live.updatedBy}.`] : ["No policy yet: every app of this platform is told ok. Publishing creates it."];
    status.replaceChildren(...when, dirty() || !state.live ? " Unpublished changes." : "");
    const publish = main.querySelector("#publish-policy");
    if (publish && !readOnly) publish.disabled = state.live ? !dirty() : false;
    if (validate) later();
    else later.now();
  }

  async function check() {
    const sent = JSON.stringify(state.draft);
    const samples = state.samples
      .split(",")
      .map((text) => text.trim())
      .filter(Boolean)
      .map((text) => {
        const [appVersion, osVersion] = text.split("@").map((part) => part.trim());
        return osVersion ? { appVersion, osVersion } : { appVersion };
      });
    const body = { policy: state.draft };
    if (samples.length) body.samples = samples;
    const calls = [post(`${path}/decisions`, body)];
    if (!readOnly) calls.push(put(path, state.draft, { query: { validateOnly: "true" } }));
    const [decided, validated] = await Promise.allSettled(calls);
    if (disposed || sent !== JSON.stringify(state.draft)) return;
    const errors = [];
    for (const result of [decided, validated]) {
      if (result?.status === "rejected") {
        for (const item of result.reason.errors || []) {
          const pointer = (item.pointer ?? "").replace(/^\/policy/, "");
          if (!errors.some((e) => e.pointer === pointer && e.detail === item.detail)) errors.push({ pointer, detail: item.detail });
        }
        if (!(result.reason.errors || []).length) errors.push({ pointer: "", detail: result.reason.message });
      }
    }
    state.errors = errors;
    showErrors();
    renderDecisions(decided.status === "fulfilled" ? decided.value.data : null);
  }

  function showErrors() {
    for (const handle of handles.values()) handle.setError("");
    const loose = [];
    for (const error of state.errors) {
      const name = error.pointer.split("/")[1];
      if (handles.has(name)) handles.get(name).setError(error.detail);
      else loose.push(error);
    }
    problems.hidden = !loose.length;
    problems.replaceChildren(...(loose.length ? [h("h2", {}, "Problems"), h("ul", {}, loose.map((e) => h("li", {}, h("code", {}, e.pointer || "/"), " ", e.detail)))] : []));
  }

  function renderDecisions(data) {
    const heading = h("h2", { id: "decisions-heading" }, "Which versions see what");
    if (!data) {
      decisions.replaceChildren(heading, h("p", {}, "Fix the policy to see what each version is told."));
      return;
    }
    const cell = (value) => h("td", { "data-state": value ?? "" }, value ? STATE_TEXT[value] : "— (no such instance)");
    decisions.replaceChildren(
      heading,
      h("p", {}, `Decided by the service's own code (what GET /v1/app-status answers), for the draft above. An instance is in the rollout when its bucket is below ${data.rolloutPercentage}.`),
      tableRegion(
        "Decisions",
        h(
          "table",
          { class: "decisions-table" },
          h("caption", {}, "What each sample version is told"),
          h("thead", {}, h("tr", {}, ["App version", "OS version", "In the rollout", "Outside it", "Without an instance id"].map((name) => h("th", { scope: "col" }, name)))),
          h(
            "tbody",
            {},
            data.rows.map((row) =>
              h("tr", {}, h("th", { scope: "row" }, row.appVersion), h("td", {}, row.osVersion ?? "not given"), cell(row.inRollout), cell(row.outsideRollout), cell(row.withoutInstanceId)),
            ),
          ),
        ),
      ),
    );
  }

  async function review() {
    read();
    later.cancel();
    await check();
    const ok = await reviewDialog({
      title: `Publish the ${platformName} app policy`,
      intro: state.live ? `Changes against revision ${state.live.revision}, which apps are told now.` : "The platform's first policy.",
      changes: diff(state.base ?? {}, state.draft),
      confirmLabel: "Publish",
      confirmDisabled: state.errors.length > 0,
      disabledReason: state.errors.length ? "Fix the problems the server found first." : "",
    });
    if (!ok) return;
    try {
      const headers = ifRevision(state.live?.revision);
      const { data } = await put(path, state.draft, { headers });
      state.live = data;
      state.base = structuredClone(data.policy);
      state.draft = structuredClone(data.policy);
      fill();
      update({ validate: false });
      loadHistory();
      announce(`Published revision ${data.revision} of the ${platformName} app policy.`);
    } catch (error) {
      if (error instanceof ApiError && error.status === 412) return conflict();
      announce(`Not published: ${error.message}`);
      status.replaceChildren(h("span", { role: "alert" }, `Not published: ${error.message}`));
    }
  }

  async function conflict() {
    const { data: current } = await get(path);
    const result = merge(state.base ?? {}, state.draft, current.policy);
    const answer = await conflictDialog({
      title: `The ${platformName} policy changed while you edited`,
      theirs: { revision: current.revision, document: current.policy },
      base: state.base ?? {},
      mine: state.draft,
      merge: result,
      who: current.updatedBy,
    });
    if (!answer.rebase) return;
    for (const item of result.conflicts) if (answer.choices.get(item.pointer) === "mine") setAt(result.merged, item.pointer, structuredClone(item.mine));
    state.live = current;
    state.base = structuredClone(current.policy);
    state.draft = result.merged;
    fill();
    update();
    announce(`Rebased onto revision ${current.revision}. Review and publish again.`);
  }

  async function loadHistory() {
    const heading = h("h2", { id: "policy-history-heading" }, "History");
    if (!state.live) {
      historySection.replaceChildren(heading, h("p", {}, "No revision yet."));
      return;
    }
    try {
      const { data } = await get(`${path}/revisions`, { query: { pageSize: 20 } });
      historySection.replaceChildren(
        heading,
        tableRegion(
          "Policy revisions",
          h(
            "table",
            {},
            h("caption", {}, `The last ${data.items.length} of ${data.total} revisions`),
            h("thead", {}, h("tr", {}, ["Revision", "Change", "When", "Who", "Fields", "Roll back"].map((name) => h("th", { scope: "col" }, name)))),
            h(
              "tbody",
              {},
              data.items.map((item) =>
                h(
                  "tr",
                  {},
                  h("th", { scope: "row" }, `r${item.revision}`),
                  h("td", {}, item.action),
                  h("td", {}, time(item.createdAt)),
                  h("td", {}, item.createdBy),
                  h("td", {}, item.changedFields.join(", ")),
                  h(
                    "td",
                    {},
                    item.revision === state.live.revision
                      ? "live"
                      : h("button", { type: "button", ...writeProps(), onclick: () => rollback(item.revision) }, `Roll back to r${item.revision}…`),
                  ),
                ),
              ),
            ),
          ),
        ),
      );
    } catch (error) {
      historySection.replaceChildren(heading, h("p", { role: "alert" }, error.message));
    }
  }

  async function rollback(target) {
    const { data } = await get(`${path}/revisions/${target}`);
    const ok = await reviewDialog({
      title: `Roll the ${platformName} policy back to revision ${target}`,
      intro: `What apps are told now (revision ${state.live.revision}) against revision ${target}.`,
      changes: diff(state.live.policy, data.policy),
      confirmLabel: "Roll back",
    });
    if (!ok) return;
    try {
      await post(`${path}/rollback`, { revision: target }, { headers: ifMatch(state.live.revision) });
      announce(`Rolled back to the content of revision ${target}.`);
      await load();
    } catch (error) {
      announce(`Not rolled back: ${error.message}`);
      await load();
    }
  }

  const form = h("form", { class: "editor", novalidate: true, onsubmit: (event) => event.preventDefault() });
  const grid = h("div", { class: "grid" });
  for (const [name, label, hint] of FIELDS) {
    const numeric = name === "rolloutPercentage" || name === "askAgainAfterSeconds";
    const control = h("input", { type: numeric ? "number" : "text", min: numeric ? "0" : undefined, max: name === "rolloutPercentage" ? "100" : undefined, readOnly, spellcheck: "false", autocomplete: "off" });
    const handle = field(label, control, { hint, id: `policy-${name}` });
    control.addEventListener("input", () => {
      read();
      update();
    });
    controls.set(name, control);
    handles.set(name, handle);
    grid.append(handle.root);
  }
  const samples = h("input", { type: "text", value: state.samples, spellcheck: "false", autocomplete: "off" });
  const samplesField = field("Sample versions", samples, { hint: "Optional, separated by commas; app@os for an OS version (5.2.0@16.4). Empty: versions around the policy's edges.", id: "policy-samples" });
  samples.addEventListener("input", () => {
    state.samples = samples.value;
    later();
  });
  // What-if samples change nothing on the server: a viewer may try them too.
  form.append(h("fieldset", { class: "group" }, h("legend", {}, "Policy"), grid), h("div", { class: "what-if" }, samplesField.root));

  main.append(
    h("h1", { tabindex: "-1" }, `${platformName} app policy`),
    h("nav", { class: "tabs", "aria-label": "Platforms" }, h("ul", {}, PLATFORMS.map(([value, label]) => h("li", {}, h("a", { href: routeLink(`/policies/${value}`), "aria-current": value === platform ? "page" : undefined }, label))))),
    status,
    h(
      "div",
      { class: "edit-layout" },
      h(
        "div",
        { class: "edit-form" },
        form,
        problems,
        h("div", { class: "publish-bar" }, h("button", { type: "button", id: "publish-policy", class: "primary", ...writeProps(), onclick: review }, "Review and publish…")),
      ),
      decisions,
    ),
    historySection,
  );
  load();
  return () => {
    disposed = true;
    later.cancel();
  };
}

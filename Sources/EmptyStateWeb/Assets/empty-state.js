// <empty-state>: the web counterpart of EmptyStateClient, served by empty-state-service.
//
//   <script type="module" src="(the service's origin)/v1/web/assets/empty-state.js"></script>
//   <empty-state template="connectionRefused" class="es-frame" style="block-size: 20rem"></empty-state>
//
// Attributes: template (id or alias, required); locale (default: the page's language, from the
// nearest lang attribute, then the browser's); heading-level (1-6, default 3); app-version
// (reported with events, default "web"); param-<name> fills the {name} placeholder;
// install-id (copy experiments: the install's id, sent as X-Install-ID; default: a UUID made once
// and kept in localStorage under "empty-state-install-id", or for the page's life when storage is
// unavailable); installed-at (with install-id: when that install began, RFC 3339; default: the
// time the stored id was made, kept beside it under "empty-state-installed-at", sent as
// X-Installed-At and with the events, so experiments that target new installs admit this browser;
// an id made by an earlier version of this file has no time and is never new). A template in a
// running experiment comes as this install's variant, with an
// `experiment` member that the events report (experimentId, variant, installId). Sending the
// header makes a cross-origin fetch non-simple: the browser sends a CORS preflight first, which
// the service answers (and the browser caches).
// preview-token (a change request's preview token, sent as X-Preview-Token): the element shows
// the request's proposed copy; it is fetched past the browser's cache, never as an experiment
// variant, and records no events (a QA page or the console, not users).
// It fetches the template's JSON (platform=web) from the service it was loaded from, renders the
// same markup as the service's HTML fragment (styled by empty-state.css, which it links once),
// and, like the Swift client:
//   - logs the spec's two lines with console.debug: EmptyState: displayed "<heading>" and
//     EmptyState: action "<label>" tapped;
//   - dispatches `empty-state-action` (bubbles; detail: templateId, actionId, type, target,
//     label) when a button is pressed: the page performs the action; `empty-state-load` and
//     `empty-state-error` after a fetch;
//   - sends `displayed` and `actionTapped` events to POST /v1/events in batches (20 events or
//     5 s), and what is left when the page is hidden or left (fetch with keepalive).
// Plain platform code: no dependency, no build step. Copy is set with textContent, never as
// markup; the icon's SVG (from the service's vetted set) is parsed and rebuilt from an
// allow-list before it is inserted.

const SERVICE = new URL("../../../", import.meta.url);
const EVENTS_URL = new URL("v1/events", SERVICE).href;
const BATCH_SIZE = 20;
const FLUSH_DELAY_MS = 5000;
const SVG_NS = "http://www.w3.org/2000/svg";

// What an icon may contain: the same allow-list as Tools/icons/generate.py.
const SVG_ELEMENTS = new Set(["svg", "path", "circle", "ellipse", "rect", "line", "polyline", "polygon", "g"]);
const SVG_ATTRIBUTES = new Set([
  "xmlns", "width", "height", "viewBox", "fill", "stroke", "stroke-width", "stroke-linecap",
  "stroke-linejoin", "fill-rule", "clip-rule", "opacity", "d", "cx", "cy", "r", "rx", "ry", "x",
  "y", "x1", "y1", "x2", "y2", "points", "aria-hidden", "focusable",
]);

function uuid() {
  if (crypto.randomUUID) return crypto.randomUUID();
  // Outside secure contexts randomUUID is missing; getRandomValues is not.
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const SESSION_ID = uuid();
const INSTALL_ID_KEY = "empty-state-install-id";
const INSTALLED_AT_KEY = "empty-state-installed-at";
let pageInstallID = null;
let pageInstalledAt = null;

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/** Now in RFC 3339 UTC, to the second (what X-Installed-At takes). */
const nowRFC3339 = () => new Date().toISOString().replace(/\.\d+Z$/, "Z");

/** This browser's install id for copy experiments: made once and kept in localStorage, so the
 *  same person keeps seeing the same variant; for the page's life when storage is unavailable
 *  (disabled, or a sandboxed frame). */
function storedInstallID() {
  try {
    let id = localStorage.getItem(INSTALL_ID_KEY);
    if (!id) {
      id = uuid();
      // The id's birth is the install's: kept beside it, written first so an id never exists
      // without its time (an id from before this was kept has none, and is not called new).
      localStorage.setItem(INSTALLED_AT_KEY, nowRFC3339());
      localStorage.setItem(INSTALL_ID_KEY, id);
    }
    return id;
  } catch {
    pageInstallID ??= uuid();
    pageInstalledAt ??= nowRFC3339();
    return pageInstallID;
  }
}

/** When the stored install id was made (RFC 3339), or null when that is not known. */
function storedInstalledAt() {
  storedInstallID();
  try {
    return localStorage.getItem(INSTALLED_AT_KEY);
  } catch {
    return pageInstalledAt;
  }
}

/** The events not yet sent, sent in batches; what is left goes when the page is hidden. */
const queue = {
  events: [],
  timer: 0,

  add(event) {
    this.events.push(event);
    if (this.events.length >= BATCH_SIZE) this.flush(false);
    else if (!this.timer) this.timer = setTimeout(() => this.flush(false), FLUSH_DELAY_MS);
  },

  /** Sends everything queued. `leaving`: the page is going away; keepalive lets the request
   *  outlive it (a CORS preflight included, which sendBeacon cannot do for a JSON body). */
  flush(leaving) {
    clearTimeout(this.timer);
    this.timer = 0;
    while (this.events.length) {
      const batch = this.events.splice(0, BATCH_SIZE);
      const body = JSON.stringify({ events: batch.map((e) => ({ ...e, sentAt: new Date().toISOString() })) });
      fetch(EVENTS_URL, {
        method: "POST",
        mode: "cors",
        credentials: "omit",
        keepalive: leaving,
        headers: { "Content-Type": "application/json" },
        body,
      })
        .then((response) => {
          // A 503 or a network failure: the same events (same ids) go again with the next batch;
          // the service counts them once. Other answers are final.
          if (response.status === 503 && !leaving) this.retry(batch);
        })
        .catch(() => {
          if (!leaving) this.retry(batch);
        });
    }
  },

  retry(batch) {
    this.events.unshift(...batch);
    if (!this.timer) this.timer = setTimeout(() => this.flush(false), FLUSH_DELAY_MS * 2);
  },
};

addEventListener("pagehide", () => queue.flush(true));
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "hidden") queue.flush(true);
});

function linkStylesheet() {
  const href = new URL("empty-state.css", import.meta.url).href;
  if (document.querySelector(`link[rel="stylesheet"][href="${CSS.escape(href)}"]`)) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = href;
  document.head.append(link);
}

/** The icon's markup parsed as SVG and rebuilt from the allow-list (nothing else survives). */
function sanitizedSVG(markup) {
  const parsed = new DOMParser().parseFromString(markup, "image/svg+xml").documentElement;
  if (parsed.namespaceURI !== SVG_NS || parsed.localName !== "svg") return null;
  const copy = (source) => {
    if (!SVG_ELEMENTS.has(source.localName) || source.namespaceURI !== SVG_NS) return null;
    const element = document.createElementNS(SVG_NS, source.localName);
    for (const attribute of source.attributes) {
      const value = attribute.value;
      if (!SVG_ATTRIBUTES.has(attribute.name) || /[^-\w .,#]/.test(value) || /url|script/i.test(value)) continue;
      element.setAttribute(attribute.name, value);
    }
    for (const child of source.children) {
      const made = copy(child);
      if (made) element.append(made);
    }
    return element;
  };
  const svg = copy(parsed);
  svg?.setAttribute("aria-hidden", "true");
  svg?.setAttribute("focusable", "false");
  return svg;
}

function element(name, attributes = {}, text) {
  const made = document.createElement(name);
  for (const [key, value] of Object.entries(attributes)) made.setAttribute(key, value);
  if (text !== undefined) made.textContent = text;
  return made;
}

/** The markup of HTMLRenderer.write (Swift), from the JSON representation. */
function render(template, headingLevel) {
  const section = element("section", {
    class: "es",
    "data-template": template.id,
    "data-style": template.style,
    // The copy experiment and variant, as the service's fragment writes them.
    ...(template.experiment ? { "data-experiment-id": template.experiment.id, "data-variant": template.experiment.variant } : {}),
    lang: template.locale,
    dir: template.direction,
  });
  const body = element("div", { class: "es-body" });
  section.append(body);
  const visual = template.visual || {};
  if (visual.type === "icon" && visual.svg) {
    const svg = sanitizedSVG(visual.svg);
    if (svg) {
      const box = element("div", { class: "es-visual" });
      if (visual.decorative === false && visual.label) {
        const labelled = element("span", { role: "img", "aria-label": visual.label });
        labelled.append(svg);
        box.append(labelled);
      } else {
        box.append(svg);
      }
      body.append(box);
    }
  } else if (visual.type === "illustration" && visual.url && /^https?:/i.test(new URL(visual.url, SERVICE).protocol)) {
    const box = element("div", { class: "es-visual" });
    box.append(
      element("img", {
        src: new URL(visual.url, SERVICE).href,
        alt: visual.decorative === false ? visual.label || "" : "",
        width: "360",
        height: "230",
        decoding: "async",
      }),
    );
    body.append(box);
  }
  body.append(element(`h${headingLevel}`, { class: "es-title" }, template.title));
  if (template.message) body.append(element("p", { class: "es-message" }, template.message));
  const actions = [...(template.actions || [])].sort(
    (a, b) => (b.role === "primary") - (a.role === "primary"),
  );
  if (actions.length) {
    const row = element("div", { class: "es-actions" });
    for (const action of actions) {
      const button = element(
        "button",
        { type: "button", class: "es-action", "data-role": action.role, "data-action-id": action.id, "data-action-type": action.type },
        action.label,
      );
      if (action.target !== undefined) button.setAttribute("data-action-target", action.target);
      row.append(button);
    }
    body.append(row);
  }
  return section;
}

export class EmptyStateElement extends HTMLElement {
  static observedAttributes = ["template", "locale", "heading-level", "install-id", "installed-at", "preview-token"];

  #template = null;
  #generation = 0;
  #observer = null;

  connectedCallback() {
    linkStylesheet();
    // Announced politely when the content appears (EastBlue: a live region).
    if (!this.hasAttribute("aria-live")) this.setAttribute("aria-live", "polite");
    this.addEventListener("click", this.#onClick);
    this.#load();
  }

  disconnectedCallback() {
    this.removeEventListener("click", this.#onClick);
    this.#observer?.disconnect();
  }

  attributeChangedCallback(name, previous, value) {
    if (this.isConnected && previous !== value) this.#load();
  }

  /** The template shown, as the service's JSON; null before it is loaded. */
  get template() {
    return this.#template;
  }

  #locale() {
    return this.getAttribute("locale") || this.closest("[lang]")?.getAttribute("lang") || navigator.language || "";
  }

  #installID() {
    return this.getAttribute("install-id") || storedInstallID();
  }

  /** The install's first time (RFC 3339), or null: the page's `installed-at` with its own
   *  `install-id` (ignored when not RFC 3339: the service would refuse the request), else the
   *  stored id's. */
  #installedAt() {
    if (this.getAttribute("install-id")) {
      const given = this.getAttribute("installed-at");
      return given && RFC3339.test(given) && !Number.isNaN(Date.parse(given)) ? given : null;
    }
    return storedInstalledAt();
  }

  #headingLevel() {
    const level = Number.parseInt(this.getAttribute("heading-level") || "3", 10);
    return Math.min(Math.max(Number.isNaN(level) ? 3 : level, 1), 6);
  }

  async #load() {
    const id = this.getAttribute("template");
    if (!id) return;
    const generation = ++this.#generation;
    const url = new URL(`v1/templates/${encodeURIComponent(id)}`, SERVICE);
    url.searchParams.set("platform", "web");
    const locale = this.#locale();
    if (locale) url.searchParams.set("locale", locale);
    for (const attribute of this.attributes) {
      if (attribute.name.startsWith("param-")) url.searchParams.set(`param.${attribute.name.slice(6)}`, attribute.value);
    }
    const preview = this.getAttribute("preview-token");
    // A preview skips the HTTP cache: a live copy kept for the same URL must not stand in for it.
    const request = preview
      ? { credentials: "omit", cache: "no-store", headers: { Accept: "application/json", "X-Preview-Token": preview } }
      : { credentials: "omit", headers: { Accept: "application/json", "X-Install-ID": this.#installID() } };
    const installedAt = preview ? null : this.#installedAt();
    if (installedAt) request.headers["X-Installed-At"] = installedAt;
    try {
      const response = await fetch(url, request);
      if (!response.ok) throw new Error(`${url.pathname}: HTTP ${response.status}`);
      const template = await response.json();
      if (generation !== this.#generation) return;
      this.#template = template;
      this.replaceChildren(render(template, this.#headingLevel()));
      this.dispatchEvent(new CustomEvent("empty-state-load", { bubbles: true, detail: { template } }));
      this.#watchDisplayed(template);
    } catch (error) {
      if (generation !== this.#generation) return;
      // What the page put inside the element stays: its own fallback.
      this.dispatchEvent(new CustomEvent("empty-state-error", { bubbles: true, detail: { error } }));
    }
  }

  /** `displayed` once the state is on screen (at least half of it), once per load. */
  #watchDisplayed(template) {
    this.#observer?.disconnect();
    const report = () => {
      console.debug(`EmptyState: displayed "${template.title}"`);
      const event = this.#event("displayed", template);
      if (event) queue.add(event);
    };
    if (typeof IntersectionObserver !== "function") return report();
    this.#observer = new IntersectionObserver((entries, observer) => {
      if (entries.some((entry) => entry.isIntersecting)) {
        observer.disconnect();
        report();
      }
    }, { threshold: 0.5 });
    this.#observer.observe(this);
  }

  #event(type, template, actionId) {
    const event = {
      id: uuid(),
      type,
      templateId: template.id,
      locale: template.locale,
      platform: "web",
      appVersion: this.getAttribute("app-version") || "web",
      sessionId: SESSION_ID,
      occurredAt: new Date().toISOString(),
    };
    // The service requires the revision (or ETag) of what was shown; the store always gives one.
    if (!template.revision) return null;
    // A preview is copy no user sees: the service refuses its events, so none is sent.
    if (this.hasAttribute("preview-token")) return null;
    event.revision = template.revision;
    if (actionId) event.actionId = actionId;
    // What was shown: the variant the service served for this install.
    if (template.experiment) {
      event.experimentId = template.experiment.id;
      event.variant = template.experiment.variant;
      event.installId = this.#installID();
      const installedAt = this.#installedAt();
      if (installedAt) event.installedAt = installedAt;
    }
    return event;
  }

  #onClick = (event) => {
    const button = event.target.closest?.("button[data-action-id]");
    const template = this.#template;
    if (!button || !template || !this.contains(button)) return;
    const action = template.actions.find((a) => a.id === button.dataset.actionId);
    if (!action) return;
    console.debug(`EmptyState: action "${action.label}" tapped`);
    const tapped = this.#event("actionTapped", template, action.id);
    if (tapped) queue.add(tapped);
    this.dispatchEvent(
      new CustomEvent("empty-state-action", {
        bubbles: true,
        composed: true,
        detail: { templateId: template.id, actionId: action.id, type: action.type, target: action.target, label: action.label },
      }),
    );
  };
}

/** The allow-list sanitizer of icon SVG, for pages that draw the service's icons themselves
 *  (the admin console's icon picker). */
export { sanitizedSVG };

/** Sends the queued events now (e.g. before an in-app navigation). */
export function flushEvents() {
  queue.flush(false);
}

if (!customElements.get("empty-state")) customElements.define("empty-state", EmptyStateElement);

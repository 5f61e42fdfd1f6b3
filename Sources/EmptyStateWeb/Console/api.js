// The admin API as the console calls it: same-origin fetch, the session cookie sent by the
// browser (never a token: the console does not hold one after signing in), JSON in and out,
// problem documents turned into ApiError. The browser adds Origin to every change, which the
// server checks (the CSRF defence); the console adds nothing for it.

/** An answer that is not 2xx: the status, the problem document (RFC 9457) and the headers. */
export class ApiError extends Error {
  constructor(status, problem, headers) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
    this.headers = headers;
  }

  /** The problem's field errors: [{pointer|parameter|header, detail}]. */
  get errors() {
    return Array.isArray(this.problem.errors) ? this.problem.errors : [];
  }
}

const listeners = new Set();

/** Called with no argument when an answer says the session has ended (401). */
export function onSessionEnded(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * One request to the service. `path` is absolute (`/v1/admin/...`); `query` an object whose
 * undefined and empty values are left out; `body` is sent as JSON.
 * Resolves to {status, headers, data} (data: parsed JSON, text, or null); rejects with ApiError.
 */
export async function request(method, path, { query, body, headers = {}, signal } = {}) {
  const url = new URL(path, location.origin);
  for (const [name, value] of Object.entries(query || {})) {
    if (value !== undefined && value !== null && value !== "") url.searchParams.set(name, String(value));
  }
  const init = { method, headers: { Accept: "application/json", ...headers }, credentials: "same-origin", signal };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(url, init);
  const type = response.headers.get("Content-Type") || "";
  let data = null;
  if (response.status !== 204 && response.status !== 304) {
    data = type.includes("json") ? await response.json().catch(() => null) : await response.text();
  }
  if (!response.ok && response.status !== 304) {
    if (response.status === 401 && !path.endsWith("/session")) for (const listener of listeners) listener();
    throw new ApiError(response.status, typeof data === "object" ? data : null, response.headers);
  }
  return { status: response.status, headers: response.headers, data };
}

export const get = (path, options) => request("GET", path, options);
export const put = (path, body, options = {}) => request("PUT", path, { ...options, body });
export const post = (path, body, options = {}) => request("POST", path, { ...options, body });
export const del = (path, options) => request("DELETE", path, options);

/** `"r3"` → 3. */
export function revisionOf(etag) {
  const match = /"r(\d+)"/.exec(etag || "");
  return match ? Number(match[1]) : null;
}

/** 3 → `"r3"`: the ETag the admin API gives revision 3 of a document. */
export const etagOf = (revision) => `"r${revision}"`;

/**
 * The headers of a write made against `revision`: `If-Match` its ETag, so the server answers 412
 * when someone else wrote since (every publish, rollback, status change and ship goes through
 * here). Pass them as `{ headers: ifMatch(revision) }`.
 */
export const ifMatch = (revision) => ({ "If-Match": etagOf(revision) });

/** The headers of a write that must create the document, never replace one: `If-None-Match: *`. */
export const ifAbsent = () => ({ "If-None-Match": "*" });

/** `ifMatch(revision)`, or `ifAbsent()` when there is no revision yet (a first policy). */
export const ifRevision = (revision) => (revision === null || revision === undefined ? ifAbsent() : ifMatch(revision));

/** A path segment, percent-encoded. */
export const seg = (text) => encodeURIComponent(text);

export const patch = (path, body, options = {}) => request("PATCH", path, { ...options, body });

/** A change request's path, or one of its actions' (`approve`, `schedule`, …). */
export const changeRequestPath = (id, action = "") => `/v1/admin/change-requests/${seg(String(id))}${action ? `/${action}` : ""}`;

/** A webhook's path, or one below it (`ping`, `deliveries`, …). */
export const webhookPath = (id, rest = "") => `/v1/admin/webhooks/${seg(id)}${rest ? `/${rest}` : ""}`;

/** Whether `error` is the problem `slug` (`urn:empty-state:problem:<slug>`). */
export const isProblem = (error, slug) => error instanceof ApiError && error.problem.type === `urn:empty-state:problem:${slug}`;

/**
 * The approvals the review rules ask of a change that moves a template from category `before`
 * to `after` (the larger of the two, as the server decides: docs/review.md).
 */
export function approvalsNeeded(rules, ...categories) {
  const rule = (category) => rules.categories?.[category] ?? rules.requiredApprovals ?? 0;
  return Math.max(0, ...categories.filter(Boolean).map(rule));
}

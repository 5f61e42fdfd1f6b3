import EmptyStateCore
import EmptyStateStore
import HTTPServer
import JSONCoding
import Logging
import Synchronization

/// The preview channel: a caller presenting a change request's preview token (`X-Preview-Token`)
/// on the client API is served the request's proposed copy over what is live.
///
/// Every presented token is read through the store (one indexed lookup of its SHA-256 and the
/// request, in one read transaction), never from memory: a token made on one replica works on
/// every other at once, and a revocation, an expiry or the request's end (rejected, withdrawn,
/// published) takes effect on every replica from the next request, with no feed to wait for.
/// Preview traffic is a few QA devices, so the read costs nothing that matters; requests
/// without the header never reach this type (`ClientAPI.previewing`).
///
/// The served snapshot is the live one with the request's templates (and app policies) applied
/// in memory, the way a publication would apply them, and without experiments: a preview shows
/// the request's own copy, never a variant. It is made once per request revision and live
/// snapshot, and kept for the next preview requests (`capacity` requests at most).
final class PreviewChannel: Sendable {
    /// The request header that carries the token.
    static let header = "X-Preview-Token"
    /// The response header that marks an answer as a preview: `change-request=12; version=3`.
    static let markHeader = "X-Preview"
    /// What every preview answer says to caches: made for this caller, kept by nobody.
    static let cacheControl = "private, no-store"
    /// The longest value looked up; a longer one is refused without a store read.
    static let maximumTokenLength = 256
    /// How a token begins, so that secret scanners and people recognize one.
    static let secretPrefix = "esp_"

    /// A request's preview as served: the snapshot, and what marks its answers.
    struct Preview: Sendable {
        let changeRequestID: Int
        let version: Int
        /// The request's revision: each action on it (an edit, a new token) is one.
        let revision: Int
        let snapshot: CatalogueSnapshot

        /// The ETag of a preview answer whose live-built representation has `etag`: it names
        /// the request and its revision, and starts with `preview-`, which no live ETag (a
        /// content hash in hex) can, so a preview answer never matches a live one.
        func etag(_ etag: String) -> String {
            let inner = etag.hasPrefix("\"") && etag.hasSuffix("\"") ? String(etag.dropFirst().dropLast()) : etag
            return "\"preview-\(changeRequestID)-\(revision)-\(inner)\""
        }

        /// The `X-Preview` header's value.
        var mark: String { "change-request=\(changeRequestID); version=\(version)" }
    }

    private struct Made {
        let live: CatalogueSnapshot
        let revision: Int
        let preview: Preview
    }

    private let store: any TemplateStoring
    private let logger: Logger
    private let capacity: Int
    private let made = Mutex<[Int: Made]>([:])

    init(store: any TemplateStoring, logger: Logger, capacity: Int = 16) {
        self.store = store
        self.logger = logger
        self.capacity = capacity
    }

    /// A new token's secret: 256 random bits, base64url, after `secretPrefix`.
    static func newSecret() -> String {
        secretPrefix + ConsoleSessions.newID()
    }

    /// The preview `secret` opens over `live`.
    /// - Returns: the preview, or the problem to answer: 401 for a token that does not work
    ///   (unknown, revoked, expired, or its request no longer open), 409 when the request's
    ///   changes no longer fit the live catalogue, 503 when the store cannot be read.
    func preview(_ secret: String, live: CatalogueSnapshot, requestID: String) -> Result<Preview, ProblemDetails> {
        guard !secret.isEmpty, secret.utf8.count <= Self.maximumTokenLength else {
            return .failure(Self.refused("not a preview token"))
        }
        let found: (PreviewTokenRecord, StoredChangeRequest)?
        do {
            found = try store.readCatalogue { edits in
                guard let token = try edits.previewToken(secretSHA256: SecretDigest.sha256Hex(secret)),
                    let request = try edits.changeRequest(token.changeRequestID)
                else { return nil }
                return (token, request)
            }
        } catch {
            logger.error(
                "preview token not read",
                metadata: ["request.id": "\(requestID)", "error": "\(error)"]
            )
            return .failure(
                ProblemDetails(
                    status: 503,
                    slug: "store-unavailable",
                    title: "Service Unavailable",
                    detail: "The preview token could not be checked. Retry; answers without the token are unaffected."
                )
            )
        }
        guard let (token, stored) = found else { return .failure(Self.refused("no such preview token")) }
        if token.revokedAt != nil { return .failure(Self.refused("revoked")) }
        if token.expiresAt <= Timestamp.nowMilliseconds() {
            return .failure(Self.refused("expired at \(Timestamp.format(milliseconds: token.expiresAt))"))
        }
        // `approved` is never stored: an approved request is `open`.
        guard stored.request.state == .open else {
            return .failure(
                Self.refused("change request #\(stored.request.id) is \(stored.request.state.rawValue)")
            )
        }
        let id = stored.request.id
        if let kept = made.withLock({ $0[id] }), kept.live === live, kept.revision == stored.revision {
            return .success(kept.preview)
        }
        switch Self.snapshot(of: stored.request, over: live) {
        case .failure(let problem): return .failure(problem)
        case .success(let snapshot):
            let preview = Preview(
                changeRequestID: id,
                version: stored.request.version,
                revision: stored.revision,
                snapshot: snapshot
            )
            made.withLock { made in
                if made[id] == nil, made.count >= capacity { made.removeAll() }
                made[id] = Made(live: live, revision: stored.revision, preview: preview)
            }
            return .success(preview)
        }
    }

    /// `live` with `request`'s templates and app policies applied, in the request's order, and
    /// no experiments. A change whose template is no longer live (strings of a deleted
    /// template) is left out, as its publication would refuse it.
    static func snapshot(
        of request: ChangeRequest,
        over live: CatalogueSnapshot
    ) -> Result<CatalogueSnapshot, ProblemDetails> {
        var snapshot = live
        for (index, change) in request.changes.enumerated() {
            let next: CatalogueSnapshot?
            switch change.target {
            case .template(let id):
                guard case .success(let template) = TemplateParser.parse(change.document ?? .null, expectedID: id)
                else { return .failure(unfit(request.id, index: index, "the proposed template no longer parses")) }
                next = snapshot.applying(.upsert(stored(template, over: snapshot, request)))?.snapshot
            case .templateStrings(let id, _):
                guard let entry = snapshot.entry(named: id), entry.template.id == id,
                    let merged = ChangeRequestDiff.proposedDocument(change, live: entry.template.document)
                else { continue }
                guard case .success(let template) = TemplateParser.parse(merged, expectedID: id) else {
                    return .failure(
                        unfit(request.id, index: index, "the proposed strings do not fit the live template")
                    )
                }
                next = snapshot.applying(.upsert(stored(template, over: snapshot, request)))?.snapshot
            case .templateDeletion(let id):
                guard let revision = snapshot.revision(of: id) else { continue }
                next = snapshot.applying(.remove(id: id, revision: revision + 1))?.snapshot
            case .appPolicy(let platform):
                guard
                    case .success(let policy) = AppPolicy.parse(change.document ?? .null, expectedPlatform: platform)
                else { return .failure(unfit(request.id, index: index, "the proposed app policy no longer parses")) }
                let revision = (snapshot.appStatus.policy(for: platform)?.revision ?? 0) + 1
                next =
                    snapshot.applying(
                        policy: StoredAppPolicy(
                            policy: policy,
                            revision: revision,
                            updatedAt: request.updatedAt,
                            updatedBy: request.author
                        )
                    ).snapshot
            case .experiment:
                // A preview is never in an experiment: it shows the request's copy itself.
                continue
            }
            guard let next else {
                return .failure(
                    unfit(request.id, index: index, "an id or alias it uses belongs to another live template")
                )
            }
            snapshot = next
        }
        return .success(snapshot.withoutExperiments())
    }

    /// `template` as a publication of `request` would store it, one revision after what is served.
    private static func stored(
        _ template: Template,
        over snapshot: CatalogueSnapshot,
        _ request: ChangeRequest
    )
        -> StoredTemplate
    {
        StoredTemplate(
            template: template,
            revision: (snapshot.revision(of: template.id) ?? 0) + 1,
            updatedAt: request.updatedAt,
            updatedBy: request.author
        )
    }

    /// 401: the token does not open a preview, for `reason`.
    static func refused(_ reason: String) -> ProblemDetails {
        ProblemDetails(
            status: 401,
            slug: "invalid-preview-token",
            title: "Invalid Preview Token",
            detail:
                "The \(header) header does not open a preview (\(reason)). Ask an editor for a new token, or send none to be served live copy.",
            errors: [.init(.header(header), reason)]
        )
    }

    /// The `WWW-Authenticate` challenge of a refused token (RFC 9110 asks one of every 401).
    static let challenge = (name: "WWW-Authenticate", value: #"PreviewToken realm="empty-state-preview""#)

    /// 409: change `index` of request `id` cannot be previewed over the live catalogue.
    private static func unfit(_ id: Int, index: Int, _ reason: String) -> ProblemDetails {
        ProblemDetails(
            status: 409,
            slug: "preview-conflict",
            title: "Preview Conflict",
            detail:
                "Change request #\(id) cannot be previewed over what is live now: \(reason). Rebase or edit the request.",
            errors: [.init(.header(header), "change \(index): \(reason)")],
            extensions: [("changeRequestId", .number(Double(id))), ("change", .number(Double(index)))]
        )
    }
}

import EmptyStateCore
import EmptyStateStore
import HTTPServer
import JSONCoding

/// `/v1/admin/change-requests/{id}/preview-tokens`: the tokens a QA device or the console
/// presents on the client API (`X-Preview-Token`) to be served a change request's copy before it
/// ships (`PreviewChannel`). Editors and above make, list and revoke them; viewers get 403.
///
/// The secret is shown once, in the 201 of its creation: the store keeps only its SHA-256. Each
/// creation and revocation is a revision of the request (its audit trail and, on PostgreSQL, the
/// change feed). A token works while it is unexpired, unrevoked, and its request is open or
/// approved: a rejected, withdrawn or published request's tokens are refused.
extension AdminAPI {
    /// A token's lifetime when the body names none: a working week of QA plus a weekend.
    static let defaultPreviewLifetimeHours = 168
    /// The longest lifetime a token may be given (30 days): a forgotten token on a lost device
    /// stops working on its own.
    static let maximumPreviewLifetimeHours = 720
    /// The label of a token made without one.
    static let defaultPreviewLabel = "Preview"
    static let maximumPreviewLabelLength = 100

    func registerPreviewTokens(on router: inout Router) {
        let base = "/v1/admin/change-requests/{id}/preview-tokens"
        router.add(
            .post,
            base,
            blocking: true,
            route(.editor, subject: .changeRequest) { try createPreviewToken($0, actor: $1) }
        )
        router.get(
            base,
            blocking: true,
            route(.editor, subject: .changeRequest) { request, _ in try listPreviewTokens(request) }
        )
        router.add(
            .delete,
            base + "/{token}",
            blocking: true,
            route(.editor, subject: .changeRequest) { try revokePreviewToken($0, actor: $1) }
        )
    }

    // MARK: - Handlers

    private func createPreviewToken(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let id = try changeRequestID(request)
        let document = try bodyObject(request, allowed: ["label", "lifetimeHours"], optional: true)
        let label =
            try bodyText(document, "label", required: false, maximum: Self.maximumPreviewLabelLength)
            .flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultPreviewLabel
        var hours = Self.defaultPreviewLifetimeHours
        if let value = document["lifetimeHours"] {
            guard case .number(let number) = value, let whole = Int(exactly: number),
                (1...Self.maximumPreviewLifetimeHours).contains(whole)
            else {
                throw AdminProblems.unprocessable(
                    [
                        .init(
                            .pointer("/lifetimeHours"),
                            "a whole number of hours from 1 to \(Self.maximumPreviewLifetimeHours)"
                        )
                    ],
                    subject: .changeRequest
                )
            }
            hours = whole
        }
        let secret = PreviewChannel.newSecret()
        let expiresAt = Timestamp.nowMilliseconds() + Int64(hours) * 3_600_000
        let (stored, token) = try store.write { edits in
            try edits.createPreviewToken(
                for: id,
                name: label,
                secretSHA256: SecretDigest.sha256Hex(secret),
                expiresAt: expiresAt,
                actor: actor.name
            )
        }
        log(
            "preview token created",
            stored,
            actor: actor,
            request: request,
            extra: ["preview_token.id": "\(token.id)", "preview_token.expires_at": "\(expiresAt)"]
        )
        return try .json(
            PreviewTokenBody(token, secret: secret),
            status: 201,
            headers: [("Location", "/v1/admin/change-requests/\(id)/preview-tokens/\(token.id)")]
        )
    }

    private func listPreviewTokens(_ request: HTTPRequest) throws -> HTTPResponse {
        let id = try changeRequestID(request)
        let tokens = try store.readCatalogue { edits in
            guard try edits.changeRequest(id) != nil else { throw ChangeRequestError.notFound(id: id) }
            return try edits.previewTokens(of: [id])
        }
        return try .json(PreviewTokenList(items: tokens.map { PreviewTokenBody($0, secret: nil) }))
    }

    private func revokePreviewToken(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let id = try changeRequestID(request)
        guard let tokenID = Int(request.pathParameters["token"] ?? ""), tokenID > 0 else {
            throw ChangeRequestError.unknownPreviewToken(id: id, token: 0)
        }
        let (stored, token) = try store.write { edits in
            let token = try edits.revokePreviewToken(tokenID, of: id, actor: actor.name)
            guard let stored = try edits.changeRequest(id) else { throw ChangeRequestError.notFound(id: id) }
            return (stored, token)
        }
        log(
            "preview token revoked",
            stored,
            actor: actor,
            request: request,
            extra: ["preview_token.id": "\(token.id)"]
        )
        return HTTPResponse(status: 204, headers: [("Cache-Control", "no-store")])
    }
}

/// A preview token as the admin API shows it; `token` (the secret) only in the 201 of its
/// creation.
struct PreviewTokenBody: Encodable {
    var id: Int
    var changeRequestId: Int
    var label: String
    var token: String?
    /// The header a client sends it in.
    var header = PreviewChannel.header
    var createdBy: String
    var createdAt: String
    var expiresAt: String
    var revokedAt: String?
    var revokedBy: String?
    /// Whether it works now as far as the token goes (unrevoked, unexpired); the request's state
    /// decides too.
    var active: Bool

    init(_ record: PreviewTokenRecord, secret: String?) {
        id = record.id
        changeRequestId = record.changeRequestID
        label = record.name
        token = secret
        createdBy = record.createdBy
        createdAt = record.createdAt
        expiresAt = Timestamp.format(milliseconds: record.expiresAt)
        revokedAt = record.revokedAt
        revokedBy = record.revokedBy
        active = record.revokedAt == nil && record.expiresAt > Timestamp.nowMilliseconds()
    }

    private enum CodingKeys: String, CodingKey {
        case id, changeRequestId, label, token, header, createdBy, createdAt, expiresAt, revokedAt, revokedBy, active
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(changeRequestId, forKey: .changeRequestId)
        try container.encode(label, forKey: .label)
        // Present only when shown: a list never carries the member at all.
        try container.encodeIfPresent(token, forKey: .token)
        try container.encode(header, forKey: .header)
        try container.encode(createdBy, forKey: .createdBy)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(expiresAt, forKey: .expiresAt)
        // Always present, null while not revoked.
        try container.encode(revokedAt, forKey: .revokedAt)
        try container.encode(revokedBy, forKey: .revokedBy)
        try container.encode(active, forKey: .active)
    }
}

/// `GET …/preview-tokens`: every token of the request, revoked and expired ones included, oldest first.
struct PreviewTokenList: Encodable {
    var items: [PreviewTokenBody]
}

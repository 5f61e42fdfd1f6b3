/// An admin token created through the admin API (`POST /v1/admin/tokens`), as the store keeps
/// it: the SHA-256 of its secret, never the secret. On PostgreSQL the first token a start
/// generates is one too (created by `first start`).
///
/// Times are milliseconds since the epoch. A token is in force while it is neither revoked nor
/// past `expiresAt` (`isInForce(at:)`).
package struct StoredAdminToken: Sendable, Equatable {
    /// `tok_` and 16 hex digits: what `DELETE /v1/admin/tokens/{id}` names.
    package var id: String
    /// Who the token belongs to: the author of every change made with it. Unique among the
    /// store's tokens, revoked ones included, so the audit trail never names two tokens alike.
    package var name: String
    /// `AdminToken.Role`'s raw value.
    package var role: String
    /// Lowercase hex of the SHA-256 of the secret's UTF-8 bytes (`SecretDigest.sha256Hex`).
    package var secretSHA256: String
    package var createdBy: String
    package var createdAt: Int64
    package var expiresAt: Int64?
    package var revokedAt: Int64?
    package var revokedBy: String?
    /// When it last authenticated a request, to within `AdminTokenUse.interval` (it is written
    /// at most once a minute per token and replica).
    package var lastUsedAt: Int64?

    package init(
        id: String,
        name: String,
        role: String,
        secretSHA256: String,
        createdBy: String,
        createdAt: Int64,
        expiresAt: Int64? = nil,
        revokedAt: Int64? = nil,
        revokedBy: String? = nil,
        lastUsedAt: Int64? = nil
    ) {
        self.id = id
        self.name = name
        self.role = role
        self.secretSHA256 = secretSHA256
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.revokedBy = revokedBy
        self.lastUsedAt = lastUsedAt
    }

    /// The author of the first token a PostgreSQL start generates (`PostgresAdminTokens`).
    package static let firstStartAuthor = "first start"

    /// Whether the token authenticates requests at `now` (ms).
    package func isInForce(at now: Int64) -> Bool {
        revokedAt == nil && (expiresAt.map { now < $0 } ?? true)
    }

    /// A new token id: `tok_` and 64 random bits as 16 hex digits.
    package static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        let hex = String(generator.next() as UInt64, radix: 16)
        return "tok_" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// The admin tokens of the store as the server reads them: all of them at start, after each
/// change, and when another replica changed them (the change feed); and their last use, written
/// in batches. Both template stores implement it, on the templates database, because tokens are
/// created and revoked in catalogue transactions (`CatalogueWrite+AdminTokens`), with a revision
/// that puts each change in the audit trail.
package protocol AdminTokenStoring: Sendable {
    /// Every token the store keeps, revoked ones included, oldest first.
    func adminTokens() throws(StoreError) -> [StoredAdminToken]

    /// Records when tokens were last used, by token id: a later time replaces an earlier one,
    /// never the reverse (replicas write in any order). A token that is gone is skipped.
    func recordAdminTokenUse(_ uses: [String: Int64]) throws(StoreError)
}

/// What a catalogue transaction provides to the writes of admin tokens beside their documents:
/// the `admin_token` row of each, read and written under the transaction's write lock (so a
/// name is checked and taken in one step). A requirement of every `CatalogueTransaction`, in a
/// protocol of its own, as `WebhookTransaction` is.
package protocol AdminTokenTransaction {
    /// Every token of the store, revoked ones included (a handful of rows), as this
    /// transaction sees them.
    func adminTokenRows() throws(StoreError) -> [StoredAdminToken]
    /// Inserts `token` (a new id and name).
    func insertAdminToken(_ token: StoredAdminToken) throws(StoreError)
    /// Marks token `id` revoked at `at` (ms) by `by`.
    func revokeAdminToken(id: String, at: Int64, by: String) throws(StoreError)
}

extension AdminTokenTransaction {
    /// A transaction that keeps no admin tokens (a test's recording transaction) refuses them;
    /// both backends implement these.
    package func adminTokenRows() throws(StoreError) -> [StoredAdminToken] {
        throw .database("this transaction keeps no admin tokens")
    }

    package func insertAdminToken(_ token: StoredAdminToken) throws(StoreError) {
        throw .database("this transaction keeps no admin tokens")
    }

    package func revokeAdminToken(id: String, at: Int64, by: String) throws(StoreError) {
        throw .database("this transaction keeps no admin tokens")
    }
}

/// Admin tokens as documents of the catalogue's tables (kind `admin-token`, id
/// `admin-token:tok_…`): what their revisions hold, never a secret or its hash.
extension StoredDocuments {
    package static let adminTokenKind = DocumentKind.adminToken.rawValue
    package static let adminTokenPrefix = "admin-token:"

    /// The store id of token `id`.
    package static func adminTokenDocumentID(_ id: String) -> String { adminTokenPrefix + id }

    /// The token id a store id names; `nil` for any other kind of document.
    package static func adminTokenName(documentID: String) -> String? {
        documentID.hasPrefix(adminTokenPrefix) ? String(documentID.dropFirst(adminTokenPrefix.count)) : nil
    }
}

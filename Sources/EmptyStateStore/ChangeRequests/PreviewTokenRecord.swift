/// A preview token of a change request as the store keeps it: only the SHA-256 of its secret,
/// who made it and until when it is valid. A caller presenting the secret on the client API
/// (`X-Preview-Token`) is served the request's copy over what is live.
package struct PreviewTokenRecord: Sendable, Equatable {
    package var id: Int
    package var changeRequestID: Int
    /// What the token is for (`QA iPhone 15`), as its maker named it.
    package var name: String
    /// Lowercase hex SHA-256 of the secret (`SecretDigest.sha256Hex`).
    package var secretSHA256: String
    package var createdBy: String
    /// `Timestamp.now()`.
    package var createdAt: String
    /// Milliseconds since the epoch after which the token is refused.
    package var expiresAt: Int64
    /// When and by whom it was revoked; `nil` while it is not.
    package var revokedAt: String?
    package var revokedBy: String?

    package init(
        id: Int,
        changeRequestID: Int,
        name: String,
        secretSHA256: String,
        createdBy: String,
        createdAt: String,
        expiresAt: Int64,
        revokedAt: String? = nil,
        revokedBy: String? = nil
    ) {
        self.id = id
        self.changeRequestID = changeRequestID
        self.name = name
        self.secretSHA256 = secretSHA256
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
        self.revokedBy = revokedBy
    }
}

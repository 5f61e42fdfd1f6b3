import JSONCoding

/// The writes of admin tokens, as edits of a catalogue transaction: the token's row
/// (`admin_token`, the hash of its secret) and a revision of its document (name, role, expiry,
/// and once revoked when), so each creation and revocation is in the audit trail with its author,
/// and other replicas hear of it through the change feed at once.
extension CatalogueWrite {
    /// Why a token cannot be revoked: it is the last admin token in force, and revoking it
    /// would leave nobody able to manage tokens (nor the review rules).
    package struct LastAdminToken: Error, Sendable {
        package var id: String
    }

    /// Creates `token` (a new id, `StoredAdminToken.newID()`).
    /// - Parameter reserved: names taken outside the store (the configured tokens').
    /// - Throws: `.alreadyExists(id: name, …)` when a token of the store has its name (revoked
    ///   ones included: a name is the author of changes, never reused) or it is in `reserved`.
    package func createAdminToken(
        _ token: StoredAdminToken,
        reserved: Set<String> = []
    ) throws(StoreError) -> StoredAdminToken {
        let taken = try transaction.adminTokenRows().contains { $0.name == token.name }
        if taken || reserved.contains(token.name) { throw .alreadyExists(id: token.name, revision: 0) }
        try transaction.insertAdminToken(token)
        let rowID = StoredDocuments.adminTokenDocumentID(token.id)
        queue(
            RevisionWrite(
                documentID: rowID,
                kind: StoredDocuments.adminTokenKind,
                revision: (try current(rowID, kind: .adminToken)?.revision ?? 0) + 1,
                action: .create,
                document: StoredDocuments.text(of: Self.document(token)),
                changedFields: StoredDocuments.changedFieldsText(["/"]),
                at: Timestamp.now(),
                by: token.createdBy
            ),
            edited: true
        )
        return token
    }

    /// Revokes token `id`: from the commit on, it authenticates nothing, on every replica.
    /// Revoking a revoked token changes nothing.
    /// - Parameter otherAdmins: how many admin tokens are in force outside the store (configured).
    /// - Returns: the token as it now is.
    /// - Throws: `StoreError.notFound(id:)` when the store has no token `id`; `LastAdminToken`
    ///   when it is the last admin token in force (in the store and outside it).
    package func revokeAdminToken(id: String, actor: String, now: Int64, otherAdmins: Int) throws -> StoredAdminToken {
        let rows = try transaction.adminTokenRows()
        guard var token = rows.first(where: { $0.id == id }) else { throw StoreError.notFound(id: id) }
        guard token.revokedAt == nil else { return token }
        let admins = rows.filter { $0.role == "admin" && $0.isInForce(at: now) }
        if token.role == "admin", token.isInForce(at: now), otherAdmins == 0, admins.count == 1 {
            throw LastAdminToken(id: id)
        }
        try transaction.revokeAdminToken(id: id, at: now, by: actor)
        token.revokedAt = now
        token.revokedBy = actor
        let rowID = StoredDocuments.adminTokenDocumentID(id)
        // The first token a PostgreSQL start generates has no document yet: its revocation is its
        // first revision.
        let current = try current(rowID, kind: .adminToken)
        queue(
            RevisionWrite(
                documentID: rowID,
                kind: StoredDocuments.adminTokenKind,
                revision: (current?.revision ?? 0) + 1,
                action: current == nil ? .create : .replace,
                document: StoredDocuments.text(of: Self.document(token)),
                changedFields: StoredDocuments.changedFieldsText(["/revokedAt"]),
                at: Timestamp.now(),
                by: actor,
                note: "token revoked"
            ),
            edited: true
        )
        return token
    }

    /// What a token's revision holds: what the list shows of it, without its last use (which is
    /// not a change) and never its hash.
    static func document(_ token: StoredAdminToken) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("id", .string(token.id)), ("name", .string(token.name)), ("role", .string(token.role)),
        ]
        if let expiresAt = token.expiresAt {
            members.append(("expiresAt", .string(Timestamp.seconds(milliseconds: expiresAt))))
        }
        if let revokedAt = token.revokedAt {
            members.append(("revokedAt", .string(Timestamp.seconds(milliseconds: revokedAt))))
        }
        return .object(members)
    }
}

import EmptyStateStore
import Testing

/// A token of the store named `name`, created at `at`.
private func token(
    _ name: String,
    role: String = "editor",
    at: Int64 = 1_800_000_000_000,
    expires: Int64? = nil
)
    -> StoredAdminToken
{
    StoredAdminToken(
        id: StoredAdminToken.newID(),
        name: name,
        role: role,
        secretSHA256: SecretDigest.sha256Hex("secret of \(name)"),
        createdBy: "ops",
        createdAt: at,
        expiresAt: expires
    )
}

/// Opens a store of `backend` as both of its faces.
private func makeTokenStore(_ backend: StoreBackend) throws -> (any TemplateStoring, any AdminTokenStoring) {
    let (store, _) = try makeStore(backend)
    return (store, try #require(store as? any AdminTokenStoring))
}

/// Admin tokens made through the admin API on both backends: kept hashed, names never reused,
/// revocation (never of the last admin token), each change a revision in the audit trail, and
/// last use recorded only forwards.
@Suite("Admin token store")
struct AdminTokenStoreTests {
    @Test("a created token reads back with every field, and only its hash", arguments: StoreBackend.all)
    func createdReadsBack(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, tokens) = try makeTokenStore(backend)
            let made = token("ci", expires: 1_900_000_000_000)
            let created = try store.write { try $0.createAdminToken(made) }
            #expect(created == made)
            #expect(try tokens.adminTokens() == [made])
            #expect(try tokens.adminTokens().first?.secretSHA256.count == 64)
        }
    }

    @Test(
        "a name is taken for good: by a token of the store, revoked or not, or a reserved one",
        arguments: StoreBackend.all
    )
    func namesAreNeverReused(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, tokens) = try makeTokenStore(backend)
            let first = try store.write { try $0.createAdminToken(token("ci")) }
            #expect(throws: StoreError.alreadyExists(id: "ci", revision: 0)) {
                try store.write { try $0.createAdminToken(token("ci")) }
            }
            _ = try store.write {
                try $0.revokeAdminToken(id: first.id, actor: "ops", now: 1_800_000_001_000, otherAdmins: 0)
            }
            #expect(throws: StoreError.alreadyExists(id: "ci", revision: 0)) {
                try store.write { try $0.createAdminToken(token("ci")) }
            }
            #expect(throws: StoreError.alreadyExists(id: "ops", revision: 0)) {
                try store.write { try $0.createAdminToken(token("ops"), reserved: ["ops"]) }
            }
            #expect(try tokens.adminTokens().map(\.name) == ["ci"])
        }
    }

    @Test("revoking records when and by whom, once, and writes a revision each time", arguments: StoreBackend.all)
    func revocation(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, tokens) = try makeTokenStore(backend)
            let made = try store.write { try $0.createAdminToken(token("ci")) }
            let revoked = try store.write {
                try $0.revokeAdminToken(id: made.id, actor: "ops", now: 1_800_000_005_000, otherAdmins: 0)
            }
            #expect(revoked.revokedAt == 1_800_000_005_000 && revoked.revokedBy == "ops")
            let again = try store.write {
                try $0.revokeAdminToken(id: made.id, actor: "someone else", now: 1_800_000_009_000, otherAdmins: 0)
            }
            #expect(again.revokedAt == 1_800_000_005_000 && again.revokedBy == "ops")
            let stored = try #require(try tokens.adminTokens().first)
            #expect(stored.revokedAt == 1_800_000_005_000 && !stored.isInForce(at: 1_800_000_006_000))
            let trail = try store.audit(
                AuditFilter(documentID: StoredDocuments.adminTokenDocumentID(made.id)),
                page: 1,
                pageSize: 10
            )
            #expect(trail.items.map(\.revision) == [2, 1])
            #expect(trail.items.map(\.action) == [.replace, .create])
            #expect(trail.items.first?.note == "token revoked" && trail.items.first?.changedFields == ["/revokedAt"])
            #expect(throws: StoreError.notFound(id: "tok_0000000000000000")) {
                try store.write {
                    try $0.revokeAdminToken(id: "tok_0000000000000000", actor: "ops", now: 0, otherAdmins: 0)
                }
            }
        }
    }

    @Test(
        "the last admin token in force cannot be revoked, unless another admin token is configured",
        arguments: StoreBackend.all
    )
    func lastAdmin(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeTokenStore(backend)
            let now: Int64 = 1_800_000_000_000
            let admin = try store.write { try $0.createAdminToken(token("root", role: "admin", at: now)) }
            // An expired admin token does not count as one left.
            _ = try store.write { try $0.createAdminToken(token("old", role: "admin", at: now, expires: now + 1)) }
            #expect(throws: CatalogueWrite.LastAdminToken.self) {
                try store.write { try $0.revokeAdminToken(id: admin.id, actor: "root", now: now + 10, otherAdmins: 0) }
            }
            let revoked = try store.write {
                try $0.revokeAdminToken(id: admin.id, actor: "root", now: now + 10, otherAdmins: 1)
            }
            #expect(revoked.revokedAt == now + 10)
        }
    }

    @Test("last use moves only forwards, and skips tokens that are gone", arguments: StoreBackend.all)
    func lastUse(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, tokens) = try makeTokenStore(backend)
            let made = try store.write { try $0.createAdminToken(token("ci")) }
            try tokens.recordAdminTokenUse([made.id: 1_800_000_060_000, "tok_ffffffffffffffff": 1])
            try tokens.recordAdminTokenUse([made.id: 1_800_000_030_000])
            #expect(try tokens.adminTokens().first?.lastUsedAt == 1_800_000_060_000)
        }
    }

    @Test("a token is in force until it is revoked or its expiry passes")
    func inForce() {
        var made = token("ci", expires: 2_000)
        #expect(made.isInForce(at: 1_999) && !made.isInForce(at: 2_000))
        made.expiresAt = nil
        #expect(made.isInForce(at: .max))
        made.revokedAt = 5
        #expect(!made.isInForce(at: 0))
    }
}

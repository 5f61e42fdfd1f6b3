import EmptyStateStore
import Synchronization
import Testing

@testable import EmptyStateService

/// A store of admin tokens in memory that counts the last-use writes it is asked for.
private final class CountingTokenStore: AdminTokenStoring {
    let tokens: [StoredAdminToken]
    let writes = Mutex<[[String: Int64]]>([])

    init(_ tokens: [StoredAdminToken]) { self.tokens = tokens }

    func adminTokens() throws(StoreError) -> [StoredAdminToken] { tokens }

    func recordAdminTokenUse(_ uses: [String: Int64]) throws(StoreError) { writes.withLock { $0.append(uses) } }
}

private func token(
    _ name: String,
    secret: String,
    role: String = "editor",
    expires: Int64? = nil,
    revoked: Int64? = nil
)
    -> StoredAdminToken
{
    StoredAdminToken(
        id: "tok_\(name)",
        name: name,
        role: role,
        secretSHA256: SecretDigest.sha256Hex(secret),
        createdBy: "ops",
        createdAt: 0,
        expiresAt: expires,
        revokedAt: revoked
    )
}

/// How the authorization uses the store's tokens: found by the digest of the offered secret,
/// only while in force, their use written at most once a minute per token.
@Suite("Admin tokens of the store, as requests are checked")
struct StoreAdminTokensTests {
    @Test("a store token authenticates by its secret; revoked and expired ones do not")
    func matching() throws {
        let now = Timestamp.nowMilliseconds()
        let store = CountingTokenStore([
            token("ci", secret: "ci-secret-0123456789"),
            token("old", secret: "old-secret-0123456789", revoked: now - 1),
            token("short", secret: "short-secret-0123456789", expires: now - 1),
        ])
        let stored = StoreAdminTokens(store: store)
        try stored.reload()
        let authorization = AdminAuthorization(tokens: [], stored: stored)
        let found = try #require(authorization.token(secret: Array("ci-secret-0123456789".utf8)))
        #expect(found.name == "ci" && found.role == .editor && found.source == .api && found.id == "tok_ci")
        #expect(authorization.token(secret: Array("old-secret-0123456789".utf8)) == nil)
        #expect(authorization.token(secret: Array("short-secret-0123456789".utf8)) == nil)
        #expect(authorization.isConfigured(name: "ci", role: .editor))
        #expect(!authorization.isConfigured(name: "short", role: .editor), "an expired token's sessions end")
        #expect(!authorization.isConfigured(name: "old", role: .editor), "a revoked token's sessions end")
    }

    @Test("last use is written once a minute per token, not once a request")
    func lastUseOncePerMinute() throws {
        let store = CountingTokenStore([token("a", secret: "a"), token("b", secret: "b")])
        let stored = StoreAdminTokens(store: store)
        try stored.reload()
        let start: Int64 = 1_800_000_000_000
        for offset in stride(from: Int64(0), to: 59_000, by: 1_000) { stored.noteUse(id: "tok_a", at: start + offset) }
        stored.noteUse(id: "tok_b", at: start + 30_000)
        stored.noteUse(id: "tok_a", at: start + StoreAdminTokens.useInterval)
        stored.flushUses()
        let writes = store.writes.withLock { $0 }
        #expect(
            writes == [["tok_a": start], ["tok_b": start + 30_000], ["tok_a": start + StoreAdminTokens.useInterval]]
        )
    }
}

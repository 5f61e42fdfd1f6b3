import EmptyStateCore
import EmptyStatePostgres
import EmptyStateStore
import Foundation
import Testing

/// The store of `backend` as the console's session store, and a second handle on the same data
/// (another process on the SQLite file, another replica on PostgreSQL).
private func sessionStores(_ backend: StoreBackend) throws -> (any SessionStoring, any SessionStoring) {
    let (store, handle) = try makeStore(backend)
    let first = try #require(store as? any SessionStoring)
    let second = try #require(try handle.reopenTemplates() as? any SessionStoring)
    return (first, second)
}

private func session(_ hash: String, created: Int64 = march1, expires: Int64 = march1 + 12 * hour) -> ConsoleSession {
    ConsoleSession(
        idHash: hash,
        tokenName: "alice",
        role: "editor",
        createdAt: created,
        lastSeenAt: created,
        expiresAt: expires
    )
}

@Suite("Console sessions in the store")
struct SessionStoreTests {
    @Test("a session is read back as written, by its hash only, from another handle too", arguments: StoreBackend.all)
    func roundTrip(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, other) = try sessionStores(backend)
            let hash = SecretDigest.sha256Hex("session id")
            try store.createSession(session(hash))
            #expect(try store.session(idHash: hash) == session(hash))
            #expect(try other.session(idHash: hash) == session(hash))
            #expect(try store.session(idHash: SecretDigest.sha256Hex("another id")) == nil)
            // The id itself is never a key.
            #expect(try store.session(idHash: "session id") == nil)
        }
    }

    @Test("touching moves last-seen forward, never back", arguments: StoreBackend.all)
    func touch(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try sessionStores(backend)
            let hash = SecretDigest.sha256Hex("touched")
            try store.createSession(session(hash))
            try store.touchSession(idHash: hash, at: march1 + 5 * 60_000)
            #expect(try store.session(idHash: hash)?.lastSeenAt == march1 + 5 * 60_000)
            try store.touchSession(idHash: hash, at: march1 + 60_000)
            #expect(try store.session(idHash: hash)?.lastSeenAt == march1 + 5 * 60_000)
            // Touching a session that is gone does nothing (and does not create it).
            try store.touchSession(idHash: SecretDigest.sha256Hex("gone"), at: march1)
            #expect(try store.session(idHash: SecretDigest.sha256Hex("gone")) == nil)
        }
    }

    @Test("a sign-out through one handle ends the session for every other", arguments: StoreBackend.all)
    func signOutEverywhere(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, other) = try sessionStores(backend)
            let hash = SecretDigest.sha256Hex("signed out")
            try store.createSession(session(hash))
            #expect(try other.deleteSession(idHash: hash))
            #expect(try store.session(idHash: hash) == nil)
            #expect(try !store.deleteSession(idHash: hash))
        }
    }

    @Test("expired and idle sessions are removed; live ones stay", arguments: StoreBackend.all)
    func expiry(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try sessionStores(backend)
            let now = march1 + 2 * hour
            let idle: Int64 = 30 * 60_000
            try store.createSession(session("a", created: march1, expires: now))  // at its end
            try store.createSession(session("b", created: now - idle))  // idle exactly the limit
            try store.createSession(session("c", created: now - idle + 1))  // idle just under
            try store.createSession(session("d", created: march1, expires: now + 1))
            try store.touchSession(idHash: "d", at: now - 1)
            #expect(try store.removeExpiredSessions(now: now, idleMilliseconds: idle) == 2)
            #expect(try store.session(idHash: "a") == nil && store.session(idHash: "b") == nil)
            #expect(try store.session(idHash: "c") != nil && store.session(idHash: "d") != nil)
        }
    }
}

@Suite("SecretDigest: SHA-256")
struct SecretDigestTests {
    @Test(
        "FIPS 180-4 examples and padding boundaries",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
            (String(repeating: "a", count: 55), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
            (String(repeating: "a", count: 64), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
        ]
    )
    func vectors(input: String, expected: String) {
        #expect(SecretDigest.sha256Hex(input) == expected)
    }

    @Test("a million a's")
    func million() {
        #expect(
            SecretDigest.sha256Hex(String(repeating: "a", count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        )
    }

    @Test("PostgreSQL's admin token hashes are the same digest of the UTF-8 bytes, in lowercase hex")
    func adminTokenHashes() {
        for text in ["", "abc", String(repeating: "a", count: 64), "é🙂"] {
            #expect(PostgresAdminTokens.hash(text) == SecretDigest.sha256Hex(text), "\(text)")
        }
        #expect(SecretDigest.sha256Hex("é🙂") == "7382f537af6a53054b6a72792df00fa0be0f5d2e8214db9cd6ebbcc3d57d02b9")
    }
}

import Dispatch
import EmptyStateStore
import Foundation
import Logging
import Synchronization

/// The admin tokens kept in the store (`AdminTokenStoring`), as `AdminAuthorization` checks them:
/// an immutable list swapped whole, so a request never waits for a reload.
///
/// It is read again at start, after each token created or revoked on this replica (before the
/// response is sent), and, on PostgreSQL, when another replica created or revoked one: the token's
/// revision is in the change feed, whose NOTIFY makes `CatalogueFollower` call `reload` at once
/// (and its periodic catch-up, if a notification was lost). No request reads the store to
/// authenticate.
///
/// Last use is recorded at most once a minute per token and replica (`useInterval`): the first
/// request of a token in a minute queues one `UPDATE`, written off the request's thread; the
/// others write nothing. So `lastUsedAt` is exact to within a minute, and admin requests are not
/// writes.
final class StoreAdminTokens: Sendable {
    /// A token in force or expired (revoked ones are left out), as requests are checked against.
    struct Entry: Sendable {
        var id: String
        var name: String
        var role: AdminToken.Role
        /// The lowercase hex SHA-256 of the secret.
        var sha256: String
        var expiresAt: Int64?

        func isInForce(at now: Int64) -> Bool { expiresAt.map { now < $0 } ?? true }
    }

    /// How often a token's last use is written, at most (ms).
    static let useInterval: Int64 = 60_000

    private let store: (any AdminTokenStoring)?
    private let logger: Logger
    /// The tokens, and the same by the hex SHA-256 of their secret: a request's digest is looked
    /// up, not compared in a loop (a digest's lookup time tells nothing of the secret).
    private let entries = Mutex<(list: [Entry], byDigest: [String: Entry])>(([], [:]))
    /// When each token's use was last queued for writing, by id.
    private let lastNoted = Mutex<[String: Int64]>([:])
    private let writer = DispatchQueue(label: "admin-token-use", qos: .utility)

    /// - Parameter store: `nil` keeps no tokens (tests of other parts).
    init(store: (any AdminTokenStoring)? = nil, logger: Logger = Logger(label: "empty-state-server")) {
        self.store = store
        self.logger = logger
    }

    var current: [Entry] { entries.withLock { $0.list } }

    /// Whether the store keeps any token (none: a request's secret is not even hashed).
    var isEmpty: Bool { entries.withLock { $0.list.isEmpty } }

    /// The token whose secret has this lowercase hex SHA-256.
    func entry(digest: String) -> Entry? { entries.withLock { $0.byDigest[digest] } }

    /// Reads the store's tokens again and swaps them in.
    /// - Returns: the tokens not revoked.
    @discardableResult
    func reload() throws(StoreError) -> [Entry] {
        guard let store else { return [] }
        let loaded = try store.adminTokens().compactMap { token -> Entry? in
            guard token.revokedAt == nil, let role = AdminToken.Role(rawValue: token.role) else { return nil }
            return Entry(
                id: token.id,
                name: token.name,
                role: role,
                sha256: token.secretSHA256,
                expiresAt: token.expiresAt
            )
        }
        let byDigest = Dictionary(loaded.map { ($0.sha256, $0) }, uniquingKeysWith: { first, _ in first })
        entries.withLock { $0 = (loaded, byDigest) }
        return loaded
    }

    /// Reads the tokens again after another replica changed them; a failure is logged (the
    /// follower's next catch-up tries again), the tokens in use stay.
    func reloadLogged() {
        do {
            let loaded = try reload()
            logger.info(
                "admin tokens read again after a change on another replica",
                metadata: ["admin.tokens": "\(loaded.map { "\($0.name):\($0.role.rawValue)" })"]
            )
        } catch {
            logger.warning("reading the admin tokens again failed; will retry", metadata: ["error": "\(error)"])
        }
    }

    /// Notes that token `id` authenticated a request at `now`: written to the store when its
    /// last write here is a minute old or more, off the caller's thread.
    func noteUse(id: String, at now: Int64) {
        let due = lastNoted.withLock { noted -> Bool in
            if let last = noted[id], now - last < Self.useInterval { return false }
            noted[id] = now
            return true
        }
        guard due, let store else { return }
        let logger = logger
        writer.async {
            do {
                try store.recordAdminTokenUse([id: now])
            } catch {
                logger.warning(
                    "recording an admin token's last use failed",
                    metadata: ["admin.token_id": "\(id)", "error": "\(error)"]
                )
            }
        }
    }

    /// Waits for the use writes queued so far (tests, and shutdown).
    func flushUses() { writer.sync {} }
}

/// The first admin token of a data directory (SQLite) or of a database (PostgreSQL), made once
/// the server listens: its secret is in the authorization already (SQLite) or not yet valid
/// (PostgreSQL), and nothing is written until `create` runs.
struct FirstAdminToken: Sendable {
    let secret: String
    /// Where the secret is written (`admin-token` in the data directory), mode 0600.
    let path: String
    /// PostgreSQL: where the token is created first, and whose tokens `tokens` holds.
    let shared: (any SharedStore)?
    let tokens: StoreAdminTokens?

    /// Writes the token: to the database first (PostgreSQL; another replica may have created the
    /// first token meanwhile, and this one then writes nothing), then to `path`.
    /// - Throws: `EmptyStateApplication.StartupError` when the file or the database cannot be
    ///   written; exit 69 when the database cannot be reached.
    func create(logger: Logger) throws {
        guard let shared, let tokens else {
            try AdminAuthorization.writeSecretFile(path, secret)
            logger.notice(
                "generated an admin token (no --admin-token configured)",
                metadata: ["admin.token_file": "\(path)"]
            )
            return
        }
        do {
            if try shared.createFirstToken(name: "admin", secret: secret) {
                unlink(path)  // a token of an earlier database in this directory is not valid here
                try AdminAuthorization.writeSecretFile(path, secret)
                logger.notice(
                    "generated the first admin token, valid on every replica (no --admin-token configured)",
                    metadata: ["admin.token_file": "\(path)"]
                )
            }
        } catch StoreError.unavailable(let reason) {
            throw EmptyStateApplication.StartupError(
                description: "cannot reach the database to create the first admin token: \(reason)",
                exitStatus: 69
            )
        } catch let error as EmptyStateApplication.StartupError {
            throw error
        } catch {
            throw EmptyStateApplication.StartupError(description: "cannot create the first admin token: \(error)")
        }
        try Self.reload(tokens, logger: logger)
    }

    /// Reads the store's tokens into `tokens`, at start.
    /// - Throws: `EmptyStateApplication.StartupError` (exit 69 when the database cannot be
    ///   reached).
    static func reload(_ tokens: StoreAdminTokens, logger: Logger) throws {
        do {
            let loaded = try tokens.reload()
            logger.info(
                "admin tokens from the store",
                metadata: ["admin.tokens": "\(loaded.map { "\($0.name):\($0.role.rawValue)" })"]
            )
        } catch StoreError.unavailable(let reason) {
            throw EmptyStateApplication.StartupError(
                description: "cannot reach the database to read admin tokens: \(reason)",
                exitStatus: 69
            )
        } catch {
            throw EmptyStateApplication.StartupError(
                description: "cannot read admin tokens from the database: \(error)"
            )
        }
    }
}

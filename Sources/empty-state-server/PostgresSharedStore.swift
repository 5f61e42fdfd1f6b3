import EmptyStatePostgres
import EmptyStateService
import EmptyStateStore
import Logging
import ServiceLifecycle

/// The store shared by replicas, on PostgreSQL (`--database-url`): opens the pool, migrates the
/// schema under the advisory lock, and hands the application its stores, change feed, admin
/// tokens and services. The application sees only `SharedStore`.
final class PostgresSharedStore: SharedStore {
    let database: PostgresBackend
    private let templateStore: PostgresTemplateStore
    let events: any EventStoring

    private let commitObserver = CommitObserver()

    /// Opens and migrates the database at `url`.
    /// - Parameter countsRollups: as `PostgresEventStore`'s (`false` only for a benchmark).
    /// - Throws: `EmptyStateApplication.StartupError`: exit 69 when the database refuses the
    ///   connection, cannot be reached or does not answer (a first connection tells at once; the
    ///   migration waits up to 20 s), 78 when it refuses the login or TLS, or its schema is
    ///   newer than this binary.
    @available(*, noasync)
    init(url: PostgresURL, countsRollups: Bool, logger: Logger) throws {
        if let failure = PostgresBackend.firstContact(url, logger: logger) {
            throw EmptyStateApplication.StartupError(
                description: "cannot reach the database \(url.redacted): \(failure.description)",
                exitStatus: failure.mayClear ? 69 : 78
            )
        }
        let database = PostgresBackend(url: url, logger: logger)
        database.startPool()
        let newer: Int?
        do {
            newer = try database.blocking(timeout: .seconds(20)) { client -> Int? in
                do {
                    let applied = try await PostgresSchema.migrate(client, logger: logger)
                    logger.info(
                        "database schema checked",
                        metadata: [
                            "schema.version": "\(PostgresSchema.currentVersion)", "schema.applied": "\(applied)",
                        ]
                    )
                    return nil
                } catch let tooNew as PostgresSchema.TooNew {
                    return tooNew.found
                }
            }
        } catch .unavailable(let reason) {
            database.stopPool()
            throw EmptyStateApplication.StartupError(
                description: "cannot reach the database \(url.redacted): \(reason)",
                exitStatus: 69
            )
        } catch .database(let reason) {
            // A refusal of the schema's own checks (PostgresSchema.EventsAheadOfCluster) reads as it is.
            database.stopPool()
            throw EmptyStateApplication.StartupError(description: "cannot use the database \(url.redacted): \(reason)")
        } catch {
            database.stopPool()
            throw EmptyStateApplication.StartupError(
                description: "cannot migrate the database \(url.redacted): \(error)"
            )
        }
        if let newer {
            database.stopPool()
            throw EmptyStateApplication.StartupError(
                description: PostgresSchema.TooNew(found: newer, known: PostgresSchema.currentVersion).description
            )
        }
        self.database = database
        let observer = commitObserver
        templateStore = PostgresTemplateStore(database: database, logger: logger) { observer.tell("templates", $0) }
        events = PostgresEventStore(database: database, countsRollups: countsRollups, logger: logger) {
            observer.tell("events", $0)
        }
    }

    var templates: any TemplateStoring { templateStore }

    var sessions: any SessionStoring { templateStore }
    var webhooks: any WebhookStoring { templateStore }
    var tokens: any AdminTokenStoring { templateStore }

    var location: String { database.location }

    var isReachable: Bool { database.isReachable }

    func latestChange() throws(StoreError) -> Int64 { try templateStore.latestChange() }

    func changes(after: Int64) throws(StoreError) -> [(seq: Int64, documentID: String)] {
        try templateStore.changes(after: after)
    }

    func observeCommits(_ observer: @escaping @Sendable (_ store: String, _ seconds: Double) -> Void) {
        commitObserver.set(observer)
    }

    func createFirstToken(name: String, secret: String) throws(StoreError) -> Bool {
        try PostgresAdminTokens.createFirstToken(database, name: name, secret: secret)
    }

    func services(catchUp: @escaping @Sendable () -> Void) -> [any Service] {
        [database, CatalogueChangeListener(database: database, logger: database.logger, catchUp: catchUp)]
    }
}

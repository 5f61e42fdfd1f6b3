import ServiceLifecycle

/// Stores shared by replicas (PostgreSQL, `--database-url`): the stores, plus what the
/// application needs to serve the same catalogue as every other replica.
///
/// The application depends on this interface, not on PostgreSQL: `empty-state-server` opens the
/// PostgreSQL implementation (`PostgresSharedStore`) when a database URL is configured, and the
/// service module, its tests and its fuzz targets build without the database driver.
package protocol SharedStore: Stores {
    /// Whether writes can be served now (the database is reachable).
    var isReachable: Bool { get }

    /// The change feed's newest number: changes after it are not in what `templates` reads now.
    func latestChange() throws(StoreError) -> Int64
    /// The documents changed after feed number `after`, oldest first, each with its newest number.
    func changes(after: Int64) throws(StoreError) -> [(seq: Int64, documentID: String)]

    /// Stores the admin token `name` when there is no token yet.
    /// - Returns: whether this call created it (exactly one of several racing replicas does).
    func createFirstToken(name: String, secret: String) throws(StoreError) -> Bool

    /// What must run beside the HTTP service, first to last (the connection pool, then the
    /// listener that calls `catchUp` whenever another replica may have committed a change).
    /// They are shut down in reverse, after the HTTP service.
    func services(catchUp: @escaping @Sendable () -> Void) -> [any Service]
}

import EmptyStateStore
import GRDB

/// How both stores open SQLite: a WAL pool whose every commit is fsync'd before it returns.
enum DurablePool {
    /// Opens (creating when needed) the database at `path` and runs `migrator`.
    ///
    /// A database that holds a migration `migrator` does not know was written by a newer release
    /// and is refused: GRDB would skip the unknown step and let this binary write to tables it
    /// does not understand (events it would not count into rollups added later, say), so a
    /// downgrade would corrupt silently rather than fail (docs/upgrades.md).
    /// - Parameter foreignKeys: enforce `REFERENCES` clauses on every connection.
    /// - Throws: `StoreError.database` naming the file when it cannot be opened or migrated, or
    ///   was written by a newer release.
    static func open(path: String, migrator: DatabaseMigrator, foreignKeys: Bool) throws(StoreError) -> DatabasePool {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        if foreignKeys {
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA foreign_keys = ON") }
        }
        do {
            let pool = try DatabasePool(path: path, configuration: configuration)
            let unknown = try pool.read { db in try migrator.appliedIdentifiers(db).subtracting(migrator.migrations) }
            guard unknown.isEmpty else {
                throw StoreError.database(
                    "\(path) was written by a newer release of the server (its migrations \(unknown.sorted().map { "\"\($0)\"" }.joined(separator: ", ")) are unknown to this one): run that release or a newer one, or restore a backup this release made (docs/upgrades.md)"
                )
            }
            try migrator.migrate(pool)
            // GRDB's pool sets synchronous=NORMAL on its writer when it enables WAL, after
            // prepareDatabase: set FULL again so each commit is fsync'd before it returns.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            return pool
        } catch let error as StoreError {
            throw error
        } catch {
            throw .database("cannot open \(path): \(error)")
        }
    }
}

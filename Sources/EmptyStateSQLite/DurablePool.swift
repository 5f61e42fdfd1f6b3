import EmptyStateStore
import GRDB

/// How both stores open SQLite: a WAL pool whose every commit is fsync'd before it returns.
enum DurablePool {
    /// Opens (creating when needed) the database at `path` and runs `migrator`.
    /// - Parameter foreignKeys: enforce `REFERENCES` clauses on every connection.
    /// - Throws: `StoreError.database` naming the file when it cannot be opened or migrated.
    static func open(path: String, migrator: DatabaseMigrator, foreignKeys: Bool) throws(StoreError) -> DatabasePool {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        if foreignKeys {
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA foreign_keys = ON") }
        }
        do {
            let pool = try DatabasePool(path: path, configuration: configuration)
            try migrator.migrate(pool)
            // GRDB's pool sets synchronous=NORMAL on its writer when it enables WAL, after
            // prepareDatabase: set FULL again so each commit is fsync'd before it returns.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            return pool
        } catch {
            throw .database("cannot open \(path): \(error)")
        }
    }
}

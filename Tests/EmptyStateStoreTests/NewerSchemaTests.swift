import EmptyStateSQLite
import EmptyStateStore
import Foundation
import GRDB
import Logging
import Testing

/// A SQLite file written by a newer release is refused, not half-understood (docs/upgrades.md).
@Suite("SQLite stores written by a newer release")
struct NewerSchemaTests {
    /// A scratch directory for one test.
    private func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("newer-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Records a migration this binary does not have, as a newer release would have.
    private func addFutureMigration(to path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from a newer release')")
        }
    }

    @Test("the template store refuses a file with a migration it does not know, naming it; its own file opens")
    func templateStore() throws {
        let path = try directory() + "/store.sqlite"
        _ = try SQLiteTemplateStore(path: path, logger: Logger(label: "test"))
        _ = try SQLiteTemplateStore(path: path, logger: Logger(label: "test"))  // this release's file: fine
        try addFutureMigration(to: path)
        #expect {
            _ = try SQLiteTemplateStore(path: path, logger: Logger(label: "test"))
        } throws: { error in
            guard case .database(let reason) = error as? StoreError else { return false }
            return reason.contains("was written by a newer release") && reason.contains("\"v99: from a newer release\"")
        }
    }

    @Test("the event store refuses one too")
    func eventStore() throws {
        let path = try directory() + "/events.sqlite"
        _ = try SQLiteEventStore(path: path, logger: Logger(label: "test"))
        try addFutureMigration(to: path)
        #expect {
            _ = try SQLiteEventStore(path: path, logger: Logger(label: "test"))
        } throws: { error in
            guard case .database(let reason) = error as? StoreError else { return false }
            return reason.contains("was written by a newer release")
        }
    }
}

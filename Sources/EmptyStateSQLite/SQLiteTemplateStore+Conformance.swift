import EmptyStateStore
import GRDB

// The SQLite stores are the embedded backend of the store contract (`EmptyStateStore`).

extension SQLiteTemplateStore: TemplateStoring {
    package var location: String { path }
}

extension SQLiteEventStore: EventStoring {
    package var location: String { path }
}

extension StoreError {
    /// The store error for a failure of GRDB or SQLite: `busy` when the store was locked, a
    /// `database` error with the message otherwise.
    package static func from(_ error: any Error) -> StoreError {
        if let database = error as? DatabaseError,
            database.resultCode == .SQLITE_BUSY || database.resultCode == .SQLITE_LOCKED
        {
            return .busy
        }
        return .database("\(error)")
    }
}

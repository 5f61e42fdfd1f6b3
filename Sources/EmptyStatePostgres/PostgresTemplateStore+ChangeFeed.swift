import EmptyStateStore
import Logging
import PostgresNIO

/// The change feed: every catalogue transaction appends a `catalogue_change` row per revision and
/// notifies the newest number on `catalogueChannel` at COMMIT
/// (`PostgresCatalogueTransaction.announce`); other replicas' `CatalogueChangeListener` load what
/// changed.
extension PostgresTemplateStore {
    /// The NOTIFY channel of catalogue changes (the payload is the change's feed number).
    package static let catalogueChannel = "empty_state_catalogue"

    /// The documents changed after feed number `after`, oldest first, each with its newest
    /// number: what a replica that applied everything up to `after` must load.
    package func changes(after: Int64) throws(StoreError) -> [(seq: Int64, documentID: String)] {
        let logger = logger
        return try read { client in
            var changes: [(seq: Int64, documentID: String)] = []
            for try await (seq, id) in try await client.query(
                """
                SELECT MAX(seq), document_id FROM catalogue_change WHERE seq > \(after)
                GROUP BY document_id ORDER BY MAX(seq)
                """,
                logger: logger
            ).decode((Int64, String).self) {
                changes.append((seq, id))
            }
            return changes
        }
    }

    /// The newest feed number (0 when nothing was ever written).
    package func latestChange() throws(StoreError) -> Int64 {
        let logger = logger
        return try read { client in
            var latest: Int64 = 0
            for try await seq in try await client.query(
                "SELECT COALESCE(MAX(seq), 0) FROM catalogue_change",
                logger: logger
            ).decode(Int64.self) {
                latest = seq
            }
            return latest
        }
    }
}

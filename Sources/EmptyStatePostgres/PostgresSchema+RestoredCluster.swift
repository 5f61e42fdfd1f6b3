import Logging
import PostgresNIO

extension PostgresSchema {
    /// Why the database cannot be used on this cluster: its events are numbered by transaction ids
    /// this cluster has not reached, which happens when a logical dump (`pg_dump`) is restored into
    /// another cluster.
    ///
    /// An event's `seq` is its inserting transaction's id shifted left by 16 bits
    /// (`PostgresEventStore`), and the export returns only rows older than every running
    /// transaction. Transaction ids belong to the cluster, not to the database: a new cluster
    /// starts near zero. Events stored there would sort before the restored ones, so an export
    /// cursor past those would never see them, and the restored ones would not be exported at all
    /// until the cluster's ids caught up. Refusing to start is the one safe answer; the fix
    /// (restore into the cluster the dump came from, or advance the new cluster's transaction ids
    /// before its first start) is in docs/backup.md.
    package struct EventsAheadOfCluster: Error, CustomStringConvertible, CustomDebugStringConvertible {
        /// The transaction id of the newest stored event.
        package var newest: Int64
        /// This cluster's current transaction id.
        package var current: Int64

        package var description: String {
            "the stored events were numbered by transactions up to \(newest), but this PostgreSQL cluster is at transaction \(current): the database was restored from a dump into another cluster, and events stored now would be exported out of order or not at all. Restore into the cluster the dump was taken from, or advance this cluster's transaction ids past \(newest) before starting (docs/backup.md, \"Restoring into another cluster\")"
        }

        /// The description: `PostgresBackend.storeError` passes an unknown error on as
        /// `StoreError.database(String(reflecting:))`, and the start-up message shows it.
        package var debugDescription: String { description }
    }

    /// Throws `EventsAheadOfCluster` when the newest stored event's transaction id is not below
    /// the current one (it always is on the cluster that stored it: the current transaction is
    /// newer than every committed one).
    static func checkEventNumbering(_ connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.all(
            """
            SELECT GREATEST((SELECT max(seq) FROM event), (SELECT max(seq) FROM event_legacy)) >> 16,
                   pg_current_xact_id()::text::bigint
            """,
            logger: logger
        )
        for row in rows {
            let (newest, current) = try row.decode((Int64?, Int64).self)
            if let newest, newest >= current { throw EventsAheadOfCluster(newest: newest, current: current) }
        }
    }
}

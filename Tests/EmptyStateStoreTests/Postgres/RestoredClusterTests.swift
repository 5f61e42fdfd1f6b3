import EmptyStatePostgres
import EmptyStateStore
import Foundation
import Logging
import PostgresNIO
import Testing

private let logger = Logger(label: "test")

@Suite(
    "A database restored into another cluster",
    .enabled(if: StoreBackend.testDatabaseURL != nil, "needs EMPTY_STATE_TEST_DATABASE_URL")
)
struct RestoredClusterTests {
    /// A migrated schema of its own on the test database, and a backend on it.
    private func schema() throws -> PostgresBackend {
        let url = try #require(StoreBackend.testDatabaseURL)
        let name = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let setup = PostgresBackend(url: url, maximumConnections: 1, logger: logger)
        setup.startPool()
        defer { setup.stopPool() }
        try setup.blocking(timeout: .seconds(20)) { client in
            try await client.all(PostgresQuery(unsafeSQL: "CREATE SCHEMA \(name)"), logger: logger)
        }
        let backend = PostgresBackend(url: url, maximumConnections: 2, searchPath: name, logger: logger)
        backend.startPool()
        // Migrating a fresh schema is several statements: under a loaded machine's parallel suites it
        // can take longer than the default 5 s wait meant for one call.
        try backend.blocking(timeout: .seconds(60)) { client in try await PostgresSchema.migrate(client, logger: logger)
        }
        return backend
    }

    @Test("events numbered by transactions this cluster has not reached refuse the start; ours do not")
    func eventsAhead() throws {
        let backend = try schema()
        defer { backend.stopPool() }
        // An event as the cluster that stored it numbered it: the start is fine.
        try backend.blocking(timeout: .seconds(60)) { client in
            try await client.all(
                """
                INSERT INTO event_legacy (seq, id, type, template_id, locale, platform, app_version, occurred_at,
                    received_at, clock_skew_ms, request_id)
                VALUES ((pg_current_xact_id()::text::bigint << 16) + 1, 'ours', 'displayed', 'loading', 'en', 'ios',
                    '1.0.0', 0, 0, 0, 'test')
                """,
                logger: logger
            )
            try await PostgresSchema.migrate(client, logger: logger)
        }
        // One numbered by another cluster, a million transactions ahead (a pg_dump restored here).
        try backend.blocking { client in
            try await client.all(
                """
                INSERT INTO event_legacy (seq, id, type, template_id, locale, platform, app_version, occurred_at,
                    received_at, clock_skew_ms, request_id)
                VALUES ((pg_current_xact_id()::text::bigint + 1000000) << 16, 'theirs', 'displayed', 'loading', 'en',
                    'ios', '1.0.0', 0, 0, 0, 'test')
                """,
                logger: logger
            )
        }
        // Through the bridge, the store error whose reason the start-up message shows as it is.
        #expect {
            try backend.blocking(timeout: .seconds(60)) { client in
                try await PostgresSchema.migrate(client, logger: logger)
            }
        } throws: { error in
            guard case .database(let reason) = error as? StoreError else { return false }
            return reason.hasPrefix("the stored events were numbered by transactions up to ")
                && reason.contains("restored from a dump into another cluster")
        }
    }
}

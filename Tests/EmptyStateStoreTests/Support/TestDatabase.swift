import EmptyStatePostgres
import Foundation
import Logging
import PostgresNIO

/// The PostgreSQL the store suites run against: `EMPTY_STATE_TEST_DATABASE_URL`, checked once.
///
/// Without a reachable server the PostgreSQL half of the store suites cannot run, and a run that
/// passes without them must not look like one that ran them: `TestDatabaseTests` records a
/// warning then, and an error when `EMPTY_STATE_REQUIRE_POSTGRES=1` (`make unit-test` sets it,
/// beside the throwaway server it starts). A URL that does not parse is always an error: it can
/// only be a mistake.
enum TestDatabase {
    static let urlVariable = "EMPTY_STATE_TEST_DATABASE_URL"
    static let requireVariable = "EMPTY_STATE_REQUIRE_POSTGRES"

    /// What the environment gave, and whether the server answered.
    enum Availability: Sendable {
        case notConfigured
        case invalid(PostgresURL.Invalid)
        case unreachable(PostgresURL, reason: String)
        case available(PostgresURL)
    }

    static let availability: Availability = {
        guard let text = ProcessInfo.processInfo.environment[urlVariable], !text.isEmpty else { return .notConfigured }
        let url: PostgresURL
        do throws(PostgresURL.Invalid) {
            url = try PostgresURL(text)
        } catch {
            return .invalid(error)
        }
        if let reason = probe(url) { return .unreachable(url, reason: reason) }
        return .available(url)
    }()

    /// The server to run the PostgreSQL suites against; `nil` when they cannot run.
    static var url: PostgresURL? {
        if case .available(let url) = availability { return url }
        return nil
    }

    /// Whether a run without PostgreSQL must fail (`EMPTY_STATE_REQUIRE_POSTGRES=1`).
    static var isRequired: Bool {
        ["1", "true", "yes"].contains(ProcessInfo.processInfo.environment[requireVariable]?.lowercased() ?? "")
    }

    /// How to run the store suites against a throwaway server.
    static let howToRun =
        "run them against a throwaway PostgreSQL with `bash scripts/postgres.sh with \"$(mktemp -d)\" "
        + "\(urlVariable) swift test` (what `make unit-test` does), or set \(urlVariable) to a server of yours"

    /// Why the PostgreSQL suites do not run, and whether that fails the run; `nil` when they run.
    static var problem: (message: String, isError: Bool)? {
        switch availability {
        case .available:
            return nil
        case .notConfigured:
            return (
                "the PostgreSQL store suites did not run: \(urlVariable) is not set, so the store tests "
                    + "ran against SQLite only; \(howToRun)" + requirement,
                isRequired
            )
        case .invalid(let invalid):
            return ("\(urlVariable) is set but is not a usable PostgreSQL URL: \(invalid)", true)
        case .unreachable(let url, let reason):
            return (
                "the PostgreSQL store suites did not run: \(urlVariable) names \(url.redacted), which the "
                    + "tests cannot connect to (\(reason)); start it, or \(howToRun)" + requirement,
                isRequired
            )
        }
    }

    private static var requirement: String {
        isRequired ? " (\(requireVariable)=1: a run without them fails)" : ""
    }

    /// Connects once and logs in, on postgres-nio's event loop and this thread alone: the first
    /// reader of `availability` may be a thread of Swift concurrency's pool (test arguments are
    /// evaluated there), which must not wait on work that itself needs that pool.
    /// - Returns: why the server cannot be used, or `nil` when it can.
    private static func probe(_ url: PostgresURL) -> String? {
        do {
            var configuration = PostgresConnection.Configuration(
                host: url.host,
                port: url.port,
                username: url.user,
                password: url.password,
                database: url.database,
                tls: try url.connectionTLS()
            )
            configuration.options.connectTimeout = .seconds(3)
            let connection = try PostgresConnection.connect(
                on: PostgresConnection.defaultEventLoopGroup.any(),
                configuration: configuration,
                id: 0,
                logger: Logger(label: "test-database-probe")
            ).wait()
            try? connection.close().wait()
            return nil
        } catch {
            return String(reflecting: error)
        }
    }
}

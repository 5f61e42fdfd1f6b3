import Dispatch
import Foundation
import Logging
import PostgresNIO
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

extension PostgresBackend {
    /// Why a database could not be used at all at start, as `firstContact` found.
    package struct ContactFailure: Error, CustomStringConvertible {
        package let description: String
        /// Whether the condition may clear without a change of settings (the server down or
        /// starting, the network): a supervisor may retry. `false`: a login, database or TLS
        /// setting to fix.
        package let mayClear: Bool
    }

    /// Opens one connection to `url` with the pool's settings and closes it: at start, a database
    /// that refuses the connection, is unreachable, or refuses the login is reported at once and
    /// as what it is, where the pool (which retries with backoff, as it should while running)
    /// would only say, after the start-up wait, that nothing answered.
    /// - Returns: `nil` when the connection and login succeeded.
    @available(*, noasync, message: "blocks its thread")
    package static func firstContact(
        _ url: PostgresURL,
        timeout: Duration = .seconds(5),
        logger: Logger
    ) -> ContactFailure? {
        let tls: PostgresConnection.Configuration.TLS
        do {
            tls = try url.connectionTLS()
        } catch {
            return ContactFailure(description: "cannot set up TLS: \(error)", mayClear: false)
        }
        var configuration = PostgresConnection.Configuration(
            host: url.host,
            port: url.port,
            username: url.user,
            password: url.password,
            database: url.database,
            tls: tls
        )
        configuration.options.connectTimeout = .init(timeout)
        let outcome = Mutex<ContactFailure??>(nil)
        let done = DispatchSemaphore(value: 0)
        let task = Task {
            let failure: ContactFailure?
            do {
                let connection = try await PostgresConnection.connect(
                    configuration: configuration,
                    id: 0,
                    logger: logger
                )
                try? await connection.close()
                failure = nil
            } catch {
                failure = Self.contactFailure(error, url: url)
            }
            outcome.withLock { $0 = .some(failure) }
            done.signal()
        }
        // The connect timeout bounds the TCP handshake; this bounds the TLS handshake and login.
        let seconds = timeout.components.seconds + 2
        if done.wait(timeout: .now() + .seconds(Int(seconds))) == .timedOut {
            task.cancel()
            return ContactFailure(
                description: "no answer within \(seconds) s from \(url.host):\(url.port)",
                mayClear: true
            )
        }
        return outcome.withLock { $0 } ?? nil
    }

    /// What a failed first connection says, in words an operator acts on.
    static func contactFailure(_ error: any Error, url: PostgresURL) -> ContactFailure {
        let address = "\(url.host):\(url.port)"
        if let psql = error as? PSQLError {
            if let server = psql.serverInfo {
                let state = server[.sqlState] ?? ""
                let message = server[.message] ?? String(describing: psql.code)
                // 28: invalid authorization (password, no such role, pg_hba); 3D000: no such
                // database; 57P03: the server is starting or shutting down.
                return ContactFailure(
                    description: "the server at \(address) refused the login: \(message) (SQLSTATE \(state))",
                    mayClear: state == "57P03" || state.hasPrefix("53")
                )
            }
            if let underlying = psql.underlying {
                return contactFailure(underlying, url: url)
            }
            return ContactFailure(description: "\(psql.code) at \(address)", mayClear: true)
        }
        if let connection = error as? NIOConnectionError {
            if connection.dnsAError != nil, connection.dnsAAAAError != nil, connection.connectionErrors.isEmpty {
                return ContactFailure(description: "cannot resolve the host name \(url.host)", mayClear: true)
            }
            if let first = connection.connectionErrors.first {
                return contactFailure(first.error, url: url)
            }
        }
        if let io = error as? IOError {
            switch io.errnoCode {
            case ECONNREFUSED:
                return ContactFailure(
                    description: "connection refused: nothing listens on \(address)",
                    mayClear: true
                )
            case EHOSTUNREACH, ENETUNREACH:
                return ContactFailure(description: "\(address) is unreachable: \(io)", mayClear: true)
            default:
                return ContactFailure(description: "cannot connect to \(address): \(io)", mayClear: true)
            }
        }
        if case ChannelError.connectTimeout(let limit) = error {
            return ContactFailure(
                description: "no answer from \(address) within \(limit.nanoseconds / 1_000_000_000) s",
                mayClear: true
            )
        }
        if error is NIOSSLError {
            return ContactFailure(description: "TLS with \(address) failed: \(error)", mayClear: false)
        }
        return ContactFailure(description: "cannot connect to \(address): \(error)", mayClear: true)
    }
}

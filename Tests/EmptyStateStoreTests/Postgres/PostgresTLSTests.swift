import EmptyStatePostgres
import Foundation
import Logging
import PostgresNIO
import Testing

/// Each `sslmode` against a PostgreSQL with a certificate of its own CA: the throwaway server of
/// `POSTGRES_SSL=1 scripts/postgres.sh with DIR EMPTY_STATE_TEST_DATABASE_URL …`, which gives the
/// CA's certificate in `EMPTY_STATE_TEST_DATABASE_URL_SSLROOTCERT` (what `make unit-test` runs).
/// Its certificate names localhost and 127.0.0.1; the server also listens on 127.0.0.2, a name
/// the certificate lacks. Without that variable these tests do not run, and
/// `postgresTLSSuiteRan` says so.
@Suite("PostgreSQL over TLS: libpq's sslmode against a server with its own CA")
struct PostgresTLSTests {
    static let rootCertificateVariable = TestDatabase.urlVariable + "_SSLROOTCERT"

    /// The test server's URL and the path of its CA's certificate, when both are there.
    static let server: (url: PostgresURL, rootCertificate: String)? = {
        guard let url = TestDatabase.url,
            let path = ProcessInfo.processInfo.environment[rootCertificateVariable], !path.isEmpty
        else { return nil }
        return (url, path)
    }()

    static var runs: Bool { server != nil }

    /// The test server's URL with another host and query; no home directory, so a
    /// `~/.postgresql/root.crt` of the machine's cannot change what is checked.
    static func url(host: String, _ query: String) throws -> PostgresURL {
        let (base, rootCertificate) = try #require(server)
        let user = base.user.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? base.user
        let password = (base.password ?? "").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let text =
            "postgres://\(user):\(password)@\(host):\(base.port)/\(base.database)"
            + query.replacingOccurrences(of: "=CA", with: "=" + rootCertificate)
        return try PostgresURL(text, homeDirectory: nil)
    }

    /// Connects as `url` says and returns whether the session is encrypted, from the server's
    /// side (`pg_stat_ssl`). Through `PostgresClient`, the pool the service uses.
    static func encrypted(_ url: PostgresURL) async throws -> Bool {
        var configuration = PostgresClient.Configuration(
            host: url.host,
            port: url.port,
            username: url.user,
            password: url.password,
            database: url.database,
            tls: url.tls
        )
        configuration.options.connectTimeout = .seconds(3)
        let client = PostgresClient(configuration: configuration, backgroundLogger: Logger(label: "test"))
        return try await withThrowingTaskGroup(of: Bool?.self) { group in
            group.addTask {
                await client.run()
                return nil
            }
            defer { group.cancelAll() }
            let rows = try await client.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
            for try await ssl in rows.decode(Bool.self) { return ssl }
            Issue.record("pg_stat_ssl has no row for the session")
            return false
        }
    }

    /// Connects once as `url` says and returns why it failed (`nil` if it did not). A single
    /// connection, because the pool retries a refused handshake until it is cancelled, and the
    /// reason is what the test checks.
    static func refusal(_ url: PostgresURL) async throws -> String? {
        var configuration = PostgresConnection.Configuration(
            host: url.host,
            port: url.port,
            username: url.user,
            password: url.password,
            database: url.database,
            tls: try url.connectionTLS()
        )
        configuration.options.connectTimeout = .seconds(3)
        do {
            let connection = try await PostgresConnection.connect(
                configuration: configuration,
                id: 1,
                logger: Logger(label: "test")
            )
            try? await connection.close()
            return nil
        } catch {
            return String(reflecting: error)
        }
    }

    @Test("disable: plain text (the server accepts it)", .enabled(if: runs))
    func disable() async throws {
        #expect(try await Self.encrypted(Self.url(host: "127.0.0.1", "?sslmode=disable")) == false)
    }

    @Test(
        "prefer (the default) and allow: encrypted when the server offers it, certificate unchecked",
        .enabled(if: runs)
    )
    func prefer() async throws {
        #expect(try await Self.encrypted(Self.url(host: "127.0.0.1", "")) == true)
        #expect(try await Self.encrypted(Self.url(host: "127.0.0.2", "?sslmode=allow")) == true)
    }

    @Test("require: encrypted without the CA (libpq does not check the certificate)", .enabled(if: runs))
    func require() async throws {
        #expect(try await Self.encrypted(Self.url(host: "127.0.0.1", "?sslmode=require")) == true)
        // Nor its name.
        #expect(try await Self.encrypted(Self.url(host: "127.0.0.2", "?sslmode=require")) == true)
    }

    @Test("require with sslrootcert checks the chain, as verify-ca", .enabled(if: runs))
    func requireWithRootCertificate() async throws {
        #expect(try await Self.encrypted(Self.url(host: "127.0.0.2", "?sslmode=require&sslrootcert=CA")) == true)
        // A root that did not sign the server's certificate: the chain does not lead to it.
        let stranger = FileManager.default.temporaryDirectory.appendingPathComponent("stranger-\(UUID()).pem")
        try Data(PostgresURLTLSTests.pem.utf8).write(to: stranger)
        defer { try? FileManager.default.removeItem(at: stranger) }
        let refusal = try await Self.refusal(
            Self.url(host: "127.0.0.1", "?sslmode=require&sslrootcert=\(stranger.path)")
        )
        #expect(refusal?.contains("CERTIFICATE_VERIFY_FAILED") == true, "\(refusal ?? "connected")")
    }

    @Test("verify-ca: refused without the CA (the system's store lacks it), connects with it", .enabled(if: runs))
    func verifyCA() async throws {
        let refusal = try await Self.refusal(Self.url(host: "127.0.0.1", "?sslmode=verify-ca"))
        #expect(refusal?.contains("CERTIFICATE_VERIFY_FAILED") == true, "\(refusal ?? "connected")")
        #expect(try await Self.encrypted(Self.url(host: "127.0.0.1", "?sslmode=verify-ca&sslrootcert=CA")) == true)
        // The host name is not checked: 127.0.0.2 is not in the certificate.
        #expect(try await Self.encrypted(Self.url(host: "127.0.0.2", "?sslmode=verify-ca&sslrootcert=CA")) == true)
    }

    @Test("verify-full: connects to names the certificate has, refused for one it lacks", .enabled(if: runs))
    func verifyFull() async throws {
        #expect(try await Self.encrypted(Self.url(host: "localhost", "?sslmode=verify-full&sslrootcert=CA")) == true)
        #expect(try await Self.encrypted(Self.url(host: "127.0.0.1", "?sslmode=verify-full&sslrootcert=CA")) == true)
        let wrongName = try await Self.refusal(Self.url(host: "127.0.0.2", "?sslmode=verify-full&sslrootcert=CA"))
        #expect(wrongName != nil, "connected to 127.0.0.2, which the certificate does not name")
        // Refused for the name, not the chain (the same server and CA connect with verify-ca).
        #expect(wrongName?.contains("failedToValidateHostname") == true, "\(wrongName ?? "connected")")
        let noCA = try await Self.refusal(Self.url(host: "localhost", "?sslmode=verify-full"))
        #expect(noCA?.contains("CERTIFICATE_VERIFY_FAILED") == true, "\(noCA ?? "connected")")
    }

    /// Not a test of the code: of the run, as `TestDatabaseTests` for the store suites. A run
    /// without the CA's certificate skips the tests above; this says so with a warning (a
    /// server of one's own in `EMPTY_STATE_TEST_DATABASE_URL` may have no TLS). `make unit-test`'s
    /// throwaway server always sets the variable.
    @Test("the TLS tests ran: EMPTY_STATE_TEST_DATABASE_URL_SSLROOTCERT names the test server's CA")
    func postgresTLSSuiteRan() {
        guard !Self.runs else { return }
        let message =
            "the PostgreSQL TLS tests did not run: they need \(Self.rootCertificateVariable), the CA of a server "
            + "with TLS on, beside \(TestDatabase.urlVariable); POSTGRES_SSL=1 bash scripts/postgres.sh with "
            + "\"$(mktemp -d)\" \(TestDatabase.urlVariable) swift test sets both (what make unit-test does)"
        FileHandle.standardError.write(Data("\nWARNING: \(message)\n\n".utf8))
        Issue.record(Comment(rawValue: message), severity: .warning)
    }
}

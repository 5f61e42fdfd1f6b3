import EmptyStatePostgres
import Foundation
import PostgresNIO
import Testing

/// What `--database-url` accepts and refuses, and what each `sslmode` and `sslrootcert` make of
/// the connection (libpq's meanings). `PostgresTLSTests` connects with them to a server that
/// has a certificate.
@Suite("PostgresURL")
struct PostgresURLTests {
    /// One accepted URL and the parts it must give.
    struct Accepted: Sendable, CustomTestStringConvertible {
        var text: String
        var user: String
        var password: String?
        var host: String
        var port: Int
        var database: String
        var tlsMode: PostgresURL.TLSMode

        var testDescription: String { text }
    }

    @Test(
        "every accepted form gives its parts; the port defaults to 5432 and sslmode to prefer",
        arguments: [
            Accepted(
                text: "postgres://app:s3cret@db.internal:6432/catalogue?sslmode=require",
                user: "app",
                password: "s3cret",
                host: "db.internal",
                port: 6432,
                database: "catalogue",
                tlsMode: .require
            ),
            Accepted(
                text: "postgresql://app:s3cret@db.internal/catalogue",
                user: "app",
                password: "s3cret",
                host: "db.internal",
                port: 5432,
                database: "catalogue",
                tlsMode: .prefer
            ),
            Accepted(
                text: "POSTGRES://app:s3cret@127.0.0.1:5433/catalogue?sslmode=disable",
                user: "app",
                password: "s3cret",
                host: "127.0.0.1",
                port: 5433,
                database: "catalogue",
                tlsMode: .disable
            ),
            Accepted(
                text: "postgres://app@localhost/catalogue?sslmode=prefer",
                user: "app",
                password: nil,
                host: "localhost",
                port: 5432,
                database: "catalogue",
                tlsMode: .prefer
            ),
            Accepted(
                text: "postgres://app:@localhost/catalogue",
                user: "app",
                password: "",
                host: "localhost",
                port: 5432,
                database: "catalogue",
                tlsMode: .prefer
            ),
            // Percent-escapes in the user, the password and the database are decoded.
            Accepted(
                text: "postgres://ops%40example:p%40ss%3Aw%2Ford@db/my%20db",
                user: "ops@example",
                password: "p@ss:w/ord",
                host: "db",
                port: 5432,
                database: "my db",
                tlsMode: .prefer
            ),
            // Decoded once, as libpq does: `%2540` is `%40`, not `@`.
            Accepted(
                text: "postgres://ops%2540x:p%2541ss@db/cat%2541",
                user: "ops%40x",
                password: "p%41ss",
                host: "db",
                port: 5432,
                database: "cat%41",
                tlsMode: .prefer
            ),
            // The ends of the port range.
            Accepted(
                text: "postgres://app@db:1/catalogue",
                user: "app",
                password: nil,
                host: "db",
                port: 1,
                database: "catalogue",
                tlsMode: .prefer
            ),
            Accepted(
                text: "postgres://app@db:65535/catalogue",
                user: "app",
                password: nil,
                host: "db",
                port: 65535,
                database: "catalogue",
                tlsMode: .prefer
            ),
            // An IPv6 literal loses its brackets.
            Accepted(
                text: "postgres://app:s3cret@[::1]:5432/catalogue",
                user: "app",
                password: "s3cret",
                host: "::1",
                port: 5432,
                database: "catalogue",
                tlsMode: .prefer
            ),
        ]
    )
    func accepted(_ expected: Accepted) throws {
        let url = try PostgresURL(expected.text, homeDirectory: nil)
        #expect(url.user == expected.user)
        #expect(url.password == expected.password)
        #expect(url.host == expected.host)
        #expect(url.port == expected.port)
        #expect(url.database == expected.database)
        #expect(url.tlsMode == expected.tlsMode)
    }

    @Test(
        "each refused form names the missing or wrong part",
        arguments: [
            (
                "mysql://app:s3cret@db/catalogue",
                "the database URL must look like postgres://user:password@host:5432/database"
            ),
            (
                "http://app:s3cret@db/catalogue",
                "the database URL must look like postgres://user:password@host:5432/database"
            ),
            (
                "db.internal:5432/catalogue",
                "the database URL must look like postgres://user:password@host:5432/database"
            ),
            ("", "the database URL must look like postgres://user:password@host:5432/database"),
            ("postgres:///catalogue", "the database URL has no host (postgres://user:password@HOST:5432/database)"),
            ("postgres://db/catalogue", "the database URL has no user (postgres://USER:password@host:5432/database)"),
            (
                "postgres://:s3cret@db/catalogue",
                "the database URL has no user (postgres://USER:password@host:5432/database)"
            ),
            (
                "postgres://app:s3cret@db",
                "the database URL names no database (postgres://user:password@host:5432/DATABASE)"
            ),
            (
                "postgres://app:s3cret@db/",
                "the database URL names no database (postgres://user:password@host:5432/DATABASE)"
            ),
            (
                "postgres://app:s3cret@db/catalogue/extra",
                "the database URL names no database (postgres://user:password@host:5432/DATABASE)"
            ),
            ("postgres://app:s3cret@db:0/catalogue", "the database URL's port must be between 1 and 65535 (got 0)"),
            (
                "postgres://app:s3cret@db:65536/catalogue",
                "the database URL's port must be between 1 and 65535 (got 65536)"
            ),
            (
                "postgres://app:s3cret@db:99999999/catalogue",
                "the database URL's port must be between 1 and 65535 (got 99999999)"
            ),
            (
                "postgres://app:s3cret@db/catalogue?sslmode=verify_full",
                "sslmode in the database URL must be disable, allow, prefer, require, verify-ca or verify-full"
            ),
            (
                "postgres://app:s3cret@db/catalogue?sslmode=REQUIRE",
                "sslmode in the database URL must be disable, allow, prefer, require, verify-ca or verify-full"
            ),
            (
                "postgres://app:s3cret@db/catalogue?sslmode",
                "sslmode in the database URL must be disable, allow, prefer, require, verify-ca or verify-full"
            ),
            (
                "postgres://app:s3cret@db/catalogue?sslmode=require&sslrootcert=",
                "sslrootcert in the database URL must be the path of a PEM file, or system"
            ),
            (
                "postgres://app:s3cret@db/catalogue?sslrootcert",
                "sslrootcert in the database URL must be the path of a PEM file, or system"
            ),
            // libpq: the system's store only with verify-full.
            (
                "postgres://app:s3cret@db/catalogue?sslmode=require&sslrootcert=system",
                "sslrootcert=system in the database URL needs sslmode=verify-full (got sslmode=require): "
                    + "any public CA can sign a certificate that passes a weaker check"
            ),
            (
                "postgres://app:s3cret@db/catalogue?sslrootcert=system&sslmode=verify-ca",
                "sslrootcert=system in the database URL needs sslmode=verify-full (got sslmode=verify-ca): "
                    + "any public CA can sign a certificate that passes a weaker check"
            ),
            (
                "postgres://app:s3cret@db/catalogue?sslmode=disable&application_name=x",
                #"the database URL has an unknown parameter "application_name" (only sslmode and sslrootcert)"#
            ),
            (
                "postgres://app:s3cret@db/catalogue?connect_timeout=3",
                #"the database URL has an unknown parameter "connect_timeout" (only sslmode and sslrootcert)"#
            ),
        ]
    )
    func refused(_ text: String, _ message: String) {
        #expect {
            _ = try PostgresURL(text, homeDirectory: nil)
        } throws: { error in
            guard let invalid = error as? PostgresURL.Invalid else { return false }
            // The message is what the operator sees at start: it never repeats the password.
            // A wrong URL is a usage error, not a file to fix.
            return invalid.description == message && !invalid.description.contains("s3cret")
                && !invalid.isFileProblem
        }
    }

    @Test("logs and errors show the URL with the password replaced, and sslmode as it will be used")
    func redacted() throws {
        let url = try PostgresURL("postgresql://app:s3cret@db.internal:6432/catalogue?sslmode=require")
        #expect(url.redacted == "postgres://app:***@db.internal:6432/catalogue?sslmode=require")
        #expect(url.description == url.redacted)
        #expect("\(url)" == url.redacted)
        #expect(!String(reflecting: url).contains("s3cret"))

        let escaped = try PostgresURL("postgres://app:p%40ss@db/catalogue")
        #expect(escaped.redacted == "postgres://app:***@db:5432/catalogue?sslmode=prefer")
        #expect(!escaped.redacted.contains("p@ss") && !escaped.redacted.contains("p%40ss"))

        // An IPv6 host keeps its brackets, and the redacted form parses back to the same server.
        let ipv6 = try PostgresURL("postgres://app:s3cret@[fd00::5]:6432/catalogue")
        #expect(ipv6.redacted == "postgres://app:***@[fd00::5]:6432/catalogue?sslmode=prefer")
        let reparsed = try PostgresURL(ipv6.redacted)
        #expect(reparsed.host == "fd00::5" && reparsed.port == 6432 && reparsed.database == "catalogue")

        // The user and database are encoded again, so the redacted URL still has one `@` and
        // names the same user.
        let encoded = try PostgresURL("postgres://ops%40example:pw@db/my%20db")
        #expect(encoded.redacted == "postgres://ops%40example:***@db:5432/my%20db?sslmode=prefer")
        #expect(try PostgresURL(encoded.redacted).user == "ops@example")

        // No password: nothing to hide, and no "***" to suggest there was one.
        let passwordless = try PostgresURL("postgres://app@db/catalogue?sslmode=disable")
        #expect(passwordless.redacted == "postgres://app@db:5432/catalogue?sslmode=disable")
        // An empty password is still a password.
        #expect(
            try PostgresURL("postgres://app:@db/catalogue").redacted
                == "postgres://app:***@db:5432/catalogue?sslmode=prefer"
        )
    }

    @Test("two spellings of the same server are equal")
    func equality() throws {
        #expect(
            try PostgresURL("postgresql://app:s3cret@db/catalogue")
                == PostgresURL("postgres://app:s3cret@db:5432/catalogue?sslmode=prefer")
        )
        #expect(
            try PostgresURL("postgres://app:s3cret@db/catalogue") != PostgresURL("postgres://app:other@db/catalogue")
        )
    }
}

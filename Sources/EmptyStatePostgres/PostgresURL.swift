import Foundation
import PostgresNIO

/// A `postgres://` URL (`--database-url`, `EMPTY_STATE_DATABASE_URL`), parsed and checked at start.
///
/// `postgres://user:password@host:port/database?sslmode=disable|prefer|require`; `postgresql://`
/// too. The port defaults to 5432 and `sslmode` to `prefer` (TLS when the server offers it), as
/// with libpq. Percent-escapes in the user, password and database are decoded once (`%40` for
/// `@`; `%2540` is the four characters `%40`), as libpq does.
package struct PostgresURL: Sendable, Equatable, CustomStringConvertible {
    package enum TLSMode: String, Sendable {
        case disable, prefer, require
    }

    package var user: String
    package var password: String?
    package var host: String
    package var port: Int
    package var database: String
    package var tlsMode: TLSMode

    /// Why a URL cannot be used; names the part, never the password.
    package struct Invalid: Error, CustomStringConvertible {
        package var description: String
    }

    package init(_ text: String) throws(Invalid) {
        guard let components = URLComponents(string: text), let scheme = components.scheme,
            ["postgres", "postgresql"].contains(scheme.lowercased())
        else {
            throw Invalid(description: "the database URL must look like postgres://user:password@host:5432/database")
        }
        guard let host = components.host, !host.isEmpty else {
            throw Invalid(description: "the database URL has no host (postgres://user:password@HOST:5432/database)")
        }
        guard let user = components.user, !user.isEmpty else {
            throw Invalid(description: "the database URL has no user (postgres://USER:password@host:5432/database)")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            throw Invalid(
                description: "the database URL names no database (postgres://user:password@host:5432/DATABASE)"
            )
        }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else {
            throw Invalid(description: "the database URL's port must be between 1 and 65535 (got \(port))")
        }
        var tlsMode = TLSMode.prefer
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let value = item.value, let mode = TLSMode(rawValue: value) else {
                    throw Invalid(description: "sslmode in the database URL must be disable, prefer or require")
                }
                tlsMode = mode
            default:
                throw Invalid(description: "the database URL has an unknown parameter \"\(item.name)\" (only sslmode)")
            }
        }
        // `URLComponents.user`, `.password` and `.path` are already decoded: decoding them again
        // would turn a password holding `%40` into one holding `@`.
        self.user = user
        self.password = components.password
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        self.port = port
        self.database = database
        self.tlsMode = tlsMode
    }

    /// The URL with the password replaced by `***`: what logs and errors show. It parses back to
    /// the same server: the user and database are percent-encoded again, and an IPv6 host gets its
    /// brackets back (`[::1]:5432`, not the ambiguous `::1:5432`).
    package var redacted: String {
        let user = user.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? user
        let host = host.contains(":") ? "[\(host)]" : host
        let database = database.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? database
        return
            "postgres://\(user)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)?sslmode=\(tlsMode.rawValue)"
    }

    package var description: String { redacted }

    /// The pool's TLS setting.
    var tls: PostgresClient.Configuration.TLS {
        switch tlsMode {
        case .disable: return .disable
        case .prefer: return .prefer(.makeClientConfiguration())
        case .require: return .require(.makeClientConfiguration())
        }
    }
}

import Foundation
import PostgresNIO

/// A `postgres://` URL (`--database-url`, `EMPTY_STATE_DATABASE_URL`), parsed and checked at start.
///
/// `postgres://user:password@host:port/database?sslmode=…&sslrootcert=…`; `postgresql://` too.
/// The port defaults to 5432. Percent-escapes in the user, password and database are decoded once
/// (`%40` for `@`; `%2540` is the four characters `%40`), as libpq does.
///
/// `sslmode` and `sslrootcert` mean what they mean to libpq (`psql`, `pg_dump`), so a URL copied
/// from one of them connects the same way here:
///
/// | sslmode | encrypted | certificate checked |
/// | --- | --- | --- |
/// | `disable` | never | – |
/// | `allow` | read as `prefer` (see below) | – |
/// | `prefer` (default) | when the server offers it | never |
/// | `require` | always | only with a root certificate (then as `verify-ca`) |
/// | `verify-ca` | always | signed by a trusted root |
/// | `verify-full` | always | signed by a trusted root, and issued for the host of the URL |
///
/// The trusted roots are `sslrootcert`'s file of PEM certificates; without it
/// `~/.postgresql/root.crt` when that file exists (libpq's default); without either, the system's
/// trust store for `verify-ca` and `verify-full` (where libpq would refuse to connect), and no
/// check for `require`. `sslrootcert=system` is the system's store; as in libpq it implies
/// `verify-full` and refuses a weaker `sslmode`, because any public CA can sign a certificate
/// that passes a check of the chain alone. `prefer` never checks: it falls back to plain text
/// anyway, so a check would protect nothing.
///
/// `allow` (libpq: plain text first, TLS only when the server insists) is read as `prefer`:
/// postgres-nio cannot try plain text first, and `prefer` reaches every server `allow` reaches,
/// encrypting where `allow` would not. Refusing it would break URLs written for libpq for no
/// gain.
package struct PostgresURL: Sendable, Equatable, CustomStringConvertible {
    /// `sslmode`: whether the connection is encrypted, and how far the server's certificate is checked.
    package enum TLSMode: String, Sendable, CaseIterable {
        case disable, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    /// `sslrootcert` as given in the URL.
    package enum RootCertificate: Sendable, Equatable {
        /// A file of one or more PEM certificates.
        case file(String)
        /// `system`: the system's trust store.
        case system
    }

    /// What the server's certificate is checked against, worked out from `sslmode`, `sslrootcert`
    /// and libpq's default root certificate file.
    package enum Verification: Sendable, Equatable {
        /// Encrypted (or not) without any check: anyone on the path can pose as the server.
        case none
        /// The chain must lead to one of these roots (`nil`: the system's); any host name is accepted.
        case chain(roots: [NIOSSLCertificate]?)
        /// The chain must lead to one of these roots (`nil`: the system's), and the certificate
        /// must name the host of the URL.
        case chainAndHostName(roots: [NIOSSLCertificate]?)
    }

    package var user: String
    package var password: String?
    package var host: String
    package var port: Int
    package var database: String
    package var tlsMode: TLSMode
    /// `sslrootcert`, when the URL gives it.
    package var rootCertificate: RootCertificate?
    /// How the server's certificate is checked; `.none` for `disable` and `prefer`.
    package var verification: Verification

    /// Why a URL cannot be used; names the part, never the password.
    package struct Invalid: Error, CustomStringConvertible {
        package var description: String
        /// The URL is well formed but a certificate file it names (or libpq's default one)
        /// cannot be read or holds no certificate: a file to fix, not a setting (exit 78, not 64).
        package var isFileProblem = false
    }

    /// libpq's default root certificate file, relative to the home directory.
    package static let defaultRootCertificatePath = ".postgresql/root.crt"

    /// Parses `text` and loads the root certificates it needs.
    /// - Parameters:
    ///   - homeDirectory: where libpq's default `.postgresql/root.crt` is looked for when the URL
    ///     gives no `sslrootcert`; `nil` looks nowhere. The process's `HOME` by default.
    /// - Throws: `Invalid`, naming the part of the URL that is wrong.
    package init(
        _ text: String,
        homeDirectory: String? = ProcessInfo.processInfo.environment["HOME"]
    )
        throws(Invalid)
    {
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
        var tlsMode: TLSMode?
        var rootCertificate: RootCertificate?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                // `allow` is read as `prefer`: see the type's comment.
                let value = item.value == "allow" ? TLSMode.prefer.rawValue : item.value
                guard let value, let mode = TLSMode(rawValue: value) else {
                    throw Invalid(
                        description:
                            "sslmode in the database URL must be disable, allow, prefer, require, verify-ca or verify-full"
                    )
                }
                tlsMode = mode
            case "sslrootcert":
                guard let value = item.value, !value.isEmpty else {
                    throw Invalid(
                        description: "sslrootcert in the database URL must be the path of a PEM file, or system"
                    )
                }
                rootCertificate = value == "system" ? .system : .file(value)
            default:
                throw Invalid(
                    description:
                        "the database URL has an unknown parameter \"\(item.name)\" (only sslmode and sslrootcert)"
                )
            }
        }
        // libpq: the system's store implies verify-full, and a weaker mode is refused.
        let mode = tlsMode ?? (rootCertificate == .system ? .verifyFull : .prefer)
        if rootCertificate == .system, mode != .verifyFull {
            throw Invalid(
                description:
                    "sslrootcert=system in the database URL needs sslmode=verify-full (got sslmode=\(mode.rawValue)): "
                    + "any public CA can sign a certificate that passes a weaker check"
            )
        }
        // `URLComponents.user`, `.password` and `.path` are already decoded: decoding them again
        // would turn a password holding `%40` into one holding `@`.
        self.user = user
        self.password = components.password
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        self.port = port
        self.database = database
        self.tlsMode = mode
        self.rootCertificate = rootCertificate
        self.verification = try Self.verification(mode, rootCertificate, homeDirectory: homeDirectory)
    }

    /// libpq's rules for what a mode checks, with the certificates loaded now so that an
    /// unreadable file stops the start instead of failing every connection later.
    private static func verification(
        _ mode: TLSMode,
        _ rootCertificate: RootCertificate?,
        homeDirectory: String?
    ) throws(Invalid) -> Verification {
        if mode == .disable || mode == .prefer { return .none }
        let roots: [NIOSSLCertificate]?
        switch rootCertificate {
        case .system:
            roots = nil
        case .file(let path):
            roots = try certificates(in: path, what: "sslrootcert \(path)")
        case nil:
            let home = homeDirectory.flatMap { $0.isEmpty ? nil : $0 }
            let defaultPath = home.map {
                URL(fileURLWithPath: $0).appendingPathComponent(defaultRootCertificatePath).path
            }
            if let defaultPath, FileManager.default.fileExists(atPath: defaultPath) {
                roots = try certificates(in: defaultPath, what: "the default root certificate \(defaultPath)")
            } else if mode == .require {
                return .none
            } else {
                roots = nil
            }
        }
        switch mode {
        case .disable, .prefer: return .none
        case .require, .verifyCA: return .chain(roots: roots)
        case .verifyFull: return .chainAndHostName(roots: roots)
        }
    }

    private static func certificates(in path: String, what: String) throws(Invalid) -> [NIOSSLCertificate] {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw Invalid(
                description: "the database URL's \(what) does not exist or cannot be read",
                isFileProblem: true
            )
        }
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMFile(path)
        } catch {
            throw Invalid(
                description: "the database URL's \(what) is not a file of PEM certificates (\(error))",
                isFileProblem: true
            )
        }
        guard !certificates.isEmpty else {
            throw Invalid(description: "the database URL's \(what) holds no PEM certificate", isFileProblem: true)
        }
        return certificates
    }

    /// The URL with the password replaced by `***`: what logs and errors show. It parses back to
    /// the same server and the same TLS settings: the user and database are percent-encoded again,
    /// an IPv6 host gets its brackets back (`[::1]:5432`, not the ambiguous `::1:5432`), and
    /// `sslmode` (as it is used: `allow` shows as `prefer`) and `sslrootcert` are kept.
    package var redacted: String {
        let user = user.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? user
        let host = host.contains(":") ? "[\(host)]" : host
        let database = database.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? database
        var text =
            "postgres://\(user)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)?sslmode=\(tlsMode.rawValue)"
        switch rootCertificate {
        case nil: break
        case .system: text += "&sslrootcert=system"
        case .file(let path):
            var allowed = CharacterSet.urlQueryAllowed
            allowed.remove(charactersIn: "&=+#")
            text += "&sslrootcert=" + (path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path)
        }
        return text
    }

    package var description: String { redacted }

    /// swift-nio-ssl's client settings for `verification`.
    package var tlsConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch verification {
        case .none:
            configuration.certificateVerification = .none
        case .chain(let roots):
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = roots.map { .certificates($0) } ?? .default
        case .chainAndHostName(let roots):
            // postgres-nio sends the host as the server name (SNI) unless it is an IP address;
            // then swift-nio-ssl matches the address connected to against the certificate's IP
            // subject alternative names.
            configuration.certificateVerification = .fullVerification
            configuration.trustRoots = roots.map { .certificates($0) } ?? .default
        }
        return configuration
    }

    /// The pool's TLS setting.
    package var tls: PostgresClient.Configuration.TLS {
        switch tlsMode {
        case .disable: return .disable
        case .prefer: return .prefer(tlsConfiguration)
        case .require, .verifyCA, .verifyFull: return .require(tlsConfiguration)
        }
    }

    /// The same setting for a single `PostgresConnection` (outside the pool).
    /// - Throws: when swift-nio-ssl cannot build a context from `tlsConfiguration`.
    package func connectionTLS() throws -> PostgresConnection.Configuration.TLS {
        switch tlsMode {
        case .disable: return .disable
        case .prefer: return .prefer(try NIOSSLContext(configuration: tlsConfiguration))
        case .require, .verifyCA, .verifyFull: return .require(try NIOSSLContext(configuration: tlsConfiguration))
        }
    }
}

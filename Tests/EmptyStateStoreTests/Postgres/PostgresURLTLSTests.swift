import EmptyStatePostgres
import Foundation
import PostgresNIO
import Testing

/// What each `sslmode` and `sslrootcert` make of the connection, as libpq reads them: whether it
/// is encrypted (`tlsMode`), what the certificate is checked against (`verification`) and the
/// swift-nio-ssl settings that follow. `PostgresTLSTests` connects with them to a real server.
@Suite("PostgresURL: sslmode and sslrootcert")
struct PostgresURLTLSTests {
    /// A self-signed CA certificate whose key was thrown away: only parsed, never trusted.
    static let pem = """
        -----BEGIN CERTIFICATE-----
        MIIBtzCCAV2gAwIBAgIUEPrbUhiC5pLE1dzuTUKEudIa7U0wCgYIKoZIzj0EAwIw
        MDEuMCwGA1UEAwwlUG9zdGdyZXNVUkxUZXN0cyByb290IChrZXkgZGlzY2FyZGVk
        KTAgFw0yNjExMjUxODUzNDFaGA8yMTI2MTEwMTE4NTM0MVowMDEuMCwGA1UEAwwl
        UG9zdGdyZXNVUkxUZXN0cyByb290IChrZXkgZGlzY2FyZGVkKTBZMBMGByqGSM49
        AgEGCCqGSM49AwEHA0IABMRe/V0QGhSOsJkT8lfcA3MQVqZW6GQ6hsULL/XJ2wLb
        qLNNh8QwK+4guooHGDXVlyDElAteoqi4iH84cI/VohCjUzBRMB0GA1UdDgQWBBSm
        BaOIHweTREsHF3CofA4wNQdcCDAfBgNVHSMEGDAWgBSmBaOIHweTREsHF3CofA4w
        NQdcCDAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0gAMEUCIBkYV4kjEphu
        kdP/ouUU/cuSC/O7wOtqfiSNXa/uyj1UAiEA5nRiTsvZ3xKW8POfIQSw2ZQSI5rn
        nDcB5hMbfoHLGsY=
        -----END CERTIFICATE-----

        """

    /// A scratch directory holding `ca.pem` and, when asked, a home with libpq's default
    /// `.postgresql/root.crt`; removed by `remove()`.
    struct Files {
        let directory: URL
        var certificate: String { directory.appendingPathComponent("ca.pem").path }
        var home: String { directory.appendingPathComponent("home").path }

        init(homeRootCertificate: String? = nil) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("pgurl-\(UUID().uuidString)")
            try FileManager.default.createDirectory(
                atPath: directory.appendingPathComponent("home/.postgresql").path,
                withIntermediateDirectories: true
            )
            try Data(PostgresURLTLSTests.pem.utf8).write(to: directory.appendingPathComponent("ca.pem"))
            if let homeRootCertificate {
                try Data(homeRootCertificate.utf8).write(
                    to: directory.appendingPathComponent("home/.postgresql/root.crt")
                )
            }
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    static let base = "postgres://app:s3cret@db.internal/catalogue"

    /// What one set of parameters must give; `roots` is whether the test's certificate (rather
    /// than the system's store) is the trusted root.
    enum Expected: Equatable {
        case noCheck
        case chain(ownRoots: Bool)
        case chainAndHostName(ownRoots: Bool)
    }

    static func kind(_ verification: PostgresURL.Verification, _ certificate: NIOSSLCertificate) -> Expected {
        switch verification {
        case .none: return .noCheck
        case .chain(let roots): return .chain(ownRoots: roots == [certificate])
        case .chainAndHostName(let roots): return .chainAndHostName(ownRoots: roots == [certificate])
        }
    }

    @Test(
        "each sslmode, with and without sslrootcert, and no default root certificate",
        arguments: [
            // (query, mode, verification); CA stands for the path of the test's certificate.
            ("", PostgresURL.TLSMode.prefer, Expected.noCheck),
            ("?sslmode=disable", .disable, .noCheck),
            ("?sslmode=allow", .prefer, .noCheck),  // read as prefer
            ("?sslmode=prefer", .prefer, .noCheck),
            ("?sslmode=require", .require, .noCheck),  // libpq: encrypted, not checked
            ("?sslmode=require&sslrootcert=CA", .require, .chain(ownRoots: true)),  // then as verify-ca
            ("?sslmode=verify-ca", .verifyCA, .chain(ownRoots: false)),  // the system's store
            ("?sslmode=verify-ca&sslrootcert=CA", .verifyCA, .chain(ownRoots: true)),
            ("?sslmode=verify-full", .verifyFull, .chainAndHostName(ownRoots: false)),
            ("?sslrootcert=CA&sslmode=verify-full", .verifyFull, .chainAndHostName(ownRoots: true)),
            ("?sslrootcert=system", .verifyFull, .chainAndHostName(ownRoots: false)),  // implies verify-full
            ("?sslmode=verify-full&sslrootcert=system", .verifyFull, .chainAndHostName(ownRoots: false)),
            // prefer never checks (it falls back to plain text anyway), and disable does not
            // encrypt: neither reads the file, so one that does not exist is no error.
            ("?sslmode=prefer&sslrootcert=/nonexistent/ca.pem", .prefer, .noCheck),
            ("?sslmode=disable&sslrootcert=/nonexistent/ca.pem", .disable, .noCheck),
        ]
    )
    func modes(_ query: String, _ mode: PostgresURL.TLSMode, _ expected: Expected) throws {
        let files = try Files()
        defer { files.remove() }
        let certificate = try #require(try NIOSSLCertificate.fromPEMFile(files.certificate).first)
        let text = Self.base + query.replacingOccurrences(of: "=CA", with: "=" + files.certificate)
        // A home without `.postgresql/root.crt`, so the machine's own cannot change the answer.
        let url = try PostgresURL(text, homeDirectory: files.home)
        #expect(url.tlsMode == mode)
        #expect(Self.kind(url.verification, certificate) == expected)

        // What swift-nio-ssl is given.
        let configuration = url.tlsConfiguration
        switch expected {
        case .noCheck:
            #expect(configuration.certificateVerification == .none)
        case .chain(let own):
            #expect(configuration.certificateVerification == .noHostnameVerification)
            #expect(configuration.trustRoots == (own ? .certificates([certificate]) : .default))
        case .chainAndHostName(let own):
            #expect(configuration.certificateVerification == .fullVerification)
            #expect(configuration.trustRoots == (own ? .certificates([certificate]) : .default))
        }
        // A context can be made from it (what the pool does for every connection).
        if mode != .disable { _ = try url.connectionTLS() }
    }

    @Test("libpq's default ~/.postgresql/root.crt: require checks the chain against it, verify-* trust it")
    func defaultRootCertificate() throws {
        let files = try Files(homeRootCertificate: Self.pem)
        defer { files.remove() }
        let certificate = try #require(try NIOSSLCertificate.fromPEMFile(files.certificate).first)
        func kind(_ query: String) throws -> Expected {
            Self.kind(try PostgresURL(Self.base + query, homeDirectory: files.home).verification, certificate)
        }
        #expect(try kind("?sslmode=require") == .chain(ownRoots: true))
        #expect(try kind("?sslmode=verify-ca") == .chain(ownRoots: true))
        #expect(try kind("?sslmode=verify-full") == .chainAndHostName(ownRoots: true))
        #expect(try kind("?sslmode=prefer") == .noCheck)
        #expect(try kind("") == .noCheck)
        // An sslrootcert of the URL wins over the default file.
        #expect(try kind("?sslrootcert=system") == .chainAndHostName(ownRoots: false))
        // No home to look in: as without the file.
        #expect(
            Self.kind(try PostgresURL(Self.base + "?sslmode=require", homeDirectory: nil).verification, certificate)
                == .noCheck
        )
    }

    @Test("a certificate file that cannot be used stops the start, naming the file (a file problem: exit 78)")
    func unusableFiles() throws {
        let files = try Files(homeRootCertificate: "not a certificate\n")
        defer { files.remove() }
        let empty = files.directory.appendingPathComponent("empty.pem").path
        let garbage = files.directory.appendingPathComponent("garbage.pem").path
        try Data().write(to: URL(fileURLWithPath: empty))
        try Data("-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n".utf8)
            .write(to: URL(fileURLWithPath: garbage))
        let missing = files.directory.appendingPathComponent("missing.pem").path

        func refusal(_ query: String) -> PostgresURL.Invalid? {
            do {
                _ = try PostgresURL(Self.base + query, homeDirectory: files.home)
                return nil
            } catch {
                return error
            }
        }
        for (query, named) in [
            ("?sslmode=verify-ca&sslrootcert=\(missing)", "sslrootcert \(missing) does not exist or cannot be read"),
            ("?sslmode=require&sslrootcert=\(missing)", "sslrootcert \(missing) does not exist or cannot be read"),
            ("?sslmode=verify-full&sslrootcert=\(empty)", "sslrootcert \(empty) "),
            ("?sslmode=verify-full&sslrootcert=\(garbage)", "sslrootcert \(garbage) is not a file of PEM certificates"),
            // The default file exists but holds no certificate: libpq refuses too.
            ("?sslmode=require", "the default root certificate \(files.home)/.postgresql/root.crt "),
        ] {
            let invalid = try #require(refusal(query), "\(query) was accepted")
            #expect(invalid.isFileProblem, "\(query)")
            #expect(invalid.description.contains(named), "\(query): \(invalid.description)")
            #expect(!invalid.description.contains("s3cret"))
        }
        // Modes that read no file do not fail on it.
        #expect(refusal("?sslmode=prefer") == nil)
    }

    @Test("the redacted URL keeps sslmode and sslrootcert, and parses back to the same settings")
    func redacted() throws {
        let files = try Files()
        defer { files.remove() }
        // A path with a space, `&` and `=`, which must not split the query when shown and read back.
        let odd = files.directory.appendingPathComponent("my ca&x=1.pem").path
        try FileManager.default.copyItem(atPath: files.certificate, toPath: odd)
        let encoded = odd.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? odd
        let url = try PostgresURL(Self.base + "?sslmode=verify-ca&sslrootcert=\(encoded)", homeDirectory: nil)
        #expect(url.rootCertificate == .file(odd))
        #expect(url.redacted.hasPrefix("postgres://app:***@db.internal:5432/catalogue?sslmode=verify-ca&sslrootcert="))
        let reparsed = try PostgresURL(url.redacted, homeDirectory: nil)
        #expect(reparsed.rootCertificate == .file(odd) && reparsed.tlsMode == .verifyCA)
        #expect(reparsed.verification == url.verification)

        #expect(
            try PostgresURL(Self.base + "?sslrootcert=system", homeDirectory: nil).redacted
                == "postgres://app:***@db.internal:5432/catalogue?sslmode=verify-full&sslrootcert=system"
        )
        // allow is shown as what is used.
        #expect(
            try PostgresURL(Self.base + "?sslmode=allow", homeDirectory: nil).redacted
                == "postgres://app:***@db.internal:5432/catalogue?sslmode=prefer"
        )
        #expect(
            try PostgresURL(Self.base + "?sslmode=verify-full", homeDirectory: nil).redacted
                == "postgres://app:***@db.internal:5432/catalogue?sslmode=verify-full"
        )
    }
}

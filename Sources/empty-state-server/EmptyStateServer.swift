import ArgumentParser
import EmptyStatePostgres
import EmptyStateSQLite
import EmptyStateService
import EmptyStateStore
import Foundation
import Logging

// One job in one file: the command line. Each of the 23 settings is declared once with its help
// (naming its environment variable and default) and resolved once, flag > environment > default,
// with its range (`resolvedSettings()`; the log level, log format and database URL beside it); the
// help texts are most of the length. The service is built and run by `EmptyStateApplication`, so
// what is here is only the mapping to `ServiceConfiguration`, the logging bootstrap and the exit
// statuses, kept together so that a flag, its variable, its default and its check read as one.

/// `empty-state-server`: reads settings (flag > environment > default) and runs the service.
@main
struct EmptyStateServer: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "empty-state-server",
        abstract: "Serves localized empty-state templates (copy, visual, actions) as JSON over HTTP.",
        discussion: """
            Every setting can also come from the environment variable named beside it; a flag wins \
            over the variable, the variable over the default.

            At start the server validates every template of the built-in catalogue (compiled in, or \
            <config-dir>/templates) and refuses to \
            start (exit status 78) when one breaks a rule, naming the file, the field and the rule. \
            It logs `listening` with the bound port (useful with --port 0). SIGTERM or SIGINT stop \
            accepting, drain open connections for up to --drain-timeout seconds, and exit 0.

            Admin tokens: prefer --admin-tokens-file to --admin-token. A flag's value, secret \
            included, is readable by every local user in /proc/<pid>/cmdline (and often in shell \
            history and process listings); a file of mode 0600 is not.

            Replicas: with --database-url every replica shares one PostgreSQL. Reads are served \
            from memory and keep working while the database is unreachable; writes and event \
            posts then answer 503 with Retry-After, and resume when it returns. /readyz stays \
            200 while the replica serves reads and says "store":"unavailable" in its body.

            Exit status: 0 after a signal; 64 for a bad flag or environment value; 69 when the \
            database cannot be reached at start; 71 when the address cannot be bound (in use, or \
            not an address of this machine); 78 for an invalid catalogue, or a store, data \
            directory, OpenAPI document or admin tokens file that cannot be used (a tokens file \
            readable by group or others included), a database schema newer than this binary, or \
            a libmicrohttpd older than \(EmptyStateApplication.oldestLibmicrohttpd).
            """,
        version: ServiceVersion.current
    )

    /// What every setting falls back to: the configuration types' own defaults, declared there
    /// once (`HTTPServerConfiguration`, `ServiceConfiguration`) and read here for the help texts
    /// and the resolution alike.
    static let defaults = ServiceConfiguration()
    /// The log level without --log-level (logging is set up here, not in the service).
    static let defaultLogLevel = Logger.Level.info

    /// The range of each numeric setting, read by its help text and by its check.
    enum Ranges {
        static let port = 0...65535
        static let threads = 0...256
        static let idleTimeout = 1...3600
        static let headerTimeout = 1...3600
        static let maxConnections = 1...1_000_000
        static let maxConnectionsPerIP = 0...1_000_000
        static let headerMemoryLimit = 4096...(16 * 1024 * 1024)
        static let maxBodySize = 0...(1 << 30)
        static let maxImportSize = 1024...(1 << 30)
        static let memoEntries = 0...(1 << 20)
        static let drainTimeout = 0...600
        static let cacheMaxAge = 0...31_536_000
        static let staleWhileRevalidate = 0...31_536_000
        static let eventRetentionDays = 1...3650
    }

    @Option(
        help:
            "IP address to listen on (IPv4 or IPv6 literal). [EMPTY_STATE_HOST, default \(EmptyStateServer.defaults.http.host)]"
    )
    var host: String?

    @Option(
        parsing: .unconditional,
        help:
            "TCP port; 0 picks a free one and the log says which. [EMPTY_STATE_PORT, default \(EmptyStateServer.defaults.http.port), \(EmptyStateServer.Ranges.port.help)]"
    )
    var port: Int?

    @Option(
        help:
            "Directory for the service's state; created when missing. [EMPTY_STATE_DATA_DIR, default ./\(EmptyStateServer.defaults.dataDirectory)]"
    )
    var dataDir: String?

    @Option(
        help:
            "Directory holding templates/, the built-in catalogue. [EMPTY_STATE_CONFIG_DIR, default: the catalogue compiled into the binary, config/templates at build time]"
    )
    var configDir: String?

    @Option(
        help:
            "The OpenAPI document served at /openapi.yaml. [EMPTY_STATE_OPENAPI_PATH, default: the openapi.yaml compiled into the binary]"
    )
    var openapiPath: String?

    @Option(
        help:
            "trace, debug, info, notice, warning, error or critical; at info and below each answered request gets an access-log line (written in the background; lines are dropped, and counted in /metrics, rather than make a request wait); notice and above turn the access log off. [EMPTY_STATE_LOG_LEVEL, default \(EmptyStateServer.defaultLogLevel.rawValue)]"
    )
    var logLevel: String?

    @Option(
        help:
            "text or json: json writes every log line, access log included, as one JSON object. [EMPTY_STATE_LOG_FORMAT, default \(EmptyStateServer.defaults.logFormat.rawValue)]"
    )
    var logFormat: String?

    @Option(
        parsing: .unconditional,
        help:
            "HTTP worker threads; 0 means one per usable core (CPU affinity). [EMPTY_STATE_THREADS, default \(EmptyStateServer.defaults.http.threads), \(EmptyStateServer.Ranges.threads.help)]"
    )
    var threads: Int?

    @Option(
        parsing: .unconditional,
        help:
            "Seconds a keep-alive connection may stay idle after an answer before it is closed; keep it above the idle timeout of a load balancer in front (60 s for many), so the balancer never sends a request on a connection the service is closing. Also the longest a connection may go without a byte while a request body arrives or an answer is sent. [EMPTY_STATE_IDLE_TIMEOUT, default \(EmptyStateServer.defaults.http.idleTimeout), \(EmptyStateServer.Ranges.idleTimeout.help)]"
    )
    var idleTimeout: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Deprecated: the former name of --idle-timeout, used when that is not given. [EMPTY_STATE_CONNECTION_TIMEOUT]",
            visibility: .hidden
        )
    )
    var connectionTimeout: Int?

    @Option(
        parsing: .unconditional,
        help:
            "Seconds a request's line and headers may take to arrive: from the connection's start for its first request, from its first bytes for the next ones; bytes trickling in do not extend it. [EMPTY_STATE_HEADER_TIMEOUT, default \(EmptyStateServer.defaults.http.headerTimeout), \(EmptyStateServer.Ranges.headerTimeout.help)]"
    )
    var headerTimeout: Int?

    @Option(
        parsing: .unconditional,
        help:
            "Open connections accepted in total; above 90 % of it, connections waiting longest for a request are closed to make room. [EMPTY_STATE_MAX_CONNECTIONS, default \(EmptyStateServer.defaults.http.maxConnections), \(EmptyStateServer.Ranges.maxConnections.help)]"
    )
    var maxConnections: Int?

    @Option(
        parsing: .unconditional,
        help:
            "Open connections accepted per client IP; 0 means unlimited. [EMPTY_STATE_MAX_CONNECTIONS_PER_IP, default \(EmptyStateServer.defaults.http.maxConnectionsPerIP), \(EmptyStateServer.Ranges.maxConnectionsPerIP.help)]"
    )
    var maxConnectionsPerIp: Int?

    @Option(
        parsing: .unconditional,
        help:
            "Bytes per connection for the request line and headers (past it: 431); the query's parsed arguments take it too (a query whose arguments do not fit, about 210 short ones at the default, gets 400). [EMPTY_STATE_HEADER_MEMORY_LIMIT, default \(EmptyStateServer.defaults.http.headerMemoryLimit), \(EmptyStateServer.Ranges.headerMemoryLimit.help)]"
    )
    var headerMemoryLimit: Int?

    @Option(
        parsing: .unconditional,
        help:
            "Largest request body in bytes (past it: 413). [EMPTY_STATE_MAX_BODY_SIZE, default \(EmptyStateServer.defaults.http.maxBodySize), \(EmptyStateServer.Ranges.maxBodySize.help)]"
    )
    var maxBodySize: Int?

    @Option(
        parsing: .unconditional,
        help:
            "Largest translation file POST /v1/admin/translations/import takes, in bytes; that route's own limit, in place of --max-body-size (past it: 413). [EMPTY_STATE_MAX_IMPORT_SIZE, default \(EmptyStateServer.defaults.maxImportSize), \(EmptyStateServer.Ranges.maxImportSize.help)]"
    )
    var maxImportSize: Int?

    @Option(
        parsing: .unconditional,
        help:
            "Client answers remembered by request, so a repeated request skips parsing and negotiation; a publish forgets those made from the changed template and the bundles; 0 turns this off. [EMPTY_STATE_MEMO_ENTRIES, default \(EmptyStateServer.defaults.http.memoEntries), \(EmptyStateServer.Ranges.memoEntries.help)]"
    )
    var memoEntries: Int?

    @Option(
        parsing: .unconditional,
        help:
            "Seconds to let open connections finish on shutdown. [EMPTY_STATE_DRAIN_TIMEOUT, default \(Int(EmptyStateServer.defaults.http.drainTimeout)), \(EmptyStateServer.Ranges.drainTimeout.help)]"
    )
    var drainTimeout: Double?

    @Option(
        parsing: .unconditional,
        help:
            "Seconds clients and CDNs may use a template without revalidating (Cache-Control max-age): after an edit, apps may show the old copy for up to this long. [EMPTY_STATE_CACHE_MAX_AGE, default \(EmptyStateServer.defaults.cacheMaxAge), \(EmptyStateServer.Ranges.cacheMaxAge.help)]"
    )
    var cacheMaxAge: Int?

    @Option(
        parsing: .unconditional,
        help:
            "Seconds past max-age clients and CDNs may still show a template while they fetch the new one in the background (Cache-Control stale-while-revalidate): an app that was not opened for a while shows the old copy once more. [EMPTY_STATE_CACHE_STALE_WHILE_REVALIDATE, default \(EmptyStateServer.defaults.staleWhileRevalidate), \(EmptyStateServer.Ranges.staleWhileRevalidate.help)]"
    )
    var cacheStaleWhileRevalidate: Int?

    @Option(
        help:
            "Where web pages load illustrations from: an http(s) URL; {name} in it is replaced by the asset name, otherwise the name is appended. [EMPTY_STATE_ILLUSTRATION_BASE_URL, default none: illustrations are left out of the HTML]"
    )
    var illustrationBaseUrl: String?

    @Option(
        parsing: .unconditional,
        help:
            "Days analytics events are kept before they are pruned. [EMPTY_STATE_EVENT_RETENTION_DAYS, default \(EmptyStateServer.defaults.eventRetentionDays), \(EmptyStateServer.Ranges.eventRetentionDays.help)]"
    )
    var eventRetentionDays: Int?

    @Option(
        name: .customLong("public-url"),
        help: ArgumentHelp(
            "Where browsers reach the service, scheme://host[:port] (e.g. https://empty-states.example.com behind a proxy that terminates TLS). The admin console's changes must come from this origin, and with https its session cookie is Secure. [EMPTY_STATE_PUBLIC_URL, default none: plain HTTP, the request's Host]",
            valueName: "url"
        )
    )
    var publicURL: String?

    @Option(
        name: .customLong("admin-token"),
        help: ArgumentHelp(
            "An admin API token as name:role:secret (role editor or viewer, secret ≥ 16 characters); repeatable. Without any, an editor token is generated into <data-dir>/admin-token. [EMPTY_STATE_ADMIN_TOKENS, comma-separated]",
            valueName: "name:role:secret"
        )
    )
    var adminTokens: [String] = []

    @Option(
        name: .customLong("admin-tokens-file"),
        help: ArgumentHelp(
            "A file of admin tokens, one name:role:secret a line (blank lines and # comments allowed); it must have mode 0600 or stricter. Preferred over --admin-token, whose secret any local user can read in /proc/<pid>/cmdline; tokens from both are accepted. [EMPTY_STATE_ADMIN_TOKENS_FILE]",
            valueName: "path"
        )
    )
    var adminTokensFile: String?

    @Option(
        name: .customLong("database-url"),
        help: ArgumentHelp(
            "PostgreSQL shared by replicas, postgres://user:password@host:5432/database[?sslmode=…&sslrootcert=…], sslmode and sslrootcert as in libpq: disable, prefer (the default: TLS when offered, no certificate check), require (TLS; the certificate is checked only against sslrootcert when given), verify-ca (the chain against sslrootcert or the system trust store), verify-full (the chain and the host name); sslrootcert=system is the system store. Without it, state is kept in SQLite in --data-dir. With it, templates, revisions, audit, app policies, events and admin tokens live in PostgreSQL; the schema is migrated at start; a publish on one replica is served by all. Prefer the environment variable: a flag's value, password included, is readable in /proc/<pid>/cmdline. [EMPTY_STATE_DATABASE_URL]",
            valueName: "url"
        )
    )
    var databaseURL: String?

    mutating func validate() throws {
        _ = try resolvedConfiguration()
        _ = try resolvedLogLevel()
        _ = try resolvedLogFormat()
    }

    /// The PostgreSQL shared by replicas, when configured: a URL that is wrong is a usage error
    /// (64), a certificate file it names that cannot be used is exit 78 (EX_CONFIG), as for the
    /// admin tokens file.
    private func resolvedDatabaseURL() throws -> PostgresURL? {
        guard let text = databaseURL ?? environment("EMPTY_STATE_DATABASE_URL"), !text.isEmpty else { return nil }
        do {
            return try PostgresURL(text)
        } catch  where error.isFileProblem {
            FileHandle.standardError.write(Data("empty-state-server: --database-url: \(error.description)\n".utf8))
            throw ExitCode(78)  // EX_CONFIG
        } catch {
            throw ValidationError("--database-url: \(error.description)")
        }
    }

    /// The configuration, or exit 78 (EX_CONFIG) with the reason when the admin tokens file
    /// cannot be used: the file is named in the flags, but it is a file that is wrong, like an
    /// invalid catalogue, not a flag.
    private func resolvedConfiguration() throws -> ServiceConfiguration {
        do {
            return try resolvedSettings()
        } catch let error as AdminToken.FileError {
            FileHandle.standardError.write(Data("empty-state-server: \(error.description)\n".utf8))
            throw ExitCode(78)  // EX_CONFIG
        }
    }

    func run() throws {
        let level = try resolvedLogLevel()
        let format = try resolvedLogFormat()
        // Every line is escaped: request paths and template copy reach the log, and a control
        // character in them must not split or recolour a line.
        LoggingSystem.bootstrap { label in
            switch format {
            case .text:
                var handler = EscapingLogHandler(wrapping: StreamLogHandler.standardError(label: label))
                handler.logLevel = level
                return handler
            case .json:
                var handler = JSONLogHandler(label: label)
                handler.logLevel = level
                return handler
            }
        }
        let logger = Logger(label: "empty-state-server")
        var configuration = try resolvedConfiguration()
        configuration.logFormat = format
        do {
            let stores = try openStores(configuration, logger: logger)
            let application = try EmptyStateApplication(configuration: configuration, stores: stores, logger: logger)
            try application.runUntilSignalled()
        } catch let error as EmptyStateApplication.StartupError {
            // Once: in the log's format (a JSON line with --log-format json), at critical.
            logger.critical("cannot start", metadata: ["error": "\(error.description)"])
            throw ExitCode(error.exitStatus)  // 78 EX_CONFIG, or 69 EX_UNAVAILABLE (database unreachable)
        } catch {
            logger.critical("cannot start", metadata: ["error": "\(error)"])
            throw ExitCode(71)  // EX_OSERR
        }
    }

    /// The backend, chosen here and nowhere else: PostgreSQL shared by replicas with
    /// `--database-url`, SQLite in the data directory otherwise. The application gets the stores
    /// and never learns which.
    ///
    /// `EMPTY_STATE_BENCH_WITHOUT_ROLLUPS=1` (no flag: it is not for service) makes the event
    /// stores count no rollups, so `make bench` can measure what counting costs ingestion
    /// (`Benchmarks/analytics.py`); the summaries of such a process are wrong.
    /// - Throws: `EmptyStateApplication.StartupError` naming what cannot be used.
    private func openStores(_ configuration: ServiceConfiguration, logger: Logger) throws -> any Stores {
        let countsRollups = environment("EMPTY_STATE_BENCH_WITHOUT_ROLLUPS") != "1"
        if let url = try resolvedDatabaseURL() {
            return try PostgresSharedStore(url: url, countsRollups: countsRollups, logger: logger)
        }
        do {
            return try SQLiteStores(
                directory: configuration.dataDirectory,
                countsRollups: countsRollups,
                logger: logger
            )
        } catch {
            throw EmptyStateApplication.StartupError(description: error.description)
        }
    }

    private func resolvedLogLevel() throws -> Logger.Level {
        let text = logLevel ?? environment("EMPTY_STATE_LOG_LEVEL") ?? Self.defaultLogLevel.rawValue
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            throw ValidationError(
                "--log-level must be trace, debug, info, notice, warning, error or critical (got \"\(text)\")"
            )
        }
        return level
    }

    private func resolvedLogFormat() throws -> LogFormat {
        let text = logFormat ?? environment("EMPTY_STATE_LOG_FORMAT") ?? Self.defaults.logFormat.rawValue
        guard let format = LogFormat(rawValue: text.lowercased()) else {
            throw ValidationError("--log-format must be text or json (got \"\(text)\")")
        }
        return format
    }

    private func resolvedSettings() throws -> ServiceConfiguration {
        var configuration = ServiceConfiguration()
        configuration.http.host = host ?? environment("EMPTY_STATE_HOST") ?? configuration.http.host
        guard Self.isIPLiteral(configuration.http.host) else {
            throw ValidationError(
                "--host must be an IPv4 or IPv6 address such as 127.0.0.1, 0.0.0.0 or ::1; names are not resolved (got \"\(configuration.http.host)\")"
            )
        }
        configuration.http.port = try integer(
            port,
            "EMPTY_STATE_PORT",
            "--port",
            default: configuration.http.port,
            range: Self.Ranges.port
        )
        configuration.dataDirectory = dataDir ?? environment("EMPTY_STATE_DATA_DIR") ?? configuration.dataDirectory
        configuration.configDirectory = configDir ?? environment("EMPTY_STATE_CONFIG_DIR")
        configuration.openAPIPath = openapiPath ?? environment("EMPTY_STATE_OPENAPI_PATH")
        configuration.http.threads = try integer(
            threads,
            "EMPTY_STATE_THREADS",
            "--threads",
            default: configuration.http.threads,
            range: Self.Ranges.threads
        )
        // --connection-timeout and its variable, the former names, count when the new ones are
        // not given; an error names the one that was read.
        let legacyIdleVariable =
            environment("EMPTY_STATE_IDLE_TIMEOUT") == nil && environment("EMPTY_STATE_CONNECTION_TIMEOUT") != nil
        configuration.http.idleTimeout = try integer(
            idleTimeout ?? connectionTimeout,
            legacyIdleVariable ? "EMPTY_STATE_CONNECTION_TIMEOUT" : "EMPTY_STATE_IDLE_TIMEOUT",
            idleTimeout == nil && connectionTimeout != nil ? "--connection-timeout" : "--idle-timeout",
            default: configuration.http.idleTimeout,
            range: Self.Ranges.idleTimeout
        )
        configuration.http.headerTimeout = try integer(
            headerTimeout,
            "EMPTY_STATE_HEADER_TIMEOUT",
            "--header-timeout",
            default: configuration.http.headerTimeout,
            range: Self.Ranges.headerTimeout
        )
        configuration.http.maxConnections = try integer(
            maxConnections,
            "EMPTY_STATE_MAX_CONNECTIONS",
            "--max-connections",
            default: configuration.http.maxConnections,
            range: Self.Ranges.maxConnections
        )
        configuration.http.maxConnectionsPerIP = try integer(
            maxConnectionsPerIp,
            "EMPTY_STATE_MAX_CONNECTIONS_PER_IP",
            "--max-connections-per-ip",
            default: configuration.http.maxConnectionsPerIP,
            range: Self.Ranges.maxConnectionsPerIP
        )
        configuration.http.headerMemoryLimit = try integer(
            headerMemoryLimit,
            "EMPTY_STATE_HEADER_MEMORY_LIMIT",
            "--header-memory-limit",
            default: configuration.http.headerMemoryLimit,
            range: Self.Ranges.headerMemoryLimit
        )
        configuration.http.maxBodySize = try integer(
            maxBodySize,
            "EMPTY_STATE_MAX_BODY_SIZE",
            "--max-body-size",
            default: configuration.http.maxBodySize,
            range: Self.Ranges.maxBodySize
        )
        configuration.maxImportSize = try integer(
            maxImportSize,
            "EMPTY_STATE_MAX_IMPORT_SIZE",
            "--max-import-size",
            default: configuration.maxImportSize,
            range: Self.Ranges.maxImportSize
        )
        configuration.http.memoEntries = try integer(
            memoEntries,
            "EMPTY_STATE_MEMO_ENTRIES",
            "--memo-entries",
            default: configuration.http.memoEntries,
            range: Self.Ranges.memoEntries
        )
        configuration.cacheMaxAge = try integer(
            cacheMaxAge,
            "EMPTY_STATE_CACHE_MAX_AGE",
            "--cache-max-age",
            default: configuration.cacheMaxAge,
            range: Self.Ranges.cacheMaxAge
        )
        configuration.staleWhileRevalidate = try integer(
            cacheStaleWhileRevalidate,
            "EMPTY_STATE_CACHE_STALE_WHILE_REVALIDATE",
            "--cache-stale-while-revalidate",
            default: configuration.staleWhileRevalidate,
            range: Self.Ranges.staleWhileRevalidate
        )
        if let base = illustrationBaseUrl ?? environment("EMPTY_STATE_ILLUSTRATION_BASE_URL"), !base.isEmpty {
            guard base.hasPrefix("https://") || base.hasPrefix("http://"), !base.contains("\""), !base.contains(" ")
            else {
                throw ValidationError("--illustration-base-url must be an http:// or https:// URL (got \"\(base)\")")
            }
            configuration.illustrationBaseURL = base
        }
        if let drainTimeout {
            configuration.http.drainTimeout = drainTimeout
        } else if let text = environment("EMPTY_STATE_DRAIN_TIMEOUT") {
            guard let value = Double(text) else {
                throw ValidationError("EMPTY_STATE_DRAIN_TIMEOUT must be a number of seconds (got \"\(text)\")")
            }
            configuration.http.drainTimeout = value
        }
        if let text = publicURL ?? environment("EMPTY_STATE_PUBLIC_URL"), !text.isEmpty {
            guard let origin = PublicOrigin(url: text) else {
                throw ValidationError(
                    "--public-url must be http:// or https://, a host and an optional port, with no path (got \"\(text)\")"
                )
            }
            configuration.publicOrigin = origin
        }
        configuration.eventRetentionDays = try integer(
            eventRetentionDays,
            "EMPTY_STATE_EVENT_RETENTION_DAYS",
            "--event-retention-days",
            default: configuration.eventRetentionDays,
            range: Self.Ranges.eventRetentionDays
        )
        let tokenSpecifications =
            adminTokens.isEmpty
            ? (environment("EMPTY_STATE_ADMIN_TOKENS")?.split(separator: ",").map(String.init) ?? []) : adminTokens
        configuration.adminTokens = try tokenSpecifications.map { specification in
            guard let token = AdminToken(specification: specification.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError(
                    "an admin token must be name:role:secret with role editor or viewer and a secret of at least 16 characters"
                )
            }
            return token
        }
        if let path = adminTokensFile ?? environment("EMPTY_STATE_ADMIN_TOKENS_FILE") {
            let fromFile = try AdminToken.load(file: path)
            configuration.adminTokens += fromFile
            configuration.adminTokensFile = (path, fromFile.count)
        }
        _ = try resolvedDatabaseURL()
        let drainRange = Double(Self.Ranges.drainTimeout.lowerBound)...Double(Self.Ranges.drainTimeout.upperBound)
        guard drainRange.contains(configuration.http.drainTimeout) else {
            throw ValidationError(
                "--drain-timeout must be between \(Self.Ranges.drainTimeout.lowerBound) and \(Self.Ranges.drainTimeout.upperBound) seconds; \(configuration.http.drainTimeout) is out of range"
            )
        }
        return configuration
    }

    private func integer(
        _ flag: Int?,
        _ variable: String,
        _ name: String,
        default value: Int,
        range: ClosedRange<Int>
    ) throws -> Int {
        var resolved = value
        if let flag {
            resolved = flag
        } else if let text = environment(variable) {
            guard let parsed = Int(text) else {
                throw ValidationError("\(variable) must be an integer (got \"\(text)\")")
            }
            resolved = parsed
        }
        guard range.contains(resolved) else {
            throw ValidationError(
                "\(name) must be between \(range.lowerBound) and \(range.upperBound); \(resolved) is out of range"
            )
        }
        return resolved
    }

    private static func isIPLiteral(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    private func environment(_ name: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }
}

extension ClosedRange<Int> {
    /// The range as the help texts write it: `1–3600`.
    fileprivate var help: String { "\(lowerBound)–\(upperBound)" }
}

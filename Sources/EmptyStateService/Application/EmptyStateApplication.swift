import EmptyStateCore
import EmptyStateSQLite
import EmptyStateStore
import Foundation
import HTTPServer
import JSONCoding
import Logging
import ServiceLifecycle
import Synchronization

/// The whole service: the catalogue loaded and pre-rendered, the routes, and the HTTP server.
/// Tests build exactly what `empty-state-server` runs.
package final class EmptyStateApplication: Sendable {
    /// Why the service cannot start; the message says what to fix.
    package struct StartupError: Error, CustomStringConvertible {
        package let description: String
        /// The process's exit status: 78 (EX_CONFIG) for something to fix in the configuration,
        /// 69 (EX_UNAVAILABLE) when the database cannot be reached (a supervisor retries).
        package var exitStatus: Int32 = 78

        package init(description: String, exitStatus: Int32 = 78) {
            self.description = description
            self.exitStatus = exitStatus
        }
    }

    package let configuration: ServiceConfiguration
    /// What clients are served; replaced as ops publish changes.
    package let state: CatalogueState
    package let store: any TemplateStoring
    /// Analytics events (a database of its own: its write rate has nothing to do with the catalogue's).
    package let events: any EventStoring
    private let retention: RetentionPruner
    /// SQLite: publishes app policies other processes sharing the store file wrote.
    private let policyWatcher: PolicyWatcher?
    /// PostgreSQL: the store shared by replicas, and what runs beside the HTTP service for it
    /// (its pool, and the listener that publishes the changes other replicas commit).
    private let shared: (any SharedStore)?
    private let sharedServices: [any Service]
    /// Served at `GET /metrics`.
    package let metrics: ServiceMetrics
    private let server: HTTPServer
    /// One line per answered request, written in the background; `nil` above `info`.
    private let accessLog: AccessLog?
    private let logger: Logger
    private let readiness = Readiness()

    /// Validates the built-in catalogue, opens the store (importing new built-ins), renders every
    /// representation of the live templates and wires the routes.
    /// - Throws: `StartupError` naming the file, field and rule when the catalogue is invalid,
    ///   or the file or directory that could not be used.
    /// - Parameter shared: the store shared by replicas (`--database-url`); `nil`: SQLite in the
    ///   data directory.
    package init(configuration: ServiceConfiguration, shared: (any SharedStore)? = nil, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        let metrics = ServiceMetrics()
        self.metrics = metrics
        // The client routes' answers, remembered by request; forgotten whenever the catalogue changes.
        let memo =
            configuration.http.memoEntries > 0
            ? ResponseMemo(capacity: configuration.http.memoEntries) : nil
        let started = ContinuousClock.now
        let catalogue: Catalogue
        do {
            catalogue = try CatalogueLoader.load(directory: configuration.templatesDirectory)
        } catch {
            throw StartupError(
                description: "the catalogue in \(configuration.templatesDirectory) is invalid:\n\(error.description)"
            )
        }
        guard let openAPI = FileManager.default.contents(atPath: configuration.openAPIPath) else {
            throw StartupError(
                description: "cannot read the OpenAPI document at \(configuration.openAPIPath) (set --openapi-path)"
            )
        }
        do {
            try FileManager.default.createDirectory(
                atPath: configuration.dataDirectory,
                withIntermediateDirectories: true
            )
        } catch {
            throw StartupError(
                description:
                    "cannot create the data directory \(configuration.dataDirectory): \(error.localizedDescription)"
            )
        }
        let backend: Backend
        do {
            backend = try Self.openStores(
                configuration: configuration,
                shared: shared,
                metrics: metrics,
                logger: logger
            )
        } catch let error as StartupError {
            throw error
        } catch {
            throw StartupError(
                description: "cannot use the store \(shared?.location ?? configuration.storePath): \(error)"
            )
        }
        store = backend.templates
        events = backend.events
        self.shared = shared
        // PostgreSQL: the change feed's number before the snapshot is loaded; the listener
        // catches up from it, so a change committed meanwhile by another replica is not missed.
        let feedStart: Int64
        do {
            let importStarted = ContinuousClock.now
            let imported = try store.importBuiltins(catalogue.templates)
            feedStart = try shared?.latestChange() ?? 0
            logger.info(
                "store opened",
                metadata: [
                    "store.location": "\(store.location)", "store.builtins_added": "\(imported.added)",
                    "store.builtins_updated": "\(imported.updated)",
                    "catalogue.parse_ms": "\((importStarted - started).milliseconds)",
                    "store.import_ms": "\((ContinuousClock.now - importStarted).milliseconds)",
                ]
            )
            state = CatalogueState(CatalogueSnapshot(catalogue: try Catalogue(templates: []))) { names in
                // Bundles are made of every template: their answers go with any template change
                // (a policy change names only app-status answers).
                if let names {
                    let templateChanged = names.contains { !AppStatusBook.isMemoName($0) }
                    memo?.invalidate(names: templateChanged ? names.union([CatalogueSnapshot.bundleMemoName]) : names)
                } else {
                    memo?.invalidate()
                }
            }
            try state.republish(from: store)
        } catch .unavailable(let reason) as StoreError {
            throw StartupError(
                description: "cannot reach the database \(store.location): \(reason)",
                exitStatus: 69
            )
        } catch {
            throw StartupError(description: "cannot use the store \(store.location): \(error)")
        }
        let snapshot = state.snapshot
        logger.info(
            "catalogue loaded",
            metadata: [
                "catalogue.templates": "\(snapshot.templateCount)",
                "catalogue.aliases": "\(snapshot.aliases.count)",
                "catalogue.locales": "\(snapshot.locales.joined(separator: ","))",
                "catalogue.load_ms": "\((ContinuousClock.now - started).milliseconds)",
            ]
        )
        let authorization = try AdminAuthorization.load(
            configured: configuration.adminTokens,
            dataDirectory: configuration.dataDirectory,
            shared: shared,
            logger: logger
        )

        let client = ClientAPI(state: state, cacheControl: configuration.cacheControl)
        let openAPIBody = SharedBytes(Array(openAPI))
        let openAPIETag = "\"\(ContentHash.hex(Array(openAPI)))\""
        var router = Router()
        client.register(on: &router)
        router.get("/healthz") { _ in
            HTTPResponse(
                status: 200,
                headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                body: .bytes(Array(#"{"status":"ok"}"#.utf8))
            )
        }
        // Ready means "can serve reads": the snapshot is loaded and the server is not shutting
        // down. A database outage does not make a replica unready: every replica shares the
        // database, so taking them out of the load balancer would stop the reads they can
        // still serve. The body says whether writes can be served now.
        router.get("/readyz") { [readiness, state, shared] request in
            guard readiness.isReady else {
                return ProblemDetails(
                    status: 503,
                    slug: "not-ready",
                    title: "Service Unavailable",
                    detail: "The service is starting or shutting down."
                ).response(requestID: request.id, extraHeaders: [("Retry-After", "1")])
            }
            return HTTPResponse(
                status: 200,
                headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                body: .bytes(
                    Array(
                        #"{"status":"ready","templates":\#(state.snapshot.templateCount),"store":"\#(shared?.isReachable == false ? "unavailable" : "ok")"}"#
                            .utf8
                    )
                )
            )
        }
        router.get("/openapi.yaml") { request in
            if let condition = request.headers["if-none-match"],
                ConditionalRequests.noneMatch(condition, matches: openAPIETag)
            {
                return HTTPResponse(status: 304, headers: [("ETag", openAPIETag)])
            }
            return HTTPResponse(
                status: 200,
                headers: [
                    ("Content-Type", "application/yaml"), ("ETag", openAPIETag),
                    ("Cache-Control", "public, max-age=300"),
                ],
                body: .shared(openAPIBody)
            )
        }
        // For the scrape network only: no authentication (see the README's "Metrics").
        router.get("/metrics") { [state] _ in metrics.scrape(catalogue: state.snapshot) }
        AdminAPI(store: store, state: state, authorization: authorization, logger: logger).register(on: &router)

        retention = RetentionPruner(store: events, days: configuration.eventRetentionDays, logger: logger)
        if let shared {
            let follower = CatalogueFollower(state: state, shared: shared, after: feedStart, logger: logger)
            sharedServices = shared.services { follower.catchUp() }
            policyWatcher = nil
        } else {
            sharedServices = []
            policyWatcher = PolicyWatcher(state: state, store: store, logger: logger)
        }
        let ingest = EventIngest(
            state: state,
            store: events,
            retentionMilliseconds: Int64(configuration.eventRetentionDays) * 86_400_000,
            logger: logger,
            onOutcome: { metrics.recordEvents(accepted: $0, duplicates: $1, rejected: $2) }
        )
        // Background: under CPU contention, serving templates to users comes before analytics.
        router.add(.post, "/v1/events", background: true) { ingest.post($0) }
        AnalyticsAPI(store: events, authorization: authorization, logger: logger).register(on: &router)
        // The rule of the per-request line it replaces: on at `info` and below.
        let accessLog = logger.logLevel <= .info ? AccessLog(format: configuration.logFormat) : nil
        self.accessLog = accessLog
        // The problem types are the service's contract, not a setting: the HTTP layer's own
        // refusals (404, 405, 413, a query it cannot parse, 503 while shutting down) use them too.
        var http = configuration.http
        http.problemTypes = .emptyState
        server = HTTPServer(
            configuration: http,
            router: router,
            logger: logger,
            observer: { metrics.record($0) },
            memo: memo,
            accessLog: accessLog
        )
        // Unowned, not weak: a weak reference moves the server's reference count to a side
        // table, and every request retains the server (two slow-path retains and releases
        // each). The application owns both, and only the server's own `/metrics` route scrapes.
        metrics.countOpenConnections { [unowned server] in server.openConnections }
        if let memo { metrics.countMemoEntries { memo.count } }
        if let accessLog { metrics.countDroppedAccessLogLines { accessLog.droppedLines } }
    }

    /// Binds and starts serving.
    /// - Returns: the bound port.
    package func start() throws -> Int {
        events.start()
        retention.start()
        accessLog?.start()
        policyWatcher?.start()
        let port = try server.start()
        readiness.isReady = true
        logger.notice(
            "listening",
            metadata: [
                "http.host": "\(configuration.http.host)", "http.port": "\(port)",
                "http.threads": "\(configuration.http.resolvedThreads)",
                "data.dir": "\(configuration.dataDirectory)", "store.location": "\(store.location)",
            ]
        )
        return port
    }

    /// Reports not-ready, drains open connections (bounded) and stops.
    package func shutdown() {
        readiness.isReady = false
        logger.notice(
            "shutting down: draining connections",
            metadata: ["http.drain_timeout_s": "\(configuration.http.drainTimeout)"]
        )
        server.shutdown()
        // After the HTTP drain: requests still waiting for a group commit have been answered.
        policyWatcher?.stop()
        retention.stop()
        events.stop()
        // Last: every request has been answered, and its line is written before the process exits.
        accessLog?.stop()
        logger.notice("stopped")
    }

    /// Starts, then serves until SIGTERM or SIGINT, then shuts down gracefully; blocks the
    /// calling thread (the main thread: never one of Swift concurrency's).
    ///
    /// The services run in one `ServiceGroup`: the database pool, the change listener and the
    /// HTTP service, in that order. Shutdown goes in reverse: the HTTP service stops accepting,
    /// answers what it accepted, flushes queued events and the access log; then the listener
    /// stops; the pool closes last, after every write that needed it.
    @available(*, noasync)
    package func runUntilSignalled() throws {
        signal(SIGPIPE, SIG_IGN)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        for service in sharedServices { services.append(.init(service: service)) }
        services.append(
            .init(
                service: HTTPService(application: self),
                successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup
            )
        )
        let group = ServiceGroup(
            configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        )
        let done = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        Task {
            do {
                try await group.run()
            } catch {
                failure.withLock { $0 = error }
            }
            done.signal()
        }
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// The stores of the configured backend.
    private struct Backend {
        var templates: any TemplateStoring
        var events: any EventStoring
    }

    /// Opens SQLite in the data directory, or takes the shared store's.
    private static func openStores(
        configuration: ServiceConfiguration,
        shared: (any SharedStore)?,
        metrics: ServiceMetrics,
        logger: Logger
    ) throws -> Backend {
        if let shared {
            shared.observeCommits { metrics.recordCommit(store: $0, seconds: $1) }
            return Backend(templates: shared.templates, events: shared.events)
        }
        let templates = try TemplateStore(
            path: configuration.storePath,
            logger: logger,
            onCommit: { metrics.recordCommit(store: "templates", seconds: $0) }
        )
        let events: EventStore
        do {
            events = try EventStore(
                path: configuration.eventStorePath,
                logger: logger,
                onCommit: { metrics.recordCommit(store: "events", seconds: $0) }
            )
        } catch {
            throw StartupError(description: "cannot use the event store \(configuration.eventStorePath): \(error)")
        }
        return Backend(templates: templates, events: events)
    }
}

/// The HTTP server as a service of the group: starts serving, waits for the group's graceful
/// shutdown, then drains and stops (on a thread of its own: draining blocks for seconds).
private struct HTTPService: Service {
    let application: EmptyStateApplication

    func run() async throws {
        _ = try application.start()
        try? await gracefulShutdown()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                application.shutdown()
                continuation.resume()
            }
            thread.name = "shutdown"
            thread.start()
        }
    }
}

extension Duration {
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

/// Whether `/readyz` says ready: set after the server binds, cleared when shutdown begins.
private final class Readiness: Sendable {
    private let flag = Atomic<Bool>(false)

    var isReady: Bool {
        get { flag.load(ordering: .relaxed) }
        set { flag.store(newValue, ordering: .relaxed) }
    }
}

import EmptyStateCore
import EmptyStateStore
import EmptyStateWeb
import Foundation
import HTTPServer
import JSONCoding
import Logging
import ServiceLifecycle
import WebhookClient

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

    /// The oldest libmicrohttpd the server runs on (`HTTPServer.oldestLibraryVersion`), as text.
    package static var oldestLibmicrohttpd: String {
        let oldest = HTTPServer.oldestLibraryVersion
        return "\(oldest.major).\(oldest.minor).\(oldest.patch)"
    }

    package let configuration: ServiceConfiguration
    /// What clients are served; replaced as ops publish changes.
    package let state: CatalogueState
    package let store: any TemplateStoring
    /// Analytics events (a database of its own: its write rate has nothing to do with the catalogue's).
    package let events: any EventStoring
    let retention: RetentionPruner
    /// SQLite: publishes app policies other processes sharing the store file wrote.
    let policyWatcher: PolicyWatcher?
    /// Publishes scheduled change requests (every process runs one; the store's claim makes it once).
    let scheduler: ChangeRequestScheduler
    /// `--admin-tokens-file`, read again while the server runs; `nil` without one.
    let adminTokensFile: AdminTokensFile?
    /// Counts the events an earlier release stored into the rollups.
    let backfill: RollupBackfillWorker
    let folder: RollupFolder
    /// Sends the webhooks' outbox, off the request path.
    let dispatcher: WebhookDispatcher
    /// PostgreSQL: the store shared by replicas, and what runs beside the HTTP service for it
    /// (its pool, and the listener that publishes the changes other replicas commit).
    let shared: (any SharedStore)?
    let sharedServices: [any Service]
    /// Served at `GET /metrics`.
    package let metrics: ServiceMetrics
    let server: HTTPServer
    /// One line per answered request, written in the background; `nil` above `info`.
    let accessLog: AccessLog?
    /// The admin token to make once the server listens (the first start without a configured
    /// token), so that a start that fails writes nothing.
    let firstAdminToken: FirstAdminToken?
    let logger: Logger
    let readiness = Readiness()

    /// Validates the built-in catalogue, imports new built-ins into the store, renders every
    /// representation of the live templates and wires the routes.
    /// - Throws: `StartupError` naming the file, field and rule when the catalogue is invalid,
    ///   or the file or directory that could not be used.
    /// - Parameter stores: the backend `empty-state-server` opened: SQLite in the data directory,
    ///   or a `SharedStore` (PostgreSQL shared by replicas, `--database-url`), whose change feed
    ///   the application then follows.
    package init(configuration: ServiceConfiguration, stores: any Stores, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        let metrics = ServiceMetrics()
        self.metrics = metrics
        // The client routes' answers, remembered by request; forgotten whenever the catalogue changes.
        let memo =
            configuration.http.memoEntries > 0
            ? ResponseMemo(capacity: configuration.http.memoEntries) : nil
        let started = ContinuousClock.now
        let catalogueSource = configuration.templatesDirectory ?? BuiltinFiles.catalogueSource
        let catalogue: Catalogue
        do {
            if let directory = configuration.templatesDirectory {
                catalogue = try CatalogueLoader.load(directory: directory)
            } else {
                catalogue = try CatalogueLoader.load(files: BuiltinFiles.templates, source: catalogueSource)
            }
        } catch {
            throw StartupError(description: "the catalogue in \(catalogueSource) is invalid:\n\(error.description)")
        }
        let iconErrors = catalogue.templates.compactMap { template in
            WebIconRule.violation(in: template, icons: IconSet.lucide).map {
                "\(template.id).json: \(WebIconRule.pointer): \($0)"
            }
        }
        if !iconErrors.isEmpty {
            throw StartupError(
                description: "the catalogue in \(catalogueSource) is invalid:\n\(iconErrors.joined(separator: "\n"))"
            )
        }
        let openAPI: [UInt8]
        if let path = configuration.openAPIPath {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw StartupError(description: "cannot read the OpenAPI document at \(path) (set --openapi-path)")
            }
            openAPI = Array(contents)
        } else {
            openAPI = BuiltinFiles.openAPI
        }
        // SQLite: SQLiteStores made it already; PostgreSQL: it receives a generated admin token.
        do {
            try DataDirectory.prepare(configuration.dataDirectory)
        } catch {
            throw StartupError(description: error.description)
        }
        stores.observeCommits { metrics.recordCommit(store: $0, seconds: $1) }
        store = stores.templates
        events = stores.events
        let shared = stores as? any SharedStore
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
            state = CatalogueState(CatalogueSnapshot(catalogue: try Catalogue(templates: []))) { invalidation in
                memo?.invalidate(invalidation)
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
        var (authorization, firstAdminToken) = try AdminAuthorization.load(
            configured: configuration.adminTokens,
            dataDirectory: configuration.dataDirectory,
            store: stores.tokens,
            shared: shared,
            logger: logger
        )
        self.firstAdminToken = firstAdminToken
        authorization.sessions = ConsoleSessions(store: stores.sessions, publicOrigin: configuration.publicOrigin)
        adminTokensFile = configuration.adminTokensFile.map { file in
            AdminTokensFile(
                path: file.path,
                fixed: Array(configuration.adminTokens.dropLast(file.tokensAtStart)),
                tokens: authorization.configured,
                metrics: metrics,
                logger: logger
            )
        }

        let client = ClientAPI(
            state: state,
            cacheControl: configuration.cacheControl,
            previews: PreviewChannel(store: store, logger: logger)
        )
        var router = Router()
        client.register(on: &router)
        WebAPI(client: client, illustrationBaseURL: configuration.illustrationBaseURL).register(on: &router)
        OperationalRoutes(
            state: state,
            shared: shared,
            readiness: readiness,
            metrics: metrics,
            openAPI: openAPI
        ).register(on: &router)
        let translations = TranslationCatalogue(state: state, store: store)
        let scheduler = ChangeRequestScheduler(state: state, store: store, logger: logger)
        self.scheduler = scheduler
        AdminAPI(
            store: store,
            state: state,
            authorization: authorization,
            logger: logger,
            illustrationBaseURL: configuration.illustrationBaseURL,
            eventRetentionDays: configuration.eventRetentionDays,
            translations: translations,
            importLimits: TranslationImportLimits(maximumBytes: configuration.maxImportSize),
            events: events,
            scheduler: scheduler,
            webhooks: stores.webhooks,
            webhookPolicy: AddressPolicy(
                allowsLoopback: configuration.webhooks.allowsLoopback,
                allowsPrivateNetworks: configuration.webhooks.allowsPrivateNetworks
            ),
            adminTokens: stores.tokens
        ).register(on: &router)
        do {
            dispatcher = try WebhookDispatcher(
                store: stores.webhooks,
                settings: configuration.webhooks,
                metrics: metrics.webhooks,
                logger: logger
            )
        } catch {
            throw StartupError(
                description: "cannot use the webhook CA file \(configuration.webhooks.caFile ?? ""): \(error)"
            )
        }
        ConsoleRoutes(illustrationBaseURL: configuration.illustrationBaseURL).register(on: &router)
        let staleCounts = StaleStringCounts(catalogue: translations)
        // The first count starts now, beside the rest of start-up rather than before it (it reads
        // every string's stamp: a noticeable part of a restart at 10,000 templates), so the
        // gauge is on /metrics from the first count's end, without waiting for a scrape.
        staleCounts.startFirstCount(logger: logger)
        metrics.countStaleStrings { staleCounts.counts() }

        retention = RetentionPruner(store: events, days: configuration.eventRetentionDays, logger: logger)
        if let shared {
            let follower = CatalogueFollower(
                state: state,
                shared: shared,
                after: feedStart,
                logger: logger,
                onAdminTokens: { [stored = authorization.sharedTokens] in stored.reloadLogged() }
            )
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
        router.add(.post, "/v1/events", background: true) { request in
            // Pages on any origin report events (the web component); the answer must say so
            // for the browser to hand it to them.
            var response = ingest.post(request)
            response.headers.append(("Access-Control-Allow-Origin", "*"))
            return response
        }
        router.add(.options, "/v1/events") { WebAPI.eventsPreflight($0) }
        let backfillProgress = BackfillProgress()
        backfill = RollupBackfillWorker(store: events, progress: backfillProgress, metrics: metrics, logger: logger)
        folder = RollupFolder(store: events, logger: logger)
        AnalyticsAPI(
            store: events,
            retentionDays: configuration.eventRetentionDays,
            backfill: backfillProgress,
            authorization: authorization,
            logger: logger
        ).register(on: &router)
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
}

extension Duration {
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

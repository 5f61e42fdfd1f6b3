import Foundation
import Logging
import OpenAPIRuntime
import OpenAPIURLSession

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The client: its state, its start and `run()`. The rest is in `EmptyStateClient+Templates.swift`
// (fetching and caching), `+Revalidation.swift`, `+Events.swift` (delivery and backoff) and
// `+Mapping.swift` (the contract's types to the client's).

/// Empty-state templates for an app: cached, revalidated, available offline; and the events that
/// say what users saw and tapped.
///
/// ```swift
/// let client = EmptyStateClient(configuration: .init(baseURL: serviceURL, appVersion: "5.2.0"))
/// Task { await client.run() }  // delivers events, revalidates in the background
/// let state = try await client.template("connectionRefused")
/// client.displayed(state)
/// ```
///
/// `template(_:parameters:)` answers from memory while the copy is fresh (`max-age`), serves a
/// stale copy while it revalidates it with `If-None-Match` in the background
/// (`stale-while-revalidate`), and falls back to the last-known-good copy on disk when the service
/// is unreachable or answers 5xx (for `stale-if-error`), then to the bundled snapshot.
public final class EmptyStateClient: Sendable {
    /// What the client asks for, and how it caches and reports.
    public let configuration: EmptyStateClientConfiguration

    let api: Client
    let cache: TemplateCache
    let events: EventQueue
    let doorbell = Doorbell()
    let snapshot = Locked<BundledSnapshot?>(nil)
    let revalidationRequests: AsyncStream<Revalidation>.Continuation
    private let revalidationStream: AsyncStream<Revalidation>
    /// Keys with a background revalidation asked for and not finished.
    let pendingRevalidations = Locked<Set<String>>([])
    /// The start of every cache key: the platform and the locales asked for.
    let keyPrefix: String
    let logger: Logger
    /// The clock; tests move it to age cached copies.
    let now: @Sendable () -> Date

    /// A client that talks to the service with `URLSession`.
    /// - Parameters:
    ///   - configuration: the service, the app, and how to cache and report; its `requestTimeout`
    ///     becomes the session's request timeout.
    ///   - logger: where the client logs, the two analytics lines included (at `debug`).
    public convenience init(
        configuration: EmptyStateClientConfiguration,
        logger: Logger = Logger(label: "EmptyState")
    ) {
        let session = URLSessionConfiguration.default
        session.timeoutIntervalForRequest = configuration.requestTimeout
        // The client keeps its own cache (and revalidates it with If-None-Match). URLSession's
        // would answer a preview request from a live copy it kept for the same URL, since it
        // does not honour `Vary: X-Preview-Token`.
        session.urlCache = nil
        session.requestCachePolicy = .reloadIgnoringLocalCacheData
        self.init(
            configuration: configuration,
            transport: URLSessionTransport(configuration: .init(session: URLSession(configuration: session))),
            logger: logger
        )
    }

    /// A client that sends its requests through `transport` (a test double, or a transport with
    /// its own middlewares); ``HeaderParameterMiddleware`` is added in front of it.
    public convenience init(
        configuration: EmptyStateClientConfiguration,
        transport: any ClientTransport,
        logger: Logger = Logger(label: "EmptyState")
    ) {
        self.init(configuration: configuration, transport: transport, logger: logger, now: { Date() })
    }

    init(
        configuration: EmptyStateClientConfiguration,
        transport: any ClientTransport,
        logger: Logger,
        now: @escaping @Sendable () -> Date
    ) {
        self.configuration = configuration
        self.logger = logger
        self.now = now
        api = Client(
            serverURL: configuration.baseURL,
            configuration: Configuration(dateTranscoder: TolerantDateTranscoder()),
            transport: transport,
            middlewares: [HeaderParameterMiddleware()]
        )
        let storage = configuration.storageDirectory
        cache = TemplateCache(
            directory: storage?.appendingPathComponent("templates", isDirectory: true),
            logger: logger
        )
        if let storage { try? FileManager.default.createDirectory(at: storage, withIntermediateDirectories: true) }
        events = EventQueue(
            fileURL: storage?.appendingPathComponent("events.jsonl"),
            capacity: configuration.maxQueuedEvents,
            logger: logger
        )
        (revalidationStream, revalidationRequests) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        keyPrefix = configuration.platform + "\n" + configuration.acceptLanguage + "\n"
    }

    // MARK: Background work

    /// Delivers events and revalidates stale templates until the task is cancelled. Call it once,
    /// from a task that lives as long as the client (`Task { await client.run() }`).
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.deliverEvents() }
            group.addTask {
                for await revalidation in self.revalidationStream {
                    await self.revalidate(revalidation)
                }
            }
        }
    }
}

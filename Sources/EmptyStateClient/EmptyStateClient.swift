import Foundation
import Logging
import OpenAPIRuntime
import OpenAPIURLSession

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

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
    private let doorbell = Doorbell()
    private let snapshot = Locked<BundledSnapshot?>(nil)
    private let revalidationRequests: AsyncStream<Revalidation>.Continuation
    private let revalidationStream: AsyncStream<Revalidation>
    /// Keys with a background revalidation asked for and not finished.
    private let pendingRevalidations = Locked<Set<String>>([])
    /// The start of every cache key: the platform and the locales asked for.
    private let keyPrefix: String
    private let logger: Logger
    /// The clock; tests move it to age cached copies.
    let now: @Sendable () -> Date

    /// A client that talks to the service with `URLSession`.
    /// - Parameters:
    ///   - logger: where the client logs, the two analytics lines included (at `debug`).
    public convenience init(
        configuration: EmptyStateClientConfiguration,
        logger: Logger = Logger(label: "EmptyState")
    ) {
        let session = URLSessionConfiguration.default
        session.timeoutIntervalForRequest = configuration.requestTimeout
        self.init(
            configuration: configuration,
            transport: URLSessionTransport(configuration: .init(session: URLSession(configuration: session))),
            logger: logger
        )
    }

    /// A client that sends its requests through `transport` (a test double, or a transport with
    /// its own middlewares).
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
            middlewares: [EntityTagHeaderMiddleware()]
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

    // MARK: Templates

    /// The template `id` (or an alias) in the app's preferred locales and platform.
    ///
    /// - Parameters:
    ///   - parameters: values for the copy's `{name}` placeholders (`["provider": "BankID"]`).
    /// - Returns: the freshest copy available without waiting when one is cached.
    /// - Throws: ``EmptyStateClientError``: the template does not exist, or nothing usable is
    ///   cached or bundled and the service cannot answer.
    public func template(_ id: String, parameters: [String: String] = [:]) async throws -> EmptyStateTemplate {
        let key = cacheKey(id, parameters)
        guard let entry = cache.entry(key) else {
            return try await fetch(id, parameters: parameters, key: key, cached: nil)
        }
        let age = entry.age(at: now())
        let maxAge = configuration.maxAge ?? entry.policy.maxAge
        if age < maxAge { return entry.template }
        if age < maxAge + entry.policy.staleWhileRevalidate {
            requestRevalidation(Revalidation(key: key, id: id, parameters: parameters))
            return entry.template
        }
        return try await fetch(id, parameters: parameters, key: key, cached: entry)
    }

    /// Fetches the whole catalogue in the preferred locales (`GET /v1/templates`) into the cache
    /// and onto disk, so that every template is then answered without the network.
    /// - Returns: how many templates were cached.
    @discardableResult
    public func prefetch() async throws -> Int {
        let response: Operations.ListTemplates.Output
        do {
            response = try await api.listTemplates(
                query: .init(platform: platformParameter),
                headers: .init(acceptLanguage: configuration.acceptLanguage)
            )
        } catch {
            throw EmptyStateClientError.unavailable("\(error)")
        }
        guard case .ok(let ok) = response else {
            throw EmptyStateClientError.unavailable("GET /v1/templates answered \(response.statusCode)")
        }
        let bundle = try ok.body.applicationJsonCharsetUtf8
        let policy = CachePolicy(cacheControl: ok.headers.cacheControl)
        let received = now()
        var byID: [String: CachedTemplate] = [:]
        for template in bundle.templates {
            // The bundle's ETag is not a template's: these copies revalidate with a full GET.
            let entry = CachedTemplate(
                template: EmptyStateTemplate(template, etag: nil),
                etag: nil,
                receivedAt: received,
                policy: policy
            )
            byID[template.id] = entry
            cache.store(entry, for: cacheKey(template.id, [:]))
        }
        for (alias, id) in bundle.aliases.additionalProperties {
            if let entry = byID[id] { cache.store(entry, for: cacheKey(alias, [:])) }
        }
        return byID.count
    }

    private var platformParameter: Components.Parameters.Platform? {
        Components.Parameters.Platform(rawValue: configuration.platform)
    }

    private func cacheKey(_ id: String, _ parameters: [String: String]) -> String {
        guard !parameters.isEmpty else { return keyPrefix + id }
        return keyPrefix + id + "?"
            + parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
    }

    /// Asks the service for `id`, conditionally when a copy is cached, and falls back to the
    /// cached copy (within `stale-if-error`) or the bundled snapshot when it cannot answer.
    private func fetch(
        _ id: String,
        parameters: [String: String],
        key: String,
        cached: CachedTemplate?
    ) async throws -> EmptyStateTemplate {
        let failure: String
        do {
            let response = try await api.getTemplate(
                path: .init(id: id),
                query: .init(
                    platform: platformParameter,
                    param: parameters.isEmpty
                        ? nil
                        : .init(
                            additionalProperties: Dictionary(
                                uniqueKeysWithValues: parameters.map { ("param." + $0.key, $0.value) }
                            )
                        )
                ),
                headers: .init(acceptLanguage: configuration.acceptLanguage, ifNoneMatch: cached?.etag)
            )
            switch response {
            case .ok(let ok):
                let template = try ok.body.applicationJsonCharsetUtf8
                let entry = CachedTemplate(
                    template: EmptyStateTemplate(template, etag: ok.headers.eTag),
                    etag: ok.headers.eTag,
                    receivedAt: now(),
                    policy: CachePolicy(cacheControl: ok.headers.cacheControl)
                )
                cache.store(entry, for: key)
                return entry.template
            case .notModified(let notModified):
                guard var entry = cached else {
                    failure = "304 Not Modified without a cached copy"
                    break
                }
                entry.receivedAt = now()
                entry.policy = CachePolicy(cacheControl: notModified.headers.cacheControl)
                cache.store(entry, for: key)
                return entry.template
            case .notFound:
                cache.remove(key)
                throw EmptyStateClientError.unknownTemplate(id)
            case .badRequest(let problem):
                let detail = (try? problem.body.applicationProblemJson.detail) ?? "400 Bad Request"
                throw EmptyStateClientError.invalidRequest(detail)
            case .methodNotAllowed, .internalServerError, .undocumented:
                failure = "GET /v1/templates/\(id) answered \(response.statusCode)"
            }
        } catch let error as EmptyStateClientError {
            throw error
        } catch {
            failure = "\(error)"
        }
        if let cached,
            cached.age(at: now()) <= (configuration.maxAge ?? cached.policy.maxAge) + cached.policy.staleIfError
        {
            logger.notice(
                "The service could not be reached; a cached template is served",
                metadata: ["template.id": "\(id)", "error": "\(failure)"]
            )
            return cached.template
        }
        if let bundled = bundledSnapshot().template(id, locales: configuration.preferredLocales) {
            logger.notice(
                "The service could not be reached; the bundled template is served",
                metadata: ["template.id": "\(id)", "error": "\(failure)"]
            )
            return bundled.filled(with: parameters)
        }
        throw EmptyStateClientError.unavailable(failure)
    }

    private func bundledSnapshot() -> BundledSnapshot {
        snapshot.withLock { snapshot in
            if let snapshot { return snapshot }
            let (loaded, failures) = BundledSnapshot.load(configuration.bundledSnapshots)
            for (url, error) in failures {
                logger.error(
                    "A bundled snapshot could not be read",
                    metadata: ["snapshot.file": "\(url.lastPathComponent)", "error": "\(error)"]
                )
            }
            snapshot = loaded
            return loaded
        }
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

    /// A stale copy to revalidate: the key and what to ask for.
    private struct Revalidation: Sendable {
        var key: String
        var id: String
        var parameters: [String: String]
    }

    private func requestRevalidation(_ revalidation: Revalidation) {
        guard pendingRevalidations.withLock({ $0.insert(revalidation.key).inserted }) else { return }
        revalidationRequests.yield(revalidation)
    }

    private func revalidate(_ revalidation: Revalidation) async {
        defer { _ = pendingRevalidations.withLock { $0.remove(revalidation.key) } }
        _ = try? await fetch(
            revalidation.id,
            parameters: revalidation.parameters,
            key: revalidation.key,
            cached: cache.entry(revalidation.key)
        )
    }

    /// Returns when no background revalidation is waiting or under way.
    func waitForRevalidations() async {
        while !pendingRevalidations.withLock({ $0.isEmpty }) {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    // MARK: Events

    /// Records that `template` was shown: logs `EmptyState: displayed "<title>"` (debug) and
    /// queues a `displayed` event.
    public func displayed(_ template: EmptyStateTemplate) {
        logger.debug(
            "EmptyState: displayed \"\(template.title)\"",
            metadata: ["template.id": "\(template.id)", "event.locale": "\(template.locale)"]
        )
        enqueue(type: "displayed", template: template, actionId: nil)
    }

    /// Records that the action `action` (an id of `template.actions`) was tapped: logs
    /// `EmptyState: action "<label>" tapped` (debug) and queues an `actionTapped` event.
    public func tapped(_ template: EmptyStateTemplate, action: String) {
        let label = template.actions.first { $0.id == action }?.label ?? action
        logger.debug(
            "EmptyState: action \"\(label)\" tapped",
            metadata: ["template.id": "\(template.id)", "event.locale": "\(template.locale)"]
        )
        enqueue(type: "actionTapped", template: template, actionId: action)
    }

    /// The events recorded and not yet acknowledged by the service.
    public var queuedEventCount: Int { events.count }

    private func enqueue(type: String, template: EmptyStateTemplate, actionId: String?) {
        events.append(
            QueuedEvent(
                id: UUID(),
                type: type,
                templateId: template.id,
                revision: template.revision,
                etag: template.etag,
                locale: template.locale,
                platform: template.platform,
                appVersion: configuration.appVersion,
                actionId: actionId,
                sessionId: configuration.sessionId,
                occurredAt: now()
            )
        )
        if events.count >= configuration.eventBatchSize { doorbell.ring() }
    }

    /// Sends every queued event now, one batch after another.
    /// - Throws: ``EmptyStateClientError`` when a batch could not be delivered (it stays queued).
    public func flush() async throws {
        while case let batch = events.oldest(configuration.eventBatchSize), !batch.isEmpty {
            switch await send(batch) {
            case .delivered, .refused:
                events.remove(Set(batch.map(\.id)))
            case .retry(_, let reason):
                throw EmptyStateClientError.unavailable(reason)
            }
        }
    }

    private func deliverEvents() async {
        var failures = 0
        while !Task.isCancelled {
            if events.count < configuration.eventBatchSize {
                await doorbell.wait(timeout: configuration.eventFlushInterval)
            }
            let batch = events.oldest(configuration.eventBatchSize)
            guard !Task.isCancelled, !batch.isEmpty else { continue }
            switch await send(batch) {
            case .delivered, .refused:
                events.remove(Set(batch.map(\.id)))
                failures = 0
            case .retry(let retryAfter, let reason):
                failures += 1
                let delay = retryDelay(failures: failures, retryAfter: retryAfter)
                logger.info(
                    "Events not delivered; retrying",
                    metadata: [
                        "events.count": "\(batch.count)", "retry.delay": "\(delay)", "error": "\(reason)",
                    ]
                )
                try? await Task.sleep(for: delay)
            }
        }
    }

    /// Exponential backoff with jitter (half to all of the doubled delay), never sooner than the
    /// service's `Retry-After`.
    func retryDelay(failures: Int, retryAfter: Duration?) -> Duration {
        let doubled = configuration.initialRetryDelay * (1 << min(max(failures - 1, 0), 20))
        let capped = min(doubled, configuration.maxRetryDelay)
        let jittered = capped * Double.random(in: 0.5...1)
        return max(jittered, retryAfter ?? .zero)
    }

    enum Delivery {
        /// Accepted (202): counted, or known duplicates.
        case delivered
        /// Refused for good (400, 413, 415): resending cannot help.
        case refused
        /// Not delivered (unreachable, timeout, 429, 5xx): send the same batch again later.
        case retry(after: Duration?, reason: String)
    }

    /// Posts `batch` as one `EventBatch`. The events keep their ids, so a batch resent after a
    /// timeout is counted once.
    func send(_ batch: [QueuedEvent]) async -> Delivery {
        let sentAt = now()
        let body = Components.Schemas.EventBatch(events: batch.map { $0.schema(sentAt: sentAt) })
        do {
            let response = try await api.postEvents(body: .json(.EventBatch(body)))
            switch response {
            case .accepted(let accepted):
                if let result = try? accepted.body.applicationJsonCharsetUtf8, !result.rejected.isEmpty {
                    logger.warning(
                        "The service rejected events",
                        metadata: [
                            "events.rejected": "\(result.rejected.count)",
                            "reason": "\(result.rejected[0].reason)",
                        ]
                    )
                }
                return .delivered
            case .serviceUnavailable(let unavailable):
                return .retry(after: Self.seconds(unavailable.headers.retryAfter), reason: "503 Service Unavailable")
            case .badRequest, .contentTooLarge, .unsupportedMediaType:
                logger.error(
                    "The service refused a batch of events; it is dropped",
                    metadata: ["events.count": "\(batch.count)", "http.status": "\(response.statusCode)"]
                )
                return .refused
            case .methodNotAllowed:
                return .retry(after: nil, reason: "405 Method Not Allowed")
            case .undocumented(let status, let payload):
                if status == 429 || status >= 500 {
                    return .retry(after: Self.seconds(payload.headerFields[.retryAfter]), reason: "status \(status)")
                }
                logger.error(
                    "The service refused a batch of events; it is dropped",
                    metadata: ["events.count": "\(batch.count)", "http.status": "\(status)"]
                )
                return .refused
            }
        } catch let error as ClientError {
            // A response that is not the contract's (a proxy's 502 or 503, without the service's
            // headers) still says whether and when to retry.
            if let response = error.response, response.status.code != 429, response.status.code < 500 {
                logger.error(
                    "The service refused a batch of events; it is dropped",
                    metadata: ["events.count": "\(batch.count)", "http.status": "\(response.status.code)"]
                )
                return .refused
            }
            return .retry(
                after: Self.seconds(error.response?.headerFields[.retryAfter]),
                reason: "\(error.underlyingError)"
            )
        } catch {
            return .retry(after: nil, reason: "\(error)")
        }
    }

    /// `Retry-After` in seconds (the HTTP-date form is not used by the service).
    private static func seconds(_ retryAfter: String?) -> Duration? {
        guard let retryAfter, let seconds = Int(retryAfter.trimmingCharacters(in: .whitespaces)), seconds >= 0
        else { return nil }
        return .seconds(seconds)
    }
}

extension QueuedEvent {
    /// The contract's `Event`.
    func schema(sentAt: Date) -> Components.Schemas.Event {
        Components.Schemas.Event(
            id: id.uuidString.lowercased(),
            _type: type == "actionTapped" ? .actionTapped : .displayed,
            templateId: templateId,
            revision: revision,
            etag: etag,
            locale: locale,
            platform: Components.Schemas.Platform(rawValue: platform) ?? .web,
            appVersion: appVersion,
            actionId: actionId,
            sessionId: sessionId,
            occurredAt: occurredAt,
            sentAt: sentAt
        )
    }
}

extension EmptyStateTemplate {
    /// This copy with `{name}` placeholders filled from `parameters` (a bundled copy has none filled).
    func filled(with parameters: [String: String]) -> EmptyStateTemplate {
        guard !parameters.isEmpty else { return self }
        func fill(_ text: String) -> String {
            parameters.reduce(text) { $0.replacingOccurrences(of: "{\($1.key)}", with: $1.value) }
        }
        var copy = self
        copy.title = fill(title)
        copy.message = message.map(fill)
        copy.actions = actions.map { action in
            var action = action
            action.label = fill(action.label)
            return action
        }
        copy.visual.label = visual.label.map(fill)
        copy.placeholders = placeholders.filter { parameters[$0] == nil }
        return copy
    }
}

extension Operations.ListTemplates.Output {
    fileprivate var statusCode: Int {
        switch self {
        case .ok: 200
        case .notModified: 304
        case .badRequest: 400
        case .methodNotAllowed: 405
        case .internalServerError: 500
        case .undocumented(let status, _): status
        }
    }
}

extension Operations.GetTemplate.Output {
    fileprivate var statusCode: Int {
        switch self {
        case .ok: 200
        case .notModified: 304
        case .badRequest: 400
        case .notFound: 404
        case .methodNotAllowed: 405
        case .internalServerError: 500
        case .undocumented(let status, _): status
        }
    }
}

extension Operations.PostEvents.Output {
    fileprivate var statusCode: Int {
        switch self {
        case .accepted: 202
        case .badRequest: 400
        case .methodNotAllowed: 405
        case .contentTooLarge: 413
        case .unsupportedMediaType: 415
        case .serviceUnavailable: 503
        case .undocumented(let status, _): status
        }
    }
}

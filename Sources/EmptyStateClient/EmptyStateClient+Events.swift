import Foundation
import Logging
import OpenAPIRuntime

// Events: recording what was shown and tapped, and delivering the queue in batches with
// exponential backoff, `Retry-After` and the service's refusals.

extension EmptyStateClient {
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
        // A preview is copy no user sees: the service would refuse its events, so none is queued.
        guard template.previewOf == nil else { return }
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
                occurredAt: now(),
                // What was shown: the variant the service served this copy as, for this install.
                experimentId: template.experiment?.id,
                variant: template.experiment?.variant,
                installId: template.experiment == nil ? nil : configuration.installID,
                // For the results' new-install segment: sent with the install id only.
                installedAt: template.experiment == nil || configuration.installID == nil
                    ? nil : configuration.installedAt
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

    func deliverEvents() async {
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

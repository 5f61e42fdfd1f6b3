import Dispatch
import EmptyStateStore
import Foundation
import Logging
import Synchronization
import WebhookClient

/// Delivers the webhooks' outbox, off the request path: a thread of its own claims due
/// deliveries (`WebhookStoring.claimDeliveries`, one dispatcher per attempt across replicas),
/// each is sent by a task of its own (`WebhookHTTPClient`: the SSRF guard, bounded timeouts, no
/// redirects), and its outcome is recorded on a worker thread (`recordAttempt`), which schedules
/// the retry (`WebhookRetrySchedule`).
///
/// A receiver that hangs or answers slowly holds at most `perWebhook` of the `maximumInFlight`
/// slots, so every other receiver's deliveries go on; a publish never waits for any of it (the
/// outbox row is all the write adds). Woken at once when a commit queued deliveries
/// (`ringOnQueued`), and every `pollInterval` otherwise (retries come due; on PostgreSQL, rows
/// other replicas queued).
package final class WebhookDispatcher: Sendable {
    /// Deliveries attempted at once in this process.
    static let maximumInFlight = 32
    /// Deliveries of one webhook attempted at once.
    static let perWebhook = 4
    /// How long a claim holds a delivery: longer than an attempt can take (its total timeout),
    /// so a live dispatcher never loses one; a dead one's deliveries are claimed again after it.
    static let lease: Int64 = 60_000
    /// How long stopping waits for the attempts in flight.
    static let shutdownGrace = DispatchTimeInterval.seconds(2)
    /// Finished deliveries stay in the log this long.
    static let logRetention: Int64 = 30 * 86_400_000

    private let store: any WebhookStoring
    private let client: WebhookHTTPClient
    private let metrics: WebhookMetrics?
    private let logger: Logger
    private let pollInterval: DispatchTimeInterval
    private let userAgent: String

    private struct State {
        var stopping = false
        var inFlight: [String: Int] = [:]
        var claims: [String: String] = [:]
        var lastBacklog: ContinuousClock.Instant?
        var lastPrune: ContinuousClock.Instant?
        /// The claims failing since (a database outage): logged when it starts, then once a
        /// minute, not every poll.
        var claimsFailingSince: ContinuousClock.Instant?
        var claimFailureLogged: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let idle = DispatchSemaphore(value: 0)

    /// - Throws: when `settings.caFile` cannot be read as PEM certificates.
    package init(
        store: any WebhookStoring,
        settings: WebhookSettings,
        metrics: WebhookMetrics?,
        logger: Logger,
        pollInterval: DispatchTimeInterval = .seconds(1),
        userAgent: String = "empty-state-service webhooks"
    ) throws {
        var configuration = WebhookHTTPClient.Configuration(
            policy: AddressPolicy(
                allowsLoopback: settings.allowsLoopback,
                allowsPrivateNetworks: settings.allowsPrivateNetworks
            )
        )
        configuration.additionalTrustRoots = settings.caFile
        client = try WebhookHTTPClient(configuration: configuration)
        self.store = store
        self.metrics = metrics
        self.logger = logger
        self.pollInterval = pollInterval
        self.userAgent = userAgent
    }

    /// Starts the claiming thread; a commit that queued deliveries wakes it.
    package func start() {
        store.ringOnQueued { [wake] in wake.signal() }
        let thread = Thread { [self] in loop() }
        thread.name = "webhook-dispatcher"
        thread.start()
    }

    /// Stops claiming, and waits a little (`shutdownGrace`) for the attempts in flight to be
    /// recorded: a receiver that hangs must not hold the shutdown (the HTTP server drains after
    /// this). One still going after that keeps its lease and is attempted again once the lease
    /// runs out, by this process after a restart or by another replica (the receiver may get it
    /// twice: it deduplicates by `webhook-id`).
    package func stop() {
        state.withLock { $0.stopping = true }
        wake.signal()
        finished.wait()
        let deadline = DispatchTime.now() + Self.shutdownGrace
        while state.withLock({ !$0.claims.isEmpty }) {
            if idle.wait(timeout: deadline) == .timedOut { break }
        }
    }

    private func loop() {
        defer { finished.signal() }
        while !state.withLock({ $0.stopping }) {
            let claimed = claim()
            for delivery in claimed { launch(delivery) }
            housekeeping()
            // Claimed a full batch: there may be more due at once.
            if claimed.count == Self.maximumInFlight { continue }
            _ = wake.wait(timeout: .now() + pollInterval)
        }
    }

    /// Claims what this process has room for.
    private func claim() -> [ClaimedDelivery] {
        let (room, inFlight) = state.withLock { state in
            (Self.maximumInFlight - state.claims.count, state.inFlight)
        }
        guard room > 0 else { return [] }
        do {
            let claimed = try store.claimDeliveries(
                now: Timestamp.nowMilliseconds(),
                limit: room,
                perWebhook: Self.perWebhook,
                inFlight: inFlight,
                lease: Self.lease
            )
            let recovered = state.withLock { state -> ContinuousClock.Instant? in
                for delivery in claimed {
                    state.inFlight[delivery.webhookID, default: 0] += 1
                    state.claims[delivery.id] = delivery.claim
                }
                defer { (state.claimsFailingSince, state.claimFailureLogged) = (nil, nil) }
                return state.claimsFailingSince
            }
            if let recovered {
                logger.notice(
                    "claiming webhook deliveries works again",
                    metadata: ["webhook.claims_failed_s": "\((ContinuousClock.now - recovered).milliseconds / 1000)"]
                )
            }
            return claimed
        } catch {
            let now = ContinuousClock.now
            let log = state.withLock { state -> Bool in
                if state.claimsFailingSince == nil { state.claimsFailingSince = now }
                guard state.claimFailureLogged.map({ now - $0 >= .seconds(60) }) ?? true else { return false }
                state.claimFailureLogged = now
                return true
            }
            if log {
                logger.warning(
                    "claiming webhook deliveries failed; retrying every poll (logged once a minute)",
                    metadata: ["error": "\(error)"]
                )
            }
            return []
        }
    }

    /// Sends `delivery` on a task of its own, and records its outcome off the pool.
    private func launch(_ delivery: ClaimedDelivery) {
        Task { [self] in
            let started = Timestamp.nowMilliseconds()
            let outcome = await attempt(delivery)
            DispatchQueue.global(qos: .utility).async { [self] in
                record(delivery, outcome, started: started)
            }
        }
    }

    /// One attempt: the signed request, or why none could be made.
    private func attempt(_ delivery: ClaimedDelivery) async -> WebhookHTTPClient.Outcome {
        let url: WebhookURL
        switch WebhookURL.parse(delivery.url) {
        case .success(let parsed): url = parsed
        case .failure(let refusal):
            return WebhookHTTPClient.Outcome(status: nil, failure: .refused, error: refusal.description, latency: .zero)
        }
        let body = Array(delivery.body.utf8)
        let timestamp = Timestamp.nowMilliseconds() / 1000
        let keys = delivery.secrets.compactMap(WebhookSignature.key(of:))
        let request = WebhookHTTPClient.Request(
            url: url,
            headers: [
                ("Content-Type", "application/json"), ("User-Agent", userAgent), ("webhook-id", delivery.messageID),
                ("webhook-timestamp", String(timestamp)),
                (
                    "webhook-signature",
                    WebhookSignature.header(id: delivery.messageID, timestamp: timestamp, body: body, keys: keys)
                ),
            ],
            body: body
        )
        return await client.send(request)
    }

    private func record(_ delivery: ClaimedDelivery, _ outcome: WebhookHTTPClient.Outcome, started: Int64) {
        let latency = outcome.latency.milliseconds
        let now = Timestamp.nowMilliseconds()
        let next = WebhookRetrySchedule.next(
            afterAttempt: delivery.scheduled,
            status: outcome.status,
            retryAfter: outcome.retryAfter,
            now: now
        )
        var error = outcome.error
        if let status = outcome.status, !(200..<300).contains(status) {
            error =
                if let location = outcome.location {
                    "HTTP \(status): a redirect to \(location), not followed"
                } else {
                    "HTTP \(status)"
                }
        }
        let attempt = WebhookAttempt(
            number: delivery.attempt,
            startedAt: started,
            latencyMilliseconds: latency,
            statusCode: outcome.status,
            error: error,
            responseExcerpt: outcome.excerpt,
            address: outcome.address
        )
        var metadata: Logger.Metadata = [
            "webhook.id": "\(delivery.webhookID)", "delivery.id": "\(delivery.id)",
            "webhook.message_id": "\(delivery.messageID)", "webhook.event": "\(delivery.eventType)",
            "delivery.attempt": "\(delivery.attempt)", "delivery.latency_ms": "\(latency)",
        ]
        if let status = outcome.status { metadata["http.status"] = "\(status)" }
        if let address = outcome.address { metadata["delivery.address"] = "\(address)" }
        switch next {
        case .succeeded:
            logger.info("webhook delivered", metadata: metadata)
        case .retry(let at):
            metadata["error"] = "\(error ?? "")"
            metadata["delivery.next_attempt_at"] = "\(Timestamp.format(milliseconds: at))"
            logger.warning("webhook delivery failed; will retry", metadata: metadata)
        case .failed:
            metadata["error"] = "\(error ?? "")"
            logger.error("webhook delivery failed; giving up", metadata: metadata)
        }
        metrics?.recordAttempt(succeeded: next == .succeeded, givenUp: next == .failed)
        do {
            try store.recordAttempt(
                AttemptOutcome(deliveryID: delivery.id, claim: delivery.claim, attempt: attempt, next: next)
            )
        } catch {
            // The lease runs out and the delivery is attempted again: receivers deduplicate by
            // webhook-id.
            metadata["error"] = "\(error)"
            logger.error("recording a webhook attempt failed; it will be attempted again", metadata: metadata)
        }
        state.withLock { state in
            state.claims[delivery.id] = nil
            state.inFlight[delivery.webhookID, default: 1] -= 1
            if state.inFlight[delivery.webhookID] == 0 { state.inFlight[delivery.webhookID] = nil }
        }
        idle.signal()
        // A slot is free: due deliveries of this or other receivers may be waiting for it.
        wake.signal()
    }

    /// Every few seconds: the backlog for `/metrics`; hourly: the log's old entries.
    private func housekeeping() {
        let now = ContinuousClock.now
        let (backlog, prune) = state.withLock { state -> (Bool, Bool) in
            let backlog = state.lastBacklog.map { now - $0 >= .seconds(5) } ?? true
            let prune = state.lastPrune.map { now - $0 >= .seconds(3600) } ?? true
            if backlog { state.lastBacklog = now }
            if prune { state.lastPrune = now }
            return (backlog, prune)
        }
        if backlog, let metrics {
            do {
                let (pending, oldest) = try store.outboxBacklog()
                let age = oldest.map { Double(max(0, Timestamp.nowMilliseconds() - $0)) / 1000 } ?? 0
                metrics.recordBacklog(pending: pending, oldestAgeSeconds: age)
            } catch {
                logger.warning("reading the webhook outbox backlog failed", metadata: ["error": "\(error)"])
            }
        }
        if prune {
            do {
                let deleted = try store.pruneDeliveries(finishedBefore: Timestamp.nowMilliseconds() - Self.logRetention)
                if deleted > 0 {
                    logger.info("pruned the webhook delivery log", metadata: ["deliveries.deleted": "\(deleted)"])
                }
            } catch {
                logger.warning("pruning the webhook delivery log failed", metadata: ["error": "\(error)"])
            }
        }
    }
}

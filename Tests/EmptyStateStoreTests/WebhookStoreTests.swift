import EmptyStateCore
import EmptyStateSQLite
import EmptyStateStore
import Foundation
import Logging
import Synchronization
import Testing

private struct Abort: Error {}

private func policy(_ minimum: String) -> AppPolicy {
    AppPolicy(
        platform: .android,
        minimumVersion: AppVersion(minimum)!,
        latestVersion: AppVersion("9.0")!,
        minimumOSVersion: nil,
        blockedVersions: [],
        storeURL: "https://play.google.com/store/apps/details?id=com.example"
    )
}

private let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw9CaHlcUs1Y8="

/// Opens a store of `backend` as both of its faces.
private func makeWebhookStore(
    _ backend: StoreBackend
) throws -> (
    any TemplateStoring, any WebhookStoring, StoreHandle
) {
    let (store, handle) = try makeStore(backend)
    return (store, try #require(store as? any WebhookStoring), handle)
}

/// Creates a webhook subscribed to `events`.
@discardableResult
private func subscribe(
    _ store: any TemplateStoring,
    _ events: [String] = ["appPolicy.published"],
    enabled: Bool = true
) throws -> StoredWebhook {
    let id = WebhookOutbox.newWebhookID()
    return try store.write { edits in
        try edits.createWebhook(
            id: id,
            WebhookSubscription(url: "https://hooks.example.com/\(id)", events: events, enabled: enabled),
            secret: secret,
            actor: "ops"
        )
    }
}

/// Publishes the android policy at `minimum` (creating it the first time).
private func publish(_ store: any TemplateStoring, _ minimum: String) throws {
    let current = try? store.policy(platform: .android)
    _ = try store.putPolicy(
        policy(minimum),
        precondition: current.map { .revision($0.revision) } ?? .absent,
        actor: "ops"
    )
}

/// The first delivery a dispatcher claims at `now`, if any.
private func claimOne(_ webhooks: any WebhookStoring, _ now: Int64) throws -> ClaimedDelivery? {
    try webhooks.claimDeliveries(now: now, limit: 10, perWebhook: 4, inFlight: [:], lease: 60_000).first
}

/// Records that `claimed` was answered 500 at `at`, to be retried at `retryAt`.
private func fail(_ webhooks: any WebhookStoring, _ claimed: ClaimedDelivery, at: Int64, retryAt: Int64) throws {
    try webhooks.recordAttempt(
        AttemptOutcome(
            deliveryID: claimed.id,
            claim: claimed.claim,
            attempt: WebhookAttempt(number: claimed.attempt, startedAt: at, latencyMilliseconds: 1, statusCode: 500),
            next: .retry(at: retryAt)
        )
    )
}

/// The webhooks' outbox on both backends: rows written in the change's transaction (and rolled
/// back with it), one claim per delivery across concurrent dispatchers, the lease, the log.
@Suite("Webhook store: the outbox and the delivery log")
struct WebhookStoreTests {
    @Test("a change's delivery is written with it, one per subscribed enabled webhook", arguments: StoreBackend.all)
    func writtenWithTheChange(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, webhooks, _) = try makeWebhookStore(backend)
            let subscribed = try subscribe(store)
            let other = try subscribe(store, ["experiment.started"])
            let paused = try subscribe(store, enabled: false)
            try publish(store, "1.0")
            let page = try webhooks.deliveries(webhookID: subscribed.id, status: nil, page: 1, pageSize: 10)
            #expect(page.total == 1)
            let delivery = try #require(page.items.first)
            #expect(
                delivery.status == .pending && delivery.attemptCount == 0 && delivery.eventType == "appPolicy.published"
            )
            #expect(try webhooks.deliveries(webhookID: other.id, status: nil, page: 1, pageSize: 10).total == 0)
            #expect(try webhooks.deliveries(webhookID: paused.id, status: nil, page: 1, pageSize: 10).total == 0)
            let body = try #require(try webhooks.delivery(webhookID: subscribed.id, id: delivery.id).body)
            #expect(body.contains("\"type\":\"appPolicy.published\"") && body.contains("\"actor\":\"ops\""))
            #expect(try webhooks.outboxBacklog().pending == 1)
        }
    }

    @Test("a change that rolls back leaves no delivery", arguments: StoreBackend.all)
    func rolledBackWithTheChange(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, webhooks, _) = try makeWebhookStore(backend)
            let hook = try subscribe(store)
            #expect(throws: Abort.self) {
                try store.write { edits in
                    _ = try edits.putPolicy(policy("1.0"), precondition: .absent, actor: "ops")
                    throw Abort()
                }
            }
            // A precondition that fails in the same transaction rolls the first edit back too.
            #expect(throws: StoreError.self) {
                try store.write { edits in
                    _ = try edits.putPolicy(policy("1.0"), precondition: .absent, actor: "ops")
                    _ = try edits.putPolicy(policy("1.1"), precondition: .absent, actor: "ops")
                }
            }
            #expect(try webhooks.deliveries(webhookID: hook.id, status: nil, page: 1, pageSize: 10).total == 0)
            #expect(try webhooks.outboxBacklog().pending == 0)
        }
    }

    @Test("dispatchers claiming at once each get different deliveries", arguments: StoreBackend.all)
    func oneClaimPerDelivery(_ backend: StoreBackend) async throws {
        let (store, _, handle) = try await offPool { try makeWebhookStore(backend) }
        try await offPool {
            for _ in 0..<3 { try subscribe(store) }
            for minimum in 1...8 { try publish(store, "\(minimum).0") }
        }
        // 24 deliveries; four dispatchers, each on its own connection or pool, claim together.
        let dispatchers: [any WebhookStoring] = try await offPool {
            try (0..<4).map { _ in try #require(try handle.reopenTemplates() as? any WebhookStoring) }
        }
        let now = Timestamp.nowMilliseconds()
        let ids = try await withThrowingTaskGroup(of: [String].self) { group in
            for dispatcher in dispatchers {
                group.addTask {
                    try await offPool {
                        var mine: [String] = []
                        while true {
                            let batch = try dispatcher.claimDeliveries(
                                now: now,
                                limit: 3,
                                perWebhook: 100,
                                inFlight: [:],
                                lease: 60_000
                            )
                            if batch.isEmpty { return mine }
                            mine += batch.map(\.id)
                        }
                    }
                }
            }
            var all: [String] = []
            for try await mine in group { all += mine }
            return all
        }
        #expect(ids.count == 24)
        #expect(Set(ids).count == 24)
    }

    @Test(
        "a claim leases; a retry is claimed again when due; a stale claim changes nothing",
        arguments: StoreBackend.all
    )
    func leaseAndRetry(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, webhooks, _) = try makeWebhookStore(backend)
            let hook = try subscribe(store)
            try publish(store, "1.0")
            let now = Timestamp.nowMilliseconds()
            let first = try #require(
                try webhooks.claimDeliveries(now: now, limit: 10, perWebhook: 4, inFlight: [:], lease: 60_000).first
            )
            #expect(
                first.attempt == 1 && first.secrets == [secret] && first.url.hasPrefix("https://hooks.example.com/")
            )
            // Leased: not claimed again before the lease ends; claimed again after (its
            // dispatcher died), as attempt 2 under another claim.
            #expect(
                try webhooks.claimDeliveries(now: now + 1000, limit: 10, perWebhook: 4, inFlight: [:], lease: 60_000)
                    .isEmpty
            )
            let again = try #require(
                try webhooks.claimDeliveries(now: now + 61_000, limit: 10, perWebhook: 4, inFlight: [:], lease: 60_000)
                    .first
            )
            #expect(again.id == first.id && again.attempt == 2 && again.claim != first.claim)
            // The first dispatcher's late outcome is logged but does not finish the delivery.
            try webhooks.recordAttempt(
                AttemptOutcome(
                    deliveryID: first.id,
                    claim: first.claim,
                    attempt: WebhookAttempt(number: 1, startedAt: now, latencyMilliseconds: 5, statusCode: 200),
                    next: .succeeded
                )
            )
            var delivery = try webhooks.delivery(webhookID: hook.id, id: first.id)
            #expect(delivery.status == .pending && delivery.attempts.map(\.number) == [1])
            // The current claim's 500 schedules a retry, claimable once due.
            try webhooks.recordAttempt(
                AttemptOutcome(
                    deliveryID: again.id,
                    claim: again.claim,
                    attempt: WebhookAttempt(
                        number: 2,
                        startedAt: now + 61_000,
                        latencyMilliseconds: 7,
                        statusCode: 500,
                        error: "HTTP 500"
                    ),
                    next: .retry(at: now + 70_000)
                )
            )
            delivery = try webhooks.delivery(webhookID: hook.id, id: first.id)
            #expect(delivery.status == .pending && delivery.nextAttemptAt == now + 70_000)
            #expect(delivery.attempts.map(\.statusCode) == [200, 500])
            #expect(
                try webhooks.claimDeliveries(now: now + 69_000, limit: 10, perWebhook: 4, inFlight: [:], lease: 60_000)
                    .isEmpty
            )
            let third = try #require(
                try webhooks.claimDeliveries(now: now + 70_000, limit: 10, perWebhook: 4, inFlight: [:], lease: 60_000)
                    .first
            )
            try webhooks.recordAttempt(
                AttemptOutcome(
                    deliveryID: third.id,
                    claim: third.claim,
                    attempt: WebhookAttempt(
                        number: 3,
                        startedAt: now + 70_000,
                        latencyMilliseconds: 3,
                        statusCode: 204
                    ),
                    next: .succeeded
                )
            )
            delivery = try webhooks.delivery(webhookID: hook.id, id: first.id)
            #expect(delivery.status == .succeeded && delivery.nextAttemptAt == nil && delivery.finishedAt != nil)
            #expect(try webhooks.outboxBacklog().pending == 0)
            // Redelivered: a new delivery of the same message, due at once.
            let copy = try webhooks.redeliver(webhookID: hook.id, id: first.id, actor: "ops", now: now + 80_000)
            #expect(copy.id != first.id && copy.messageID == first.messageID && copy.redeliveryOf == first.id)
            #expect(copy.status == .pending && copy.requestedBy == "ops")
        }
    }

    @Test("a slow receiver's deliveries are held back to its share; others are claimed", arguments: StoreBackend.all)
    func perWebhookShare(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, webhooks, _) = try makeWebhookStore(backend)
            let slow = try subscribe(store)
            let fast = try subscribe(store)
            for minimum in 1...5 { try publish(store, "\(minimum).0") }
            let batch = try webhooks.claimDeliveries(
                now: Timestamp.nowMilliseconds(),
                limit: 10,
                perWebhook: 4,
                inFlight: [slow.id: 4],
                lease: 60_000
            )
            #expect(batch.allSatisfy { $0.webhookID == fast.id })
            #expect(batch.count == 4)
        }
    }

    @Test(
        "rotation signs with both secrets until the old one expires; delete drops the outbox",
        arguments: StoreBackend.all
    )
    func rotationAndDeletion(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, webhooks, _) = try makeWebhookStore(backend)
            let hook = try subscribe(store)
            let newSecret = "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
            let rotated = try store.write { edits in
                try edits.rotateWebhookSecret(
                    id: hook.id,
                    expectedRevision: 1,
                    secret: newSecret,
                    previousUntil: Timestamp.nowMilliseconds() + 3_600_000,
                    actor: "ops"
                )
            }
            #expect(rotated.revision == 2 && rotated.previousSecretExpiresAt != nil)
            try publish(store, "1.0")
            let claimed = try #require(
                try webhooks.claimDeliveries(
                    now: Timestamp.nowMilliseconds(),
                    limit: 10,
                    perWebhook: 4,
                    inFlight: [:],
                    lease: 60_000
                ).first
            )
            #expect(claimed.secrets == [newSecret, secret])
            let revision = try store.write { edits in
                try edits.deleteWebhook(id: hook.id, expectedRevision: 2, actor: "ops")
            }
            #expect(revision == 3)
            #expect(throws: StoreError.self) { try webhooks.webhook(id: hook.id) }
            #expect(try webhooks.outboxBacklog().pending == 0)
            #expect(try webhooks.webhooks().isEmpty)
        }
    }

    @Test("an attempt an operator asks for does not use up the retry schedule", arguments: StoreBackend.all)
    func expeditedAttempt(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, webhooks, _) = try makeWebhookStore(backend)
            let hook = try subscribe(store)
            try publish(store, "1.0")
            let now = Timestamp.nowMilliseconds()
            let first = try #require(try claimOne(webhooks, now))
            #expect(first.attempt == 1 && first.scheduled == 1)
            try fail(webhooks, first, at: now, retryAt: now + 300_000)
            // Asked for now, twice: attempts 2 and 3, the schedule still at its first step.
            for number in 2...3 {
                _ = try webhooks.redeliver(webhookID: hook.id, id: first.id, actor: "ops", now: now + 1000)
                let asked = try #require(try claimOne(webhooks, now + 1000))
                #expect(asked.attempt == number && asked.scheduled == 1)
                try fail(webhooks, asked, at: now, retryAt: now + 300_000)
            }
            let scheduled = try #require(try claimOne(webhooks, now + 300_000))
            #expect(scheduled.attempt == 4 && scheduled.scheduled == 2)
        }
    }

    /// The dispatcher claims every second: an idle outbox must not write (a commit a second would
    /// count in `store_commit_duration_seconds` and take SQLite's writer lock for nothing).
    @Test("claiming with nothing due commits nothing; claiming a due delivery commits once")
    func idleClaimsDoNotWrite() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("idle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let commits = Atomic<Int>(0)
        let store = try SQLiteTemplateStore(path: directory.path + "/store.sqlite", logger: Logger(label: "test")) {
            _ in commits.add(1, ordering: .relaxed)
        }
        let now = Timestamp.nowMilliseconds()
        #expect(try claimOne(store, now) == nil)
        try subscribe(store)
        let afterSubscribe = commits.load(ordering: .relaxed)
        #expect(try claimOne(store, now) == nil)
        #expect(commits.load(ordering: .relaxed) == afterSubscribe)
        try publish(store, "1.0")
        let afterPublish = commits.load(ordering: .relaxed)
        #expect(try claimOne(store, Timestamp.nowMilliseconds()) != nil)
        #expect(commits.load(ordering: .relaxed) == afterPublish + 1)
    }
}

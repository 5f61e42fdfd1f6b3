import EmptyStateCore
import EmptyStateSQLite
import EmptyStateStore
import Foundation
import HTTPServer
import JSONCoding
import Logging
import Synchronization
import Testing

@testable import EmptyStateService

/// `EventIngest` over a started event store in a temporary directory, with the real catalogue.
/// Keeps count of what the 202 bodies and `onOutcome` reported, to compare with the store.
final class IngestHarness: Sendable {
    static let day: Int64 = 86_400_000

    /// What `onOutcome` and the 202 bodies reported, summed.
    final class Tally: Sendable {
        /// Sums of (accepted, duplicates, rejected) told to `onOutcome`.
        let outcomes = Mutex<(accepted: Int, duplicates: Int, rejected: Int)>((0, 0, 0))
        /// Rejections listed in 202 bodies.
        let rejectedInBodies = Mutex<Int>(0)
    }

    let store: SQLiteEventStore
    let ingest: EventIngest
    let tally = Tally()

    /// Sums of (accepted, duplicates, rejected) told to `onOutcome`.
    var outcomes: (accepted: Int, duplicates: Int, rejected: Int) { tally.outcomes.withLock { $0 } }

    init(retentionDays: Int64 = 90) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ingest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try SQLiteEventStore(
            path: directory.appendingPathComponent("events.sqlite").path,
            logger: Logger(label: "test")
        )
        let tally = self.tally
        var logger = Logger(label: "test")
        logger.logLevel = .critical  // the 503 test's error line is expected
        ingest = EventIngest(
            state: CatalogueState(try ServiceFixture.snapshot()),
            store: store,
            retentionMilliseconds: retentionDays * Self.day,
            logger: logger,
            onOutcome: { accepted, duplicates, rejected in
                tally.outcomes.withLock {
                    $0.accepted += accepted
                    $0.duplicates += duplicates
                    $0.rejected += rejected
                }
            }
        )
        store.start()
    }

    /// Runs `body` with a started harness, then checks that the store quarantined exactly what
    /// was reported rejected and stored exactly what was reported accepted, and stops the store.
    static func with(retentionDays: Int64 = 90, _ body: (IngestHarness) throws -> Void) throws {
        let harness = try IngestHarness(retentionDays: retentionDays)
        defer { harness.store.stop() }
        try body(harness)
        let counts = try harness.store.counts()
        let outcomes = harness.outcomes
        #expect(counts.quarantined == harness.tally.rejectedInBodies.withLock { $0 }, "quarantined = rejected in 202s")
        #expect(counts.quarantined == outcomes.rejected, "quarantined = rejected told to onOutcome")
        #expect(counts.events == outcomes.accepted, "stored = accepted")
    }

    /// `POST /v1/events` with `body`.
    @discardableResult
    func post(
        _ body: [UInt8],
        contentType: String? = "application/json",
        requestID: String = "ingest-test"
    )
        -> HTTPResponse
    {
        var headers = HTTPHeaders()
        if let contentType { headers.add(name: "Content-Type", value: contentType) }
        let response = ingest.post(
            HTTPRequest(method: .post, path: "/v1/events", headers: headers, body: body, id: requestID)
        )
        if response.status == 202, let rejected = try? response.json()["rejected"]?.arrayValue {
            tally.rejectedInBodies.withLock { $0 += rejected.count }
        }
        return response
    }

    @discardableResult
    func post(_ text: String, contentType: String? = "application/json") -> HTTPResponse {
        post(Array(text.utf8), contentType: contentType)
    }

    /// `POST` of one event object (not batched).
    @discardableResult
    func post(event: [String: JSONValue]) -> HTTPResponse {
        post(Array(IngestJSON.text(IngestJSON.object(event)).utf8))
    }

    /// `POST` of `{"events": [...]}`.
    @discardableResult
    func post(batch: [JSONValue]) -> HTTPResponse {
        post(IngestJSON.batch(batch))
    }

    /// Every stored event, oldest first.
    func stored() throws -> [AnalyticsEvent] {
        try store.events(after: 0, limit: 10_000).map(\.event)
    }
}

enum IngestJSON {
    static func text(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.value(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    static func batch(_ events: [JSONValue]) -> String {
        text(.object([("events", .array(events))]))
    }

    static func time(_ offset: Int64) -> JSONValue {
        .string(Timestamp.format(milliseconds: Timestamp.nowMilliseconds() + offset))
    }

    /// The members of a valid `displayed` event of `connectionRefused`, a minute ago, with a fresh id.
    static func fields(_ changes: [String: JSONValue?] = [:]) -> [String: JSONValue] {
        var event: [String: JSONValue] = [
            "id": .string(UUID().uuidString.lowercased()),
            "type": "displayed",
            "templateId": "connectionRefused",
            "revision": 1,
            "locale": "en",
            "platform": "ios",
            "appVersion": "3.2.1",
            "sessionId": "session-1",
            "occurredAt": time(-60_000),
        ]
        for (key, value) in changes { event[key] = value }
        return event
    }

    static func object(_ event: [String: JSONValue]) -> JSONValue {
        .object(event.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// A valid `displayed` event of `connectionRefused`, a minute ago, with a fresh id.
    static func event(_ changes: [String: JSONValue?] = [:]) -> JSONValue {
        object(fields(changes))
    }
}

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

    let store: EventStore
    let ingest: EventIngest
    let tally = Tally()

    /// Sums of (accepted, duplicates, rejected) told to `onOutcome`.
    var outcomes: (accepted: Int, duplicates: Int, rejected: Int) { tally.outcomes.withLock { $0 } }

    init(retentionDays: Int64 = 90) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ingest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try EventStore(
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

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
}

extension HTTPResponse {
    var bodyText: String { String(decoding: bodyBytes, as: UTF8.self) }
}

/// One invalid event: what to change in a valid one, and the member and rule the reason names.
struct InvalidEvent: Sendable, CustomTestStringConvertible {
    var name: String
    var changes: [String: JSONValue?]
    var pointer: String
    var message: String
    /// Times are relative to now: computed when the test runs.
    var occurredAt: Int64?
    var sentAt: Int64?

    var testDescription: String { name }

    init(
        _ name: String,
        _ changes: [String: JSONValue?] = [:],
        occurredAt: Int64? = nil,
        sentAt: Int64? = nil,
        _ pointer: String,
        _ message: String
    ) {
        self.name = name
        self.changes = changes
        self.pointer = pointer
        self.message = message
        self.occurredAt = occurredAt
        self.sentAt = sentAt
    }

    var event: [String: JSONValue] {
        var changes = changes
        if let occurredAt { changes["occurredAt"] = IngestJSON.time(occurredAt) }
        if let sentAt { changes["sentAt"] = IngestJSON.time(sentAt) }
        return IngestJSON.fields(changes)
    }

    static let minute: Int64 = 60_000
    static let all: [InvalidEvent] = [
        InvalidEvent(
            "NUL in sessionId",
            ["sessionId": "abc\u{0}def"],
            "/sessionId",
            "must not contain control characters (found U+0000)"
        ),
        InvalidEvent(
            "NUL in appVersion",
            ["appVersion": "5.2.0\u{0}-beta"],
            "/appVersion",
            "must not contain control characters (found U+0000)"
        ),
        InvalidEvent(
            "NUL in etag",
            ["etag": "\"ae27\u{0}\""],
            "/etag",
            "must not contain control characters (found U+0000)"
        ),
        InvalidEvent(
            "NUL in templateId",
            ["templateId": "connectionRefused\u{0}x"],
            "/templateId",
            "must not contain control characters (found U+0000)"
        ),
        InvalidEvent(
            "escape in sessionId",
            ["sessionId": "a\u{1B}[2Jb"],
            "/sessionId",
            "must not contain control characters (found U+001B)"
        ),
        InvalidEvent(
            "line feed in appVersion",
            ["appVersion": "5.2.0\n"],
            "/appVersion",
            "must not contain control characters (found U+000A)"
        ),
        InvalidEvent("unknown template", ["templateId": "nope"], "/templateId", #"unknown template "nope""#),
        InvalidEvent(
            "unknown action",
            ["type": "actionTapped", "actionId": "launch"],
            "/actionId",
            #"template connectionRefused has no action "launch""#
        ),
        InvalidEvent(
            "unknown action of an alias: the canonical id is named",
            ["type": "actionTapped", "templateId": "noNetwork", "actionId": "clearFilters"],
            "/actionId",
            #"template connectionRefused has no action "clearFilters""#
        ),
        InvalidEvent(
            "actionId on displayed",
            ["actionId": "retry"],
            "/actionId",
            "displayed events have no actionId"
        ),
        InvalidEvent(
            "actionTapped without actionId",
            ["type": "actionTapped"],
            "/actionId",
            "is required for actionTapped"
        ),
        InvalidEvent("missing id", ["id": nil], "/id", "is required"),
        InvalidEvent("null id", ["id": .null], "/id", "is required"),
        InvalidEvent("missing type", ["type": nil], "/type", "is required"),
        InvalidEvent("missing templateId", ["templateId": nil], "/templateId", "is required"),
        InvalidEvent("missing locale", ["locale": nil], "/locale", "is required"),
        InvalidEvent("missing platform", ["platform": nil], "/platform", "is required"),
        InvalidEvent("missing appVersion", ["appVersion": nil], "/appVersion", "is required"),
        InvalidEvent("missing occurredAt", ["occurredAt": nil], "/occurredAt", "is required"),
        InvalidEvent("empty appVersion", ["appVersion": ""], "/appVersion", "must be 1 to 64 characters"),
        InvalidEvent(
            "appVersion too long",
            ["appVersion": .string(String(repeating: "9", count: 65))],
            "/appVersion",
            "must be 1 to 64 characters"
        ),
        InvalidEvent("bad UUID", ["id": "not-a-uuid"], "/id", "must be a UUID (8-4-4-4-12 hex digits)"),
        InvalidEvent(
            "UUID with a non-hex digit",
            ["id": "0f8fad5b-d9cb-469f-a165-70867728950g"],
            "/id",
            "must be a UUID (8-4-4-4-12 hex digits)"
        ),
        InvalidEvent(
            "UUID with misplaced dashes",
            ["id": "0f8fad5bd-9cb-469f-a165-70867728950e"],
            "/id",
            "must be a UUID (8-4-4-4-12 hex digits)"
        ),
        InvalidEvent("id not a string", ["id": 12], "/id", "expected a string, found a number"),
        InvalidEvent("bad type", ["type": "clicked"], "/type", "must be displayed or actionTapped"),
        InvalidEvent("type in the wrong case", ["type": "Displayed"], "/type", "must be displayed or actionTapped"),
        InvalidEvent("type not a string", ["type": .bool(true)], "/type", "expected a string, found a boolean"),
        InvalidEvent("bad locale", ["locale": "en US!"], "/locale", "not a well-formed BCP 47 language tag"),
        InvalidEvent("bad locale subtag", ["locale": "e"], "/locale", "not a well-formed BCP 47 language tag"),
        InvalidEvent("bad platform", ["platform": "tv"], "/platform", "must be ios, android or web"),
        InvalidEvent("platform in the wrong case", ["platform": "iOS"], "/platform", "must be ios, android or web"),
        InvalidEvent(
            "neither revision nor etag",
            ["revision": nil],
            "/revision",
            "revision or etag of what was shown is required"
        ),
        InvalidEvent(
            "null revision, no etag",
            ["revision": .null, "etag": .null],
            "/revision",
            "revision or etag of what was shown is required"
        ),
        InvalidEvent("fractional revision", ["revision": .number(1.5)], "/revision", "must be a positive integer"),
        InvalidEvent("revision 0", ["revision": 0], "/revision", "must be a positive integer"),
        InvalidEvent("negative revision", ["revision": -3], "/revision", "must be a positive integer"),
        InvalidEvent("revision as a string", ["revision": "2"], "/revision", "expected a number, found a string"),
        InvalidEvent(
            "occurredAt not RFC 3339",
            ["occurredAt": "yesterday"],
            "/occurredAt",
            "not an RFC 3339 date-time"
        ),
        InvalidEvent(
            "occurredAt without a zone",
            ["occurredAt": "2026-11-22T05:40:12"],
            "/occurredAt",
            "not an RFC 3339 date-time"
        ),
        InvalidEvent("sentAt not RFC 3339", ["sentAt": "now"], "/sentAt", "not an RFC 3339 date-time"),
        InvalidEvent(
            "far future",
            occurredAt: 10 * minute,
            "/occurredAt",
            "is in the future (after correcting for the device clock)"
        ),
        InvalidEvent(
            "in the past on the device, in the future once corrected (device clock 1 h slow)",
            occurredAt: -minute,
            sentAt: -60 * minute,
            "/occurredAt",
            "is in the future (after correcting for the device clock)"
        ),
        InvalidEvent(
            "older than retention",
            occurredAt: -91 * IngestHarness.day,
            "/occurredAt",
            "is older than the retention period"
        ),
    ]
}

@Suite("EventIngest: accepted events")
struct EventIngestAcceptTests {
    @Test("one event, not batched: 202, stored with the request id, the receipt time and no skew")
    func singleEvent() throws {
        try IngestHarness.with { (harness: IngestHarness) throws in
            let id = UUID().uuidString  // upper case: stored lower-cased
            let occurred = Timestamp.nowMilliseconds() - 60_000
            let before = Timestamp.nowMilliseconds()
            let response = harness.post(
                event: IngestJSON.fields([
                    "id": .string(id), "occurredAt": .string(Timestamp.format(milliseconds: occurred)),
                ])
            )
            let after = Timestamp.nowMilliseconds()
            #expect(response.status == 202)
            #expect(response.bodyText == #"{"accepted":1,"duplicates":0,"rejected":[]}"#)
            #expect(response.header("Content-Type") == "application/json; charset=utf-8")
            #expect(response.header("Cache-Control") == "no-store")
            let stored = try #require(try harness.stored().first)
            #expect(stored.id == id.lowercased())
            #expect(stored.kind == .displayed)
            #expect(stored.templateID == "connectionRefused")
            #expect(stored.revision == 1 && stored.etag == nil)
            #expect(stored.locale == "en" && stored.platform == "ios" && stored.appVersion == "3.2.1")
            #expect(stored.actionID == nil && stored.sessionID == "session-1")
            #expect(stored.occurredAt == occurred)
            #expect(stored.receivedAt >= before && stored.receivedAt <= after)
            #expect(stored.clockSkewMilliseconds == 0)
            #expect(stored.requestID == "ingest-test")

            // The same id again, in lower case this time: a duplicate.
            let again = harness.post(event: IngestJSON.fields(["id": .string(id.lowercased())]))
            #expect(again.status == 202)
            #expect(again.bodyText == #"{"accepted":0,"duplicates":1,"rejected":[]}"#)
            #expect(try harness.store.counts() == (events: 1, quarantined: 0))
        }
    }

    @Test("a batch: new, duplicates within it and of an earlier batch, and a rejected event, counted in the 202")
    func batch() throws {
        try IngestHarness.with { (harness: IngestHarness) throws in
            let first = IngestJSON.event()
            let tap = IngestJSON.event(["type": "actionTapped", "actionId": "retry"])
            let response = harness.post(batch: [first, tap, first, IngestJSON.event(["templateId": "nope"])])
            #expect(response.status == 202)
            #expect(
                response.bodyText
                    == #"{"accepted":2,"duplicates":1,"rejected":[{"index":3,"reason":"/events/3/templateId: unknown template \"nope\""}]}"#
            )
            let third = IngestJSON.event(["type": "actionTapped", "actionId": "back", "platform": "web"])
            let second = harness.post(batch: [tap, .number(7), third, first])
            #expect(
                second.bodyText
                    == #"{"accepted":1,"duplicates":2,"rejected":[{"index":1,"reason":"/events/1: an event must be an object"}]}"#
            )
            #expect(try harness.stored().map(\.actionID) == [nil, "retry", "back"])
            let empty = harness.post(batch: [])
            #expect(empty.status == 202)
            #expect(empty.bodyText == #"{"accepted":0,"duplicates":0,"rejected":[]}"#)
            #expect(harness.outcomes == (accepted: 3, duplicates: 3, rejected: 2))
        }
    }

    @Test("an alias is stored as the canonical template id")
    func alias() throws {
        try IngestHarness.with { (harness: IngestHarness) throws in
            let response = harness.post(batch: [
                IngestJSON.event(["templateId": "noNetwork"]),
                IngestJSON.event(["templateId": "noInternetConnection", "type": "actionTapped", "actionId": "retry"]),
                IngestJSON.event(["templateId": "noResults", "type": "actionTapped", "actionId": "clearFilters"]),
            ])
            #expect(response.bodyText == #"{"accepted":3,"duplicates":0,"rejected":[]}"#)
            #expect(
                try harness.stored().map(\.templateID) == ["connectionRefused", "connectionRefused", "noSearchResults"]
            )
        }
    }

    @Test("etag alone, an integral revision, a canonicalized locale, a near future within tolerance")
    func lenientForms() throws {
        try IngestHarness.with { (harness: IngestHarness) throws in
            let response = harness.post(batch: [
                IngestJSON.event(["revision": nil, "etag": #""abc123""#]),
                IngestJSON.event(["revision": .number(2.0), "locale": "pt_br", "platform": "android"]),
                IngestJSON.event(["occurredAt": IngestJSON.time(4 * 60_000), "sessionId": nil, "locale": "ZH-hant-tw"]),
            ])
            #expect(response.bodyText == #"{"accepted":3,"duplicates":0,"rejected":[]}"#)
            let stored = try harness.stored()
            #expect(stored.map(\.revision) == [nil, 2, 1])
            #expect(stored.map(\.etag) == [#""abc123""#, nil, nil])
            #expect(stored.map(\.locale) == ["en", "pt-BR", "zh-Hant-TW"])
            #expect(stored.map(\.sessionID) == ["session-1", "session-1", nil])
        }
    }

    @Test("sentAt corrects the device clock: a far-future occurredAt of a fast clock is accepted and moved back")
    func skewCorrection() throws {
        try IngestHarness.with { (harness: IngestHarness) throws in
            let hour: Int64 = 3_600_000
            let now = Timestamp.nowMilliseconds()
            func at(_ offset: Int64) -> JSONValue { .string(Timestamp.format(milliseconds: now + offset)) }
            // The device clock is an hour fast: it sent "now + 1 h", the event was a second before.
            let fast = IngestJSON.event(["occurredAt": at(hour - 1000), "sentAt": at(hour)])
            // The device clock is two days slow.
            let slow = IngestJSON.event([
                "occurredAt": at(-2 * IngestHarness.day - 60_000), "sentAt": at(-2 * IngestHarness.day),
            ])
            // Without sentAt the fast one would be in the future.
            let uncorrected = IngestJSON.event(["occurredAt": at(hour - 1000)])
            let response = harness.post(batch: [fast, slow, uncorrected])
            #expect(
                response.bodyText
                    == #"{"accepted":2,"duplicates":0,"rejected":[{"index":2,"reason":"/events/2/occurredAt: is in the future (after correcting for the device clock)"}]}"#
            )
            let stored = try harness.stored()
            try #require(stored.count == 2)
            // Within 2 s: the test's clock readings and the ingest's are not the same instant.
            #expect(abs(stored[0].clockSkewMilliseconds + hour) < 2000, "\(stored[0].clockSkewMilliseconds)")
            #expect(abs(stored[0].occurredAt - (now - 1000)) < 2000)
            #expect(stored[0].occurredAt == stored[0].receivedAt - 1000)
            #expect(abs(stored[1].clockSkewMilliseconds - 2 * IngestHarness.day) < 2000)
            #expect(stored[1].occurredAt == stored[1].receivedAt - 60_000)
        }
    }

    @Test("the retention period bounds how old an event may be")
    func retention() throws {
        try IngestHarness.with(retentionDays: 1) { (harness: IngestHarness) throws in
            let response = harness.post(batch: [
                IngestJSON.event(["occurredAt": IngestJSON.time(-23 * 3_600_000)]),
                IngestJSON.event(["occurredAt": IngestJSON.time(-25 * 3_600_000)]),
            ])
            #expect(
                response.bodyText
                    == #"{"accepted":1,"duplicates":0,"rejected":[{"index":1,"reason":"/events/1/occurredAt: is older than the retention period"}]}"#
            )
        }
    }

    @Test("the store's failure is a 503 that acknowledges nothing")
    func storeStopped() throws {
        try IngestHarness.with { (harness: IngestHarness) throws in
            harness.store.stop()
            let response = harness.post(batch: [IngestJSON.event(), IngestJSON.event(["type": "nope"])])
            #expect(response.status == 503)
            #expect(response.header("Retry-After") == "1")
            #expect(try response.json()["type"] == .string("urn:empty-state:problem:store-unavailable"))
            #expect(try harness.store.counts() == (events: 0, quarantined: 0))
        }
    }
}

@Suite("EventIngest: rejected events")
struct EventIngestRejectTests {
    @Test(
        "each rule, batched and not: the reason names the member; the event is quarantined",
        arguments: InvalidEvent.all
    )
    func rejected(_ invalid: InvalidEvent) throws {
        try IngestHarness.with { (harness: IngestHarness) throws in
            let good = IngestJSON.event()
            let batched = harness.post(batch: [good, IngestJSON.object(invalid.event)])
            #expect(batched.status == 202)
            let json = try batched.json()
            #expect(json["accepted"] == .number(1))
            #expect(json["duplicates"] == .number(0))
            let rejected = try #require(json["rejected"]?.arrayValue)
            #expect(rejected.count == 1)
            #expect(rejected.first?["index"] == .number(1))
            #expect(rejected.first?["reason"] == .string("/events/1\(invalid.pointer): \(invalid.message)"))

            let single = harness.post(event: invalid.event)
            #expect(single.status == 202)
            #expect(
                single.bodyText
                    == IngestJSON.text(
                        .object([
                            ("accepted", 0), ("duplicates", 0),
                            (
                                "rejected",
                                .array([
                                    .object([
                                        ("index", 0), ("reason", .string("\(invalid.pointer): \(invalid.message)")),
                                    ])
                                ])
                            ),
                        ])
                    )
            )
            #expect(try harness.store.counts() == (events: 1, quarantined: 2))
        }
    }

    @Test("several bad events: each listed by index, each quarantined")
    func several() throws {
        try IngestHarness.with { (harness: IngestHarness) throws in
            let response = harness.post(batch: [
                IngestJSON.event(["platform": "tv"]), IngestJSON.event(), .string("event"),
                IngestJSON.event(["locale": nil]), .null,
            ])
            let json = try response.json()
            #expect(json["accepted"] == .number(1))
            let reasons = try #require(json["rejected"]?.arrayValue)
            #expect(reasons.map { $0["index"] } == [.number(0), .number(2), .number(3), .number(4)])
            #expect(
                reasons.map { $0["reason"] } == [
                    "/events/0/platform: must be ios, android or web", "/events/2: an event must be an object",
                    "/events/3/locale: is required", "/events/4: an event must be an object",
                ]
            )
            #expect(try harness.store.counts() == (events: 1, quarantined: 4))
        }
    }
}

@Suite("EventIngest: requests refused whole")
struct EventIngestRequestTests {
    private func expectProblem(
        _ response: HTTPResponse,
        _ status: Int,
        _ slug: String,
        pointer: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(response.status == status, sourceLocation: sourceLocation)
        #expect(response.header("Content-Type") == "application/problem+json", sourceLocation: sourceLocation)
        let json = try response.json()
        #expect(json["type"] == .string("urn:empty-state:problem:\(slug)"), sourceLocation: sourceLocation)
        if let pointer {
            #expect(json["errors"]?.arrayValue?.first?["pointer"] == .string(pointer), sourceLocation: sourceLocation)
        }
    }

    @Test("415 without application/json; parameters and case do not matter")
    func mediaType() throws {
        try IngestHarness.with { (harness: IngestHarness) throws in
            let body = IngestJSON.batch([IngestJSON.event()])
            for type in ["text/plain", "application/x-www-form-urlencoded", "application/jsonx", "json"] {
                let response = harness.post(body, contentType: type)
                try expectProblem(response, 415, "unsupported-media-type")
                #expect(try response.json()["errors"]?.arrayValue?.first?["header"] == "Content-Type", "\(type)")
            }
            try expectProblem(harness.post(body, contentType: nil), 415, "unsupported-media-type")
            #expect(try harness.store.counts() == (events: 0, quarantined: 0))
            #expect(harness.post(body, contentType: "Application/JSON; charset=utf-8").status == 202)
            #expect(
                harness.post(IngestJSON.batch([IngestJSON.event()]), contentType: " application/json ").status == 202
            )
        }
    }

    @Test("400 when the body is not JSON, or not an event or a batch")
    func notEvents() throws {
        try IngestHarness.with { (harness: IngestHarness) throws in
            try expectProblem(harness.post("{not json"), 400, "invalid-json", pointer: "")
            try expectProblem(harness.post(""), 400, "invalid-json", pointer: "")
            try expectProblem(harness.post(#"{"events": []} trailing"#), 400, "invalid-json", pointer: "")
            try expectProblem(harness.post("[1, 2]"), 400, "invalid-body", pointer: "")
            try expectProblem(harness.post(#""event""#), 400, "invalid-body", pointer: "")
            try expectProblem(harness.post("null"), 400, "invalid-body", pointer: "")
            try expectProblem(harness.post(#"{"events": {}}"#), 400, "invalid-body", pointer: "/events")
            try expectProblem(harness.post(#"{"events": null}"#), 400, "invalid-body", pointer: "/events")
            #expect(try harness.store.counts() == (events: 0, quarantined: 0))
        }
    }

    @Test("413 over 500 events; 500 are accepted")
    func tooManyEvents() throws {
        try IngestHarness.with { (harness: IngestHarness) throws in
            let response = harness.post(batch: Array(repeating: .object([]), count: 501))
            try expectProblem(response, 413, "payload-too-large", pointer: "")
            #expect(
                try response.json()["detail"]?.stringValue?.hasPrefix("501 events; at most 500 per request.") == true
            )
            #expect(try harness.store.counts() == (events: 0, quarantined: 0))
            let full = harness.post(batch: (0..<500).map { _ in IngestJSON.event() })
            #expect(full.bodyText == #"{"accepted":500,"duplicates":0,"rejected":[]}"#)
        }
    }

    @Test("413 over 512 KiB; exactly 512 KiB is read")
    func bodyTooLarge() throws {
        try IngestHarness.with { (harness: IngestHarness) throws in
            let batch = IngestJSON.batch([IngestJSON.event()])
            let limit = 512 * 1024
            let atLimit = Array((batch + String(repeating: " ", count: limit - batch.utf8.count)).utf8)
            #expect(atLimit.count == limit)
            #expect(harness.post(atLimit).bodyText == #"{"accepted":1,"duplicates":0,"rejected":[]}"#)
            let over = harness.post(atLimit + [UInt8(ascii: " ")])
            try expectProblem(over, 413, "payload-too-large", pointer: "")
            // The size is checked first: the type does not matter any more.
            try expectProblem(
                harness.post(atLimit + [UInt8(ascii: " ")], contentType: "text/plain"),
                413,
                "payload-too-large"
            )
            #expect(try harness.store.counts() == (events: 1, quarantined: 0))
        }
    }

    @Test("413 when one event is over 32 KiB; one just under is accepted")
    func eventTooLarge() throws {
        try IngestHarness.with { (harness: IngestHarness) throws in
            let limit = 32 * 1024
            func padded(_ size: Int) -> JSONValue {
                var event = IngestJSON.fields()
                let bare = IngestJSON.text(IngestJSON.object(event)).utf8.count
                // ,"padding":"…" adds 13 bytes around the padding.
                event["padding"] = .string(String(repeating: "x", count: size - bare - 13))
                let object = IngestJSON.object(event)
                #expect(IngestJSON.text(object).utf8.count == size)
                return object
            }
            let atLimit = harness.post(batch: [IngestJSON.event(), padded(limit)])
            #expect(atLimit.bodyText == #"{"accepted":2,"duplicates":0,"rejected":[]}"#)
            let over = harness.post(batch: [IngestJSON.event(), IngestJSON.event(), padded(limit + 1)])
            try expectProblem(over, 413, "payload-too-large", pointer: "/events/2")
            #expect(
                try over.json()["detail"]?.stringValue?.hasPrefix("Event 2 is over the limit of 32768 bytes") == true
            )
            // Not batched, the same.
            try expectProblem(harness.post(IngestJSON.text(padded(limit + 1))), 413, "payload-too-large")
            // Many small events over 32 KiB together are fine.
            let many = harness.post(batch: (0..<200).map { _ in IngestJSON.event() })
            #expect(many.bodyText == #"{"accepted":200,"duplicates":0,"rejected":[]}"#)
            #expect(try harness.store.counts() == (events: 202, quarantined: 0))
        }
    }
}

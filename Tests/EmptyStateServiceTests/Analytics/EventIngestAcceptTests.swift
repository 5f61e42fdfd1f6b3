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

    @Test("text limits count characters, not bytes: 64 two-byte characters are an appVersion, 65 are not")
    func limitsCountCharacters() throws {
        try IngestHarness.with { (harness: IngestHarness) throws in
            let sixtyFour = String(repeating: "é", count: 64)
            let response = harness.post(batch: [
                IngestJSON.event(["appVersion": .string(sixtyFour)]),
                IngestJSON.event(["appVersion": .string(sixtyFour + "é")]),
            ])
            #expect(
                response.bodyText
                    == #"{"accepted":1,"duplicates":0,"rejected":[{"index":1,"reason":"/events/1/appVersion: must be 1 to 64 characters"}]}"#
            )
            #expect(try harness.stored().map(\.appVersion) == [sixtyFour])
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

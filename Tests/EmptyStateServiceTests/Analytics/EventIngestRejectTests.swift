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

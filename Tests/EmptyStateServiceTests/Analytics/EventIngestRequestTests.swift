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

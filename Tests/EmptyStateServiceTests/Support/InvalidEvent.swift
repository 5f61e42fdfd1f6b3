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

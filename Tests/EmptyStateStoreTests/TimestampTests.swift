import Dispatch
import EmptyStateSQLite
import Foundation
import Logging
import Synchronization
import Testing

@testable import EmptyStateStore

@Suite("Timestamp")
struct TimestampTests {
    /// 2026-11-22T05:40:12Z.
    let base: Int64 = 1_795_326_012_000

    @Test(
        "valid RFC 3339 date-times",
        arguments: [
            ("2026-11-22T05:40:12Z", 0),
            ("2026-11-22T05:40:12.345Z", 345),
            ("2026-11-22t05:40:12.345z", 345),
            ("2026-11-22 05:40:12Z", 0),
            ("2026-11-22T05:40:12.3Z", 300),
            ("2026-11-22T05:40:12.34Z", 340),
            ("2026-11-22T05:40:12.345678Z", 345),
            ("2026-11-22T05:40:12.999999999Z", 999),
            ("2026-11-22T07:40:12.345+02:00", 345),
            ("2026-11-22T00:10:12-05:30", 0),
            ("2026-11-21T23:40:12-06:00", 0),
            ("2026-11-22T05:40:12+00:00", 0),
            ("2026-11-22T05:40:12-00:00", 0),
            ("2026-11-22T05:40:12.000+00:00", 0),
        ] as [(String, Int64)]
    )
    func valid(text: String, milliseconds: Int64) {
        #expect(Timestamp.parse(text) == base + milliseconds)
    }

    @Test("other dates: leap day, year end, before 1970, a leap second")
    func otherDates() {
        #expect(Timestamp.parse("2000-02-29T12:00:00Z") == 951_825_600_000)
        #expect(Timestamp.parse("2024-12-31T23:59:59Z") == 1_735_689_599_000)
        #expect(Timestamp.parse("2025-01-01T00:59:59+01:00") == 1_735_689_599_000)
        #expect(Timestamp.parse("1970-01-01T00:00:00Z") == 0)
        #expect(Timestamp.parse("1969-12-31T23:59:59Z") == -1000)
        #expect(Timestamp.parse("1969-12-31T23:59:59.999Z") == -1)
        #expect(Timestamp.parse("1900-01-01T00:00:00Z") == -2_208_988_800_000)
        // A leap second counts as the second before it.
        #expect(Timestamp.parse("2016-12-31T23:59:60Z") == Timestamp.parse("2016-12-31T23:59:59Z"))
    }

    /// Found by the events fuzz target: Foundation's formatter turns Julian before October 1582.
    @Test("format(milliseconds:) writes what parse reads, before the Gregorian reform too")
    func formatBefore1582() throws {
        let parsed = try #require(Timestamp.parse("1546-11-22T06:40:12+01:00"))
        #expect(Timestamp.format(milliseconds: parsed) == "1546-11-22T05:40:12.000Z")
        #expect(Timestamp.parse(Timestamp.format(milliseconds: parsed)) == parsed)
    }

    @Test(
        "invalid date-times",
        arguments: [
            "",
            "2026-11-22",
            "2026-11-22T05:40:12",  // no zone
            "2026-11-22T05:40:12.345",  // no zone
            "2026-13-22T05:40:12Z",  // month
            "2026-00-22T05:40:12Z",
            "2026-11-32T05:40:12Z",  // day
            "2026-11-00T05:40:12Z",
            "2026-11-22T24:00:00Z",  // hour
            "2026-11-22T05:60:12Z",  // minute
            "2026-11-22T05:40:62Z",  // second
            "2026-11-22T05:40:12ZZ",  // trailing junk
            "2026-11-22T05:40:12Z ",
            "2026-11-22T05:40:12+02:00x",
            "2026-11-22T05:40:12.Z",  // no fraction digits
            "2026-11-22T05:40:12,345Z",
            "2026-11-22T05:40:12+0200",  // offset without colon
            "2026-11-22T05:40:12+02",
            "2026-11-22T05:40:12+24:00",
            "2026-11-22T05:40:12+02:60",
            "2026-11-22X05:40:12Z",
            "2026/11/22T05:40:12Z",
            "26-11-22T05:40:12Z",
            "2026-1-22T05:40:12Z",
            "2026-11-22T5:40:12Z",
            "+2026-11-22T05:40:12Z",
            "2026-11-22T05:40:12.00000000000000000000Z",  // over 40 characters
            " 2026-11-22T05:40:12Z",
            "２０２６-11-22T05:40:12Z",
            "1795326012000",
        ]
    )
    func invalid(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test("days past the end of their month are refused; leap years have a February 29")
    func daysPastMonthEnd() {
        #expect(Timestamp.parse("2026-02-30T00:00:00Z") == nil)
        #expect(Timestamp.parse("2026-02-29T00:00:00Z") == nil)
        #expect(Timestamp.parse("2026-04-31T00:00:00Z") == nil)
        #expect(Timestamp.parse("2026-11-31T00:00:00Z") == nil)
        #expect(Timestamp.parse("1900-02-29T00:00:00Z") == nil)
        #expect(Timestamp.parse("2024-02-29T00:00:00Z") == 1_709_164_800_000)
        #expect(Timestamp.parse("2000-02-29T00:00:00Z") == 951_782_400_000)
        #expect(Timestamp.parse("2026-01-31T00:00:00Z") != nil)
        #expect(Timestamp.parse("2026-12-31T23:59:59Z") != nil)
    }

    @Test(
        "format(milliseconds:) and parse round-trip, before 1970 too",
        arguments: [
            0, 1, 999, 1000, -1, -999, -1000, -1001, 86_399_999, -86_400_000, 951_825_600_000, 1_795_326_012_345,
            -2_208_988_800_000, -2_208_988_799_001, 253_402_300_799_999,
        ] as [Int64]
    )
    func roundTrip(milliseconds: Int64) throws {
        let text = Timestamp.format(milliseconds: milliseconds)
        #expect(text.count == 24, "\(text)")
        #expect(Timestamp.parse(text) == milliseconds, "\(text)")
    }

    @Test("format(milliseconds:) writes UTC with three fraction digits")
    func format() {
        #expect(Timestamp.format(milliseconds: 1_795_326_012_345) == "2026-11-22T05:40:12.345Z")
        #expect(Timestamp.format(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.format(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
        #expect(Timestamp.format(milliseconds: -1000) == "1969-12-31T23:59:59.000Z")
        #expect(Timestamp.format(milliseconds: -1001) == "1969-12-31T23:59:58.999Z")
        #expect(Timestamp.format(milliseconds: 5) == "1970-01-01T00:00:00.005Z")
    }

    @Test("now() is nowMilliseconds() in whole seconds")
    func now() throws {
        let before = Timestamp.nowMilliseconds()
        let text = Timestamp.now()
        let after = Timestamp.nowMilliseconds()
        let parsed = try #require(Timestamp.parse(text))
        #expect(parsed % 1000 == 0, "\(text)")
        #expect(parsed >= before / 1000 * 1000 && parsed <= after, "\(text)")
        #expect(text.count == 20 && text.hasSuffix("Z"), "\(text)")
    }

    @Test("now() is what Swift's default ISO 8601 date decoding accepts")
    func nowDecodes() throws {
        struct Stamped: Decodable { var at: Date }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let text = Timestamp.now()
        let decoded = try decoder.decode(Stamped.self, from: Data(#"{"at":"\#(text)"}"#.utf8))
        #expect(Int64(decoded.at.timeIntervalSince1970) * 1000 == Timestamp.parse(text))
    }
}

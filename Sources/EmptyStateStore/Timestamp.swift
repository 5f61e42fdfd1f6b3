import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// RFC 3339 timestamps in UTC.
///
/// What the store records (`updatedAt`, `createdAt`) is in whole seconds, `2026-11-23T10:00:00Z`:
/// Swift's `JSONDecoder.DateDecodingStrategy.iso8601` refuses fractions, and a store written
/// only in whole seconds sorts as text in time order (the templates store normalized the
/// millisecond values of earlier releases when it was migrated). Analytics times are instants
/// of events, kept in milliseconds, and written with three fraction digits.
package enum Timestamp {
    /// Foundation's RFC 3339 form in UTC without a fraction (`2026-11-23T10:00:00Z`).
    private static let wholeSeconds = Date.ISO8601FormatStyle()

    /// Now, in whole seconds (the fraction is dropped): what the store records a change at.
    package static func now() -> String {
        Date(timeIntervalSince1970: Double(nowMilliseconds() / 1000)).formatted(wholeSeconds)
    }

    /// Milliseconds since the epoch as RFC 3339 UTC in whole seconds (the fraction dropped), the
    /// form of the store's times (`2026-11-23T10:00:00Z`).
    package static func seconds(milliseconds: Int64) -> String {
        String(format(milliseconds: milliseconds).dropLast(5)) + "Z"
    }

    /// Milliseconds since the epoch, now.
    package static func nowMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec / 1_000_000)
    }

    /// Parses an RFC 3339 date-time (`2026-11-22T05:40:12.345Z`, `…+02:00`, fraction optional) to
    /// milliseconds since the epoch; `nil` when it is not one.
    ///
    /// Hand-written rather than `Date.ISO8601FormatStyle.parse`, which is not equivalent and is
    /// slower on the events path (every event's `occurredAt` and `sentAt`): Foundation accepts
    /// `2026-02-30` (as March 2), refuses the `t`/`z`/space spellings RFC 3339 allows, and took
    /// about 500 ns a parse against 70 ns here (swift 6.3.1, Linux, 2026-11-23).
    package static func parse(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 40 else { return nil }
        var index = 0
        func number(_ digits: Int) -> Int64? {
            guard index + digits <= bytes.count else { return nil }
            var value: Int64 = 0
            for _ in 0..<digits {
                let byte = bytes[index]
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
                index += 1
            }
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            expect("Tt "), let hour = number(2), expect(":"), let minute = number(2), expect(":"),
            let second = number(2)
        else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays: [Int64] = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(month), day >= 1, day <= monthDays[Int(month) - 1], hour < 24, minute < 60, second < 61
        else { return nil }
        var milliseconds: Int64 = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale: Int64 = 100
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                milliseconds += Int64(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offsetMinutes: Int64 = 0
        if expect("Zz") {
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = number(2), expect(":"), let minutes = number(2), hours < 24, minutes < 60 else {
                return nil
            }
            offsetMinutes = sign * (hours * 60 + minutes)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        // Days from the civil date (Howard Hinnant's algorithm).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + min(second, 59) - offsetMinutes * 60
        return seconds * 1000 + milliseconds
    }

    /// Formats milliseconds since the epoch as RFC 3339 UTC with three fraction digits
    /// (`2026-11-22T05:40:12.345Z`), in the proleptic Gregorian calendar that `parse` reads.
    ///
    /// With `gmtime_r`, not Foundation: `ISO8601FormatStyle` switches to the Julian calendar
    /// before October 1582 (`1546-11-22T05:40:12Z` parsed and formatted again came back ten days
    /// off; found by `Fuzz/Targets/events.swift`), and its fractional seconds format the binary
    /// `Double` of a `Date` and truncate it (`….001` comes out as `.000`).
    package static func format(milliseconds: Int64) -> String {
        var seconds = time_t(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
        let fraction = milliseconds - Int64(seconds) * 1000
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return
            "\(pad(Int64(parts.tm_year) + 1900, 4))-\(pad(Int64(parts.tm_mon) + 1, 2))-\(pad(Int64(parts.tm_mday), 2))T"
            + "\(pad(Int64(parts.tm_hour), 2)):\(pad(Int64(parts.tm_min), 2)):\(pad(Int64(parts.tm_sec), 2))."
            + "\(pad(fraction, 3))Z"
    }
}

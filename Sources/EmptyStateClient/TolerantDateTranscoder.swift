import Foundation
import OpenAPIRuntime

/// RFC 3339 dates with or without fractional seconds.
///
/// The service has written admin timestamps with milliseconds and writes them in whole seconds;
/// OpenAPIRuntime's default transcoder refuses the first form. This one reads both and writes
/// milliseconds (events keep their sub-second order).
struct TolerantDateTranscoder: DateTranscoder {
    private static let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let whole = Date.ISO8601FormatStyle()

    func encode(_ date: Date) throws -> String {
        Self.fractional.format(date)
    }

    func decode(_ string: String) throws -> Date {
        if let date = try? Self.fractional.parse(string) { return date }
        if let date = try? Self.whole.parse(string) { return date }
        throw DecodingError.dataCorrupted(
            DecodingError.Context(codingPath: [], debugDescription: "Expected an RFC 3339 date-time, got \(string)")
        )
    }
}

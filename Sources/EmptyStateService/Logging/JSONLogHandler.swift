import Foundation
import JSONCoding
import Logging

/// A `LogHandler` writing one JSON object per line to standard error (`--log-format json`), for
/// log shippers, beside the access log's JSON lines:
/// `{"time":"…","level":"info","label":"…","source":"…","message":"…","<key>":"<value>",…}`.
///
/// Metadata keys come after the fixed members, sorted; values are strings (a list or dictionary
/// as a JSON array or object of them). JSON's own escaping covers control characters; as in
/// `EscapingLogHandler` and the access log, C1 controls, U+2028, U+2029 and U+FFFD are escaped
/// too (`\uXXXX`: `TextEscaper.jsonLog`). Each line goes out in one `write(2)`, so it never interleaves with the access
/// log's.
package struct JSONLogHandler: LogHandler {
    private let label: String
    package var logLevel: Logger.Level = .info
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?
    private let output: @Sendable (String) -> Void

    /// - Parameter output: receives each line, `\n` included; standard error when `nil`.
    package init(label: String, output: (@Sendable (String) -> Void)? = nil) {
        self.label = label
        self.output =
            output ?? { line in
                var line = line
                line.withUTF8 { bytes in
                    var offset = 0
                    while offset < bytes.count {
                        let written = write(STDERR_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                        if written < 0 {
                            if errno == EINTR { continue }
                            return
                        }
                        offset += written
                    }
                }
            }
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { own, _ in own } }
        if let explicit = event.metadata { merged.merge(explicit) { _, explicit in explicit } }
        if let error = event.error {
            merged["error.message"] = "\(error)"
            merged["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        var line = "{\"time\":"
        Self.quote(Self.timestamp(), into: &line)
        line += ",\"level\":"
        Self.quote(event.level.rawValue, into: &line)
        line += ",\"label\":"
        Self.quote(label, into: &line)
        line += ",\"source\":"
        Self.quote(event.source, into: &line)
        line += ",\"message\":"
        Self.quote(event.message.description, into: &line)
        for key in merged.keys.sorted() where !Self.fixed.contains(key) {
            line += ","
            Self.quote(key, into: &line)
            line += ":"
            Self.value(merged[key]!, into: &line)
        }
        line += "}\n"
        output(line)
    }

    /// Members every line has; metadata by these names is left out rather than repeated.
    private static let fixed: Set<String> = ["time", "level", "label", "source", "message"]

    private static func value(_ value: Logger.Metadata.Value, into line: inout String) {
        switch value {
        case .string(let text): quote(text, into: &line)
        case .stringConvertible(let convertible): quote(convertible.description, into: &line)
        case .array(let elements):
            line += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { line += "," }
                self.value(element, into: &line)
            }
            line += "]"
        case .dictionary(let members):
            line += "{"
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { line += "," }
                quote(key, into: &line)
                line += ":"
                self.value(members[key]!, into: &line)
            }
            line += "}"
        }
    }

    /// `text` as a JSON string.
    static func quote(_ text: String, into line: inout String) {
        line += "\""
        line += TextEscaper.jsonLog.escaping(text)
        line += "\""
    }

    /// Now in RFC 3339, UTC, with milliseconds (as the access log writes it).
    private static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.utf8.count)) + text
        }
        return pad(parts.tm_year + 1900, 4) + "-" + pad(parts.tm_mon + 1, 2) + "-" + pad(parts.tm_mday, 2) + "T"
            + pad(parts.tm_hour, 2) + ":" + pad(parts.tm_min, 2) + ":" + pad(parts.tm_sec, 2) + "."
            + pad(Int32(now.tv_nsec / 1_000_000), 3) + "Z"
    }
}

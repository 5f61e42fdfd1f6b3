import JSONCoding
import Logging

/// A `LogHandler` that escapes control characters in everything it writes, so a log line is
/// always one line and no client can forge a line, recolour a terminal or hide text in it.
///
/// Request paths, header values and template copy reach the log (the per-request `request`
/// line, the analytics debug lines); swift-log's `StreamLogHandler` writes message, metadata
/// keys and values as they are. Escaping here, once, covers every line of every module,
/// including those of the HTTP layer, which has no knowledge of this handler.
///
/// The convention, that of a Swift string literal:
/// - `\n`, `\r` and `\t` for line feed, carriage return and tab;
/// - `\u{X}` (uppercase hex, no leading zeros) for every other C0 control (U+0000–U+001F),
///   DEL (U+007F), the C1 controls (U+0080–U+009F), the line and paragraph separators
///   (U+2028, U+2029, which some viewers break lines on) and U+FFFD, the replacement character
///   Swift puts where a request held bytes that are not UTF-8 (so the log shows that it did);
/// - `\\` for a backslash, so that text which already reads `\n` cannot pass for an escape.
///
/// Everything else, including non-ASCII letters, is written unchanged (`TextEscaper.textLog`, and
/// `quotedTextLog` for the strings inside lists). A line with nothing to escape costs one scan of
/// its UTF-8 bytes and no copy.
package struct EscapingLogHandler: LogHandler {
    private var inner: StreamLogHandler
    /// Ours, not `inner`'s: `StreamLogHandler` would merge what it provides unescaped.
    package var metadataProvider: Logger.MetadataProvider?

    /// Wraps `inner`, taking over its metadata provider so that provided values are escaped too.
    package init(wrapping inner: StreamLogHandler) {
        var inner = inner
        self.metadataProvider = inner.metadataProvider
        inner.metadataProvider = nil
        self.inner = inner
    }

    package var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    /// Escaped on the way in, so a logger's own metadata costs nothing per line.
    package var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = Self.escape(newValue) }
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: Self.escape(key)] }
        set { inner[metadataKey: Self.escape(key)] = newValue.map(Self.escape) }
    }

    package func log(event: LogEvent) {
        var metadata = event.metadata ?? [:]
        if let provided = metadataProvider?.get(), !provided.isEmpty {
            metadata.merge(provided) { explicit, _ in explicit }
        }
        // StreamLogHandler would add these from `event.error` unescaped.
        if let error = event.error {
            metadata["error.message"] = "\(error)"
            metadata["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        var escaped = event
        escaped.error = nil
        escaped.message = Logger.Message(stringLiteral: Self.escape(event.message.description))
        escaped.metadata = metadata.isEmpty ? event.metadata : Self.escape(metadata)
        inner.log(event: escaped)
    }

    /// `metadata` with its keys and values escaped, lists and dictionaries all the way down;
    /// `metadata` itself (no new dictionary) when only plain strings with nothing to escape are
    /// in it, as on the access log's line.
    package static func escape(_ metadata: Logger.Metadata) -> Logger.Metadata {
        if metadata.allSatisfy({ isClean($0.key) && isClean($0.value) }) { return metadata }
        var result = Logger.Metadata(minimumCapacity: metadata.count)
        for (key, value) in metadata { result[escape(key)] = escape(value) }
        return result
    }

    /// `value` escaped; a `stringConvertible` becomes the string it prints as. A list or a
    /// dictionary becomes the string swift-log would print for it (`[a, b]`, `[k: v]`, keys
    /// sorted), each string in it quoted and escaped the same way, with `\"` for a quote: left
    /// as a list, swift-log would quote its strings with `debugDescription`, doubling our escapes.
    package static func escape(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): return .string(escape(text))
        case .stringConvertible(let convertible): return .string(escape(convertible.description))
        case .array, .dictionary: return .string(collection(value))
        }
    }

    private static func isClean(_ text: String) -> Bool {
        !TextEscaper.textLog.needsEscaping(text)
    }

    /// Whether `value` is a string with nothing to escape (lists and the rest are rewritten).
    private static func isClean(_ value: Logger.Metadata.Value) -> Bool {
        if case .string(let text) = value { return isClean(text) }
        return false
    }

    /// `text` with the characters listed in the type's documentation escaped; `text` itself
    /// (no copy) when it has none.
    package static func escape(_ text: String) -> String {
        escape(text, quoting: false)
    }

    private static func escape(_ text: String, quoting: Bool) -> String {
        (quoting ? TextEscaper.quotedTextLog : TextEscaper.textLog).escaping(text)
    }

    /// A list or dictionary in swift-log's layout, its strings quoted and escaped.
    private static func collection(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let text): return "\"" + escape(text, quoting: true) + "\""
        case .stringConvertible(let convertible): return "\"" + escape(convertible.description, quoting: true) + "\""
        case .array(let elements): return "[" + elements.map(collection).joined(separator: ", ") + "]"
        case .dictionary(let members):
            guard !members.isEmpty else { return "[:]" }
            let entries = members.sorted { $0.key < $1.key }.map {
                "\"" + escape($0.key, quoting: true) + "\": " + collection($0.value)
            }
            return "[" + entries.joined(separator: ", ") + "]"
        }
    }
}

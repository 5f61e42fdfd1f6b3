/// Writes JSON straight into a byte buffer, members in the order they are written, so the same
/// input always gives the same bytes (and so the same ETag).
///
/// Used where those bytes matter or are hot: the client's rendered templates and bundles (their
/// ETags are hashes of these bytes, equal on every replica), the documents the store keeps as
/// text (`StoredDocuments`), problem documents and the access log. Admin and analytics responses
/// are `Encodable` values written by `JSONEncoder` instead.
package struct JSONWriter {
    package private(set) var bytes: [UInt8] = []
    private var needsComma = false

    package init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
    }

    package mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    package mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    package mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    package mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes a member name; the next value written is its value.
    package mutating func key(_ name: String) {
        separate()
        appendQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    package mutating func string(_ value: String) {
        separate()
        appendQuoted(value)
        needsComma = true
    }

    package mutating func int(_ value: Int) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    package mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        needsComma = true
    }

    package mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
        needsComma = true
    }

    /// Writes any parsed value back out (numbers without a fraction as integers).
    package mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .string(let text): string(text)
        case .number(let number):
            if number.rounded() == number, abs(number) < 1e15 {
                int(Int(number))
            } else {
                separate()
                bytes.append(contentsOf: "\(number)".utf8)
                needsComma = true
            }
        case .array(let elements):
            beginArray()
            for element in elements { self.value(element) }
            endArray()
        case .object(let members):
            beginObject()
            for member in members {
                key(member.key)
                self.value(member.value)
            }
            endObject()
        }
    }

    /// Appends bytes that already are one JSON value (a pre-rendered document).
    package mutating func raw(_ json: [UInt8]) {
        separate()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    /// `key(name)` then `string(value)`.
    package mutating func member(_ name: String, _ value: String) {
        key(name)
        string(value)
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func appendQuoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        TextEscaper.json.escape(text, into: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }
}

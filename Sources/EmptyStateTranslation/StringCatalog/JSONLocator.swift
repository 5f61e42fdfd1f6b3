import JSONCoding

/// Finds where a member sits in JSON text, so a String Catalog error can give its line and column.
///
/// `JSONParser` keeps no positions (and should not pay for them on the request path); errors
/// are rare, so the reader finds the spot again by scanning, only when it reports one. The text
/// has been parsed already, so the scan can trust its shape.
struct JSONLocator {
    private let bytes: [UInt8]
    private var index = 0

    /// The byte offset of the value at `path` (member names from the root), or of the deepest
    /// member found on the way.
    static func offset(of path: [String], in bytes: [UInt8]) -> Int {
        var locator = JSONLocator(bytes: bytes)
        locator.skipWhitespace()
        var found = locator.index
        for name in path {
            guard locator.enterMember(name) else { return found }
            found = locator.index
        }
        return found
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// From the start of an object, moves to the value of member `name`.
    private mutating func enterMember(_ name: String) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return false }
        index += 1
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return false }
            let keyStart = index
            skipString()
            let key = try? JSONParser.parse(Array(bytes[keyStart..<index]))
            skipWhitespace()
            index += 1  // ':'
            skipWhitespace()
            if key == .string(name) { return true }
            skipValue()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { return false }
            index += 1
        }
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
    }

    private mutating func skipString() {
        index += 1
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
        }
        index += 1
    }

    private mutating func skipValue() {
        guard index < bytes.count else { return }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            skipString()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    skipString()
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                default: break
                }
                index += 1
                if depth == 0 { return }
            }
        default:
            while index < bytes.count,
                ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]")].contains(bytes[index])
            {
                index += 1
            }
        }
    }
}

/// Writes indented XML into bytes, deterministically: attributes in the order given, two spaces
/// per level, LF line ends, UTF-8 without a byte-order mark.
///
/// The layout and the escaping are lxml's (`pretty_print`), which translate-toolkit and most
/// Python tools write with: a file they read and save again without changes comes back with
/// the same bytes. Text escapes `&`, `<`, `>` and CR; attribute values also `"`, tab and LF.
/// Callers never pass characters XML cannot hold (see `InlineSegment.codePoint`); notes drop them.
package struct XMLWriter {
    package private(set) var bytes: [UInt8] = []

    /// Starts a document with the XML declaration.
    package init(capacity: Int = 4096) {
        bytes.reserveCapacity(capacity)
        bytes.append(contentsOf: #"<?xml version="1.0" encoding="UTF-8"?>"#.utf8)
        bytes.append(0x0A)
    }

    /// `<name a="v">` on its own line.
    package mutating func open(_ name: String, _ attributes: [(String, String)] = [], depth: Int) {
        indent(depth)
        startTag(name, attributes)
        bytes.append(UInt8(ascii: ">"))
        bytes.append(0x0A)
    }

    /// `</name>` on its own line.
    package mutating func close(_ name: String, depth: Int) {
        indent(depth)
        endTag(name)
        bytes.append(0x0A)
    }

    /// `<name a="v">content</name>` on one line (`<name a="v"/>` when it writes nothing);
    /// `content` writes the inline part with `text(_:)` and `emptyElement(_:_:)`.
    package mutating func line(
        _ name: String,
        _ attributes: [(String, String)] = [],
        depth: Int,
        content: (inout XMLWriter) -> Void
    ) {
        indent(depth)
        startTag(name, attributes)
        bytes.append(UInt8(ascii: ">"))
        let contentStart = bytes.count
        content(&self)
        if bytes.count == contentStart {
            // Empty: `<name/>`, as lxml writes it.
            bytes.removeLast()
            bytes.append(contentsOf: "/>".utf8)
        } else {
            endTag(name)
        }
        bytes.append(0x0A)
    }

    /// `<name>text</name>` on one line.
    package mutating func line(_ name: String, _ attributes: [(String, String)] = [], depth: Int, text: String) {
        line(name, attributes, depth: depth) { $0.text(text) }
    }

    /// `<!-- text -->` on its own line (the text must not hold `--`).
    package mutating func comment(_ text: String, depth: Int) {
        indent(depth)
        bytes.append(contentsOf: "<!-- ".utf8)
        bytes.append(contentsOf: text.utf8)
        bytes.append(contentsOf: " -->".utf8)
        bytes.append(0x0A)
    }

    /// `<name a="v"/>` inline.
    package mutating func emptyElement(_ name: String, _ attributes: [(String, String)]) {
        startTag(name, attributes)
        bytes.append(contentsOf: "/>".utf8)
    }

    /// Content that is XML already (escaped text and elements), inline.
    package mutating func raw(_ content: String) {
        bytes.append(contentsOf: content.utf8)
    }

    /// Escaped character data, inline.
    package mutating func text(_ text: String) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): bytes.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): bytes.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): bytes.append(contentsOf: "&gt;".utf8)
            case 0x0D: bytes.append(contentsOf: "&#13;".utf8)
            default: bytes.append(byte)
            }
        }
    }

    /// Ends the document.
    package mutating func finish() -> [UInt8] { bytes }

    private mutating func indent(_ depth: Int) {
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    private mutating func startTag(_ name: String, _ attributes: [(String, String)]) {
        bytes.append(UInt8(ascii: "<"))
        bytes.append(contentsOf: name.utf8)
        for (attribute, value) in attributes {
            bytes.append(UInt8(ascii: " "))
            bytes.append(contentsOf: attribute.utf8)
            bytes.append(contentsOf: "=\"".utf8)
            for byte in value.utf8 {
                switch byte {
                case UInt8(ascii: "&"): bytes.append(contentsOf: "&amp;".utf8)
                case UInt8(ascii: "<"): bytes.append(contentsOf: "&lt;".utf8)
                case UInt8(ascii: ">"): bytes.append(contentsOf: "&gt;".utf8)
                case UInt8(ascii: "\""): bytes.append(contentsOf: "&quot;".utf8)
                case 0x09: bytes.append(contentsOf: "&#9;".utf8)
                case 0x0A: bytes.append(contentsOf: "&#10;".utf8)
                case 0x0D: bytes.append(contentsOf: "&#13;".utf8)
                default: bytes.append(byte)
                }
            }
            bytes.append(UInt8(ascii: "\""))
        }
    }

    private mutating func endTag(_ name: String) {
        bytes.append(contentsOf: "</".utf8)
        bytes.append(contentsOf: name.utf8)
        bytes.append(UInt8(ascii: ">"))
    }

    /// Whether `text` needs `xml:space="preserve"`: leading or trailing whitespace, a run of
    /// spaces, or a tab or line break, which a tool reflowing the file could otherwise collapse.
    package static func whitespaceMatters(_ text: String) -> Bool {
        var previousWasSpace = true
        for byte in text.utf8 {
            switch byte {
            case 0x09, 0x0A, 0x0D: return true
            case 0x20:
                if previousWasSpace { return true }
                previousWasSpace = true
            default:
                previousWasSpace = false
            }
        }
        return previousWasSpace && !text.isEmpty
    }

    /// `text` without the characters XML 1.0 cannot hold, for notes: they are read by people, and a
    /// note is never imported.
    package static func xmlSafe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { !isXMLCharacter($0) }) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.filter(isXMLCharacter)))
    }
}

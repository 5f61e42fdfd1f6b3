// libFuzzer target: XMLReader, the one parser of hostile input (translation files an import
// receives), and the format readers built on it.
//
// For every input:
// - parsing never traps; a refusal has a line and column inside the input (the same position a
//   byte offset of the input gives, or none for a refusal of the whole file);
// - the XLIFF 2.0, XLIFF 1.2 and Android readers refuse or read it without trapping.
// For every input the reader accepts:
// - the tree keeps the caps: depth, attributes per element, name length;
// - only characters XML allows come out, and no CR when the input has no character reference
//   (line ends are normalized: CR LF and a lone CR become LF);
// - every element's offset points at its `<` in the input;
// - the tree is a fixed point of writing and reading: written back as XML (each namespace
//   declared with a prefix of its own, text and values escaped) and read again, it gives the
//   same names, attributes, text and comments.
import EmptyStateTranslation

private let limits = XMLReader.Limits()
/// Writing declares a prefix per namespace, which may lengthen names and add attributes: the
/// written tree is read back with room for that, and nothing else relaxed.
private let rereadLimits = XMLReader.Limits(
    maximumBytes: .max,
    maximumDepth: limits.maximumDepth,
    maximumAttributes: 4 * limits.maximumAttributes + 2,
    maximumNameLength: limits.maximumNameLength + 16
)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let lines = 1 + bytes.reduce(0) { $0 + ($1 == 0x0A || $1 == 0x0D ? 1 : 0) }
    func checkPosition(_ error: TranslationFormatError) {
        guard let line = error.line else { return }
        precondition(line >= 1 && line <= lines, "error line \(line) outside the input's \(lines)")
        precondition((error.column ?? 1) >= 1 && (error.column ?? 1) <= bytes.count + 1, "error column \(error.column!)")
    }

    // The format readers on the same bytes: refused or read, never a trap.
    do { _ = try XLIFF2Reader.read(bytes) } catch { checkPosition(error) }
    do { _ = try XLIFF12Reader.read(bytes) } catch { checkPosition(error) }
    do { _ = try AndroidStringsReader.read(bytes, locale: "fr") } catch { checkPosition(error) }

    let document: XMLDocument
    do {
        document = try XMLReader.parse(bytes, limits: limits)
    } catch {
        checkPosition(error)
        return 0
    }
    let mayHoldCR = bytes.indices.dropLast().contains { bytes[$0] == UInt8(ascii: "&") && bytes[$0 + 1] == UInt8(ascii: "#") }
    check(document.root, in: bytes, depth: 1, mayHoldCR: mayHoldCR)

    var writer = TreeWriter()
    writer.element(document.root)
    let reread: XMLDocument
    do {
        reread = try XMLReader.parse(writer.bytes, limits: rereadLimits)
    } catch {
        fatalError("the tree written back does not parse: \(error)\n\(String(decoding: writer.bytes, as: UTF8.self))")
    }
    precondition(
        Tree(document.root) == Tree(reread.root),
        "written and read again, the tree differs:\n\(String(decoding: writer.bytes, as: UTF8.self))"
    )
    return 0
}

/// The caps and the normalization, everywhere in the tree.
private func check(_ element: XMLElement, in bytes: [UInt8], depth: Int, mayHoldCR: Bool) {
    func normalized(_ text: String) -> Bool { mayHoldCR || !text.unicodeScalars.contains("\r") }
    precondition(depth <= limits.maximumDepth, "depth \(depth)")
    precondition(element.attributes.count <= limits.maximumAttributes, "\(element.attributes.count) attributes")
    precondition(element.qualifiedName.utf8.count <= limits.maximumNameLength, "name \(element.qualifiedName)")
    precondition(
        element.offset >= 0 && element.offset < bytes.count && bytes[element.offset] == UInt8(ascii: "<"),
        "offset \(element.offset) of <\(element.qualifiedName)> is not its '<'"
    )
    for attribute in element.attributes {
        precondition(
            allowed(attribute.value) && normalized(attribute.value),
            "attribute value \(attribute.value.debugDescription)"
        )
    }
    for child in element.children {
        switch child {
        case .element(let inner): check(inner, in: bytes, depth: depth + 1, mayHoldCR: mayHoldCR)
        case .text(let text, _), .comment(let text, _):
            precondition(allowed(text) && normalized(text), "text \(text.debugDescription)")
        }
    }
}

/// Characters XML 1.0 allows.
private func allowed(_ text: String) -> Bool {
    text.unicodeScalars.allSatisfy { scalar in
        switch scalar.value {
        case 0x09, 0x0A, 0x0D, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }
}

/// What a tree says, without the spelling of its names or where it stood in the file; empty
/// text nodes (an empty CDATA section) say nothing.
private struct Tree: Equatable {
    let name: XMLName
    let attributes: [XMLName: String]
    let children: [Child]

    enum Child: Equatable {
        case element(Tree)
        case text(String)
        case comment(String)
    }

    init(_ element: XMLElement) {
        name = element.name
        attributes = Dictionary(element.attributes.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        children = element.children.compactMap { child in
            switch child {
            case .element(let inner): return .element(Tree(inner))
            case .text(let text, _): return text.isEmpty ? nil : .text(text)
            case .comment(let text, _): return .comment(text)
            }
        }
    }
}

/// Writes a tree back as XML: every element declares its own prefixes (`n0`…) for its name's
/// namespace and its attributes', or `xmlns=""` when it has none; text, comments and values
/// escaped so that reading gives them back exactly.
private struct TreeWriter {
    var bytes: [UInt8] = []

    mutating func element(_ element: XMLElement) {
        var prefixes: [String: String] = [XMLName.xmlNamespace: "xml"]
        var declarations: [(String, String)] = []
        func prefix(for namespace: String) -> String {
            if let known = prefixes[namespace] { return known }
            let made = "n\(prefixes.count - 1)"
            prefixes[namespace] = made
            declarations.append(("xmlns:" + made, namespace))
            return made
        }
        let name =
            element.name.namespace.isEmpty ? element.name.local : prefix(for: element.name.namespace) + ":" + element.name.local
        if element.name.namespace.isEmpty { declarations.append(("xmlns", "")) }
        var attributes: [(String, String)] = []
        for attribute in element.attributes {
            let qualified =
                attribute.name.namespace.isEmpty
                ? attribute.name.local : prefix(for: attribute.name.namespace) + ":" + attribute.name.local
            attributes.append((qualified, attribute.value))
        }
        append("<" + name)
        for (key, value) in declarations + attributes {
            append(" " + key + "=\"")
            escape(value, attribute: true)
            append("\"")
        }
        append(">")
        for child in element.children {
            switch child {
            case .element(let inner): self.element(inner)
            case .text(let text, _): escape(text, attribute: false)
            case .comment(let text, _): append("<!--" + text + "-->")
            }
        }
        append("</" + name + ">")
    }

    private mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }

    private mutating func escape(_ text: String, attribute: Bool) {
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": append("&amp;")
            case "<": append("&lt;")
            case ">": append("&gt;")
            case "\"" where attribute: append("&quot;")
            case "\r": append("&#13;")
            case "\n" where attribute: append("&#10;")
            case "\t" where attribute: append("&#9;")
            default: append(String(scalar))
            }
        }
    }
}

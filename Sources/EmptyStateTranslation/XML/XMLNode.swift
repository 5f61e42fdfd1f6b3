/// An element or attribute name after namespace resolution.
package struct XMLName: Sendable, Hashable, CustomStringConvertible {
    /// The namespace URI; empty for no namespace.
    package var namespace: String
    package var local: String

    package init(_ namespace: String, _ local: String) {
        self.namespace = namespace
        self.local = local
    }

    package var description: String { namespace.isEmpty ? local : "{\(namespace)}\(local)" }

    /// The namespace `xml:` is bound to, always.
    package static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"
}

package struct XMLAttribute: Sendable, Equatable {
    package var name: XMLName
    /// As written (`xml:space`), for messages.
    package var qualifiedName: String
    /// After entity decoding and attribute-value normalization.
    package var value: String
}

/// One element with what it contains, and where it starts in the file (the byte offset of its
/// `<`), so a format reader can name the line and column of a fault.
package struct XMLElement: Sendable, Equatable {
    package var name: XMLName
    package var qualifiedName: String
    package var attributes: [XMLAttribute]
    package var children: [XMLNode]
    package var offset: Int

    /// The value of an attribute in no namespace, or in `namespace`.
    package func attribute(_ local: String, namespace: String = "") -> String? {
        attributes.first { $0.name.local == local && $0.name.namespace == namespace }?.value
    }

    /// The child elements, in order.
    package var elements: [XMLElement] {
        children.compactMap {
            if case .element(let element) = $0 { return element }
            return nil
        }
    }

    /// The text of the element's own text children, concatenated (comments skipped).
    package var text: String {
        var result = ""
        for case .text(let text, _) in children { result += text }
        return result
    }
}

package enum XMLNode: Sendable, Equatable {
    case element(XMLElement)
    /// Character data (CDATA sections included), line ends normalized to LF.
    case text(String, offset: Int)
    case comment(String, offset: Int)
}

/// A parsed document: the root element and the bytes it came from
/// (to turn offsets into lines and columns).
package struct XMLDocument: Sendable {
    package var root: XMLElement
    package var bytes: [UInt8]

    /// An error at `offset` of this document.
    package func error(at offset: Int, unitID: String? = nil, _ message: String) -> TranslationFormatError {
        TranslationFormatError(at: offset, in: bytes, unitID: unitID, message)
    }
}

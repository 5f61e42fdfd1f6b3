/// A parsed JSON document. Objects keep their keys in document order so that error reports and
/// re-encoded output follow the author's layout.
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// The member named `key` when this is an object.
    package subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// A short name of the value's kind, for error messages ("expected a string, found an array").
    package var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// Escapes one reference token of a JSON pointer (RFC 6901).
package func jsonPointerToken(_ token: String) -> String {
    token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
}

extension String {
    /// `replacingOccurrences` without Foundation, for the few places that need it.
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        guard contains(target) else { return self }
        return split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

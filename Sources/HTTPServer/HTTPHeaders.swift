/// Request headers in arrival order, looked up case-insensitively.
package struct HTTPHeaders: Sendable {
    /// Names as the client sent them.
    package private(set) var entries: [(name: String, value: String)]

    package init(_ entries: [(name: String, value: String)] = []) {
        self.entries = entries
    }

    /// The field value for `name`; repeated fields are joined with ", " as RFC 9110 §5.3 allows.
    package subscript(name: String) -> String? {
        var result: String?
        for entry in entries where Self.equalIgnoringASCIICase(entry.name, name) {
            result = result.map { $0 + ", " + entry.value } ?? entry.value
        }
        return result
    }

    package mutating func add(name: String, value: String) {
        entries.append((name, value))
    }

    /// Compares without allocating lowercased copies (header names are ASCII tokens).
    private static func equalIgnoringASCIICase(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        for (a, b) in zip(lhs.utf8, rhs.utf8) where a != b {
            let lowerA = a >= 0x41 && a <= 0x5A ? a | 0x20 : a
            let lowerB = b >= 0x41 && b <= 0x5A ? b | 0x20 : b
            if lowerA != lowerB { return false }
        }
        return true
    }
}

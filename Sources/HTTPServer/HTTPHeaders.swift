/// Request headers in arrival order, looked up case-insensitively.
package struct HTTPHeaders: Sendable {
    /// Names are stored lowercased.
    package private(set) var entries: [(name: String, value: String)]

    package init(_ entries: [(name: String, value: String)] = []) {
        self.entries = entries.map { ($0.name.lowercased(), $0.value) }
    }

    /// The field value for `name`; repeated fields are joined with ", " as RFC 9110 §5.3 allows.
    package subscript(name: String) -> String? {
        let wanted = name.lowercased()
        var result: String?
        for entry in entries where entry.name == wanted {
            result = result.map { $0 + ", " + entry.value } ?? entry.value
        }
        return result
    }

    package mutating func add(name: String, value: String) {
        entries.append((name.lowercased(), value))
    }
}

/// The values of a matched route's `{name}` segments, by name. Routes have one parameter or two,
/// so the first is kept inline (no allocation on the request path) and the rest in an array.
package struct PathParameters: Sendable, ExpressibleByDictionaryLiteral {
    private var first: (name: String, value: String)?
    private var rest: [(name: String, value: String)] = []

    package init() {}

    package init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { self[name] = value }
    }

    package var isEmpty: Bool { first == nil }

    /// Every parameter by name, for tests and logs.
    package var dictionary: [String: String] {
        var all: [String: String] = [:]
        if let first { all[first.name] = first.value }
        for entry in rest { all[entry.name] = entry.value }
        return all
    }

    package subscript(name: String) -> String? {
        get {
            if let first, first.name == name { return first.value }
            return rest.first { $0.name == name }?.value
        }
        set {
            var all = first.map { [$0] } ?? []
            all.append(contentsOf: rest)
            all.removeAll { $0.name == name }
            if let newValue { all.append((name, newValue)) }
            first = all.first
            rest = Array(all.dropFirst())
        }
    }

    /// Adds a parameter the router matched (a route's names are distinct).
    mutating func append(name: String, value: String) {
        if first == nil { first = (name, value) } else { rest.append((name, value)) }
    }
}

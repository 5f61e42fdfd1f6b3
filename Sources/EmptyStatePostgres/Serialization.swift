import EmptyStateCore
import EmptyStateStore
import JSONCoding

/// Documents as the PostgreSQL tables hold them: the deterministic JSON text the SQLite store
/// writes too (so both backends store, compare and hash the same bytes), parsed back with the
/// rules of stored documents.
enum Serialization {
    static func text(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.value(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// A stored template; it was valid when written, so a failure means a damaged row.
    static func template(_ text: String) throws -> Template {
        switch TemplateParser.parse(try JSONParser.parse(Array(text.utf8)), origin: .stored) {
        case .success(let template): return template
        case .failure(let failure):
            throw StoreError.database("a stored document no longer validates: \(failure.issues.map(\.description))")
        }
    }

    /// A stored app policy.
    static func policy(_ text: String) throws -> AppPolicy {
        switch AppPolicy.parse(try JSONParser.parse(Array(text.utf8))) {
        case .success(let policy): return policy
        case .failure(let failure):
            throw StoreError.database("a stored app policy no longer validates: \(failure.issues.map(\.description))")
        }
    }

    /// The JSON pointers of a revision's `changed_fields`.
    static func pointers(_ text: String) throws -> [String] {
        guard case .array(let values) = try JSONParser.parse(Array(text.utf8)) else { return [] }
        return values.compactMap { if case .string(let text) = $0 { text } else { nil } }
    }
}

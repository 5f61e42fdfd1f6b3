/// The service's vetted set of web icons (`EmptyStateWeb`'s `IconSet`): it draws an icon by name
/// as inline SVG markup, which the renderer writes into a `platform=web` answer (a template never
/// carries SVG text of its own), and says which names it has (`WebIconRule`).
package protocol IconDrawing: Sendable {
    /// The icon's SVG markup, `nil` when the set has no icon of this name.
    func svg(named name: String) -> String?

    /// Whether the set has an icon of this name.
    func contains(_ name: String) -> Bool

    /// Names close to `query`, best first, at most `limit` (for the hint of a refused name).
    func search(_ query: String, limit: Int) -> [String]
}

/// Draws a web icon by name as inline SVG markup: the service's vetted set (`EmptyStateWeb`'s
/// `IconSet`). The renderer writes what it draws into a `platform=web` answer; a template never
/// carries SVG text of its own.
package protocol IconDrawing: Sendable {
    /// The icon's SVG markup, `nil` when the set has no icon of this name.
    func svg(named name: String) -> String?
}

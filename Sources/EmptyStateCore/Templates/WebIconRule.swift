/// A template's web icon must be one of the service's icon set: the service draws it (inline SVG
/// in `platform=web` answers and in the HTML), so a name it cannot draw would leave web pages
/// without an icon. Checked on writes (the admin API's PUT, 422) and on the built-in catalogue at
/// start; templates already in the store keep loading, and one whose icon is missing is served
/// without an SVG.
package enum WebIconRule {
    package static let pointer = "/visual/icon/web"

    /// The rule `template` breaks against `icons` (the service's: `IconSet.lucide`), if any.
    package static func violation(in template: Template, icons: some IconDrawing) -> String? {
        guard case .icon(let symbols) = template.visual, let name = symbols[.web], !icons.contains(name) else {
            return nil
        }
        let close = icons.search(String(name.split(separator: "-").first ?? ""), limit: 5)
        let hint = close.isEmpty ? "" : " (similar: \(close.joined(separator: ", ")))"
        return "\"\(name)\" is not in the web icon set; GET /v1/admin/icons?q= lists the names\(hint)"
    }
}

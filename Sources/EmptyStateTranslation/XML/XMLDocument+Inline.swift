extension XMLDocument {
    /// The text of a `<source>` or `<target>`: its text as written, comments skipped, and each
    /// inline element of `namespace` turned into text by `inline` (a placeholder into `{name}`).
    /// An element of another namespace is an error: the reader would not know what it stands for.
    func inlineText(
        of element: XMLElement,
        namespace: String,
        unit: UnitID,
        _ inline: (XMLElement) throws(TranslationFormatError) -> String
    ) throws(TranslationFormatError) -> String {
        var result = ""
        for child in element.children {
            switch child {
            case .text(let text, _):
                result += text
            case .comment:
                continue
            case .element(let child):
                guard child.name.namespace == namespace else {
                    throw error(
                        at: child.offset,
                        unitID: unit.description,
                        "unexpected <\(child.qualifiedName)> in <\(element.qualifiedName)>"
                    )
                }
                result += try inline(child)
            }
        }
        return result
    }

    /// The error for an inline element a reader does not accept.
    func unsupportedInline(_ element: XMLElement, unit: UnitID) -> TranslationFormatError {
        error(
            at: element.offset,
            unitID: unit.description,
            "<\(element.qualifiedName)> is not supported: copy has no formatting, only {placeholders}"
        )
    }
}

/// Reads the unit id off each unit element of a file, and refuses a unit that comes twice: the
/// second would silently win an import.
struct UnitIDRegistry {
    private var seen: Set<UnitID> = []

    /// The unit id in `element`'s `attribute`.
    /// - Parameters:
    ///   - parse: the format's spelling of unit ids.
    ///   - expected: that spelling, for the error (`template/key (e.g. connectionRefused/title)`).
    mutating func id(
        of element: XMLElement,
        attribute: String,
        in document: XMLDocument,
        parse: (String) -> UnitID?,
        expected: String
    ) throws(TranslationFormatError) -> UnitID {
        guard let text = element.attribute(attribute) else {
            throw document.error(at: element.offset, "<\(element.qualifiedName)> has no \(attribute)")
        }
        guard let id = parse(text) else {
            throw document.error(at: element.offset, unitID: text, "the \(attribute) is not \(expected)")
        }
        guard seen.insert(id).inserted else {
            throw document.error(at: element.offset, unitID: id.description, "the unit appears twice")
        }
        return id
    }

    /// Records an id read some other way (a plural group's), refusing it when it came before.
    mutating func register(
        _ id: UnitID,
        at element: XMLElement,
        in document: XMLDocument
    )
        throws(TranslationFormatError)
    {
        guard seen.insert(id).inserted else {
            throw document.error(at: element.offset, unitID: id.description, "the unit appears twice")
        }
    }
}

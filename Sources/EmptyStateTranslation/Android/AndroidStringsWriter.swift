import EmptyStateCore

/// Android `strings.xml`: `values/strings.xml` for the source locale and one
/// `values-<qualifier>/strings.xml` per target locale (see `AndroidLocaleFolder`).
///
/// ```xml
/// <resources xmlns:xliff="urn:oasis:names:tc:xliff:document:1.2">
///   <!-- empty-state-service sourceLocale=en targetLocale=fr exportedAt=2026-11-23T10:00:00Z -->
///   <!-- Template verifyIdentity, category "auth" -->
///   <!-- title, at most 2 lines (60 columns) -->
///   <string name="verifyIdentity__title">Connectez-vous avec <xliff:g id="provider">%1$s</xliff:g></string>
/// ```
/// The first comment says which locales and when, so the file reads back on its own; each
/// string's notes are the comments above it. A locale file holds the strings that have a
/// translation (a missing one falls back to `values/`, as on Android). Android has no review
/// states: a stale translation is marked by a comment right above it
/// (`AndroidStringsReader.staleMarker`), which aapt2 ignores and Android Studio and the tools
/// built on translate-toolkit (Weblate, Pootle) keep and show as the string's note; every other
/// string reads back `translated`.
///
/// A plural string is a `<plurals>` of the same name, an `<item quantity>` per CLDR category of
/// the file's locale in CLDR's order (the source file the source's forms), each item written as
/// a `<string>` is and always as a format string (`getQuantityString` formats it); a stale one
/// is marked like a `<string>`:
///
/// ```xml
///   <plurals name="hiddenResults__message">
///     <item quantity="one"><xliff:g id="count">%1$s</xliff:g> résultat masqué</item>
///     <item quantity="other"><xliff:g id="count">%1$s</xliff:g> résultats masqués</item>
///   </plurals>
/// ```
///
/// A placeholder's `<xliff:g>` carries an `example` when the template gives one (its `examples`:
/// `<xliff:g id="provider" example="BankID">%1$s</xliff:g>`), which Android Studio's translations
/// editor and the upload tools show the translator.
package enum AndroidStringsWriter {
    /// The path of a locale's file in a `res/` tree; `nil` locale for the source file.
    package static func path(for locale: String?) -> String {
        (locale.map(AndroidLocaleFolder.folder(for:)) ?? "values") + "/strings.xml"
    }

    /// The target locale's file: its translated strings, a stale one marked (`staleMarker`).
    package static func write(_ document: TranslationDocument) -> [UInt8] {
        let entries = document.units.compactMap { unit -> Entry? in
            guard let target = unit.target, unit.state != .missing else { return nil }
            return Entry(unit: unit, text: target, stale: unit.state == .stale, plural: unit.targetPlural)
        }
        return write(entries, header: header(document, target: true))
    }

    /// The source locale's file (`values/strings.xml`): every source text.
    package static func writeSource(_ document: TranslationDocument) -> [UInt8] {
        let entries = document.units.compactMap { unit in
            unit.source.map { Entry(unit: unit, text: $0, stale: false, plural: unit.sourcePlural) }
        }
        return write(entries, header: header(document, target: false))
    }

    /// One `<string>` (or `<plurals>`, for a plural's forms), and whether it is marked stale.
    private struct Entry {
        var unit: TranslationUnit
        var text: String
        var stale: Bool
        var plural: PluralText?
    }

    private static func header(_ document: TranslationDocument, target: Bool) -> String {
        var header = AndroidStringsReader.headerMarker + " sourceLocale=" + document.sourceLocale
        if target { header += " targetLocale=" + document.targetLocale }
        if let exportedAt = document.exportedAt { header += " exportedAt=" + exportedAt }
        return header
    }

    private static func write(_ entries: [Entry], header: String) -> [UInt8] {
        var writer = XMLWriter(capacity: 256 + entries.count * 320)
        writer.open("resources", [("xmlns:xliff", XLIFF12Reader.namespace)], depth: 0)
        writer.comment(commentSafe(header), depth: 1)
        for entry in entries {
            let unit = entry.unit
            for note in unit.notes { writer.comment(commentSafe(note), depth: 1) }
            if entry.stale { writer.comment(AndroidStringsReader.staleMarker, depth: 1) }
            let order = AndroidEscaping.placeholderOrder(source: unit.source, target: unit.target)
            let examples = unit.examples.filter { order.contains($0.key) }
            if let plural = entry.plural {
                writer.open("plurals", [("name", AndroidResourceName.name(for: unit.id))], depth: 1)
                for (category, text) in plural.orderedForms {
                    let encoded = AndroidEscaping.encode(text, order: order, examples: examples, format: true)
                    writer.line("item", [("quantity", category.rawValue)], depth: 2) { $0.raw(encoded.content) }
                }
                writer.close("plurals", depth: 1)
                continue
            }
            let encoded = AndroidEscaping.encode(entry.text, order: order, examples: examples)
            var attributes = [("name", AndroidResourceName.name(for: unit.id))]
            if !encoded.formatted { attributes.append(("formatted", "false")) }
            writer.line("string", attributes, depth: 1) { $0.raw(encoded.content) }
        }
        writer.close("resources", depth: 0)
        return writer.finish()
    }

    /// A note as comment text: XML forbids `--` inside a comment (a `-` at its end is safe: the
    /// writer puts a space before `-->`).
    private static func commentSafe(_ text: String) -> String {
        var safe = XMLWriter.xmlSafe(text)
        while safe.contains("--") { safe = safe.replacingDoubleHyphens() }
        return safe
    }
}

extension String {
    fileprivate func replacingDoubleHyphens() -> String {
        split(separator: "--", omittingEmptySubsequences: false).joined(separator: "- -")
    }
}

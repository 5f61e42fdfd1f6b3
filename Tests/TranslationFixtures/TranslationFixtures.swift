import CLDRPlurals
import EmptyStateCore
import EmptyStateTranslation
import Foundation
import JSONCoding

/// The translation documents the format tests and `make translation-check` share: the built-in
/// catalogue's French export and the hard texts, and the files of every format made of them for
/// the independent readers (`Tests/translation/check_interop.py`), with the model they must find.
///
/// A library of its own so that the fixture writer (`translation-fixtures`, run by the Makefile)
/// is a program, not a test, and the test that reads the toolkit's files back compares them
/// with exactly what was written.
package enum TranslationFixtures {
    /// The repository the fixtures are read from.
    package static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The built-in catalogue: real copy in seven locales, Arabic and Japanese among them.
    package static func builtinTemplates() throws -> [Template] {
        try CatalogueLoader.load(directory: root.appendingPathComponent("config/templates").path).templates
    }

    /// Translations a file format must keep scalar for scalar, in every state (`nil`: none yet).
    package static let hardTargets: [(text: String?, state: TranslationState)] = [
        ("Caf\u{E9} cr\u{E8}me", .translated),  // NFC
        ("Cafe\u{301} cre\u{300}me", .reviewed),  // the same words in NFD: must not become NFC
        ("\u{202B}مرحبا {name}\u{202C} \u{200F}!", .final),  // bidi embedding and mark, Arabic
        ("👩🏽‍💻 emoji 🇫🇷 and 𝒳 outside the BMP", .stale),
        (nil, .missing),
        ("<b>&amp;</b> \"quoted\" it's ]]> & < >", .translated),
        ("  leading and trailing  ", .reviewed),
        ("two  spaces, a\ttab and a\nnewline\r\nand CRLF", .final),
        ("{a}{b} {a} repeated, {not a name} {_ok} {9no} {", .stale),
        ("a draft nobody confirmed", .missing),
        ("100% of {count} %1$s %% \\n literal backslash-n", .translated),
        ("@start and ?question", .reviewed),
        ("?start", .final),
        ("\u{1}control\u{7F}del\u{85}c1\u{FFFE}", .stale),
        ("日本語のタイトル、全角", .translated),
        ("", .stale),
    ]

    /// A document with every state, notes, placeholders and the hard texts as targets.
    package static func hardDocument(exportedAt: String? = "2026-11-23T10:00:00Z") -> TranslationDocument {
        let units = hardTargets.enumerated().map { index, entry in
            TranslationUnit(
                id: UnitID(template: "hard\(index)", key: index % 2 == 0 ? "title" : "actions.retry"),
                source: "Source \(index): {a} & {b}",
                target: entry.text,
                state: entry.state,
                notes: ["Template hard\(index), category error", "title, at most 2 lines (60 columns)"]
            )
        }
        return TranslationDocument(sourceLocale: "en", targetLocale: "pt-BR", exportedAt: exportedAt, units: units)
    }

    /// The built-in catalogue's French export, every string translated.
    package static func builtinDocument(locale: String = "fr") throws -> TranslationDocument {
        let snapshots = try builtinTemplates().map { TemplateSnapshot(template: $0, revision: 1) }
        return TranslationExport.document(
            snapshots,
            sourceLocale: "en",
            targetLocale: locale,
            exportedAt: "2026-11-23T10:00:00Z"
        )
    }

    /// Plural strings in every state, into Russian (four categories) from English (two), their
    /// forms with what each format escapes: apostrophes and ICU's syntax (`'`, `{`, `#`), `%`,
    /// quotes, markup, a leading `@`, and a form without the number.
    package static func pluralDocument() -> TranslationDocument {
        let source = PluralText(
            variable: "count",
            forms: [.one: "One result isn't shown by {app}.", .other: "{count} results aren't shown by {app}."]
        )
        let targets: [(forms: [PluralCategory: String]?, state: TranslationState)] = [
            (
                [
                    .one: "{count} результат скрыт в {app}: 'кавычки' и \"ёлочки\"",
                    .few: "{count} результата скрыты # {app} '{' }",
                    .many: "@{count} результатов <скрыто> & 100% в {app}",
                    .other: "{count} результата скрыто в {app}.",
                ], .translated
            ),
            ([.one: "Один результат в {app}", .other: "{count} результата в {app}"], .stale),
            (nil, .missing),
            ([.one: "{count} — один в {app}", .few: "{count} — несколько в {app}", .other: "{count} в {app}"], .final),
        ]
        let units = targets.enumerated().map { index, entry in
            TranslationUnit(
                id: UnitID(template: "plural\(index)", key: "message"),
                source: source.other,
                target: entry.forms?[.other],
                state: entry.state,
                notes: ["Template plural\(index), category noResults"],
                sourcePlural: source,
                targetPlural: entry.forms.map { PluralText(variable: "count", forms: $0) },
                examples: ["app": "Files & \"Docs\""]
            )
        }
        return TranslationDocument(
            sourceLocale: "en",
            targetLocale: "ru",
            exportedAt: "2026-11-23T10:00:00Z",
            units: units
        )
    }

    /// The documents of the interop check: the built-in catalogue in French with every state,
    /// and the hard texts.
    package static func interopDocuments() throws -> [(name: String, document: TranslationDocument)] {
        var catalogue = try builtinDocument()
        let states: [TranslationState] = [.translated, .reviewed, .final, .stale, .missing]
        for index in catalogue.units.indices {
            let state = states[index % states.count]
            catalogue.units[index].state = state
            if state == .missing, index % 2 == 0 { catalogue.units[index].target = nil }
        }
        // Examples of placeholders (Android's `<xliff:g example>`) with characters XML escapes; the
        // built-in catalogue has verifyIdentity's own.
        var hard = hardDocument()
        for index in hard.units.indices where index % 2 == 0 {
            hard.units[index].examples = ["a": "Ä & \"x\" <y>", "unused": "never written"]
        }
        return [("catalogue-fr", catalogue), ("hard-pt-BR", hard)]
    }

    /// Writes every format of the interop documents into `directory` (`xliff2/`, `xliff12/`,
    /// `xcstrings/`, `android/<name>/`), and `expected.json`: the model each file stands for.
    /// - Returns: the paths written, relative to `directory`.
    @discardableResult
    package static func writeInterop(to directory: URL) throws -> [String] {
        var written: [String] = []
        func write(_ bytes: [UInt8], _ path: String) throws {
            let url = directory.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try Data(bytes).write(to: url)
            written.append(path)
        }
        var expected = JSONWriter()
        expected.beginObject()
        for (name, document) in try interopDocuments() {
            try write(XLIFF2Writer.write(document), "xliff2/\(name).xlf")
            try write(XLIFF12Writer.write(document), "xliff12/\(name).xliff")
            try write(StringCatalogWriter.write([document]), "xcstrings/\(name).xcstrings")
            for file in TranslationFormat.android.write([document]) {
                try write(file.bytes, "android/\(name)/\(file.path)")
            }
            expected.key(name)
            describe(document, into: &expected)
        }
        expected.endObject()
        try write(expected.bytes, "expected.json")

        // Plural strings: every format into plurals/, and plurals.json with their forms.
        let plurals = pluralDocument()
        try write(XLIFF2Writer.write(plurals), "plurals/xliff2/ru.xlf")
        try write(XLIFF12Writer.write(plurals), "plurals/xliff12/ru.xliff")
        try write(StringCatalogWriter.write([plurals]), "plurals/xcstrings/Localizable.xcstrings")
        for file in TranslationFormat.android.write([plurals]) { try write(file.bytes, "plurals/android/\(file.path)") }
        var pluralJSON = JSONWriter()
        describePlurals(plurals, into: &pluralJSON)
        try write(pluralJSON.bytes, "plurals/expected.json")
        return written
    }

    /// The plural model the Python check compares with: each unit's forms by category, the
    /// target locale's categories, and the ICU messages of XLIFF 2.0.
    private static func describePlurals(_ document: TranslationDocument, into json: inout JSONWriter) {
        func forms(_ plural: PluralText?) {
            guard let plural else { return json.null() }
            json.beginObject()
            for (category, text) in plural.orderedForms { json.member(category.rawValue, text) }
            json.endObject()
        }
        json.beginObject()
        json.member("sourceLocale", document.sourceLocale)
        json.member("targetLocale", document.targetLocale)
        json.member("androidFolder", AndroidLocaleFolder.folder(for: document.targetLocale))
        json.key("sourceCategories")
        json.beginArray()
        for category in PluralText.categories(for: document.sourceLocale) { json.string(category.rawValue) }
        json.endArray()
        json.key("targetCategories")
        json.beginArray()
        for category in PluralText.categories(for: document.targetLocale) { json.string(category.rawValue) }
        json.endArray()
        json.key("units")
        json.beginArray()
        for unit in document.units {
            json.beginObject()
            json.member("id", unit.id.description)
            json.member("tokenId", unit.id.tokenForm)
            json.member("resourceName", AndroidResourceName.name(for: unit.id))
            json.member("state", unit.state.rawValue)
            json.member("sourceOther", unit.source ?? "")
            json.member("targetOther", unit.target ?? "")
            json.key("sourceForms")
            forms(unit.sourcePlural)
            json.key("targetForms")
            forms(unit.state == .missing ? nil : unit.targetPlural)
            json.member("icuSource", unit.sourcePlural.map(ICUPlural.format) ?? "")
            json.key("icuTarget")
            if let target = unit.targetPlural, unit.state != .missing {
                json.string(ICUPlural.format(target))
            } else {
                json.null()
            }
            json.key("examples")
            json.beginObject()
            for name in unit.examples.keys.sorted() { json.member(name, unit.examples[name]!) }
            json.endObject()
            json.endObject()
        }
        json.endArray()
        json.endObject()
    }

    /// The model the Python check compares with, ids in every spelling the formats use.
    private static func describe(_ document: TranslationDocument, into json: inout JSONWriter) {
        json.beginObject()
        json.member("sourceLocale", document.sourceLocale)
        json.member("targetLocale", document.targetLocale)
        json.member("androidFolder", AndroidLocaleFolder.folder(for: document.targetLocale))
        json.key("exportedAt")
        if let exportedAt = document.exportedAt { json.string(exportedAt) } else { json.null() }
        json.key("units")
        json.beginArray()
        for unit in document.units {
            json.beginObject()
            json.member("id", unit.id.description)
            json.member("tokenId", unit.id.tokenForm)
            json.member("resourceName", AndroidResourceName.name(for: unit.id))
            json.member("source", unit.source ?? "")
            json.key("target")
            if let target = unit.target { json.string(target) } else { json.null() }
            json.member("state", unit.state.rawValue)
            json.key("notes")
            json.beginArray()
            for note in unit.notes { json.string(note) }
            json.endArray()
            // The examples the Android files carry: those of the unit's placeholders.
            json.key("examples")
            json.beginObject()
            let names = AndroidEscaping.placeholderOrder(source: unit.source, target: unit.target)
            for name in unit.examples.keys.sorted() where names.contains(name) {
                json.member(name, unit.examples[name]!)
            }
            json.endObject()
            json.key("placeholders")
            json.beginArray()
            for name in unit.placeholders { json.string(name) }
            json.endArray()
            json.endObject()
        }
        json.endArray()
        json.endObject()
    }
}

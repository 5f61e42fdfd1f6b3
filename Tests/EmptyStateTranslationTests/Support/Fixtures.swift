import EmptyStateCore
import EmptyStateTranslation
import Foundation
import JSONCoding

/// Paths of the repository the tests run from.
enum Repository {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The built-in catalogue: real copy in seven locales, Arabic and Japanese among them.
    static func builtinTemplates() throws -> [Template] {
        try CatalogueLoader.load(directory: root.appendingPathComponent("config/templates").path).templates
    }
}

enum Fixtures {
    /// A template with a placeholder used twice, an accessibility label and every kind of key.
    static func verifyTemplate(strings: String? = nil) -> Template {
        template(
            #"""
            {
              "id": "verify-identity_2",
              "category": "auth",
              "style": "default",
              "defaultLocale": "en",
              "visual": { "icon": { "ios": "person.badge.key", "android": "badge", "web": "id-card" } },
              "actions": [
                { "id": "verify", "role": "primary", "type": "signIn" },
                { "id": "later", "role": "secondary", "type": "dismiss" }
              ],
              "strings": \#(strings ?? #"""
              {
                "en": {
                  "title": "Verify with {provider}",
                  "message": "To continue, confirm it's you with {provider} & {app}.",
                  "visual.label": "ID card",
                  "actions.verify": "Open {provider}",
                  "actions.later": "Not now"
                },
                "fr": {
                  "title": "Vérifier avec {provider}",
                  "message": "Pour continuer, confirmez votre identité avec {provider} et {app}.",
                  "visual.label": "Carte d’identité",
                  "actions.verify": "Ouvrir {provider}",
                  "actions.later": "Plus tard"
                }
              }
              """#)
            }
            """#
        )
    }

    static func template(_ json: String) -> Template {
        let value = try! JSONParser.parse(Array(json.utf8))
        switch TemplateParser.parse(value) {
        case .success(let template): return template
        case .failure(let failure): fatalError("fixture template is invalid: \(failure.issues)")
        }
    }

    /// Translations a file format must keep scalar for scalar, in every state (`nil`: none yet).
    static let hardTargets: [(text: String?, state: TranslationState)] = [
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
    static func hardDocument(exportedAt: String? = "2026-11-23T10:00:00Z") -> TranslationDocument {
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
    static func builtinDocument(locale: String = "fr") throws -> TranslationDocument {
        let snapshots = try Repository.builtinTemplates().map { TemplateSnapshot(template: $0, revision: 1) }
        return TranslationExport.document(
            snapshots,
            sourceLocale: "en",
            targetLocale: locale,
            exportedAt: "2026-11-23T10:00:00Z"
        )
    }
}

extension Array where Element == UInt8 {
    var text: String { String(decoding: self, as: UTF8.self) }
}

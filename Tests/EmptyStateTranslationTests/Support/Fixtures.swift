import EmptyStateCore
import EmptyStateTranslation
import Foundation
import JSONCoding
import TranslationFixtures

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

    /// See `TranslationFixtures.hardTargets`.
    static var hardTargets: [(text: String?, state: TranslationState)] { TranslationFixtures.hardTargets }

    /// See `TranslationFixtures.hardDocument`.
    static func hardDocument(exportedAt: String? = "2026-11-23T10:00:00Z") -> TranslationDocument {
        TranslationFixtures.hardDocument(exportedAt: exportedAt)
    }

    /// See `TranslationFixtures.builtinDocument`.
    static func builtinDocument(locale: String = "fr") throws -> TranslationDocument {
        try TranslationFixtures.builtinDocument(locale: locale)
    }
}

extension Array where Element == UInt8 {
    var text: String { String(decoding: self, as: UTF8.self) }
}

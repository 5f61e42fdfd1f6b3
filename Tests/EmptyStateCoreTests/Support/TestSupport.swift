import EmptyStateCore
import Foundation
import JSONCoding

/// Paths of the repository the tests run from, found from this file's location.
enum Repository {
    /// The package root: the folder that holds `Tests/EmptyStateCoreTests/Support/`.
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    static let templatesDirectory: String = root.appendingPathComponent("config/templates").path
}

/// Template documents used as the starting point of the parser and renderer tests.
enum Documents {
    /// The smallest document that passes every rule: no actions, one locale, a title only.
    static let minimal = document(
        #"""
        {
          "id": "minimal",
          "category": "loading",
          "style": "subtle",
          "defaultLocale": "en",
          "visual": { "illustration": { "asset": "empty_box" } },
          "strings": { "en": { "title": "Loading your files" } }
        }
        """#
    )

    /// A full document (two actions, two locales, a placeholder) that passes every rule; each
    /// parser test breaks exactly one rule of it.
    static let sample = document(
        #"""
        {
          "id": "sample",
          "aliases": ["sampleAlias"],
          "category": "error",
          "style": "default",
          "defaultLocale": "en",
          "visual": { "icon": { "ios": "wifi.slash", "android": "wifi_off", "web": "wifi-off" } },
          "actions": [
            { "id": "retry", "role": "primary", "type": "retry" },
            { "id": "back", "role": "secondary", "type": "navigateBack" }
          ],
          "strings": {
            "en": {
              "title": "You're offline",
              "message": "Check your connection to {provider}, then try again.",
              "actions.retry": "Try again",
              "actions.back": "Go back"
            },
            "fr": {
              "title": "Vous êtes hors ligne",
              "message": "Vérifiez votre connexion à {provider}, puis réessayez.",
              "actions.retry": "Réessayer",
              "actions.back": "Retour"
            }
          }
        }
        """#
    )

    /// Parses JSON text written in a test; a typo in a fixture stops the test run loudly.
    static func document(_ text: String) -> JSONValue {
        do {
            return try JSONParser.parse(Array(text.utf8))
        } catch {
            fatalError("fixture is not JSON: \(error)")
        }
    }

    /// The template `document` describes; `nil` when it breaks a rule.
    static func template(_ document: JSONValue) -> Template? {
        try? TemplateParser.parse(document).get()
    }
}

extension JSONValue {
    /// A copy with the value at `pointer` (a JSON pointer with plain tokens) replaced, added when
    /// the last member is missing, or removed when `newValue` is `nil`.
    func setting(_ pointer: String, to newValue: JSONValue?) -> JSONValue {
        let tokens = pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        return setting(tokens[...], to: newValue)
    }

    private func setting(_ tokens: ArraySlice<String>, to newValue: JSONValue?) -> JSONValue {
        guard let token = tokens.first else { return newValue ?? .null }
        let rest = tokens.dropFirst()
        switch self {
        case .object(var members):
            if let index = members.firstIndex(where: { $0.key == token }) {
                if rest.isEmpty, newValue == nil {
                    members.remove(at: index)
                } else {
                    members[index].value = members[index].value.setting(rest, to: newValue)
                }
            } else if let newValue {
                members.append((token, JSONValue.object([]).setting(rest, to: newValue)))
            }
            return .object(members)
        case .array(var elements):
            guard let index = Int(token), elements.indices.contains(index) else { return self }
            if rest.isEmpty, newValue == nil {
                elements.remove(at: index)
            } else {
                elements[index] = elements[index].setting(rest, to: newValue)
            }
            return .array(elements)
        default:
            return self
        }
    }

    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    var keys: [String] {
        if case .object(let members) = self { return members.map(\.key) }
        return []
    }
}

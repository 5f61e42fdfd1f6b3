import EmptyStateTranslation
import Foundation
import Testing

/// A String Catalog as Apple documents it (Xcode 15's `.xcstrings`), for `JSONDecoder`.
private struct AppleStringCatalog: Decodable {
    var sourceLanguage: String
    var version: String
    var strings: [String: Entry]

    struct Entry: Decodable {
        var comment: String?
        var extractionState: String?
        var shouldTranslate: Bool?
        var localizations: [String: Localization]?
    }

    struct Localization: Decodable {
        var stringUnit: StringUnit?
    }

    struct StringUnit: Decodable {
        var state: String
        var value: String
    }
}

@Suite("String Catalog (.xcstrings)")
struct StringCatalogTests {
    @Test("the writer's bytes, exactly: Xcode's layout")
    func golden() {
        var german = XLIFF2Tests.small
        german.targetLocale = "de"
        german.units = [german.units[0]]
        german.units[0].target = "Mit {provider} anmelden"
        let expected = """
            {
              "sourceLanguage" : "en",
              "strings" : {
                "empty-state-service export" : {
                  "comment" : "exportedAt=2026-11-23T10:00:00Z (written by empty-state-service when it exported this file; keep this entry: an import compares this time with later edits of the catalogue). Not a string to translate.",
                  "extractionState" : "manual",
                  "shouldTranslate" : false
                },
                "verifyIdentity/actions.later" : {
                  "extractionState" : "manual",
                  "localizations" : {
                    "en" : {
                      "stringUnit" : {
                        "state" : "translated",
                        "value" : "  Not now"
                      }
                    }
                  }
                },
                "verifyIdentity/message" : {
                  "extractionState" : "manual",
                  "localizations" : {
                    "en" : {
                      "stringUnit" : {
                        "state" : "translated",
                        "value" : "A & B <c>"
                      }
                    },
                    "fr" : {
                      "stringUnit" : {
                        "state" : "needs_review",
                        "value" : "A & B"
                      }
                    }
                  }
                },
                "verifyIdentity/title" : {
                  "comment" : "title, at most 2 lines (60 columns)",
                  "extractionState" : "manual",
                  "localizations" : {
                    "de" : {
                      "stringUnit" : {
                        "state" : "translated",
                        "value" : "Mit {provider} anmelden"
                      }
                    },
                    "en" : {
                      "stringUnit" : {
                        "state" : "translated",
                        "value" : "Sign in with {provider}"
                      }
                    },
                    "fr" : {
                      "stringUnit" : {
                        "state" : "translated",
                        "value" : "Connectez-vous avec {provider}"
                      }
                    }
                  }
                }
              },
              "version" : "1.0"
            }
            """
        expectSameBytes(StringCatalogWriter.write([XLIFF2Tests.small, german]), Array(expected.utf8))
        // The order of the documents given does not matter.
        expectSameBytes(StringCatalogWriter.write([german, XLIFF2Tests.small]), Array(expected.utf8))
    }

    /// What a document looks like after a trip through a catalogue: units in key order,
    /// reviewed and final as translated (the catalogue has no review states, so its `translated`
    /// is a reviewer's confirmation), the export time kept in the export record.
    private func throughCatalog(_ document: TranslationDocument) -> TranslationDocument {
        var expected = document
        expected.translatedConfirms = true
        expected.units.sort { $0.id.description.utf8.lexicographicallyPrecedes($1.id.description.utf8) }
        for index in expected.units.indices where [.reviewed, .final].contains(expected.units[index].state) {
            expected.units[index].state = .translated
        }
        return expected
    }

    @Test("write → read → write is byte-identical; read gives back every note, value and state it can hold")
    func roundTrip() throws {
        let hard = Fixtures.hardDocument()
        var other = Fixtures.hardDocument()
        other.targetLocale = "ar"
        for (index, unit) in other.units.enumerated() { other.units[index].target = unit.target.map { "ع " + $0 } }
        let builtin = try ["ar", "de", "es", "fr", "ja", "pt-BR"].map { try Fixtures.builtinDocument(locale: $0) }
        for documents in [[hard, other], builtin, [XLIFF2Tests.small]] {
            let bytes = StringCatalogWriter.write(documents)
            let read = try StringCatalogReader.read(bytes)
            #expect(read == documents.sorted { $0.targetLocale < $1.targetLocale }.map(throughCatalog))
            expectSameBytes(StringCatalogWriter.write(read), bytes)
        }
    }

    @Test("the export time survives a save in Xcode: another key order, layout and a translator's comment")
    func exportRecordSurvivesXcode() throws {
        let bytes = StringCatalogWriter.write([XLIFF2Tests.small])
        // What Xcode does to a catalogue it saves: its own JSON layout and key order (the record
        // may sort anywhere), a state changed in its editor, a comment added to a string. The
        // record's members are kept as they are, as Xcode keeps a manual entry's.
        var root = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        var strings = try #require(root["strings"] as? [String: Any])
        var title = try #require(strings["verifyIdentity/title"] as? [String: Any])
        title["comment"] = "Shown on the sign-in screen"
        var localizations = try #require(title["localizations"] as? [String: Any])
        localizations["fr"] = ["stringUnit": ["state": "translated", "value": "Identifiez-vous avec {provider}"]]
        title["localizations"] = localizations
        strings["verifyIdentity/title"] = title
        root["strings"] = strings
        let resaved = try JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted])
        let read = try #require(try StringCatalogReader.read(Array(resaved)).first)
        #expect(read.exportedAt == XLIFF2Tests.small.exportedAt)
        #expect(read.translatedConfirms)
        #expect(read.units.first { $0.id.key == "title" }?.target == "Identifiez-vous avec {provider}")
        #expect(read.units.count == XLIFF2Tests.small.units.count)

        // Without the record (a catalogue from elsewhere), the file gives no export time: an
        // import then has nothing to compare edits with, as for any format without one.
        strings[StringCatalogWriter.exportKey] = nil
        root["strings"] = strings
        let bare = try JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted])
        #expect(try StringCatalogReader.read(Array(bare)).first?.exportedAt == nil)
        // A record whose time is not one is refused, naming it.
        strings[StringCatalogWriter.exportKey] = ["comment": "exportedAt=yesterday", "shouldTranslate": false]
        root["strings"] = strings
        let broken = try JSONSerialization.data(withJSONObject: root, options: [.prettyPrinted])
        #expect(throws: TranslationFormatError.self) { try StringCatalogReader.read(Array(broken)) }
    }

    @Test("Foundation's JSONDecoder reads the catalogue into Apple's documented shape")
    func appleShape() throws {
        let documents = [Fixtures.hardDocument(), try Fixtures.builtinDocument()]
        for document in documents {
            let bytes = StringCatalogWriter.write([document])
            let catalog = try JSONDecoder().decode(AppleStringCatalog.self, from: Data(bytes))
            #expect(catalog.sourceLanguage == "en")
            #expect(catalog.version == "1.0")
            // The units, and the export record, which Xcode shows as "Don't Translate".
            #expect(catalog.strings.count == document.units.count + 1)
            let record = try #require(catalog.strings[StringCatalogWriter.exportKey])
            #expect(record.shouldTranslate == false && record.extractionState == "manual")
            #expect(record.comment?.hasPrefix("exportedAt=\(document.exportedAt!) ") == true)
            for unit in document.units {
                let entry = try #require(catalog.strings[unit.id.description])
                #expect(entry.extractionState == "manual")
                #expect(entry.comment == (unit.notes.isEmpty ? nil : unit.notes.joined(separator: "\n")))
                let source = try #require(entry.localizations?["en"]?.stringUnit)
                #expect(source.value.unicodeScalars.elementsEqual(unit.source!.unicodeScalars))
                let target = entry.localizations?[document.targetLocale]?.stringUnit
                #expect(target?.value.unicodeScalars.elementsEqual(unit.target!.unicodeScalars) ?? (unit.target == nil))
                let expectedState: String? =
                    switch unit.state {
                    case .missing: unit.target == nil ? nil : "new"
                    case .stale: "needs_review"
                    case .translated, .reviewed, .final: "translated"
                    }
                #expect(target?.state == expectedState)
            }
        }
    }

    @Test(
        "broken catalogues are refused with line, column and unit",
        arguments: [
            ("{\n  \"sourceLanguage\" : \"en\",\n}", 3, 1, nil, "expected a member name"),
            ("{\"sourceLanguage\":\"en\",\"sourceLanguage\":\"fr\"}", 1, 24, nil, "duplicate member"),
            ("[]", 1, 1, nil, "a String Catalog is a JSON object"),
            (
                StringCatalogTests.catalog(#"{"fr":{"stringUnit":{"state":"done","value":"x"}}}"#), 5, 54, "t/title",
                "state \"done\""
            ),
            (
                StringCatalogTests.catalog(#"{"fr":{"variations":{"device":{}}}}"#), 5, 55, "t/title",
                "device variations are not supported"
            ),
            (
                StringCatalogTests.catalog(#"{"fr":{"substitutions":{}}}"#), 5, 48, "t/title",
                "substitutions are not supported"
            ),
            (
                StringCatalogTests.catalog(
                    #"{"fr":{"variations":{"plural":{"other":{"stringUnit":{"state":"fine","value":"x"}}}}}}"#
                ),
                5, 87, "t/title", "state \"fine\""
            ),
            (
                StringCatalogTests.catalog(#"{"fr":{"stringUnit":{"state":"new"}}}"#), 5, 45, "t/title",
                "stringUnit.value is required"
            ),
            (StringCatalogTests.catalog("{}", key: "title"), 4, 15, "title", "not a unit id"),
            (StringCatalogTests.catalog("{}", sourceLanguage: "english!"), 2, 22, nil, "not a BCP 47 language tag"),
        ] as [(String, Int, Int, String?, String)]
    )
    func broken(input: String, line: Int, column: Int, unit: String?, message: String) {
        expectRefused(input, line: line, column: column, unit: unit, message: message) {
            (bytes) throws(TranslationFormatError) in
            _ = try StringCatalogReader.read(bytes)
        }
    }

    /// A catalogue whose one key (line 4) has `localizations` (line 5).
    static func catalog(_ localizations: String, key: String = "t/title", sourceLanguage: String = "en") -> String {
        """
        {
          "sourceLanguage" : "\(sourceLanguage)",
          "strings" : {
            "\(key)" : {
              "localizations" : \(localizations)
            }
          },
          "version" : "1.0"
        }
        """
    }

    @Test("a byte-order mark is accepted; shouldTranslate false is skipped")
    func bomAndShouldTranslate() throws {
        let text =
            "\u{FEFF}" + """
                {"sourceLanguage":"en","strings":{
                  "a/title":{"localizations":{"en":{"stringUnit":{"state":"translated","value":"A"}},
                                              "fr":{"stringUnit":{"state":"translated","value":"Á"}}}},
                  "a/message":{"shouldTranslate":false,"localizations":{"fr":{"stringUnit":{"state":"translated","value":"x"}}}}
                },"version":"1.0"}
                """
        let documents = try StringCatalogReader.read(Array(text.utf8))
        #expect(documents.map(\.targetLocale) == ["fr"])
        #expect(documents[0].units.map(\.id.description) == ["a/title"])
    }
}

import CLDRPlurals
import EmptyStateCore
import EmptyStateTranslation
import Testing

/// Plural strings in String Catalogs: `variations.plural`, as Xcode writes it.
@Suite("String Catalogs and plural strings")
struct PluralStringCatalogTests {
    static func catalog(
        _ edit: (String) -> String = { $0 },
        snapshot: TemplateSnapshot? = nil
    ) throws
        -> [TranslationDocument]
    {
        let document = PluralTranslationTests.document(
            snapshot ?? TranslationExportTests.snapshot(PluralTranslationTests.template())
        )
        let text = edit(String(decoding: StringCatalogWriter.write([document]), as: UTF8.self))
        return try StringCatalogReader.read(Array(text.utf8))
    }

    static let frMessage = """
            "verify-identity_2/message" : {
              "comment" : "Template verify-identity_2, category auth\\nmessage, at most 3 lines (140 columns)\\nShown under the heading, as its description\\nPlaceholders {count}, {provider}, {app}: keep them; the app puts values in their place\\nPlural: the number in {count} chooses the form; fr has the forms one, many, other",
              "extractionState" : "manual",
              "localizations" : {
                "en" : {
                  "variations" : {
                    "plural" : {
                      "one" : {
                        "stringUnit" : {
                          "state" : "translated",
                          "value" : "One step left with {provider} & {app}."
                        }
                      },
                      "other" : {
                        "stringUnit" : {
                          "state" : "translated",
                          "value" : "{count} steps left with {provider} & {app}."
                        }
                      }
                    }
                  }
                },
                "fr" : {
                  "variations" : {
                    "plural" : {
                      "one" : {
                        "stringUnit" : {
                          "state" : "translated",
                          "value" : "{count} étape restante avec {provider} et {app}."
                        }
                      },
                      "other" : {
                        "stringUnit" : {
                          "state" : "translated",
                          "value" : "{count} étapes restantes avec {provider} et {app}."
                        }
                      }
                    }
                  }
                }
              }
            },
        """

    static func message(_ documents: [TranslationDocument]) -> TranslationUnit {
        documents[0].units.first { $0.id.key == "message" }!
    }

    /// `text` with `find` replaced in the fr localization of the message only.
    static func editFrench(_ text: String, _ find: String, _ replacement: String) -> String {
        let start = text.range(of: "\"verify-identity_2/message\"")!.upperBound
        let french = text.range(of: "\"fr\" : {", range: start..<text.endIndex)!.lowerBound
        return String(text[..<french])
            + text[french...].replacingOccurrences(of: find, with: replacement)
    }

    @Test("the writer's bytes: variations.plural per locale, each category a stringUnit, Xcode's layout")
    func bytes() {
        let document = PluralTranslationTests.document()
        let text = String(decoding: StringCatalogWriter.write([document]), as: UTF8.self)
        #expect(text.contains(Self.frMessage), "\(text)")
    }

    @Test("write → read → write is byte-identical, and an import of it plans nothing")
    func roundTrip() throws {
        let snapshot = TranslationExportTests.snapshot(PluralTranslationTests.template())
        let document = PluralTranslationTests.document(snapshot)
        let bytes = StringCatalogWriter.write([document])
        let read = try StringCatalogReader.read(bytes)
        #expect(StringCatalogWriter.write(read) == bytes)
        #expect(Self.message(read).targetPlural?.forms[.one] == "{count} étape restante avec {provider} et {app}.")
        let plan = try PluralTranslationTests.plan(read[0], snapshot)
        #expect(plan.isEmpty)
        #expect(PluralTranslationTests.outcome(plan) == .unchanged)
    }

    @Test("Xcode's own save (categories in another order, compact spacing) reads the same")
    func xcodeSave() throws {
        let snapshot = TranslationExportTests.snapshot(PluralTranslationTests.template())
        let read = try Self.catalog {
            $0.replacingOccurrences(
                of: Self.frMessage,
                with: #"""
                          "verify-identity_2/message" : {
                            "extractionState" : "manual",
                            "localizations" : {
                              "fr" : {"variations" : {"plural" : {
                                "other" : {"stringUnit" : {"state" : "translated", "value" : "{count} étapes restantes avec {provider} et {app}."}},
                                "one" : {"stringUnit" : {"state" : "translated", "value" : "{count} étape restante avec {provider} et {app}."}}
                              }}},
                              "en" : {"variations" : {"plural" : {
                                "one" : {"stringUnit" : {"state" : "translated", "value" : "One step left with {provider} & {app}."}},
                                "other" : {"stringUnit" : {"state" : "translated", "value" : "{count} steps left with {provider} & {app}."}}
                              }}}
                            }
                          },
                    """#
            )
        }
        #expect(try PluralTranslationTests.plan(try #require(read.first), snapshot).isEmpty)
    }

    @Test("one changed form: only that string changes; Mark as Reviewed of a stale plural confirms it")
    func changedForm() throws {
        let snapshot = TranslationExportTests.snapshot(PluralTranslationTests.template())
        let read = try Self.catalog {
            $0.replacingOccurrences(of: "\"{count} étape restante avec", with: "\"{count} seule étape restante avec")
        }
        let plan = try PluralTranslationTests.plan(read[0], snapshot)
        #expect(plan.writes.first?.changedKeys == ["message"])
        #expect(
            plan.writes.first?.template.plural("message", in: "fr")?.forms[.one]
                == "{count} seule étape restante avec {provider} et {app}."
        )
        var stale = snapshot
        stale.revisions = ["en": ["message": 5], "fr": ["message": 4]]
        let exported = PluralTranslationTests.document(stale)
        let text = String(decoding: StringCatalogWriter.write([exported]), as: UTF8.self)
        #expect(text.components(separatedBy: "\"state\" : \"needs_review\"").count == 3)
        let reviewed = try StringCatalogReader.read(
            Array(text.replacingOccurrences(of: "needs_review", with: "translated").utf8)
        )
        #expect(
            PluralTranslationTests.outcome(try PluralTranslationTests.plan(reviewed[0], stale))
                == .confirmed(.translated)
        )
    }

    @Test("a form still new leaves the plural a draft; one needing review leaves it stale")
    func formStates() throws {
        let draft = try Self.catalog {
            $0.replacingOccurrences(
                of: "\"state\" : \"translated\",\n                  \"value\" : \"{count} étape restante",
                with: "\"state\" : \"new\",\n                  \"value\" : \"{count} étape restante"
            )
        }
        #expect(Self.message(draft).state == .missing)
        let stale = try Self.catalog {
            $0.replacingOccurrences(
                of: "\"state\" : \"translated\",\n                  \"value\" : \"{count} étape restante",
                with: "\"state\" : \"needs_review\",\n                  \"value\" : \"{count} étape restante"
            )
        }
        #expect(Self.message(stale).state == .stale)
    }

    @Test(
        "forms that do not fit are refused with reason plural, the others imported",
        arguments: [
            ("\"one\" : {", "\"two\" : {", "fr has no plural category two"),
            ("\"one\" : {", "\"single\" : {", "\"single\", which is not a plural category"),
            ("\"other\" : {", "\"many\" : {", "no other form"),
        ]
    )
    func refused(_ find: String, _ replacement: String, _ reason: String) throws {
        let snapshot = TranslationExportTests.snapshot(PluralTranslationTests.template())
        let read = try Self.catalog {
            let edited = Self.editFrench($0, find, replacement)
            #expect(edited != $0)
            return edited.replacingOccurrences(of: "\"Vérifier avec", with: "\"Vérifiez avec")
        }
        let plan = try PluralTranslationTests.plan(read[0], snapshot)
        let rejections = PluralTranslationTests.reasons(plan)
        #expect(rejections.map(\.reason) == [.plural])
        #expect(rejections.first?.message.contains(reason) == true, "\(rejections)")
        #expect(plan.writes.first?.changedKeys == ["title"])
    }
}

import EmptyStateCore
import EmptyStateTranslation
import JSONCoding
import Testing

@Suite("Import plan: new, changed, unchanged, rejected")
struct ImportPlannerTests {
    private let exportedAt = TranslationExportTests.exportedAt
    private let templateID = "verify-identity_2"

    private func export(_ snapshot: TemplateSnapshot, locale: String = "fr") -> TranslationDocument {
        TranslationExport.document([snapshot], sourceLocale: "en", targetLocale: locale, exportedAt: exportedAt)
    }

    private func plan(_ document: TranslationDocument, _ snapshots: [TemplateSnapshot]) throws -> ImportPlan {
        try ImportPlanner.plan(
            document,
            templates: Dictionary(uniqueKeysWithValues: snapshots.map { ($0.template.id, $0) })
        )
    }

    private func setTarget(_ document: inout TranslationDocument, _ key: String, _ text: String?) {
        let index = document.units.firstIndex { $0.id.key == key }!
        document.units[index].target = text
    }

    /// The issue the admin API's validation (`TemplateParser`, as its 422 reports it) finds when
    /// the French `key` of the fixture template is `text`.
    private func adminIssue(key: String, text: String) -> ValidationIssue? {
        var template = Fixtures.verifyTemplate()
        let index = template.strings.firstIndex { $0.locale == "fr" }!
        template.strings[index].values[key] = text
        guard case .failure(let failure) = TemplateParser.parse(template.document, expectedID: template.id) else {
            return nil
        }
        return failure.issues.first { $0.pointer == "/strings/fr/" + key }
    }

    @Test("each unit is classified, with the admin API's reasons; one write carries the template's changes")
    func classification() throws {
        let snapshot = TranslationExportTests.snapshot()
        var document = export(snapshot)
        setTarget(&document, "title", "Vérifiez avec {provider}")
        setTarget(&document, "visual.label", "")
        setTarget(&document, "actions.verify", "Ouvrir")
        setTarget(&document, "actions.later", "OK")
        document.units.append(
            TranslationUnit(id: UnitID(template: "nope", key: "title"), source: "x", target: "y", state: .translated)
        )
        document.units.append(
            TranslationUnit(
                id: UnitID(template: templateID, key: "actions.nope"),
                source: "x",
                target: "y",
                state: .translated
            )
        )
        let plan = try plan(document, [snapshot])
        let outcomes = Dictionary(uniqueKeysWithValues: plan.entries.map { ($0.unitID, $0.outcome) })

        #expect(
            outcomes["\(templateID)/title"]
                == .changed(from: "Vérifier avec {provider}", to: "Vérifiez avec {provider}")
        )
        #expect(outcomes["\(templateID)/message"] == .unchanged)
        #expect(outcomes["\(templateID)/visual.label"] == .untranslated)

        let placeholder = try #require(adminIssue(key: "actions.verify", text: "Ouvrir"))
        #expect(
            outcomes["\(templateID)/actions.verify"]
                == .rejected([ImportRejection(.placeholders, pointer: placeholder.pointer, placeholder.rule)])
        )
        let vague = try #require(adminIssue(key: "actions.later", text: "OK"))
        #expect(
            outcomes["\(templateID)/actions.later"]
                == .rejected([ImportRejection(.copyRule, pointer: vague.pointer, vague.rule)])
        )
        #expect(outcomes["nope/title"]?.reasons == [.unknownTemplate])
        #expect(outcomes["\(templateID)/actions.nope"]?.reasons == [.unknownKey])

        #expect(plan.writes.count == 1)
        let write = try #require(plan.writes.first)
        #expect(write.templateID == templateID)
        #expect(write.baseRevision == 3)
        #expect(write.changedKeys == ["title"])
        #expect(write.template.strings(for: "fr")?["title"] == "Vérifiez avec {provider}")
        #expect(write.template.strings(for: "fr")?["actions.later"] == "Plus tard")
        #expect(
            plan.counts == ["new": 0, "changed": 1, "unchanged": 1, "confirmed": 0, "untranslated": 1, "rejected": 4]
        )
    }

    @Test("importing the same file twice plans nothing the second time")
    func idempotent() throws {
        let snapshot = TranslationExportTests.snapshot()
        var document = export(snapshot)
        setTarget(&document, "title", "Vérifiez avec {provider}")
        setTarget(&document, "message", "Pour continuer, prouvez que c’est vous avec {provider} et {app}.")
        let first = try plan(document, [snapshot])
        #expect(first.writes.count == 1)

        // Applied: the store has the new strings, written after the export.
        var after = snapshot
        after.template = first.writes[0].template
        after.revision = 4
        for key in first.writes[0].changedKeys { after.updatedAt["fr"]?[key] = "2026-11-23T11:00:00Z" }
        let second = try plan(document, [after])
        #expect(second.isEmpty)
        #expect(second.entries.allSatisfy { $0.outcome == .unchanged })
    }

    @Test("a source changed since the export, or a translation edited since, is not overwritten")
    func conflicts() throws {
        let snapshot = TranslationExportTests.snapshot()
        var document = export(snapshot)
        setTarget(&document, "title", "Vérifiez avec {provider}")
        setTarget(&document, "message", "Continuez avec {provider} et {app}.")

        var changed = snapshot
        let en = changed.template.strings.firstIndex { $0.locale == "en" }!
        changed.template.strings[en].values["title"] = "Confirm with {provider}"
        changed.updatedAt["en"]?["title"] = "2026-11-23T12:00:00Z"
        changed.updatedAt["fr"]?["message"] = "2026-11-23T12:00:00Z"
        let plan = try plan(document, [changed])
        #expect(plan.entries[0].outcome.reasons == [.sourceChanged])
        #expect(plan.entries[1].outcome.reasons == [.changedSinceExport])
        #expect(plan.isEmpty)

        // An edit in the export's own second (times are whole seconds) may have come after it.
        var sameSecond = snapshot
        sameSecond.updatedAt["fr"]?["message"] = TranslationExportTests.exportedAt
        #expect(try self.plan(document, [sameSecond]).entries[1].outcome.reasons == [.changedSinceExport])

        // A file without source text (an Android locale file): the export time tells.
        var android = document
        for index in android.units.indices { android.units[index].source = nil }
        #expect(try self.plan(android, [changed]).entries[0].outcome.reasons == [.sourceChanged])
        // Without an export time and source, nothing tells: the change goes through.
        android.exportedAt = nil
        #expect(
            try self.plan(android, [changed]).entries[1].outcome
                == .changed(
                    from: "Pour continuer, confirmez votre identité avec {provider} et {app}.",
                    to: "Continuez avec {provider} et {app}."
                )
        )
    }

    @Test("a reviewer's reviewed or final on an unchanged translation confirms it: stale cleared, state recorded")
    func confirmations() throws {
        // The French title is stale: its English source was written after it.
        let stale = TranslationExportTests.snapshot(source: "2026-11-22T00:00:00Z", target: "2026-11-21T00:00:00Z")
        var document = TranslationExport.document(
            [stale],
            sourceLocale: "en",
            targetLocale: "fr",
            exportedAt: "2026-11-23T10:00:00Z"
        )
        #expect(document.units[0].state == .stale)
        document.units[0].state = .final
        document.units[1].state = .reviewed
        var plan = try plan(document, [stale])
        #expect(plan.entries[0].outcome == .confirmed(.final))
        #expect(plan.entries[1].outcome == .confirmed(.reviewed))
        // `translated` in an XLIFF file is not a review: the stale strings stay as they are.
        #expect(plan.entries[2].outcome == .unchanged)
        let write = try #require(plan.writes.first)
        #expect(write.changedKeys.isEmpty)
        #expect(write.marks == ["title": .final, "message": .reviewed])
        #expect(write.template == stale.template)
        #expect(plan.counts["confirmed"] == 2)

        // Confirmed already (the store has `final`, nothing stale): a second import is a no-op,
        // and a lower state in a file never lowers the store's.
        var confirmed = TranslationExportTests.snapshot()
        confirmed.reviews = ["fr": ["title": .final, "message": .reviewed]]
        plan = try self.plan(document, [confirmed])
        #expect(plan.entries[0].outcome == .unchanged && plan.entries[1].outcome == .unchanged)
        document.units[1].state = .final
        #expect(try self.plan(document, [confirmed]).entries[1].outcome == .confirmed(.final))

        // A reviewer who saw another source confirmed nothing about this one.
        var moved = stale
        let en = moved.template.strings.firstIndex { $0.locale == "en" }!
        moved.template.strings[en].values["title"] = "Confirm with {provider}"
        #expect(try self.plan(document, [moved]).entries[0].outcome.reasons == [.sourceChanged])

        // A String Catalog has no review state: its `translated` (Xcode's "Mark as Reviewed")
        // confirms a stale string; its `needs_review` leaves it stale.
        var catalog = document
        catalog.translatedConfirms = true
        catalog.units[0].state = .translated
        catalog.units[1].state = .stale
        plan = try self.plan(catalog, [stale])
        #expect(plan.entries[0].outcome == .confirmed(.translated))
        #expect(plan.entries[1].outcome == .unchanged)
        // An older catalogue (another source) confirms nothing, and is not refused for it: its
        // `translated` is also what every translated string says.
        #expect(try self.plan(catalog, [moved]).entries[0].outcome == .unchanged)
    }

    @Test("a new locale is written whole; a partial one is refused with the rule it would break")
    func newLocale() throws {
        let snapshot = TranslationExportTests.snapshot()
        var document = export(snapshot, locale: "de")
        let german = [
            "title": "Mit {provider} bestätigen", "message": "Bestätigen Sie mit {provider} und {app}.",
            "visual.label": "Ausweis", "actions.verify": "{provider} öffnen", "actions.later": "Später",
        ]
        for (key, text) in german { setTarget(&document, key, text) }
        for index in document.units.indices { document.units[index].state = .translated }
        let whole = try plan(document, [snapshot])
        #expect(whole.entries.allSatisfy { if case .new = $0.outcome { true } else { false } })
        #expect(whole.writes.first?.template.strings(for: "de") == german)

        setTarget(&document, "message", nil)
        let partial = try plan(document, [snapshot])
        #expect(partial.isEmpty)
        let reasons = partial.entries.compactMap { entry -> [ImportRejection]? in
            if case .rejected(let reasons) = entry.outcome { return reasons }
            return nil
        }
        #expect(reasons.count == 4)
        #expect(reasons.allSatisfy { $0.contains { $0.pointer == "/strings/de/message" && $0.reason == .copyRule } })
    }

    @Test("drafts are not imported; texts compare by scalars, so NFD is a change; a unit twice is refused")
    func draftsAndScalars() throws {
        let snapshot = TranslationExportTests.snapshot()
        var document = export(snapshot)
        document.units[1].state = .missing
        document.units[1].target = "brouillon"
        setTarget(&document, "title", "Ve\u{301}rifier avec {provider}")
        document.units.append(document.units[2])
        let plan = try plan(document, [snapshot])
        #expect(plan.entries[1].outcome == .untranslated)
        #expect(
            plan.entries[0].outcome == .changed(from: "Vérifier avec {provider}", to: "Ve\u{301}rifier avec {provider}")
        )
        #expect(plan.entries.last?.outcome.reasons == [.duplicate])
        #expect(plan.writes.first?.template.strings(for: "fr")?["title"]?.unicodeScalars.count == 25)
    }

    @Test("a file for a pseudo-locale or into its own source locale cannot be planned")
    func locales() {
        let snapshot = TranslationExportTests.snapshot()
        var document = export(snapshot)
        document.targetLocale = "en-XA"
        #expect(throws: ImportPlanError.self) { try plan(document, [snapshot]) }
        document.targetLocale = "en"
        #expect(throws: ImportPlanError.self) { try plan(document, [snapshot]) }
    }

    @Test("every format's file plans the same: export, translate, write, read, plan")
    func throughEveryFormat() throws {
        let snapshot = TranslationExportTests.snapshot()
        var document = export(snapshot)
        setTarget(&document, "title", "Vérifiez avec {provider}")
        for format in TranslationFormat.allCases {
            let files = format.write([document])
            let file = try #require(files.last)
            let read = try #require(try format.read(file.bytes, path: file.path).first)
            let plan = try plan(read, [snapshot])
            #expect(plan.writes.map(\.changedKeys) == [["title"]], "\(format)")
            #expect(plan.counts["unchanged"] == 4, "\(format)")
        }
    }
}

extension ImportPlan.Outcome {
    fileprivate var reasons: [ImportRejection.Reason] {
        if case .rejected(let rejections) = self { return rejections.map(\.reason) }
        return []
    }
}

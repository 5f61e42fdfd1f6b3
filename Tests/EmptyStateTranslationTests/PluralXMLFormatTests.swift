import CLDRPlurals
import EmptyStateCore
import EmptyStateTranslation
import Testing
import TranslationFixtures

/// Plural strings in Android files: `<plurals>` with an `<item quantity>` per category.
@Suite("Android files and plural strings")
struct PluralAndroidTests {
    static func files(
        _ snapshot: TemplateSnapshot = TranslationExportTests.snapshot(PluralTranslationTests.template())
    )
        -> (source: String, target: String)
    {
        let document = PluralTranslationTests.document(snapshot)
        return (
            String(decoding: AndroidStringsWriter.writeSource(document), as: UTF8.self),
            String(decoding: AndroidStringsWriter.write(document), as: UTF8.self)
        )
    }

    static func read(_ target: String, source: String? = nil) throws -> TranslationDocument {
        try AndroidStringsReader.read(Array(target.utf8), locale: "fr", source: source.map { Array($0.utf8) })
    }

    @Test("the writer's <plurals>: an item per category, placeholders as in <string>, examples included")
    func bytes() {
        var template = PluralTranslationTests.template()
        template.examples = ["provider": "BankID"]
        let (source, target) = Self.files(TranslationExportTests.snapshot(template))
        #expect(
            target.contains(
                """
                  <plurals name="verify_1identity_02__message">
                    <item quantity="one"><xliff:g id="count">%2$s</xliff:g> étape restante avec <xliff:g id="provider" example="BankID">%3$s</xliff:g> et <xliff:g id="app">%1$s</xliff:g>.</item>
                    <item quantity="other"><xliff:g id="count">%2$s</xliff:g> étapes restantes avec <xliff:g id="provider" example="BankID">%3$s</xliff:g> et <xliff:g id="app">%1$s</xliff:g>.</item>
                  </plurals>
                """
            ),
            "\(target)"
        )
        #expect(
            source.contains(
                #"<item quantity="one">One step left with <xliff:g id="provider" example="BankID">%3$s</xliff:g> &amp; <xliff:g id="app">%1$s</xliff:g>.</item>"#
            ),
            "\(source)"
        )
    }

    @Test("write → read → write is byte-identical; imported again, nothing changes")
    func roundTrip() throws {
        let snapshot = TranslationExportTests.snapshot(PluralTranslationTests.template())
        let (source, target) = Self.files(snapshot)
        let read = try Self.read(target, source: source)
        #expect(AndroidStringsWriter.write(read) == Array(target.utf8))
        #expect(AndroidStringsWriter.writeSource(read) == Array(source.utf8))
        #expect(try PluralTranslationTests.plan(read, snapshot).isEmpty)
        // The locale file alone, as a tool sends it back: its <xliff:g> names the placeholders.
        #expect(try PluralTranslationTests.plan(try Self.read(target), snapshot).isEmpty)
    }

    @Test("one changed item changes only that string; a stale plural is marked and confirmed by nothing else")
    func changedAndStale() throws {
        let snapshot = TranslationExportTests.snapshot(PluralTranslationTests.template())
        let (_, target) = Self.files(snapshot)
        let edited = target.replacingOccurrences(
            of: "%2$s</xliff:g> étape restante",
            with: "%2$s</xliff:g> seule étape restante"
        )
        let plan = try PluralTranslationTests.plan(try Self.read(edited), snapshot)
        #expect(plan.writes.first?.changedKeys == ["message"])
        #expect(
            plan.writes.first?.template.plural("message", in: "fr")?.forms[.one]
                == "{count} seule étape restante avec {provider} et {app}."
        )
        var stale = snapshot
        stale.revisions = ["en": ["message": 5], "fr": ["message": 4]]
        let (_, staleTarget) = Self.files(stale)
        #expect(
            staleTarget.contains(
                "<!-- \(AndroidStringsReader.staleMarker) -->\n  <plurals name=\"verify_1identity_02__message\">"
            )
        )
        #expect(try Self.read(staleTarget).units.first { $0.id.key == "message" }?.state == .stale)
    }

    @Test(
        "items that do not fit are refused with reason plural, the other strings imported",
        arguments: [
            ("<item quantity=\"one\">", "<item quantity=\"two\">", "fr has no plural category two"),
            (
                "<item quantity=\"one\">", "<item quantity=\"single\">",
                "<item quantity=\"single\"> is not a plural category"
            ),
            ("<item quantity=\"one\">", "<item quantity=\"other\">", "is given twice"),
            ("<item quantity=\"other\">", "<item quantity=\"many\">", "no <item quantity=\"other\">"),
        ]
    )
    func refused(_ find: String, _ replacement: String, _ reason: String) throws {
        let snapshot = TranslationExportTests.snapshot(PluralTranslationTests.template())
        let (_, target) = Self.files(snapshot)
        let edited = target.replacingOccurrences(of: find, with: replacement)
            .replacingOccurrences(of: ">Vérifier avec", with: ">Vérifiez avec")
        let plan = try PluralTranslationTests.plan(try Self.read(edited), snapshot)
        let rejections = PluralTranslationTests.reasons(plan)
        #expect(rejections.map(\.reason) == [.plural])
        #expect(rejections.first?.message.contains(reason) == true, "\(rejections)")
        #expect(plan.writes.first?.changedKeys == ["title"])
    }

    @Test("a <string> for a plural string is refused; a <plurals> for a plain one too")
    func shape() throws {
        let snapshot = TranslationExportTests.snapshot(PluralTranslationTests.template())
        let file = """
            <resources xmlns:xliff="urn:oasis:names:tc:xliff:document:1.2">
              <string name="verify_1identity_02__message"><xliff:g id="count">%2$s</xliff:g> étapes avec <xliff:g id="provider">%3$s</xliff:g> et <xliff:g id="app">%1$s</xliff:g>.</string>
              <plurals name="verify_1identity_02__actions_later"><item quantity="other">Plus tard</item></plurals>
            </resources>
            """
        let document = try AndroidStringsReader.read(Array(file.utf8), locale: "fr", sourceLocale: "en")
        let plan = try PluralTranslationTests.plan(document, snapshot)
        #expect(PluralTranslationTests.reasons(plan).first?.message.contains("is a plural string in en") == true)
        #expect(
            PluralTranslationTests.reasons(plan, "actions.later").first?.message.contains("not a plural string") == true
        )
    }
}

/// Plural strings in XLIFF 1.2: translate-toolkit's gettext plural group.
@Suite("XLIFF 1.2 and plural strings")
struct PluralXLIFF12Tests {
    static func file(
        _ snapshot: TemplateSnapshot = TranslationExportTests.snapshot(PluralTranslationTests.template())
    )
        -> String
    {
        String(decoding: XLIFF12Writer.write(PluralTranslationTests.document(snapshot)), as: UTF8.self)
    }

    static func read(_ text: String) throws -> TranslationDocument {
        try XLIFF12Reader.read(Array(text.utf8))
    }

    @Test("the writer's group: restype x-gettext-plurals, a trans-unit per category of the target locale")
    func bytes() {
        let text = Self.file()
        #expect(
            text.contains(
                """
                      <group id="verify-identity_2/message" restype="x-gettext-plurals">
                        <note>Template verify-identity_2, category auth</note>
                """
            ),
            "\(text)"
        )
        #expect(
            text.contains(
                """
                        <trans-unit id="verify-identity_2/message[0]" resname="one">
                          <source>One step left with <x id="provider" equiv-text="{provider}"/> &amp; <x id="app" equiv-text="{app}"/>.</source>
                          <target state="translated"><x id="count" equiv-text="{count}"/> étape restante avec <x id="provider" equiv-text="{provider}"/> et <x id="app" equiv-text="{app}"/>.</target>
                        </trans-unit>
                        <trans-unit id="verify-identity_2/message[1]" resname="many">
                          <source><x id="count" equiv-text="{count}"/> steps left with <x id="provider" equiv-text="{provider}"/> &amp; <x id="app" equiv-text="{app}"/>.</source>
                        </trans-unit>
                        <trans-unit id="verify-identity_2/message[2]" resname="other">
                """
            ),
            "\(text)"
        )
    }

    @Test("write → read → write is byte-identical; imported again, nothing changes")
    func roundTrip() throws {
        let snapshot = TranslationExportTests.snapshot(PluralTranslationTests.template())
        let text = Self.file(snapshot)
        let read = try Self.read(text)
        let again = String(decoding: XLIFF12Writer.write(read), as: UTF8.self)
        #expect(again == text, "\(zip(again.split(separator: "\n"), text.split(separator: "\n")).filter { $0 != $1 })")
        #expect(try PluralTranslationTests.plan(read, snapshot).isEmpty)
    }

    @Test("what po2xliff writes: numbered group, no resname, forms by position; the many form filled in")
    func translateToolkitShape() throws {
        let snapshot = TranslationExportTests.snapshot(PluralTranslationTests.template())
        let text = Self.file(snapshot)
            .replacingOccurrences(of: #"<group id="verify-identity_2/message""#, with: #"<group id="3""#)
            .replacingOccurrences(of: #" resname="one""#, with: "")
            .replacingOccurrences(of: #" resname="many""#, with: "")
            .replacingOccurrences(of: #" resname="other""#, with: "")
            .replacingOccurrences(
                of: #"&amp; <x id="app" equiv-text="{app}"/>.</source>\#n        </trans-unit>"#,
                with:
                    #"&amp; <x id="app" equiv-text="{app}"/>.</source>\#n          <target state="translated">{count} d’étapes restantes avec {provider} et {app}.</target>\#n        </trans-unit>"#
            )
        let plan = try PluralTranslationTests.plan(try Self.read(text), snapshot)
        guard case .changed(_, let to) = PluralTranslationTests.outcome(plan) else {
            Issue.record("expected changed: \(plan.entries)")
            return
        }
        #expect(to.plural?.forms[.many] == "{count} d’étapes restantes avec {provider} et {app}.")
        #expect(to.plural?.forms[.one] == "{count} étape restante avec {provider} et {app}.")
    }

    @Test("a form left empty, as gettext tools write every form, is not given: nothing changes")
    func emptyForm() throws {
        let snapshot = TranslationExportTests.snapshot(PluralTranslationTests.template())
        let text = Self.file(snapshot).replacingOccurrences(
            of: #"&amp; <x id="app" equiv-text="{app}"/>.</source>\#n        </trans-unit>"#,
            with:
                #"&amp; <x id="app" equiv-text="{app}"/>.</source>\#n          <target state="translated"></target>\#n        </trans-unit>"#
        )
        #expect(text.contains(#"<target state="translated"></target>"#))
        #expect(try PluralTranslationTests.plan(try Self.read(text), snapshot).isEmpty)
    }

    @Test("a stale plural: each form needs-review-translation; reviewed (signed-off) on each confirms it")
    func stale() throws {
        var snapshot = TranslationExportTests.snapshot(PluralTranslationTests.template())
        snapshot.revisions = ["en": ["message": 5], "fr": ["message": 4]]
        let text = Self.file(snapshot)
        #expect(try Self.read(text).units.first { $0.id.key == "message" }?.state == .stale)
        let reviewed = text.replacingOccurrences(of: "needs-review-translation", with: "signed-off")
        #expect(
            PluralTranslationTests.outcome(try PluralTranslationTests.plan(try Self.read(reviewed), snapshot))
                == .confirmed(.reviewed)
        )
    }

    @Test(
        "forms that do not fit are refused with reason plural",
        arguments: [
            (#"resname="one""#, #"resname="two""#, "fr has no plural category two"),
            (#"resname="one""#, #"resname="other""#, "gives the form other twice"),
            (#"resname="other""#, #"resname="many""#, "gives the form many twice"),
        ]
    )
    func refused(_ find: String, _ replacement: String, _ reason: String) throws {
        let snapshot = TranslationExportTests.snapshot(PluralTranslationTests.template())
        let text = Self.file(snapshot).replacingOccurrences(of: find, with: replacement)
            .replacingOccurrences(of: "étape restante", with: "seule étape restante")
        let plan = try PluralTranslationTests.plan(try Self.read(text), snapshot)
        let rejections = PluralTranslationTests.reasons(plan)
        #expect(rejections.map(\.reason) == [.plural])
        #expect(rejections.first?.message.contains(reason) == true, "\(rejections)")
    }
}

/// The interop check's plural document (`make translation-check` reads its files with the
/// independent readers) read back by this service's own readers, every format.
@Suite("Plural strings with hard texts, every format")
struct PluralHardTextTests {
    @Test("write → read → write is byte-identical, and the forms read back scalar for scalar")
    func roundTrip() throws {
        let document = TranslationFixtures.pluralDocument()
        let readers: [(String, [UInt8], ([UInt8]) throws -> TranslationDocument, (TranslationDocument) -> [UInt8])] = [
            ("XLIFF 2.0", XLIFF2Writer.write(document), { try XLIFF2Reader.read($0) }, XLIFF2Writer.write),
            ("XLIFF 1.2", XLIFF12Writer.write(document), { try XLIFF12Reader.read($0) }, XLIFF12Writer.write),
            (
                "String Catalog", StringCatalogWriter.write([document]), { try StringCatalogReader.read($0)[0] },
                { StringCatalogWriter.write([$0]) }
            ),
            (
                "Android", AndroidStringsWriter.write(document),
                { try AndroidStringsReader.read($0, locale: "ru", source: AndroidStringsWriter.writeSource(document)) },
                AndroidStringsWriter.write
            ),
        ]
        for (name, bytes, read, write) in readers {
            var back = try read(bytes)
            // Examples are written, never read back (`TranslationUnit.examples`).
            for index in back.units.indices { back.units[index].examples = document.units[index].examples }
            #expect(write(back) == bytes, "\(name)")
            // A String Catalog and Android have no review states: reviewed and final read as translated.
            let reviewStates = name.hasPrefix("XLIFF")
            for (unit, original) in zip(back.units, document.units) where original.state != .missing {
                let state =
                    !reviewStates && [.reviewed, .final].contains(original.state) ? .translated : original.state
                #expect(unit.state == state, "\(name) \(unit.id)")
                #expect(
                    unit.targetPlural?.orderedForms.map(\.text) == original.targetPlural?.orderedForms.map(\.text),
                    "\(name) \(unit.id)"
                )
            }
        }
    }
}

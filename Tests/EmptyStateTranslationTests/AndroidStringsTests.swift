import EmptyStateTranslation
import Testing

@Suite("Android strings.xml")
struct AndroidStringsTests {
    @Test("the writer's bytes, exactly: the locale file and the source file")
    func golden() {
        let target = """
            <?xml version="1.0" encoding="UTF-8"?>
            <resources xmlns:xliff="urn:oasis:names:tc:xliff:document:1.2">
              <!-- empty-state-service sourceLocale=en targetLocale=fr exportedAt=2026-11-23T10:00:00Z -->
              <!-- title, at most 2 lines (60 columns) -->
              <string name="verifyIdentity__title">Connectez-vous avec <xliff:g id="provider" example="BankID">%1$s</xliff:g></string>
              <!-- needs review: its source changed after this translation was written -->
              <string name="verifyIdentity__message">A &amp; B</string>
            </resources>

            """
        let source = """
            <?xml version="1.0" encoding="UTF-8"?>
            <resources xmlns:xliff="urn:oasis:names:tc:xliff:document:1.2">
              <!-- empty-state-service sourceLocale=en exportedAt=2026-11-23T10:00:00Z -->
              <!-- title, at most 2 lines (60 columns) -->
              <string name="verifyIdentity__title">Sign in with <xliff:g id="provider" example="BankID">%1$s</xliff:g></string>
              <string name="verifyIdentity__actions_later">\\u0020 Not now</string>
              <string name="verifyIdentity__message">A &amp; B &lt;c&gt;</string>
            </resources>

            """
        // The template's example of {provider} goes on its <xliff:g>, in both files.
        var small = XLIFF2Tests.small
        small.units[0].examples = ["provider": "BankID", "unused": "x"]
        expectSameBytes(AndroidStringsWriter.write(small), Array(target.utf8))
        expectSameBytes(AndroidStringsWriter.writeSource(small), Array(source.utf8))
        #expect(AndroidStringsWriter.path(for: "pt-BR") == "values-pt-rBR/strings.xml")
        #expect(AndroidStringsWriter.path(for: nil) == "values/strings.xml")
    }

    /// What a document looks like after a trip through Android files: Android has no review
    /// state (a stale string is marked by a comment and reads back stale), and a locale file has
    /// no drafts.
    private func throughAndroid(_ document: TranslationDocument) -> TranslationDocument {
        var expected = document
        for index in expected.units.indices {
            if expected.units[index].state == .missing {
                expected.units[index].target = nil
            } else if expected.units[index].state != .stale {
                expected.units[index].state = .translated
            }
        }
        return expected
    }

    @Test("write → read → write is byte-identical; with its source file, read gives back every unit and note")
    func roundTrip() throws {
        for document in [
            XLIFF2Tests.small, Fixtures.hardDocument(), Fixtures.hardDocument(exportedAt: nil),
            try Fixtures.builtinDocument(locale: "ar"),
        ] {
            // Examples are written for translators, not read back (the template keeps them).
            var document = document
            for index in document.units.indices { document.units[index].examples = [:] }
            let target = AndroidStringsWriter.write(document)
            let source = AndroidStringsWriter.writeSource(document)
            let read = try AndroidStringsReader.read(target, source: source)
            #expect(read == throughAndroid(document))
            expectSameBytes(AndroidStringsWriter.write(read), target)
            expectSameBytes(AndroidStringsWriter.writeSource(read), source)

            // On its own, the locale file gives its translations, notes and placeholders back.
            let alone = try AndroidStringsReader.read(target)
            let translated = throughAndroid(document).units.filter { $0.target != nil }
            #expect(alone.units.map(\.id) == translated.map(\.id))
            #expect(zip(alone.units, translated).allSatisfy { sameText($0.target, $1.target) && $0.notes == $1.notes })
            #expect(alone.targetLocale == document.targetLocale)
            #expect(alone.exportedAt == document.exportedAt)
        }
    }

    @Test("a translation tool's file: no header, no comments, bare %1$s, locale from the folder")
    func toolFile() throws {
        let file = """
            <?xml version="1.0" encoding="utf-8"?>
            <resources>
                <string name="verifyIdentity__title">Connectez-vous avec %1$s</string>
                <string name="verifyIdentity__message" translatable="false">ignored</string>
            </resources>
            """
        let source = AndroidStringsWriter.writeSource(XLIFF2Tests.small)
        let folder = try #require(AndroidLocaleFolder.locale(forFolder: "values-fr"))
        let document = try AndroidStringsReader.read(Array(file.utf8), locale: folder, source: source)
        #expect(document.sourceLocale == "en")
        #expect(document.exportedAt == "2026-11-23T10:00:00Z")
        #expect(document.units.map(\.state) == [.translated, .missing, .missing])
        #expect(document.units[0].target == "Connectez-vous avec {provider}")
        #expect(document.units[0].notes == ["title, at most 2 lines (60 columns)"])

        // Without the source, the names come from the caller (an import: the store's).
        let alone = try AndroidStringsReader.read(
            Array(file.utf8),
            locale: "fr",
            sourceLocale: "en",
            placeholderNames: { $0.key == "title" ? ["provider"] : nil }
        )
        #expect(alone.units.map(\.target) == ["Connectez-vous avec {provider}"])
        // Through the format's door, the folder in the path names the locale.
        let viaFormat = try TranslationFormat.android.read(
            Array(AndroidStringsWriter.write(XLIFF2Tests.small)),
            path: "res/values-fr/strings.xml"
        )
        #expect(viaFormat.first?.targetLocale == "fr")
    }

    @Test(
        "broken files are refused with line, column and unit",
        arguments: [
            ("<resource/>", 1, 1, nil, "starts with <resources>"),
            (
                "<resources>\n  <string-array name=\"a__title\"/>\n</resources>", 2, 3, nil,
                "<string-array> is not supported"
            ),
            (
                "<resources>\n  <plurals name=\"a__title\">\n    <string>x</string>\n  </plurals>\n</resources>", 3, 5,
                "a/title", "<string> is not supported in <plurals>"
            ),
            (
                "<resources>\n  <plurals name=\"a__title\"><item quantity=\"other\">it's</item></plurals>\n</resources>",
                2,
                51, "a/title", "apostrophe"
            ),
            ("<resources>\n  <string name=\"title\">x</string>\n</resources>", 2, 3, "title", "not a unit id"),
            (
                "<resources>\n  <string name=\"a__title\">x</string>\n  <string name=\"a__title\">y</string>\n</resources>",
                3, 3, "a/title", "appears twice"
            ),
            (
                "<resources>\n  <string name=\"a__title\">it's</string>\n</resources>", 2, 27, "a/title",
                "unescaped apostrophe"
            ),
            ("<resources>\n  loose text\n</resources>", 1, 12, nil, "text outside a <string>"),
            ("<!DOCTYPE resources [<!ENTITY a \"b\">]><resources/>", 1, 1, nil, "DOCTYPE"),
        ] as [(String, Int, Int, String?, String)]
    )
    func broken(input: String, line: Int, column: Int, unit: String?, message: String) {
        expectRefused(input, line: line, column: column, unit: unit, message: message) {
            (bytes) throws(TranslationFormatError) in
            _ = try AndroidStringsReader.read(bytes, locale: "fr", sourceLocale: "en")
        }
    }

    @Test("a file whose header names another locale than its folder is refused")
    func localeMismatch() {
        let file = AndroidStringsWriter.write(XLIFF2Tests.small).text
        expectRefused(file, line: 3, column: 3, unit: nil, message: "the file says it is fr, but its folder is for de")
        {
            (bytes) throws(TranslationFormatError) in _ = try AndroidStringsReader.read(bytes, locale: "de")
        }
    }
}

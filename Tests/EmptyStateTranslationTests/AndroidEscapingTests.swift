import EmptyStateTranslation
import Testing

/// Android's escaping, string by string: what the writer makes of a copy string, and that the
/// reader (aapt2's rules) gives the same string back.
@Suite("Android escaping")
struct AndroidEscapingTests {
    /// A `<string>` holding `content`, read back as its unit's target.
    private func read(
        _ content: String,
        formatted: Bool = true,
        names: [String]? = nil
    ) throws(TranslationFormatError)
        -> String?
    {
        let attribute = formatted ? "" : #" formatted="false""#
        let file = """
            <resources xmlns:xliff="urn:oasis:names:tc:xliff:document:1.2">
              <string name="t__title"\(attribute)>\(content)</string>
            </resources>
            """
        return try AndroidStringsReader.read(
            Array(file.utf8),
            locale: "fr",
            sourceLocale: "en",
            placeholderNames: { _ in names }
        ).units.first?.target
    }

    @Test(
        "each copy string is written as aapt2 needs it, and reads back scalar for scalar",
        arguments: [
            ("You're offline", #"You\'re offline"#),
            (#"Say "hi""#, #"Say \"hi\""#),
            (#"back\slash"#, #"back\\slash"#),
            ("@home", #"\@home"#),
            ("?why", #"\?why"#),
            ("a@b?c #tag", "a@b?c #tag"),
            (" lead", #"\u0020lead"#),
            ("trail ", #"trail\u0020"#),
            (" ", #"\u0020"#),
            ("two  spaces   three", #"two \u0020spaces \u0020 three"#),
            ("line\nbreak", #"line\nbreak"#),
            ("a \n b", #"a \n b"#),
            ("tab\there", #"tab\there"#),
            ("cr\rhere", #"cr\u000Dhere"#),
            ("A & B <c> d", "A &amp; B &lt;c&gt; d"),
            ("{provider} 100%", #"<xliff:g id="provider">%1$s</xliff:g> 100%%"#),
            (
                "{b} then {a}, {a}",
                #"<xliff:g id="b">%2$s</xliff:g> then <xliff:g id="a">%1$s</xliff:g>, <xliff:g id="a">%1$s</xliff:g>"#
            ),
            ("@{x}", #"\@<xliff:g id="x">%1$s</xliff:g>"#),
            ("{x} ", #"<xliff:g id="x">%1$s</xliff:g>\u0020"#),
            ("\u{1}x\u{7F}y\u{85}", #"\u0001x\u007Fy\u0085"#),
            ("\u{FFFF}", #"\uFFFF"#),
            ("Café 👩🏽‍💻 مرحبا\u{200F}", "Café 👩🏽‍💻 مرحبا\u{200F}"),
            ("Cafe\u{301}", "Cafe\u{301}"),
            ("{not valid} {", "{not valid} {"),
            (#"\u0041 literal"#, #"\\u0041 literal"#),
            ("", ""),
        ]
    )
    func table(text: String, content: String) throws {
        let order = AndroidEscaping.placeholderOrder(source: text, target: nil)
        let encoded = AndroidEscaping.encode(text, order: order)
        #expect(encoded.content.unicodeScalars.elementsEqual(content.unicodeScalars), "\(encoded.content)")
        #expect(encoded.formatted)
        let back = try read(encoded.content, names: order)
        #expect(
            back.map { $0.unicodeScalars.elementsEqual(text.unicodeScalars) } == true,
            "\(String(describing: back))"
        )
    }

    @Test("a % without placeholders stays, and the string is marked formatted=\"false\"")
    func percentWithoutPlaceholders() throws {
        for text in ["50% off", "100%% sure", "%1$s is literal here"] {
            let encoded = AndroidEscaping.encode(text, order: [])
            #expect(encoded.content == text)
            #expect(!encoded.formatted)
            #expect(try read(encoded.content, formatted: false) == text)
        }
        // Unmarked and without a format specifier, Android shows a % as written too.
        #expect(try read("100% sure") == "100% sure")
    }

    @Test(
        "what people and tools write reads as aapt2 reads it",
        arguments: [
            (#""  quoted  spaces  ""#, "  quoted  spaces  "),
            (#"don"'"t"#, "don't"),
            ("  collapse \n  these   ", "collapse these"),
            (#"a\u0041b"#, "aAb"),
            (##"\#tag \@ \?"##, "#tag @ ?"),
            (#"line1\n   line2"#, "line1\n line2"),
            ("&lt;b&gt; &amp;amp;", "<b> &amp;"),
            ("<![CDATA[a   b]]>", "a b"),
            (
                #"<xliff:g id="name" example="Bob">%1$s</xliff:g>, you have <xliff:g id="n">%2$d</xliff:g>"#,
                "{name}, you have {n}"
            ),
            (#"<xliff:g id="app">Maps</xliff:g> 100%"#, "Maps 100%"),
            ("Hello %2$s and %1$s", "Hello {b} and {a}"),
            (#"<xliff:g>%1$s</xliff:g>"#, "{a}"),
            ("<!-- a comment --> text", "text"),
        ]
    )
    func decodeTable(content: String, text: String) throws {
        #expect(try read(content, names: ["a", "b"]) == text)
    }

    @Test(
        "what aapt2 refuses, or would silently change, is refused with its line and column",
        arguments: [
            ("don't", "unescaped apostrophe"),
            (#"\u12G4"#, "invalid unicode escape"),
            ("@string/other", "resource reference"),
            ("?attr/x", "resource reference"),
            (#"carriage\rreturn"#, #"\r is not an Android escape"#),
            (#"end\"#, "a backslash ends the string"),
            ("Hello %1$s", "names no placeholder"),
            ("Hello %s", "positional placeholders"),
            (#"<xliff:g id="a">%1$s</xliff:g> 5% off"#, "a literal % in a string with placeholders is written %%"),
            ("<b>bold</b>", "<b> is not supported"),
            (#"<xliff:g id="a"><xliff:g id="b">x</xliff:g></xliff:g>"#, "holds text only"),
        ]
    )
    func refused(content: String, message: String) {
        do {
            _ = try read(content)
            Issue.record("read \(content)")
        } catch {
            #expect(error.message.contains(message), "\(error)")
            #expect(error.line == 2, "\(error)")
            #expect(error.column != nil)
            #expect(error.unitID == "t/title")
        }
    }

    @Test(
        "resource names are derived from unit ids and back",
        arguments: [
            ("connectionRefused/actions.retry", "connectionRefused__actions_retry"),
            ("verify-identity_2/visual.label", "verify_1identity_02__visual_label"),
            ("a_/title", "a_0__title"),
            ("A-_-/message", "A_1_0_1__message"),
        ]
    )
    func resourceNames(id: String, name: String) throws {
        let unitID = try #require(UnitID(id))
        #expect(AndroidResourceName.name(for: unitID) == name)
        #expect(AndroidResourceName.unitID(forName: name) == unitID)
    }

    @Test(
        "names no unit id could give are not read as one",
        arguments: ["title", "a_x__b", "__title", "a__", "a__b.c"]
    )
    func invalidResourceNames(name: String) {
        #expect(AndroidResourceName.unitID(forName: name) == nil)
    }

    @Test(
        "locale folders from BCP 47 and back",
        arguments: [
            ("fr", "values-fr"), ("pt-BR", "values-pt-rBR"), ("sr-Latn", "values-b+sr+Latn"),
            ("es-419", "values-b+es+419"),
            ("zh-Hant-TW", "values-b+zh+Hant+TW"), ("fil", "values-fil"), ("ar", "values-ar"),
            ("de-CH-1996", "values-b+de+CH+1996"),
        ]
    )
    func localeFolders(locale: String, folder: String) {
        #expect(AndroidLocaleFolder.folder(for: locale) == folder)
        #expect(AndroidLocaleFolder.locale(forFolder: folder) == locale)
    }

    @Test(
        "folders that are not only a locale",
        arguments: ["values", "values-night", "values-fr-land", "values-v21", "drawable-fr"]
    )
    func notLocaleFolders(folder: String) {
        #expect(AndroidLocaleFolder.locale(forFolder: folder) == nil)
    }
}

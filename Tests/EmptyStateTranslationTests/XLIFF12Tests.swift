import EmptyStateTranslation
import Testing

@Suite("XLIFF 1.2")
struct XLIFF12Tests {
    @Test("the writer's bytes, exactly")
    func golden() {
        var document = XLIFF2Tests.small
        document.units.append(
            TranslationUnit(
                id: UnitID(template: "verifyIdentity", key: "visual.label"),
                source: "ID card",
                target: "Carte d’identité",
                state: .reviewed,
                notes: ["accessibility label, at most 140 columns"]
            )
        )
        let expected = """
            <?xml version="1.0" encoding="UTF-8"?>
            <xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2">
              <file original="empty-states" source-language="en" target-language="fr" datatype="plaintext" date="2026-11-23T10:00:00Z">
                <body>
                  <trans-unit id="verifyIdentity/title">
                    <source>Sign in with <x id="provider" equiv-text="{provider}"/></source>
                    <target state="translated">Connectez-vous avec <x id="provider" equiv-text="{provider}"/></target>
                    <note>title, at most 2 lines (60 columns)</note>
                  </trans-unit>
                  <trans-unit id="verifyIdentity/actions.later" xml:space="preserve">
                    <source>  Not now</source>
                  </trans-unit>
                  <trans-unit id="verifyIdentity/message">
                    <source>A &amp; B &lt;c&gt;</source>
                    <target state="needs-review-translation">A &amp; B</target>
                  </trans-unit>
                  <trans-unit id="verifyIdentity/visual.label" approved="yes">
                    <source>ID card</source>
                    <target state="signed-off">Carte d’identité</target>
                    <note>accessibility label, at most 140 columns</note>
                  </trans-unit>
                </body>
              </file>
            </xliff>

            """
        expectSameBytes(XLIFF12Writer.write(document), Array(expected.utf8))
    }

    @Test("write → read → write is byte-identical; read gives back every unit, note and state")
    func roundTrip() throws {
        for document in [
            XLIFF2Tests.small, Fixtures.hardDocument(), Fixtures.hardDocument(exportedAt: nil),
            try Fixtures.builtinDocument(locale: "ja"),
        ] {
            let bytes = XLIFF12Writer.write(document)
            let read = try XLIFF12Reader.read(bytes)
            #expect(read == document)
            expectSameBytes(XLIFF12Writer.write(read), bytes)
        }
    }

    @Test("what Xcode, Lokalise and translate-toolkit write reads back")
    func tolerance() throws {
        let file = """
            <?xml version="1.0" encoding="UTF-8"?>
            <xliff version="1.2">
              <file original="Localizable.xcstrings" source-language="en" target-language="de" datatype="plaintext">
                <header><tool tool-id="com.apple.dt.xcode" tool-name="Xcode" tool-version="15.0"/></header>
                <body>
                  <group id="g1">
                    <trans-unit id="a/title" xml:space="preserve" approved="yes">
                      <source>Hi <ph id="1">{name}</ph></source>
                      <target state="translated">Hallo <g id="b"><x id="name"/></g></target>
                      <note from="developer">one</note>
                      <note>two</note>
                    </trans-unit>
                  </group>
                  <trans-unit id="a/message"><source>M</source><target>N</target></trans-unit>
                  <trans-unit id="a/actions.x"><source>X</source><target state="new">Y</target></trans-unit>
                  <trans-unit id="ignored" translate="no"><source>-</source></trans-unit>
                  <trans-unit id="a/actions.y"><source>Y</source><target state="final">Z</target></trans-unit>
                </body>
              </file>
            </xliff>
            """
        let document = try XLIFF12Reader.read(Array(file.utf8))
        #expect(document.targetLocale == "de")
        #expect(document.units.map(\.id.description) == ["a/title", "a/message", "a/actions.x", "a/actions.y"])
        #expect(document.units[0].source == "Hi {name}")
        #expect(document.units[0].target == "Hallo {name}")
        // approved="yes" on a translated target: reviewed (translate-toolkit's "not fuzzy").
        #expect(document.units[0].state == .reviewed)
        #expect(document.units[0].notes == ["one", "two"])
        #expect(document.units[1].state == .translated)
        #expect(document.units[2].state == .missing)
        #expect(document.units[2].target == "Y")
        // The state says final even without approved="yes".
        #expect(document.units[3].state == .final)
    }

    @Test(
        "hostile or broken files are refused with line, column and unit",
        arguments: [
            (
                #"<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0"/>"#, 1, 1, nil,
                "(this is XLIFF 2.0)"
            ),
            (#"<xliff version="1.1"/>"#, 1, 1, nil, "version 1.1 is not 1.2"),
            (
                XLIFF12Tests.unit(#"<source>a</source><target state="done">b</target>"#), 5, 27, "t/title",
                "state \"done\""
            ),
            (
                XLIFF12Tests.unit(#"<source>a <bpt id="1">&lt;b&gt;</bpt></source>"#), 5, 19, "t/title",
                "<bpt> is not supported"
            ),
            (XLIFF12Tests.unit("<target>b</target>"), 4, 7, "t/title", "no <source>"),
            (
                XLIFF12Tests.unit("<source>a</source>", attributes: #" approved="maybe""#), 4, 7, "t/title",
                "approved=\"maybe\""
            ),
            (XLIFF12Tests.unit("<source>a</source>", id: "title"), 4, 7, "title", "not template/key"),
            (
                #"<?xml version="1.0"?><!DOCTYPE xliff SYSTEM "http://example.com/xliff.dtd">"#
                    + XLIFF12Tests.unit("<source>a</source>"),
                1, 22, nil, "DOCTYPE is not accepted"
            ),
        ] as [(String, Int, Int, String?, String)]
    )
    func hostile(input: String, line: Int, column: Int, unit: String?, message: String) {
        expectRefused(input, line: line, column: column, unit: unit, message: message) {
            (bytes) throws(TranslationFormatError) in
            _ = try XLIFF12Reader.read(bytes)
        }
    }

    /// A file with one unit (line 4) whose content (line 5) is `content`.
    static func unit(_ content: String, id: String = "t/title", attributes: String = "") -> String {
        """
        <xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2">
          <file original="x" source-language="en" target-language="fr" datatype="plaintext">
            <body>
              <trans-unit id="\(id)"\(attributes)>
                \(content)
              </trans-unit>
            </body>
          </file>
        </xliff>
        """
    }
}

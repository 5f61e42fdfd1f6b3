import EmptyStateTranslation
import Testing

@Suite("XLIFF 2.0")
struct XLIFF2Tests {
    static let small = TranslationDocument(
        sourceLocale: "en",
        targetLocale: "fr",
        exportedAt: "2026-11-23T10:00:00Z",
        units: [
            TranslationUnit(
                id: UnitID(template: "verifyIdentity", key: "title"),
                source: "Sign in with {provider}",
                target: "Connectez-vous avec {provider}",
                state: .translated,
                notes: ["title, at most 2 lines (60 columns)"]
            ),
            TranslationUnit(
                id: UnitID(template: "verifyIdentity", key: "actions.later"),
                source: "  Not now",
                target: nil,
                state: .missing
            ),
            TranslationUnit(
                id: UnitID(template: "verifyIdentity", key: "message"),
                source: "A & B <c>",
                target: "A & B",
                state: .stale
            ),
        ]
    )

    @Test("the writer's bytes, exactly")
    func golden() {
        let expected = """
            <?xml version="1.0" encoding="UTF-8"?>
            <xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" xmlns:mda="urn:oasis:names:tc:xliff:metadata:2.0" version="2.0" srcLang="en" trgLang="fr">
              <file id="empty-states">
                <mda:metadata>
                  <mda:metaGroup category="empty-state-service">
                    <mda:meta type="exportedAt">2026-11-23T10:00:00Z</mda:meta>
                  </mda:metaGroup>
                </mda:metadata>
                <unit id="verifyIdentity.title" name="verifyIdentity/title">
                  <notes>
                    <note>title, at most 2 lines (60 columns)</note>
                  </notes>
                  <segment state="translated">
                    <source>Sign in with <ph id="provider" disp="{provider}" equiv="{provider}"/></source>
                    <target>Connectez-vous avec <ph id="provider" disp="{provider}" equiv="{provider}"/></target>
                  </segment>
                </unit>
                <unit id="verifyIdentity.actions.later" name="verifyIdentity/actions.later">
                  <segment state="initial">
                    <source xml:space="preserve">  Not now</source>
                  </segment>
                </unit>
                <unit id="verifyIdentity.message" name="verifyIdentity/message">
                  <segment state="initial" subState="empty-state:stale">
                    <source>A &amp; B &lt;c&gt;</source>
                    <target>A &amp; B</target>
                  </segment>
                </unit>
              </file>
            </xliff>

            """
        expectSameBytes(XLIFF2Writer.write(Self.small), Array(expected.utf8))
    }

    @Test("write → read → write is byte-identical; read gives back every unit, note and state")
    func roundTrip() throws {
        for document in [
            Self.small, Fixtures.hardDocument(), Fixtures.hardDocument(exportedAt: nil), try Fixtures.builtinDocument(),
        ] {
            let bytes = XLIFF2Writer.write(document)
            let read = try XLIFF2Reader.read(bytes)
            #expect(read == document)
            expectSameBytes(XLIFF2Writer.write(read), bytes)
        }
    }

    @Test("placeholders are <ph>, never literal braces; a repeat gets its own id; XML-forbidden characters are <cp>")
    func inline() {
        let unit = TranslationUnit(
            id: UnitID(template: "t", key: "title"),
            source: "{a} and {a}, {b}\u{1}",
            target: nil,
            state: .missing
        )
        let text = XLIFF2Writer.write(
            TranslationDocument(sourceLocale: "en", targetLocale: "de", exportedAt: nil, units: [unit])
        ).text
        #expect(
            text.contains(
                #"<source><ph id="a" disp="{a}" equiv="{a}"/> and <ph id="a-2" disp="{a}" equiv="{a}"/>, <ph id="b" disp="{b}" equiv="{b}"/><cp hex="0001"/></source>"#
            )
        )
        #expect(!text.contains("xmlns:mda"))
    }

    @Test("what tools write: groups, segments, ignorables, <mrk>, <ph> named by equiv or id, literal braces")
    func tolerance() throws {
        let file = """
            <?xml version="1.0" encoding="UTF-8"?>
            <xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.1" srcLang="en-us" trgLang="pt_br">
              <file id="f1" original="x">
                <notes><note>file note</note></notes>
                <group id="g">
                  <unit id="a/title">
                    <segment state="reviewed"><source>One.</source><target>Um.</target></segment>
                    <ignorable><source> </source></ignorable>
                    <segment state="final"><source>Two <ph id="1" equiv="{n}"/></source><target>Dois <mrk id="m" translate="no"><ph id="n-2"/></mrk></target></segment>
                  </unit>
                </group>
                <unit id="a.message">
                  <segment state="translated"><source>{x}</source><target>{x}!</target></segment>
                </unit>
                <unit id="a.actions.go">
                  <segment><source>Go</source><target>Ir</target></segment>
                </unit>
              </file>
            </xliff>
            """
        let document = try XLIFF2Reader.read(Array(file.utf8))
        #expect(document.sourceLocale == "en-US")
        #expect(document.targetLocale == "pt-BR")
        #expect(document.exportedAt == nil)
        #expect(document.units.map(\.id.description) == ["a/title", "a/message", "a/actions.go"])
        #expect(document.units[0].source == "One. Two {n}")
        #expect(document.units[0].target == "Um. Dois {n}")
        #expect(document.units[0].state == .reviewed)
        #expect(document.units[1].target == "{x}!")
        // No state: initial, so a draft.
        #expect(document.units[2].state == .missing)
        #expect(document.units[2].target == "Ir")
    }

    @Test(
        "hostile or broken files are refused with line, column and unit",
        arguments: [
            (
                #"<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2" version="1.2"/>"#, 1, 1, nil,
                "(this is XLIFF 1.2)"
            ),
            (#"<resources/>"#, 1, 1, nil, "the root element is <resources>"),
            (
                XLIFF2Tests.unit(#"<segment state="done"><source>a</source><target>b</target></segment>"#), 4, 7,
                "t/title", "state \"done\""
            ),
            (
                XLIFF2Tests.unit(#"<segment state="final"><source>a</source></segment>"#), 4, 7, "t/title",
                "final but has no <target>"
            ),
            (
                XLIFF2Tests.unit(#"<segment><source>a <pc id="1">b</pc></source></segment>"#), 4, 26, "t/title",
                "<pc> is not supported"
            ),
            (
                XLIFF2Tests.unit(#"<segment><source><ph id="9"/></source></segment>"#), 4, 24, "t/title",
                "does not name a placeholder"
            ),
            (XLIFF2Tests.unit("<notes/>"), 3, 5, "t/title", "has no <segment>"),
            (
                XLIFF2Tests.unit(#"<segment><source>a</source></segment>"#, id: "nokey"), 3, 5, "nokey",
                "not template.key"
            ),
            (
                XLIFF2Tests.unit(#"<segment><source>a</source></segment>"#).replacingOccurrences(
                    of: "</file>",
                    with: #"<unit id="t.title"><segment><source>a</source></segment></unit></file>"#
                ),
                5, 12, "t/title", "appears twice"
            ),
            (
                "<!DOCTYPE x [<!ENTITY e SYSTEM \"http://example.com/\">]>\n"
                    + XLIFF2Tests.unit(#"<segment><source>&e;</source></segment>"#),
                1, 1, nil, "DOCTYPE is not accepted"
            ),
        ] as [(String, Int, Int, String?, String)]
    )
    func hostile(input: String, line: Int, column: Int, unit: String?, message: String) {
        expectRefused(input, line: line, column: column, unit: unit, message: message) {
            (bytes) throws(TranslationFormatError) in
            _ = try XLIFF2Reader.read(bytes)
        }
    }

    /// A file with one unit (line 3) whose content (line 4) is `content`.
    static func unit(_ content: String, id: String = "t.title") -> String {
        """
        <xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="fr">
          <file id="f">
            <unit id="\(id)">
              \(content)
            </unit></file>
        </xliff>
        """
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

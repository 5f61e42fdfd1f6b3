import EmptyStateTranslation
import Testing

@Suite("XMLReader: strict and safe")
struct XMLReaderTests {
    private func parse(
        _ text: String,
        limits: XMLReader.Limits = XMLReader.Limits()
    ) throws(TranslationFormatError)
        -> XMLDocument
    {
        try XMLReader.parse(Array(text.utf8), limits: limits)
    }

    private func failure(_ text: String, limits: XMLReader.Limits = XMLReader.Limits()) -> TranslationFormatError? {
        do {
            _ = try XMLReader.parse(Array(text.utf8), limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test("billion laughs: the DOCTYPE is refused where it starts, nothing is expanded")
    func billionLaughs() {
        let bomb = """
            <?xml version="1.0"?>
            <!DOCTYPE lolz [
              <!ENTITY lol "lol">
              <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
              <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
            ]>
            <lolz>&lol3;</lolz>
            """
        let error = failure(bomb)
        #expect(error?.line == 2)
        #expect(error?.column == 1)
        #expect(error?.message.contains("DOCTYPE is not accepted") == true)
    }

    @Test("an external entity is refused, with or without a DOCTYPE")
    func externalEntity() {
        let xxe = """
            <?xml version="1.0"?>
            <!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
            <r>&xxe;</r>
            """
        #expect(failure(xxe)?.line == 2)
        let undeclared = failure("<r>\n  <a>&xxe;</a>\n</r>")
        #expect(undeclared?.line == 2)
        #expect(undeclared?.column == 6)
        #expect(undeclared?.message.contains("undefined entity &xxe;") == true)
        // A DOCTYPE inside the root is refused too, not skipped.
        #expect(failure("<r><!DOCTYPE x></r>")?.message.contains("DOCTYPE") == true)
    }

    @Test(
        "broken markup names its line and column",
        arguments: [
            ("<r>\n<a>\n</r>", 3, 1, "</r> does not close <a>"),
            ("<r><a></a>", 1, 11, "the file ends before <r>"),
            ("<r a=\"1\" a=\"2\"/>", 1, 10, "the attribute a repeats"),
            ("<r a=1/>", 1, 6, "expected a quoted value"),
            ("<r>&amp</r>", 1, 4, "does not end with ';'"),
            ("<r>&#0;</r>", 1, 4, "not a character XML allows"),
            ("<r/><r/>", 1, 5, "only one root element"),
            ("text<r/>", 1, 1, "text is not allowed before it"),
            ("<r>]]></r>", 1, 4, "']]>' is not allowed"),
            ("<r><!-- a -- b --></r>", 1, 11, "'--' is not allowed"),
            ("<p:r/>", 1, 2, "the prefix p of p:r is not declared"),
            ("<r>\n  <?xml version=\"1.0\"?></r>", 2, 3, "XML declaration must be at the very start"),
            ("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><r/>", 1, 21, "encoding ISO-8859-1 is not supported"),
            ("<r a=\"<\"/>", 1, 7, "'<' is not allowed in an attribute value"),
            ("", 1, 1, "no root element"),
        ]
    )
    func brokenMarkup(input: String, line: Int, column: Int, message: String) {
        expectRefused(input, line: line, column: column, unit: nil, message: message) {
            (bytes) throws(TranslationFormatError) in _ = try XMLReader.parse(bytes)
        }
    }

    @Test("malformed UTF-8 and characters XML forbids are refused where they are")
    func characters() {
        var bytes = Array("<r>\nab".utf8)
        bytes += [0xC3, 0x28]
        bytes += Array("</r>".utf8)
        #expect(throws: TranslationFormatError(line: 2, column: 3, message: "malformed UTF-8")) {
            try XMLReader.parse(bytes)
        }
        #expect(failure("<r>é\u{1}</r>")?.column == 5)
        #expect(failure("<r>\u{FFFF}</r>")?.message.contains("U+FFFF") == true)
        // UTF-16 is named, not misread.
        #expect(throws: TranslationFormatError.self) { try XMLReader.parse([0xFF, 0xFE, 0x3C, 0x00]) }
    }

    @Test("a byte-order mark and CRLF line ends are accepted; CR LF in text becomes LF, &#13; stays")
    func bomAndCRLF() throws {
        let text = "\u{FEFF}<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<r a=\"x\r\ny\">one\r\ntwo&#13;\r\n</r>\r\n"
        let document = try parse(text)
        #expect(document.root.text == "one\ntwo\r\n")
        #expect(document.root.attribute("a") == "x y")
        let error = failure("\u{FEFF}<r>\r\n\r\n<a></r>")
        #expect(error?.line == 3)
        #expect(error?.column == 4)
    }

    @Test("text is kept scalar for scalar: NFD stays NFD")
    func noNormalization() throws {
        let nfd = "Cafe\u{301}"
        let document = try parse("<r>\(nfd)&#x301;</r>")
        #expect(Array(document.root.text.unicodeScalars) == Array((nfd + "\u{301}").unicodeScalars))
    }

    @Test("namespaces resolve, xml: is predefined, entities and character references decode")
    func namespaces() throws {
        let document = try parse(
            #"<x xmlns="urn:a" xmlns:b="urn:b" xml:space="preserve"><b:y b:k="&lt;&#x1F600;&apos;"/><z/></x>"#
        )
        #expect(document.root.name == XMLName("urn:a", "x"))
        #expect(document.root.attribute("space", namespace: XMLName.xmlNamespace) == "preserve")
        let children = document.root.elements
        #expect(children[0].name == XMLName("urn:b", "y"))
        #expect(children[0].attribute("k", namespace: "urn:b") == "<😀'")
        #expect(children[1].name == XMLName("urn:a", "z"))
    }

    @Test("limits: size, depth, attributes and name length are checked")
    func limits() {
        let small = XMLReader.Limits(maximumBytes: 64, maximumDepth: 3, maximumAttributes: 2, maximumNameLength: 8)
        #expect(failure(String(repeating: " ", count: 65), limits: small)?.message.contains("at most 64") == true)
        let deep = failure("<a><b><c><d/></c></b></a>", limits: small)
        #expect(deep?.message.contains("deeper than 3") == true)
        #expect(deep?.column == 10)
        #expect(
            failure("<a x=\"1\" y=\"2\" z=\"3\"/>", limits: small)?.message.contains("more than 2 attributes") == true
        )
        #expect(failure("<abcdefghi/>", limits: small)?.message.contains("longer than 8") == true)
        // The default depth still refuses a pathological nesting quickly, without recursing far.
        let nested = String(repeating: "<a>", count: 100_000)
        #expect(failure(nested)?.message.contains("deeper than 32") == true)
    }

    @Test("comments are kept as nodes; processing instructions are skipped")
    func commentsAndInstructions() throws {
        let document = try parse("<!-- before --><?pi data?><r><!-- note --><?x y?>text<![CDATA[<raw> &amp;]]></r>")
        #expect(document.root.children == [.comment(" note ", offset: 29), .text("text<raw> &amp;", offset: 49)])
    }
}

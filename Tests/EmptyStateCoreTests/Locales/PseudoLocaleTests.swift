import EmptyStateCore
import Testing

@Suite("PseudoLocale")
struct PseudoLocaleTests {
    private let rlm: Character = "\u{200F}"
    private let rlo = "\u{200F}\u{202E}"
    private let pdf = "\u{202C}\u{200F}"

    private func accented(_ text: String) -> String {
        PseudoLocale.strings(PseudoLocale.accented, from: ["key": text])["key"] ?? ""
    }

    private func mirrored(_ text: String) -> String {
        PseudoLocale.strings(PseudoLocale.bidi, from: ["key": text])["key"] ?? ""
    }

    @Test("knows its two tags in any case")
    func tags() {
        #expect(PseudoLocale.all == ["en-XA", "ar-XB"])
        #expect(PseudoLocale.isPseudo("en-XA"))
        #expect(PseudoLocale.isPseudo("AR-xb"))
        #expect(!PseudoLocale.isPseudo("en"))
        #expect(!PseudoLocale.isPseudo("en-XAB"))
    }

    @Test(
        "en-XA is bracketed, at least 40 % longer and accented",
        arguments: [
            "Try again", "Go back", "You're offline", "No documents yet", "A",
            "Check your data connection, then try again.",
        ]
    )
    func accent(text: String) {
        let result = accented(text)
        #expect(result.hasPrefix("["))
        #expect(result.hasSuffix("]"))
        #expect(Double(result.count) >= Double(text.count) * 1.4)
        // The accented copy comes first, one character for one; the padding words follow it.
        let copy = result.dropFirst().prefix(text.count)
        #expect(!copy.contains { $0.isASCII && $0.isLetter }, "\(copy)")
        #expect(copy.count == text.count)
    }

    @Test("en-XA accents every letter of the source")
    func accentExact() {
        let result = accented("Try again")
        #expect(result.hasPrefix("[Ţŕý åĝåîñ"))
        #expect(result.count >= 13)
    }

    @Test("en-XA keeps {provider} intact")
    func accentKeepsPlaceholder() {
        let result = accented("Verify with {provider}")
        #expect(result.hasPrefix("[Ṽéŕîƒý ŵîţĥ {provider}"))
        #expect(result.ranges(of: "{provider}").count == 1)
    }

    @Test("en-XA keeps every placeholder when one repeats after another")
    func accentKeepsRepeatedPlaceholders() {
        let result = accented("{a} and {b} and {a}")
        #expect(result.contains("{a} åñð {b} åñð {a}"), "\(result)")
    }

    @Test("ar-XB wraps each word in RLM RLO … PDF RLM")
    func mirror() {
        let result = mirrored("Try again")
        #expect(result == rlo + "Try" + pdf + " " + rlo + "again" + pdf)
        #expect(result.first == rlm)
    }

    @Test("ar-XB keeps placeholders outside the overrides")
    func mirrorKeepsPlaceholder() {
        let result = mirrored("Verify with {provider}")
        #expect(result == rlo + "Verify" + pdf + " " + rlo + "with" + pdf + " {provider}")
        let mixed = mirrored("{count} new")
        #expect(mixed == "{count} " + rlo + "new" + pdf)
    }

    @Test("generates every key of the source")
    func everyKey() {
        let source = ["title": "You're offline", "message": "Check {provider}.", "actions.back": "Go back"]
        #expect(Set(PseudoLocale.strings("en-XA", from: source).keys) == Set(source.keys))
        #expect(Set(PseudoLocale.strings("ar-XB", from: source).keys) == Set(source.keys))
    }
}

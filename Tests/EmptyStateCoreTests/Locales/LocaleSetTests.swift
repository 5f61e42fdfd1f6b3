import EmptyStateCore
import Testing

@Suite("LocaleSet.resolve")
struct LocaleSetTests {
    /// The locales of every built-in template, with the pseudo-locales after them.
    private let set = LocaleSet(
        tags: ["en", "es", "fr", "de", "pt-BR", "ja", "ar", "en-XA", "ar-XB"],
        fallback: "en"
    )

    private func resolve(_ header: String) -> String {
        set.resolve(LocaleNegotiation.parseAcceptLanguage(header))
    }

    @Test(
        "resolves through the lookup chain, then by language",
        arguments: [
            ("pt-BR", "pt-BR"),
            ("pt-br", "pt-BR"),
            ("pt", "pt-BR"),
            ("pt-PT", "pt-BR"),
            ("de-CH", "de"),
            ("de-Latn-AT", "de"),
            ("es-419", "es"),
            ("fr-CA", "fr"),
            ("ar-EG", "ar"),
            ("ja-JP", "ja"),
            ("en-XA", "en-XA"),
            ("en-xa", "en-XA"),
            ("ar-XB", "ar-XB"),
        ]
    )
    func resolves(input: String, expected: String) throws {
        let tag = try #require(LocaleTag(input))
        #expect(set.resolve(tag) == expected)
    }

    @Test("has nothing for an unknown language, and falls back for the request")
    func unknown() throws {
        #expect(set.resolve(try #require(LocaleTag("ko"))) == nil)
        #expect(resolve("ko, zh-Hant-TW") == "en")
        #expect(resolve("") == "en")
        #expect(resolve("*") == "en")
    }

    @Test("respects the order of the client's preferences")
    func preferenceOrder() {
        #expect(resolve("ko, fr;q=0.8, de;q=0.9") == "de")
        #expect(resolve("ko, ja, fr") == "ja")
        #expect(resolve("ko;q=1, pt-PT;q=0.5, en;q=0.4") == "pt-BR")
    }

    @Test("en never resolves to a pseudo-locale, even when the set has no en")
    func neverPseudo() throws {
        #expect(set.resolve(try #require(LocaleTag("en"))) == "en")
        let pseudoOnly = LocaleSet(tags: ["fr", "en-XA", "ar-XB"], fallback: "fr")
        #expect(pseudoOnly.resolve(try #require(LocaleTag("en"))) == nil)
        #expect(pseudoOnly.resolve(try #require(LocaleTag("en-US"))) == nil)
        #expect(pseudoOnly.resolve(try #require(LocaleTag("ar"))) == nil)
        #expect(pseudoOnly.resolve(LocaleNegotiation.parseAcceptLanguage("en-GB, en")) == "fr")
    }

    @Test("the first regional form of a language wins a bare-language request")
    func firstRegionalForm() throws {
        let set = LocaleSet(tags: ["pt-PT", "pt-BR", "en"], fallback: "en")
        #expect(set.resolve(try #require(LocaleTag("pt"))) == "pt-PT")
        #expect(set.resolve(try #require(LocaleTag("pt-BR"))) == "pt-BR")
        #expect(set.contains("PT-br"))
        #expect(!set.contains("pt"))
    }
}

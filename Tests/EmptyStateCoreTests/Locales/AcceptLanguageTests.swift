import EmptyStateCore
import Testing

@Suite("LocaleNegotiation.parseAcceptLanguage")
struct AcceptLanguageTests {
    /// The tags of the parsed preferences, `*` for the wildcard.
    private func tags(_ header: String) -> [String] {
        LocaleNegotiation.parseAcceptLanguage(header).map { $0.tag?.description ?? "*" }
    }

    @Test("orders by q-value, highest first")
    func ordersByQuality() {
        #expect(tags("fr;q=0.5, en;q=0.9, de") == ["de", "en", "fr"])
        #expect(tags("da, en-GB;q=0.8, en;q=0.7") == ["da", "en-GB", "en"])
    }

    @Test("keeps the weights it parsed")
    func keepsWeights() throws {
        let preferences = LocaleNegotiation.parseAcceptLanguage("ja;q=0.25, pt-br")
        try #require(preferences.count == 2)
        #expect(preferences[0] == LanguagePreference(tag: LocaleTag("pt-BR"), quality: 1))
        #expect(preferences[1] == LanguagePreference(tag: LocaleTag("ja"), quality: 0.25))
    }

    @Test("equal weights keep the client's order")
    func equalWeightsKeepOrder() {
        #expect(tags("es, fr, de") == ["es", "fr", "de"])
        #expect(tags("de;q=0.5, es;q=0.5, ar;q=0.9, fr;q=0.5") == ["ar", "de", "es", "fr"])
    }

    @Test("q=0 means not acceptable and is dropped")
    func zeroQualityDropped() {
        #expect(tags("fr;q=0, en") == ["en"])
        #expect(tags("fr;q=0.000") == [])
    }

    @Test(
        "malformed ranges are ignored, the rest kept",
        arguments: ["english-, fr", "12, fr", "fr--CA, fr", ", fr,", "x-foo, fr", "e, fr"]
    )
    func malformedRanges(header: String) {
        #expect(tags(header) == ["fr"])
    }

    @Test(
        "malformed q-values are ignored, the rest kept",
        arguments: ["de;q=abc, fr", "de;q=2, fr", "de;q=-0.5, fr", "de;q=, fr", "de;level=1, fr", "de;q, fr"]
    )
    func malformedQuality(header: String) {
        #expect(tags(header) == ["fr"])
    }

    @Test("tolerates spaces and tabs around ranges and parameters, and an upper-case Q")
    func whitespace() {
        #expect(tags(" fr ;\tq=0.4 ,\tde ; Q=0.6") == ["de", "fr"])
    }

    @Test("the wildcard is kept with its weight")
    func wildcard() {
        let preferences = LocaleNegotiation.parseAcceptLanguage("*;q=0.1, fr")
        #expect(preferences.map { $0.tag?.description ?? "*" } == ["fr", "*"])
        #expect(preferences.last?.quality == 0.1)
        #expect(preferences.last?.tag == nil)
    }

    @Test("an empty header gives no preference")
    func empty() {
        #expect(tags("").isEmpty)
    }
}

import EmptyStateCore
import Testing

@Suite("LocaleTag")
struct LocaleTagTests {
    @Test(
        "parses and keeps the canonical case",
        arguments: [
            ("en", "en"),
            ("pt-br", "pt-BR"),
            ("PT-BR", "pt-BR"),
            ("zh-hant-tw", "zh-Hant-TW"),
            ("ZH-HANT-TW", "zh-Hant-TW"),
            ("es-419", "es-419"),
            ("sr_Latn", "sr-Latn"),
            ("sr_latn_rs", "sr-Latn-RS"),
            ("de-DE-1996", "de-DE-1996"),
            ("sl-rozaj-biske", "sl-rozaj-biske"),
            ("en-US-x-Twain", "en-US-x-twain"),
            ("de-CH-u-co-phonebk", "de-CH-u-co-phonebk"),
            ("zh-yue-HK", "zh-yue-HK"),
        ]
    )
    func canonicalCase(input: String, canonical: String) throws {
        let tag = try #require(LocaleTag(input))
        #expect(tag.description == canonical)
    }

    @Test("splits into subtags with the primary language first")
    func subtags() throws {
        let tag = try #require(LocaleTag("zh-hant-tw"))
        #expect(tag.subtags == ["zh", "Hant", "TW"])
        #expect(tag.language == "zh")
        #expect(tag.script == "Hant")
        #expect(try #require(LocaleTag("pt-BR")).script == nil)
    }

    @Test(
        "rejects what is not a well-formed tag",
        arguments: [
            "",
            "e",
            "english-",
            "12",
            "fr--CA",
            "x-foo",
            "-en",
            "en-",
            "en US",
            "en-US-",
            "abcd",
            "abcdefghi",
            "en-a",
            "en-x",
            "en-toolongsubtag",
            "français",
            "en-" + String(repeating: "abcdefgh-", count: 7) + "abcdefgh",
        ]
    )
    func rejects(input: String) {
        #expect(LocaleTag(input) == nil)
    }

    @Test("refuses a tag longer than 64 bytes even when every subtag is well-formed")
    func overLong() {
        let valid = "en-" + Array(repeating: "a1b2c", count: 10).joined(separator: "-")
        #expect(valid.utf8.count == 62)
        #expect(LocaleTag(valid) != nil)
        let tooLong = valid + "-abc"
        #expect(tooLong.utf8.count > 64)
        #expect(LocaleTag(tooLong) == nil)
    }

    @Test(
        "lookup chain drops one subtag at a time",
        arguments: [
            ("zh-Hant-TW", ["zh-Hant-TW", "zh-Hant", "zh"]),
            ("pt-BR", ["pt-BR", "pt"]),
            ("en", ["en"]),
            ("es-419", ["es-419", "es"]),
        ]
    )
    func lookupChain(input: String, chain: [String]) throws {
        #expect(try #require(LocaleTag(input)).lookupChain == chain)
    }

    @Test("lookup chain never ends on a singleton (RFC 4647 §3.4)")
    func lookupChainDropsSingletons() throws {
        let privateUse = try #require(LocaleTag("zh-Hant-CN-x-private1-private2"))
        #expect(
            privateUse.lookupChain == [
                "zh-Hant-CN-x-private1-private2", "zh-Hant-CN-x-private1", "zh-Hant-CN", "zh-Hant", "zh",
            ]
        )
        let ext = try #require(LocaleTag("de-DE-u-co"))
        #expect(ext.lookupChain == ["de-DE-u-co", "de-DE", "de"])
        #expect(!ext.lookupChain.contains { $0.hasSuffix("-u") })
    }

    @Test("lookup chain drops one-character private-use subtags and their singleton together (found by fuzz-locale)")
    func lookupChainDropsSingleCharacterPrivateUse() throws {
        let tag = try #require(LocaleTag("en-x-a-b"))
        #expect(tag.lookupChain == ["en-x-a-b", "en"])
        let found = try #require(LocaleTag("cfeadbgh-Latn-245c-x-1cdefgh-L-a-at"))
        #expect(
            found.lookupChain == [
                "cfeadbgh-Latn-245c-x-1cdefgh-l-a-at", "cfeadbgh-Latn-245c-x-1cdefgh", "cfeadbgh-Latn-245c",
                "cfeadbgh-Latn", "cfeadbgh",
            ]
        )
    }

    @Test(
        "right to left for Arabic, Hebrew, Persian, Urdu and RTL scripts",
        arguments: [
            "ar", "he", "fa", "ur", "az-Arab", "ar-EG", "ar-XB", "ks-Arab-IN", "pa-Arab",
        ]
    )
    func rightToLeft(input: String) throws {
        #expect(try #require(LocaleTag(input)).isRightToLeft)
    }

    @Test(
        "left to right otherwise, a Latin script winning over an RTL language",
        arguments: [
            "fr", "en", "ja", "az", "az-Latn", "ku-Latn", "zh-Hant-TW", "en-XA",
        ]
    )
    func leftToRight(input: String) throws {
        #expect(try #require(LocaleTag(input)).isRightToLeft == false)
    }

    @Test("an extension or private-use subtag of four letters is not a script")
    func extensionIsNotAScript() throws {
        // Arabic with Latin digits: the text still runs right to left.
        let arabicLatinDigits = try #require(LocaleTag("ar-u-nu-latn"))
        #expect(arabicLatinDigits.script == nil)
        #expect(arabicLatinDigits.isRightToLeft)
        let privateUse = try #require(LocaleTag("he-x-test"))
        #expect(privateUse.script == nil)
        #expect(privateUse.isRightToLeft)
    }
}

import EmptyStateCore
import Testing

/// Which of the catalogue's locales an imported file's locale is (`LocaleResolution`), with
/// CLDR's aliases (`LocaleAliases+Data.swift`, generated from babel's CLDR).
@Suite("Locale resolution of imported files")
struct LocaleResolutionTests {
    private let catalogue: Set<String> = ["en", "fr", "de", "he", "pt-BR", "zh-Hans", "sr", "fil"]

    private func resolve(_ text: String, among locales: Set<String>? = nil) -> LocaleResolution {
        LocaleResolution.resolve(LocaleTag(text)!, among: locales ?? catalogue)
    }

    @Test(
        "exact, CLDR alias, or a shorter tag of the same language and script",
        arguments: [
            ("fr", LocaleResolution.exact("fr")),
            ("FR", .exact("fr")),
            ("pt_BR", .exact("pt-BR")),
            ("fr-FR", .nearest(from: "fr-FR", to: "fr")),
            ("de-CH", .nearest(from: "de-CH", to: "de")),
            ("fre", .alias(from: "fre", to: "fr")),
            ("fra", .alias(from: "fra", to: "fr")),
            ("fre-FR", .alias(from: "fre-FR", to: "fr")),
            ("ger", .alias(from: "ger", to: "de")),
            ("iw", .alias(from: "iw", to: "he")),
            ("iw-IL", .alias(from: "iw-IL", to: "he")),
            ("tl", .alias(from: "tl", to: "fil")),
            ("zh-Hans-CN", .nearest(from: "zh-Hans-CN", to: "zh-Hans")),
        ] as [(String, LocaleResolution)]
    )
    func matched(file: String, expected: LocaleResolution) {
        #expect(resolve(file) == expected)
    }

    @Test(
        "a language the catalogue lacks, or another script, is unknown: never a silent new language",
        arguments: ["qq", "xx-Latn", "es", "pt", "pt-PT", "zh-TW", "zh-Hant", "sr-Latn"]
    )
    func unknown(file: String) {
        #expect(resolve(file) == .unknown(LocaleTag(file)!.description))
        #expect(resolve(file).locale == nil)
    }

    @Test("a regional tag goes to the region's own locale when the catalogue has it")
    func regionFirst() {
        #expect(resolve("pt-BR", among: ["pt", "pt-BR"]) == .exact("pt-BR"))
        #expect(resolve("pt-PT", among: ["pt", "pt-BR"]) == .nearest(from: "pt-PT", to: "pt"))
        // `sh` is Serbian in Latin script: it is not the catalogue's Cyrillic `sr`.
        #expect(resolve("sh", among: ["sr"]) == .unknown("sh"))
        #expect(resolve("sh", among: ["sr", "sr-Latn"]) == .alias(from: "sh", to: "sr-Latn"))
        // Chinese in Taiwan is written in Hant: it is not `zh` (Hans) by dropping the region.
        #expect(resolve("zh-TW", among: ["zh"]) == .unknown("zh-TW"))
        #expect(resolve("zh-CN", among: ["zh"]) == .nearest(from: "zh-CN", to: "zh"))
    }
}

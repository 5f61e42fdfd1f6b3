import EmptyStateCore
import JSONCoding
import Testing

@Suite("LocaleCompleteness: how completely each locale is translated")
struct LocaleCompletenessTests {
    @Test("a locale every template has in full is complete")
    func complete() throws {
        let sample = try #require(Documents.template(Documents.sample))
        let report = LocaleCompleteness.report(for: [sample])
        #expect(report.map(\.locale) == ["en", "fr"])
        for entry in report {
            #expect(entry.templates == 1 && entry.completeTemplates == 1 && entry.completeness == 1)
            #expect(entry.missing.isEmpty)
        }
    }

    @Test("missing keys are listed per template in required order; completeness counts keys, rounded")
    func missing() throws {
        let sample = try #require(Documents.template(Documents.sample))
        var partial = sample
        let french = try #require(partial.strings.firstIndex { $0.locale == "fr" })
        partial.strings[french].values["message"] = nil
        partial.strings[french].values["actions.back"] = nil
        let minimal = try #require(Documents.template(Documents.minimal))
        let report = LocaleCompleteness.report(for: [partial, minimal])
        #expect(report.map(\.locale) == ["en", "fr"])
        let fr = try #require(report.last)
        // Required: sample 4 (title, message, two labels) + minimal 1 (title); fr has 2 of them.
        #expect(fr.templates == 2 && fr.completeTemplates == 0)
        #expect(fr.completeness == 0.4)
        #expect(
            fr.missing == [
                .init(templateID: "sample", keys: ["message", "actions.back"]),
                .init(templateID: "minimal", keys: ["title"]),
            ]
        )
        let en = try #require(report.first)
        #expect(en.completeTemplates == 2 && en.completeness == 1 && en.missing.isEmpty)
    }

    @Test("thirds are rounded to three decimals; no templates, no locales")
    func rounding() throws {
        var sample = try #require(Documents.template(Documents.sample))
        let french = try #require(sample.strings.firstIndex { $0.locale == "fr" })
        sample.strings[french].values = ["title": "Titre"]
        let minimal = try #require(Documents.template(Documents.minimal))
        let fr = try #require(LocaleCompleteness.report(for: [sample, minimal, minimal]).last)
        // fr has sample's title of sample's 4 + 1 + 1 required keys: 1/6.
        #expect(fr.completeness == 0.167)
        #expect(LocaleCompleteness.report(for: []).isEmpty)
    }
}

import CLDRPlurals
import Foundation
import JSONCoding
import Testing

/// `CLDRPlurals` against babel, an independent implementation of the same CLDR rules: for one
/// locale of every rule set, the categories and babel's choice for each sample number
/// (`Resources/plural-vectors.json`, written by `Tools/cldr/generate.py` with the tables).
@Suite("CLDR plural rules")
struct CLDRPluralsTests {
    static func vectors() throws -> JSONValue {
        let url = Repository.root.appendingPathComponent("Tests/EmptyStateCoreTests/Resources/plural-vectors.json")
        return try JSONParser.parse(Array(try Data(contentsOf: url)))
    }

    @Test("every rule set chooses as babel does, for every sample")
    func agreesWithBabel() throws {
        let vectors = try Self.vectors()
        #expect(vectors["cldrVersion"] == .string(PluralRules.cldrVersion))
        guard case .object(let locales)? = vectors["locales"] else {
            Issue.record("no locales")
            return
        }
        #expect(locales.count > 30)
        var checked = 0
        for (locale, entry) in locales {
            let rules = PluralRules.forLocale(locale)
            guard case .array(let categories)? = entry["categories"], case .object(let samples)? = entry["samples"]
            else {
                Issue.record("\(locale): malformed")
                continue
            }
            #expect(rules.categories.map { JSONValue.string($0.rawValue) } == categories, "\(locale)")
            for (number, expected) in samples {
                let got = rules.category(of: number)
                #expect(got.map { JSONValue.string($0.rawValue) } == expected, "\(locale) \(number)")
                checked += 1
            }
        }
        #expect(checked > 1000)
    }

    @Test("locales find their rules by language, region where CLDR has its own, and root otherwise")
    func lookup() {
        #expect(PluralRules.forLocale("en").categories == [.one, .other])
        #expect(PluralRules.forLocale("en-GB").categories == [.one, .other])
        #expect(PluralRules.forLocale("fr").categories == [.one, .many, .other])
        #expect(PluralRules.forLocale("ar").categories == PluralCategory.allCases)
        #expect(PluralRules.forLocale("ja").categories == [.other])
        #expect(PluralRules.forLocale("qq").categories == [.other])
        // Portugal's Portuguese is not Brazil's: 0 is `one` in pt, `other` in pt-PT.
        #expect(PluralRules.forLocale("pt").category(of: 0) == .one)
        #expect(PluralRules.forLocale("pt-PT").category(of: 0) == .other)
        #expect(PluralRules.forLocale("pt_pt").category(of: 0) == .other)
        // An extension's subtags are not a region.
        #expect(PluralRules.forLocale("pt-u-nu-pt").category(of: 0) == .one)
    }

    @Test("numbers are read as written: fraction digits and the compact exponent count")
    func operands() {
        let english = PluralRules.forLocale("en")
        #expect(english.category(of: "1") == .one)
        #expect(english.category(of: "1.0") == .other)
        #expect(english.category(of: "-1") == .one)
        #expect(english.category(of: 1) == .one)
        #expect(english.category(of: -1) == .one)
        let french = PluralRules.forLocale("fr")
        #expect(french.category(of: "1000000") == .many)
        #expect(french.category(of: "1c6") == .many)
        #expect(french.category(of: "1.5") == .one)
        #expect(french.category(of: "2") == .other)
        let russian = PluralRules.forLocale("ru")
        #expect(russian.category(of: 21) == .one)
        #expect(russian.category(of: 22) == .few)
        #expect(russian.category(of: 25) == .many)
        #expect(russian.category(of: "1.5") == .other)
        // A number longer than any machine integer still has its last digits.
        #expect(russian.category(of: "123456789012345678901") == .one)
        for bad in ["", "x", "1.", ".5", "1e", "1c1234", "1,5", "1 000", "--1", "1.2.3"] {
            #expect(english.category(of: bad) == nil, "\(bad)")
        }
    }

    @Test("a category that holds one number alone is known, so its form may leave the number out")
    func soleNumbers() {
        #expect(PluralRules.forLocale("en").soleNumber(of: .one) == "1")
        #expect(PluralRules.forLocale("en").soleNumber(of: .other) == nil)
        #expect(PluralRules.forLocale("fr").soleNumber(of: .one) == nil)
        #expect(PluralRules.forLocale("ru").soleNumber(of: .one) == nil)
        #expect(PluralRules.forLocale("ar").soleNumber(of: .zero) == "0")
        #expect(PluralRules.forLocale("ar").soleNumber(of: .two) == "2")
        #expect(PluralRules.forLocale("ar").soleNumber(of: .few) == nil)
        #expect(PluralRules.forLocale("cy").soleNumber(of: .many) == "6")
    }
}

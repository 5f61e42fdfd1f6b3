import EmptyStateCore
import Foundation
import JSONCoding
import Testing

/// GrowthBook's own vectors (`hash`, `getBucketRange`, `chooseVariation` of
/// `packages/sdk-js/test/cases.json`, vendored under `Tests/fixtures/growthbook/` with its MIT
/// licence), then the properties the issue asks of a split.
@Suite struct ExperimentAssignmentTests {
    static let cases: JSONValue = {
        let url = Repository.root.appendingPathComponent("Tests/fixtures/growthbook/cases.json")
        // The fixture is part of the repository; a missing or broken file fails every test below.
        let data = (try? Data(contentsOf: url)) ?? Data()
        return (try? JSONParser.parse(Array(data))) ?? .null
    }()

    static func section(_ name: String) -> [[JSONValue]] {
        guard case .array(let rows)? = cases[name] else { return [] }
        return rows.compactMap { if case .array(let row) = $0 { row } else { nil } }
    }

    static func number(_ value: JSONValue) -> Double? {
        if case .number(let n) = value { n } else { nil }
    }

    static func string(_ value: JSONValue) -> String {
        if case .string(let text) = value { text } else { "" }
    }

    static func ranges(_ value: JSONValue) -> [ExperimentAssignment.Range] {
        guard case .array(let pairs) = value else { return [] }
        return pairs.compactMap {
            guard case .array(let pair) = $0, pair.count == 2, let a = number(pair[0]), let b = number(pair[1])
            else { return nil }
            return .init(a, b)
        }
    }

    @Test func fixtureHasEverySection() {
        #expect(Self.section("hash").count == 15)
        #expect(Self.section("getBucketRange").count == 13)
        #expect(Self.section("chooseVariation").count == 13)
    }

    @Test func growthBookHashVectors() {
        for row in Self.section("hash") {
            let seed = Self.string(row[0])
            let value = Self.string(row[1])
            let version = Int(Self.number(row[2]) ?? 0)
            let result = ExperimentAssignment.hash(seed: seed, value: value, version: version)
            #expect(result == Self.number(row[3]), "hash(\(seed), \(value), v\(version))")
        }
    }

    @Test func notesVectors() {
        #expect(ExperimentAssignment.hash(seed: "feature", value: "123") == 0.5231)
        #expect(ExperimentAssignment.hash(seed: "feature", value: "456", version: 1) == 0.178)
    }

    @Test func growthBookBucketRangeVectors() {
        for row in Self.section("getBucketRange") {
            guard case .array(let arguments) = row[1] else {
                Issue.record("malformed row \(row)")
                continue
            }
            let count = Int(Self.number(arguments[0]) ?? 0)
            let coverage = Self.number(arguments[1]) ?? 1
            var weights: [Double]?
            if case .array(let values) = arguments[2] { weights = values.compactMap(Self.number) }
            let got = ExperimentAssignment.bucketRanges(count: count, coverage: coverage, weights: weights)
            let expected = Self.ranges(row[2])
            #expect(got.count == expected.count, "\(Self.string(row[0]))")
            for (g, e) in zip(got, expected) {
                // GrowthBook's cases compare with toFixed rounding (0.2 · 0.2 is 0.04000000000000001).
                #expect(abs(g.lower - e.lower) < 1e-9 && abs(g.upper - e.upper) < 1e-9, "\(Self.string(row[0]))")
            }
        }
    }

    @Test func growthBookChooseVariationVectors() {
        for row in Self.section("chooseVariation") {
            let n = Self.number(row[1]) ?? -1
            let expected = Int(Self.number(row[3]) ?? -2)
            let got = ExperimentAssignment.chooseVariation(n, ranges: Self.ranges(row[2]))
            #expect((got ?? -1) == expected, "\(Self.string(row[0]))")
        }
    }

    @Test func fnvIsTheOfficialFunction() {
        // FNV-1a test vectors from the reference (isthe.com/chongo/tech/comp/fnv).
        #expect(ExperimentAssignment.fnv1a32("") == 0x811c_9dc5)
        #expect(ExperimentAssignment.fnv1a32("a") == 0xe40c_292c)
        #expect(ExperimentAssignment.fnv1a32("foobar") == 0xbf9c_f968)
    }

    // A million ids split within ±0.5 % of the weights, and exactly as an independent
    // implementation splits them: ExperimentStatisticsTests.aMillionInstallIDsSplitAsTheWeightsSay.

    @Test func coverageLeavesInstallsOutAndNeverMovesOne() {
        let weights = [0.5, 0.5]
        var outside = 0
        for i in 0..<20_000 {
            let id = "i\(i)"
            let half = ExperimentAssignment.variant(seed: "e", installID: id, weights: weights, coverage: 0.5)
            let full = ExperimentAssignment.variant(seed: "e", installID: id, weights: weights, coverage: 1)
            if let half { #expect(half == full) } else { outside += 1 }
        }
        #expect(abs(Double(outside) / 20_000 - 0.5) < 0.02)
    }

    @Test func sameInstallSameVariantAndSeedsAreIndependent() {
        let a = ExperimentAssignment.variant(seed: "x", installID: "abc", weights: [0.5, 0.5], coverage: 1)
        #expect(a == ExperimentAssignment.variant(seed: "x", installID: "abc", weights: [0.5, 0.5], coverage: 1))
        var agree = 0
        for i in 0..<10_000 {
            let id = "u\(i)"
            let one = ExperimentAssignment.variant(seed: "one", installID: id, weights: [0.5, 0.5], coverage: 1)
            let two = ExperimentAssignment.variant(seed: "two", installID: id, weights: [0.5, 0.5], coverage: 1)
            if one == two { agree += 1 }
        }
        #expect(abs(Double(agree) / 10_000 - 0.5) < 0.03)
    }
}

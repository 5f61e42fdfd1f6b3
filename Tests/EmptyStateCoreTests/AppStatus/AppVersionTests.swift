import EmptyStateCore
import Testing

@Suite("AppVersion: parsing and SemVer 2.0 precedence")
struct AppVersionTests {
    /// (lower, higher): `lower < higher` and never the other way.
    static let ordered: [(String, String)] = [
        ("1.9.3", "1.10.0"),
        ("1.9", "1.10"),
        ("1.2.9", "1.2.10"),
        ("0.9.9", "1.0.0"),
        ("1.0.0", "2.0.0"),
        ("2.0.0", "2.1.0"),
        ("2.1.0", "2.1.1"),
        ("5", "5.0.1"),
        ("5.2", "5.2.1"),
        ("5.1.99", "5.2"),
        ("4.99.99", "5"),
        ("9", "10"),
        ("99.0.0", "100.0.0"),
        ("1.0.0", "1.0.10"),
        ("17.3", "17.4"),
        ("17.4", "17.4.1"),
        // §11: a pre-release is lower than its release, higher than the release before.
        ("1.0.0-alpha", "1.0.0"),
        ("1.0.0-rc.1", "1.0.0"),
        ("1.0.0-rc.1", "1.0"),
        ("0.9.9", "1.0.0-alpha"),
        ("1.9.0", "1.10.0-beta.1"),
        // §11 example chain.
        ("1.0.0-alpha", "1.0.0-alpha.1"),
        ("1.0.0-alpha.1", "1.0.0-alpha.beta"),
        ("1.0.0-alpha.beta", "1.0.0-beta"),
        ("1.0.0-beta", "1.0.0-beta.2"),
        ("1.0.0-beta.2", "1.0.0-beta.11"),
        ("1.0.0-beta.11", "1.0.0-rc.1"),
        ("1.0.0-rc.1", "1.0.0"),
        // Numeric identifiers compare as numbers, and below alphanumeric ones.
        ("1.0.0-2", "1.0.0-10"),
        ("1.0.0-99", "1.0.0-a"),
        ("1.0.0-1", "1.0.0-1a"),
        // Alphanumeric identifiers compare in ASCII order (upper case first).
        ("1.0.0-Beta", "1.0.0-alpha"),
        ("1.0.0-alpha", "1.0.0-alpha-2"),
        ("1.0.0-a.b", "1.0.0-a.b.c"),
        ("1.0.0-rc.1+build.9", "1.0.0+build.1"),
        ("5.2.0-beta+exp.sha.5114f85", "5.2.0"),
        ("18446744073709551614", "18446744073709551615"),
        ("0.0.0", "0.0.1"),
        ("0.0.0-0.1", "0"),
        ("0.0.0-0", "0.0.0-0.0"),
        ("1.0.0-alpha.9", "1.0.0-alpha.10"),
    ]

    /// Pairs of equal precedence (missing parts are zero; build metadata ignored).
    static let equal: [(String, String)] = [
        ("5", "5.0.0"),
        ("5.2", "5.2.0"),
        ("1.10", "1.10.0"),
        ("1.0.0+20130313144700", "1.0.0"),
        ("1.0.0+a", "1.0.0+b"),
        ("1.0.0-beta+exp.sha.5114f85", "1.0.0-beta"),
        ("0", "0.0"),
        ("1.0-rc.1", "1.0.0-rc.1"),
    ]

    static let malformed: [String] = [
        "", "v1.2.3", "1.2.3.4", "1..2", "1.", ".1", "01.2.3", "1.02.3", "1.2.03", "1.2.3-", "1.2.3+",
        "1.2.3-beta..1", "1.2.3-01", "1.2.3-béta", "1.2.3+build+2", "1.2 .3", " 1.2.3", "1.2.3 ", "latest",
        "1.2.x", "-1.2.3", "18446744073709551616", "1.2.3-beta_1", String(repeating: "1", count: 129),
    ]

    @Test("at least 40 ordered pairs compare as versions, both ways", arguments: ordered)
    func orders(lower: String, higher: String) throws {
        let a = try #require(AppVersion(lower), "\(lower) parses")
        let b = try #require(AppVersion(higher), "\(higher) parses")
        #expect(a < b)
        #expect(!(b < a))
        #expect(a != b)
        #expect(b > a)
    }

    @Test("a version must fit in 128 characters once its missing parts are written out")
    func writtenLength() throws {
        let build = String(repeating: "0", count: 121)
        let full = try #require(AppVersion("5.0.0+" + build))  // 127 characters
        #expect(full.description.utf8.count == 127)
        #expect(AppVersion("5.0+" + build)?.description.utf8.count == 127, "5.0+… gains two: 127")
        #expect(AppVersion("5+" + build + "00") == nil, "5+… of 125 would be written in 129")
        #expect(AppVersion("5+" + build + "0")?.description.utf8.count == 128)
    }

    @Test("the table has at least 40 comparison cases")
    func tableSize() {
        #expect(Self.ordered.count >= 40)
    }

    @Test("equal precedence: missing parts are zero, build metadata is ignored", arguments: equal)
    func equals(left: String, right: String) throws {
        let a = try #require(AppVersion(left))
        let b = try #require(AppVersion(right))
        #expect(a == b)
        #expect(!(a < b) && !(b < a))
        #expect(a.hashValue == b.hashValue)
    }

    @Test("malformed versions are refused", arguments: malformed)
    func refuses(text: String) {
        #expect(AppVersion(text) == nil, "\(text) must not parse")
    }

    @Test("description writes the missing parts, the pre-release and the build")
    func describes() throws {
        #expect(try #require(AppVersion("5")).description == "5.0.0")
        #expect(try #require(AppVersion("5.2-rc.1+b7")).description == "5.2.0-rc.1+b7")
        #expect(try #require(AppVersion("5.2-rc.1+b7")).precedenceText == "5.2.0-rc.1")
        let version = try #require(AppVersion("1.2.3-alpha.7"))
        #expect(version.preRelease == [.alphanumeric("alpha"), .numeric(7)])
    }

    @Test("sorting a shuffled list gives SemVer's order")
    func sorts() throws {
        let expected = [
            "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11",
            "1.0.0-rc.1", "1.0.0", "1.9.3", "1.10.0",
        ]
        let versions = try expected.reversed().map { try #require(AppVersion($0)) }
        #expect(versions.sorted().map(\.description) == expected)
    }
}

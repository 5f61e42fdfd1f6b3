import EmptyStateCore
import JSONCoding
import Testing

/// Parses a version the tests spell correctly.
private func v(_ text: String) -> AppVersion { AppVersion(text)! }

private let policy = AppPolicy(
    platform: .ios,
    minimumVersion: v("5.0"),
    latestVersion: v("5.3.0"),
    minimumOSVersion: v("16.0"),
    blockedVersions: [v("5.1.2")],
    storeURL: "https://apps.apple.com/app/id123456789",
    rolloutPercentage: 40
)

@Suite("AppStatus.decide: policy + versions + rollout bucket → state")
struct AppStatusDecisionTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var app: String
        var os: String?
        var bucket: Int?
        var expected: AppStatus
        var testDescription: String { "app \(app), os \(os ?? "-"), bucket \(bucket.map(String.init) ?? "-")" }
    }

    static let cases: [Case] = [
        // The OS floor comes first, whatever the app version.
        Case(app: "5.3.0", os: "15.8", bucket: 0, expected: .osUpdateRequired),
        Case(app: "4.0", os: "15.8", bucket: 99, expected: .osUpdateRequired),
        Case(app: "5.2", os: "16.0-beta.2", bucket: 0, expected: .osUpdateRequired),
        Case(app: "5.3.0", os: "16", bucket: 0, expected: .ok),
        Case(app: "5.3.0", os: nil, bucket: 0, expected: .ok),
        // Below the minimum, or blocked.
        Case(app: "4.9.9", os: "17.4", bucket: 0, expected: .updateRequired),
        Case(app: "5.0.0-rc.1", os: "17.4", bucket: 0, expected: .updateRequired),
        Case(app: "5.1.2", os: "17.4", bucket: 99, expected: .updateRequired),
        Case(app: "5.1.2+build.7", os: "17.4", bucket: nil, expected: .updateRequired),
        Case(app: "5.1.3", os: "17.4", bucket: 99, expected: .ok),
        // Below the latest: offered inside the rollout (buckets 0–39 of 40 %) only.
        Case(app: "5.0", os: "17.4", bucket: 0, expected: .updateAvailable),
        Case(app: "5.2.9", os: "17.4", bucket: 39, expected: .updateAvailable),
        Case(app: "5.2.9", os: "17.4", bucket: 40, expected: .ok),
        Case(app: "5.2.9", os: "17.4", bucket: 99, expected: .ok),
        Case(app: "5.3.0-beta.1", os: "17.4", bucket: 10, expected: .updateAvailable),
        // Without an instance id, a partial rollout offers nothing.
        Case(app: "5.2.0", os: "17.4", bucket: nil, expected: .ok),
        // At or above the latest.
        Case(app: "5.3", os: "17.4", bucket: 0, expected: .ok),
        Case(app: "5.10.0", os: "17.4", bucket: 0, expected: .ok),
        Case(app: "6.0.0-alpha", os: "17.4", bucket: 0, expected: .ok),
    ]

    @Test("each state", arguments: cases)
    func decides(_ test: Case) {
        let state = AppStatus.decide(
            policy: policy,
            appVersion: v(test.app),
            osVersion: test.os.map(v),
            bucket: test.bucket
        )
        #expect(state == test.expected)
    }

    @Test("rollout percentage: 0 offers nobody, 100 everybody (with or without an instance id)")
    func rolloutBounds() {
        var none = policy
        none.rolloutPercentage = 0
        var all = policy
        all.rolloutPercentage = 100
        for bucket in [0, 50, 99] {
            #expect(AppStatus.decide(policy: none, appVersion: v("5.2"), osVersion: nil, bucket: bucket) == .ok)
            #expect(
                AppStatus.decide(policy: all, appVersion: v("5.2"), osVersion: nil, bucket: bucket) == .updateAvailable
            )
        }
        #expect(AppStatus.decide(policy: all, appVersion: v("5.2"), osVersion: nil, bucket: nil) == .updateAvailable)
        #expect(AppStatus.decide(policy: none, appVersion: v("5.2"), osVersion: nil, bucket: nil) == .ok)
    }

    @Test("no policy: every app is ok")
    func noPolicy() {
        #expect(AppStatus.decide(policy: nil, appVersion: v("0.1"), osVersion: v("1"), bucket: 0) == .ok)
    }

    @Test("each state names its Workday template, and back")
    func templates() {
        #expect(AppStatus.updateRequired.templateID == "appUpdateRequired")
        #expect(AppStatus.updateAvailable.templateID == "optionalUpdateAvailable")
        #expect(AppStatus.osUpdateRequired.templateID == "osUpdateRequired")
        #expect(AppStatus.ok.templateID == nil)
        #expect(AppStatus(templateID: "appUpdateRequired") == .updateRequired)
        #expect(AppStatus(templateID: "connectionRefused") == nil)
    }
}

@Suite("RolloutBucket: stable, spread, monotone")
struct RolloutBucketTests {
    @Test("FNV-1a 64 matches its published test vectors")
    func vectors() {
        #expect(RolloutBucket.fnv1a([]) == 0xcbf2_9ce4_8422_2325)
        #expect(RolloutBucket.fnv1a(Array("a".utf8)) == 0xaf63_dc4c_8601_ec8c)
        #expect(RolloutBucket.fnv1a(Array("foobar".utf8)) == 0x8594_4171_f739_67e8)
    }

    @Test("the same instance gets the same bucket every time; buckets are 0–99")
    func stable() {
        let latest = v("5.3.0")
        let first = RolloutBucket.of(instanceID: "c0ffee-42", latestVersion: latest)
        for _ in 0..<10 { #expect(RolloutBucket.of(instanceID: "c0ffee-42", latestVersion: latest) == first) }
        #expect((0..<100).contains(first))
        // Build metadata does not move an instance.
        #expect(RolloutBucket.of(instanceID: "c0ffee-42", latestVersion: v("5.3.0+77")) == first)
    }

    @Test("10,000 instances spread over the buckets; a 30 % rollout offers about 30 %")
    func spread() {
        var counts = [Int](repeating: 0, count: 100)
        let latest = v("5.3.0")
        for index in 0..<10_000 {
            counts[RolloutBucket.of(instanceID: "device-\(index)", latestVersion: latest)] += 1
        }
        #expect(counts.min()! > 50)
        #expect(counts.max()! < 160)
        let offered = counts[0..<30].reduce(0, +)
        #expect((2700...3300).contains(offered))
    }

    @Test("raising the percentage only adds instances")
    func monotone() {
        var rollout = policy
        let latest = policy.latestVersion
        var offered: Set<Int> = []
        for percentage in stride(from: 0, through: 100, by: 10) {
            rollout.rolloutPercentage = percentage
            var now: Set<Int> = []
            for index in 0..<500 {
                let bucket = RolloutBucket.of(instanceID: "i\(index)", latestVersion: latest)
                if AppStatus.decide(policy: rollout, appVersion: v("5.2"), osVersion: nil, bucket: bucket)
                    == .updateAvailable
                {
                    now.insert(index)
                }
            }
            #expect(offered.isSubset(of: now))
            offered = now
        }
        #expect(offered.count == 500)
    }
}

@Suite("AppPolicy.parse: the rules ops are held to")
struct AppPolicyParseTests {
    private func parse(_ text: String, platform: Platform? = .ios) throws -> Result<AppPolicy, TemplateValidationError>
    {
        AppPolicy.parse(try JSONParser.parse(Array(text.utf8)), expectedPlatform: platform)
    }

    private func pointers(_ text: String) throws -> [String] {
        guard case .failure(let error) = try parse(text) else { return [] }
        return error.issues.map(\.pointer)
    }

    @Test("a full policy parses, and its document parses back to it")
    func roundTrip() throws {
        let text = """
            {"platform":"ios","minimumVersion":"5.0","latestVersion":"5.3.0","minimumOSVersion":"16",
             "blockedVersions":["5.1.2"],"storeUrl":"https://apps.apple.com/app/id1","rolloutPercentage":25,
             "askAgainAfterSeconds":3600}
            """
        let policy = try parse(text).get()
        #expect(policy.minimumVersion == v("5.0.0"))
        #expect(policy.rolloutPercentage == 25)
        #expect(try AppPolicy.parse(policy.document, expectedPlatform: .ios).get() == policy)
    }

    @Test("defaults: no OS floor, nothing blocked, 100 %, a day")
    func defaults() throws {
        let policy = try parse(#"{"minimumVersion":"1","latestVersion":"2","storeUrl":"https://x.example"}"#).get()
        #expect(policy.platform == .ios)
        #expect(policy.minimumOSVersion == nil)
        #expect(policy.blockedVersions.isEmpty)
        #expect(policy.rolloutPercentage == 100)
        #expect(policy.askAgainAfterSeconds == 86_400)
    }

    @Test("every broken rule is named by its JSON pointer")
    func rules() throws {
        #expect(
            try pointers(#"{"minimumVersion":"5.4","latestVersion":"5.3","storeUrl":"https://x.example"}"#)
                == ["/minimumVersion"]
        )
        #expect(
            try pointers(#"{"minimumVersion":"5.x","latestVersion":"1.10","storeUrl":"http://x.example"}"#)
                == ["/minimumVersion", "/storeUrl"]
        )
        #expect(
            try pointers(
                #"{"platform":"android","minimumVersion":"1","latestVersion":"2","storeUrl":"https://x","blockedVersions":["1.5","01.5","1.5.0"],"rolloutPercentage":101,"askAgainAfterSeconds":-1,"extra":1}"#
            ) == [
                "/extra", "/platform", "/blockedVersions/1", "/blockedVersions/2", "/rolloutPercentage",
                "/askAgainAfterSeconds",
            ]
        )
        #expect(try pointers("{}") == ["/minimumVersion", "/latestVersion", "/storeUrl"])
        #expect(try pointers(#"{"minimumVersion":"1","latestVersion":"2","storeUrl":"https://a b"}"#) == ["/storeUrl"])
    }

    @Test("changed fields name the members that differ")
    func diff() throws {
        let before = try parse(#"{"minimumVersion":"1","latestVersion":"2","storeUrl":"https://x.example"}"#).get()
        var after = before
        after.latestVersion = v("2.1")
        after.minimumOSVersion = v("14")
        #expect(AppPolicy.changedFields(from: nil, to: after) == ["/"])
        #expect(AppPolicy.changedFields(from: before, to: after) == ["/latestVersion", "/minimumOSVersion"])
    }
}

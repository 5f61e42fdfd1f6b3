import EmptyStateCore
import JSONCoding
import Testing

/// Targeting and QA overrides (issue 35): their document rules, each broken once with the
/// pointer it is reported at; who a target admits; where an install is placed (override, then
/// target, then hash); and what may change while the experiment runs.
@Suite struct ExperimentTargetingTests {
    static let targeted = ExperimentParserTests.valid
        .setting(
            "/targeting",
            to: Documents.document(
                #"{"platforms": ["ios", "android"], "locales": ["en"], "appVersion": {"min": "5.2", "max": "6.0.0"}, "newInstalls": true}"#
            )
        )
        .setting("/overrides", to: Documents.document(#"[{"installId": "qa-pixel-7", "variant": "reconnect"}]"#))

    @Test func targetAndOverridesRoundTrip() throws {
        let experiment = try ExperimentParser.parse(Self.targeted, expectedID: "retry-wording").get()
        #expect(experiment.targeting.platforms == [.ios, .android])
        #expect(experiment.targeting.locales == ["en"])
        #expect(experiment.targeting.minimumAppVersion == AppVersion("5.2.0"))
        #expect(experiment.targeting.maximumAppVersion == AppVersion("6.0.0"))
        #expect(experiment.targeting.newInstallsOnly)
        #expect(experiment.overrides == [ExperimentOverride(installID: "qa-pixel-7", variant: "reconnect")])
        #expect(ExperimentParser.validate(experiment, against: ExperimentParserTests.template).isEmpty)
        #expect(try ExperimentParser.parse(experiment.document).get() == experiment)
        // Without either, the document has neither member.
        let plain = try ExperimentParser.parse(ExperimentParserTests.valid).get()
        #expect(plain.targeting.isEmpty && plain.overrides.isEmpty)
        #expect(plain.document["targeting"] == nil && plain.document["overrides"] == nil)
    }

    @Test(arguments: [
        ("/targeting", JSONValue.string("ios"), "/targeting"),
        ("/targeting/platforms/1", .string("windows"), "/targeting/platforms/1"),
        ("/targeting/platforms/1", .string("ios"), "/targeting/platforms/1"),
        ("/targeting/platforms", .array([]), "/targeting/platforms"),
        ("/targeting/locales", .string("en"), "/targeting/locales"),
        ("/targeting/locales/0", .number(1), "/targeting/locales/0"),
        ("/targeting/appVersion/min", .string("6.1"), "/targeting/appVersion/min"),
        ("/targeting/appVersion/max", .string("six"), "/targeting/appVersion/max"),
        ("/targeting/appVersion", .object([]), "/targeting/appVersion"),
        ("/targeting/appVersion/latest", .string("7"), "/targeting/appVersion/latest"),
        ("/targeting/newInstalls", .string("yes"), "/targeting/newInstalls"),
        ("/targeting/country", .string("fr"), "/targeting/country"),
        ("/overrides", .object([]), "/overrides"),
        ("/overrides/0/variant", .string("c"), "/overrides/0/variant"),
        ("/overrides/0/installId", .string("with space"), "/overrides/0/installId"),
        ("/overrides/0/note", .string("x"), "/overrides/0/note"),
        (
            "/overrides",
            .array([
                .object([("installId", .string("qa-pixel-7")), ("variant", .string("reconnect"))]),
                .object([("installId", .string("qa-pixel-7")), ("variant", .string("control"))]),
            ]),
            "/overrides/1/installId"
        ),
    ])
    func documentRules(pointer: String, value: JSONValue, reportedAt: String) {
        let result = ExperimentParser.parse(Self.targeted.setting(pointer, to: value), expectedID: "retry-wording")
        guard case .failure(let failure) = result else {
            Issue.record("\(pointer) = \(value) was accepted")
            return
        }
        #expect(failure.issues.map(\.pointer) == [reportedAt], "\(failure.issues)")
    }

    @Test func aLocaleTheTemplateLacksIsRefusedAtItsIndex() throws {
        let document = Self.targeted.setting("/targeting/locales", to: .array([.string("en"), .string("de")]))
        let experiment = try ExperimentParser.parse(document).get()
        let issues = ExperimentParser.validate(experiment, against: ExperimentParserTests.template)
        #expect(issues.map(\.pointer) == ["/targeting/locales/1"])
        #expect(issues.first?.rule.contains("the template has no locale de") == true)
    }

    @Test func aTargetAdmitsOnlyWhatItNames() {
        let start: Int64 = 1_800_000_000_000
        let target = ExperimentTargeting(
            platforms: [.ios],
            locales: ["pt-BR"],
            minimumAppVersion: AppVersion("5.2.0"),
            maximumAppVersion: AppVersion("6.0.0"),
            newInstallsOnly: true
        )
        let inside = ExperimentTargeting.Attributes(
            platform: .ios,
            locale: "pt-br",
            appVersion: AppVersion("5.10.1"),
            installedAt: start
        )
        #expect(target.admits(inside, startedAt: start))
        var other = inside
        other.platform = .android
        #expect(!target.admits(other, startedAt: start))
        other = inside
        other.locale = "pt"
        #expect(!target.admits(other, startedAt: start))
        other = inside
        other.appVersion = AppVersion("6.0.1")
        #expect(!target.admits(other, startedAt: start))
        other.appVersion = AppVersion("6.0.0-beta.1")  // below 6.0.0: admitted
        #expect(target.admits(other, startedAt: start))
        other.appVersion = AppVersion("5.1.9")
        #expect(!target.admits(other, startedAt: start))
        other.appVersion = nil  // no version sent: outside a range
        #expect(!target.admits(other, startedAt: start))
        other = inside
        other.installedAt = start - 1
        #expect(!target.admits(other, startedAt: start))
        #expect(target.admits(other, startedAt: start, checkingNewInstall: false))
        other.installedAt = nil
        #expect(!target.admits(other, startedAt: start))
        #expect(!target.admits(inside, startedAt: nil), "before the start no install is new")
        #expect(ExperimentTargeting().admits(.init(), startedAt: nil), "an empty target admits everyone")
    }

    @Test func anOverrideWinsOverTheTargetAndTheHash() throws {
        var experiment = try ExperimentParser.parse(ExperimentParserTests.valid).get()
        experiment.coverage = 1
        experiment.targeting = ExperimentTargeting(platforms: [.ios])
        let ids = (0..<500).map { "install-\($0)" }
        let inControl = try #require(ids.first { experiment.variant(for: $0)?.key == "control" })
        experiment.overrides = [ExperimentOverride(installID: inControl, variant: "reconnect")]
        let web = ExperimentTargeting.Attributes(platform: .web)
        let ios = ExperimentTargeting.Attributes(platform: .ios)
        #expect(experiment.place(inControl, attributes: web, startedAt: nil) == .overridden(experiment.variants[1]))
        let other = try #require(ids.first { $0 != inControl })
        #expect(experiment.place(other, attributes: web, startedAt: nil) == .outsideTarget)
        #expect(experiment.place(other, attributes: ios, startedAt: nil) == .assigned(experiment.variant(for: other)!))
        experiment.coverage = 0.5
        let uncovered = try #require(ids.first { experiment.variant(for: $0) == nil })
        #expect(experiment.place(uncovered, attributes: ios, startedAt: nil) == .notCovered)
    }

    @Test func whileRunningTheTargetIsFrozenAndOverridesAreNot() throws {
        let draft = try ExperimentParser.parse(Self.targeted).get()
        var running = draft
        running.status = .running
        let started = try ExperimentLifecycle.apply(running, over: draft, now: "2026-12-01T10:00:00Z")

        var widened = started
        widened.targeting.platforms.append(.web)
        do {
            _ = try ExperimentLifecycle.apply(widened, over: started, now: "later")
            Issue.record("a running experiment's target changed")
        } catch {
            #expect(error.slug == "split-frozen")
            #expect(error.issues.map(\.pointer) == ["/targeting"])
        }

        var moreTesters = started
        moreTesters.overrides.append(ExperimentOverride(installID: "qa-iphone", variant: "control"))
        moreTesters.overrides.removeFirst()
        let edited = try ExperimentLifecycle.apply(moreTesters, over: started, now: "later")
        #expect(edited.overrides == [ExperimentOverride(installID: "qa-iphone", variant: "control")])
        // Nobody else moves: every other install keeps its variant.
        for index in 0..<1_000 {
            let id = "install-\(index)"
            #expect(edited.variant(for: id) == started.variant(for: id))
        }
    }
}

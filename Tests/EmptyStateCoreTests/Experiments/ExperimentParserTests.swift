import EmptyStateCore
import JSONCoding
import Testing

/// The experiment document's rules, each broken once, with the pointer it is reported at; then
/// the lifecycle (transitions, the frozen split).
@Suite struct ExperimentParserTests {
    static let valid = Documents.document(
        #"""
        {
          "id": "retry-wording",
          "templateId": "sample",
          "status": "draft",
          "coverage": 0.8,
          "primaryMetric": { "type": "tap", "action": "retry" },
          "variants": [
            { "key": "control", "weight": 0.5 },
            { "key": "reconnect", "weight": 0.5,
              "strings": { "en": { "actions.retry": "Reconnect", "title": "No connection" },
                           "fr": { "actions.retry": "Se reconnecter" } } }
          ]
        }
        """#
    )

    static let template = Documents.template(Documents.sample)!

    static func issues(_ document: JSONValue) -> [ValidationIssue] {
        switch ExperimentParser.parse(document) {
        case .failure(let failure): return failure.issues
        case .success(let experiment): return ExperimentParser.validate(experiment, against: template)
        }
    }

    @Test func validDocumentRoundTrips() throws {
        let experiment = try ExperimentParser.parse(Self.valid, expectedID: "retry-wording").get()
        #expect(experiment.variants.count == 2 && experiment.coverage == 0.8)
        #expect(experiment.metric == .tap(action: "retry"))
        #expect(ExperimentParser.validate(experiment, against: Self.template).isEmpty)
        #expect(try ExperimentParser.parse(experiment.document).get() == experiment)
        let shown = try #require(experiment.apply(experiment.variants[1], to: Self.template))
        #expect(shown.strings(for: "en")?["actions.retry"] == "Reconnect")
        #expect(shown.strings(for: "en")?["message"] == Self.template.strings(for: "en")?["message"])
        #expect(experiment.apply(experiment.variants[0], to: Self.template) == Self.template)
    }

    @Test(arguments: [
        ("/variants/1/weight", JSONValue.number(0.7), "/variants"),
        ("/variants/0/strings", .object([("en", .object([("title", .string("x"))]))]), "/variants/0"),
        ("/variants/1/key", .string("control"), "/variants/1/key"),
        ("/variants/1/key", .string("Bad Key"), "/variants/1/key"),
        ("/coverage", .number(0), "/coverage"),
        ("/status", .string("paused"), "/status"),
        ("/primaryMetric/type", .string("clicks"), "/primaryMetric/type"),
        ("/id", .string("other"), "/id"),
        ("/extra", .bool(true), "/extra"),
    ])
    func documentRules(pointer: String, value: JSONValue, reportedAt: String) {
        let result = ExperimentParser.parse(Self.valid.setting(pointer, to: value), expectedID: "retry-wording")
        guard case .failure(let failure) = result else {
            Issue.record("accepted \(pointer) = \(value)")
            return
        }
        #expect(failure.issues.map(\.pointer).contains(reportedAt), "\(failure.issues)")
    }

    @Test func variantCountIsTwoToFive() {
        let one = Self.valid.setting(
            "/variants",
            to: .array([.object([("key", .string("control")), ("weight", .number(1))])])
        )
        #expect(Self.issues(one).map(\.pointer) == ["/variants"])
    }

    @Test func variantsPassTheCopyRulesInEveryLocaleTheyOverride() {
        let long = String(repeating: "Très long titre ", count: 6)
        let tooLong = Self.valid.setting("/variants/1/strings/fr/title", to: .string(long))
        #expect(Self.issues(tooLong).map(\.pointer) == ["/variants/1/strings/fr/title"])
        let vague = Self.valid.setting("/variants/1/strings/en/actions.retry", to: .string("OK"))
        #expect(Self.issues(vague).map(\.pointer) == ["/variants/1/strings/en/actions.retry"])
        let placeholder = Self.valid.setting("/variants/1/strings/fr/message", to: .string("Vérifiez {provder}."))
        #expect(Self.issues(placeholder).map(\.pointer) == ["/variants/1/strings/fr/message"])
        let unknownLocale = Self.valid.setting("/variants/1/strings/de", to: .object([("title", .string("Offline"))]))
        #expect(Self.issues(unknownLocale).map(\.pointer) == ["/variants/1/strings/de"])
        let unknownKey = Self.valid.setting("/variants/1/strings/en/actions.help", to: .string("Get help"))
        #expect(Self.issues(unknownKey).map(\.pointer) == ["/variants/1/strings/en/actions.help"])
        let metric = Self.valid.setting("/primaryMetric/action", to: .string("help"))
        #expect(Self.issues(metric).map(\.pointer) == ["/primaryMetric/action"])
        let visual = Self.valid.setting(
            "/variants/1/visual",
            to: .object([("illustration", .object([("asset", .string("no_signal"))]))])
        )
        #expect(Self.issues(visual).isEmpty)
        let badVisual = Self.valid.setting("/variants/1/visual", to: .object([("photo", .string("x"))]))
        #expect(Self.issues(badVisual).contains { $0.pointer.hasPrefix("/variants/1/visual") })
    }

    @Test func lifecycleStampsAndRefuses() throws {
        let draft = try ExperimentParser.parse(Self.valid).get()
        var running = draft
        running.status = .running
        let started = try ExperimentLifecycle.apply(running, over: draft, now: "2026-12-01T10:00:00.000Z")
        #expect(started.startedAt == "2026-12-01T10:00:00.000Z" && started.stoppedAt == nil)
        var reweighted = started
        reweighted.variants[0].weight = 0.4
        reweighted.variants[1].weight = 0.6
        #expect(throws: ExperimentLifecycle.Refusal.self) {
            try ExperimentLifecycle.apply(reweighted, over: started, now: "later")
        }
        do {
            _ = try ExperimentLifecycle.apply(reweighted, over: started, now: "later")
        } catch {
            #expect(error.slug == "split-frozen")
            #expect(error.issues.map(\.pointer) == ["/variants/0/weight", "/variants/1/weight"])
        }
        var wider = started
        wider.coverage = 1
        #expect(try ExperimentLifecycle.apply(wider, over: started, now: "later").startedAt == started.startedAt)
        var stopped = started
        stopped.status = .stopped
        let ended = try ExperimentLifecycle.apply(stopped, over: started, now: "2026-12-02T10:00:00.000Z")
        #expect(ended.stoppedAt == "2026-12-02T10:00:00.000Z" && ended.startedAt == started.startedAt)
        var restarted = ended
        restarted.status = .running
        #expect(throws: ExperimentLifecycle.Refusal.self) {
            try ExperimentLifecycle.apply(restarted, over: ended, now: "x")
        }
        #expect(throws: ExperimentLifecycle.Refusal.self) {
            try ExperimentLifecycle.apply(running, over: nil, now: "x")
        }
        var draftWithStamp = draft
        draftWithStamp.startedAt = "forged"
        #expect(try ExperimentLifecycle.apply(draftWithStamp, over: nil, now: "x").startedAt == nil)
    }
}

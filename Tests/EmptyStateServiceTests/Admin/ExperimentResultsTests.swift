import EmptyStateCore
import EmptyStateStore
import Foundation
import HTTPServer
import JSONCoding
import Testing

@testable import EmptyStateService

/// The results endpoint on the statistics engine (issue 35): the sequential verdict and its words,
/// the plan and its progress, results over time and their CSV, the clean window, and the planning
/// calculator.
@Suite("Experiments: sequential results, plan, results over time, planning calculator")
struct ExperimentResultsTests {
    static let plan = #"{"baselineRate":0.1,"minimumDetectableEffect":{"relative":0.5}}"#

    /// `retry-copy` (control, b) with `plan`, created as a draft and, when `running`, started.
    private func create(_ fixture: ShipFixture, plan: String? = plan, running: Bool = true) throws {
        let document = { (status: String) in
            """
            {"id":"retry-copy","templateId":"connectionRefused","status":"\(status)","coverage":1,
             "primaryMetric":{"type":"tap","action":"retry"},\(plan.map { "\"plan\":\($0)," } ?? "")
             "variants":[{"key":"control","weight":0.5},
                         {"key":"b","weight":0.5,"strings":{"en":{"title":"Connection lost"}}}]}
            """
        }
        let created = fixture.send(
            .put,
            "/v1/admin/experiments/retry-copy",
            headers: [ShipFixture.editor, ("If-None-Match", "*")],
            json: document("draft")
        )
        try #require(created.status == 201, "\(created.bodyText)")
        guard running else { return }
        let started = fixture.send(
            .put,
            "/v1/admin/experiments/retry-copy",
            headers: [ShipFixture.editor, ("If-Match", #""r1""#)],
            json: document("running")
        )
        try #require(started.status == 200, "\(started.bodyText)")
    }

    /// `installs` installs of `key` of which `converting` tap retry, each displayed once, now.
    private func traffic(_ fixture: ShipFixture, _ key: String, installs: Int, converting: Int) throws {
        var batch: [AnalyticsEvent] = []
        for index in 0..<installs {
            batch.append(fixture.event("\(key)-\(index)", key))
            if index < converting { batch.append(fixture.event("\(key)-\(index)", key, tap: "retry")) }
        }
        _ = try fixture.events.append(batch, quarantined: [])
    }

    private func results(_ fixture: ShipFixture) throws -> JSONValue {
        let response = fixture.send(.get, "/v1/admin/experiments/retry-copy/results", headers: [ShipFixture.viewer])
        try #require(response.status == 200, "\(response.bodyText)")
        return try response.json()
    }

    @Test("a clear effect: the sequential verdict is winner, with the plan, the progress and the words")
    func sequentialWinnerWithPlan() throws {
        let fixture = try ShipFixture()
        try create(fixture)
        try traffic(fixture, "control", installs: 1000, converting: 100)
        try traffic(fixture, "b", installs: 1000, converting: 200)
        let body = try results(fixture)
        #expect(body["verdict"] == "winner")
        #expect(body["winner"] == "b")
        let b = try #require(body["variants"]?.arrayValue?.last)
        #expect(b["sequential"]?["significant"] == .bool(true))
        #expect((b["sequential"]?["lower"]?.numberValue ?? 0) > 0)
        #expect((b["sequential"]?["pValue"]?.numberValue ?? 1) < 0.05)
        let words = try #require(body["verdictText"]?.stringValue)
        #expect(words.contains("b"), "\(words)")
        // The plan as stored, and the planner's answer for it (the same as the calculator's).
        let sized = try ExperimentPlan.make(.init(baselineRate: 0.1, minimumDetectableEffect: .relative(0.5)))
        let plan = try #require(body["plan"])
        #expect(plan["baselineRate"] == .number(0.1))
        #expect(plan["minimumDetectableEffect"] == .object([("relative", .number(0.5))]))
        #expect(plan["sequentialInstalls"] == .array(sized.sequentialInstalls.map { .number(Double($0)) }))
        #expect(plan["fixedHorizonInstalls"] == .array(sized.fixedHorizonInstalls.map { .number(Double($0)) }))
        // No displays in the last 28 whole days: no duration can be promised.
        #expect(plan["expectedDuration"]?["dailyInstalls"] == .number(0))
        #expect(plan["expectedDuration"]?["days"] == nil)
        let progress = try #require(body["progress"])
        #expect(progress["installs"] == 2000)
        #expect(progress["plannedInstalls"] == .number(Double(sized.sequentialTotal)))
    }

    @Test("results over time: one point per day, the CSV export of the same figures")
    func csvExport() throws {
        let fixture = try ShipFixture()
        try create(fixture)
        try traffic(fixture, "control", installs: 120, converting: 12)
        try traffic(fixture, "b", installs: 130, converting: 26)
        let response = fixture.send(
            .get,
            "/v1/admin/experiments/retry-copy/results/export",
            headers: [ShipFixture.viewer]
        )
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/csv; charset=utf-8")
        #expect(response.header("Content-Disposition") == #"attachment; filename="retry-copy-results.csv""#)
        let lines = response.bodyText.split(whereSeparator: \.isNewline).map(String.init)
        #expect(lines.first?.hasPrefix("date,variant,installs,conversions,rate,") == true, "\(lines.first ?? "")")
        #expect(lines.count == 3)
        let today = String(Timestamp.format(milliseconds: Timestamp.nowMilliseconds()).prefix(10))
        #expect(lines[1].hasPrefix("\(today),control,120,12,"), "\(lines[1])")
        #expect(lines[2].hasPrefix("\(today),b,130,26,"), "\(lines[2])")
        let unknown = fixture.send(.get, "/v1/admin/experiments/nope/results/export", headers: [ShipFixture.viewer])
        #expect(unknown.status == 404)
        let anonymous = fixture.send(.get, "/v1/admin/experiments/retry-copy/results/export")
        #expect(anonymous.status == 401)
    }

    @Test("the clean window: a draft counts nothing, installs seen before the start are excluded, a stop stops")
    func cleanWindow() throws {
        let fixture = try ShipFixture()
        try create(fixture, running: false)
        try traffic(fixture, "control", installs: 3, converting: 1)
        let draft = try results(fixture)
        #expect(draft["verdict"] == "collecting")
        #expect(draft["variants"]?.arrayValue?.map { $0["installs"] } == [0, 0])
        #expect(draft["excluded"]?["beforeStart"] == 3)
        #expect(draft["excludedInstalls"] == 3)
        // The start is stamped in whole seconds (and counts from the start of its second).
        Thread.sleep(forTimeInterval: 1.1)

        // Started: the draft's installs stay out, even when they come back.
        let started = fixture.send(
            .put,
            "/v1/admin/experiments/retry-copy",
            headers: [ShipFixture.editor, ("If-Match", #""r1""#)],
            json: """
                {"id":"retry-copy","templateId":"connectionRefused","status":"running","coverage":1,
                 "primaryMetric":{"type":"tap","action":"retry"},"plan":\(Self.plan),
                 "variants":[{"key":"control","weight":0.5},
                             {"key":"b","weight":0.5,"strings":{"en":{"title":"Connection lost"}}}]}
                """
        )
        try #require(started.status == 200, "\(started.bodyText)")
        try traffic(fixture, "control", installs: 3, converting: 1)
        try traffic(fixture, "b", installs: 2, converting: 0)
        var batch = [fixture.event("control-0", "control", tap: "retry")]
        batch.append(fixture.event("b-9", "~b"))  // a variant the ingest found not assigned
        _ = try fixture.events.append(batch, quarantined: [])
        let running = try results(fixture)
        #expect(running["variants"]?.arrayValue?.map { $0["installs"] } == [0, 2])
        #expect(running["excluded"]?["beforeStart"] == 3)
        #expect(running["excluded"]?["notAssigned"] == 1)

        let stopped = fixture.send(
            .put,
            "/v1/admin/experiments/retry-copy",
            headers: [ShipFixture.editor, ("If-Match", #""r2""#)],
            json: """
                {"id":"retry-copy","templateId":"connectionRefused","status":"stopped","coverage":1,
                 "primaryMetric":{"type":"tap","action":"retry"},"plan":\(Self.plan),
                 "variants":[{"key":"control","weight":0.5},
                             {"key":"b","weight":0.5,"strings":{"en":{"title":"Connection lost"}}}]}
                """
        )
        try #require(stopped.status == 200, "\(stopped.bodyText)")
        Thread.sleep(forTimeInterval: 1.1)
        // After the stop: new installs and b's late conversions do not count.
        _ = try fixture.events.append(
            [fixture.event("late", "b"), fixture.event("b-0", "b", tap: "retry")],
            quarantined: []
        )
        let after = try results(fixture)
        #expect(after["variants"]?.arrayValue?.map { $0["installs"] } == [0, 2])
        #expect(after["variants"]?.arrayValue?.map { $0["conversions"] } == [0, 0])
        #expect(after["excluded"]?["afterStop"] == 1)
        #expect(after["verdict"] == "collecting")
    }

    @Test("the plan is checked with the variants' weights, and frozen once the experiment has run")
    func planRules() throws {
        let fixture = try ShipFixture()
        let bad = fixture.send(
            .put,
            "/v1/admin/experiments/retry-copy",
            headers: [ShipFixture.editor, ("If-None-Match", "*")],
            json: """
                {"id":"retry-copy","templateId":"connectionRefused","status":"draft",
                 "plan":{"baselineRate":1.5,"minimumDetectableEffect":{"sideways":1},"power":"high"},
                 "variants":[{"key":"control","weight":0.5},
                             {"key":"b","weight":0.5,"strings":{"en":{"title":"Connection lost"}}}]}
                """
        )
        #expect(bad.status == 422)
        let pointers = try #require(bad.json()["errors"]?.arrayValue).compactMap { $0["pointer"]?.stringValue }
        #expect(pointers.sorted() == ["/plan/minimumDetectableEffect", "/plan/power"])

        let outOfRange = fixture.send(
            .put,
            "/v1/admin/experiments/retry-copy",
            headers: [ShipFixture.editor, ("If-None-Match", "*")],
            json: """
                {"id":"retry-copy","templateId":"connectionRefused","status":"draft",
                 "plan":{"baselineRate":1.5,"minimumDetectableEffect":{"relative":0.1}},
                 "variants":[{"key":"control","weight":0.5},
                             {"key":"b","weight":0.5,"strings":{"en":{"title":"Connection lost"}}}]}
                """
        )
        #expect(outOfRange.status == 422)
        #expect(try outOfRange.json()["errors"]?.arrayValue?.first?["pointer"] == "/plan/baselineRate")

        try create(fixture)
        let stored = fixture.send(.get, "/v1/admin/experiments/retry-copy", headers: [ShipFixture.viewer])
        #expect(
            try stored.json()["experiment"]?["plan"]
                == .object([
                    ("alpha", .number(0.05)), ("baselineRate", .number(0.1)),
                    ("minimumDetectableEffect", .object([("relative", .number(0.5))])), ("power", .number(0.8)),
                ]),
            "\(stored.bodyText)"
        )
        let replanned = fixture.send(
            .put,
            "/v1/admin/experiments/retry-copy",
            headers: [ShipFixture.editor, ("If-Match", #""r2""#)],
            json: """
                {"id":"retry-copy","templateId":"connectionRefused","status":"running","coverage":1,
                 "primaryMetric":{"type":"tap","action":"retry"},
                 "plan":{"baselineRate":0.1,"minimumDetectableEffect":{"relative":0.2}},
                 "variants":[{"key":"control","weight":0.5},
                             {"key":"b","weight":0.5,"strings":{"en":{"title":"Connection lost"}}}]}
                """
        )
        #expect(replanned.status == 409, "\(replanned.bodyText)")
        #expect(try replanned.json()["errors"]?.arrayValue?.first?["pointer"] == "/plan")
    }

    @Test("the planning calculator: installs for an effect, the effect for installs, every bad input named")
    func calculator() throws {
        let fixture = try ShipFixture()
        func plan(_ json: String) -> HTTPResponse {
            fixture.send(.post, "/v1/admin/experiment-plan", headers: [ShipFixture.viewer], json: json)
        }
        // The note's figure: 10 % → 11 %, α 0.05, power 0.8 → about 14,750 installs per arm.
        let sized = plan(#"{"baselineRate":0.1,"minimumDetectableEffect":{"relative":0.1}}"#)
        #expect(sized.status == 200, "\(sized.bodyText)")
        let answer = try sized.json()
        #expect(answer["fixedHorizonInstalls"] == .array([14751, 14751]))
        let sequential = try #require(answer["sequentialInstalls"]?.arrayValue?.first?.numberValue)
        #expect(sequential > 14751 * 1.5 && sequential < 14751 * 2.5, "the price of looking every day: \(sequential)")
        #expect(answer["weights"] == .array([.number(0.5), .number(0.5)]))
        #expect(answer["expectedDuration"] == nil)

        // The inverse: what 29,502 installs find with one look is the 1-point rise asked above.
        let inverse = try plan(#"{"baselineRate":0.1,"totalInstalls":29502}"#).json()
        let effect = try #require(inverse["fixedHorizonEffect"]?.numberValue)
        #expect(abs(effect - 0.01) < 0.0001, "\(effect)")
        #expect((inverse["sequentialEffect"]?.numberValue ?? 0) > effect)

        // With a template: the duration at its recent displays (none here: no promise).
        let withTemplate = try plan(
            #"{"baselineRate":0.1,"minimumDetectableEffect":{"absolute":0.01},"templateId":"connectionRefused","coverage":0.5}"#
        ).json()
        #expect(withTemplate["expectedDuration"]?["basis"] == "displays")
        #expect(withTemplate["expectedDuration"]?["days"] == nil)

        let invalid = plan(
            #"{"baselineRate":0,"minimumDetectableEffect":{"relative":0.1},"totalInstalls":5,"colour":1}"#
        )
        #expect(invalid.status == 422)
        let pointers = try #require(invalid.json()["errors"]?.arrayValue).compactMap { $0["pointer"]?.stringValue }
        #expect(pointers.sorted() == ["", "/colour"])
        let ranges = plan(
            #"{"baselineRate":0,"minimumDetectableEffect":{"relative":0.1},"alpha":0.9,"weights":[0.5,0.3]}"#
        )
        #expect(ranges.status == 422)
        let rangePointers = try #require(ranges.json()["errors"]?.arrayValue).compactMap { $0["pointer"]?.stringValue }
        #expect(rangePointers.sorted() == ["/alpha", "/baselineRate", "/weights"])
        let unknownTemplate = plan(#"{"baselineRate":0.1,"totalInstalls":100,"templateId":"nope"}"#)
        #expect(unknownTemplate.status == 422)
        #expect(try unknownTemplate.json()["errors"]?.arrayValue?.first?["pointer"] == "/templateId")
        #expect(fixture.send(.post, "/v1/admin/experiment-plan", json: "{}").status == 401)
    }

    @Test("cumulative days: one per UTC day of the window, counts after the window's end on its last day")
    func cumulativeDays() {
        let day = ExperimentDailyCounts.dayMilliseconds
        let start = 20_000 * day + 5 * 3_600_000
        let counts = ExperimentDailyCounts(
            days: [
                .init(variant: "control", day: 20_000, installs: 10, conversions: 1),
                .init(variant: "b", day: 20_000, installs: 12, conversions: 0),
                .init(variant: "b", day: 20_002, installs: 3, conversions: 4),
                .init(variant: "b", day: 20_009, installs: 1, conversions: 0),  // a clock ahead
                .init(variant: "gone", day: 20_001, installs: 7, conversions: 7),  // not a variant
            ],
            excluded: .init()
        )
        let days = AdminAPI.cumulativeDays(
            counts,
            variants: ["control", "b"],
            from: start,
            to: start + 2 * day,
            now: start + 2 * day
        )
        #expect(days.map(\.date) == ["2024-10-04", "2024-10-05", "2024-10-06"])
        #expect(days.map { $0.arms.map(\.installs) } == [[10, 12], [10, 12], [10, 16]])
        #expect(days.map { $0.arms.map(\.conversions) } == [[1, 0], [1, 0], [1, 4]])
        #expect(days.map(\.complete) == [true, true, false])
    }

    @Test("a guardrail: b doubles the back taps, so it is harmed, and the verdict warns even on a winner")
    func guardrailHarmed() throws {
        let fixture = try ShipFixture()
        let document = { (status: String, guardrails: String) in
            """
            {"id":"retry-copy","templateId":"connectionRefused","status":"\(status)","coverage":1,
             "primaryMetric":{"type":"tap","action":"retry"},"guardrails":\(guardrails),
             "variants":[{"key":"control","weight":0.5},
                         {"key":"b","weight":0.5,"strings":{"en":{"title":"Connection lost"}}}]}
            """
        }
        func put(_ json: String, _ headers: [(name: String, value: String)]) -> HTTPResponse {
            fixture.send(.put, "/v1/admin/experiments/retry-copy", headers: [ShipFixture.editor] + headers, json: json)
        }
        let pointers = { (response: HTTPResponse) throws -> [String] in
            try #require(response.json()["errors"]?.arrayValue).compactMap { $0["pointer"]?.stringValue }
        }
        // The rules: the template's actions, not the metric's, no repeats, a known harm and margin.
        let unknown = put(document("draft", #"[{"action":"nope"}]"#), [("If-None-Match", "*")])
        #expect(unknown.status == 422)
        #expect(try pointers(unknown) == ["/guardrails/0/action"])
        let broken = put(
            document(
                "draft",
                #"[{"action":"retry"},{"action":"back","harm":"sideways","margin":{"relative":-1}},{"action":"back"}]"#
            ),
            [("If-None-Match", "*")]
        )
        #expect(broken.status == 422)
        #expect(
            try pointers(broken).sorted() == [
                "/guardrails/0/action", "/guardrails/1/harm", "/guardrails/1/margin", "/guardrails/2/action",
            ]
        )
        try #require(put(document("draft", #"[{"action":"back"}]"#), [("If-None-Match", "*")]).status == 201)
        try #require(put(document("running", #"[{"action":"back"}]"#), [("If-Match", #""r1""#)]).status == 200)
        let frozen = put(document("running", "[]"), [("If-Match", #""r2""#)])
        #expect(frozen.status == 409)
        #expect(try pointers(frozen) == ["/guardrails"])

        // 1,000 installs a variant: b converts twice as often (a winner) and taps back at 30 % against 15 %.
        var batch: [AnalyticsEvent] = []
        for key in ["control", "b"] {
            for index in 0..<1000 {
                let install = "\(key)-\(index)"
                batch.append(fixture.event(install, key))
                if index < (key == "b" ? 200 : 100) { batch.append(fixture.event(install, key, tap: "retry")) }
                if index % 100 < (key == "b" ? 30 : 15) { batch.append(fixture.event(install, key, tap: "back")) }
            }
        }
        _ = try fixture.events.append(batch, quarantined: [])
        let body = try results(fixture)
        #expect(body["verdict"] == "winner")
        #expect(body["winner"] == "b")
        let guardrail = try #require(body["guardrails"]?.arrayValue?.first)
        #expect(guardrail["key"] == "back")
        #expect(guardrail["harm"] == "increase")
        #expect(guardrail["state"] == "harmed")
        let b = try #require(guardrail["variants"]?.arrayValue?.first)
        #expect(b["variant"] == "b")
        #expect(b["rate"] == .number(0.3))
        #expect(b["controlRate"] == .number(0.15))
        #expect((b["lowerBound"]?.numberValue ?? 0) > 0)
        let warning = try #require(body["warnings"]?.arrayValue?.first)
        #expect(warning["kind"] == "guardrail-harmed")
        #expect(warning["guardrail"] == "back")
        #expect(body["verdictText"]?.stringValue?.contains("back") == true, "\(body["verdictText"] ?? nil)")
        // The CSV has the guardrail's columns.
        let csv = fixture.send(.get, "/v1/admin/experiments/retry-copy/results/export", headers: [ShipFixture.viewer])
        #expect(csv.bodyText.hasPrefix("date,variant,") && csv.bodyText.contains("guardrail_back_state"))
    }
}

import EmptyStateCore
import EmptyStateStore
import Foundation
import HTTPServer
import JSONCoding
import Logging
import Testing

@testable import EmptyStateService

@Suite("EventIngest: experiment fields")
struct EventIngestExperimentTests {
    @Test("experimentId, variant and installId are stored as <experimentId>/<variant> and the install id")
    func stored() throws {
        try IngestHarness.with { (harness: IngestHarness) throws in
            let response = harness.post(batch: [
                IngestJSON.event([
                    "experimentId": "retry-copy", "variant": "b", "installId": "9F1C2B7E-0000-4000-8000-000000000001",
                ]),
                IngestJSON.event(["installId": "install-without-experiment"]),
                IngestJSON.event(),
            ])
            #expect(response.bodyText == #"{"accepted":3,"duplicates":0,"rejected":[]}"#)
            let stored = try harness.stored()
            #expect(stored.count == 3)
            #expect(
                stored.contains {
                    $0.variant == "retry-copy/b" && $0.installID == "9F1C2B7E-0000-4000-8000-000000000001"
                }
            )
            #expect(stored.contains { $0.variant == nil && $0.installID == "install-without-experiment" })
            #expect(stored.contains { $0.variant == nil && $0.installID == nil })
        }
    }

    @Test(
        "malformed or incomplete experiment fields are rejected with the member's pointer",
        arguments: [
            (["experimentId": "retry-copy", "installId": "i-1"], "/variant: is required with experimentId"),
            (["variant": "b", "installId": "i-1"], "/experimentId: is required with variant"),
            (["experimentId": "retry-copy", "variant": "b"], "/installId: is required with experimentId and variant"),
            (
                ["experimentId": "Retry Copy", "variant": "b", "installId": "i-1"],
                "/experimentId: must be an experiment id: 1 to 64 of a-z, 0-9, - and _"
            ),
            (
                ["experimentId": "retry-copy", "variant": "a/b", "installId": "i-1"],
                "/variant: must be a variant key: 1 to 32 of a-z, 0-9, - and _"
            ),
            (
                ["experimentId": "retry-copy", "variant": "b", "installId": "with space"],
                "/installId: must be 1 to 128 printable ASCII characters (no spaces)"
            ),
            (
                ["experimentId": "retry-copy", "variant": 2, "installId": "i-1"],
                "/variant: expected a string, found a number"
            ),
        ] as [([String: JSONValue], String)]
    )
    func rejected(fields: [String: JSONValue], reason: String) throws {
        try IngestHarness.with { (harness: IngestHarness) throws in
            let response = harness.post(batch: [IngestJSON.event(fields.mapValues { $0 })])
            #expect(response.status == 202)
            #expect(response.bodyText.contains("\"reason\":\"/events/0\(reason)\""), "\(response.bodyText)")
        }
    }

    @Test("an event of a running experiment must name its template and one of its variants")
    func checkedAgainstRunning() throws {
        let harness = try IngestHarness()
        defer { harness.store.stop() }
        let ingest = EventIngest(
            state: try ExperimentFixture.state(),
            store: harness.store,
            retentionMilliseconds: 90 * IngestHarness.day,
            logger: Logger(label: "test"),
            onOutcome: nil
        )
        let snapshot = ingest.state.snapshot
        func reason(_ fields: [String: JSONValue?]) -> String? {
            let event = IngestJSON.event(fields.merging(["installId": "i-1"]) { old, _ in old })
            switch ingest.validate(event, snapshot: snapshot, receivedAt: Timestamp.nowMilliseconds(), requestID: "r") {
            case .success: return nil
            case .failure(let rejection): return rejection.pointer + ": " + rejection.message
            }
        }
        #expect(reason(["experimentId": "retry-copy", "variant": "b"]) == nil)
        #expect(
            reason(["experimentId": "retry-copy", "variant": "c"])
                == "/variant: experiment retry-copy has no variant \"c\""
        )
        #expect(
            reason(["experimentId": "retry-copy", "variant": "b", "templateId": "loading"])
                == "/experimentId: experiment retry-copy runs on template connectionRefused"
        )
        // An experiment not running here (stopped, or unknown): its events are kept as sent.
        #expect(reason(["experimentId": "old-test", "variant": "x"]) == nil)
    }

    @Test("a variant the install is not assigned is stored as ~<key>: counted as excluded, not in the variant")
    func notAssignedVariant() throws {
        let harness = try IngestHarness()
        defer { harness.store.stop() }
        let state = try ExperimentFixture.state(ExperimentFixture.experiment(coverage: 0.5))
        let ingest = EventIngest(
            state: state,
            store: harness.store,
            retentionMilliseconds: 90 * IngestHarness.day,
            logger: Logger(label: "test"),
            onOutcome: nil
        )
        let experiment = try #require(state.snapshot.runningExperiment(id: "retry-copy"))
        // Installs of each kind, found by the same deterministic hashing the service serves with.
        let ids = (0..<200).map { "install-\($0)" }
        let inB = try #require(ids.first { experiment.variant(for: $0)?.key == "b" })
        let inControl = try #require(ids.first { experiment.variant(for: $0)?.key == "control" })
        let outside = try #require(ids.first { experiment.variant(for: $0) == nil })
        func stored(_ install: String, _ variant: String) throws -> String? {
            let event = IngestJSON.event([
                "experimentId": "retry-copy", "variant": .string(variant), "installId": .string(install),
            ])
            switch ingest.validate(
                event,
                snapshot: state.snapshot,
                receivedAt: Timestamp.nowMilliseconds(),
                requestID: "r"
            ) {
            case .success(let accepted): return accepted.variant
            case .failure(let rejection): throw rejection
            }
        }
        #expect(try stored(inB, "b") == "retry-copy/b")
        #expect(try stored(inControl, "control") == "retry-copy/control")
        // Forged (control's install says b), or outside the coverage (served control, no experiment).
        #expect(try stored(inControl, "b") == "retry-copy/~b")
        #expect(try stored(outside, "control") == "retry-copy/~control")
        #expect(try stored(outside, "b") == "retry-copy/~b")
    }
}

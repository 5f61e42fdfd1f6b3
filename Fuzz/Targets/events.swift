// libFuzzer target: analytics event validation (`EventIngest.validate`, the pure part of
// `POST /v1/events`) over the built-in catalogue, and the RFC 3339 timestamps it reads.
//
// The input is a JSON body: one event, or `{"events": [...]}`. Each event is validated at a fixed
// receipt time, so a run is reproducible. Invariants for an accepted event:
// - its id is a lowercased UUID; its template is in the catalogue under that canonical id;
// - its locale is a canonical BCP 47 tag; its platform is ios, android or web;
// - it names a revision (≥ 1) or an etag; an actionTapped names an action of its template,
//   a displayed one none;
// - its corrected time lies within the retention period and the future tolerance, and the skew
//   is what `sentAt` says (0 without it).
// For a refused event: the pointer is "" or one of the event's members, and there is a message.
// Every `occurredAt` and `sentAt` that parses survives format → parse unchanged.

import EmptyStateCore
@testable import EmptyStateService
import EmptyStateSQLite
import EmptyStateStore
import JSONCoding
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Receipt time of every event: a fixed instant, shortly after the corpus's events happened.
private let receivedAt = Timestamp.parse("2026-11-22T06:00:00.000Z")!
private let retentionMilliseconds: Int64 = 90 * 86_400_000
private let members: Set<String> = [
    "id", "type", "templateId", "revision", "etag", "locale", "platform", "appVersion", "sessionId", "actionId",
    "occurredAt", "sentAt",
]
/// Timestamps between these format as four-digit years, so they must survive format → parse.
private let formattable = Timestamp.parse("0001-01-02T00:00:00Z")!...Timestamp.parse("9999-12-30T00:00:00Z")!

/// The built-in catalogue (`EMPTY_STATE_TEMPLATES`, default `config/templates` under the
/// working directory) and an ingest over an event store that is never started: `validate`
/// does not touch the store.
private let fixture: (ingest: EventIngest, snapshot: CatalogueSnapshot) = {
    let directory = getenv("EMPTY_STATE_TEMPLATES").map { String(cString: $0) } ?? "config/templates"
    let catalogue: Catalogue
    do {
        catalogue = try CatalogueLoader.load(directory: directory)
    } catch {
        fatalError("cannot load the templates in \(directory) (run from the package root): \(error)")
    }
    let snapshot = CatalogueSnapshot(catalogue: catalogue)
    var scratch = Array("/tmp/fuzz-events-XXXXXX".utf8CString)
    guard let made = mkdtemp(&scratch) else { fatalError("mkdtemp failed") }
    let path = String(cString: made) + "/events.sqlite"
    var logger = Logger(label: "fuzz-events")
    logger.logLevel = .critical
    let store: SQLiteEventStore
    do {
        store = try SQLiteEventStore(path: path, logger: logger)
    } catch {
        fatalError("cannot open an event store at \(path): \(error)")
    }
    let ingest = EventIngest(
        state: CatalogueState(snapshot),
        store: store,
        retentionMilliseconds: retentionMilliseconds,
        logger: logger,
        onOutcome: nil
    )
    return (ingest, snapshot)
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let document = try? JSONParser.parse(Array(UnsafeBufferPointer(start: data, count: size))) else {
        return 0
    }
    let items: [JSONValue]
    if case .array(let list)? = document["events"] {
        items = list
    } else {
        items = [document]
    }
    for item in items {
        check(item)
    }
    return 0
}

private func check(_ item: JSONValue) {
    for key in ["occurredAt", "sentAt"] {
        guard case .string(let text)? = item[key], let parsed = Timestamp.parse(text), formattable.contains(parsed)
        else { continue }
        let formatted = Timestamp.format(milliseconds: parsed)
        precondition(Timestamp.parse(formatted) == parsed, "\(text) → \(parsed) → \(formatted) changed")
    }
    let text = EventIngest.text(item)
    precondition(EventIngest.encodedSize(item) == text.utf8.count, "encodedSize disagrees with the text")

    let (ingest, snapshot) = fixture
    switch ingest.validate(item, snapshot: snapshot, receivedAt: receivedAt, requestID: "fuzz") {
    case .failure(let rejection):
        precondition(!rejection.message.isEmpty, "a rejection without a message")
        precondition(
            rejection.pointer.isEmpty || members.contains(String(rejection.pointer.utf8.dropFirst())!),
            "rejection names \(rejection.pointer), not a member"
        )
    case .success(let event):
        precondition(EventIngest.isUUID(event.id) && event.id == event.id.lowercased(), "id \(event.id)")
        guard let entry = snapshot.entry(named: event.templateID) else {
            fatalError("accepted an event of an unknown template \(event.templateID)")
        }
        precondition(entry.template.id == event.templateID, "stored an alias, not the template's id")
        precondition(LocaleTag(event.locale)?.description == event.locale, "locale \(event.locale) not canonical")
        precondition(Platform(rawValue: event.platform) != nil, "platform \(event.platform)")
        precondition(event.revision.map { $0 >= 1 } ?? (event.etag != nil), "neither a revision nor an etag")
        switch event.kind {
        case .displayed:
            precondition(event.actionID == nil, "a displayed event with an action")
        case .actionTapped:
            precondition(
                entry.template.actions.contains { $0.id == event.actionID },
                "action \(event.actionID ?? "nil") is not one of \(event.templateID)"
            )
        }
        precondition(
            event.occurredAt <= receivedAt + EventIngest.futureToleranceMilliseconds
                && event.occurredAt >= receivedAt - retentionMilliseconds,
            "occurredAt \(event.occurredAt) outside the accepted window"
        )
        var expectedSkew: Int64 = 0
        if case .string(let sent)? = item["sentAt"], let sentAt = Timestamp.parse(sent) {
            expectedSkew = receivedAt - sentAt
        }
        precondition(event.clockSkewMilliseconds == expectedSkew, "skew \(event.clockSkewMilliseconds)")
        precondition(event.receivedAt == receivedAt && event.requestID == "fuzz", "receipt fields changed")
    }
}

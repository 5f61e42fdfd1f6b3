import EmptyStateCore
import EmptyStateStore
import HTTPServer
import JSONCoding
import Logging

/// `POST /v1/events`: apps report what users saw (`displayed`) and tapped (`actionTapped`).
/// Valid events are stored durably before the 202; invalid ones are quarantined with the reason.
struct EventIngest: Sendable {
    static let maximumEvents = 500
    static let maximumBodyBytes = 512 * 1024
    static let maximumEventBytes = 32 * 1024
    /// How far after receipt a (skew-corrected) `occurredAt` may be before it counts as the future.
    static let futureToleranceMilliseconds: Int64 = 5 * 60 * 1000

    let state: CatalogueState
    let store: any EventStoring
    /// Events older than this many milliseconds are refused: retention would prune them anyway.
    let retentionMilliseconds: Int64
    let logger: Logger
    /// Told how many events were accepted, duplicates and rejected (for metrics).
    let onOutcome: (@Sendable (_ accepted: Int, _ duplicates: Int, _ rejected: Int) -> Void)?

    func post(_ request: HTTPRequest) -> HTTPResponse {
        let receivedAt = Timestamp.nowMilliseconds()
        if request.body.count > Self.maximumBodyBytes {
            return tooLarge(
                "The body is \(request.body.count) bytes; the limit is \(Self.maximumBodyBytes) bytes.",
                request
            )
        }
        let document: JSONValue
        do {
            document = try request.jsonBody(
                acceptsJSONSuffix: false,
                mediaTypeDetail: "Send events as application/json."
            )
        } catch {
            return error.response(requestID: request.id)
        }
        let items: [JSONValue]
        let batched: Bool
        switch document {
        case .object where document["events"] != nil:
            guard case .array(let list)? = document["events"] else {
                return badRequest("events must be an array of events", pointer: "/events", request)
            }
            items = list
            batched = true
        case .object:
            items = [document]
            batched = false
        default:
            return badRequest("the body must be an event object or {\"events\": [...]}", pointer: "", request)
        }
        if items.count > Self.maximumEvents {
            return tooLarge("\(items.count) events; at most \(Self.maximumEvents) per request.", request)
        }
        // Only a body over the per-event limit can hold an event over it.
        if request.body.count > Self.maximumEventBytes {
            for (index, item) in items.enumerated() where Self.encodedSize(item) > Self.maximumEventBytes {
                return tooLarge(
                    "Event \(index) is over the limit of \(Self.maximumEventBytes) bytes per event.",
                    request,
                    pointer: batched ? "/events/\(index)" : ""
                )
            }
        }

        // A device previewing a change request sees copy no user sees: its events would count
        // exposures and actions of copy that is not live. Each is refused (not quarantined:
        // it is not malformed), and the token is not even checked.
        if request.headers[PreviewChannel.header] != nil {
            onOutcome?(0, 0, items.count)
            return Self.accepted(
                0,
                duplicates: 0,
                rejected: items.indices.map {
                    ($0, "sent with \(PreviewChannel.header): preview traffic is not counted")
                }
            )
        }
        let snapshot = state.snapshot
        var valid: [(index: Int, event: AnalyticsEvent)] = []
        var rejected: [(index: Int, reason: String)] = []
        var quarantined: [QuarantinedEvent] = []
        for (index, item) in items.enumerated() {
            switch validate(item, snapshot: snapshot, receivedAt: receivedAt, requestID: request.id) {
            case .success(let event): valid.append((index, event))
            case .failure(let reason):
                let pointer = batched ? "/events/\(index)" : ""
                let location = pointer + reason.pointer
                rejected.append((index, location.isEmpty ? reason.message : "\(location): \(reason.message)"))
                quarantined.append(
                    QuarantinedEvent(
                        payload: Self.text(item),
                        reason: reason.pointer + ": " + reason.message,
                        receivedAt: receivedAt,
                        requestID: request.id
                    )
                )
            }
        }
        let inserted: [Bool]
        do {
            inserted = try store.append(valid.map(\.event), quarantined: quarantined)
        } catch {
            logger.error("events not stored", metadata: ["request.id": "\(request.id)", "error": "\(error)"])
            // Whether or not the commit landed, the client does the same: it sends the batch
            // again, and events already stored count as duplicates (ids are unique). So both
            // outcomes are one 503; only its detail tells them apart.
            let detail =
                if case .outcomeUnknown = error {
                    "The database did not confirm the commit in time: the events may have been stored. Retry the same batch: events already stored count as duplicates."
                } else {
                    "The events could not be stored; nothing was acknowledged. Retry the same batch: duplicates are dropped."
                }
            return ProblemDetails(
                status: 503,
                slug: "store-unavailable",
                title: "Service Unavailable",
                detail: detail
            ).response(requestID: request.id, extraHeaders: [("Retry-After", "1")])
        }
        let accepted = inserted.filter { $0 }.count
        onOutcome?(accepted, inserted.count - accepted, rejected.count)
        if logger.logLevel <= .debug {
            for ((_, event), new) in zip(valid, inserted) where new {
                logSeedLine(event, snapshot: snapshot, requestID: request.id)
            }
        }

        return Self.accepted(accepted, duplicates: inserted.count - accepted, rejected: rejected)
    }

    /// The 202 of a post: how many events were stored, how many were already, and why each
    /// refused one was.
    static func accepted(_ accepted: Int, duplicates: Int, rejected: [(index: Int, reason: String)]) -> HTTPResponse {
        var writer = JSONWriter(capacity: 128 + rejected.count * 96)
        writer.beginObject()
        writer.key("accepted")
        writer.int(accepted)
        writer.key("duplicates")
        writer.int(duplicates)
        writer.key("rejected")
        writer.beginArray()
        for (index, reason) in rejected {
            writer.beginObject()
            writer.key("index")
            writer.int(index)
            writer.member("reason", reason)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return HTTPResponse(
            status: 202,
            headers: [("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "no-store")],
            body: .bytes(writer.bytes)
        )
    }

    /// Why one event was refused: the member (a pointer within the event) and the rule.
    struct Rejection: Error {
        var pointer: String
        var message: String
    }

    /// Checks one event against the catalogue it was shown from and corrects its clock skew.
    func validate(
        _ item: JSONValue,
        snapshot: CatalogueSnapshot,
        receivedAt: Int64,
        requestID: String
    )
        -> Result<AnalyticsEvent, Rejection>
    {
        func fail(_ pointer: String, _ message: String) -> Result<AnalyticsEvent, Rejection> {
            .failure(Rejection(pointer: pointer, message: message))
        }
        guard case .object = item else { return fail("", "an event must be an object") }
        func text(_ key: String, maximum: Int = 128) -> Result<String?, Rejection> {
            switch item[key] {
            case nil, .null?: return .success(nil)
            case .string(let value)?:
                // Characters are never more than UTF-8 bytes, which a string knows without
                // counting: most values are not counted character by character.
                if value.isEmpty || (value.utf8.count > maximum && value.count > maximum) {
                    return .failure(Rejection(pointer: "/" + key, message: "must be 1 to \(maximum) characters"))
                }
                // SQLite takes text as a C string: a NUL would store (and export) the value cut
                // short. Refused, never altered, with the other controls (which no id, version
                // or session holds).
                if let control = CopyRules.firstControlCharacter(in: value) {
                    return .failure(
                        Rejection(pointer: "/" + key, message: "must not contain control characters (found \(control))")
                    )
                }
                return .success(value)
            case let other?:
                return .failure(Rejection(pointer: "/" + key, message: "expected a string, found \(other.kindName)"))
            }
        }
        func required(_ key: String, maximum: Int = 128) -> Result<String, Rejection> {
            switch text(key, maximum: maximum) {
            case .success(let value?): return .success(value)
            case .success(nil): return .failure(Rejection(pointer: "/" + key, message: "is required"))
            case .failure(let rejection): return .failure(rejection)
            }
        }
        do {
            let id = try required("id").get()
            guard Self.isUUID(id) else { return fail("/id", "must be a UUID (8-4-4-4-12 hex digits)") }
            let typeText = try required("type").get()
            guard let kind = AnalyticsEvent.Kind(rawValue: typeText) else {
                return fail("/type", "must be displayed or actionTapped")
            }
            let name = try required("templateId").get()
            guard let entry = snapshot.entry(named: name) else {
                return fail("/templateId", "unknown template \"\(name)\"")
            }
            var revision: Int?
            switch item["revision"] {
            case nil, .null?: break
            case .number(let number)?:
                guard let value = Int(exactly: number), value >= 1 else {
                    return fail("/revision", "must be a positive integer")
                }
                revision = value
            case let other?: return fail("/revision", "expected a number, found \(other.kindName)")
            }
            let etag = try text("etag").get()
            if revision == nil, etag == nil {
                return fail("/revision", "revision or etag of what was shown is required")
            }
            let localeText = try required("locale", maximum: 64).get()
            guard let locale = LocaleTag(localeText) else {
                return fail("/locale", "not a well-formed BCP 47 language tag")
            }
            let platform = try required("platform").get()
            guard Platform(rawValue: platform) != nil else { return fail("/platform", "must be ios, android or web") }
            let appVersion = try required("appVersion", maximum: 64).get()
            let sessionID = try text("sessionId").get()
            let attributes = ExperimentTargeting.Attributes(
                platform: Platform(rawValue: platform),
                locale: locale.description,
                appVersion: AppVersion(appVersion)
            )
            let (variant, installID) = try experimentFields(
                item,
                template: entry.template.id,
                snapshot: snapshot,
                attributes: attributes
            ).get()
            let actionID = try text("actionId", maximum: 32).get()
            switch kind {
            case .actionTapped:
                guard let actionID else { return fail("/actionId", "is required for actionTapped") }
                guard entry.template.actions.contains(where: { $0.id == actionID }) else {
                    return fail("/actionId", "template \(entry.template.id) has no action \"\(actionID)\"")
                }
            case .displayed:
                if actionID != nil { return fail("/actionId", "displayed events have no actionId") }
            }
            let occurredText = try required("occurredAt", maximum: 40).get()
            guard let occurred = Timestamp.parse(occurredText) else {
                return fail("/occurredAt", "not an RFC 3339 date-time")
            }
            // The install's first launch, as the app keeps it (the `X-Installed-At` it sends with
            // template requests): kept with the install's exposure for the new-install segment.
            var installedAt: Int64?
            if let installedText = try text("installedAt", maximum: 40).get() {
                guard let installed = Timestamp.parse(installedText) else {
                    return fail("/installedAt", "not an RFC 3339 date-time")
                }
                installedAt = installed
            }
            var skew: Int64 = 0
            if let sentText = try text("sentAt", maximum: 40).get() {
                guard let sent = Timestamp.parse(sentText) else { return fail("/sentAt", "not an RFC 3339 date-time") }
                skew = receivedAt - sent
            }
            let corrected = occurred + skew
            if corrected > receivedAt + Self.futureToleranceMilliseconds {
                return fail("/occurredAt", "is in the future (after correcting for the device clock)")
            }
            if corrected < receivedAt - retentionMilliseconds {
                return fail("/occurredAt", "is older than the retention period")
            }
            return .success(
                AnalyticsEvent(
                    id: id.lowercased(),
                    kind: kind,
                    templateID: entry.template.id,
                    revision: revision,
                    etag: etag,
                    locale: locale.description,
                    platform: platform,
                    appVersion: appVersion,
                    actionID: actionID,
                    sessionID: sessionID,
                    occurredAt: corrected,
                    receivedAt: receivedAt,
                    clockSkewMilliseconds: skew,
                    requestID: requestID,
                    variant: variant?.eventVariant,
                    installID: installID,
                    installedAt: installedAt
                )
            )
        } catch {
            return .failure(error)
        }
    }

    /// An event's copy-experiment members: `experimentId` and `variant` (together: the variant
    /// the app was served, from the template's `experiment` member) and `installId` (required
    /// with them; the install the exposure and conversion count for).
    /// - Returns: the experiment and variant, stored as `<experimentId>/<variant>`, and the
    ///   install id.
    func experimentFields(
        _ item: JSONValue,
        template: String,
        snapshot: CatalogueSnapshot,
        attributes: ExperimentTargeting.Attributes = .init()
    ) -> Result<(ExperimentMark?, String?), Rejection> {
        func fail(_ pointer: String, _ message: String) -> Result<(ExperimentMark?, String?), Rejection> {
            .failure(Rejection(pointer: pointer, message: message))
        }
        func name(_ key: String, maximum: Int, what: String) -> Result<String?, Rejection> {
            switch item[key] {
            case nil, .null?: return .success(nil)
            case .string(let value)?:
                guard ExperimentParser.isName(value, maxLength: maximum) else {
                    return .failure(
                        Rejection(
                            pointer: "/" + key,
                            message: "must be \(what): 1 to \(maximum) of a-z, 0-9, - and _"
                        )
                    )
                }
                return .success(value)
            case let other?:
                return .failure(Rejection(pointer: "/" + key, message: "expected a string, found \(other.kindName)"))
            }
        }
        let experimentID: String?
        let variant: String?
        var installID: String?
        switch (
            name("experimentId", maximum: 64, what: "an experiment id"),
            name("variant", maximum: 32, what: "a variant key")
        ) {
        case (.failure(let rejection), _), (_, .failure(let rejection)): return .failure(rejection)
        case (.success(let id), .success(let key)):
            experimentID = id
            variant = key
        }
        switch item["installId"] {
        case nil, .null?: break
        case .string(let value)?:
            guard InstallID.isValid(value) else { return fail("/installId", "must be \(InstallID.rule)") }
            installID = value
        case let other?: return fail("/installId", "expected a string, found \(other.kindName)")
        }
        switch (experimentID, variant) {
        case (nil, nil): return .success((nil, installID))
        case (_?, nil): return fail("/variant", "is required with experimentId")
        case (nil, _?): return fail("/experimentId", "is required with variant")
        case (let experimentID?, var variant?):
            guard let installID else { return fail("/installId", "is required with experimentId and variant") }
            // A running experiment is checked against what it serves; a stopped one's late
            // events are kept as sent (the results still count them).
            if let running = snapshot.runningExperiment(id: experimentID) {
                if running.templateID != template {
                    return fail("/experimentId", "experiment \(experimentID) runs on template \(running.templateID)")
                }
                if !running.variants.contains(where: { $0.key == variant }) {
                    return fail("/variant", "experiment \(experimentID) has no variant \"\(variant)\"")
                }
                // The assignment is deterministic, so each event is placed again from what it
                // carries, and anything but an assigned install in the variant it reports is
                // stored under a prefix the results count as excluded (the event itself is
                // kept): `=<key>` a QA override (a tester's taps are not a user's), `!<key>` an
                // install outside the target (its platform, locale or app version; events carry
                // no install time, so the new-install condition is left to the serving side),
                // `~<key>` a variant the install is not assigned (a forged report, one outside
                // the coverage, a stale cache after the coverage shrank).
                switch running.place(
                    installID,
                    attributes: attributes,
                    startedAt: nil,
                    checkingNewInstall: false
                ) {
                case .overridden: variant = ExperimentDailyCounts.overridePrefix + variant
                case .outsideTarget: variant = ExperimentDailyCounts.outsideTargetPrefix + variant
                case .assigned(let assigned) where assigned.key == variant: break
                case .assigned, .notCovered: variant = ExperimentDailyCounts.notAssignedPrefix + variant
                }
            }
            return .success((ExperimentMark(experimentID: experimentID, variant: variant), installID))
        }
    }

    /// The seed's log lines, word for word, with the heading or label as the user saw it.
    private func logSeedLine(_ event: AnalyticsEvent, snapshot: CatalogueSnapshot, requestID: String) {
        guard let entry = snapshot.entry(named: event.templateID), let tag = LocaleTag(event.locale) else { return }
        let copy = TemplateRenderer.copy(of: entry.template, in: entry.locales.resolve(tag) ?? entry.locales.fallback)
        let metadata: Logger.Metadata = [
            "template.id": "\(event.templateID)", "event.locale": "\(event.locale)",
            "event.platform": "\(event.platform)",
            "request.id": "\(requestID)",
        ]
        switch event.kind {
        case .displayed:
            logger.debug("EmptyState: displayed \"\(copy.strings["title"] ?? "")\"", metadata: metadata)
        case .actionTapped:
            let label = copy.strings[Template.labelKey(event.actionID ?? "")] ?? event.actionID ?? ""
            logger.debug("EmptyState: action \"\(label)\" tapped", metadata: metadata)
        }
    }

    private func tooLarge(_ detail: String, _ request: HTTPRequest, pointer: String = "") -> HTTPResponse {
        ProblemDetails(
            status: 413,
            slug: "payload-too-large",
            title: "Content Too Large",
            detail: detail
                + " Limits: \(Self.maximumEvents) events, \(Self.maximumBodyBytes) bytes per request, \(Self.maximumEventBytes) bytes per event.",
            errors: [.init(.pointer(pointer), detail)]
        ).response(requestID: request.id)
    }

    private func badRequest(_ detail: String, pointer: String, _ request: HTTPRequest) -> HTTPResponse {
        ProblemDetails(
            status: 400,
            slug: "invalid-body",
            title: "Bad Request",
            detail: "The body is not a batch of events: \(detail).",
            errors: [.init(.pointer(pointer), detail)]
        ).response(requestID: request.id)
    }

    static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                if byte != UInt8(ascii: "-") { return false }
            } else if !((byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66)) {
                return false
            }
        }
        return true
    }

    static func encodedSize(_ value: JSONValue) -> Int {
        var writer = JSONWriter()
        writer.value(value)
        return writer.bytes.count
    }

    static func text(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.value(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

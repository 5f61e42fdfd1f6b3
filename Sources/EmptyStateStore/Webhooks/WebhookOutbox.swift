import JSONCoding

/// What both backends share of the outbox: the rows an event becomes (one per subscribed,
/// enabled webhook), the body each receiver is sent, the ids, and which due deliveries a claim
/// takes. A backend keeps only its SQL.
package enum WebhookOutbox {
    /// The type of a ping (`POST /v1/admin/webhooks/{id}/ping`): sent to one webhook, whatever it
    /// subscribed to; not an event of the catalogue.
    package static let testEventType = "webhook.test"

    /// The event types a webhook may subscribe to, in `CatalogueEvent.Kind` order.
    package static var eventTypes: [String] { CatalogueEvent.Kind.allCases.map(\.rawValue) }

    /// A delivery row to insert.
    package struct Row: Sendable, Equatable {
        package var id: String
        package var webhookID: String
        package var messageID: String
        package var eventType: String
        package var body: String
        /// ms; also its first attempt's due time.
        package var createdAt: Int64
        package var redeliveryOf: String?
        package var requestedBy: String?

        package init(
            id: String,
            webhookID: String,
            messageID: String,
            eventType: String,
            body: String,
            createdAt: Int64,
            redeliveryOf: String? = nil,
            requestedBy: String? = nil
        ) {
            self.id = id
            self.webhookID = webhookID
            self.messageID = messageID
            self.eventType = eventType
            self.body = body
            self.createdAt = createdAt
            self.redeliveryOf = redeliveryOf
            self.requestedBy = requestedBy
        }
    }

    /// The delivery side of a webhook, kept beside its document (`webhook_endpoint`): what the
    /// fan-out and the dispatcher read without parsing documents, and its secrets.
    package struct Endpoint: Sendable, Equatable {
        package var webhookID: String
        package var url: String
        package var events: [String]
        package var enabled: Bool

        package init(webhookID: String, url: String, events: [String], enabled: Bool) {
            self.webhookID = webhookID
            self.url = url
            self.events = events
            self.enabled = enabled
        }

        /// `events` as the column keeps it: a JSON array.
        package var eventsText: String { StoredDocuments.text(of: .array(events.map(JSONValue.string))) }

        /// The event types of an `events` column.
        package static func events(fromText text: String) -> [String] {
            guard case .array(let values)? = try? JSONParser.parse(Array(text.utf8)) else { return [] }
            return values.compactMap { if case .string(let name) = $0 { name } else { nil } }
        }
    }

    /// What a write does to a webhook's secrets.
    package enum SecretChange: Sendable, Equatable {
        /// Keep them as they are (a change of URL, events, description or state).
        case keep
        /// The first secret, at creation.
        case set(String)
        /// A new secret; the current one signs beside it until `previousUntil` (ms), or stops at
        /// once when `nil` (a secret that leaked).
        case rotate(String, previousUntil: Int64?)
    }

    /// The rows `events` become: one per event and webhook that is enabled and subscribed to its
    /// type, in event order. The deliveries of one event share its message id.
    package static func rows(for events: [CatalogueEvent], endpoints: [Endpoint], now: Int64) -> [Row] {
        var rows: [Row] = []
        for event in events {
            let receivers = endpoints.filter { $0.enabled && $0.events.contains(event.kind.rawValue) }
            guard !receivers.isEmpty else { continue }
            let messageID = newID("msg_")
            let body = body(of: event)
            for endpoint in receivers {
                rows.append(
                    Row(
                        id: newID("dlv_"),
                        webhookID: endpoint.webhookID,
                        messageID: messageID,
                        eventType: event.kind.rawValue,
                        body: body,
                        createdAt: now
                    )
                )
            }
        }
        return rows
    }

    /// The JSON a receiver is sent for `event` (the Standard Webhooks payload): `type`,
    /// `timestamp` (when it happened) and `data`, the event's payload with `actor` after its own
    /// members. Written once, so every attempt sends the same bytes.
    package static func body(of event: CatalogueEvent) -> String {
        var data: [(key: String, value: JSONValue)] = []
        if case .object(let members) = event.payload { data = members }
        if !data.contains(where: { $0.key == "actor" }) { data.append(("actor", .string(event.actor))) }
        return StoredDocuments.text(
            of: .object([
                ("type", .string(event.kind.rawValue)), ("timestamp", .string(event.occurredAt)),
                ("data", .object(data)),
            ])
        )
    }

    /// A ping's row: `webhook.test` with the webhook's id and who asked, sent to it alone.
    package static func ping(webhookID: String, actor: String, now: Int64) -> Row {
        let body = StoredDocuments.text(
            of: .object([
                ("type", .string(testEventType)), ("timestamp", .string(Timestamp.now())),
                ("data", .object([("webhookId", .string(webhookID)), ("actor", .string(actor))])),
            ])
        )
        return Row(
            id: newID("dlv_"),
            webhookID: webhookID,
            messageID: newID("msg_"),
            eventType: testEventType,
            body: body,
            createdAt: now,
            requestedBy: actor
        )
    }

    /// A new delivery of what `original` sent: the same message id, type and body.
    package static func redelivery(
        of original: (id: String, webhookID: String, messageID: String, eventType: String, body: String),
        actor: String,
        now: Int64
    ) -> Row {
        Row(
            id: newID("dlv_"),
            webhookID: original.webhookID,
            messageID: original.messageID,
            eventType: original.eventType,
            body: original.body,
            createdAt: now,
            redeliveryOf: original.id,
            requestedBy: actor
        )
    }

    /// `prefix` and 24 random hex digits (96 bits): a delivery's, a message's or a claim's id.
    package static func newID(_ prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var bytes = Array(prefix.utf8)
        for _ in 0..<24 { bytes.append(digits[Int.random(in: 0..<16, using: &generator)]) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A new webhook's id: `wh_` and 20 random hex digits.
    package static func newWebhookID() -> String { "wh_" + newID("").prefix(20) }

    /// Which of the due deliveries (oldest due first) a claim takes: at most `limit`, and of each
    /// webhook at most `perWebhook` less what it has in flight, so a receiver that is slow fills
    /// its own slots only and every other receiver's deliveries go on.
    package static func select(
        _ due: [(id: String, webhookID: String)],
        limit: Int,
        perWebhook: Int,
        inFlight: [String: Int]
    ) -> [String] {
        var taken: [String: Int] = [:]
        var selected: [String] = []
        for candidate in due where selected.count < limit {
            let used = (inFlight[candidate.webhookID] ?? 0) + (taken[candidate.webhookID] ?? 0)
            guard used < perWebhook else { continue }
            taken[candidate.webhookID, default: 0] += 1
            selected.append(candidate.id)
        }
        return selected
    }
}

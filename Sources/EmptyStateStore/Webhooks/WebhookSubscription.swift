import EmptyStateCore
import JSONCoding

/// What ops write to subscribe a receiver to the catalogue's events: the document of a webhook,
/// kept and versioned like an app policy (revisions, `If-Match`, the audit trail), without its
/// secret, which the store keeps apart and never shows again after it was given out.
///
/// ```json
/// {"url": "https://hooks.example.com/empty-states", "events": ["appPolicy.published"],
///  "description": "release bot", "enabled": true}
/// ```
/// The URL's rules (https, what it may resolve to) are the delivery's, checked by the admin API
/// with the operator's settings (`WebhookClient.WebhookURL`); here it is a string.
package struct WebhookSubscription: Sendable, Equatable {
    package var url: String
    /// Event types (`CatalogueEvent.Kind` raw values), without duplicates, in the order given.
    package var events: [String]
    package var description: String
    /// A disabled webhook is sent nothing: no new deliveries are queued for it, and its pending
    /// ones wait until it is enabled again.
    package var enabled: Bool

    package init(url: String, events: [String], description: String = "", enabled: Bool = true) {
        self.url = url
        self.events = events
        self.description = description
        self.enabled = enabled
    }

    /// Every rule a subscription document breaks.
    package struct Invalid: Error, Sendable, Equatable {
        package var issues: [ValidationIssue]
    }

    package static let knownKeys: Set<String> = ["url", "events", "description", "enabled"]
    /// The longest description, in characters.
    package static let maximumDescriptionLength = 500

    /// Reads a subscription document.
    /// - Parameter eventTypes: the event types one may subscribe to.
    /// - Returns: the subscription, or every rule the document breaks (a JSON pointer each).
    package static func parse(_ document: JSONValue, eventTypes: [String]) -> Result<WebhookSubscription, Invalid> {
        var issues: [ValidationIssue] = []
        func fail(_ pointer: String, _ rule: String) { issues.append(ValidationIssue(pointer, rule)) }
        guard case .object(let members) = document else {
            return .failure(.init(issues: [ValidationIssue("", "expected an object, found \(document.kindName)")]))
        }
        for (key, _) in members where !knownKeys.contains(key) {
            fail("/" + jsonPointerToken(key), "unknown member (one of \(knownKeys.sorted().joined(separator: ", ")))")
        }
        var url = ""
        switch document["url"] {
        case .string(let text)?: url = text
        case nil: fail("/url", "required: the receiver's https:// URL")
        case let other?: fail("/url", "expected a string, found \(other.kindName)")
        }
        var events: [String] = []
        switch document["events"] {
        case .array(let values)?:
            if values.isEmpty {
                fail("/events", "at least one event type (one of \(eventTypes.joined(separator: ", ")))")
            }
            for (index, value) in values.enumerated() {
                guard case .string(let name) = value else {
                    fail("/events/\(index)", "expected an event type, found \(value.kindName)")
                    continue
                }
                if !eventTypes.contains(name) {
                    fail(
                        "/events/\(index)",
                        "unknown event type \"\(name)\" (one of \(eventTypes.joined(separator: ", ")))"
                    )
                } else if events.contains(name) {
                    fail("/events/\(index)", "\"\(name)\" is listed twice")
                } else {
                    events.append(name)
                }
            }
        case nil: fail("/events", "required: the event types to receive (one of \(eventTypes.joined(separator: ", ")))")
        case let other?: fail("/events", "expected an array of event types, found \(other.kindName)")
        }
        var description = ""
        switch document["description"] {
        case .string(let text)?:
            if text.count > maximumDescriptionLength {
                fail("/description", "at most \(maximumDescriptionLength) characters")
            } else if text.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
                fail("/description", "must not contain control characters (it is shown in logs and lists)")
            }
            description = text
        case nil: break
        case let other?: fail("/description", "expected a string, found \(other.kindName)")
        }
        var enabled = true
        switch document["enabled"] {
        case .bool(let value)?: enabled = value
        case nil: break
        case let other?: fail("/enabled", "expected true or false, found \(other.kindName)")
        }
        guard issues.isEmpty else { return .failure(.init(issues: issues)) }
        return .success(WebhookSubscription(url: url, events: events, description: description, enabled: enabled))
    }

    /// The document as stored and shown: every member, defaults written out.
    package var document: JSONValue {
        .object([
            ("url", .string(url)), ("events", .array(events.map(JSONValue.string))),
            ("description", .string(description)), ("enabled", .bool(enabled)),
        ])
    }

    /// Whether it is sent events of `type`.
    package func receives(_ type: String) -> Bool { enabled && events.contains(type) }
}

import CLDRPlurals
import Foundation

// Mapping between the contract's generated types and the client's: the queued event as the
// contract's `Event`, a copy filled with its parameters, and each operation's status code for
// messages.

extension QueuedEvent {
    /// The contract's `Event`.
    func schema(sentAt: Date) -> Components.Schemas.Event {
        Components.Schemas.Event(
            id: id.uuidString.lowercased(),
            _type: type == "actionTapped" ? .actionTapped : .displayed,
            templateId: templateId,
            revision: revision,
            etag: etag,
            locale: locale,
            platform: Components.Schemas.Platform(rawValue: platform) ?? .web,
            appVersion: appVersion,
            actionId: actionId,
            sessionId: sessionId,
            experimentId: experimentId,
            variant: variant,
            installId: installId,
            installedAt: installedAt,
            occurredAt: occurredAt,
            sentAt: sentAt
        )
    }
}

extension EmptyStateTemplate {
    /// This copy with `{name}` placeholders filled from `parameters` (a bundled copy has none filled).
    func filled(with parameters: [String: String]) -> EmptyStateTemplate {
        guard !parameters.isEmpty else { return self }
        func fill(_ text: String) -> String {
            parameters.reduce(text) { $0.replacingOccurrences(of: "{\($1.key)}", with: $1.value) }
        }
        var copy = self
        // A plural's number among the parameters chooses its form first, as the service does.
        for variable in Set((plurals ?? [:]).values.map(\.variable)) {
            guard let value = parameters[variable] else { continue }
            let category = PluralRules.forLocale(locale).category(of: value) ?? .other
            copy = copy.choosing(category, variable: variable, shown: value)
        }
        copy.title = fill(copy.title)
        copy.message = copy.message.map(fill)
        copy.actions = copy.actions.map { action in
            var action = action
            action.label = fill(action.label)
            return action
        }
        copy.visual.label = copy.visual.label.map(fill)
        copy.placeholders = copy.placeholders.filter { parameters[$0] == nil }
        return copy
    }
}

extension Operations.ListTemplates.Output {
    var statusCode: Int {
        switch self {
        case .ok: 200
        case .notModified: 304
        case .badRequest: 400
        case .unauthorized: 401
        case .methodNotAllowed: 405
        case .conflict: 409
        case .internalServerError: 500
        case .serviceUnavailable: 503
        case .undocumented(let status, _): status
        }
    }
}

extension Operations.GetTemplate.Output {
    var statusCode: Int {
        switch self {
        case .ok: 200
        case .notModified: 304
        case .badRequest: 400
        case .unauthorized: 401
        case .notFound: 404
        case .methodNotAllowed: 405
        case .conflict: 409
        case .internalServerError: 500
        case .serviceUnavailable: 503
        case .undocumented(let status, _): status
        }
    }
}

extension Operations.PostEvents.Output {
    var statusCode: Int {
        switch self {
        case .accepted: 202
        case .badRequest: 400
        case .methodNotAllowed: 405
        case .contentTooLarge: 413
        case .unsupportedMediaType: 415
        case .serviceUnavailable: 503
        case .undocumented(let status, _): status
        }
    }
}

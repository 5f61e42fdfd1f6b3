import EmptyStateCore
import HTTPServer

/// What a client asked for, from the query and the negotiation headers.
struct ClientQuery {
    /// Longest value accepted for one `param.<name>`.
    static let maximumParameterLength = 200

    var platform: Platform
    /// Most wanted first; empty when the client expressed no preference.
    var preferences: [LanguagePreference]
    /// Whether `?locale=` chose the locale (then `Accept-Language` played no part).
    var localeFromQuery: Bool
    /// `param.<name>` values, empty ones left out.
    var parameters: [String: String]

    /// Whether a query argument is `param.<something>`; byte by byte, since this runs for every
    /// argument of every request and `hasPrefix` compares by `Character`.
    private static func isPlaceholderArgument(_ name: String) -> Bool {
        let prefix: StaticString = "param."
        let utf8 = name.utf8
        guard utf8.count >= prefix.utf8CodeUnitCount else { return false }
        var index = utf8.startIndex
        for offset in 0..<prefix.utf8CodeUnitCount {
            if utf8[index] != prefix.utf8Start[offset] { return false }
            index = utf8.index(after: index)
        }
        return true
    }

    /// Reads `locale`, `platform` and `param.*` from the query, and `Accept-Language` when there
    /// is no `locale`.
    /// - Returns: the query, or a 400 problem naming every bad parameter.
    /// - Parameter knownTags: pre-parsed spellings of the catalogue's locales (a fast path).
    static func parse(
        _ request: ClientAPI.Request,
        knownTags: [String: LocaleTag] = [:]
    ) -> Result<ClientQuery, ProblemDetails> {
        var errors: [ProblemDetails.FieldError] = []
        var platform = Platform.web
        if let text = request.queryValue("platform") {
            if let parsed = Platform(rawValue: text) {
                platform = parsed
            } else {
                errors.append(.init(.parameter("platform"), "must be one of ios, android, web"))
            }
        }
        var preferences: [LanguagePreference] = []
        var localeFromQuery = false
        if let text = request.queryValue("locale") {
            localeFromQuery = true
            if let tag = knownTags[text] ?? LocaleTag(text) {
                preferences = [LanguagePreference(tag: tag, quality: 1)]
            } else {
                errors.append(
                    .init(.parameter("locale"), "is not a well-formed BCP 47 language tag (e.g. fr, pt-BR, zh-Hant-TW)")
                )
            }
        } else if let header = request.header(.acceptLanguage) {
            preferences = LocaleNegotiation.parseAcceptLanguage(header)
        }
        var parameters: [String: String] = [:]
        for (name, value) in request.query where isPlaceholderArgument(name) {
            let placeholder = name.dropFirst("param.".count)
            if !CopyRules.isPlaceholderName(placeholder) {
                errors.append(
                    .init(
                        .parameter(name),
                        "a placeholder name is letters, digits and _, starting with a letter or _, at most 32 characters (e.g. param.provider)"
                    )
                )
            } else if value.count > maximumParameterLength {
                errors.append(.init(.parameter(name), "at most \(maximumParameterLength) characters"))
            } else if !value.isEmpty, parameters[String(placeholder)] == nil {
                // An empty value fills nothing ("with ." helps nobody): the placeholder stays
                // visible and listed, as when the argument is absent.
                parameters[String(placeholder)] = value
            }
        }
        guard errors.isEmpty else {
            return .failure(
                ProblemDetails.invalidParameters(
                    errors,
                    detail: errors.count == 1
                        ? "A query parameter is invalid." : "\(errors.count) query parameters are invalid."
                )
            )
        }
        return .success(
            ClientQuery(
                platform: platform,
                preferences: preferences,
                localeFromQuery: localeFromQuery,
                parameters: parameters
            )
        )
    }
}

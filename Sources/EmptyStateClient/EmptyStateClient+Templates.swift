import Foundation
import Logging

// Fetching and caching templates: the cache's freshness rules, the conditional GET, and the
// fall-backs to a stale copy or the bundled snapshot when the service cannot answer.

extension EmptyStateClient {
    /// The template `id` (or an alias) in the app's preferred locales and platform.
    ///
    /// - Parameters:
    ///   - id: the template's id or one of its aliases (`connectionRefused`).
    ///   - parameters: values for the copy's `{name}` placeholders (`["provider": "BankID"]`).
    /// - Returns: the freshest copy available without waiting when one is cached.
    /// - Throws: ``EmptyStateClientError``: the template does not exist, or nothing usable is
    ///   cached or bundled and the service cannot answer.
    public func template(_ id: String, parameters: [String: String] = [:]) async throws -> EmptyStateTemplate {
        if let token = configuration.previewToken {
            return try await preview(id, parameters: parameters, token: token)
        }
        let key = cacheKey(id, parameters)
        guard let entry = cache.entry(key) else {
            return try await fetch(id, parameters: parameters, key: key, cached: nil)
        }
        let age = entry.age(at: now())
        let maxAge = configuration.maxAge ?? entry.policy.maxAge
        if age < maxAge { return entry.template }
        if age < maxAge + entry.policy.staleWhileRevalidate {
            requestRevalidation(Revalidation(key: key, id: id, parameters: parameters))
            return entry.template
        }
        return try await fetch(id, parameters: parameters, key: key, cached: entry)
    }

    /// The template `id` as change request `previewToken` proposes it (the live copy when the
    /// request does not change it), fetched now and never cached; its ``EmptyStateTemplate/previewOf``
    /// names the request. For QA builds and screens that preview a change before it ships.
    ///
    /// - Throws: ``EmptyStateClientError``: the token is refused
    ///   (``EmptyStateClientError/isPreviewRefused``), the template does not exist, or the
    ///   service cannot answer (no cached or bundled copy stands in for a preview).
    public func template(
        _ id: String,
        parameters: [String: String] = [:],
        previewToken: String
    ) async throws -> EmptyStateTemplate {
        try await preview(id, parameters: parameters, token: previewToken)
    }

    /// Fetches the whole catalogue in the preferred locales (`GET /v1/templates`) into the cache
    /// and onto disk, so that every template is then answered without the network. It fetches
    /// live copy even with a ``EmptyStateClientConfiguration/previewToken``: the cache holds only
    /// live copy.
    /// - Returns: how many templates were cached.
    @discardableResult
    public func prefetch() async throws -> Int {
        let response: Operations.ListTemplates.Output
        do {
            response = try await api.listTemplates(
                query: .init(platform: platformParameter),
                headers: .init(
                    acceptLanguage: configuration.acceptLanguage,
                    xInstallID: configuration.installID,
                    xAppVersion: configuration.appVersionHeader,
                    xInstalledAt: configuration.installedAtHeader
                )
            )
        } catch {
            throw EmptyStateClientError.unavailable("\(error)")
        }
        guard case .ok(let ok) = response else {
            throw EmptyStateClientError.unavailable("GET /v1/templates answered \(response.statusCode)")
        }
        let bundle = try ok.body.applicationJsonCharsetUtf8
        let policy = CachePolicy(cacheControl: ok.headers.cacheControl)
        let received = now()
        var byID: [String: CachedTemplate] = [:]
        for template in bundle.templates {
            // The bundle's ETag is not a template's: these copies revalidate with a full GET.
            let entry = CachedTemplate(
                template: EmptyStateTemplate(template, etag: nil),
                etag: nil,
                receivedAt: received,
                policy: policy
            )
            byID[template.id] = entry
            cache.store(entry, for: cacheKey(template.id, [:]))
        }
        for (alias, id) in bundle.aliases.additionalProperties {
            if let entry = byID[id] { cache.store(entry, for: cacheKey(alias, [:])) }
        }
        return byID.count
    }

    /// `GET /v1/templates/{id}` with `X-Preview-Token`: neither read from nor written to the
    /// cache, and no fallback.
    private func preview(_ id: String, parameters: [String: String], token: String) async throws -> EmptyStateTemplate {
        let response: Operations.GetTemplate.Output
        do {
            response = try await api.getTemplate(
                path: .init(id: id),
                query: .init(platform: platformParameter, param: placeholderValues(parameters)),
                headers: .init(acceptLanguage: configuration.acceptLanguage, xPreviewToken: token)
            )
        } catch {
            throw EmptyStateClientError.unavailable("\(error)")
        }
        switch response {
        case .ok(let ok):
            var template = EmptyStateTemplate(try ok.body.applicationJsonCharsetUtf8, etag: ok.headers.eTag)
            template.previewOf = Self.changeRequest(previewHeader: ok.headers.xPreview)
            return template
        case .notFound:
            throw EmptyStateClientError.unknownTemplate(id)
        case .badRequest(let problem):
            throw EmptyStateClientError.invalidRequest(
                (try? problem.body.applicationProblemJson.detail) ?? "400 Bad Request"
            )
        case .unauthorized(let problem):
            throw EmptyStateClientError.previewRefused(
                (try? problem.body.applicationProblemJson.detail) ?? "401 Unauthorized"
            )
        default:
            throw EmptyStateClientError.unavailable(
                "GET /v1/templates/\(id) with a preview token answered \(response.statusCode)"
            )
        }
    }

    /// The change request number of an `X-Preview` header (`change-request=4; version=2`); 0
    /// when the header is missing or unreadable (the answer was still a preview).
    static func changeRequest(previewHeader: String?) -> Int {
        guard let header = previewHeader,
            let part = header.split(separator: ";").first?.split(separator: "=", maxSplits: 1),
            part.count == 2, part[0].trimmingCharacters(in: .whitespaces) == "change-request",
            let id = Int(part[1].trimmingCharacters(in: .whitespaces))
        else { return 0 }
        return id
    }

    /// The `param.*` query arguments of `parameters`; `nil` when there are none.
    private func placeholderValues(_ parameters: [String: String]) -> Components.Parameters.PlaceholderValues? {
        guard !parameters.isEmpty else { return nil }
        return .init(
            additionalProperties: Dictionary(uniqueKeysWithValues: parameters.map { ("param." + $0.key, $0.value) })
        )
    }

    private var platformParameter: Components.Parameters.Platform? {
        Components.Parameters.Platform(rawValue: configuration.platform)
    }

    private func cacheKey(_ id: String, _ parameters: [String: String]) -> String {
        guard !parameters.isEmpty else { return keyPrefix + id }
        return keyPrefix + id + "?"
            + parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
    }

    /// Asks the service for `id`, conditionally when a copy is cached, and falls back to the
    /// cached copy (within `stale-if-error`) or the bundled snapshot when it cannot answer.
    func fetch(
        _ id: String,
        parameters: [String: String],
        key: String,
        cached: CachedTemplate?
    ) async throws -> EmptyStateTemplate {
        let failure: String
        do {
            let response = try await api.getTemplate(
                path: .init(id: id),
                query: .init(
                    platform: platformParameter,
                    param: parameters.isEmpty
                        ? nil
                        : .init(
                            additionalProperties: Dictionary(
                                uniqueKeysWithValues: parameters.map { ("param." + $0.key, $0.value) }
                            )
                        )
                ),
                headers: .init(
                    acceptLanguage: configuration.acceptLanguage,
                    ifNoneMatch: cached?.etag,
                    xInstallID: configuration.installID,
                    xAppVersion: configuration.appVersionHeader,
                    xInstalledAt: configuration.installedAtHeader
                )
            )
            switch response {
            case .ok(let ok):
                let template = try ok.body.applicationJsonCharsetUtf8
                let entry = CachedTemplate(
                    template: EmptyStateTemplate(template, etag: ok.headers.eTag),
                    etag: ok.headers.eTag,
                    receivedAt: now(),
                    policy: CachePolicy(cacheControl: ok.headers.cacheControl)
                )
                cache.store(entry, for: key)
                return entry.template
            case .notModified(let notModified):
                guard var entry = cached else {
                    failure = "304 Not Modified without a cached copy"
                    break
                }
                entry.receivedAt = now()
                entry.policy = CachePolicy(cacheControl: notModified.headers.cacheControl)
                cache.store(entry, for: key)
                return entry.template
            case .notFound:
                cache.remove(key)
                throw EmptyStateClientError.unknownTemplate(id)
            case .badRequest(let problem):
                let detail = (try? problem.body.applicationProblemJson.detail) ?? "400 Bad Request"
                throw EmptyStateClientError.invalidRequest(detail)
            case .methodNotAllowed, .internalServerError, .unauthorized, .conflict, .serviceUnavailable, .undocumented:
                // 401, 409 and 503 answer only requests with a preview token, which this one has not.
                failure = "GET /v1/templates/\(id) answered \(response.statusCode)"
            }
        } catch let error as EmptyStateClientError {
            throw error
        } catch {
            failure = "\(error)"
        }
        if let cached,
            cached.age(at: now()) <= (configuration.maxAge ?? cached.policy.maxAge) + cached.policy.staleIfError
        {
            logger.notice(
                "The service could not be reached; a cached template is served",
                metadata: ["template.id": "\(id)", "error": "\(failure)"]
            )
            return cached.template
        }
        if let bundled = bundledSnapshot().template(id, locales: configuration.preferredLocales) {
            logger.notice(
                "The service could not be reached; the bundled template is served",
                metadata: ["template.id": "\(id)", "error": "\(failure)"]
            )
            return bundled.filled(with: parameters)
        }
        throw EmptyStateClientError.unavailable(failure)
    }

    private func bundledSnapshot() -> BundledSnapshot {
        snapshot.withLock { snapshot in
            if let snapshot { return snapshot }
            let (loaded, failures) = BundledSnapshot.load(configuration.bundledSnapshots)
            for (url, error) in failures {
                logger.error(
                    "A bundled snapshot could not be read",
                    metadata: ["snapshot.file": "\(url.lastPathComponent)", "error": "\(error)"]
                )
            }
            snapshot = loaded
            return loaded
        }
    }
}

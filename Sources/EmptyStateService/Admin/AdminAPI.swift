import EmptyStateCore
import EmptyStateStore
import HTTPServer
import Logging
import WebhookClient

/// `/v1/admin`: ops create, edit, translate, delete and roll back templates and app policies.
/// Every change is a revision in the store and is published to clients before the response is
/// sent.
///
/// The routes are grouped by what they serve: templates (`AdminAPI+Templates`), their revisions
/// and rollback (`+Revisions`), the locale report (`+Locales`), translation files
/// (`+TranslationExport`, `+TranslationImport`), the audit trail and its export (`+Audit`), app
/// policies (`+AppPolicies`) and what their versions are told (`+Decisions`), webhooks and their
/// delivery log (`+Webhooks`), admin tokens (`+Tokens`), and what the admin
/// console needs besides: its session (`+Session`), the searchable catalogue (`+Catalogue`) and
/// the live preview of a draft (`+Preview`). Each handler throws its errors; `route` puts the auth
/// middleware (`AdminAuthorization.require`) and the error middleware (`AdminProblems`) around
/// it. What a request carries besides its document is read in `+RequestParsing`.
struct AdminAPI: Sendable {
    let store: any TemplateStoring
    let state: CatalogueState
    let authorization: AdminAuthorization
    let logger: Logger
    /// Where the preview's illustrations are (`--illustration-base-url`).
    var illustrationBaseURL: String?
    /// Told to the console, which says when a range of numbers goes back further.
    var eventRetentionDays = 90
    /// The console's search index of the served snapshot.
    let catalogueIndex = CatalogueIndexCache()
    /// What translation exports, imports and coverage read.
    let translations: TranslationCatalogue
    let importLimits: TranslationImportLimits
    /// What experiment results count (exposures and rollups); `nil` where the service runs
    /// without analytics (some tests): results then answer 503.
    var events: (any EventStoring)? = nil
    /// Told when a change request is scheduled, so that it is armed before its next look; `nil`
    /// in tests that run without one.
    var scheduler: ChangeRequestScheduler? = nil
    /// Webhook subscriptions and their delivery log (`+Webhooks`); `nil` where the service runs
    /// without them (some tests): those routes answer 503.
    var webhooks: (any WebhookStoring)? = nil
    /// What a subscription's URL may point at (the operator's `--webhook-allow-*`).
    var webhookPolicy = AddressPolicy()
    /// The admin tokens of the store (`+Tokens`); `nil` where the service runs without them (some
    /// tests): those routes answer 503.
    var adminTokens: (any AdminTokenStoring)? = nil

    func register(on router: inout Router) {
        registerTemplates(on: &router)
        registerRevisions(on: &router)
        registerLocales(on: &router)
        registerTranslationExport(on: &router)
        registerTranslationImport(on: &router)
        registerAudit(on: &router)
        registerAppPolicies(on: &router)
        registerExperiments(on: &router)
        registerExperimentShip(on: &router)
        registerExperimentResults(on: &router)
        registerExperimentPlan(on: &router)
        registerIcons(on: &router)
        registerSession(on: &router)
        registerCatalogue(on: &router)
        registerPreview(on: &router)
        registerDecisions(on: &router)
        registerChangeRequests(on: &router)
        registerChangeRequestSchedule(on: &router)
        registerPreviewTokens(on: &router)
        registerReviewRules(on: &router)
        registerWebhooks(on: &router)
        registerTokens(on: &router)
    }

    /// A route handler for `handler`: the caller's token must allow `role` (401/403 otherwise),
    /// and what `handler` throws becomes its problem response.
    /// - Parameter subject: what the route's document is (named in store errors).
    func route(
        _ role: AdminToken.Role,
        subject: AdminProblems.Subject = .template,
        _ handler: @escaping @Sendable (HTTPRequest, AdminToken) throws -> HTTPResponse
    ) -> Router.Handler {
        authorization.require(role, AdminProblems.catching(subject: subject, logger: logger, handler))
    }

    /// The ETag of a revision: `"r3"`.
    static func etag(_ revision: Int) -> String { "\"r\(revision)\"" }

    /// 304 when `If-None-Match` matches the current revision; `nil` to answer in full.
    func notModified(_ request: HTTPRequest, revision: Int) -> HTTPResponse? {
        guard let condition = request.headers["if-none-match"],
            ConditionalRequests.noneMatch(condition, matches: Self.etag(revision))
        else { return nil }
        return HTTPResponse(status: 304, headers: [("ETag", Self.etag(revision)), ("Cache-Control", "no-store")])
    }
}

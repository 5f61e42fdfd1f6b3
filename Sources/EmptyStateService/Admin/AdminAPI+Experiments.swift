import EmptyStateCore
import EmptyStateStore
import HTTPServer
import JSONCoding

/// `/v1/admin/experiments`: copy experiments on templates. The rules are the templates':
/// roles, `If-Match` (428/412) and `If-None-Match: *` to create, `?validateOnly=true`, 422 with
/// JSON pointers, revisions and the audit trail. On top: the status moves draft → running →
/// stopped, one experiment runs per template at a time, and a running experiment's split is
/// frozen (409 with the fields and the reason, `ExperimentLifecycle`). A saved experiment is
/// published to clients before the response is sent (`CatalogueState.publish(experiment:)`).
extension AdminAPI {
    func registerExperiments(on router: inout Router) {
        router.get(
            "/v1/admin/experiments",
            blocking: true,
            route(.viewer, subject: .experiment) { request, _ in try listExperiments(request) }
        )
        router.get(
            "/v1/admin/experiments/{id}",
            blocking: true,
            route(.viewer, subject: .experiment) { request, _ in try getExperiment(request) }
        )
        router.add(
            .put,
            "/v1/admin/experiments/{id}",
            blocking: true,
            route(.editor, subject: .experiment) { try putExperiment($0, actor: $1) }
        )
        router.get(
            "/v1/admin/experiments/{id}/revisions",
            blocking: true,
            route(.viewer, subject: .experiment) { request, _ in try experimentRevisions(request) }
        )
    }

    // MARK: - Handlers

    private func listExperiments(_ request: HTTPRequest) throws -> HTTPResponse {
        let all = try store.liveExperiments()
        return try .json(ExperimentList(items: all.map(AdminResponses.Experiment.init)))
    }

    private func getExperiment(_ request: HTTPRequest) throws -> HTTPResponse {
        let stored = try store.experiment(id: request.pathParameters["id"] ?? "")
        if let notModified = notModified(request, revision: stored.revision) { return notModified }
        return try experimentResponse(stored, status: 200)
    }

    private func putExperiment(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let id = request.pathParameters["id"] ?? ""
        let document = try body(request)
        guard case .object = document else { throw AdminProblems.notAnObject }
        var experiment: Experiment
        switch ExperimentParser.parse(document, expectedID: id) {
        case .success(let parsed): experiment = parsed
        case .failure(let failure): throw Self.unprocessable(failure.issues)
        }
        let template = try liveTemplate(experiment.templateID)
        let issues = ExperimentParser.validate(experiment, against: template)
        if !issues.isEmpty { throw Self.unprocessable(issues) }
        if try validateOnly(request) {
            return try .json(AdminResponses.Validation(document: experiment.document, subject: .experiment))
        }
        let precondition = try writePrecondition(request, id: nil, allowCreate: true)
        // The rules compare with the revision the client named; the store writes only if that
        // is still the current one (If-Match), so a concurrent change makes this a 412.
        let current = try currentExperiment(id)
        if case .revision(let expected) = precondition, let current, current.revision != expected {
            throw StoreError.stale(id: id, current: current.revision)
        }
        experiment = try Self.lifecycle(experiment, over: current?.experiment)
        if experiment.status == .running, current?.experiment.status != .running {
            let others = try store.liveExperiments().filter {
                $0.experiment.status == .running && $0.experiment.templateID == experiment.templateID
                    && $0.experiment.id != id
            }
            if let other = others.first {
                throw ProblemDetails(
                    status: 409,
                    slug: "template-in-experiment",
                    title: "Template Already In An Experiment",
                    detail: "\"\(experiment.templateID)\" is in the running experiment \"\(other.experiment.id)\".",
                    errors: [.init(.pointer("/status"), "stop \(other.experiment.id) first")]
                )
            }
        }
        let (stored, created) = try store.putExperiment(experiment, precondition: precondition, actor: actor.name)
        // Served (or no longer served) from the next request on, before the answer says it is saved.
        state.publish(experiment: stored)
        logger.notice(
            "experiment saved",
            metadata: [
                "experiment.id": "\(id)", "experiment.revision": "\(stored.revision)",
                "experiment.status": "\(stored.experiment.status.rawValue)", "admin.actor": "\(actor.name)",
                "request.id": "\(request.id)",
            ]
        )
        var response = try experimentResponse(stored, status: created ? 201 : 200)
        if created { response.headers.append(("Location", "/v1/admin/experiments/\(id)")) }
        return response
    }

    private func experimentRevisions(_ request: HTTPRequest) throws -> HTTPResponse {
        let (page, size) = try paging(request)
        let result = try store.experimentRevisions(id: request.pathParameters["id"] ?? "", page: page, pageSize: size)
        return try .json(AdminResponses.Page(result, AdminResponses.Revision.init))
    }

    // MARK: - Pieces

    /// `AdminExperimentList`: every experiment, by id (a service has a handful, never pages).
    struct ExperimentList: Encodable {
        var items: [AdminResponses.Experiment]
    }

    /// The live template an experiment runs on.
    /// - Throws: 422 at `/templateId` when there is none.
    private func liveTemplate(_ id: String) throws -> Template {
        do {
            return try store.template(id: id).template
        } catch {
            switch error {
            case .notFound, .deleted: throw Self.unprocessable([.init("/templateId", "no live template has this id")])
            default: throw error
            }
        }
    }

    /// The experiment `id`, or `nil` when there is none yet.
    private func currentExperiment(_ id: String) throws -> StoredExperiment? {
        do {
            return try store.experiment(id: id)
        } catch {
            if case .notFound = error { return nil }
            throw error
        }
    }

    /// `ExperimentLifecycle.apply`, its refusal as a 409 naming the fields and why.
    private static func lifecycle(_ next: Experiment, over current: Experiment?) throws -> Experiment {
        do {
            return try ExperimentLifecycle.apply(next, over: current, now: Timestamp.now())
        } catch {
            throw ProblemDetails(
                status: 409,
                slug: error.slug,
                title: error.slug == "split-frozen" ? "Split Frozen" : "Invalid Status Transition",
                detail: error.issues.map(\.description).joined(separator: "; "),
                errors: error.issues.map { .init(.pointer($0.pointer), $0.rule) }
            )
        }
    }

    private static func unprocessable(_ issues: [ValidationIssue]) -> ProblemDetails {
        AdminProblems.unprocessable(issues.map { .init(.pointer($0.pointer), $0.rule) }, subject: .experiment)
    }

    private func experimentResponse(_ stored: StoredExperiment, status: Int) throws -> HTTPResponse {
        try .json(
            AdminResponses.Experiment(stored),
            status: status,
            headers: [("ETag", Self.etag(stored.revision))]
        )
    }
}

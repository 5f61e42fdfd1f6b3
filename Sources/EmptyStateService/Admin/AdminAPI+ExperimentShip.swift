import EmptyStateCore
import EmptyStateStore
import HTTPServer
import JSONCoding

/// `POST /v1/admin/experiments/{id}/ship`: a variant's copy becomes the template's new revision
/// and the experiment ends as `shipped`.
///
/// The copy goes through the template write path (the template rules, a revision, the audit
/// trail, published to clients before the answer); the experiment through its own (a revision,
/// `If-Match` on its ETag). They are two transactions, in that order, each checked first: the
/// experiment's `If-Match` and status are checked before the template is written, and the
/// template is written only if it is still the revision the copy was made from. Should the
/// experiment's write still lose a race after the copy is published, the answer is the
/// experiment's 412 and the same call with its new ETag finishes the job (the copy is written
/// again, identical, as one more revision) — whereas the other order could leave an experiment
/// `shipped` whose copy never was.
extension AdminAPI {
    func registerExperimentShip(on router: inout Router) {
        router.add(
            .post,
            "/v1/admin/experiments/{id}/ship",
            blocking: true,
            route(.editor, subject: .experiment) { try shipExperiment($0, actor: $1) }
        )
    }

    private func shipExperiment(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let id = request.pathParameters["id"] ?? ""
        let current = try store.experiment(id: id)
        let key = try shippedVariantKey(try body(request))
        let expected = try expectedRevision(request, id: nil)
        guard current.revision == expected else { throw StoreError.stale(id: id, current: current.revision) }
        var experiment = current.experiment
        switch experiment.status {
        case .running, .stopped:
            break
        case .draft, .shipped:
            throw ProblemDetails(
                status: 409,
                slug: "invalid-transition",
                title: "Invalid Status Transition",
                detail: experiment.status == .draft
                    ? "\"\(id)\" never ran: there is nothing to ship; start it, or edit the template."
                    : "\"\(id)\" is shipped already.",
                errors: [.init(.pointer("/status"), "only a running or stopped experiment is shipped")]
            )
        }
        guard let variant = experiment.variants.first(where: { $0.key == key }) else {
            throw AdminProblems.unprocessable(
                [
                    .init(
                        .pointer("/variant"),
                        "not a variant of \(id) (one of \(experiment.variants.map(\.key).joined(separator: ", ")))"
                    )
                ],
                subject: .experiment
            )
        }
        let live = try store.template(id: experiment.templateID)
        var shipped = live
        // Control is the live copy: shipping it writes no template revision.
        if !variant.overridesNothing {
            let document = experiment.variantDocument(variant, template: live.template)
            let template = try validate(document, id: live.template.id)
            shipped = try store.put(template, precondition: .revision(live.revision), actor: actor.name).stored
            try publish(shipped, action: "experiment \(id) shipped (\(key))", actor: actor, request: request)
        }
        experiment.status = .shipped
        experiment.stoppedAt = experiment.stoppedAt ?? Timestamp.now()
        let stored = try store.putExperiment(
            experiment,
            precondition: .revision(current.revision),
            actor: actor.name,
            shippedVariant: key
        ).stored
        // No longer served as an experiment from the next request on: everyone gets the copy.
        state.publish(experiment: stored)
        logger.notice(
            "experiment shipped",
            metadata: [
                "experiment.id": "\(id)", "experiment.revision": "\(stored.revision)",
                "experiment.variant": "\(key)", "template.id": "\(shipped.template.id)",
                "template.revision": "\(shipped.revision)", "admin.actor": "\(actor.name)",
                "request.id": "\(request.id)",
            ]
        )
        return try .json(
            Shipped(experiment: AdminResponses.Experiment(stored), shippedRevision: shipped.revision),
            headers: [
                ("ETag", Self.etag(stored.revision)),
                (
                    "Link",
                    "</v1/admin/templates/\(shipped.template.id)/revisions/\(shipped.revision)>; rel=\"related\""
                ),
            ]
        )
    }

    /// The `variant` of a ship request's body.
    /// - Throws: 422 (at `/variant`) when the body has none.
    private func shippedVariantKey(_ document: JSONValue) throws -> String {
        guard case .object(let members) = document else { throw AdminProblems.notAnObject }
        guard case .string(let key)? = members.first(where: { $0.key == "variant" })?.value else {
            throw AdminProblems.unprocessable(
                [.init(.pointer("/variant"), "required: the key of the variant to ship")],
                subject: .experiment
            )
        }
        return key
    }

    /// `AdminExperimentShipped`: the experiment as stored (`AdminExperiment`'s members), and the
    /// template revision that now serves the shipped copy.
    struct Shipped: Encodable {
        var revision: Int
        var updatedAt: String
        var updatedBy: String
        var experiment: JSONValue
        var shippedRevision: Int

        init(experiment stored: AdminResponses.Experiment, shippedRevision: Int) {
            revision = stored.revision
            updatedAt = stored.updatedAt
            updatedBy = stored.updatedBy
            experiment = stored.experiment
            self.shippedRevision = shippedRevision
        }
    }
}

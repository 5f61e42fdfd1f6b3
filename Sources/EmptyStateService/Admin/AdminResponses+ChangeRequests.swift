import EmptyStateCore
import EmptyStateStore
import JSONCoding

/// The bodies of the change-request routes (`AdminChangeRequest`, `ChangeRequestSummary`,
/// `ReviewRules` in `openapi.yaml`), built as JSON values: the request's changes carry
/// documents of several kinds, which are JSON already.
extension AdminResponses {
    /// Everything a reader of one request sees, read in one transaction: the request, where it
    /// stands with its reviewers, the live document of each change (for its diff) and the
    /// conflicts of changes whose document moved on live.
    struct ChangeRequestView {
        var stored: StoredChangeRequest
        var standing: ChangeRequestReview
        var reviews: [ReviewRecord]
        /// The live document of each change's target now (`nil`: none is live), and its row.
        var live: [String: CurrentDocument]
        var conflicts: [ChangeConflict]

        /// Reads request `id` and what its view needs inside `edits`' transaction.
        /// - Throws: `ChangeRequestError.notFound`.
        static func read(_ id: Int, in edits: CatalogueWrite) throws -> ChangeRequestView {
            guard let stored = try edits.changeRequest(id) else { throw ChangeRequestError.notFound(id: id) }
            return try read(stored, in: edits)
        }

        static func read(_ stored: StoredChangeRequest, in edits: CatalogueWrite) throws -> ChangeRequestView {
            let request = stored.request
            let rows = try edits.currentRows(of: request.changes)
            // A published or withdrawn request is history: nothing of it can conflict any more.
            let conflicts = request.state.isActive ? try edits.conflicts(of: request.changes, rows: rows) : []
            return ChangeRequestView(
                stored: stored,
                standing: try edits.review(of: request),
                reviews: try edits.reviews(of: request.id),
                live: rows,
                conflicts: conflicts
            )
        }

        /// `AdminChangeRequest`.
        var json: JSONValue {
            let request = stored.request
            var members: [(key: String, value: JSONValue)] = [
                ("id", .number(Double(request.id))),
                ("revision", .number(Double(stored.revision))),
                ("title", .string(request.title)),
                ("description", .string(request.description)),
                ("author", .string(request.author)),
                ("contributors", .array(request.contributors.map(JSONValue.string))),
                ("state", .string(standing.state.rawValue)),
                ("version", .number(Double(request.version))),
                (
                    "approvals",
                    .object([
                        ("required", .number(Double(standing.required))),
                        ("rule", .string(standing.rule)),
                        ("approvedBy", .array(standing.approvedBy.map(JSONValue.string))),
                    ])
                ),
                ("changes", .array(request.changes.map(changeJSON))),
                ("conflicts", .array(conflicts.map(Self.conflictJSON))),
                ("reviews", .array(reviews.map(Self.reviewJSON))),
                ("createdAt", .string(request.createdAt)),
                ("updatedAt", .string(request.updatedAt)),
            ]
            if let schedule = request.schedule {
                members.append(
                    (
                        "schedule",
                        .object([
                            ("at", .string(Timestamp.format(milliseconds: schedule.at))), ("by", .string(schedule.by)),
                            ("setAt", .string(schedule.setAt)),
                        ])
                    )
                )
            }
            if let publication = request.publication {
                var fields: [(key: String, value: JSONValue)] = [
                    ("at", .string(publication.at)), ("by", .string(publication.by)),
                    ("emergency", .bool(publication.emergency)),
                    ("lateMilliseconds", .number(Double(publication.lateMilliseconds))),
                    (
                        "revisions",
                        .array(
                            publication.revisions.map {
                                .object([("before", .number(Double($0.before))), ("after", .number(Double($0.after)))])
                            }
                        )
                    ),
                ]
                if let at = publication.scheduledAt {
                    fields.append(("scheduledAt", .string(Timestamp.format(milliseconds: at))))
                }
                members.append(("publication", .object(fields)))
            }
            if let of = request.rollbackOf { members.append(("rollbackOf", .number(Double(of)))) }
            if let by = request.rolledBackBy { members.append(("rolledBackBy", .number(Double(by)))) }
            return .object(members)
        }

        /// One change with what it changes against live (`ChangeRequestChange`). A published
        /// request's fields are against what is live now, which may be later than it.
        private func changeJSON(_ change: ProposedChange) -> JSONValue {
            guard case .object(var members) = change.json else { return change.json }
            let row = live[change.target.documentID]
            let liveDocument: JSONValue? = row.flatMap { $0.deleted ? nil : try? StoredDocuments.json($0.document) }
            members.append(("liveRevision", .number(Double(row?.revision ?? 0))))
            members.append(
                (
                    "fields",
                    .array(
                        ChangeRequestDiff.fields(change, live: liveDocument).map { field in
                            var entry: [(key: String, value: JSONValue)] = [("pointer", .string(field.pointer))]
                            if let before = field.before { entry.append(("before", before)) }
                            if let after = field.after { entry.append(("after", after)) }
                            return .object(entry)
                        }
                    )
                )
            )
            return .object(members)
        }

        /// `ChangeConflict`: also the 409's `conflicts` member.
        static func conflictJSON(_ conflict: ChangeConflict) -> JSONValue {
            .object([
                ("index", .number(Double(conflict.index))),
                ("kind", .string(conflict.target.kind)),
                ("target", .string(conflict.target.label)),
                ("baseRevision", .number(Double(conflict.baseRevision))),
                ("liveRevision", .number(Double(conflict.liveRevision))),
                ("liveDeleted", .bool(conflict.liveDeleted)),
                ("fields", .array(conflict.fields.map(JSONValue.string))),
                ("overlapping", .array(conflict.overlapping.map(JSONValue.string))),
            ])
        }

        /// `ChangeRequestReview`: a comment, an approval or a rejection.
        static func reviewJSON(_ review: ReviewRecord) -> JSONValue {
            .object([
                ("kind", .string(review.kind.rawValue)), ("author", .string(review.author)),
                ("at", .string(review.at)), ("version", .number(Double(review.version))),
                ("text", .string(review.text)),
            ])
        }
    }

    /// `ChangeRequestSummary`, a line of the listing.
    static func summaryJSON(_ summary: ChangeRequestSummary) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("id", .number(Double(summary.id))), ("revision", .number(Double(summary.revision))),
            ("state", .string(summary.state.rawValue)), ("title", .string(summary.title)),
            ("author", .string(summary.author)), ("targets", .array(summary.targets.map(JSONValue.string))),
            ("createdAt", .string(summary.createdAt)), ("updatedAt", .string(summary.updatedAt)),
        ]
        if let at = summary.scheduledAt { members.append(("scheduledAt", .string(Timestamp.format(milliseconds: at)))) }
        return .object(members)
    }

    /// `ReviewRules` with its bookkeeping.
    static func reviewRulesJSON(_ stored: StoredReviewRules) -> JSONValue {
        guard case .object(var members) = stored.rules.document else { return stored.rules.document }
        members.append(("revision", .number(Double(stored.revision))))
        if let at = stored.updatedAt { members.append(("updatedAt", .string(at))) }
        if let by = stored.updatedBy { members.append(("updatedBy", .string(by))) }
        return .object(members)
    }
}

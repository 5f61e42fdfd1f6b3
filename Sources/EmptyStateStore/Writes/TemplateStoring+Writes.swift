import EmptyStateCore

/// Each catalogue write as one transaction of its own: `write(_:)` with one edit of
/// `CatalogueWrite`. Written once, for every backend; a change of several documents calls
/// `write(_:)` itself with several edits.
extension TemplateStoring {
    /// Creates or replaces a template (`CatalogueWrite.put`).
    /// - Returns: the stored template and whether it was created (or re-created after a delete).
    /// - Throws: `.alreadyExists`, `.notFound`, `.deleted`, `.stale` when the precondition fails;
    ///   `.conflicts` when an id or alias is taken by another template.
    package func put(
        _ template: Template,
        precondition: WritePrecondition,
        actor: String
    ) throws(StoreError) -> (stored: StoredTemplate, created: Bool) {
        try edit { (edits) throws(StoreError) in try edits.put(template, precondition: precondition, actor: actor) }
    }

    /// Replaces strings of a live template (`CatalogueWrite.updateStrings`): a translator's unit
    /// of work (one locale through the admin API, the accepted strings of a translation file).
    /// - Parameters:
    ///   - note: why, recorded with the revision (`imported from fr.xlf`); `nil` for none.
    ///   - marks: strings whose review state this write sets (`CatalogueWrite.updateStrings`).
    ///   - build: makes the new template from the current one, or throws its validation error
    ///     (rethrown as it is; nothing is written).
    package func updateStrings<Failure: Error>(
        id: String,
        expectedRevision: Int,
        actor: String,
        note: String? = nil,
        marks: [String: ReviewState] = [:],
        build: (Template) throws(Failure) -> Template
    ) throws -> StoredTemplate {
        try write { edits in
            try edits.updateStrings(
                id: id,
                expectedRevision: expectedRevision,
                actor: actor,
                note: note,
                marks: marks,
                build: build
            )
        }
    }

    /// Deletes a live template (`CatalogueWrite.delete`): clients get 404 from now on; its
    /// revisions stay.
    /// - Returns: the revision that records the deletion.
    package func delete(id: String, expectedRevision: Int, actor: String) throws(StoreError) -> Int {
        try edit { (edits) throws(StoreError) in
            try edits.delete(id: id, expectedRevision: expectedRevision, actor: actor)
        }
    }

    /// Makes the content of revision `target` the newest revision (`CatalogueWrite.rollback`); on
    /// a deleted template this restores it.
    package func rollback(
        id: String,
        to target: Int,
        expectedRevision: Int?,
        actor: String
    ) throws(StoreError) -> StoredTemplate {
        try edit { (edits) throws(StoreError) in
            try edits.rollback(id: id, to: target, expectedRevision: expectedRevision, actor: actor)
        }
    }

    /// Creates (`.absent`) or replaces (`.revision(n)`) a platform's policy.
    package func putPolicy(
        _ policy: AppPolicy,
        precondition: WritePrecondition,
        actor: String
    ) throws(StoreError) -> (stored: StoredAppPolicy, created: Bool) {
        try edit { (edits) throws(StoreError) in try edits.putPolicy(policy, precondition: precondition, actor: actor) }
    }

    /// Makes the content of revision `target` of a platform's policy its newest revision.
    package func rollbackPolicy(
        platform: Platform,
        to target: Int,
        expectedRevision: Int?,
        actor: String
    ) throws(StoreError) -> StoredAppPolicy {
        try edit { (edits) throws(StoreError) in
            try edits.rollbackPolicy(platform: platform, to: target, expectedRevision: expectedRevision, actor: actor)
        }
    }

    /// Creates (`.absent`) or replaces (`.revision(n)`) an experiment: a revision like a
    /// template's (and, on PostgreSQL, announced on the change feed).
    /// - Parameter shippedVariant: the key of the variant shipped, for `experiment.shipped`.
    /// - Returns: the stored experiment and whether it was created.
    package func putExperiment(
        _ experiment: Experiment,
        precondition: WritePrecondition,
        actor: String,
        shippedVariant: String? = nil
    ) throws(StoreError) -> (stored: StoredExperiment, created: Bool) {
        try edit { (edits) throws(StoreError) in
            try edits.putExperiment(
                experiment,
                precondition: precondition,
                actor: actor,
                shippedVariant: shippedVariant
            )
        }
    }

    /// `write(_:)` of edits that throw only `StoreError`, with that type.
    private func edit<T>(_ edits: (CatalogueWrite) throws(StoreError) -> T) throws(StoreError) -> T {
        try StoreError.only { try write { try edits($0) } }
    }
}

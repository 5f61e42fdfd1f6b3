import EmptyStateCore
import EmptyStateStore

// The running copy experiments of a snapshot: for each template in one, an entry per variant
// (the variant's copy, marked with the experiment and the variant's key), rendered on first
// request and kept like the template's own, so serving an install its variant costs a hash and
// a lookup.

extension CatalogueSnapshot {
    /// A running experiment as served: its bucket ranges and one entry per variant, made from
    /// the template entry it runs on. Shared by later snapshots while neither the experiment
    /// nor the template changes, so the variants' representations are rendered once.
    package final class ServedExperiment: Sendable {
        package let experiment: Experiment
        /// The experiment's store revision.
        package let revision: Int
        /// The template entry the variants were made from.
        let base: Entry
        /// By variant, in the experiment's order; `nil` for a variant that no longer makes a
        /// valid template (the template was edited since the variant was validated): its
        /// installs are served the template as it is, unmarked, so they are not counted as
        /// shown a copy they did not see.
        let variants: [Entry?]
        private let ranges: [ExperimentAssignment.Range]
        /// `startedAt` in milliseconds, for the new-install condition of the target.
        private let startedAt: Int64?

        init(experiment: Experiment, revision: Int, base: Entry) {
            self.experiment = experiment
            self.revision = revision
            self.base = base
            startedAt = experiment.startedAt.flatMap(Timestamp.parse)
            ranges = ExperimentAssignment.bucketRanges(
                count: experiment.variants.count,
                coverage: experiment.coverage,
                weights: experiment.weights
            )
            variants = experiment.variants.map { variant in
                experiment.apply(variant, to: base.template).map { template in
                    Entry(
                        template: template,
                        revision: base.revision,
                        locales: base.locales,
                        updatedAt: base.updatedAt,
                        updatedBy: base.updatedBy,
                        experiment: ExperimentMark(experimentID: experiment.id, variant: variant.key)
                    )
                }
            }
        }

        /// The entry `installID` (a valid install id) is served, with what the request says of
        /// the install: a QA override's variant, else its variant when inside the target and the
        /// coverage, else `nil` for the template as it is (outside the target or the coverage, or
        /// a variant that no longer applies).
        package func entry(for installID: String, attributes: ExperimentTargeting.Attributes = .init()) -> Entry? {
            if !experiment.overrides.isEmpty, let forced = experiment.override(for: installID),
                let index = experiment.variants.firstIndex(of: forced)
            {
                return variants[index]
            }
            if !experiment.targeting.isEmpty, !experiment.targeting.admits(attributes, startedAt: startedAt) {
                return nil
            }
            guard let n = ExperimentAssignment.hash(seed: experiment.id, value: installID),
                let index = ExperimentAssignment.chooseVariation(n, ranges: ranges)
            else { return nil }
            return variants[index]
        }
    }

    /// The experiments a snapshot knows: the running ones (served when their template is), and
    /// the newest revision seen of each, so an older publication is not served again.
    package struct ExperimentBook: Sendable {
        /// Running experiments by id, with their store revisions, whether or not their
        /// template is served now (it may be deleted and come back).
        let running: [String: (experiment: Experiment, revision: Int)]
        /// The newest store revision published of every experiment, running or not.
        let revisions: [String: Int]
        /// The served running experiments by the id of their template.
        let served: [String: ServedExperiment]

        static let empty = ExperimentBook(running: [:], revisions: [:], served: [:])

        /// The book of `stored` (every live experiment; only running ones are served) over
        /// `entries`, reusing what `previous` made for unchanged experiments and templates.
        init(stored: [StoredExperiment], entries: [String: Entry], previous: ExperimentBook?) {
            var running: [String: (experiment: Experiment, revision: Int)] = [:]
            var revisions: [String: Int] = [:]
            for item in stored {
                revisions[item.experiment.id] = item.revision
                if item.experiment.status == .running {
                    running[item.experiment.id] = (item.experiment, item.revision)
                }
            }
            self.init(running: running, revisions: revisions, entries: entries, previous: previous)
        }

        private init(
            running: [String: (experiment: Experiment, revision: Int)],
            revisions: [String: Int],
            served: [String: ServedExperiment]
        ) {
            self.running = running
            self.revisions = revisions
            self.served = served
        }

        private init(
            running: [String: (experiment: Experiment, revision: Int)],
            revisions: [String: Int],
            entries: [String: Entry],
            previous: ExperimentBook?
        ) {
            var served: [String: ServedExperiment] = [:]
            // By id, so that of two running on one template (the admin API refuses it; a store
            // written otherwise might hold it) the same one wins on every replica.
            for id in running.keys.sorted() {
                let (experiment, revision) = running[id]!
                let templateID = experiment.templateID
                guard served[templateID] == nil, let entry = entries[templateID], entry.template.id == templateID
                else { continue }
                if let reused = previous?.served[templateID], reused.experiment.id == id, reused.revision == revision,
                    reused.base === entry
                {
                    served[templateID] = reused
                } else {
                    served[templateID] = ServedExperiment(experiment: experiment, revision: revision, base: entry)
                }
            }
            self.init(running: running, revisions: revisions, served: served)
        }

        /// The same experiments over other entries (after a template change): only the
        /// experiments on changed templates are made again.
        func rebased(on entries: [String: Entry]) -> ExperimentBook {
            if running.isEmpty { return self }
            return ExperimentBook(running: running, revisions: revisions, entries: entries, previous: self)
        }

        /// The book with `stored` published; `nil` when what is served is as new.
        /// - Returns: the book, and the ids of the templates whose answers may change.
        func applying(_ stored: StoredExperiment, entries: [String: Entry]) -> (ExperimentBook, Set<String>)? {
            let id = stored.experiment.id
            if let known = revisions[id], known >= stored.revision { return nil }
            var running = self.running
            var revisions = self.revisions
            var templates: Set<String> = [stored.experiment.templateID]
            if let old = running[id] { templates.insert(old.experiment.templateID) }
            revisions[id] = stored.revision
            running[id] = stored.experiment.status == .running ? (stored.experiment, stored.revision) : nil
            let next = ExperimentBook(running: running, revisions: revisions, entries: entries, previous: self)
            return (next, templates)
        }

        /// Whether no experiment is served (the usual case: every answer is as without them).
        package var isEmpty: Bool { served.isEmpty }
    }

    /// The running experiment on template `id` (a canonical id, `entry.template.id`), if any.
    package func experiment(onTemplate id: String) -> ServedExperiment? {
        experiments.isEmpty ? nil : experiments.served[id]
    }

    /// Whether some template is in a running experiment: then every bundle answer depends on
    /// the install id.
    package var hasRunningExperiments: Bool { !experiments.isEmpty }

    /// The running experiment `id`, if any.
    package func runningExperiment(id: String) -> Experiment? { experiments.running[id]?.experiment }

    /// The newest revision published of experiment `id`, if any.
    package func experimentRevision(of id: String) -> Int? { experiments.revisions[id] }

    /// The entries `installID` is served instead of the templates' own, by template id: its
    /// variant of every experiment it is in (`attributes` as the target sees them).
    package func variantEntries(
        for installID: String,
        attributes: ExperimentTargeting.Attributes
    ) -> [String: Entry] {
        var substitutes: [String: Entry] = [:]
        for (templateID, served) in experiments.served {
            if let entry = served.entry(for: installID, attributes: attributes) { substitutes[templateID] = entry }
        }
        return substitutes
    }
}

import EmptyStateCore
import EmptyStateStore
import EmptyStateTranslation
import Foundation
import Logging
import Synchronization

/// The catalogue as translation exports, imports, coverage and metrics see it: the served
/// templates, each with the revision and time its strings were last written.
struct TranslationCatalogue: Sendable {
    let state: CatalogueState
    let store: any TemplateStoring

    /// Every served template with its string stamps, in id order.
    ///
    /// The templates come from the served snapshot (parsed already: no document is read), then
    /// the stamps from the store, in that order: a write committed between the two makes the
    /// stamps newer than the template, never older, so an import planned on them carries the
    /// template's older revision as its precondition and its write is refused as stale, rather
    /// than overwriting an edit it did not see.
    func snapshots() throws(StoreError) -> [TemplateSnapshot] {
        let entries = state.snapshot.entriesInOrder
        let stamps = try store.stringStamps()
        typealias Stamps = (
            updatedAt: [String: [String: String]], revisions: [String: [String: Int]],
            reviews: [String: [String: TranslationState]]
        )
        var byTemplate: [String: Stamps] = [:]
        byTemplate.reserveCapacity(entries.count)
        for stamp in stamps {
            byTemplate[stamp.templateID, default: ([:], [:], [:])].updatedAt[stamp.locale, default: [:]][stamp.key] =
                stamp.updatedAt
            byTemplate[stamp.templateID]!.revisions[stamp.locale, default: [:]][stamp.key] = stamp.revision
            // Most strings are only translated: the dictionary holds the others.
            if stamp.review != .translated {
                byTemplate[stamp.templateID]!.reviews[stamp.locale, default: [:]][stamp.key] =
                    stamp.review == .final ? .final : .reviewed
            }
        }
        return entries.map { entry in
            let stamps = byTemplate[entry.template.id]
            return TemplateSnapshot(
                template: entry.template,
                revision: entry.revision,
                updatedAt: stamps?.updatedAt ?? [:],
                revisions: stamps?.revisions ?? [:],
                reviews: stamps?.reviews ?? [:]
            )
        }
    }

    /// The keys of one template whose translation in a locale is stale.
    struct Stale: Sendable, Equatable {
        var templateID: String
        var keys: [String]
    }

    /// Per locale, the templates with stale translations (written before their string in the
    /// template's default locale last changed), in catalogue order, keys in the order a screen
    /// shows them. A template's default locale is never stale.
    static func stale(in snapshots: [TemplateSnapshot]) -> [String: [Stale]] {
        var report: [String: [Stale]] = [:]
        for snapshot in snapshots {
            let template = snapshot.template
            guard let source = template.strings(for: template.defaultLocale) else { continue }
            let keys = orderedKeys(template).filter { source[$0] != nil }
            for entry in template.strings where entry.locale != template.defaultLocale {
                let stale = keys.filter {
                    entry.values[$0] != nil
                        && snapshot.isStale(key: $0, locale: entry.locale, sourceLocale: template.defaultLocale)
                }
                if !stale.isEmpty {
                    report[entry.locale, default: []].append(Stale(templateID: template.id, keys: stale))
                }
            }
        }
        return report
    }

    /// `title`, `message`, `visual.label`, then the action labels in the template's order.
    static func orderedKeys(_ template: Template) -> [String] {
        ["title", "message", "visual.label"] + template.actions.map { Template.labelKey($0.id) }
    }
}

/// `translation_stale_strings` per locale, counted again only when the catalogue changed since
/// the last count (the served snapshot's `revisionSum` grows with every publication), so a
/// scrape of an unchanged catalogue reads nothing from the store.
///
/// A count reads the store, and `/metrics` is answered on the server's event loop so that it
/// still answers when every worker is busy; so the scrape never counts itself. It reads the last
/// count and, when the catalogue has changed since, starts one count on a thread of its own: the
/// gauge follows an edit by one count (milliseconds at a few hundred templates), never blocks a
/// scrape, and never runs two counts at once.
final class StaleStringCounts: Sendable {
    private struct State {
        /// The `revisionSum` counted at, and the counts then.
        var counted: (revisionSum: Int, counts: [String: Int])?
        var counting = false
    }
    private let catalogue: TranslationCatalogue
    private let state = Mutex(State())

    init(catalogue: TranslationCatalogue) {
        self.catalogue = catalogue
    }

    /// Stale strings per locale as last counted, every locale of the catalogue but its templates'
    /// default ones listed (at 0 when none is stale); empty until the first count ends. Starts a
    /// count when the catalogue changed since the last one. When the store cannot be read, the
    /// last counts stay, and the next call tries again. The first count starts with the server
    /// (`startFirstCount`), so the gauge does not wait for a scrape or a change.
    func counts() -> [String: Int] {
        let revisionSum = catalogue.state.snapshot.revisionSum
        let (counts, start) = state.withLock { state -> ([String: Int], Bool) in
            let current = state.counted?.revisionSum == revisionSum
            let start = !current && !state.counting
            if start { state.counting = true }
            return (state.counted?.counts ?? [:], start)
        }
        if start {
            Thread.detachNewThread { [self] in count() }
        }
        return counts
    }

    /// Starts the first count on a thread of its own, at start-up: a scrape only ever reads the
    /// last count, so without this the gauge would be missing until a scrape had started one.
    /// Logs how long it took (`translations.count_ms`: tens of milliseconds at a few hundred
    /// templates, it reads every string's stamp).
    func startFirstCount(logger: Logger) {
        state.withLock { $0.counting = true }
        Thread.detachNewThread { [self] in
            let started = ContinuousClock.now
            count()
            logger.info(
                "stale translations counted",
                metadata: ["translations.count_ms": "\((ContinuousClock.now - started).milliseconds)"]
            )
        }
    }

    /// Counts now, on the calling thread, and keeps the result.
    private func count() {
        let revisionSum = catalogue.state.snapshot.revisionSum
        let snapshots = try? catalogue.snapshots()
        var counts: [String: Int] = [:]
        for snapshot in snapshots ?? [] {
            for entry in snapshot.template.strings where entry.locale != snapshot.template.defaultLocale {
                counts[entry.locale] = counts[entry.locale] ?? 0
            }
        }
        for (locale, templates) in TranslationCatalogue.stale(in: snapshots ?? []) {
            counts[locale, default: 0] += templates.reduce(0) { $0 + $1.keys.count }
        }
        state.withLock { state in
            state.counting = false
            if snapshots != nil { state.counted = (revisionSum, counts) }
        }
    }
}

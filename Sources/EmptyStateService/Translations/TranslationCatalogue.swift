import EmptyStateCore
import EmptyStateStore
import EmptyStateTranslation
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
        var byTemplate: [String: (updatedAt: [String: [String: String]], revisions: [String: [String: Int]])] = [:]
        byTemplate.reserveCapacity(entries.count)
        for stamp in stamps {
            byTemplate[stamp.templateID, default: ([:], [:])].updatedAt[stamp.locale, default: [:]][stamp.key] =
                stamp.updatedAt
            byTemplate[stamp.templateID]!.revisions[stamp.locale, default: [:]][stamp.key] = stamp.revision
        }
        return entries.map { entry in
            let stamps = byTemplate[entry.template.id]
            return TemplateSnapshot(
                template: entry.template,
                revision: entry.revision,
                updatedAt: stamps?.updatedAt ?? [:],
                revisions: stamps?.revisions ?? [:]
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
final class StaleStringCounts: Sendable {
    private let catalogue: TranslationCatalogue
    /// The `revisionSum` counted at, and the counts then.
    private let counted = Mutex<(revisionSum: Int, counts: [String: Int])?>(nil)

    init(catalogue: TranslationCatalogue) {
        self.catalogue = catalogue
    }

    /// Stale strings per locale, every locale of the catalogue but its templates' default ones
    /// listed (at 0 when none is stale). When the store cannot be read, the last counts (and
    /// the count is tried again at the next call).
    func counts() -> [String: Int] {
        let snapshot = catalogue.state.snapshot
        if let counted = counted.withLock({ $0 }), counted.revisionSum == snapshot.revisionSum {
            return counted.counts
        }
        guard let snapshots = try? catalogue.snapshots() else { return counted.withLock { $0?.counts ?? [:] } }
        var counts: [String: Int] = [:]
        for snapshot in snapshots {
            for entry in snapshot.template.strings where entry.locale != snapshot.template.defaultLocale {
                counts[entry.locale] = counts[entry.locale] ?? 0
            }
        }
        for (locale, templates) in TranslationCatalogue.stale(in: snapshots) {
            counts[locale, default: 0] += templates.reduce(0) { $0 + $1.keys.count }
        }
        counted.withLock { $0 = (snapshot.revisionSum, counts) }
        return counts
    }
}

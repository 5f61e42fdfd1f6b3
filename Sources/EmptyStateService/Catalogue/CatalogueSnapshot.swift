import EmptyStateCore
import EmptyStateStore
import EmptyStateWeb
import HTTPServer
import JSONCoding
import Synchronization

// The snapshot and its incremental apply. Beside it: `CatalogueSnapshot+Entry` (a template and its
// representations), `+Representation` (a representation and its prepared answers),
// `+CompressedBody` (bytes made once, and gzip made on demand) and `+Bundles` (bundle assembly).

/// What clients are served, as one immutable value: every template with its representations,
/// and the bundles. A request takes the current snapshot and never waits for a writer; a
/// publication makes the next snapshot from this one (`applying(_:)`) and swaps it in.
///
/// Work is done when it is first needed, and once per content:
/// - a template's representation (one locale, one platform) is rendered on its first request and
///   kept by the template's `Entry`, which the next snapshots share while the template is
///   unchanged: starting with 10,000 templates renders none of them;
/// - a bundle is assembled from the templates' representations on its first request; its ETag is
///   known before (derived from the templates' content digests), so a 304 assembles nothing;
/// - gzip bytes of a bundle are made on a background thread; requests get the identity bytes
///   until they are ready.
/// A publication costs the changed template: the entries are copied (a dictionary of pointers),
/// one `Entry` is made, and the bundles' ETags are updated by arithmetic on the digests.
package final class CatalogueSnapshot: Sendable {
    /// By id and by alias.
    private let entries: [String: Entry]
    private let contents: BundleContents
    /// Every locale some template has, real ones in first-seen order (by id), then the
    /// pseudo-locales; and how many templates have each.
    package let locales: [String]
    private let localeCounts: [String: Int]
    /// The locales the bundle can be served in: every locale of any template.
    package let bundleLocales: LocaleSet
    private let bundles: [String: [Representation]]
    /// Pre-parsed spellings of every catalogue locale, for `ClientQuery.parse`.
    package let knownLocaleTags: [String: LocaleTag]
    /// The sum of the templates' digests: the content the bundles are made of.
    private let digest: ContentDigest
    /// The revision at which each template no longer served was removed, so that an older
    /// publication of it is not served again.
    private let removed: [String: Int]
    /// The sum of the templates' revisions, removed ones included with the revision that
    /// removed them (`catalogue_revision` in `/metrics`): it grows with every publication.
    package let revisionSum: Int
    /// The app policies and the `GET /v1/app-status` answers made from them.
    package let appStatus: AppStatusBook
    /// The running copy experiments and their variants' entries (`+Experiments`).
    let experiments: ExperimentBook

    /// Builds the snapshot of `catalogue`.
    /// - Parameters:
    ///   - revisions: the store revision of each template, to order concurrent publications.
    ///   - stamps: when each template's revision was written and by whom.
    ///   - previous: a snapshot whose entries (and what they rendered) are reused for templates
    ///     that did not change.
    ///   - policies: the app policies; `nil` keeps those of `previous`.
    ///   - experiments: every live experiment (the running ones are served); `nil` keeps those
    ///     of `previous`.
    package convenience init(
        catalogue: Catalogue,
        revisions: [String: Int] = [:],
        stamps: [String: (at: String, by: String)] = [:],
        reusing previous: CatalogueSnapshot? = nil,
        policies: [StoredAppPolicy]? = nil,
        experiments: [StoredExperiment]? = nil
    ) {
        var made: [String: Entry] = [:]
        var pending: [PendingEntry] = []
        var sets = LocaleSetCache()
        for template in catalogue.templates {
            let revision = revisions[template.id] ?? 0
            if let reused = previous?.entries[template.id], reused.template.id == template.id,
                reused.revision == revision, reused.updatedAt == (stamps[template.id]?.at ?? ""),
                reused.template == template
            {
                made[template.id] = reused
            } else {
                let stamp = stamps[template.id]
                pending.append(
                    PendingEntry(
                        template: template,
                        revision: revision,
                        locales: sets.localeSet(of: template),
                        updatedAt: stamp?.at ?? "",
                        updatedBy: stamp?.by ?? ""
                    )
                )
            }
        }
        // A new entry digests its template's document: on every core (at 10,000 templates, a
        // start's largest cost after parsing the files).
        for entry in pending.concurrentMap(Entry.init) { made[entry.template.id] = entry }
        var entries: [String: Entry] = [:]
        for template in catalogue.templates {
            let entry = made[template.id]!
            entries[template.id] = entry
            for alias in template.aliases { entries[alias] = entry }
        }
        var digest = ContentDigest.zero
        var revisionSum = 0
        for template in catalogue.templates {
            let entry = entries[template.id]!
            digest = digest &+ entry.digest
            revisionSum += entry.revision
        }
        let removed = previous?.removed ?? [:]
        self.init(
            entries: entries,
            ids: catalogue.templates.map(\.id),
            aliases: catalogue.aliases,
            removed: removed,
            digest: digest,
            // Removed templates count with the revision of their removal: the sum only grows.
            revisionSum: removed.values.reduce(revisionSum, +),
            appStatus: AppStatusBook(policies: policies ?? previous?.appStatus.policies ?? []) {
                Self.template($0, in: entries)
            },
            experiments: experiments.map {
                ExperimentBook(stored: $0, entries: entries, previous: previous?.experiments)
            } ?? previous?.experiments.rebased(on: entries) ?? .empty
        )
    }

    /// The entry whose id (not alias) is `id`.
    private static func template(_ id: String, in entries: [String: Entry]) -> Entry? {
        entries[id].flatMap { $0.template.id == id ? $0 : nil }
    }

    /// A copy of `base` with other app policies or experiments: the templates, bundles and
    /// everything they rendered are shared.
    private init(_ base: CatalogueSnapshot, appStatus: AppStatusBook, experiments: ExperimentBook) {
        entries = base.entries
        contents = base.contents
        locales = base.locales
        localeCounts = base.localeCounts
        bundleLocales = base.bundleLocales
        bundles = base.bundles
        knownLocaleTags = base.knownLocaleTags
        digest = base.digest
        removed = base.removed
        revisionSum = base.revisionSum
        self.appStatus = appStatus
        self.experiments = experiments
    }

    /// Assembles a snapshot from its entries; everything else is derived here.
    private init(
        entries: [String: Entry],
        ids: [String],
        aliases: [String: String],
        removed: [String: Int],
        digest: ContentDigest,
        revisionSum: Int,
        appStatus: AppStatusBook,
        experiments: ExperimentBook,
        unchangedLocales previous: CatalogueSnapshot? = nil,
        localeCounts: [String: Int]? = nil
    ) {
        self.entries = entries
        self.appStatus = appStatus
        self.experiments = experiments
        contents = BundleContents(entries: entries, ids: ids, aliases: aliases)
        self.removed = removed
        self.digest = digest
        self.revisionSum = revisionSum
        if let previous, let localeCounts {
            locales = previous.locales
            self.localeCounts = localeCounts
            bundleLocales = previous.bundleLocales
            knownLocaleTags = previous.knownLocaleTags
        } else {
            let (locales, counts) = Self.locales(ids: ids, entries: entries)
            self.locales = locales
            self.localeCounts = counts
            let fallback = locales.contains("en") ? "en" : ids.first.map { entries[$0]!.template.defaultLocale } ?? "en"
            bundleLocales = LocaleSet(tags: locales, fallback: fallback)
            knownLocaleTags = bundleLocales.commonSpellings
        }
        bundles = Self.bundles(of: contents, locales: bundleLocales.tags, digest: digest, count: ids.count)
    }

    /// Every locale some template has (first seen, by id), then the pseudo-locales; with counts.
    private static func locales(ids: [String], entries: [String: Entry]) -> ([String], [String: Int]) {
        var seen: [String] = []
        var counts: [String: Int] = [:]
        for id in ids {
            for entry in entries[id]!.template.strings {
                if counts[entry.locale] == nil { seen.append(entry.locale) }
                counts[entry.locale, default: 0] += 1
            }
        }
        return (seen + PseudoLocale.all, counts)
    }

    /// The revision served (or removed) for template `id`, if any.
    package func revision(of id: String) -> Int? {
        if let entry = entries[id], entry.template.id == id { return entry.revision }
        return removed[id]
    }

    /// The next snapshot with `change` applied; `nil` when it does not fit (an id or alias of
    /// the changed template belongs to another one: writes published out of order), and the
    /// caller rebuilds from the store.
    /// - Returns: the snapshot, and the tags of the answers that may have changed: every name
    ///   (id or alias) of the template before and after, the bundles, and the app-status answers
    ///   when an update template changed.
    package func applying(
        _ change: CatalogueState.Change
    ) -> (snapshot: CatalogueSnapshot, tags: Set<CatalogueMemoTag>)? {
        let id = change.id
        var entries = self.entries
        var ids = contents.ids
        var aliases = contents.aliases
        var removed = self.removed
        var counts = localeCounts
        var digest = self.digest
        var revisionSum = self.revisionSum - (removed[id] ?? 0)
        var names: Set<String> = [id]
        let old = entries[id].flatMap { $0.template.id == id ? $0 : nil }
        if let old {
            digest = digest &- old.digest
            revisionSum -= old.revision
            entries[id] = nil
            for alias in old.template.aliases {
                entries[alias] = nil
                aliases[alias] = nil
                names.insert(alias)
            }
            for strings in old.template.strings { counts[strings.locale, default: 0] -= 1 }
        }
        switch change {
        case .upsert(let stored):
            let template = stored.template
            for name in [template.id] + template.aliases where entries[name] != nil { return nil }
            let sameLocales = old.map {
                $0.template.defaultLocale == template.defaultLocale
                    && $0.template.strings.map(\.locale) == template.strings.map(\.locale)
            }
            let locales = sameLocales == true ? old!.locales : TemplateRenderer.localeSet(of: template)
            let entry = Entry(
                template: template,
                revision: stored.revision,
                locales: locales,
                updatedAt: stored.updatedAt,
                updatedBy: stored.updatedBy
            )
            digest = digest &+ entry.digest
            revisionSum += entry.revision
            entries[id] = entry
            for alias in template.aliases {
                entries[alias] = entry
                aliases[alias] = id
                names.insert(alias)
            }
            for strings in template.strings { counts[strings.locale, default: 0] += 1 }
            if old == nil {
                let position = ids.partitioningIndex { $0 >= id }
                ids.insert(id, at: position)
            }
            removed[id] = nil
        case .remove(_, let revision):
            if old != nil, let position = ids.firstIndex(of: id) { ids.remove(at: position) }
            removed[id] = revision
            revisionSum += revision
        }
        counts = counts.filter { $0.value > 0 }
        let sameLocales = Set(counts.keys) == Set(localeCounts.keys)
        // App-status answers are made of the update templates: only their change remakes them.
        var appStatus = self.appStatus
        var tags = CatalogueState.Invalidation.templates(names)
        if !names.isDisjoint(with: AppStatusBook.templateIDs) {
            appStatus = appStatus.reloadingTemplates { Self.template($0, in: entries) }
            tags.formUnion(CatalogueMemoTag.everyAppStatus)
        }
        let next = CatalogueSnapshot(
            entries: entries,
            ids: ids,
            aliases: aliases,
            removed: removed,
            digest: digest,
            revisionSum: revisionSum,
            appStatus: appStatus,
            experiments: experiments.rebased(on: entries),
            unchangedLocales: sameLocales ? self : nil,
            localeCounts: sameLocales ? counts : nil
        )
        return (next, tags)
    }

    /// The next snapshot with `stored` as its platform's app policy; costs that platform's answers.
    /// - Returns: the snapshot, and the tag of the answers that may have changed (that
    ///   platform's app status).
    package func applying(policy stored: StoredAppPolicy) -> (snapshot: CatalogueSnapshot, tags: Set<CatalogueMemoTag>)
    {
        let book = appStatus.replacing(stored) { Self.template($0, in: entries) }
        return (
            CatalogueSnapshot(self, appStatus: book, experiments: experiments),
            [.appStatus(stored.policy.platform)]
        )
    }

    /// The next snapshot with `stored` published (started, changed or stopped); costs the
    /// experiment's template. `nil` when what is served is as new.
    /// - Returns: the snapshot, and the tags of the answers that may have changed: the names
    ///   (ids and aliases) of the experiment's templates, and the bundles.
    package func applying(
        experiment stored: StoredExperiment
    ) -> (snapshot: CatalogueSnapshot, tags: Set<CatalogueMemoTag>)? {
        guard let (book, templateIDs) = experiments.applying(stored, entries: entries) else { return nil }
        var names = templateIDs
        for id in templateIDs {
            if let entry = entries[id], entry.template.id == id { names.formUnion(entry.template.aliases) }
        }
        return (
            CatalogueSnapshot(self, appStatus: appStatus, experiments: book),
            CatalogueState.Invalidation.templates(names)
        )
    }

    /// This snapshot with no experiment running: every template served as it is (a preview of a
    /// change request, `PreviewChannel`).
    func withoutExperiments() -> CatalogueSnapshot {
        CatalogueSnapshot(self, appStatus: appStatus, experiments: .empty)
    }

    /// The template with this id or alias.
    package func entry(named name: String) -> Entry? { entries[name] }

    package func bundle(locale: String, platform: Platform) -> Representation? {
        bundles[locale]?[platform.index]
    }

    /// The bundle in `locale` for `platform` with `substitutes` served instead of the
    /// templates' own entries (an install's variants): joined for one request from the entries'
    /// representations, which are rendered once.
    package func assembleBundle(locale: String, platform: Platform, substitutes: [String: Entry]) -> [UInt8] {
        contents.assemble(locale: locale, platform: platform, substitutes: substitutes)
    }

    /// The number of templates served.
    package var templateCount: Int { contents.ids.count }

    /// The templates in id order (the gallery shows them so).
    package var entriesInOrder: [Entry] { contents.ids.map { contents.entries[$0]! } }

    /// Alias → canonical id.
    package var aliases: [String: String] { contents.aliases }

    /// The bundle in `locale` for `platform` with placeholder values: rendered for one request.
    /// - Parameter substitutes: entries served instead of the templates' own, by template id
    ///   (an install's experiment variants, `variantEntries(for:)`).
    package func renderBundle(
        locale: String,
        platform: Platform,
        parameters: [String: String],
        substitutes: [String: Entry] = [:]
    ) -> [UInt8] {
        TemplateRenderer.writeBundle(
            contents.ids.lazy.map { substitutes[$0] ?? self.entries[$0]! },
            aliases: contents.aliases,
            locale: locale,
            platform: platform,
            localeSet: \.locales
        ) { entry, resolved, writer in
            TemplateRenderer.write(
                entry.template,
                copy: TemplateRenderer.copy(of: entry.template, in: resolved),
                platform: platform,
                parameters: parameters,
                revision: entry.revision,
                icons: IconSet.lucide,
                experiment: entry.experiment,
                into: &writer
            )
        }
    }

    /// How many representations have been rendered so far (templates × locales × platforms
    /// asked for; bundles are not counted).
    package var representationCount: Int {
        contents.ids.reduce(0) { $0 + entries[$1]!.renderedCount }
    }
}

/// What a new `CatalogueSnapshot.Entry` is made of, gathered before the entries are made.
private struct PendingEntry: Sendable {
    var template: Template
    var revision: Int
    var locales: LocaleSet
    var updatedAt: String
    var updatedBy: String
}

extension CatalogueSnapshot.Entry {
    fileprivate convenience init(_ pending: PendingEntry) {
        self.init(
            template: pending.template,
            revision: pending.revision,
            locales: pending.locales,
            updatedAt: pending.updatedAt,
            updatedBy: pending.updatedBy
        )
    }
}

/// Locale sets shared by the templates that have the same locales (most of a catalogue), so a
/// snapshot of 10,000 templates builds a handful, not 10,000.
private struct LocaleSetCache {
    private var sets: [String: LocaleSet] = [:]

    mutating func localeSet(of template: Template) -> LocaleSet {
        let key = template.strings.map(\.locale).joined(separator: ",") + "|" + template.defaultLocale
        if let known = sets[key] { return known }
        let made = TemplateRenderer.localeSet(of: template)
        sets[key] = made
        return made
    }
}

extension Array {
    /// The first index whose element satisfies `belongsInSecondPartition` (the array is
    /// partitioned by it: all `false`, then all `true`), by binary search.
    fileprivate func partitioningIndex(where belongsInSecondPartition: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if belongsInSecondPartition(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

extension Platform {
    /// Position in `allCases`, for array lookups on the request path.
    var index: Int {
        switch self {
        case .ios: return 0
        case .android: return 1
        case .web: return 2
        }
    }
}

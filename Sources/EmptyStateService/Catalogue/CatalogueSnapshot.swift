import EmptyStateCore
import EmptyStateStore
import HTTPServer
import JSONCoding
import Synchronization

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
    /// One encoding of a representation.
    package struct Variant: Sendable {
        package let body: SharedBytes
        /// A strong, quoted ETag.
        package let etag: String
    }

    /// One representation: identity bytes (made at once, or on first use), and gzip bytes (made
    /// on the first request that accepts them, on that request's thread or a background one).
    package final class Representation: Sendable {
        /// The identity variant's strong, quoted ETag.
        package let etag: String
        package let contentLanguage: String
        /// Known without compressing, so a 304 never needs the gzip bytes.
        package let gzipETag: String
        private let body: LazyBytes
        private let compressed: CompressedBody
        private let answers = PreparedAnswers()

        /// Wraps bytes already rendered; the ETag is their hash.
        package init(bytes: [UInt8], contentLanguage: String) {
            let hash = ContentHash.hex(bytes)
            etag = "\"\(hash)\""
            gzipETag = "\"\(hash)-gzip\""
            body = LazyBytes(SharedBytes(bytes))
            compressed = CompressedBody(inBackground: false)
            self.contentLanguage = contentLanguage
        }

        /// A representation whose bytes are made by `make` when first needed, with an ETag known
        /// from elsewhere (`tag`, unquoted); its gzip bytes are made in the background.
        init(tag: String, contentLanguage: String, make: @escaping @Sendable () -> [UInt8]) {
            etag = "\"\(tag)\""
            gzipETag = "\"\(tag)-gzip\""
            body = LazyBytes(make: make)
            compressed = CompressedBody(inBackground: true)
            self.contentLanguage = contentLanguage
        }

        /// The identity variant (made now if it was not yet).
        package var identity: Variant { Variant(body: body.bytes, etag: etag) }

        /// The gzip variant; `nil` when compressing does not make the body smaller, and, for a
        /// representation compressed in the background, until the bytes are ready.
        package var gzip: Variant? {
            compressed.bytes(of: body).map { Variant(body: $0, etag: gzipETag) }
        }

        /// Whether `gzip` is `nil` only because its bytes are not made yet: an answer without them
        /// must not be remembered.
        package var gzipPending: Bool { compressed.isPending }

        /// The prepared response in `slot` (one of `PreparedAnswers.slotCount` kinds of answer the
        /// caller numbers), made by `make` the first time it is asked for and kept.
        package func prepared(slot: Int, make: () -> PreparedResponse) -> PreparedResponse {
            answers.prepared(slot: slot, make: make)
        }
    }

    /// The answers a representation gets (200 or 304, identity or gzip, which `Vary`), each made
    /// on first use: most representations are never asked for in most of the ways.
    package final class PreparedAnswers: Sendable {
        package static let slotCount = 8
        private let slots = Mutex<[PreparedResponse?]>(Array(repeating: nil, count: slotCount))

        func prepared(slot: Int, make: () -> PreparedResponse) -> PreparedResponse {
            if let known = slots.withLock({ $0[slot] }) { return known }
            // Made outside the lock; when two threads race, the first one stored wins.
            let made = make()
            return slots.withLock { slots in
                if let known = slots[slot] { return known }
                slots[slot] = made
                return made
            }
        }
    }

    /// Bytes made once, by whichever thread asks first (others wait for them).
    private final class LazyBytes: Sendable {
        private let state: Mutex<SharedBytes?>
        private let make: (@Sendable () -> [UInt8])?

        init(_ bytes: SharedBytes) {
            state = Mutex(bytes)
            make = nil
        }

        init(make: @escaping @Sendable () -> [UInt8]) {
            state = Mutex(nil)
            self.make = make
        }

        var bytes: SharedBytes {
            state.withLock { state in
                if let known = state { return known }
                let made = SharedBytes(make!())
                state = made
                return made
            }
        }
    }

    /// Gzip bytes made once: on the asking thread when the body is small (a template, or the
    /// bundle of a small catalogue: well under a millisecond), by `compressor` otherwise (a bundle
    /// of 10,000 templates is megabytes: tens of milliseconds no request should wait).
    private final class CompressedBody: Sendable {
        private enum State {
            case notAsked
            case pending
            /// `nil`: compression does not help.
            case done(SharedBytes?)
        }

        private let inBackground: Bool
        private let state = Mutex<State>(.notAsked)

        init(inBackground: Bool) {
            self.inBackground = inBackground
        }

        var isPending: Bool {
            state.withLock { if case .done = $0 { return false } else { return true } }
        }

        /// Bodies up to this size are compressed on the asking thread.
        static let inlineLimit = 256 * 1024

        func bytes(of body: LazyBytes) -> SharedBytes? {
            if !inBackground || body.bytes.count <= Self.inlineLimit {
                return state.withLock { state in
                    if case .done(let known) = state { return known }
                    let result = Self.compress(body.bytes)
                    state = .done(result)
                    return result
                }
            }
            let start = state.withLock { state -> Bool in
                guard case .notAsked = state else { return false }
                state = .pending
                return true
            }
            if start {
                CatalogueSnapshot.compressor.submit { [self] in
                    let result = Self.compress(body.bytes)
                    state.withLock { $0 = .done(result) }
                }
                return nil
            }
            return state.withLock { state in
                if case .done(let known) = state { return known }
                return nil
            }
        }

        private static func compress(_ body: SharedBytes) -> SharedBytes? {
            let plain = body.array
            return Gzip.compress(plain).flatMap { $0.count < plain.count ? SharedBytes($0) : nil }
        }
    }

    /// Where bundles are assembled and compressed off the request path: one thread at the lowest
    /// priority, so this work only takes CPU that serving leaves idle.
    static let compressor = LowPriorityWorkers(threads: 1, label: "catalogue-gzip")

    /// One template, its revision, and its representations by locale and platform, rendered on
    /// first request. A class: snapshots share it while the template is unchanged, and the
    /// request path passes it around without retaining each field.
    package final class Entry: Sendable {
        package let template: Template
        /// The store revision (0 when served straight from files).
        package let revision: Int
        package let locales: LocaleSet
        /// The digest of the template's document, summed into the bundles' ETags.
        let digest: ContentDigest
        /// `locales.tags.count × Platform.allCases.count` slots, filled on first request.
        private let rendered: Mutex<[Representation?]>

        init(template: Template, revision: Int, locales: LocaleSet) {
            self.template = template
            self.revision = revision
            self.locales = locales
            var writer = JSONWriter(capacity: 2048)
            writer.value(template.document)
            digest = ContentDigest(writer.bytes)
            rendered = Mutex(Array(repeating: nil, count: locales.tags.count * Platform.allCases.count))
        }

        /// The representation in `locale` (one of `locales.tags`) for `platform`, rendered now
        /// if no request asked for it before.
        package func representation(locale: String, platform: Platform) -> Representation? {
            guard let index = locales.tags.firstIndex(of: locale) else { return nil }
            let slot = index * Platform.allCases.count + platform.index
            return rendered.withLock { slots in
                if let made = slots[slot] { return made }
                let copy = TemplateRenderer.copy(of: template, in: locale)
                let made = Representation(
                    bytes: TemplateRenderer.render(template, copy: copy, platform: platform, revision: revision),
                    contentLanguage: copy.locale
                )
                slots[slot] = made
                return made
            }
        }

        /// How many representations have been rendered so far.
        var renderedCount: Int {
            rendered.withLock { slots in slots.reduce(0) { $0 + ($1 == nil ? 0 : 1) } }
        }
    }

    /// What a bundle is assembled from: the entries in id order and the aliases. Shared by the
    /// bundles of one snapshot; it does not reference the snapshot (which owns the bundles).
    private final class BundleContents: Sendable {
        let entries: [String: Entry]
        /// Template ids in order.
        let ids: [String]
        /// Alias → canonical id.
        let aliases: [String: String]

        init(entries: [String: Entry], ids: [String], aliases: [String: String]) {
            self.entries = entries
            self.ids = ids
            self.aliases = aliases
        }

        /// The bundle in `locale` for `platform`, joined from the templates' representations.
        func assemble(locale: String, platform: Platform) -> [UInt8] {
            TemplateRenderer.writeBundle(
                ids.lazy.map { self.entries[$0]! },
                aliases: aliases,
                locale: locale,
                platform: platform,
                capacity: max(16 * 1024, ids.count * 640),
                localeSet: \.locales
            ) { entry, resolved, writer in
                if let representation = entry.representation(locale: resolved, platform: platform) {
                    writer.raw(representation.identity.body.array)
                }
            }
        }
    }

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

    /// Builds the snapshot of `catalogue`.
    /// - Parameters:
    ///   - revisions: the store revision of each template, to order concurrent publications.
    ///   - previous: a snapshot whose entries (and what they rendered) are reused for templates
    ///     that did not change.
    ///   - policies: the app policies; `nil` keeps those of `previous`.
    package convenience init(
        catalogue: Catalogue,
        revisions: [String: Int] = [:],
        reusing previous: CatalogueSnapshot? = nil,
        policies: [StoredAppPolicy]? = nil
    ) {
        var entries: [String: Entry] = [:]
        var sets = LocaleSetCache()
        for template in catalogue.templates {
            let revision = revisions[template.id] ?? 0
            let entry: Entry
            if let reused = previous?.entries[template.id], reused.template.id == template.id,
                reused.revision == revision, reused.template == template
            {
                entry = reused
            } else {
                entry = Entry(template: template, revision: revision, locales: sets.localeSet(of: template))
            }
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
            }
        )
    }

    /// The entry whose id (not alias) is `id`.
    private static func template(_ id: String, in entries: [String: Entry]) -> Entry? {
        entries[id].flatMap { $0.template.id == id ? $0 : nil }
    }

    /// A copy of `base` with other app policies: the templates, bundles and everything they
    /// rendered are shared.
    private init(_ base: CatalogueSnapshot, appStatus: AppStatusBook) {
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
        unchangedLocales previous: CatalogueSnapshot? = nil,
        localeCounts: [String: Int]? = nil
    ) {
        self.entries = entries
        self.appStatus = appStatus
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

    /// The bundles of `contents`, each assembled on first request; their ETags derive from the
    /// content digest, the template count, the locale and the platform.
    private static func bundles(
        of contents: BundleContents,
        locales: [String],
        digest: ContentDigest,
        count: Int
    ) -> [String: [Representation]] {
        var bundles: [String: [Representation]] = [:]
        for locale in locales {
            bundles[locale] = Platform.allCases.map { platform in
                let key = Array("bundle-v1|\(locale)|\(platform.rawValue)|\(count)|\(digest.hex)".utf8)
                return Representation(tag: "b" + ContentDigest(key).hex, contentLanguage: locale) {
                    contents.assemble(locale: locale, platform: platform)
                }
            }
        }
        return bundles
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
    /// - Returns: the snapshot, and every name (id or alias) whose answers may have changed.
    package func applying(_ change: CatalogueState.Change) -> (snapshot: CatalogueSnapshot, names: Set<String>)? {
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
            let entry = Entry(template: template, revision: stored.revision, locales: locales)
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
        if !names.isDisjoint(with: AppStatusBook.templateIDs) {
            appStatus = appStatus.reloadingTemplates { Self.template($0, in: entries) }
            names.formUnion(AppStatusBook.allMemoNames)
        }
        let next = CatalogueSnapshot(
            entries: entries,
            ids: ids,
            aliases: aliases,
            removed: removed,
            digest: digest,
            revisionSum: revisionSum,
            appStatus: appStatus,
            unchangedLocales: sameLocales ? self : nil,
            localeCounts: sameLocales ? counts : nil
        )
        return (next, names)
    }

    /// The next snapshot with `stored` as its platform's app policy; costs that platform's answers.
    /// - Returns: the snapshot, and the memo name of the answers that may have changed.
    package func applying(policy stored: StoredAppPolicy) -> (snapshot: CatalogueSnapshot, names: Set<String>) {
        let book = appStatus.replacing(stored) { Self.template($0, in: entries) }
        return (CatalogueSnapshot(self, appStatus: book), [AppStatusBook.memoName(stored.policy.platform)])
    }

    /// The name under which the memo remembers bundle answers: never a template id or alias.
    package static let bundleMemoName = ""

    /// The template with this id or alias.
    package func entry(named name: String) -> Entry? { entries[name] }

    package func bundle(locale: String, platform: Platform) -> Representation? {
        bundles[locale]?[platform.index]
    }

    /// The number of templates served.
    package var templateCount: Int { contents.ids.count }

    /// Alias → canonical id.
    package var aliases: [String: String] { contents.aliases }

    /// The bundle in `locale` for `platform` with placeholder values: rendered for one request.
    package func renderBundle(locale: String, platform: Platform, parameters: [String: String]) -> [UInt8] {
        TemplateRenderer.writeBundle(
            contents.ids.lazy.map { self.entries[$0]! },
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

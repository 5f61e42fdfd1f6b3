import EmptyStateCore
import EmptyStateStore
import Testing

@testable import EmptyStateService
@testable import HTTPServer

/// The memo's tags as the catalogue decides them: what a publication forgets is a set of typed
/// tags, so a template's name can reach its own answers only, however it is spelled.
@Suite("CatalogueMemoTag: what a publication forgets")
struct CatalogueMemoTagTests {
    /// A memo holding one answer under each tag, its key the tag's description.
    private final class TaggedMemo {
        let memo = ResponseMemo(capacity: 4096)
        private let answer = PreparedResponse(status: 200, headers: [], body: SharedBytes(Array("{}".utf8)))

        init(_ tags: [CatalogueMemoTag]) {
            for tag in tags {
                Array("\(tag)".utf8).withUnsafeBytes { bytes in
                    let key = memo.key(bytes)
                    guard case .miss(let generation) = memo.lookUp(key) else { return }
                    memo.remember(answer, for: key, generation: generation, route: "/r", method: .get, tag: tag)
                }
            }
        }

        /// Whether the answer tagged `tag` is still remembered.
        func remembers(_ tag: CatalogueMemoTag) -> Bool {
            Array("\(tag)".utf8).withUnsafeBytes { bytes in
                if case .hit = memo.lookUp(memo.key(bytes)) { return true }
                return false
            }
        }
    }

    /// The tags of the answers other than templates', and templates named like the string names
    /// they had before tags were typed (`app-status:` + platform, `""` for the bundles, the
    /// assets' control character).
    private static let others: [CatalogueMemoTag] = [.bundles, .appStatus(.ios), .appStatus(.android), .webAssets]
    private static let lookalikes: [CatalogueMemoTag] = [
        .template("app-status:ios"), .template("app-status:android"), .template(""), .template("\u{1}assets"),
    ]

    @Test("a template id holding the old separator (or any old name) forgets its own answers and no other entry")
    func lookalikeNamesReachNothingElse() {
        let tagged = TaggedMemo(Self.others + Self.lookalikes + [.template("loading")])
        #expect(tagged.memo.count == 9)
        tagged.memo.invalidate(.tags(Set(Self.lookalikes)))
        for tag in Self.lookalikes { #expect(!tagged.remembers(tag), "\(tag)") }
        for tag in Self.others + [.template("loading")] { #expect(tagged.remembers(tag), "\(tag)") }
    }

    @Test("a template's publication forgets its names and the bundles; app status and assets stay")
    func templateChange() throws {
        let snapshot = try ServiceFixture.snapshot()
        var loading = try #require(snapshot.entry(named: "loading")).template
        loading.strings[0].values["title"] = "Hold on"
        let (_, tags) = try #require(
            snapshot.applying(.upsert(StoredTemplate(template: loading, revision: 9, updatedAt: "", updatedBy: "t")))
        )
        #expect(tags == Set([.template("loading"), .bundles] + loading.aliases.map(CatalogueMemoTag.template)))

        let tagged = TaggedMemo(Self.others + [.template("loading"), .template("connectionRefused")])
        tagged.memo.invalidate(.tags(tags))
        #expect(!tagged.remembers(.template("loading")) && !tagged.remembers(.bundles))
        for tag: CatalogueMemoTag in [
            .appStatus(.ios), .appStatus(.android), .webAssets, .template("connectionRefused"),
        ] {
            #expect(tagged.remembers(tag), "\(tag)")
        }
    }

    @Test("a policy's publication forgets that platform's app status only")
    func policyChange() throws {
        let swaps = Swaps()
        let state = CatalogueState(try ServiceFixture.snapshot()) { swaps.append($0) }
        let policy = AppPolicy(
            platform: .android,
            minimumVersion: AppVersion("2.0")!,
            latestVersion: AppVersion("3.0")!,
            minimumOSVersion: nil,
            blockedVersions: [],
            storeURL: "https://play.google.com/store/apps/details?id=com.example",
            rolloutPercentage: 100
        )
        #expect(state.publish(policy: StoredAppPolicy(policy: policy, revision: 1, updatedAt: "", updatedBy: "t")))
        #expect(swaps.all == [.tags([.appStatus(.android)])])

        let tagged = TaggedMemo(Self.others + [.template("loading")])
        tagged.memo.invalidate(swaps.all[0])
        #expect(!tagged.remembers(.appStatus(.android)))
        for tag: CatalogueMemoTag in [.bundles, .appStatus(.ios), .webAssets, .template("loading")] {
            #expect(tagged.remembers(tag), "\(tag)")
        }
    }

    @Test("a rebuild forgets everything")
    func rebuild() {
        let tagged = TaggedMemo(Self.others + Self.lookalikes)
        tagged.memo.invalidate(.everything)
        #expect(tagged.memo.count == 0)
    }
}

import EmptyStateCore
import EmptyStateStore
import EmptyStateWeb
import HTTPServer
import Testing

@testable import EmptyStateService

@Suite("CatalogueSnapshot")
struct CatalogueSnapshotTests {
    @Test(
        "bundles assembled from the templates' representations equal a fresh rendering",
        arguments: ["en", "ar", "pt-BR", "en-XA"]
    )
    func bundlesMatchRenderer(locale: String) throws {
        let catalogue = try ServiceFixture.catalogue()
        let snapshot = CatalogueSnapshot(catalogue: catalogue)
        for platform in Platform.allCases {
            let assembled = try #require(snapshot.bundle(locale: locale, platform: platform)).identity.body.array
            let rendered = TemplateRenderer.renderBundle(
                catalogue,
                locale: locale,
                platform: platform,
                icons: IconSet.lucide
            )
            #expect(assembled == rendered, "bundle \(locale)/\(platform) differs")
        }
    }

    /// The built-ins with the French title of `loading` changed.
    private func editedLoading(_ catalogue: Catalogue) throws -> Template {
        var template = try #require(catalogue.template(named: "loading"))
        let frIndex = try #require(template.strings.firstIndex { $0.locale == "fr" })
        template.strings[frIndex].values["title"] = "Un instant…"
        return template
    }

    private func etag(_ snapshot: CatalogueSnapshot, _ id: String, _ locale: String) -> String? {
        snapshot.entry(named: id)?.representation(locale: locale, platform: .ios)?.etag
    }

    @Test("publishing one change makes one entry: other entries are shared, its ETags change")
    func incrementalPublish() throws {
        let catalogue = try ServiceFixture.catalogue()
        let before = CatalogueSnapshot(catalogue: catalogue)
        let edited = try editedLoading(catalogue)
        let (after, tags) = try #require(
            before.applying(.upsert(StoredTemplate(template: edited, revision: 2, updatedAt: "", updatedBy: "t")))
        )
        #expect(tags == [.template("loading"), .bundles])
        #expect(after.entry(named: "connectionRefused") === before.entry(named: "connectionRefused"))
        #expect(after.entry(named: "loading") !== before.entry(named: "loading"))
        #expect(etag(after, "loading", "fr") != etag(before, "loading", "fr"))
        // Every representation of the changed template carries its new `revision`, so its other
        // locales change too; other templates keep their bytes.
        #expect(etag(after, "loading", "de") != etag(before, "loading", "de"))
        #expect(etag(after, "pageNotAvailable", "fr") == etag(before, "pageNotAvailable", "fr"))
        #expect(after.bundle(locale: "fr", platform: .ios)?.etag != before.bundle(locale: "fr", platform: .ios)?.etag)
        #expect(after.revision(of: "loading") == 2)
    }

    @Test("a snapshot changed in place equals one built from scratch: same bundle bytes and ETags")
    func incrementalEqualsRebuilt() throws {
        let catalogue = try ServiceFixture.catalogue()
        let edited = try editedLoading(catalogue)
        let rebuilt = CatalogueSnapshot(
            catalogue: try Catalogue(templates: catalogue.templates.map { $0.id == "loading" ? edited : $0 })
        )
        let (applied, _) = try #require(
            CatalogueSnapshot(catalogue: catalogue).applying(
                .upsert(StoredTemplate(template: edited, revision: 0, updatedAt: "", updatedBy: "t"))
            )
        )
        for locale in ["en", "fr", "ar-XB"] {
            for platform in Platform.allCases {
                let a = try #require(applied.bundle(locale: locale, platform: platform))
                let b = try #require(rebuilt.bundle(locale: locale, platform: platform))
                #expect(a.etag == b.etag, "\(locale)/\(platform)")
                #expect(a.identity.body.array == b.identity.body.array, "\(locale)/\(platform)")
            }
        }
        #expect(applied.locales == rebuilt.locales)
        #expect(applied.templateCount == rebuilt.templateCount)
    }

    @Test("adding, then removing, a template gives back the bundles' ETags; a clash is refused")
    func addRemoveAndClash() throws {
        let catalogue = try ServiceFixture.catalogue()
        let base = CatalogueSnapshot(catalogue: catalogue)
        var copy = try #require(catalogue.template(named: "loading"))
        copy.id = "loadingCopy"
        copy.aliases = ["stillLoading"]
        let (added, tags) = try #require(
            base.applying(.upsert(StoredTemplate(template: copy, revision: 1, updatedAt: "", updatedBy: "t")))
        )
        #expect(tags == [.template("loadingCopy"), .template("stillLoading"), .bundles])
        #expect(added.templateCount == base.templateCount + 1)
        #expect(added.entry(named: "stillLoading")?.template.id == "loadingCopy")
        #expect(added.bundle(locale: "en", platform: .web)?.etag != base.bundle(locale: "en", platform: .web)?.etag)
        let (removed, _) = try #require(added.applying(.remove(id: "loadingCopy", revision: 2)))
        #expect(removed.entry(named: "stillLoading") == nil)
        #expect(removed.revision(of: "loadingCopy") == 2)
        #expect(added.revisionSum == base.revisionSum + 1)
        #expect(removed.revisionSum == base.revisionSum + 2, "a removal counts with its revision")
        #expect(removed.bundle(locale: "en", platform: .web)?.etag == base.bundle(locale: "en", platform: .web)?.etag)

        var clash = copy
        clash.aliases = ["noNetwork"]  // an alias of connectionRefused
        #expect(
            base.applying(.upsert(StoredTemplate(template: clash, revision: 1, updatedAt: "", updatedBy: "t"))) == nil
        )
    }

    @Test("two snapshots of the same content, built apart, give the same ETags (as replicas must)")
    func sameContentSameETags() throws {
        let a = CatalogueSnapshot(catalogue: try ServiceFixture.catalogue())
        let b = CatalogueSnapshot(catalogue: try ServiceFixture.catalogue())
        for locale in ["en", "ja"] {
            #expect(
                a.bundle(locale: locale, platform: .android)?.etag == b.bundle(locale: locale, platform: .android)?.etag
            )
            #expect(etag(a, "connectionRefused", locale) == etag(b, "connectionRefused", locale))
        }
    }
}

import EmptyStateCore
import HTTPServer
import Testing

@testable import EmptyStateService

@Suite("CatalogueSnapshot")
struct CatalogueSnapshotTests {
    @Test(
        "bundles assembled from pre-rendered templates equal a fresh rendering",
        arguments: ["en", "ar", "pt-BR", "en-XA"]
    )
    func bundlesMatchRenderer(locale: String) throws {
        let snapshot = try ServiceFixture.snapshot()
        for platform in Platform.allCases {
            let assembled = try #require(snapshot.bundle(locale: locale, platform: platform)).identity.body.array
            let rendered = TemplateRenderer.renderBundle(snapshot.catalogue, locale: locale, platform: platform)
            #expect(assembled == rendered, "bundle \(locale)/\(platform) differs")
        }
    }

    @Test("publishing one change re-renders that template only: other ETags stay, its ETags change")
    func incrementalRebuild() throws {
        let before = try ServiceFixture.snapshot()
        var templates = before.catalogue.templates
        let index = try #require(templates.firstIndex { $0.id == "loading" })
        let frIndex = try #require(templates[index].strings.firstIndex { $0.locale == "fr" })
        templates[index].strings[frIndex].values["title"] = "Un instant…"
        let after = CatalogueSnapshot(catalogue: try Catalogue(templates: templates), reusing: before)

        #expect(after.entry(named: "connectionRefused") === before.entry(named: "connectionRefused"))
        #expect(after.entry(named: "loading") !== before.entry(named: "loading"))
        let etag = { (snapshot: CatalogueSnapshot, id: String, locale: String) in
            snapshot.entry(named: id)?.representation(locale: locale, platform: .ios)?.identity.etag
        }
        #expect(etag(after, "loading", "fr") != etag(before, "loading", "fr"))
        #expect(etag(after, "loading", "de") == etag(before, "loading", "de"))
        #expect(etag(after, "pageNotAvailable", "fr") == etag(before, "pageNotAvailable", "fr"))
        #expect(
            after.bundle(locale: "fr", platform: .ios)?.identity.etag
                != before.bundle(locale: "fr", platform: .ios)?.identity.etag
        )
    }
}

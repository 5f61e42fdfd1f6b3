import EmptyStateCore
import Foundation
import HTTPServer
import JSONCoding
import Testing

@testable import EmptyStateService

/// Issue 35's "stops that stop": a variant answer is cached at most `ClientAPI.variantStopBound`
/// seconds (120) without revalidation, so an app that caches by the answer's `Cache-Control`
/// shows a stopped experiment's variant for at most that long.
@Suite("Experiments: a stop reaches a cached variant within the stated bound")
struct ExperimentStopBoundTests {
    /// A private HTTP cache as an app's URL cache keeps one answer (RFC 9111 freshness, RFC 5861
    /// `stale-while-revalidate`): fresh for `max-age`; then, for `stale-while-revalidate` more,
    /// the stale copy is shown once more while a revalidation runs in the background (its answer
    /// replaces the copy); past that, the cache revalidates before showing anything.
    private struct AppCache {
        var stored: HTTPResponse
        var storedAt: Int

        static func seconds(_ directive: String, in cacheControl: String) -> Int {
            for part in cacheControl.split(separator: ",") {
                let pieces = part.split(separator: "=").map { $0.trimmingCharacters(in: .whitespaces) }
                if pieces.count == 2, pieces[0] == directive, let value = Int(pieces[1]) { return value }
            }
            return 0
        }

        /// The title the app shows at `now`, revalidating through `fetch` (with `If-None-Match`).
        mutating func show(at now: Int, fetch: ([(name: String, value: String)]) -> HTTPResponse) throws -> String {
            let cacheControl = stored.header("Cache-Control") ?? ""
            let maxAge = Self.seconds("max-age", in: cacheControl)
            let stale = Self.seconds("stale-while-revalidate", in: cacheControl)
            let age = now - storedAt
            let shown = try stored.json()["title"]?.stringValue ?? ""
            if age <= maxAge { return shown }
            let revalidated = fetch([("If-None-Match", stored.header("ETag") ?? "")])
            if revalidated.status == 304 {
                storedAt = now
            } else {
                stored = revalidated
                storedAt = now
            }
            // Within stale-while-revalidate the stale copy was shown while the new one came.
            return age <= maxAge + stale ? shown : try stored.json()["title"]?.stringValue ?? ""
        }
    }

    @Test("variant answers: private, max-age 60, stale-while-revalidate 60; stale-if-error kept")
    func header() {
        #expect(ClientAPI.variantStopBound == 120)
        #expect(
            ClientAPI.variantCacheControl(
                from: "public, max-age=300, stale-while-revalidate=86400, stale-if-error=604800"
            ) == "private, max-age=60, stale-while-revalidate=60, stale-if-error=604800"
        )
        // A shorter configuration is kept; no stale-while-revalidate stays none.
        #expect(
            ClientAPI.variantCacheControl(from: "public, max-age=30, stale-if-error=10")
                == "private, max-age=30, stale-if-error=10"
        )
        #expect(ClientAPI.variantCacheControl(from: "public, max-age=0") == "private, max-age=0")
    }

    @Test("stopped at second 10: whatever the app's schedule, nothing past 10 + 120 s shows the variant")
    func cachedVariantReplaced() throws {
        let running = ExperimentFixture.experiment()
        let state = try ExperimentFixture.state(running)
        let api = ClientAPI(state: state, cacheControl: ServiceFixture.cacheControl)
        let install = ExperimentFixture.install(getting: "b")
        let fetch = { (headers: [(name: String, value: String)]) in
            api.template(
                ServiceFixture.request(
                    "connectionRefused",
                    query: [("locale", "en")],
                    headers: headers + [("X-Install-ID", install)]
                )
            )
        }
        let stopAt = 10
        let bound = ClientAPI.variantStopBound
        var revision = 1
        // Every schedule of displays one to 59 seconds apart, each app from its first fetch at 0.
        for step in 1..<60 {
            let first = fetch([])
            try #require(try first.json()["title"]?.stringValue == ExperimentFixture.title)
            var cache = AppCache(stored: first, storedAt: 0)
            var stopped = false
            var lastVariantSeen = 0
            for now in stride(from: step, through: 600, by: step) {
                if !stopped, now >= stopAt {
                    revision += 1
                    #expect(
                        state.publish(
                            experiment: ExperimentFixture.stored(
                                ExperimentFixture.experiment(status: .stopped),
                                revision: revision
                            )
                        )
                    )
                    stopped = true
                }
                if try cache.show(at: now, fetch: fetch) == ExperimentFixture.title { lastVariantSeen = now }
            }
            #expect(lastVariantSeen <= stopAt + bound, "displays every \(step) s: b seen at \(lastVariantSeen) s")
            // Back to running for the next schedule.
            revision += 1
            #expect(state.publish(experiment: ExperimentFixture.stored(running, revision: revision)))
        }
    }
}

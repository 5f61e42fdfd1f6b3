import EmptyStateCore
import EmptyStateStore
import HTTPServer
import Synchronization

/// The routes for operators rather than apps: liveness, readiness, the contract and metrics.
struct OperationalRoutes: Sendable {
    let state: CatalogueState
    let shared: (any SharedStore)?
    let readiness: Readiness
    let metrics: ServiceMetrics
    let openAPI: [UInt8]

    func register(on router: inout Router) {
        let openAPIBody = SharedBytes(openAPI)
        let openAPIETag = "\"\(ContentHash.hex(openAPI))\""
        let state = state
        let shared = shared
        let readiness = readiness
        let metrics = metrics
        router.get("/healthz") { _ in
            HTTPResponse(
                status: 200,
                headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                body: .bytes(Array(#"{"status":"ok"}"#.utf8))
            )
        }
        // Ready means "can serve reads": the snapshot is loaded and the server is not shutting
        // down. A database outage does not make a replica unready: every replica shares the
        // database, so taking them out of the load balancer would stop the reads they can
        // still serve. The body says whether writes can be served now.
        router.get("/readyz") { [readiness, state, shared] request in
            guard readiness.isReady else {
                return ProblemDetails(
                    status: 503,
                    slug: "not-ready",
                    title: "Service Unavailable",
                    detail: "The service is starting or shutting down."
                ).response(requestID: request.id, extraHeaders: [("Retry-After", "1")])
            }
            return HTTPResponse(
                status: 200,
                headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                body: .bytes(
                    Array(
                        #"{"status":"ready","templates":\#(state.snapshot.templateCount),"store":"\#(shared?.isReachable == false ? "unavailable" : "ok")"}"#
                            .utf8
                    )
                )
            )
        }
        router.get("/openapi.yaml") { request in
            if let condition = request.headers["if-none-match"],
                ConditionalRequests.noneMatch(condition, matches: openAPIETag)
            {
                return HTTPResponse(status: 304, headers: [("ETag", openAPIETag)])
            }
            return HTTPResponse(
                status: 200,
                headers: [
                    ("Content-Type", "application/yaml"), ("ETag", openAPIETag),
                    ("Cache-Control", "public, max-age=300"),
                ],
                body: .shared(openAPIBody)
            )
        }
        // For the scrape network only: no authentication (see docs/observability.md, "Metrics"). On the
        // event loop, so that it answers when every worker is busy: nothing in it reads the store.
        router.get("/metrics") { [state] _ in metrics.scrape(catalogue: state.snapshot) }
    }
}

/// Whether `/readyz` says ready: set after the server binds, cleared when shutdown begins.
final class Readiness: Sendable {
    private let flag = Atomic<Bool>(false)

    var isReady: Bool {
        get { flag.load(ordering: .relaxed) }
        set { flag.store(newValue, ordering: .relaxed) }
    }
}

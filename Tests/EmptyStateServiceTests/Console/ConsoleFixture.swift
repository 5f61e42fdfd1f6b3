import EmptyStateCore
import EmptyStateSQLite
import EmptyStateStore
import Foundation
import HTTPServer
import JSONCoding
import Logging
import Synchronization

@testable import EmptyStateService

/// The admin API as the console meets it: the built-in catalogue in a SQLite store of its own,
/// an editor and a viewer token, console sessions on a clock the test moves, and the routes
/// behind one router.
final class ConsoleFixture: Sendable {
    static let editorSecret = "editor-secret-0123456789"
    static let viewerSecret = "viewer-secret-0123456789"
    static let host = "127.0.0.1:8080"
    static let origin = "http://127.0.0.1:8080"

    let store: SQLiteTemplateStore
    let state: CatalogueState
    let router: Router
    /// The sessions' clock, in milliseconds since the epoch.
    private final class Clock: Sendable {
        let now: Mutex<Int64>
        init(_ start: Int64) { now = Mutex(start) }
    }

    private let clock: Clock

    /// - Parameters:
    ///   - tokens: the configured tokens (a session of a token no longer listed ends).
    ///   - publicOrigin: `--public-url`.
    ///   - store: a store to share with another fixture ("another replica").
    init(
        tokens: [AdminToken] = ConsoleFixture.tokens,
        publicOrigin: PublicOrigin? = nil,
        store shared: SQLiteTemplateStore? = nil,
        clock start: Int64 = 1_772_323_200_000
    ) throws {
        if let shared {
            store = shared
        } else {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "console-\(UUID().uuidString)"
            )
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            store = try SQLiteTemplateStore(
                path: directory.appendingPathComponent("store.sqlite").path,
                logger: Logger(label: "test")
            )
            try store.importBuiltins(try ServiceFixture.catalogue().templates)
        }
        state = CatalogueState(try ServiceFixture.snapshot())
        try state.republish(from: store)
        let clock = Clock(start)
        self.clock = clock
        var sessions = ConsoleSessions(store: store, publicOrigin: publicOrigin)
        sessions.now = { clock.now.withLock { $0 } }
        var authorization = AdminAuthorization(tokens: tokens)
        authorization.sessions = sessions
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        var router = Router()
        AdminAPI(
            store: store,
            state: state,
            authorization: authorization,
            logger: logger,
            eventRetentionDays: 30,
            translations: TranslationCatalogue(state: state, store: store),
            importLimits: TranslationImportLimits(maximumBytes: ServiceConfiguration().maxImportSize)
        ).register(on: &router)
        ConsoleRoutes(illustrationBaseURL: "https://cdn.example.com/illustrations/{name}.svg").register(on: &router)
        self.router = router
    }

    static let tokens = [
        AdminToken(name: "alice", role: .editor, secret: editorSecret),
        AdminToken(name: "victor", role: .viewer, secret: viewerSecret),
    ]

    /// Moves the sessions' clock on.
    func advance(milliseconds: Int64) { clock.now.withLock { $0 += milliseconds } }

    /// One request through the router, as the server hands it over (with `Host`).
    func send(
        _ method: HTTPMethod,
        _ path: String,
        query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)] = [],
        json: JSONValue? = nil,
        body: String? = nil
    ) -> HTTPResponse {
        var all = [("Host", Self.host)] + headers
        var bytes: [UInt8] = []
        if let json {
            var writer = JSONWriter()
            writer.value(json)
            bytes = writer.bytes
            all.append(("Content-Type", "application/json"))
        } else if let body {
            bytes = Array(body.utf8)
            all.append(("Content-Type", "application/json"))
        }
        var request = HTTPRequest(
            method: method,
            path: path,
            query: query,
            headers: HTTPHeaders(all),
            body: bytes,
            id: "test"
        )
        switch router.match(method: method, path: path) {
        case .handler(let handler, let parameters):
            request.pathParameters = parameters
            return handler(request)
        case .notFound:
            return HTTPResponse(status: 404)
        case .methodNotAllowed:
            return HTTPResponse(status: 405)
        }
    }

    /// Signs in with `secret` from the console's origin; the `Cookie` header to send after.
    func signIn(_ secret: String = ConsoleFixture.editorSecret) throws -> (name: String, value: String) {
        let response = send(
            .post,
            "/v1/admin/session",
            headers: [("Origin", Self.origin)],
            json: .object([("token", .string(secret))])
        )
        guard response.status == 201, let setCookie = response.header("Set-Cookie") else {
            throw FixtureError(description: "sign-in answered \(response.status): \(response.bodyText)")
        }
        return ("Cookie", String(setCookie.split(separator: ";")[0]))
    }

    struct FixtureError: Error, CustomStringConvertible {
        var description: String
    }
}

extension HTTPResponse {
    /// The problem type's slug (`forbidden`), or nil.
    var problemSlug: String? {
        guard case .string(let type)? = try? json()["type"] else { return nil }
        return type.split(separator: ":").last.map(String.init)
    }
}

import EmptyStateStore
import HTTPServer
import JSONCoding
import Testing

@testable import EmptyStateService

@Suite("Console sessions: sign-in, the cookie, expiry, sign-out")
struct ConsoleSessionTests {
    @Test("signing in answers 201 with an HttpOnly, SameSite=Strict cookie that is not the token")
    func signIn() throws {
        let fixture = try ConsoleFixture()
        let response = fixture.send(
            .post,
            "/v1/admin/session",
            headers: [("Origin", ConsoleFixture.origin)],
            json: .object([("token", .string(ConsoleFixture.editorSecret))])
        )
        #expect(response.status == 201)
        let cookie = try #require(response.header("Set-Cookie"))
        #expect(cookie.hasPrefix("es_console="))
        #expect(cookie.hasSuffix("; Path=/; Max-Age=43200; HttpOnly; SameSite=Strict"))
        #expect(!cookie.contains(ConsoleFixture.editorSecret))
        let id = cookie.dropFirst("es_console=".count).prefix { $0 != ";" }
        #expect(id.count == 43 && id.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        // The store keeps only the hash of the session id.
        #expect(try fixture.store.session(idHash: String(id)) == nil)
        #expect(try fixture.store.session(idHash: SecretDigest.sha256Hex(String(id)))?.tokenName == "alice")
        let body = try response.json()
        #expect(body["role"] == "editor" && body["authenticatedBy"] == "session" && body["eventRetentionDays"] == 30)
    }

    @Test("behind TLS (--public-url https://…) the cookie is Secure, under the __Host- prefix")
    func secure() throws {
        let fixture = try ConsoleFixture(publicOrigin: PublicOrigin(url: "https://console.example.com/"))
        let response = fixture.send(
            .post,
            "/v1/admin/session",
            headers: [("Origin", "https://console.example.com")],
            json: .object([("token", .string(ConsoleFixture.editorSecret))])
        )
        #expect(response.status == 201)
        let cookie = try #require(response.header("Set-Cookie"))
        #expect(cookie.hasPrefix("__Host-es_console=") && cookie.hasSuffix("; SameSite=Strict; Secure"))
        let session = (name: "Cookie", value: String(cookie.split(separator: ";")[0]))
        #expect(fixture.send(.get, "/v1/admin/session", headers: [session]).status == 200)
        // The plain name is not read when the service is behind TLS: no credentials at all.
        let plain = ("Cookie", "es_console=" + cookie.split(separator: "=")[1].split(separator: ";")[0])
        #expect(fixture.send(.get, "/v1/admin/templates/loading", headers: [plain]).status == 401)
        #expect(fixture.send(.get, "/v1/admin/session", headers: [plain]).status == 204)
    }

    @Test("a token that is not one: 401 without a bearer challenge; no token: 422; another origin: 403")
    func refusals() throws {
        let fixture = try ConsoleFixture()
        let wrong = fixture.send(.post, "/v1/admin/session", json: .object([("token", "not-a-token-0123456789")]))
        #expect(wrong.status == 401 && wrong.header("WWW-Authenticate") == nil && wrong.header("Set-Cookie") == nil)
        #expect(fixture.send(.post, "/v1/admin/session", json: .object([("secret", "x")])).status == 422)
        #expect(fixture.send(.post, "/v1/admin/session", body: "[]").status == 400)
        let elsewhere = fixture.send(
            .post,
            "/v1/admin/session",
            headers: [("Origin", "http://elsewhere.example")],
            json: .object([("token", .string(ConsoleFixture.editorSecret))])
        )
        #expect(elsewhere.status == 403 && elsewhere.problemSlug == "cross-origin-request")
    }

    @Test("who am I without credentials: 204, nobody signed in; credentials refused: 401; other routes: 401")
    func nobodySignedIn() throws {
        let fixture = try ConsoleFixture()
        let nobody = fixture.send(.get, "/v1/admin/session")
        #expect(
            nobody.status == 204 && nobody.header("Cache-Control") == "no-store" && nobody.header("Set-Cookie") == nil
        )
        #expect(fixture.send(.head, "/v1/admin/session").status == 204)
        // Offered and refused: a wrong token, a session id that names no session.
        #expect(
            fixture.send(.get, "/v1/admin/session", headers: [("Authorization", "Bearer not-a-token-0123456789")])
                .status == 401
        )
        let ended = fixture.send(
            .get,
            "/v1/admin/session",
            headers: [("Cookie", "es_console=" + String(repeating: "A", count: 43))]
        )
        #expect(ended.status == 401 && ended.header("Set-Cookie")?.contains("Max-Age=0") == true)
        // Only who-am-I answers nobody: every other admin route still needs credentials.
        #expect(fixture.send(.get, "/v1/admin/templates/loading").status == 401)
    }

    @Test("the cookie authenticates every admin route; a bearer token is judged alone")
    func cookieAuthenticates() throws {
        let fixture = try ConsoleFixture()
        let cookie = try fixture.signIn()
        #expect(fixture.send(.get, "/v1/admin/templates/loading", headers: [cookie]).status == 200)
        #expect(fixture.send(.get, "/v1/admin/analytics/summary", headers: [cookie]).status != 401)
        // A wrong bearer token is not rescued by a valid cookie.
        let both = fixture.send(
            .get,
            "/v1/admin/templates/loading",
            headers: [cookie, ("Authorization", "Bearer nope")]
        )
        #expect(both.status == 401)
        let who = try fixture.send(
            .get,
            "/v1/admin/session",
            headers: [("Authorization", "Bearer " + ConsoleFixture.viewerSecret)]
        ).json()
        #expect(who["authenticatedBy"] == "token" && who["role"] == "viewer")
    }

    @Test("a session ends after 30 minutes idle, is refreshed by activity, and ends after 12 hours regardless")
    func expiry() throws {
        let fixture = try ConsoleFixture()
        let cookie = try fixture.signIn()
        fixture.advance(milliseconds: 29 * 60_000)
        #expect(fixture.send(.get, "/v1/admin/session", headers: [cookie]).status == 200)
        fixture.advance(milliseconds: 29 * 60_000)  // 29 min after the last request: still live
        #expect(fixture.send(.get, "/v1/admin/session", headers: [cookie]).status == 200)
        fixture.advance(milliseconds: 30 * 60_000)
        let idle = fixture.send(.get, "/v1/admin/session", headers: [cookie])
        #expect(idle.status == 401 && idle.header("Set-Cookie")?.contains("Max-Age=0") == true)

        let busy = try fixture.signIn()
        for _ in 0..<24 {  // a request every 29 minutes for 11.6 hours
            fixture.advance(milliseconds: 29 * 60_000)
            #expect(fixture.send(.get, "/v1/admin/session", headers: [busy]).status == 200)
        }
        fixture.advance(milliseconds: 25 * 60_000)
        #expect(fixture.send(.get, "/v1/admin/session", headers: [busy]).status == 401)
    }

    @Test("signing out ends the session on another replica sharing the store, and clears the cookie")
    func signOutEverywhere() throws {
        let first = try ConsoleFixture()
        let second = try ConsoleFixture(store: first.store)
        let cookie = try first.signIn()
        #expect(second.send(.get, "/v1/admin/session", headers: [cookie]).status == 200)
        let out = second.send(.delete, "/v1/admin/session", headers: [cookie, ("Origin", ConsoleFixture.origin)])
        #expect(
            out.status == 204 && out.header("Set-Cookie") == "es_console=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict"
        )
        #expect(first.send(.get, "/v1/admin/session", headers: [cookie]).status == 401)
        // Signing out from another page is refused (a forced sign-out is a CSRF too).
        let again = try first.signIn()
        let forced = first.send(.delete, "/v1/admin/session", headers: [again, ("Origin", "http://evil.example")])
        #expect(forced.status == 403)
        #expect(first.send(.get, "/v1/admin/session", headers: [again]).status == 200)
        // Without credentials: 401; with a bearer token and no cookie: nothing to end.
        #expect(first.send(.delete, "/v1/admin/session").status == 401)
        #expect(
            first.send(
                .delete,
                "/v1/admin/session",
                headers: [("Authorization", "Bearer " + ConsoleFixture.viewerSecret)]
            )
            .status == 204
        )
    }

    @Test("a session lives only while its token is configured with its role")
    func tokenRemoved() throws {
        let first = try ConsoleFixture()
        let cookie = try first.signIn(ConsoleFixture.viewerSecret)
        let demoted = try ConsoleFixture(
            tokens: [
                ConsoleFixture.tokens[0], AdminToken(name: "victor", role: .editor, secret: "another-secret-0123456"),
            ],
            store: first.store
        )
        #expect(demoted.send(.get, "/v1/admin/session", headers: [cookie]).status == 401)
    }

    @Test("session ids are 256 random bits, never repeated")
    func ids() {
        var seen: Set<String> = []
        for _ in 0..<1000 { seen.insert(ConsoleSessions.newID()) }
        #expect(seen.count == 1000 && seen.allSatisfy { $0.count == 43 })
    }
}

@Suite("The CSRF defence: a request made with the console's cookie must come from the console")
struct RequestOriginTests {
    @Test("a change without Origin, or from another origin, is refused; from the console it goes through")
    func changes() throws {
        let fixture = try ConsoleFixture()
        let cookie = try fixture.signIn()
        let template = try fixture.send(.get, "/v1/admin/templates/loading", headers: [cookie]).json()
        let document = try #require(template["template"])
        func put(_ headers: [(name: String, value: String)]) -> HTTPResponse {
            fixture.send(
                .put,
                "/v1/admin/templates/loading",
                query: [("validateOnly", "true")],
                headers: [cookie] + headers,
                json: document
            )
        }
        #expect(put([]).problemSlug == "cross-origin-request")
        #expect(put([("Origin", "http://127.0.0.1:9999")]).status == 403)
        #expect(put([("Origin", "https://127.0.0.1:8080")]).status == 403)
        #expect(put([("Origin", "null")]).status == 403)
        #expect(put([("Origin", ConsoleFixture.origin), ("Sec-Fetch-Site", "same-site")]).status == 403)
        #expect(put([("Origin", ConsoleFixture.origin), ("Sec-Fetch-Site", "none")]).status == 403)
        #expect(put([("Origin", ConsoleFixture.origin)]).status == 200)
        #expect(put([("Origin", ConsoleFixture.origin), ("Sec-Fetch-Site", "same-origin")]).status == 200)
        // A bearer token needs no Origin: tools are unaffected.
        let tool = fixture.send(
            .put,
            "/v1/admin/templates/loading",
            query: [("validateOnly", "true")],
            headers: [("Authorization", "Bearer " + ConsoleFixture.editorSecret)],
            json: document
        )
        #expect(tool.status == 200)
    }

    @Test("reads: refused when another page made them; a typed URL (Sec-Fetch-Site: none) is fine")
    func reads() throws {
        let fixture = try ConsoleFixture()
        let cookie = try fixture.signIn()
        for (site, status) in [("cross-site", 403), ("same-site", 403), ("same-origin", 200), ("none", 200)] {
            #expect(
                fixture.send(.get, "/v1/admin/catalogue", headers: [cookie, ("Sec-Fetch-Site", site)]).status == status
            )
        }
        #expect(fixture.send(.get, "/v1/admin/catalogue", headers: [cookie]).status == 200)
    }

    @Test("with --public-url, the origin is the public one, not the Host the proxy forwards")
    func publicOrigin() throws {
        let fixture = try ConsoleFixture(publicOrigin: PublicOrigin(url: "https://console.example.com"))
        let signIn = fixture.send(
            .post,
            "/v1/admin/session",
            headers: [("Origin", ConsoleFixture.origin)],
            json: .object([("token", .string(ConsoleFixture.editorSecret))])
        )
        #expect(signIn.status == 403)
    }

    @Test("a viewer's session is refused changes by the server, whatever the console shows")
    func viewer() throws {
        let fixture = try ConsoleFixture()
        let cookie = try fixture.signIn(ConsoleFixture.viewerSecret)
        let template = try fixture.send(.get, "/v1/admin/templates/loading", headers: [cookie]).json()
        let document: JSONValue = try #require(template["template"])
        let forged = fixture.send(
            .put,
            "/v1/admin/templates/loading",
            headers: [cookie, ("Origin", ConsoleFixture.origin), ("If-Match", "\"r1\"")],
            json: document
        )
        #expect(forged.status == 403 && forged.problemSlug == "forbidden")
        #expect(try fixture.store.template(id: "loading").revision == 1)
    }
}

@Suite("PublicOrigin: --public-url")
struct PublicOriginTests {
    @Test(
        "the origin browsers write, lowercase, without a default port or path",
        arguments: [
            ("https://Console.Example.com", "https://console.example.com"),
            ("https://console.example.com/", "https://console.example.com"),
            ("https://console.example.com:443", "https://console.example.com"),
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
            ("http://[::1]:8080/", "http://[::1]:8080"),
            ("http://localhost:80", "http://localhost"),
        ]
    )
    func parses(text: String, origin: String) {
        #expect(PublicOrigin(url: text)?.origin == origin)
    }

    @Test(
        "anything else is refused",
        arguments: [
            "ftp://x", "https://", "https://a.example/admin", "https://a b", "x.example", "https://a:0",
            "https://a:70000",
        ]
    )
    func refuses(text: String) {
        #expect(PublicOrigin(url: text) == nil)
    }
}

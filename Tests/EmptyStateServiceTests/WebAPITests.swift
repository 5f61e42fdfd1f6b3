import EmptyStateCore
import EmptyStateWeb
import HTTPServer
import JSONCoding
import Testing

@testable import EmptyStateService

@Suite("WebAPI")
struct WebAPITests {
    private let web: WebAPI

    init() throws {
        web = WebAPI(client: try ServiceFixture.api(), illustrationBaseURL: "https://cdn.example.com/i/{name}.svg")
    }

    private func request(
        _ path: String,
        parameters: [String: String] = [:],
        query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)] = []
    ) -> ClientAPI.Request {
        var request = HTTPRequest(
            method: .get,
            path: path,
            query: query,
            headers: HTTPHeaders(headers),
            id: "test-request"
        )
        for (name, value) in parameters { request.pathParameters[name] = value }
        return ClientAPI.Request(request)
    }

    private func fragment(
        _ id: String,
        page: Bool = false,
        query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)] = []
    ) -> HTTPResponse {
        web.html(
            request("/v1/web/templates/\(id)", parameters: ["id": id], query: query, headers: headers),
            page: page
        )
    }

    private func text(_ response: HTTPResponse) -> String { String(decoding: response.bodyBytes, as: UTF8.self) }

    @Test("the fragment is HTML with the JSON's caching: ETag, Cache-Control, Vary, CORS, CSP")
    func fragmentHeaders() throws {
        let response = fragment("connectionRefused", query: [("locale", "de")])
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/html; charset=utf-8")
        #expect(response.header("Cache-Control") == ServiceFixture.cacheControl)
        #expect(response.header("Content-Language") == "de")
        #expect(response.header("Vary") == "Accept-Encoding")
        #expect(response.header("Access-Control-Allow-Origin") == "*")
        #expect(response.header("Content-Security-Policy")?.contains("default-src 'none'") == true)
        #expect(text(response).contains(#"<h3 class="es-title">Sie sind offline</h3>"#))
        #expect(text(response).contains(IconSet.lucide.svg(named: "wifi-off")!))
    }

    @Test("an alias, Accept-Language, 304 on the ETag, and gzip")
    func negotiation() throws {
        let first = fragment("noNetwork", headers: [("Accept-Language", "fr-CA, fr;q=0.9")])
        #expect(first.header("Content-Language") == "fr")
        #expect(first.header("Vary") == "Accept-Language, Accept-Encoding")
        #expect(text(first).contains(#"data-template="connectionRefused""#))
        let etag = try #require(first.header("ETag"))
        let again = fragment("noNetwork", headers: [("Accept-Language", "fr"), ("If-None-Match", etag)])
        #expect(again.status == 304)
        #expect(again.bodyBytes.isEmpty)
        let zipped = fragment("noNetwork", query: [("locale", "fr")], headers: [("Accept-Encoding", "gzip")])
        #expect(zipped.header("Content-Encoding") == "gzip")
        #expect(gunzip(zipped.bodyBytes) == first.bodyBytes)
    }

    @Test("the JSON ETag and the HTML ETag differ: a cache never confuses them")
    func distinctFromJSON() throws {
        let api = try ServiceFixture.api()
        let json = api.template(ServiceFixture.request("connectionRefused", query: [("locale", "en")]))
        let html = fragment("connectionRefused", query: [("locale", "en")])
        #expect(json.header("ETag") != html.header("ETag"))
    }

    @Test("level picks the heading; the page is a document with an h1 by default")
    func levels() throws {
        #expect(text(fragment("loading", query: [("level", "2")])).contains("<h2 class=\"es-title\">"))
        let page = fragment("loading", page: true, query: [("locale", "ar")])
        #expect(text(page).hasPrefix("<!doctype html>\n<html lang=\"ar\" dir=\"rtl\">"))
        #expect(text(page).contains("<h1 class=\"es-title\">"))
        for bad in ["0", "7", "x", "03", ""] {
            let response = fragment("loading", query: [("level", bad)])
            #expect(response.status == 400, "level=\(bad)")
        }
    }

    @Test("param.* fills placeholders in an answer made for the request alone")
    func placeholders() throws {
        let filled = fragment("verifyIdentity", query: [("locale", "en"), ("param.provider", "<BankID>")])
        #expect(filled.status == 200)
        #expect(text(filled).contains("&lt;BankID&gt;"))
        #expect(!text(filled).contains("<BankID>"))
        #expect(filled.memoTag == nil)
    }

    @Test("an illustration comes from the configured base URL, decorative alt empty")
    func illustration() throws {
        let html = text(fragment("noDocuments", query: [("locale", "en")]))
        #expect(html.contains(#"<img src="https://cdn.example.com/i/empty-documents.svg" alt="""#))
    }

    @Test("unknown template: 404")
    func unknown() {
        #expect(fragment("nothingHere").status == 404)
    }

    @Test("assets: the stable name revalidates, the hashed name is immutable, others 404")
    func assets() throws {
        let css = WebAssets.stylesheet
        let stable = web.asset(request("/v1/web/assets/x", parameters: ["name": css.name]))
        #expect(stable.status == 200)
        #expect(stable.header("Content-Type") == "text/css; charset=utf-8")
        #expect(stable.header("Cache-Control") == ServiceFixture.cacheControl)
        #expect(stable.header("ETag") == "\"\(css.hash)\"")
        #expect(stable.bodyBytes == css.bytes)
        let hashed = web.asset(request("/v1/web/assets/x", parameters: ["name": css.hashedName]))
        #expect(hashed.header("Cache-Control") == "public, max-age=31536000, immutable")
        #expect(hashed.bodyBytes == css.bytes)
        let js = web.asset(request("/v1/web/assets/x", parameters: ["name": "empty-state.js"]))
        #expect(js.header("Content-Type") == "text/javascript; charset=utf-8")
        #expect(web.asset(request("/v1/web/assets/x", parameters: ["name": "../openapi.yaml"])).status == 404)
    }

    @Test("the gallery: every template; bad choices are 400")
    func gallery() throws {
        let page = web.gallery(
            request("/preview", query: [("locale", "ar"), ("size", "200x150"), ("style", "subtle")])
        )
        #expect(page.status == 200)
        let html = text(page)
        for id in try ServiceFixture.catalogue().templates.map(\.id) {
            #expect(html.contains(#"data-template="\#(id)""#), "\(id)")
        }
        #expect(html.contains(#"inline-size: 200px; block-size: 150px;"#))
        #expect(web.gallery(request("/preview", query: [("size", "1x1")])).status == 400)
        #expect(web.gallery(request("/preview", query: [("style", "loud")])).status == 400)
    }

    @Test("platform=web JSON carries the icon's SVG; other platforms do not")
    func svgInJSON() throws {
        let api = try ServiceFixture.api()
        let web = try api.template(ServiceFixture.request("connectionRefused")).json()
        #expect(web["visual"]?["svg"] == .string(IconSet.lucide.svg(named: "wifi-off")!))
        let ios = try api.template(ServiceFixture.request("connectionRefused", query: [("platform", "ios")])).json()
        #expect(ios["visual"]?["svg"] == nil)
        let bundle = try api.bundle(ServiceFixture.request(query: [("platform", "web")])).json()
        let first = try #require(bundle["templates"]?.arrayValue?.first)
        #expect(first["visual"]?["svg"]?.stringValue?.hasPrefix("<svg") == true)
    }

    @Test("the web icon rule: a name outside the set is named at /visual/icon/web")
    func iconRule() throws {
        var template = try #require(try ServiceFixture.catalogue().templates.first { $0.id == "connectionRefused" })
        #expect(WebIconRule.violation(in: template, icons: IconSet.lucide) == nil)
        template.visual = .icon([.ios: "wifi.slash", .android: "wifi_off", .web: "wifi-of"])
        let rule = try #require(WebIconRule.violation(in: template, icons: IconSet.lucide))
        #expect(rule.contains("\"wifi-of\" is not in the web icon set"))
        #expect(rule.contains("wifi-off"))
    }

    @Test("the events preflight allows a JSON post from any origin, with a preview token")
    func preflight() {
        let response = WebAPI.eventsPreflight(HTTPRequest(method: .options, path: "/v1/events", id: "test-request"))
        #expect(response.status == 204)
        #expect(response.header("Access-Control-Allow-Origin") == "*")
        #expect(response.header("Access-Control-Allow-Methods") == "POST")
        #expect(response.header("Access-Control-Allow-Headers") == "Content-Type, X-Preview-Token")
    }
}

import EmptyStateCore
import EmptyStateStore
import EmptyStateWeb
import Foundation
import HTTPServer
import JSONCoding
import Testing

@testable import EmptyStateService

private let editor = (name: "Authorization", value: "Bearer " + ConsoleFixture.editorSecret)

private func ids(_ response: HTTPResponse) throws -> [String] {
    try response.json()["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
}

@Suite("GET /v1/admin/catalogue: search, filters, lint, paging")
struct CatalogueAPITests {
    @Test("search: case-insensitive, any locale, every word; where it matched")
    func search() throws {
        let fixture = try ConsoleFixture()
        func search(_ q: String) throws -> [String] {
            try ids(fixture.send(.get, "/v1/admin/catalogue", query: [("q", q)], headers: [editor]))
        }
        #expect(try search("HORS LIGNE") == ["connectionRefused"])  // French
        #expect(try search("noNetwork") == ["connectionRefused"])  // an alias
        #expect(try search("オフライン").contains("connectionRefused"))  // Japanese
        #expect(try search("offline connection") == ["connectionRefused"])
        #expect(try search("offline zzzz") == [])
        // A word never spans two fields (the separator is stripped from terms and fields).
        #expect(try search("offline\u{1}check") == (try search("offline check")))
        let response = fixture.send(.get, "/v1/admin/catalogue", query: [("q", "hors ligne")], headers: [editor])
        let item = try #require(try response.json()["items"]?.arrayValue?.first)
        #expect(item["match"]?["pointer"] == "/strings/fr/title")
    }

    @Test("the listing: category, style, locales present and missing, last change and who")
    func listing() throws {
        let fixture = try ConsoleFixture()
        var german = try fixture.store.template(id: "loading").template
        german.strings.removeAll { $0.locale == "de" }
        _ = try fixture.store.put(german, precondition: .revision(1), actor: "bob")
        try fixture.state.publish(.upsert(try fixture.store.template(id: "loading")), store: fixture.store)
        let page = try fixture.send(.get, "/v1/admin/catalogue", query: [("missingLocale", "de")], headers: [editor])
            .json()
        #expect(page["total"] == 1)
        let item = try #require(page["items"]?.arrayValue?.first)
        #expect(item["id"] == "loading" && item["updatedBy"] == "bob" && item["revision"] == 2)
        #expect(item["missingLocales"]?.arrayValue == ["de"])
        #expect(item["category"] == "loading" && item["style"] == "default" && item["title"] == "Loading…")
        let offline = try ids(
            fixture.send(.get, "/v1/admin/catalogue", query: [("category", "offline")], headers: [editor])
        )
        #expect(offline == ["connectionRefused"])
    }

    @Test("lint: copy identical to the source in another language, a web icon outside the set")
    func lint() throws {
        let fixture = try ConsoleFixture()
        #expect(try ids(fixture.send(.get, "/v1/admin/catalogue", query: [("lint", "true")], headers: [editor])) == [])
        var untranslated = try fixture.store.template(id: "noDocuments").template
        let index = untranslated.strings.firstIndex { $0.locale == "fr" }!
        untranslated.strings[index].values["title"] = untranslated.strings(for: "en")!["title"]
        _ = try fixture.store.put(untranslated, precondition: .revision(1), actor: "bob")
        try fixture.state.publish(.upsert(try fixture.store.template(id: "noDocuments")), store: fixture.store)
        let page = try fixture.send(.get, "/v1/admin/catalogue", query: [("lint", "true")], headers: [editor]).json()
        let item = try #require(page["items"]?.arrayValue?.first)
        #expect(item["id"] == "noDocuments")
        #expect(item["lint"]?.arrayValue?.first?["pointer"] == "/strings/fr/title")
    }

    @Test("paging and parameters")
    func paging() throws {
        let fixture = try ConsoleFixture()
        let page = try fixture.send(
            .get,
            "/v1/admin/catalogue",
            query: [("page", "2"), ("pageSize", "4")],
            headers: [editor]
        )
        .json()
        #expect(page["page"] == 2 && page["pageSize"] == 4 && page["total"] == 15)
        #expect(page["items"]?.arrayValue?.count == 4)
        #expect(page["locales"]?.arrayValue?.contains("ar") == true)
        for (name, value) in [
            ("category", "x"), ("lint", "1"), ("missingLocale", "en-XA"), ("q", String(repeating: "é", count: 201)),
        ] {
            #expect(fixture.send(.get, "/v1/admin/catalogue", query: [(name, value)], headers: [editor]).status == 400)
        }
    }

    @Test("the index of the next snapshot reuses every template that did not change")
    func incremental() throws {
        let fixture = try ConsoleFixture()
        let cache = CatalogueIndexCache()
        let before = cache.index(of: fixture.state.snapshot)
        #expect(cache.index(of: fixture.state.snapshot) === before)
        var changed = try fixture.store.template(id: "loading").template
        changed.strings[0].values["title"] = "Un moment zyx"
        _ = try fixture.store.put(changed, precondition: .revision(1), actor: "bob")
        try fixture.state.publish(.upsert(try fixture.store.template(id: "loading")), store: fixture.store)
        let after = cache.index(of: fixture.state.snapshot)
        #expect(after !== before)
        let reused = zip(before.records, after.records).filter { $0 === $1 }.count
        #expect(reused == before.records.count - 1)
        #expect(after.select(.init(text: "UN MOMENT ZYX")).map(\.entry.template.id) == ["loading"])
    }
}

@Suite("POST /v1/admin/preview: a draft drawn by the web renderer")
struct PreviewAPITests {
    private func document(_ fixture: ConsoleFixture, _ id: String = "connectionRefused") throws -> JSONValue {
        try #require(try fixture.send(.get, "/v1/admin/templates/\(id)", headers: [editor]).json()["template"])
    }

    @Test("a title too long for its lines is drawn, and listed; the markup is HTMLRenderer's, escaped")
    func tooLong() throws {
        let fixture = try ConsoleFixture()
        var draft = try document(fixture)
        let title = "<b>Vous êtes hors ligne</b> et ce titre est bien trop long pour deux lignes"
        draft = try #require(replacing(draft, "fr", "title", with: title))
        let response = fixture.send(
            .post,
            "/v1/admin/preview",
            query: [("locale", "fr")],
            headers: [editor],
            json: draft
        )
        #expect(response.status == 200)
        let body = try response.json()
        let html = try #require(body["html"]?.stringValue)
        #expect(html.contains("&lt;b&gt;Vous êtes hors ligne&lt;/b&gt;") && !html.contains("<b>"))
        #expect(body["issues"]?.arrayValue?.first?["pointer"] == "/strings/fr/title")
        let template = try #require(TemplateParser.draft(draft).template)
        let expected = HTMLRenderer.fragment(template, copy: TemplateRenderer.copy(of: template, in: "fr"))
        #expect(html == String(decoding: expected, as: UTF8.self))
    }

    @Test("pseudo-locales and right to left; the fallback chain; 422 only when it cannot be drawn")
    func locales() throws {
        let fixture = try ConsoleFixture()
        let draft = try document(fixture)
        let pseudo = try fixture.send(
            .post,
            "/v1/admin/preview",
            query: [("locale", "ar-XB")],
            headers: [editor],
            json: draft
        )
        .json()
        #expect(pseudo["direction"] == "rtl" && pseudo["locale"] == "ar-XB")
        let swiss = try fixture.send(
            .post,
            "/v1/admin/preview",
            query: [("locale", "de-CH")],
            headers: [editor],
            json: draft
        )
        .json()
        #expect(swiss["locale"] == "de")
        let broken = fixture.send(.post, "/v1/admin/preview", headers: [editor], json: .object([("id", "x")]))
        #expect(broken.status == 422)
        let viewer = ("Authorization", "Bearer " + ConsoleFixture.viewerSecret)
        #expect(fixture.send(.post, "/v1/admin/preview", headers: [viewer], json: draft).status == 200)
    }

    private func replacing(_ document: JSONValue, _ locale: String, _ key: String, with text: String) -> JSONValue? {
        guard case .object(var members) = document,
            let stringsIndex = members.firstIndex(where: { $0.key == "strings" }),
            case .object(var locales) = members[stringsIndex].value,
            let localeIndex = locales.firstIndex(where: { $0.key == locale }),
            case .object(var values) = locales[localeIndex].value,
            let keyIndex = values.firstIndex(where: { $0.key == key })
        else { return nil }
        values[keyIndex].value = .string(text)
        locales[localeIndex].value = .object(values)
        members[stringsIndex].value = .object(locales)
        return .object(members)
    }
}

@Suite("POST /v1/admin/app-policies/{platform}/decisions")
struct DecisionsAPITests {
    private let policy: JSONValue = .object([
        ("minimumVersion", "5.0"), ("latestVersion", "5.3.0"), ("minimumOSVersion", "16.0"),
        ("blockedVersions", .array(["5.1.2"])), ("storeUrl", "https://apps.apple.com/app/id1"),
        ("rolloutPercentage", 25),
    ])

    @Test("sample versions around the edges, decided by AppStatus.decide")
    func samples() throws {
        let fixture = try ConsoleFixture()
        let body = try fixture.send(
            .post,
            "/v1/admin/app-policies/ios/decisions",
            headers: [editor],
            json: .object([("policy", policy)])
        ).json()
        let rows = try #require(body["rows"]?.arrayValue)
        let table = rows.map { row in
            [
                row["appVersion"]?.stringValue ?? "", row["osVersion"]?.stringValue ?? "-",
                row["inRollout"]?.stringValue ?? "",
                row["outsideRollout"]?.stringValue ?? "", row["withoutInstanceId"]?.stringValue ?? "",
            ]
        }
        #expect(
            table == [
                ["4.0.0", "-", "updateRequired", "updateRequired", "updateRequired"],
                ["5.0.0", "-", "updateAvailable", "ok", "ok"],
                ["5.1.2", "-", "updateRequired", "updateRequired", "updateRequired"],
                ["5.2.0", "-", "updateAvailable", "ok", "ok"],
                ["5.3.0", "-", "ok", "ok", "ok"],
                ["5.3.1", "-", "ok", "ok", "ok"],
                ["5.3.0", "15.0.0", "osUpdateRequired", "osUpdateRequired", "osUpdateRequired"],
            ]
        )
    }

    @Test("at 0 % no instance is in the rollout, at 100 % none is outside it; given samples; 422 under /policy")
    func edges() throws {
        let fixture = try ConsoleFixture()
        guard case .object(var members) = policy else { return }
        members[5].value = 0
        let none = try fixture.send(
            .post,
            "/v1/admin/app-policies/ios/decisions",
            headers: [editor],
            json: .object([("policy", .object(members)), ("samples", .array([.object([("appVersion", "5.2")])]))])
        ).json()
        #expect(none["rows"]?.arrayValue?.first?["inRollout"] == .null)
        members[5].value = 100
        let all = try fixture.send(
            .post,
            "/v1/admin/app-policies/ios/decisions",
            headers: [editor],
            json: .object([("policy", .object(members)), ("samples", .array([.object([("appVersion", "5.2")])]))])
        ).json()
        #expect(all["rows"]?.arrayValue?.first?["outsideRollout"] == .null)
        #expect(all["rows"]?.arrayValue?.first?["withoutInstanceId"] == "updateAvailable")
        members[0].value = "9.0"
        let broken = fixture.send(
            .post,
            "/v1/admin/app-policies/ios/decisions",
            headers: [editor],
            json: .object([("policy", .object(members))])
        )
        #expect(broken.status == 422)
        let pointer = try broken.json()["errors"]?.arrayValue?.first?["pointer"]?.stringValue
        #expect(pointer?.hasPrefix("/policy/") == true)
    }
}

@Suite("The audit's filters and export")
struct AuditExportTests {
    @Test("NDJSON and CSV of the selection; formula-looking cells quoted")
    func export() throws {
        let fixture = try ConsoleFixture(
            tokens: ConsoleFixture.tokens + [
                AdminToken(name: "=HYPERLINK(\"x\")", role: .editor, secret: "formula-secret-0123456789")
            ]
        )
        var changed = try fixture.store.template(id: "loading").template
        changed.strings[0].values["title"] = "Un moment"
        _ = try fixture.store.put(changed, precondition: .revision(1), actor: "=HYPERLINK(\"x\")")
        let csv = fixture.send(
            .get,
            "/v1/admin/audit/export",
            query: [("format", "csv"), ("templateId", "loading")],
            headers: [editor]
        )
        #expect(csv.status == 200 && csv.header("Content-Type") == "text/csv; charset=utf-8")
        #expect(csv.header("Content-Disposition") == "attachment; filename=\"audit.csv\"")
        let lines = csv.bodyText.components(separatedBy: "\r\n")
        #expect(lines[0] == "createdAt,createdBy,kind,id,revision,action,changedFields")
        #expect(lines[1].contains(",\"'=HYPERLINK(\"\"x\"\")\",template,loading,2,replace,"))
        #expect(csv.header("X-Total-Count") == "2")
        let ndjson = fixture.send(.get, "/v1/admin/audit/export", query: [("action", "replace")], headers: [editor])
        let records = ndjson.bodyText.split(separator: "\n")
        #expect(records.count == 1 && records[0].contains("\"templateId\":\"loading\""))
        #expect(
            fixture.send(.get, "/v1/admin/audit/export", query: [("format", "xml")], headers: [editor]).status == 400
        )
    }

    @Test("the audit page filters like the store")
    func filters() throws {
        let fixture = try ConsoleFixture()
        let page = try fixture.send(
            .get,
            "/v1/admin/audit",
            query: [("actor", "built-in"), ("kind", "template"), ("action", "import"), ("field", "/")],
            headers: [editor]
        ).json()
        #expect(page["total"] == 15)
        for (name, value) in [
            ("kind", "x"), ("action", "frobnicate"), ("from", "yesterday"), ("field", "strings"), ("actor", ""),
        ] {
            #expect(fixture.send(.get, "/v1/admin/audit", query: [(name, value)], headers: [editor]).status == 400)
        }
    }
}

@Suite("/admin/: the console's files and their headers")
struct ConsoleRoutesTests {
    @Test("every file is served with its type, the CSP and the other security headers, and revalidates")
    func files() throws {
        let fixture = try ConsoleFixture()
        #expect(!ConsoleAssets.files.isEmpty)
        for (name, asset) in ConsoleAssets.files {
            let response = fixture.send(.get, "/admin/" + name)
            #expect(response.status == 200 && response.bodyBytes == asset.bytes, "\(name)")
            #expect(response.header("Content-Type") == ConsoleAssets.contentType(of: name))
            #expect(
                response.header("X-Content-Type-Options") == "nosniff"
                    && response.header("Referrer-Policy") == "no-referrer"
            )
            #expect(response.header("X-Frame-Options") == "DENY" && response.header("Cache-Control") == "no-cache")
            let csp = try #require(response.header("Content-Security-Policy"))
            #expect(
                csp.hasPrefix("default-src 'self'; script-src 'self'; style-src 'self';")
                    && csp.hasSuffix("frame-ancestors 'none'")
            )
            #expect(csp.contains("img-src 'self' data: https://cdn.example.com;") && !csp.contains("unsafe"))
            let etag = try #require(response.header("ETag"))
            #expect(fixture.send(.get, "/admin/" + name, headers: [("If-None-Match", etag)]).status == 304)
        }
        let page = fixture.send(.get, "/admin/")
        #expect(page.status == 200 && page.bodyText.contains("<script type=\"module\" src=\"app.js\"></script>"))
        let redirect = fixture.send(.get, "/admin")
        #expect(
            redirect.status == 308 && redirect.header("Location") == "/admin/"
                && redirect.header("Content-Security-Policy") != nil
        )
        let missing = fixture.send(.get, "/admin/nothing.js")
        #expect(missing.status == 404 && missing.header("Content-Security-Policy") != nil)
    }

    @Test("every file of Sources/EmptyStateWeb/Console is compiled in: a file without its row in CAssets is a 404")
    func everyFileCompiledIn() throws {
        let directory = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/EmptyStateWeb/Console")
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(Set(onDisk) == Set(ConsoleAssets.files.keys))
    }

    @Test("every console script stays under 400 lines, and each module it imports is a file of the console")
    func scriptsSplitByConcern() throws {
        let names = Set(ConsoleAssets.files.keys)
        for (name, asset) in ConsoleAssets.files where name.hasSuffix(".js") {
            let text = String(decoding: asset.bytes, as: UTF8.self)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
            #expect(lines <= 400, "\(name) has \(lines) lines: split it by concern")
            for line in text.split(separator: "\n") where line.hasPrefix("import ") {
                guard let from = line.range(of: "from \"./") else { continue }
                let target = line[from.upperBound...].prefix { $0 != "\"" }
                #expect(names.contains(String(target)), "\(name) imports ./\(target), which is not compiled in")
            }
        }
    }

    @Test(
        "the console holds no inline script or style, no third-party URL, and nothing that writes markup from strings"
    )
    func noInline() throws {
        for (name, asset) in ConsoleAssets.files {
            let text = String(decoding: asset.bytes, as: UTF8.self)
            if name.hasSuffix(".html") {
                #expect(!text.contains("<script>") && !text.contains("style=") && !text.contains("<style"), "\(name)")
                #expect(!text.contains(" on") || !text.contains("onclick="), "\(name)")
            }
            // Nothing is loaded from elsewhere: every import and src is the service's own.
            for marker in ["from \"http", "import(\"http", "src=\"http", "href=\"http", "url(http"] {
                #expect(!text.contains(marker), "\(name): \(marker)")
            }
            if name.hasSuffix(".js") {
                #expect(
                    !text.contains("innerHTML") && !text.contains("outerHTML") && !text.contains("insertAdjacentHTML"),
                    "\(name)"
                )
                #expect(!text.contains("eval(") && !text.contains("new Function"), "\(name)")
                // The browser's storage holds no token and no draft: one file may use it, for the
                // editor's last-edited locale (a preference), and it writes nothing else there.
                if name == "edit-locale.js" {
                    #expect(text.components(separatedBy: "localStorage.setItem(").count == 2)
                    #expect(text.contains("localStorage.setItem(STORAGE_PREFIX + name, locale)"))
                } else {
                    #expect(!text.contains("localStorage"), "\(name)")
                }
                #expect(!text.contains("sessionStorage") && !text.contains("document.cookie"), "\(name)")
            }
        }
    }

    @Test("the console's stylesheets use logical properties only, so they mirror for right to left")
    func logicalProperties() throws {
        let sheets = ConsoleAssets.files.filter { $0.key.hasSuffix(".css") }
        #expect(sheets.count == 2)
        for (name, sheet) in sheets {
            expectLogicalProperties(String(decoding: sheet.bytes, as: UTF8.self), in: name)
        }
    }

    private func expectLogicalProperties(_ css: String, in name: String) {
        let physical = [
            "margin-left", "margin-right", "margin-top", "margin-bottom", "padding-left", "padding-right",
            "padding-top",
            "padding-bottom", "left:", "right:", "top:", "bottom:", "width:", "height:", "text-align: left",
            "text-align: right", "float:", "border-left", "border-right", "border-top", "border-bottom",
        ]
        for line in css.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.hasPrefix("/*"), !trimmed.hasPrefix("*"), !trimmed.hasPrefix("@media") else { continue }
            for property in physical where trimmed.hasPrefix(property) {
                Issue.record("physical property in \(name): \(trimmed)")
            }
        }
    }
}

import EmptyStateCore
import HTTPServer
import JSONCoding
import Testing

@testable import EmptyStateService

@Suite("ClientAPI")
struct ClientAPITests {
    private let api: ClientAPI

    init() throws {
        api = try ServiceFixture.api()
    }

    private func template(
        _ id: String,
        query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)] = []
    ) -> HTTPResponse {
        api.template(ServiceFixture.request(id, query: query, headers: headers))
    }

    private func bundle(
        query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)] = []
    ) -> HTTPResponse {
        api.bundle(ServiceFixture.request(query: query, headers: headers))
    }

    private func isStrongETag(_ etag: String?) -> Bool {
        guard let etag, etag.hasPrefix("\""), etag.hasSuffix("\""), etag.count >= 3 else { return false }
        return !etag.hasPrefix("W/") && !etag.dropFirst().dropLast().contains("\"")
    }

    // MARK: - Representation and caching

    @Test("a template is JSON with a strong ETag, the cache policy and the content type")
    func templateHeaders() throws {
        let response = template("connectionRefused")
        #expect(response.status == 200)
        let etag = try #require(response.header("ETag"))
        #expect(isStrongETag(etag), "\(etag)")
        #expect(etag.count == 18)
        #expect(response.header("Cache-Control") == ServiceFixture.cacheControl)
        #expect(response.header("Content-Type") == "application/json; charset=utf-8")
        #expect(response.header("Content-Encoding") == nil)
        let json = try response.json()
        #expect(json["id"] == .string("connectionRefused"))
        #expect(json["locale"] == .string("en"))
        #expect(json["platform"] == .string("web"))
        #expect(json["title"] == .string("You're offline"))
    }

    @Test("the same request always gets the same ETag and bytes")
    func stableETag() {
        let first = template("connectionRefused", query: [("locale", "fr")])
        let second = template("connectionRefused", query: [("locale", "fr")])
        #expect(first.header("ETag") == second.header("ETag"))
        #expect(first.bodyBytes == second.bodyBytes)
        #expect(first.header("ETag") != template("connectionRefused", query: [("locale", "de")]).header("ETag"))
    }

    @Test("If-None-Match with the current ETag gives 304 without a body", arguments: ["", "W/"])
    func notModified(prefix: String) throws {
        let etag = try #require(template("loginRequired").header("ETag"))
        let response = template("loginRequired", headers: [("If-None-Match", prefix + etag)])
        #expect(response.status == 304)
        #expect(response.bodyBytes.isEmpty)
        #expect(response.header("ETag") == etag)
        #expect(response.header("Content-Type") == nil)
        #expect(response.header("Vary") == "Accept-Language, Accept-Encoding")
    }

    @Test("If-None-Match with a list or * that holds the ETag gives 304")
    func notModifiedList() throws {
        let etag = try #require(template("loginRequired").header("ETag"))
        #expect(template("loginRequired", headers: [("If-None-Match", "\"abc\", \(etag)")]).status == 304)
        #expect(template("loginRequired", headers: [("If-None-Match", "*")]).status == 304)
    }

    @Test("If-None-Match with another tag gives 200 with the body")
    func modified() throws {
        let current = template("loginRequired")
        let etag = try #require(current.header("ETag"))
        for other in ["\"0000000000000000\"", "W/\"other\"", String(etag.dropFirst()), "\"\(etag)\""] {
            let response = template("loginRequired", headers: [("If-None-Match", other)])
            #expect(response.status == 200, "\(other)")
            #expect(response.bodyBytes == current.bodyBytes)
        }
        let french = try #require(template("loginRequired", query: [("locale", "fr")]).header("ETag"))
        #expect(template("loginRequired", headers: [("If-None-Match", french)]).status == 200)
    }

    @Test("gzip is sent when accepted: smaller, a gzip member, the same JSON once inflated")
    func gzip() throws {
        let plain = bundle()
        let zipped = bundle(headers: [("Accept-Encoding", "br, gzip;q=0.8")])
        #expect(zipped.status == 200)
        #expect(zipped.header("Content-Encoding") == "gzip")
        #expect(zipped.header("Content-Type") == "application/json; charset=utf-8")
        #expect(Array(zipped.bodyBytes.prefix(2)) == [0x1F, 0x8B])
        #expect(zipped.bodyBytes.count < plain.bodyBytes.count)
        #expect(gunzip(zipped.bodyBytes) == plain.bodyBytes)
        let etag = try #require(zipped.header("ETag"))
        #expect(isStrongETag(etag))
        #expect(etag != plain.header("ETag"))
    }

    @Test("a gzipped template inflates to the identity bytes")
    func gzipTemplate() throws {
        let plain = template("somethingWentWrong", query: [("locale", "ja")])
        let zipped = template("somethingWentWrong", query: [("locale", "ja")], headers: [("Accept-Encoding", "gzip")])
        #expect(zipped.header("Content-Encoding") == "gzip")
        #expect(gunzip(zipped.bodyBytes) == plain.bodyBytes)
    }

    @Test("only the selected content coding's ETag revalidates (RFC 9110 §13.1.2)")
    func revalidateAcrossEncodings() throws {
        let plainTag = try #require(bundle().header("ETag"))
        let zippedTag = try #require(bundle(headers: [("Accept-Encoding", "gzip")]).header("ETag"))
        #expect(bundle(headers: [("Accept-Encoding", "gzip"), ("If-None-Match", zippedTag)]).status == 304)
        #expect(bundle(headers: [("If-None-Match", plainTag)]).status == 304)
        let switched = bundle(headers: [("Accept-Encoding", "gzip"), ("If-None-Match", plainTag)])
        #expect(switched.status == 200)
        #expect(switched.header("ETag") == zippedTag)
        #expect(bundle(headers: [("If-None-Match", zippedTag)]).status == 200)
    }

    @Test(
        "gzip is not sent when not accepted",
        arguments: ["identity", "gzip;q=0", "br, deflate", "*;q=0", "", "gzip;q=0, *"]
    )
    func noGzip(acceptEncoding: String) {
        let response = bundle(headers: [("Accept-Encoding", acceptEncoding)])
        #expect(response.header("Content-Encoding") == nil)
        #expect(response.bodyBytes.first == UInt8(ascii: "{"))
    }

    // MARK: - Locale negotiation

    @Test("?locale= sets Content-Language and Vary: Accept-Encoding")
    func localeFromQuery() throws {
        let response = template("connectionRefused", query: [("locale", "fr")], headers: [("Accept-Language", "de")])
        #expect(response.header("Content-Language") == "fr")
        #expect(response.header("Vary") == "Accept-Encoding")
        #expect(try response.json()["title"] == .string("Vous êtes hors ligne"))
    }

    @Test("without ?locale= Vary names Accept-Language too")
    func localeFromHeader() {
        let response = template("connectionRefused", headers: [("Accept-Language", "de")])
        #expect(response.header("Content-Language") == "de")
        #expect(response.header("Vary") == "Accept-Language, Accept-Encoding")
        #expect(bundle().header("Vary") == "Accept-Language, Accept-Encoding")
        #expect(bundle(query: [("locale", "ja")]).header("Vary") == "Accept-Encoding")
    }

    @Test(
        "Accept-Language q-values choose the locale",
        arguments: [
            ("fr;q=0.5, de;q=0.9, ko", "de"),
            ("ko, pt-PT;q=0.8, es;q=0.7", "pt-BR"),
            ("es-419", "es"),
            ("ja-JP, en;q=0.1", "ja"),
            ("zh-Hant-TW, ko", "en"),
            ("*", "en"),
            ("de;q=0, fr;q=0.1", "fr"),
            ("EN-xa", "en-XA"),
        ]
    )
    func acceptLanguage(header: String, locale: String) throws {
        let response = template("connectionRefused", headers: [("Accept-Language", header)])
        #expect(response.header("Content-Language") == locale)
        #expect(try response.json()["locale"] == .string(locale))
    }

    @Test("?locale= wins over Accept-Language and resolves like it", arguments: [("pt", "pt-BR"), ("de-AT", "de")])
    func queryLocale(query: String, locale: String) {
        let response = template("noDocuments", query: [("locale", query)], headers: [("Accept-Language", "ja")])
        #expect(response.header("Content-Language") == locale)
    }

    @Test(
        "every spelling of a locale resolves to its canonical tag",
        arguments: ["pt-BR", "pt-br", "pt_BR", "pt_br", "PT-BR", "pt", "pt-PT", "pt-Latn-BR"]
    )
    func spellings(spelling: String) throws {
        let response = template("connectionRefused", query: [("locale", spelling)])
        #expect(response.status == 200)
        #expect(response.header("Content-Language") == "pt-BR")
        #expect(try response.json()["title"] == .string("Você está off-line"))
    }

    @Test("the pre-parsed locale spellings agree with parsing them")
    func knownLocaleTags() throws {
        let known = try ServiceFixture.snapshot().knownLocaleTags
        #expect(known["pt_BR"]?.description == "pt-BR")
        #expect(known["en-xa"]?.description == "en-XA")
        for (spelling, tag) in known {
            #expect(LocaleTag(spelling) == tag, "\(spelling)")
        }
    }

    @Test("request header names match whatever their case")
    func headerNameCase() throws {
        let etag = try #require(template("loading").header("ETag"))
        #expect(template("loading", headers: [("IF-NONE-MATCH", etag)]).status == 304)
        #expect(template("loading", headers: [("accept-language", "ja")]).header("Content-Language") == "ja")
        #expect(bundle(headers: [("ACCEPT-encoding", "gzip")]).header("Content-Encoding") == "gzip")
    }

    @Test("Arabic and ar-XB are right to left, the others left to right")
    func direction() throws {
        #expect(try template("loading", query: [("locale", "ar")]).json()["direction"] == .string("rtl"))
        #expect(try template("loading", query: [("locale", "ar-XB")]).json()["direction"] == .string("rtl"))
        #expect(try template("loading", headers: [("Accept-Language", "ar-SA")]).json()["direction"] == .string("rtl"))
        #expect(try template("loading", query: [("locale", "fr")]).json()["direction"] == .string("ltr"))
        #expect(try bundle(query: [("locale", "ar")]).json()["direction"] == .string("rtl"))
    }

    @Test(
        "the platform picks the icon's native symbol",
        arguments: [
            ("ios", "wifi.slash"), ("android", "wifi_off"), ("web", "wifi-off"),
        ]
    )
    func platform(platform: String, symbol: String) throws {
        let json = try template("connectionRefused", query: [("platform", platform)]).json()
        #expect(json["platform"] == .string(platform))
        #expect(json["visual"]?["name"] == .string(symbol))
    }

    // MARK: - Placeholders

    @Test("param.provider fills verifyIdentity and changes the ETag")
    func placeholders() throws {
        let unfilled = template("verifyIdentity")
        let filled = template("verifyIdentity", query: [("param.provider", "BankID")])
        #expect(filled.status == 200)
        let unfilledJSON = try unfilled.json()
        let filledJSON = try filled.json()
        #expect(unfilledJSON["placeholders"] == .array([.string("provider")]))
        #expect(unfilledJSON["message"] == .string("To continue, verify your identity with {provider}."))
        #expect(filledJSON["placeholders"] == .array([]))
        #expect(filledJSON["message"] == .string("To continue, verify your identity with BankID."))
        #expect(filledJSON["actions"]?.arrayValue?.first?["label"] == .string("Verify with BankID"))
        let etag = try #require(filled.header("ETag"))
        #expect(isStrongETag(etag))
        #expect(etag != unfilled.header("ETag"))
        #expect(template("verifyIdentity", query: [("param.provider", "Freja")]).header("ETag") != etag)
        #expect(template("verifyIdentity", query: [("param.provider", "BankID")]).header("ETag") == etag)
        // An empty value fills nothing: the placeholder stays visible and listed.
        let empty = template("verifyIdentity", query: [("param.provider", "")])
        #expect(try empty.json() == unfilledJSON)
        #expect(empty.header("ETag") == unfilled.header("ETag"))
    }

    @Test("a filled template revalidates against its own ETag")
    func filledRevalidates() throws {
        let query = [(name: "param.provider", value: "BankID"), (name: "locale", value: "fr")]
        let etag = try #require(template("verifyIdentity", query: query).header("ETag"))
        #expect(template("verifyIdentity", query: query, headers: [("If-None-Match", etag)]).status == 304)
        let zipped = template("verifyIdentity", query: query, headers: [("Accept-Encoding", "gzip")])
        #expect(zipped.header("Content-Language") == "fr")
        if zipped.header("Content-Encoding") == "gzip" {
            #expect(gunzip(zipped.bodyBytes) == template("verifyIdentity", query: query).bodyBytes)
        }
    }

    @Test("param values fill the bundle too")
    func bundlePlaceholders() throws {
        let json = try bundle(query: [("param.provider", "BankID")]).json()
        let verify = try #require(json["templates"]?.arrayValue?.first { $0["id"] == .string("verifyIdentity") })
        #expect(verify["message"] == .string("To continue, verify your identity with BankID."))
    }

    // MARK: - Errors

    @Test("an unknown template is a 404 problem naming the id parameter")
    func unknownTemplate() throws {
        let response = template("doesNotExist")
        #expect(response.status == 404)
        #expect(response.header("Content-Type") == "application/problem+json")
        let json = try response.json()
        #expect(json["type"] == .string("urn:empty-state:problem:unknown-template"))
        #expect(json["status"] == .number(404))
        #expect(json["requestId"] == .string("test-request"))
        let error = try #require(json["errors"]?.arrayValue?.first)
        #expect(error["parameter"] == .string("id"))
        #expect(error["detail"] == .string("no such template"))
        #expect(
            try template("not a valid id!").json()["errors"]?.arrayValue?.first?["detail"]
                == .string("not a valid template id")
        )
        #expect(template("ConnectionRefused").status == 404)
    }

    @Test("a malformed locale is a 400 naming the locale parameter", arguments: ["english-", "", "12", "fr--CA"])
    func badLocale(locale: String) throws {
        let response = template("connectionRefused", query: [("locale", locale)])
        #expect(response.status == 400)
        #expect(response.header("Content-Type") == "application/problem+json")
        let json = try response.json()
        #expect(json["type"] == .string("urn:empty-state:problem:invalid-parameter"))
        #expect(json["errors"]?.arrayValue?.first?["parameter"] == .string("locale"))
        #expect(bundle(query: [("locale", locale)]).status == 400)
    }

    @Test("an unknown platform is a 400 naming the platform parameter", arguments: ["IOS", "windows", ""])
    func badPlatform(platform: String) throws {
        let response = template("connectionRefused", query: [("platform", platform)])
        #expect(response.status == 400)
        #expect(try response.json()["errors"]?.arrayValue?.first?["parameter"] == .string("platform"))
    }

    @Test("every bad parameter is reported at once")
    func severalBadParameters() throws {
        let response = template(
            "connectionRefused",
            query: [("platform", "tv"), ("locale", "x"), ("param.1bad", "v")]
        )
        #expect(response.status == 400)
        let json = try response.json()
        #expect(json["detail"] == .string("3 query parameters are invalid."))
        #expect(
            json["errors"]?.arrayValue?.map { $0["parameter"] }
                == [.string("platform"), .string("locale"), .string("param.1bad")]
        )
    }

    @Test("a param value over 200 characters is refused")
    func longParameter() throws {
        let ok = template("verifyIdentity", query: [("param.provider", String(repeating: "a", count: 200))])
        #expect(ok.status == 200)
        let tooLong = template("verifyIdentity", query: [("param.provider", String(repeating: "a", count: 201))])
        #expect(tooLong.status == 400)
        #expect(try tooLong.json()["errors"]?.arrayValue?.first?["parameter"] == .string("param.provider"))
    }

    // MARK: - Aliases and the bundle

    @Test(
        "an alias answers with the canonical id and the same ETag",
        arguments: [
            ("noInternetConnection", "connectionRefused"), ("noNetwork", "connectionRefused"),
            ("loadingFailure", "somethingWentWrong"), ("failToLoad", "somethingWentWrong"),
            ("noResults", "noSearchResults"),
        ]
    )
    func alias(alias: String, id: String) throws {
        let viaAlias = template(alias, query: [("locale", "fr")])
        let viaID = template(id, query: [("locale", "fr")])
        #expect(viaAlias.status == 200)
        #expect(try viaAlias.json()["id"] == .string(id))
        #expect(viaAlias.header("ETag") == viaID.header("ETag"))
        #expect(viaAlias.bodyBytes == viaID.bodyBytes)
    }

    @Test("the bundle holds every template and the aliases in the resolved locale")
    func bundleContents() throws {
        let response = bundle(headers: [("Accept-Language", "pt-PT, en;q=0.5")])
        #expect(response.status == 200)
        #expect(response.header("Content-Language") == "pt-BR")
        #expect(isStrongETag(response.header("ETag")))
        let json = try response.json()
        #expect(json["locale"] == .string("pt-BR"))
        let templates = try #require(json["templates"]?.arrayValue)
        #expect(templates.count == 15)
        #expect(templates.allSatisfy { $0["locale"] == .string("pt-BR") })
        #expect(json["aliases"]?["noNetwork"] == .string("connectionRefused"))
        #expect(json["aliases"]?["noResults"] == .string("noSearchResults"))
    }

    @Test("the bundle's If-None-Match gives 304")
    func bundleNotModified() throws {
        let etag = try #require(bundle(query: [("locale", "ja")]).header("ETag"))
        let response = bundle(query: [("locale", "ja")], headers: [("If-None-Match", "W/" + etag)])
        #expect(response.status == 304)
        #expect(response.bodyBytes.isEmpty)
        #expect(response.header("Content-Language") == "ja")
    }

    @Test("the snapshot renders every locale and platform of every template, on first request")
    func snapshot() throws {
        let snapshot = CatalogueSnapshot(catalogue: try ServiceFixture.catalogue())
        #expect(snapshot.representationCount == 0)
        let entry = try #require(snapshot.entry(named: "noNetwork"))
        #expect(entry.template.id == "connectionRefused")
        for locale in ["en", "es", "fr", "de", "pt-BR", "ja", "ar", "en-XA", "ar-XB"] {
            for platform in Platform.allCases {
                let representation = entry.representation(locale: locale, platform: platform)
                #expect(representation?.contentLanguage == locale, "\(locale) \(platform)")
                #expect(snapshot.bundle(locale: locale, platform: platform) != nil, "\(locale) \(platform)")
            }
        }
        #expect(snapshot.bundleLocales.fallback == "en")
        #expect(snapshot.representationCount == 9 * 3)
    }
}

import EmptyStateCore
import HTTPServer
import Testing

@testable import EmptyStateService

@Suite("ClientQuery")
struct ClientQueryTests {
    private func parse(
        _ query: [(name: String, value: String)],
        headers: [(name: String, value: String)] = []
    ) -> Result<ClientQuery, ProblemDetails> {
        ClientQuery.parse(ServiceFixture.request("x", query: query, headers: headers))
    }

    @Test("defaults: web, no preference, no parameters")
    func defaults() throws {
        let query = try parse([]).get()
        #expect(query.platform == .web)
        #expect(query.preferences.isEmpty)
        #expect(!query.localeFromQuery)
        #expect(query.parameters.isEmpty)
    }

    @Test("?locale= gives one preference and ignores Accept-Language")
    func locale() throws {
        let query = try parse([("locale", "pt_br")], headers: [("Accept-Language", "fr")]).get()
        #expect(query.preferences == [LanguagePreference(tag: LocaleTag("pt-BR"), quality: 1)])
        #expect(query.localeFromQuery)
    }

    @Test("Accept-Language is used when there is no ?locale=")
    func acceptLanguage() throws {
        let query = try parse([], headers: [("Accept-Language", "fr;q=0.2, de")]).get()
        #expect(query.preferences.map { $0.tag?.description } == ["de", "fr"])
        #expect(!query.localeFromQuery)
    }

    @Test("param.<name> values are collected, the first of a repeated name winning; an empty one fills nothing")
    func parameters() throws {
        let query = try parse([
            ("param.provider", "BankID"), ("param.count", ""), ("param.provider", "Other"), ("x", "y"),
        ])
        .get()
        #expect(query.parameters == ["provider": "BankID"])
        let emptyFirst = try parse([("param.provider", ""), ("param.provider", "BankID")]).get()
        #expect(emptyFirst.parameters == ["provider": "BankID"])
    }

    @Test("bad placeholder names are refused", arguments: ["param.", "param.1x", "param.a-b", "param.é"])
    func badParameterName(name: String) {
        guard case .failure(let problem) = parse([(name, "v")]) else {
            Issue.record("\(name) was accepted")
            return
        }
        #expect(problem.status == 400)
        #expect(problem.errors.map(\.location) == [.parameter(name)])
    }
}

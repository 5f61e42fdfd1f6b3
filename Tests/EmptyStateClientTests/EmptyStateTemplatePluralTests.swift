import Foundation
import Testing

@testable import EmptyStateClient

/// The client's choice of a plural form (`counting(_:as:formatted:)`): the service's JSON with
/// `plurals` mapped to the public value, and CLDR's rules of the copy's locale applied on the
/// device.
@Suite("EmptyStateTemplate plurals")
struct EmptyStateTemplatePluralTests {
    /// A response as the service writes it when `param.count` was not sent.
    static func served(locale: String, message: String, plurals: String) throws -> EmptyStateTemplate {
        let json = """
            {"id":"hiddenResults","revision":3,"category":"noResults","style":"default","locale":"\(locale)",
             "direction":"ltr","platform":"ios",
             "visual":{"type":"icon","name":"magnifyingglass","width":64,"height":64,"decorative":true},
             "title":"Nothing matches","message":"\(message)","actions":[],"placeholders":["count"],
             "plurals":{"message":\(plurals)}}
            """
        let template = try JSONDecoder().decode(Components.Schemas.Template.self, from: Data(json.utf8))
        return EmptyStateTemplate(template, etag: "\"3\"")
    }

    static func english() throws -> EmptyStateTemplate {
        try served(
            locale: "en",
            message: "{count} results are hidden by filters.",
            plurals:
                #"{"plural":"count","one":"One result is hidden by filters.","other":"{count} results are hidden by filters."}"#
        )
    }

    @Test("the served forms are kept, keyed by category")
    func mapping() throws {
        let template = try Self.english()
        let plural = try #require(template.plurals?["message"])
        #expect(plural.variable == "count")
        #expect(
            plural.forms == [
                "one": "One result is hidden by filters.", "other": "{count} results are hidden by filters.",
            ]
        )
    }

    @Test("counting chooses the form of the locale's rules and fills the number")
    func english() throws {
        let template = try Self.english()
        #expect(template.counting(1).message == "One result is hidden by filters.")
        #expect(template.counting(0).message == "0 results are hidden by filters.")
        #expect(template.counting(1000, formatted: "1,000").message == "1,000 results are hidden by filters.")
        let counted = template.counting(3)
        #expect(counted.placeholders.isEmpty)
        #expect(counted.plurals == nil)
        #expect(template.text("message", count: 1) == "One result is hidden by filters.")
        #expect(template.text("title", count: 1) == "Nothing matches")
        #expect(template.text("actions.none", count: 1) == nil)
        // Another variable's plurals are left alone.
        #expect(template.counting(1, as: "files").message == "{count} results are hidden by filters.")
    }

    @Test(
        "Russian: one for 21, few for 3, many for 11",
        arguments: [
            (21, "21 результат скрыт фильтрами."), (3, "3 результата скрыты фильтрами."),
            (11, "11 результатов скрыто фильтрами."), (100, "100 результатов скрыто фильтрами."),
        ]
    )
    func russian(_ count: Int, _ expected: String) throws {
        let template = try Self.served(
            locale: "ru",
            message: "{count} результата скрыто фильтрами.",
            plurals:
                #"{"plural":"count","one":"{count} результат скрыт фильтрами.","few":"{count} результата скрыты фильтрами.","many":"{count} результатов скрыто фильтрами.","other":"{count} результата скрыто фильтрами."}"#
        )
        #expect(template.counting(count).message == expected)
    }

    @Test("a bundled copy filled with the number chooses the form as the service would")
    func bundledFill() throws {
        let template = try Self.english()
        #expect(template.filled(with: ["count": "1"]).message == "One result is hidden by filters.")
        #expect(template.filled(with: ["count": "2"]).message == "2 results are hidden by filters.")
        #expect(template.filled(with: ["count": "1.0"]).message == "1.0 results are hidden by filters.")
    }

    @Test("a copy without plurals decodes as before and counting changes nothing")
    func withoutPlurals() throws {
        let json = """
            {"id":"x","category":"loading","style":"subtle","locale":"en","direction":"ltr","platform":"web",
             "visual":{"type":"illustration","name":"empty_box","width":360,"height":230,"decorative":true},
             "title":"Loading","actions":[],"placeholders":[]}
            """
        let template = EmptyStateTemplate(
            try JSONDecoder().decode(Components.Schemas.Template.self, from: Data(json.utf8)),
            etag: nil
        )
        #expect(template.plurals == nil)
        #expect(template.counting(1) == template)
    }
}

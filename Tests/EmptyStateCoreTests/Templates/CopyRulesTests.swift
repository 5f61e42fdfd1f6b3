import EmptyStateCore
import Testing

@Suite("CopyRules")
struct CopyRulesTests {
    @Test(
        "columns: wide characters count two, combining marks and bidi controls none",
        arguments: [
            ("", 0),
            ("Try again", 9),
            ("オフラインです", 14),
            ("本人確認", 8),
            ("再読み込み", 10),
            ("한국어", 6),
            ("ＡＢ", 4),
            ("e\u{301}", 1),
            ("تحديث", 5),
            ("\u{200F}\u{202E}abc\u{202C}\u{200F}", 3),
            ("Go 🙂", 5),
        ]
    )
    func columns(text: String, expected: Int) {
        #expect(CopyRules.columns(text) == expected)
    }

    @Test("limits follow the design systems' truncation")
    func limits() {
        #expect(CopyRules.titleColumns == 60)
        #expect(CopyRules.messageColumns == 140)
        #expect(CopyRules.labelColumns == 32)
    }

    @Test("placeholders are listed in order, once each, valid names only")
    func placeholders() {
        #expect(CopyRules.placeholders(in: "Hello {name}, {count} new for {name}") == ["name", "count"])
        #expect(CopyRules.placeholders(in: "{_x} {a1} {1a} {} {a-b} {é} {ok") == ["_x", "a1"])
        #expect(CopyRules.placeholders(in: "{{provider}}") == ["provider"])
        #expect(CopyRules.placeholders(in: "No placeholders") == [])
        #expect(CopyRules.placeholders(in: "{" + String(repeating: "a", count: 33) + "}") == [])
        #expect(CopyRules.placeholders(in: "{" + String(repeating: "a", count: 32) + "}").count == 1)
    }

    @Test("fill replaces the placeholders that have a value")
    func fill() {
        #expect(CopyRules.fill("Verify with {provider}", with: ["provider": "BankID"]) == "Verify with BankID")
        #expect(CopyRules.fill("{a} and {b}", with: ["a": "1"]) == "1 and {b}")
        #expect(CopyRules.fill("{a}, {a} and {a}", with: ["a": "x"]) == "x, x and x")
        #expect(CopyRules.fill("{a} {1a} {} {a", with: ["a": "x", "1a": "y", "": "z"]) == "x {1a} {} {a")
        #expect(CopyRules.fill("{{a}}", with: ["a": "x"]) == "{x}")
        #expect(CopyRules.fill("{a}", with: ["a": "{b}", "b": "no"]) == "{b}")
        #expect(CopyRules.fill("{a}", with: [:]) == "{a}")
    }

    @Test(
        "vague labels, whatever the case and punctuation",
        arguments: [
            "OK", "ok", "Ok!", " OK. ", "Okay", "Go", "Click here", "Submit", "Yes", "No", "Aceptar",
            "¡Sí!", "D’accord", "Weiter", "はい", "موافق", "Continue…",
        ]
    )
    func vague(label: String) {
        #expect(CopyRules.isVague(label))
    }

    @Test(
        "descriptive labels",
        arguments: ["Go back", "Try again", "Open settings", "OK then go", "Okay computer", "Volver", "戻る", ""]
    )
    func descriptive(label: String) {
        #expect(!CopyRules.isVague(label))
    }
}

// libFuzzer target: the template document parser, its rules (CopyRules) and `Template.document`.
//
// Invariants:
// - a document the parser accepts as `.new` is accepted as `.stored` too, as the same template
//   (stored documents are held to fewer rules, never more);
// - an accepted template's `document`, parsed again (directly, and through JSONWriter and
//   JSONParser), gives the same template, and passes with `expectedID` set to its id;
// - a refused document names at least one issue, each with a pointer that is "" or starts with "/";
// - filling each placeholder of a string with itself (`{name}` → `{name}`) changes nothing, and
//   `placeholders(in:)` lists no name twice.
import EmptyStateCore
import JSONCoding

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let document = try? JSONParser.parse(Array(UnsafeBufferPointer(start: data, count: size))) else {
        return 0
    }
    let asNew = TemplateParser.parse(document, origin: .new)
    let asStored = TemplateParser.parse(document, origin: .stored)
    switch (asNew, asStored) {
    case (.success(let template), .success(let stored)):
        precondition(template == stored, "origin .stored gave another template")
        checkRoundTrip(template)
    case (.success, .failure(let error)):
        fatalError("accepted as new, refused as stored: \(error.issues)")
    case (.failure(let error), .success(let stored)):
        // Only rules added later (the error rule; no control characters in strings) may refuse
        // what is accepted as stored.
        precondition(
            error.issues.allSatisfy {
                $0.pointer == "/actions" || $0.rule.hasSuffix(CopyRules.controlCharacterRule)
            },
            "a stored document passed, but as new it broke \(error.issues)"
        )
        checkRoundTrip(stored, origin: .stored)
    case (.failure(let error), .failure):
        precondition(!error.issues.isEmpty, "refused without an issue")
        for issue in error.issues {
            // Bytes, not characters: "/" and a combining mark after it are one Character.
            precondition(
                issue.pointer.isEmpty || issue.pointer.utf8.first == UInt8(ascii: "/"),
                "malformed pointer \(issue.pointer)"
            )
        }
    }
    checkCopyRules(in: document)
    return 0
}

/// `document` parses back to `template`, straight and through the JSON writer.
private func checkRoundTrip(_ template: Template, origin: TemplateParser.Origin = .new) {
    let document = template.document
    guard case .success(let again) = TemplateParser.parse(document, expectedID: template.id, origin: origin) else {
        fatalError("the document of an accepted template is refused: \(document)")
    }
    precondition(again == template, "document round trip changed the template")
    var writer = JSONWriter()
    writer.value(document)
    guard let reparsed = try? JSONParser.parse(writer.bytes),
        case .success(let third) = TemplateParser.parse(reparsed, origin: origin)
    else {
        fatalError("the written document of an accepted template is refused")
    }
    precondition(third == template, "written document round trip changed the template")
    _ = template.requiredKeys
}

/// Runs the copy rules over every string in the document, accepted or not.
private func checkCopyRules(in value: JSONValue) {
    switch value {
    case .string(let text):
        _ = CopyRules.columns(text)
        _ = CopyRules.isVague(text)
        let names = CopyRules.placeholders(in: text)
        precondition(Set(names).count == names.count, "placeholders(in:) repeats a name")
        for name in names { precondition(CopyRules.isPlaceholderName(Substring(name)), "not a placeholder: \(name)") }
        let identity = Dictionary(uniqueKeysWithValues: names.map { ($0, "{\($0)}") })
        precondition(CopyRules.fill(text, with: identity) == text, "filling {name} with itself changed the text")
        if let first = names.first {
            let filled = CopyRules.fill(text, with: [first: ""])
            precondition(filled.utf8.count <= text.utf8.count, "filling with an empty value made the text longer")
        }
    case .array(let elements):
        for element in elements { checkCopyRules(in: element) }
    case .object(let members):
        for member in members {
            checkCopyRules(in: .string(member.key))
            checkCopyRules(in: member.value)
        }
    case .null, .bool, .number:
        break
    }
}

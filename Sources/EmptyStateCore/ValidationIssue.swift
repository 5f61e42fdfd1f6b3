// What a document validation reports: the broken rules, each with where it is. Template
// documents (TemplateParser) and app policies (AppPolicy) both report in these.

/// One broken rule: where (a JSON pointer into the template document) and which rule.
package struct ValidationIssue: Sendable, Equatable, CustomStringConvertible {
    package var pointer: String
    package var rule: String

    package init(_ pointer: String, _ rule: String) {
        self.pointer = pointer
        self.rule = rule
    }

    package var description: String { "\(pointer.isEmpty ? "/" : pointer): \(rule)" }
}

/// Every rule a template document breaks.
package struct TemplateValidationError: Error, Sendable, Equatable {
    package var issues: [ValidationIssue]
}

import EmptyStateTranslation
import Testing

/// Checks that `read` refuses `input`, and says where (line, column, unit) and why.
func expectRefused(
    _ input: String,
    line: Int,
    column: Int,
    unit: String?,
    message: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    by read: ([UInt8]) throws(TranslationFormatError) -> Void
) {
    do {
        try read(Array(input.utf8))
        Issue.record("read without an error: \(input)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.line == line, "\(error)", sourceLocation: sourceLocation)
        #expect(error.column == column, "\(error)", sourceLocation: sourceLocation)
        #expect(error.unitID == unit, "\(error)", sourceLocation: sourceLocation)
        #expect(error.message.contains(message), "\(error)", sourceLocation: sourceLocation)
    }
}

/// Checks that two files are the same bytes, and otherwise names the first line that differs
/// (rather than printing both files as numbers).
func expectSameBytes(_ actual: [UInt8], _ expected: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
    guard actual != expected else { return }
    let actualLines = actual.split(separator: 0x0A, omittingEmptySubsequences: false)
    let expectedLines = expected.split(separator: 0x0A, omittingEmptySubsequences: false)
    let line =
        zip(actualLines, expectedLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        ?? min(actualLines.count, expectedLines.count)
    func text(_ lines: [ArraySlice<UInt8>]) -> String {
        line < lines.count ? String(decoding: lines[line], as: UTF8.self).debugDescription : "(end of file)"
    }
    Issue.record(
        "the bytes differ at line \(line + 1): \(text(actualLines)) instead of \(text(expectedLines))",
        sourceLocation: sourceLocation
    )
}

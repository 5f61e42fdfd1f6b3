/// Why a translation file cannot be read: where (line and column, 1-based, columns in Unicode
/// scalars; the unit when known) and what is wrong. An import answers it as a 400 problem.
package struct TranslationFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    package var line: Int?
    package var column: Int?
    package var unitID: String?
    package var message: String

    package init(line: Int?, column: Int?, unitID: String? = nil, message: String) {
        self.line = line
        self.column = column
        self.unitID = unitID
        self.message = message
    }

    /// An error at a byte offset of `source`.
    package init(at offset: Int, in source: [UInt8], unitID: String? = nil, _ message: String) {
        let position = TextPosition(offset: offset, in: source)
        self.init(line: position.line, column: position.column, unitID: unitID, message: message)
    }

    package var description: String {
        var parts: [String] = []
        if let line { parts.append(column.map { "line \(line), column \($0)" } ?? "line \(line)") }
        if let unitID { parts.append("unit \(unitID)") }
        return parts.isEmpty ? message : parts.joined(separator: ", ") + ": " + message
    }
}

/// A line and column in a UTF-8 text, computed from a byte offset only when an error needs it.
package struct TextPosition: Sendable, Equatable {
    package var line: Int
    package var column: Int

    /// CR LF, a lone CR and LF each end a line; a leading byte-order mark takes no column.
    package init(offset: Int, in bytes: [UInt8]) {
        var line = 1
        var column = 1
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let end = min(offset, bytes.count)
        while index < end {
            let byte = bytes[index]
            if byte == 0x0A || (byte == 0x0D && (index + 1 >= bytes.count || bytes[index + 1] != 0x0A)) {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80, byte != 0x0D {
                column += 1
            }
            index += 1
        }
        self.line = line
        self.column = column
    }
}

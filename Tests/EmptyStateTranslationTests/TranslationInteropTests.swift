import EmptyStateTranslation
import Foundation
import JSONCoding
import Testing

/// The two Swift halves of `make translation-check` (`Tests/translation/check_interop.py` runs
/// between them): the first writes every format into a directory for lxml and translate-toolkit
/// to read, with the model they must find (`expected.json`); the second reads back what
/// translate-toolkit wrote and checks nothing was lost. Each runs only when its directory is given.
@Suite("Interop with independent readers")
struct TranslationInteropTests {
    static let outputVariable = "EMPTY_STATE_TRANSLATION_INTEROP_OUT"
    static let inputVariable = "EMPTY_STATE_TRANSLATION_INTEROP_IN"

    /// The fixture documents: the built-in catalogue in French with every state, and the hard texts.
    static func documents() throws -> [(name: String, document: TranslationDocument)] {
        var catalogue = try Fixtures.builtinDocument()
        let states: [TranslationState] = [.translated, .reviewed, .final, .stale, .missing]
        for index in catalogue.units.indices {
            let state = states[index % states.count]
            catalogue.units[index].state = state
            if state == .missing, index % 2 == 0 { catalogue.units[index].target = nil }
        }
        return [("catalogue-fr", catalogue), ("hard-pt-BR", Fixtures.hardDocument())]
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment[TranslationInteropTests.outputVariable] != nil))
    func writeFixtures() throws {
        let directory = URL(fileURLWithPath: ProcessInfo.processInfo.environment[Self.outputVariable]!)
        var expected = JSONWriter()
        expected.beginObject()
        for (name, document) in try Self.documents() {
            try write(XLIFF2Writer.write(document), to: directory, "xliff2/\(name).xlf")
            try write(XLIFF12Writer.write(document), to: directory, "xliff12/\(name).xliff")
            try write(StringCatalogWriter.write([document]), to: directory, "xcstrings/\(name).xcstrings")
            for file in TranslationFormat.android.write([document]) {
                try write(file.bytes, to: directory, "android/\(name)/\(file.path)")
            }
            expected.key(name)
            Self.describe(document, into: &expected)
        }
        expected.endObject()
        try write(expected.bytes, to: directory, "expected.json")
    }

    /// The model the Python check compares with, ids in every spelling the formats use.
    private static func describe(_ document: TranslationDocument, into json: inout JSONWriter) {
        json.beginObject()
        json.member("sourceLocale", document.sourceLocale)
        json.member("targetLocale", document.targetLocale)
        json.member("androidFolder", AndroidLocaleFolder.folder(for: document.targetLocale))
        json.key("exportedAt")
        if let exportedAt = document.exportedAt { json.string(exportedAt) } else { json.null() }
        json.key("units")
        json.beginArray()
        for unit in document.units {
            json.beginObject()
            json.member("id", unit.id.description)
            json.member("tokenId", unit.id.tokenForm)
            json.member("resourceName", AndroidResourceName.name(for: unit.id))
            json.member("source", unit.source ?? "")
            json.key("target")
            if let target = unit.target { json.string(target) } else { json.null() }
            json.member("state", unit.state.rawValue)
            json.key("notes")
            json.beginArray()
            for note in unit.notes { json.string(note) }
            json.endArray()
            json.key("placeholders")
            json.beginArray()
            for name in unit.placeholders { json.string(name) }
            json.endArray()
            json.endObject()
        }
        json.endArray()
        json.endObject()
    }

    private func write(_ bytes: [UInt8], to directory: URL, _ path: String) throws {
        let url = directory.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment[TranslationInteropTests.inputVariable] != nil))
    func readToolkitOutput() throws {
        let directory = URL(fileURLWithPath: ProcessInfo.processInfo.environment[Self.inputVariable]!)
        func bytes(_ path: String) throws -> [UInt8] {
            Array(try Data(contentsOf: directory.appendingPathComponent(path)))
        }
        for (name, document) in try Self.documents() {
            // Saved again by translate-toolkit without a change: nothing lost, and our export of
            // what we read is the file we first wrote.
            let xliff12 = try XLIFF12Reader.read(try bytes("toolkit/xliff12/\(name).xliff"))
            #expect(xliff12 == document, "XLIFF 1.2 \(name)")
            expectSameBytes(XLIFF12Writer.write(xliff12), XLIFF12Writer.write(document))
            let xliff2 = try XLIFF2Reader.read(try bytes("toolkit/xliff2/\(name).xlf"))
            #expect(xliff2 == document, "XLIFF 2.0 \(name)")
            expectSameBytes(XLIFF2Writer.write(xliff2), XLIFF2Writer.write(document))

            // A translation added through translate-toolkit's API (the first unit without one):
            // it arrives, and every other unit is as it was.
            let edited = try #require(document.units.firstIndex { $0.target == nil })
            let added = "Traduit avec translate-toolkit {" + (document.units[edited].placeholders.first ?? "x") + "}"
            for (format, read) in [
                ("1.2", try XLIFF12Reader.read(try bytes("toolkit/xliff12/\(name)-edited.xliff"))),
                ("2.0", try XLIFF2Reader.read(try bytes("toolkit/xliff2/\(name)-edited.xlf"))),
            ] {
                #expect(read.units.count == document.units.count, "\(format) \(name)")
                for (index, (unit, original)) in zip(read.units, document.units).enumerated() {
                    if index == edited {
                        #expect(sameText(unit.target, added), "\(format) \(name): \(String(describing: unit.target))")
                        #expect(unit.notes == original.notes, "\(format) \(name)")
                        #expect(sameText(unit.source, original.source), "\(format) \(name)")
                        // translate-toolkit approves a 1.2 unit it translates; its 2.0 class sets no state.
                        #expect(unit.state == (format == "1.2" ? .reviewed : .missing), "\(format) \(name)")
                    } else {
                        #expect(unit == original, "\(format) \(name) \(unit.id)")
                    }
                }
            }
        }
    }
}

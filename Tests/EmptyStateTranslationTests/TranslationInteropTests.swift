import EmptyStateTranslation
import Foundation
import Testing
import TranslationFixtures

/// The Swift side of `make translation-check`: the fixture writer (`translation-fixtures`, a
/// program of `TranslationFixtures`) writes every format into a directory for lxml and
/// translate-toolkit to read (`Tests/translation/check_interop.py`), and `readToolkitOutput`
/// reads back what translate-toolkit wrote and checks nothing was lost; it runs only when that
/// directory is given. `fixturesReadBack` checks the writer itself on every `swift test`.
@Suite("Interop with independent readers")
struct TranslationInteropTests {
    static let inputVariable = "EMPTY_STATE_TRANSLATION_INTEROP_IN"

    @Test("the fixture writer writes every format, and each file reads back as its document")
    func fixturesReadBack() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("interop-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let written = Set(try TranslationFixtures.writeInterop(to: directory))
        func bytes(_ path: String) throws -> [UInt8] {
            Array(try Data(contentsOf: directory.appendingPathComponent(path)))
        }
        #expect(written.contains("expected.json"))
        for (name, document) in try TranslationFixtures.interopDocuments() {
            #expect(try XLIFF2Reader.read(try bytes("xliff2/\(name).xlf")) == document, "\(name)")
            #expect(try XLIFF12Reader.read(try bytes("xliff12/\(name).xliff")) == document, "\(name)")
            #expect(written.contains("xcstrings/\(name).xcstrings"), "\(name)")
            #expect(written.contains { $0.hasPrefix("android/\(name)/") }, "\(name)")
        }
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment[TranslationInteropTests.inputVariable] != nil))
    func readToolkitOutput() throws {
        let directory = URL(fileURLWithPath: ProcessInfo.processInfo.environment[Self.inputVariable]!)
        func bytes(_ path: String) throws -> [UInt8] {
            Array(try Data(contentsOf: directory.appendingPathComponent(path)))
        }
        for (name, document) in try TranslationFixtures.interopDocuments() {
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

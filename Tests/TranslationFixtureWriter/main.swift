// translation-fixtures DIR: writes the translation files of `make translation-check` into DIR,
// for Tests/translation/check_interop.py to read with independent readers (lxml,
// translate-toolkit, its own aapt2 rules). See TranslationFixtures.writeInterop.
import Foundation
import TranslationFixtures

let arguments = CommandLine.arguments
guard arguments.count == 2, !arguments[1].hasPrefix("-") else {
    FileHandle.standardError.write(
        Data("usage: translation-fixtures DIR  (writes the interop check's translation files into DIR)\n".utf8)
    )
    exit(64)
}
do {
    let written = try TranslationFixtures.writeInterop(to: URL(fileURLWithPath: arguments[1]))
    print("translation-fixtures: \(written.count) files in \(arguments[1])")
} catch {
    FileHandle.standardError.write(Data("translation-fixtures: \(error)\n".utf8))
    exit(1)
}

/// The file formats, with what an export route needs to name and type its files and what an
/// import route needs to read them.
package enum TranslationFormat: String, Sendable, CaseIterable {
    case xliff2
    case xliff12
    /// A String Catalog (`.xcstrings`): all target locales in one file.
    case xcstrings
    /// Android `strings.xml`: one file per locale folder, plus `values/strings.xml` for the source.
    case android

    /// The `Content-Type` of a file.
    package var mediaType: String {
        switch self {
        case .xliff2, .xliff12: return "application/xliff+xml"
        case .xcstrings: return "application/json"
        case .android: return "application/xml"
        }
    }

    /// Writes the documents (one per target locale, all from the same source locale) as files:
    /// `fr.xlf` (2.0), `fr.xliff` (1.2, Xcode's extension), one `Localizable.xcstrings`, or an
    /// Android `res/` tree (`values/strings.xml` and `values-fr/strings.xml`…). Files and their
    /// bytes depend only on the documents.
    package func write(_ documents: [TranslationDocument]) -> [TranslationFile] {
        switch self {
        case .xliff2:
            return documents.map { TranslationFile(path: $0.targetLocale + ".xlf", bytes: XLIFF2Writer.write($0)) }
        case .xliff12:
            return documents.map { TranslationFile(path: $0.targetLocale + ".xliff", bytes: XLIFF12Writer.write($0)) }
        case .xcstrings:
            return [TranslationFile(path: "Localizable.xcstrings", bytes: StringCatalogWriter.write(documents))]
        case .android:
            guard let first = documents.first else { return [] }
            return [
                TranslationFile(
                    path: AndroidStringsWriter.path(for: nil),
                    bytes: AndroidStringsWriter.writeSource(first)
                )
            ]
                + documents.map {
                    TranslationFile(
                        path: AndroidStringsWriter.path(for: $0.targetLocale),
                        bytes: AndroidStringsWriter.write($0)
                    )
                }
        }
    }

    /// Reads one uploaded file.
    /// - Parameters:
    ///   - path: the file's name or path; for Android, its folder gives the locale
    ///     (`values-fr/strings.xml`), else the header comment does.
    ///   - placeholderNames: for Android, the names of a unit's bare `%1$s`… in order (see
    ///     `AndroidStringsReader`).
    /// - Returns: one document per target locale in the file.
    package func read(
        _ bytes: [UInt8],
        path: String? = nil,
        placeholderNames: (UnitID) -> [String]? = { _ in nil },
        limits: XMLReader.Limits = XMLReader.Limits()
    ) throws(TranslationFormatError) -> [TranslationDocument] {
        switch self {
        case .xliff2: return [try XLIFF2Reader.read(bytes, limits: limits)]
        case .xliff12: return [try XLIFF12Reader.read(bytes, limits: limits)]
        case .xcstrings: return try StringCatalogReader.read(bytes, maximumBytes: limits.maximumBytes)
        case .android:
            let folder = path.flatMap { $0.split(separator: "/").dropLast().last.map(String.init) }
            let locale = folder.flatMap(AndroidLocaleFolder.locale(forFolder:))
            return [
                try AndroidStringsReader.read(bytes, locale: locale, placeholderNames: placeholderNames, limits: limits)
            ]
        }
    }
}

/// One file of an export.
package struct TranslationFile: Sendable, Equatable {
    /// Relative, `/`-separated.
    package var path: String
    package var bytes: [UInt8]
}

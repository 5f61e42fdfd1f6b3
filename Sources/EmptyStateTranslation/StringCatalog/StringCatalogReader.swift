import CLDRPlurals
import EmptyStateCore
import JSONCoding

/// Reads a String Catalog back: one document per target locale, each with a unit for every key
/// (a locale without an entry for a key has it `missing`), in the file's key order.
///
/// The JSON is parsed strictly (`JSONParser`: no duplicate keys, no comments); errors carry the
/// line and column, and the unit id when known. The export record
/// (`StringCatalogWriter.exportKey`) gives the export's time. Refused: a key that is not
/// `template/key`, device `variations` and `substitutions` (the copy has one form per locale, or
/// a form per plural category), an unknown state.
///
/// A `variations.plural` is a plural string: its forms, the unit's text its `other` form, its
/// state the least advanced of its forms' (one form still `new` leaves the whole string a
/// draft). A plural whose forms cannot be taken (no `other`, a category that is no CLDR
/// category) is the unit's `pluralIssue`: the import refuses that string alone.
/// Keys with `shouldTranslate: false` are skipped. A String Catalog has no review state: an
/// unchanged `translated` string is Xcode's "Mark as Reviewed" (`translatedConfirms`).
package enum StringCatalogReader {
    /// As `XMLReader.Limits.maximumBytes`. A catalogue holds every locale, so the whole
    /// 10,000-template catalogue in seven locales does not fit it: export it by selection.
    package static let defaultMaximumBytes = 40 << 20

    package static func read(
        _ bytes: [UInt8],
        maximumBytes: Int = defaultMaximumBytes
    )
        throws(TranslationFormatError) -> [TranslationDocument]
    {
        guard bytes.count <= maximumBytes else {
            throw TranslationFormatError(
                line: nil,
                column: nil,
                message: "the file is \(bytes.count) bytes; at most \(maximumBytes) are accepted"
            )
        }
        let text = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        let root: JSONValue
        do {
            root = try JSONParser.parse(text, maximumDepth: 16)
        } catch {
            throw TranslationFormatError(at: error.offset, in: text, error.reason)
        }
        var reader = Reader(bytes: text)
        return try reader.read(root)
    }
}

private struct Reader {
    let bytes: [UInt8]

    func fail(_ path: [String], unit: String? = nil, _ message: String) -> TranslationFormatError {
        TranslationFormatError(at: JSONLocator.offset(of: path, in: bytes), in: bytes, unitID: unit, message)
    }

    mutating func read(_ root: JSONValue) throws(TranslationFormatError) -> [TranslationDocument] {
        guard case .object = root else { throw fail([], "a String Catalog is a JSON object") }
        guard case .string(let sourceText)? = root["sourceLanguage"] else {
            throw fail([], "sourceLanguage is required (a string)")
        }
        guard let sourceLocale = LocaleTag(sourceText)?.description else {
            throw fail(["sourceLanguage"], "\"\(sourceText)\" is not a BCP 47 language tag")
        }
        if let version = root["version"] {
            guard case .string(let text) = version, text.hasPrefix("1.") else {
                throw fail(["version"], "version must be \"1.0\" (or another 1.x)")
            }
        }
        guard case .object(let strings)? = root["strings"] else { throw fail([], "strings is required (an object)") }

        var keys: [(id: UnitID, source: Localized?, notes: [String])] = []
        /// Target locale → unit id → its translation.
        var targets: [String: [UnitID: Localized]] = [:]
        var exportedAt: String?
        for (key, entry) in strings {
            let path = ["strings", key]
            if key == StringCatalogWriter.exportKey {
                exportedAt = try exportTime(entry, path: path)
                continue
            }
            guard let id = UnitID(key), key.contains("/") else {
                throw fail(path, unit: key, "the key is not a unit id template/key (e.g. connectionRefused/title)")
            }
            guard case .object(let members) = entry else { throw fail(path, unit: key, "expected an object") }
            for member in members
            where !["comment", "extractionState", "localizations", "shouldTranslate"].contains(member.key) {
                throw fail(path + [member.key], unit: key, "\(member.key) is not supported")
            }
            if case .bool(false)? = entry["shouldTranslate"] { continue }
            var notes: [String] = []
            switch entry["comment"] {
            case nil: break
            case .string(let comment)?:
                notes =
                    comment.isEmpty
                    ? [] : comment.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            case .some: throw fail(path + ["comment"], unit: key, "comment must be a string")
            }
            var source: Localized?
            if let localizations = entry["localizations"] {
                guard case .object(let locales) = localizations else {
                    throw fail(path + ["localizations"], unit: key, "localizations must be an object")
                }
                for (localeText, localization) in locales {
                    let localePath = path + ["localizations", localeText]
                    guard let locale = LocaleTag(localeText)?.description else {
                        throw fail(localePath, unit: key, "\"\(localeText)\" is not a BCP 47 language tag")
                    }
                    let localized = try self.localized(localization, at: localePath, unit: key)
                    if locale == sourceLocale {
                        source = localized
                    } else {
                        targets[locale, default: [:]][id] = localized
                    }
                }
            }
            // Keys are unique (the parser refuses a repeated member) and a unit id has one spelling.
            keys.append((id, source, notes))
        }

        return targets.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { locale in
            let values = targets[locale]!
            let units = keys.map { key in
                let translation = values[key.id]
                var unit = TranslationUnit(
                    id: key.id,
                    source: key.source?.value,
                    target: translation?.value,
                    state: translation?.state ?? .missing,
                    notes: key.notes,
                    sourcePlural: key.source?.plural,
                    targetPlural: translation?.plural
                )
                unit.pluralIssue = key.source?.pluralIssue ?? translation?.pluralIssue
                return unit
            }
            return TranslationDocument(
                sourceLocale: sourceLocale,
                targetLocale: locale,
                exportedAt: exportedAt,
                units: units,
                translatedConfirms: true
            )
        }
    }

    /// The time in the export record's comment (`exportedAt=…`); `nil` when it was edited away.
    private func exportTime(_ entry: JSONValue, path: [String]) throws(TranslationFormatError) -> String? {
        guard case .string(let comment)? = entry["comment"], comment.hasPrefix("exportedAt=") else { return nil }
        let time = comment.dropFirst("exportedAt=".count).prefix { $0 != " " }
        // `2026-11-23T10:00:00Z`, the store's form (times are compared as text).
        let shape = Array(time.utf8)
        guard shape.count == 20, shape[4] == UInt8(ascii: "-"), shape[10] == UInt8(ascii: "T"),
            shape[19] == UInt8(ascii: "Z")
        else {
            throw fail(path + ["comment"], unit: StringCatalogWriter.exportKey, "exportedAt \"\(time)\" is not a time")
        }
        return String(time)
    }

    /// One locale of a string: its text (a plural's `other` form) and state, and its forms.
    struct Localized {
        var state: TranslationState
        var value: String
        var plural: PluralText?
        var pluralIssue: String?
    }

    /// A locale's `stringUnit`, or its `variations.plural`.
    private func localized(
        _ localization: JSONValue,
        at path: [String],
        unit: String
    ) throws(TranslationFormatError) -> Localized {
        guard case .object(let members) = localization else { throw fail(path, unit: unit, "expected an object") }
        for member in members where member.key != "stringUnit" && member.key != "variations" {
            let what = member.key == "substitutions" ? "substitutions" : member.key
            throw fail(
                path + [member.key],
                unit: unit,
                "\(what) are not supported: the copy has one form per locale, or a form per plural category"
            )
        }
        guard let variations = localization["variations"] else {
            let (state, value) = try stringUnit(localization, at: path, unit: unit)
            return Localized(state: state, value: value)
        }
        if localization["stringUnit"] != nil {
            throw fail(path, unit: unit, "a localization has a stringUnit or variations, not both")
        }
        guard case .object(let kinds) = variations else {
            throw fail(path + ["variations"], unit: unit, "variations must be an object")
        }
        for kind in kinds where kind.key != "plural" {
            throw fail(
                path + ["variations", kind.key],
                unit: unit,
                "\(kind.key) variations are not supported: the copy has a form per plural category at most"
            )
        }
        guard case .object(let categories)? = variations["plural"] else {
            throw fail(path + ["variations"], unit: unit, "variations.plural must be an object")
        }
        var forms: [PluralCategory: String] = [:]
        var state: TranslationState?
        var issue: String?
        for (name, form) in categories {
            let (formState, value) = try stringUnit(form, at: path + ["variations", "plural", name], unit: unit)
            state = state.map { Self.leastAdvanced($0, formState) } ?? formState
            guard let category = PluralCategory(rawValue: name) else {
                issue =
                    issue
                    ?? "variations.plural has \"\(name)\", which is not a plural category (zero, one, two, few, many, other)"
                continue
            }
            forms[category] = value
        }
        if forms[.other] == nil {
            issue =
                issue
                ?? "variations.plural has no other form: the general form, used for every number without a form of its own"
        }
        // The file does not name the number's placeholder: the import takes the template's
        // (`ImportPlanner`), so it is left empty here.
        let plural = issue == nil ? PluralText(variable: "", forms: forms) : nil
        return Localized(state: state ?? .missing, value: forms[.other] ?? "", plural: plural, pluralIssue: issue)
    }

    /// A draft form leaves the plural a draft; a stale one, stale.
    private static func leastAdvanced(_ lhs: TranslationState, _ rhs: TranslationState) -> TranslationState {
        let order: [TranslationState] = [.missing, .stale, .translated, .reviewed, .final]
        return order.firstIndex(of: lhs)! <= order.firstIndex(of: rhs)! ? lhs : rhs
    }

    private func stringUnit(
        _ localization: JSONValue,
        at path: [String],
        unit: String
    ) throws(TranslationFormatError)
        -> (TranslationState, String)
    {
        guard case .object(let members) = localization else { throw fail(path, unit: unit, "expected an object") }
        for member in members where member.key != "stringUnit" {
            throw fail(path + [member.key], unit: unit, "\(member.key) is not supported here")
        }
        guard case .object(let fields)? = localization["stringUnit"] else {
            throw fail(path, unit: unit, "stringUnit is required (an object with state and value)")
        }
        for field in fields where field.key != "state" && field.key != "value" {
            throw fail(path + ["stringUnit", field.key], unit: unit, "\(field.key) is not supported in a stringUnit")
        }
        guard case .string(let value)? = localization["stringUnit"]?["value"] else {
            throw fail(path + ["stringUnit"], unit: unit, "stringUnit.value is required (a string)")
        }
        let state: TranslationState
        switch localization["stringUnit"]?["state"] {
        case .string("translated")?: state = .translated
        case .string("needs_review")?, .string("stale")?: state = .stale
        case .string("new")?: state = .missing
        case .string(let other)?:
            throw fail(
                path + ["stringUnit", "state"],
                unit: unit,
                "state \"\(other)\" is not one of new, translated, needs_review, stale"
            )
        default:
            throw fail(path + ["stringUnit"], unit: unit, "stringUnit.state is required (a string)")
        }
        return (state, value)
    }
}

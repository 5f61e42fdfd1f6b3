import EmptyStateCore
import EmptyStateTranslation

/// The answer to an import, dry run or applied: what each string of the file does (or would do),
/// per template, as a person reads it and a script checks it. `openapi.yaml` names the members
/// (`TranslationImportReport`).
struct TranslationImportReport: Encodable {
    /// How many strings of each outcome, and what happened to the templates.
    struct Summary: Encodable {
        var new = 0
        var changed = 0
        var unchanged = 0
        /// Unchanged text whose review state the file records (a stale translation made current).
        var confirmed = 0
        var untranslated = 0
        var rejected = 0
        /// Templates that get (or, in a dry run, would get) a revision.
        var templatesChanged = 0
        /// Revisions written: 0 in a dry run.
        var revisionsWritten = 0
        /// Templates changed by someone else between the plan and its write (nothing written).
        var conflicts = 0

        mutating func count(_ outcome: String) {
            switch outcome {
            case "new": new += 1
            case "changed": changed += 1
            case "unchanged": unchanged += 1
            case "confirmed": confirmed += 1
            case "untranslated": untranslated += 1
            default: rejected += 1
            }
        }
    }

    /// One locale of the file (a String Catalog holds several).
    struct Document: Encodable {
        var sourceLocale: String
        /// As the file says it (canonical case).
        var targetLocale: String
        /// When the file was exported, as it says; `null` when it does not.
        var exportedAt: String?
        var units: Int
        /// Which of the catalogue's locales the file's target is; `null` when the file could not
        /// be planned.
        var locale: LocaleMatch?
    }

    /// How a file's target locale was matched with the catalogue's (`LocaleResolution`).
    struct LocaleMatch: Encodable {
        /// The catalogue's locale the strings go to.
        var locale: String
        /// `exact`, `alias` (CLDR's language alias: `fre` → `fr`), `nearest` (a shorter tag of the
        /// same language and script: `fr-FR` → `fr`), or `created` (new to the catalogue, asked for
        /// with `createLocales=true`).
        var match: String
        /// In words, for a person reading the dry run.
        var detail: String
    }

    /// Why a string is not imported.
    struct Reason: Encodable {
        /// `unknownTemplate`, `unknownKey`, `duplicate`, `placeholders`, `copyRule`,
        /// `sourceChanged`, `changedSinceExport`, `plural` (the file's plural forms cannot be taken).
        var reason: String
        /// For copy rules and placeholders: where in the template document, as the admin API's
        /// 422 says it.
        var pointer: String?
        var detail: String
    }

    /// One string of the file.
    struct StringResult: Encodable {
        var locale: String
        var key: String
        /// `new`, `changed`, `unchanged`, `confirmed`, `untranslated` or `rejected`.
        var outcome: String
        /// The translation imported (`new`, `changed`).
        var value: String?
        /// The store's translation it replaces (`changed`).
        var previous: String?
        /// For a plural string: the forms imported, by CLDR category (`value` is their `other`).
        var forms: [String: String]?
        /// For a plural string: the store's forms they replace (`previous` is their `other`).
        var previousForms: [String: String]?
        /// The review state recorded (`confirmed`, and `new`/`changed` when the file gives one):
        /// `translated`, `reviewed` or `final`.
        var review: String?
        var reasons: [Reason]?
    }

    /// One template the file names.
    struct TemplateResult: Encodable {
        var templateId: String
        /// The revision the plan was made against, the write's precondition; `null` for an
        /// unknown template.
        var baseRevision: Int?
        /// `changed` (written, or in a dry run would be), `unchanged`, `rejected` (nothing to
        /// write and some strings refused), `conflict` (changed by someone else meanwhile:
        /// nothing written; import the file again) or `withheld` (a strict import that failed
        /// elsewhere: nothing written).
        var result: String
        /// The revision written.
        var revision: Int?
        /// Why a `conflict`.
        var detail: String?
        var strings: [StringResult]
    }

    var fileName: String
    var format: String
    var dryRun: Bool
    /// `strict=true`: a refused string fails the whole import (422), nothing written.
    var strict: Bool
    var summary: Summary
    var documents: [Document]
    /// By template id.
    var templates: [TemplateResult]
}

extension TranslationImportReport.Reason {
    init(_ rejection: ImportRejection) {
        self.init(reason: rejection.reason.rawValue, pointer: rejection.pointer, detail: rejection.message)
    }
}

extension PluralText {
    /// Category → form, as a report shows them.
    var reportForms: [String: String] {
        Dictionary(uniqueKeysWithValues: forms.map { ($0.key.rawValue, $0.value) })
    }
}

import EmptyStateCore
import EmptyStateStore
import EmptyStateTranslation
import JSONCoding

/// The plans of a file's documents as one import: their writes merged into one per template (the
/// locales of a String Catalog that touch one template are one revision), applied template by
/// template, and reported.
struct TranslationImporter {
    /// What is written to one template.
    struct Write {
        /// The revision the plans read: the write's precondition.
        var baseRevision: Int
        var template: Template
        /// Locale → key → the review state the write records (`ImportPlan.TemplateWrite.marks`).
        var marks: [String: [String: TranslationState]] = [:]

        /// The marks as the store takes them.
        var storeMarks: [String: ReviewState] {
            var result: [String: ReviewState] = [:]
            for (locale, keys) in marks {
                for (key, state) in keys {
                    result[TemplateContent.markKey(locale: locale, key: key)] =
                        state == .final ? .final : state == .reviewed ? .reviewed : .translated
                }
            }
            return result
        }
    }

    private let plans: [ImportPlan]
    private let templates: [String: TemplateSnapshot]
    /// By template id.
    private(set) var writes: [String: Write] = [:]
    /// Template id → why its merged write is refused (a rule broken only by the locales
    /// together): every string it would have written is rejected.
    private var mergeRejections: [String: [ImportRejection]] = [:]
    /// Template id → the revision written.
    private(set) var written: [String: Int] = [:]
    /// Template id → why its write found it changed.
    private(set) var conflicts: [String: String] = [:]

    var revisionsWritten: Int { written.count }

    init(plans: [ImportPlan], templates: [String: TemplateSnapshot]) {
        self.plans = plans
        self.templates = templates
        var merged: Set<String> = []
        for plan in plans {
            for write in plan.writes {
                let marks = write.marks.isEmpty ? [:] : [plan.targetLocale: write.marks]
                guard var existing = writes[write.templateID] else {
                    writes[write.templateID] = Write(
                        baseRevision: write.baseRevision,
                        template: write.template,
                        marks: marks
                    )
                    continue
                }
                let values = write.template.strings(for: plan.targetLocale) ?? [:]
                if let index = existing.template.strings.firstIndex(where: { $0.locale == plan.targetLocale }) {
                    existing.template.strings[index].values = values
                } else {
                    existing.template.strings.append((plan.targetLocale, values))
                }
                // The locale's plural strings go with its texts (each `other` form is in both).
                existing.template.plurals[plan.targetLocale] = write.template.plurals[plan.targetLocale]
                existing.marks.merge(marks) { _, new in new }
                writes[write.templateID] = existing
                merged.insert(write.templateID)
            }
        }
        // Each plan validated its template with its own locale's changes; together they are
        // validated again.
        for id in merged {
            guard let write = writes[id] else { continue }
            switch TemplateParser.parse(write.template.document, expectedID: id) {
            case .success(let template):
                writes[id]?.template = template
            case .failure(let failure):
                mergeRejections[id] = failure.issues.map { ImportRejection(.copyRule, pointer: $0.pointer, $0.rule) }
                writes[id] = nil
            }
        }
    }

    /// The templates to write, in id order.
    var orderedWrites: [(id: String, write: Write)] {
        writes.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).map { ($0, writes[$0]!) }
    }

    /// Whether a string of the file is refused: what a strict import fails on.
    var hasRejections: Bool { plans.contains(where: \.hasRejections) || !mergeRejections.isEmpty }

    /// Writes each template in its own transaction, in id order, with `write` (which returns
    /// the revision written). A template changed meanwhile is a conflict, and the others go on.
    /// - Throws: any other store failure, at once: the templates written before it stay written
    ///   (and importing the file again finds them unchanged).
    mutating func apply(_ write: (String, Write) throws -> Int) throws {
        for (id, change) in orderedWrites {
            do {
                written[id] = try write(id, change)
            } catch let error as StoreError {
                guard let conflict = Self.conflict(error, id: id, change: change) else { throw error }
                conflicts[id] = conflict
            }
        }
    }

    /// Records the revisions of an import written as one transaction (strict mode).
    mutating func recordWritten(_ revisions: [String: Int]) {
        written = revisions
    }

    /// Records the template whose change made a one-transaction import fail (strict mode).
    mutating func recordConflict(_ error: StoreError, id: String) -> Bool {
        guard let change = writes[id], let conflict = Self.conflict(error, id: id, change: change) else { return false }
        conflicts[id] = conflict
        return true
    }

    /// Why a template's write found it changed, or `nil` for any other failure.
    private static func conflict(_ error: StoreError, id: String, change: Write) -> String? {
        switch error {
        case .stale(_, let current):
            return
                "\(id) changed after the file was planned against revision \(change.baseRevision): it is at revision \(current). Import the file again."
        case .deleted(_, let revision):
            return "\(id) was deleted at revision \(revision) while the file was imported."
        case .notFound:
            return "\(id) no longer exists."
        case .reviewRequired(_, let rule, let approvals):
            // The review rules hold back direct writes of it; the other templates go on.
            return
                "\(id) needs \(approvals) approval\(approvals == 1 ? "" : "s") before it changes (review rules, \(rule)): propose its strings in a change request."
        default:
            return nil
        }
    }

    /// The report of the import: per template, each string of the file in file order.
    /// - Parameters:
    ///   - locales: per document, how its locales were resolved (`TranslationImportReport.Document`).
    ///   - strict: the import was strict (then nothing is written unless everything is).
    func report(
        fileName: String,
        format: TranslationFormat,
        dryRun: Bool,
        strict: Bool = false,
        documents: [TranslationDocument],
        locales: [TranslationImportReport.LocaleMatch] = []
    ) -> TranslationImportReport {
        var summary = TranslationImportReport.Summary()
        var strings: [String: [TranslationImportReport.StringResult]] = [:]
        for plan in plans {
            for entry in plan.entries {
                let id = UnitID(entry.unitID) ?? UnitID(template: entry.unitID, key: "")
                var result = TranslationImportReport.StringResult(
                    locale: plan.targetLocale,
                    key: id.key,
                    outcome: "unchanged"
                )
                let mark = plan.writes.first { $0.templateID == id.template }?.marks[id.key]
                switch entry.outcome {
                case .new(let value):
                    result.outcome = "new"
                    result.value = value.text
                    result.forms = value.plural?.reportForms
                    result.review = mark?.rawValue
                case .changed(let from, let to):
                    result.outcome = "changed"
                    result.value = to.text
                    result.forms = to.plural?.reportForms
                    result.previous = from.text
                    result.previousForms = from.plural?.reportForms
                    result.review = mark?.rawValue
                case .unchanged:
                    result.outcome = "unchanged"
                case .confirmed(let state):
                    result.outcome = "confirmed"
                    result.review = state.rawValue
                case .untranslated:
                    result.outcome = "untranslated"
                case .rejected(let rejections):
                    result.outcome = "rejected"
                    result.reasons = rejections.map(TranslationImportReport.Reason.init)
                }
                if result.value != nil || result.outcome == "confirmed", let rejections = mergeRejections[id.template] {
                    result = TranslationImportReport.StringResult(
                        locale: result.locale,
                        key: result.key,
                        outcome: "rejected",
                        reasons: rejections.map(TranslationImportReport.Reason.init)
                    )
                }
                summary.count(result.outcome)
                strings[id.template, default: []].append(result)
            }
        }
        let results = strings.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).map { id in
            let entries = strings[id] ?? []
            let result: String
            if conflicts[id] != nil {
                result = "conflict"
            } else if writes[id] != nil, !dryRun, written[id] == nil {
                // A strict import that failed elsewhere writes none of its templates.
                result = "withheld"
            } else if writes[id] != nil {
                result = "changed"
            } else if entries.contains(where: { $0.outcome == "rejected" }) {
                result = "rejected"
            } else {
                result = "unchanged"
            }
            return TranslationImportReport.TemplateResult(
                templateId: id,
                baseRevision: templates[id]?.revision,
                result: result,
                revision: written[id],
                detail: conflicts[id],
                strings: entries
            )
        }
        summary.templatesChanged = dryRun ? writes.count : written.count
        summary.revisionsWritten = written.count
        summary.conflicts = conflicts.count
        return TranslationImportReport(
            fileName: fileName,
            format: format.rawValue,
            dryRun: dryRun,
            strict: strict,
            summary: summary,
            documents: documents.enumerated().map { index, document in
                TranslationImportReport.Document(
                    sourceLocale: document.sourceLocale,
                    targetLocale: document.targetLocale,
                    exportedAt: document.exportedAt,
                    units: document.units.count,
                    locale: index < locales.count ? locales[index] : nil
                )
            },
            templates: results
        )
    }
}

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
                guard var existing = writes[write.templateID] else {
                    writes[write.templateID] = Write(baseRevision: write.baseRevision, template: write.template)
                    continue
                }
                let values = write.template.strings(for: plan.targetLocale) ?? [:]
                if let index = existing.template.strings.firstIndex(where: { $0.locale == plan.targetLocale }) {
                    existing.template.strings[index].values = values
                } else {
                    existing.template.strings.append((plan.targetLocale, values))
                }
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

    /// Writes each template in its own transaction, in id order, with `write` (which returns
    /// the revision written). A template changed meanwhile is a conflict, and the others go on.
    /// - Throws: any other store failure, at once: the templates written before it stay written
    ///   (and importing the file again finds them unchanged).
    mutating func apply(_ write: (String, Write) throws -> Int) throws {
        for id in writes.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            guard let change = writes[id] else { continue }
            do {
                written[id] = try write(id, change)
            } catch StoreError.stale(_, let current) {
                conflicts[id] =
                    "\(id) changed after the file was planned against revision \(change.baseRevision): it is at revision \(current). Import the file again."
            } catch StoreError.deleted(_, let revision) {
                conflicts[id] = "\(id) was deleted at revision \(revision) while the file was imported."
            } catch StoreError.notFound {
                conflicts[id] = "\(id) no longer exists."
            } catch StoreError.reviewRequired(_, let rule, let approvals) {
                // The review rules hold back direct writes of it; the other templates go on.
                conflicts[id] =
                    "\(id) needs \(approvals) approval\(approvals == 1 ? "" : "s") before it changes (review rules, \(rule)): propose its strings in a change request."
            }
        }
    }

    /// The report of the import: per template, each string of the file in file order.
    func report(
        fileName: String,
        format: TranslationFormat,
        dryRun: Bool,
        documents: [TranslationDocument]
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
                switch entry.outcome {
                case .new(let text):
                    result.outcome = "new"
                    result.value = text
                case .changed(let from, let to):
                    result.outcome = "changed"
                    result.value = to
                    result.previous = from
                case .unchanged:
                    result.outcome = "unchanged"
                case .untranslated:
                    result.outcome = "untranslated"
                case .rejected(let rejections):
                    result.outcome = "rejected"
                    result.reasons = rejections.map(TranslationImportReport.Reason.init)
                }
                if result.value != nil, let rejections = mergeRejections[id.template] {
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
            summary: summary,
            documents: documents.map {
                TranslationImportReport.Document(
                    sourceLocale: $0.sourceLocale,
                    targetLocale: $0.targetLocale,
                    exportedAt: $0.exportedAt,
                    units: $0.units.count
                )
            },
            templates: results
        )
    }
}

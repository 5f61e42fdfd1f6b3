import EmptyStateCore
import JSONCoding

/// Compares a file's translations with the store and decides, unit by unit, what an import does.
///
/// A unit is checked in this order, and the first answer stands:
/// 1. its template and key exist (`unknownTemplate`, `unknownKey`);
/// 2. it has a translation to import (otherwise `untranslated`: no target, an empty one, or a draft);
/// 3. the translation is already the store's, scalar for scalar. Then it is `unchanged` (importing the same file twice plans nothing, whatever happened to the
///    source meanwhile), unless the file says a reviewer confirmed it (`reviewed`, `final`; in a
///    String Catalog, whose only review is Xcode's "Mark as Reviewed", `translated`) and the store
///    has it stale or less reviewed: then it is `confirmed`, provided the file was translated
///    from the current source (else `sourceChanged`: a reviewer of an older source confirmed
///    nothing about this one; a String Catalog's plain `translated` then stays `unchanged`);
/// 4. the file was translated from the store's current source (`sourceChanged`: the file's
///    source text differs, or, for a file without source text, the source was written after
///    the export), and the store's translation was not edited since the export
///    (`changedSinceExport`, from the file's export time and the string's `updatedAt`). Both
///    times are whole seconds: a write in the export's own second counts as after it, so an
///    edit is never overwritten unseen (at worst the file must be exported again);
/// 5. it keeps the source's placeholders (`placeholders`, worded as the admin API words it);
/// 6. the template, with the file's accepted strings of that template, passes every rule of
///    `TemplateParser` (`copyRule`, with the 422's pointer and reason). A rule broken elsewhere
///    in the template (a locale left incomplete) rejects all of that template's changes, since they
///    could only be written together.
package enum ImportPlanner {
    /// - Parameters:
    ///   - document: the file, read by one of the readers.
    ///   - templates: the store's templates by id, as of now.
    ///   - locale: the catalogue's locale the file's target locale resolved to
    ///     (`LocaleResolution`); the file's own when `nil`.
    ///   - sourceLocale: likewise for the file's source locale.
    /// - Throws: `ImportPlanError` when the target locale cannot be written at all.
    package static func plan(
        _ document: TranslationDocument,
        templates: [String: TemplateSnapshot],
        locale: String? = nil,
        sourceLocale: String? = nil
    )
        throws(ImportPlanError) -> ImportPlan
    {
        guard let targetTag = LocaleTag(locale ?? document.targetLocale) else {
            throw ImportPlanError(message: "the target locale \(document.targetLocale) is not a BCP 47 tag")
        }
        let locale = targetTag.description
        guard !PseudoLocale.isPseudo(locale) else {
            throw ImportPlanError(message: "\(locale) is a pseudo-locale the service generates; it cannot be imported")
        }
        let sourceLocale = sourceLocale ?? LocaleTag(document.sourceLocale)?.description ?? document.sourceLocale
        guard locale != sourceLocale else {
            throw ImportPlanError(message: "the file translates \(locale) into itself")
        }
        var planner = Planner(document: document, locale: locale, sourceLocale: sourceLocale, templates: templates)
        for unit in document.units { planner.check(unit) }
        let writes = planner.validatePending()
        return ImportPlan(
            sourceLocale: sourceLocale,
            targetLocale: locale,
            entries: planner.entries,
            writes: writes
        )
    }
}

private struct Planner {
    /// One accepted string of a template, not yet validated with the others.
    struct Change {
        /// The text to write (the store's own for a confirmation); a plural's `other` form.
        var value: String
        /// The forms to write, for a plural string.
        var plural: PluralText?
        var entry: Int
        /// The review state to record, when the file gives one.
        var mark: TranslationState?
        /// Whether the value differs from the store's.
        var changesText: Bool
    }

    let document: TranslationDocument
    let locale: String
    let sourceLocale: String
    let templates: [String: TemplateSnapshot]
    var entries: [ImportPlan.Entry] = []
    var seen: Set<UnitID> = []
    /// Template id → the accepted changes not yet validated together, by key.
    var pending: [String: [String: Change]] = [:]

    init(document: TranslationDocument, locale: String, sourceLocale: String, templates: [String: TemplateSnapshot]) {
        self.document = document
        self.locale = locale
        self.sourceLocale = sourceLocale
        self.templates = templates
    }

    mutating func check(_ unit: TranslationUnit) {
        let (outcome, change) = outcome(of: unit)
        entries.append(ImportPlan.Entry(unitID: unit.id.description, outcome: outcome))
        if var change {
            change.entry = entries.count - 1
            pending[unit.id.template, default: [:]][unit.id.key] = change
        }
    }

    /// The review state a unit's file state records, when it records one.
    private func mark(of unit: TranslationUnit) -> TranslationState? {
        switch unit.state {
        case .reviewed, .final: return unit.state
        case .translated: return document.translatedConfirms ? .translated : nil
        case .missing, .stale: return nil
        }
    }

    private mutating func outcome(of unit: TranslationUnit) -> (ImportPlan.Outcome, Change?) {
        let id = unit.id
        var unit = unit
        guard seen.insert(id).inserted else {
            return (.rejected([ImportRejection(.duplicate, "the unit appears twice in the file")]), nil)
        }
        guard let snapshot = templates[id.template] else {
            return (.rejected([ImportRejection(.unknownTemplate, "no template has the id \(id.template)")]), nil)
        }
        let template = snapshot.template
        let reference = template.strings(for: template.defaultLocale) ?? [:]
        guard let source = template.strings(for: sourceLocale)?[id.key], let defaultText = reference[id.key] else {
            let keys = reference.keys.sorted().joined(separator: ", ")
            return (
                .rejected([
                    ImportRejection(
                        .unknownKey,
                        "\(id.template) has no \(id.key) in \(sourceLocale) (its keys: \(keys))"
                    )
                ]),
                nil
            )
        }
        // A plural the file gives but that cannot be read (its `other` may be what is missing).
        if let issue = unit.pluralIssue, unit.state != .missing {
            return (.rejected([ImportRejection(.plural, issue)]), nil)
        }
        guard let value = unit.target, !value.isEmpty, unit.state != .missing else { return (.untranslated, nil) }
        // A String Catalog's plural does not name its number: it is the template's.
        if let reference = template.plural(id.key, in: template.defaultLocale) {
            if unit.sourcePlural?.variable.isEmpty == true { unit.sourcePlural?.variable = reference.variable }
            if unit.targetPlural?.variable.isEmpty == true { unit.targetPlural?.variable = reference.variable }
        }
        let isPluralKey = TranslationExport.isPlural(template, id.key, sourceLocale: sourceLocale)
        if let rejection = pluralRejection(unit, template: template, isPluralKey: isPluralKey) {
            return (.rejected([rejection]), nil)
        }
        let filePlural = unit.targetPlural
        let current = template.strings(for: locale)?[id.key]
        let currentPlural = template.plural(id.key, in: locale)
        let sourceRejection = sourceChanged(
            unit,
            source: source,
            sourcePlural: template.plural(id.key, in: sourceLocale),
            snapshot: snapshot
        )
        let same: Bool
        if let filePlural {
            same = samePlural(filePlural, currentPlural)
        } else {
            same = currentPlural == nil && current.map { sameText($0, value) } == true
        }

        if let current, same {
            guard let mark = mark(of: unit) else { return (.unchanged, nil) }
            let stale = snapshot.isStale(key: id.key, locale: locale, sourceLocale: template.defaultLocale)
            let review = snapshot.review(key: id.key, locale: locale)
            guard stale || rank(mark) > rank(review) else { return (.unchanged, nil) }
            if let sourceRejection {
                // A String Catalog's `translated` is every translated string's state, not only a
                // review: from an older export it says nothing, as before. An explicit review of
                // another source is refused, so the reviewer learns to export again.
                return unit.state == .translated ? (.unchanged, nil) : (.rejected([sourceRejection]), nil)
            }
            return (
                .confirmed(mark),
                Change(value: current, plural: currentPlural, entry: 0, mark: mark, changesText: false)
            )
        }
        if isPluralKey, filePlural == nil {
            // Accepted unchanged above (a translation may stay one text while its source is a
            // plural), but a new text for a plural string must give its forms.
            return (
                .rejected([
                    ImportRejection(
                        .plural,
                        "\(id.template)/\(id.key) is a plural string in \(template.defaultLocale): give \(locale)'s forms (\(categoryList(locale))), not one text"
                    )
                ]),
                nil
            )
        }

        var rejections: [ImportRejection] = []
        if let sourceRejection { rejections.append(sourceRejection) }
        if current != nil, let exportedAt = document.exportedAt,
            let targetUpdatedAt = snapshot.updatedAt[locale]?[id.key], exportedAt <= targetUpdatedAt
        {
            rejections.append(
                ImportRejection(
                    .changedSinceExport,
                    "the \(locale) string was edited at \(targetUpdatedAt), after the export at \(exportedAt); export again"
                )
            )
        }
        let want = Set(CopyRules.placeholders(in: defaultText))
        let have = Set(CopyRules.placeholders(in: value))
        if want != have {
            // TemplateParser's wording, so the reason reads as the admin API's 422.
            rejections.append(
                ImportRejection(
                    .placeholders,
                    pointer: pointer(id.key),
                    "uses placeholders {\(have.sorted().joined(separator: "}, {"))} but \(template.defaultLocale) uses {\(want.sorted().joined(separator: "}, {"))}"
                )
            )
        }
        if !rejections.isEmpty { return (.rejected(rejections), nil) }
        let change = Change(value: value, plural: filePlural, entry: 0, mark: mark(of: unit), changesText: true)
        let outcome: ImportPlan.Outcome =
            current.map {
                .changed(
                    from: ImportPlan.Text($0, plural: currentPlural),
                    to: ImportPlan.Text(value, plural: filePlural)
                )
            } ?? .new(ImportPlan.Text(value, plural: filePlural))
        return (outcome, change)
    }

    /// `plural`, when the file's forms of a unit cannot be taken: its plural did not read
    /// (`TranslationUnit.pluralIssue`), the file gives forms for a string that is not a plural,
    /// or its forms do not fit the locale
    /// (a category CLDR does not give it, no `other`, another variable than the source's).
    private func pluralRejection(_ unit: TranslationUnit, template: Template, isPluralKey: Bool) -> ImportRejection? {
        let id = unit.id
        if let issue = unit.pluralIssue { return ImportRejection(.plural, issue) }
        guard let plural = unit.targetPlural else { return nil }
        guard isPluralKey, let reference = template.plural(id.key, in: template.defaultLocale) else {
            return ImportRejection(
                .plural,
                "the file gives plural forms, but \(id.template)/\(id.key) is not a plural string in \(template.defaultLocale): give one text"
            )
        }
        if plural.variable != reference.variable {
            return ImportRejection(
                .plural,
                "the plural's number is {\(plural.variable)}, but in \(template.defaultLocale) it is {\(reference.variable)}"
            )
        }
        let allowed = PluralText.categories(for: locale)
        let unknown = plural.orderedForms.map(\.category).filter { !allowed.contains($0) }
        if !unknown.isEmpty {
            let names = unknown.map(\.rawValue).joined(separator: ", ")
            return ImportRejection(
                .plural,
                "\(locale) has no plural categor\(unknown.count == 1 ? "y" : "ies") \(names) (CLDR's categories of \(locale): \(categoryList(locale)))"
            )
        }
        if plural.forms[.other] == nil {
            return ImportRejection(
                .plural,
                "the plural has no other form: the general form, used for every number without a form of its own"
            )
        }
        return nil
    }

    /// `one, few, many, other`: CLDR's categories of `locale`.
    private func categoryList(_ locale: String) -> String {
        PluralText.categories(for: locale).map(\.rawValue).joined(separator: ", ")
    }

    /// `sourceChanged`, when the file was not translated from the store's current source: its
    /// source text differs, or, for a file without source text, the source was written after the
    /// export.
    /// A plural source the file carries is compared form by form (written as ICU in the reason).
    private func sourceChanged(
        _ unit: TranslationUnit,
        source: String,
        sourcePlural: PluralText?,
        snapshot: TemplateSnapshot
    ) -> ImportRejection? {
        if let exported = unit.source {
            if let filePlural = unit.sourcePlural {
                // The forms the file carries (XLIFF 1.2's gettext group carries those of the
                // target's categories), each the store's, `other` always among them.
                let same =
                    sourcePlural.map { store in
                        filePlural.forms[.other] != nil
                            && filePlural.forms.allSatisfy { sameText($0.value, store.forms[$0.key]) }
                    } ?? false
                guard !same else { return nil }
            } else {
                // A plain source, or a plural's general form where the format carries no more
                // of the source (XLIFF 1.2's gettext group): the text, the store's `other`.
                guard !sameText(exported, source) else { return nil }
            }
            let was = unit.sourcePlural.map(ICUPlural.format) ?? exported
            let now = sourcePlural.map(ICUPlural.format) ?? source
            return ImportRejection(
                .sourceChanged,
                "the \(sourceLocale) source changed since the export: it was \"\(was)\", it is \"\(now)\"; export again"
            )
        }
        if let exportedAt = document.exportedAt, let sourceUpdatedAt = snapshot.updatedAt[sourceLocale]?[unit.id.key],
            exportedAt <= sourceUpdatedAt
        {
            return ImportRejection(
                .sourceChanged,
                "the \(sourceLocale) source changed at \(sourceUpdatedAt), after the export at \(exportedAt); export again"
            )
        }
        return nil
    }

    /// translated < reviewed < final.
    private func rank(_ state: TranslationState) -> Int {
        switch state {
        case .final: return 2
        case .reviewed: return 1
        default: return 0
        }
    }

    private func pointer(_ key: String) -> String {
        "/strings/" + jsonPointerToken(locale) + "/" + jsonPointerToken(key)
    }

    /// Validates each template with its pending changes; rejects the changes a rule refuses.
    mutating func validatePending() -> [ImportPlan.TemplateWrite] {
        var writes: [ImportPlan.TemplateWrite] = []
        for templateID in pending.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            guard let snapshot = templates[templateID], var changes = pending[templateID] else { continue }
            // Each round rejects at least one change or ends, so this stops.
            while !changes.isEmpty {
                var candidate = snapshot.template
                var values = candidate.strings(for: locale) ?? [:]
                for (key, change) in changes {
                    values[key] = change.value
                    candidate.plurals[locale, default: [:]][key] = change.plural
                }
                if candidate.plurals[locale]?.isEmpty == true { candidate.plurals[locale] = nil }
                if let index = candidate.strings.firstIndex(where: { $0.locale == locale }) {
                    candidate.strings[index].values = values
                } else {
                    candidate.strings.append((locale, values))
                }
                switch TemplateParser.parse(candidate.document, expectedID: templateID) {
                case .success(let template):
                    let order =
                        (["title", "message", "visual.label"] + template.actions.map { Template.labelKey($0.id) })
                    writes.append(
                        ImportPlan.TemplateWrite(
                            templateID: templateID,
                            baseRevision: snapshot.revision,
                            template: template,
                            changedKeys: order.filter { changes[$0]?.changesText == true },
                            marks: changes.compactMapValues(\.mark)
                        )
                    )
                    changes = [:]
                case .failure(let failure):
                    var unitIssues: [String: [ValidationIssue]] = [:]
                    var otherIssues: [ValidationIssue] = []
                    for issue in failure.issues {
                        // A plural's issues point into it (`/strings/fr/message/one`).
                        if let key = changes.keys.first(where: {
                            issue.pointer == pointer($0) || issue.pointer.hasPrefix(pointer($0) + "/")
                        }) {
                            unitIssues[key, default: []].append(issue)
                        } else {
                            otherIssues.append(issue)
                        }
                    }
                    if !otherIssues.isEmpty {
                        // A rule broken outside this file's strings: none of them can be written.
                        for (key, change) in changes {
                            reject(change.entry, with: (unitIssues[key] ?? []) + otherIssues)
                        }
                        changes = [:]
                    } else {
                        for (key, issues) in unitIssues {
                            reject(changes[key]!.entry, with: issues)
                            changes[key] = nil
                        }
                    }
                }
            }
        }
        return writes
    }

    private mutating func reject(_ entry: Int, with issues: [ValidationIssue]) {
        entries[entry].outcome = .rejected(
            issues.map { ImportRejection(.copyRule, pointer: $0.pointer, $0.rule) }
        )
    }
}

import JSONCoding

/// A QA override: one install id forced to one variant of an experiment, so a tester can see a
/// variant on a device whatever the hash and the target say. Its events are kept but excluded
/// from the results (`override`): a tester's taps are not a user's.
package struct ExperimentOverride: Sendable, Equatable {
    /// The install id as the app sends it in `X-Install-ID` (`InstallID`).
    package var installID: String
    /// The key of the variant it is forced to.
    package var variant: String

    package init(installID: String, variant: String) {
        self.installID = installID
        self.variant = variant
    }

    /// Parses `[{"installId": "qa-pixel-7", "variant": "b"}]`, reporting at `/overrides/…`;
    /// each variant must be one of `variantKeys` (when the variants parsed).
    static func parse(
        _ value: JSONValue?,
        variantKeys: [String]?,
        fail: (String, String) -> Void
    ) -> [ExperimentOverride] {
        guard let value, value != .null else { return [] }
        guard case .array(let items) = value, items.count <= Experiment.maximumOverrides else {
            fail(
                "/overrides",
                "expected an array of at most \(Experiment.maximumOverrides) overrides: [{\"installId\": …, \"variant\": …}]"
            )
            return []
        }
        var result: [ExperimentOverride] = []
        for (index, item) in items.enumerated() {
            let base = "/overrides/\(index)"
            guard case .object(let members) = item else {
                fail(base, "expected an object: {\"installId\": \"qa-device-1\", \"variant\": \"b\"}")
                continue
            }
            for member in members where member.key != "installId" && member.key != "variant" {
                fail(base + "/" + member.key, "unknown field (expected installId or variant)")
            }
            var failed = false
            var installID = ""
            if case .string(let text)? = item["installId"], InstallID.isValid(text) {
                installID = text
                if result.contains(where: { $0.installID == text }) {
                    fail(base + "/installId", "repeats an earlier override: an install is forced to one variant")
                    failed = true
                }
            } else {
                fail(base + "/installId", "is required: \(InstallID.rule), as the app sends in X-Install-ID")
                failed = true
            }
            var variant = ""
            if case .string(let text)? = item["variant"] {
                variant = text
                if let variantKeys, !variantKeys.contains(text) {
                    fail(
                        base + "/variant",
                        "the experiment has no variant \"\(text)\" (expected one of \(variantKeys.joined(separator: ", ")))"
                    )
                    failed = true
                }
            } else {
                fail(base + "/variant", "is required: the key of one of the experiment's variants")
                failed = true
            }
            if !failed { result.append(ExperimentOverride(installID: installID, variant: variant)) }
        }
        return result
    }
}

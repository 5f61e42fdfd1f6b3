import JSONCoding

/// What ops decided for one platform's app: which versions must update, which may, and where the
/// update is. A value of this type has passed every rule of `AppPolicy.parse`.
package struct AppPolicy: Sendable, Equatable {
    package static let defaultRolloutPercentage = 100
    package static let defaultAskAgainAfterSeconds = 86_400
    /// A year: a longer pause than that is not a prompt any more.
    package static let maximumAskAgainAfterSeconds = 31_536_000
    package static let maximumBlockedVersions = 200
    package static let maximumStoreURLLength = 2048

    package var platform: Platform
    /// Below it an app must update (`updateRequired`).
    package var minimumVersion: AppVersion
    /// Below it (and at or above the minimum) an update is offered (`updateAvailable`).
    package var latestVersion: AppVersion
    /// Below it the device's operating system must update first (`osUpdateRequired`); `nil`: no floor.
    package var minimumOSVersion: AppVersion?
    /// Releases with a known bad bug: they must update even above the minimum.
    package var blockedVersions: [AppVersion]
    /// Where the update is: the target of the templates' `openStore` action.
    package var storeURL: String
    /// How many app instances in a hundred are offered the optional update (0–100).
    package var rolloutPercentage: Int
    /// How long an app waits before showing a dismissed `updateAvailable` again.
    package var askAgainAfterSeconds: Int

    package init(
        platform: Platform,
        minimumVersion: AppVersion,
        latestVersion: AppVersion,
        minimumOSVersion: AppVersion? = nil,
        blockedVersions: [AppVersion] = [],
        storeURL: String,
        rolloutPercentage: Int = AppPolicy.defaultRolloutPercentage,
        askAgainAfterSeconds: Int = AppPolicy.defaultAskAgainAfterSeconds
    ) {
        self.platform = platform
        self.minimumVersion = minimumVersion
        self.latestVersion = latestVersion
        self.minimumOSVersion = minimumOSVersion
        self.blockedVersions = blockedVersions
        self.storeURL = storeURL
        self.rolloutPercentage = rolloutPercentage
        self.askAgainAfterSeconds = askAgainAfterSeconds
    }

    private static let knownKeys: Set<String> = [
        "platform", "minimumVersion", "latestVersion", "minimumOSVersion", "blockedVersions", "storeUrl",
        "rolloutPercentage", "askAgainAfterSeconds",
    ]

    /// Reads a policy document, reporting every broken rule with its JSON pointer.
    /// - Parameter expectedPlatform: when given (the URL's), `platform` must be it; it may then be omitted.
    package static func parse(
        _ document: JSONValue,
        expectedPlatform: Platform? = nil
    ) -> Result<AppPolicy, TemplateValidationError> {
        var issues: [ValidationIssue] = []
        func fail(_ pointer: String, _ rule: String) { issues.append(ValidationIssue(pointer, rule)) }
        guard case .object(let members) = document else {
            return .failure(TemplateValidationError(issues: [ValidationIssue("", "expected an object")]))
        }
        for (key, _) in members where !knownKeys.contains(key) {
            fail("/" + jsonPointerToken(key), "unknown member (one of \(knownKeys.sorted().joined(separator: ", ")))")
        }
        func version(_ key: String, required: Bool) -> AppVersion? {
            guard let value = document[key] else {
                if required { fail("/\(key)", "is required") }
                return nil
            }
            return parseVersion(value, at: "/\(key)", fail: fail)
        }

        var platform = expectedPlatform
        if let value = document["platform"] {
            if case .string(let text) = value, let parsed = Platform(rawValue: text) {
                if let expectedPlatform, parsed != expectedPlatform {
                    fail("/platform", "must equal \"\(expectedPlatform.rawValue)\" (the URL's)")
                }
                platform = parsed
            } else {
                fail("/platform", "must be one of ios, android, web")
            }
        } else if expectedPlatform == nil {
            fail("/platform", "is required")
        }
        let minimum = version("minimumVersion", required: true)
        let latest = version("latestVersion", required: true)
        let minimumOS = version("minimumOSVersion", required: false)
        if let minimum, let latest, latest < minimum {
            fail("/minimumVersion", "must not be above latestVersion (\(latest))")
        }

        var blocked: [AppVersion] = []
        if let value = document["blockedVersions"] {
            if case .array(let elements) = value {
                if elements.count > maximumBlockedVersions {
                    fail("/blockedVersions", "at most \(maximumBlockedVersions) versions")
                }
                for (index, element) in elements.enumerated() {
                    guard let parsed = parseVersion(element, at: "/blockedVersions/\(index)", fail: fail) else {
                        continue
                    }
                    if blocked.contains(parsed) {
                        fail("/blockedVersions/\(index)", "\(parsed) is listed twice")
                    } else {
                        blocked.append(parsed)
                    }
                }
            } else {
                fail("/blockedVersions", "expected an array of version strings, found \(value.kindName)")
            }
        }

        var storeURL = ""
        switch document["storeUrl"] {
        case nil: fail("/storeUrl", "is required")
        case .string(let text)?:
            if !isHTTPSURL(text) {
                fail(
                    "/storeUrl",
                    "must be an https:// URL without spaces (at most \(maximumStoreURLLength) characters)"
                )
            }
            storeURL = text
        case let value?: fail("/storeUrl", "expected an https:// URL string, found \(value.kindName)")
        }

        func integer(_ key: String, in range: ClosedRange<Int>, default fallback: Int) -> Int {
            guard let value = document[key] else { return fallback }
            guard case .number(let number) = value, let integer = Int(exactly: number), range.contains(integer) else {
                fail("/\(key)", "an integer from \(range.lowerBound) to \(range.upperBound)")
                return fallback
            }
            return integer
        }
        let rollout = integer("rolloutPercentage", in: 0...100, default: defaultRolloutPercentage)
        let askAgain = integer(
            "askAgainAfterSeconds",
            in: 0...maximumAskAgainAfterSeconds,
            default: defaultAskAgainAfterSeconds
        )

        guard issues.isEmpty, let platform, let minimum, let latest else {
            return .failure(TemplateValidationError(issues: issues))
        }
        return .success(
            AppPolicy(
                platform: platform,
                minimumVersion: minimum,
                latestVersion: latest,
                minimumOSVersion: minimumOS,
                blockedVersions: blocked,
                storeURL: storeURL,
                rolloutPercentage: rollout,
                askAgainAfterSeconds: askAgain
            )
        )
    }

    private static func parseVersion(
        _ value: JSONValue,
        at pointer: String,
        fail: (String, String) -> Void
    ) -> AppVersion? {
        guard case .string(let text) = value else {
            fail(pointer, "expected a version string, found \(value.kindName)")
            return nil
        }
        guard let version = AppVersion(text) else {
            fail(pointer, "\"\(text)\" is not a version (e.g. 5, 5.2, 5.2.0, 5.2.0-beta.1)")
            return nil
        }
        return version
    }

    /// `https://` and a host, no whitespace or control characters.
    private static func isHTTPSURL(_ text: String) -> Bool {
        guard text.utf8.count <= maximumStoreURLLength, text.hasPrefix("https://"), text.utf8.count > 8 else {
            return false
        }
        let host = text.utf8.dropFirst(8).first
        return host != UInt8(ascii: "/") && text.utf8.allSatisfy { $0 > 0x20 && $0 != 0x7F }
    }

    /// The document as stored and shown to ops: every member, defaults written out.
    package var document: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("platform", .string(platform.rawValue)),
            ("minimumVersion", .string(minimumVersion.description)),
            ("latestVersion", .string(latestVersion.description)),
        ]
        if let minimumOSVersion { members.append(("minimumOSVersion", .string(minimumOSVersion.description))) }
        members.append(("blockedVersions", .array(blockedVersions.map { .string($0.description) })))
        members.append(("storeUrl", .string(storeURL)))
        members.append(("rolloutPercentage", .number(Double(rolloutPercentage))))
        members.append(("askAgainAfterSeconds", .number(Double(askAgainAfterSeconds))))
        return .object(members)
    }

    /// The JSON pointers of the members that differ between two versions of a policy; `["/"]`
    /// when there was no previous one (as `TemplateDiff` does for templates).
    package static func changedFields(from old: AppPolicy?, to new: AppPolicy) -> [String] {
        guard let old, case .object(let before) = old.document, case .object(let after) = new.document else {
            return ["/"]
        }
        var changed: [String] = []
        for (key, value) in after where before.first(where: { $0.key == key })?.value != value {
            changed.append("/" + key)
        }
        for (key, _) in before where !after.contains(where: { $0.key == key }) { changed.append("/" + key) }
        return changed
    }
}

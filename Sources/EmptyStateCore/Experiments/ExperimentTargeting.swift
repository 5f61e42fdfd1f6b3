import JSONCoding

/// Who may enter an experiment: platforms, locales, an app version range and new installs.
/// An install outside the target is served the template as it is (the base copy), is never
/// assigned a variant, and its events are excluded from the results (`outsideTarget`).
///
/// Every condition left out admits everyone; the conditions given must all hold. The target is
/// checked before the hash, so it never moves an install inside the target from one variant to
/// another: an install's variant depends on its id alone, as GrowthBook's does.
///
/// **New installs** are known from the app: it sends the time it was first launched
/// (`X-Installed-At` on template requests, as GrowthBook and Firebase target on attributes the
/// SDK sends). An install is new when that time is at or after the experiment's `startedAt`, so
/// it stays new for the whole experiment (a flag such as "first launched within 7 days" would
/// drop installs out of the experiment midway). The service's own first sighting was not used:
/// it sees an install id only on the templates in an experiment, so every install it had never
/// served such a template would look new.
package struct ExperimentTargeting: Sendable, Equatable {
    /// Admitted platforms; empty: every platform.
    package var platforms: [Platform]
    /// Admitted locales, as the template spells them; empty: every locale.
    package var locales: [String]
    /// The lowest and highest app versions admitted (both inclusive), SemVer precedence.
    package var minimumAppVersion: AppVersion?
    package var maximumAppVersion: AppVersion?
    /// Only installs first launched at or after the experiment's start.
    package var newInstallsOnly: Bool

    package init(
        platforms: [Platform] = [],
        locales: [String] = [],
        minimumAppVersion: AppVersion? = nil,
        maximumAppVersion: AppVersion? = nil,
        newInstallsOnly: Bool = false
    ) {
        self.platforms = platforms
        self.locales = locales
        self.minimumAppVersion = minimumAppVersion
        self.maximumAppVersion = maximumAppVersion
        self.newInstallsOnly = newInstallsOnly
    }

    /// Whether it admits everyone (the document then has no `targeting`).
    package var isEmpty: Bool {
        platforms.isEmpty && locales.isEmpty && minimumAppVersion == nil && maximumAppVersion == nil
            && !newInstallsOnly
    }

    /// Whether it needs the app version, which only the app can send.
    package var usesAppVersion: Bool { minimumAppVersion != nil || maximumAppVersion != nil }

    /// What is known of a caller when it is checked against a target.
    package struct Attributes: Sendable, Equatable {
        package var platform: Platform?
        /// The locale served (a template request) or reported (an event).
        package var locale: String?
        package var appVersion: AppVersion?
        /// When the install was first launched, in milliseconds since the epoch.
        package var installedAt: Int64?

        package init(
            platform: Platform? = nil,
            locale: String? = nil,
            appVersion: AppVersion? = nil,
            installedAt: Int64? = nil
        ) {
            self.platform = platform
            self.locale = locale
            self.appVersion = appVersion
            self.installedAt = installedAt
        }
    }

    /// Whether `attributes` are inside the target. A condition on something the caller did not
    /// send fails: an app that does not say its version is not in a version range.
    /// - Parameters:
    ///   - startedAt: the experiment's start in milliseconds (`nil`: not started, so no install is
    ///     new yet); checked only for `newInstallsOnly`. With `checkingNewInstall` false it is
    ///     not checked at all (events do not carry the install time).
    package func admits(_ attributes: Attributes, startedAt: Int64?, checkingNewInstall: Bool = true) -> Bool {
        if !platforms.isEmpty {
            guard let platform = attributes.platform, platforms.contains(platform) else { return false }
        }
        if !locales.isEmpty {
            guard let locale = attributes.locale?.lowercased(), locales.contains(where: { $0.lowercased() == locale })
            else { return false }
        }
        if usesAppVersion {
            guard let version = attributes.appVersion else { return false }
            if let minimum = minimumAppVersion, version < minimum { return false }
            if let maximum = maximumAppVersion, version > maximum { return false }
        }
        if newInstallsOnly, checkingNewInstall {
            guard let installedAt = attributes.installedAt, let startedAt, installedAt >= startedAt else {
                return false
            }
        }
        return true
    }

    /// The `targeting` member of the experiment document.
    package var document: JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        if !platforms.isEmpty { members.append(("platforms", .array(platforms.map { .string($0.rawValue) }))) }
        if !locales.isEmpty { members.append(("locales", .array(locales.map { .string($0) }))) }
        if usesAppVersion {
            var range: [(key: String, value: JSONValue)] = []
            if let minimumAppVersion { range.append(("min", .string(minimumAppVersion.description))) }
            if let maximumAppVersion { range.append(("max", .string(maximumAppVersion.description))) }
            members.append(("appVersion", .object(range)))
        }
        if newInstallsOnly { members.append(("newInstalls", .bool(true))) }
        return .object(members)
    }

    /// Parses `{"platforms": ["ios"], "locales": ["en"], "appVersion": {"min": "5.2", "max":
    /// "6"}, "newInstalls": true}` (every member optional), reporting at `/targeting/…`.
    /// Whether each locale is the template's is checked against it (`ExperimentParser.validate`).
    static func parse(_ value: JSONValue?, fail: (String, String) -> Void) -> ExperimentTargeting {
        guard let value, value != .null else { return .init() }
        guard case .object(let members) = value else {
            fail("/targeting", "expected an object: {\"platforms\": [\"ios\"], \"locales\": [\"en\"], …}")
            return .init()
        }
        var result = ExperimentTargeting()
        for member in members where !["platforms", "locales", "appVersion", "newInstalls"].contains(member.key) {
            fail("/targeting/" + member.key, "unknown field (expected platforms, locales, appVersion or newInstalls)")
        }
        let platformNames = Platform.allCases.map(\.rawValue).joined(separator: ", ")
        switch value["platforms"] {
        case nil: break
        case .array(let items)?:
            for (index, item) in items.enumerated() {
                if case .string(let text) = item, let platform = Platform(rawValue: text) {
                    if result.platforms.contains(platform) {
                        fail("/targeting/platforms/\(index)", "repeats an earlier platform")
                    } else {
                        result.platforms.append(platform)
                    }
                } else {
                    fail("/targeting/platforms/\(index)", "unknown platform: expected one of \(platformNames)")
                }
            }
            if items.isEmpty { fail("/targeting/platforms", "lists no platform: leave it out to admit every one") }
        case .some:
            fail("/targeting/platforms", "expected an array of platforms (\(platformNames))")
        }
        switch value["locales"] {
        case nil: break
        case .array(let items)?:
            for (index, item) in items.enumerated() {
                if case .string(let text) = item, !text.isEmpty {
                    if result.locales.contains(where: { $0.lowercased() == text.lowercased() }) {
                        fail("/targeting/locales/\(index)", "repeats an earlier locale")
                    } else {
                        result.locales.append(text)
                    }
                } else {
                    fail("/targeting/locales/\(index)", "expected a locale of the template (e.g. en, pt-BR)")
                }
            }
            if items.isEmpty { fail("/targeting/locales", "lists no locale: leave it out to admit every one") }
        case .some:
            fail("/targeting/locales", "expected an array of the template's locales")
        }
        switch value["appVersion"] {
        case nil: break
        case .object(let range)?:
            for member in range where member.key != "min" && member.key != "max" {
                fail("/targeting/appVersion/" + member.key, "unknown field (expected min or max)")
            }
            func version(_ key: String) -> AppVersion? {
                switch range.first(where: { $0.key == key })?.value {
                case nil: return nil
                case .string(let text)?:
                    if let parsed = AppVersion(text) { return parsed }
                    fail("/targeting/appVersion/\(key)", "is not a version (e.g. 5.2.0)")
                default: fail("/targeting/appVersion/\(key)", "expected a version string (e.g. 5.2.0)")
                }
                return nil
            }
            result.minimumAppVersion = version("min")
            result.maximumAppVersion = version("max")
            if let minimum = result.minimumAppVersion, let maximum = result.maximumAppVersion, minimum > maximum {
                fail("/targeting/appVersion/min", "is above max (\(maximum)): no version would be admitted")
            }
            if range.isEmpty { fail("/targeting/appVersion", "needs min, max or both") }
        case .some:
            fail("/targeting/appVersion", "expected {\"min\": \"5.2.0\", \"max\": \"6.0.0\"} (either optional)")
        }
        switch value["newInstalls"] {
        case nil, .bool(false)?: break
        case .bool(true)?: result.newInstallsOnly = true
        case .some:
            fail("/targeting/newInstalls", "expected true (only installs first launched after the start) or false")
        }
        return result
    }
}

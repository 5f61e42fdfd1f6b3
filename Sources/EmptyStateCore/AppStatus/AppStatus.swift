/// What one app instance must do at launch, and the decision that picks it.
package enum AppStatus: String, Sendable, CaseIterable {
    /// Nothing to show.
    case ok
    /// An update may be shown; the user may dismiss it.
    case updateAvailable
    /// The app must update before it can be used.
    case updateRequired
    /// The device's operating system is below what the app supports.
    case osUpdateRequired

    /// The template shown in this state (Workday's update states); `nil` for `ok`.
    package var templateID: String? {
        switch self {
        case .ok: return nil
        case .updateAvailable: return "optionalUpdateAvailable"
        case .updateRequired: return "appUpdateRequired"
        case .osUpdateRequired: return "osUpdateRequired"
        }
    }

    /// The state whose template has this id.
    package init?(templateID: String) {
        guard let state = Self.allCases.first(where: { $0.templateID == templateID }) else { return nil }
        self = state
    }

    /// Decides the state of an app instance; a pure function of its inputs.
    ///
    /// In order: an OS below the policy's floor gives `osUpdateRequired` (a newer app would not
    /// install on it anyway); an app below the minimum or on a blocked release gives
    /// `updateRequired`; an app below the latest version gives `updateAvailable` when the
    /// instance is in the rollout; anything else is `ok`, as is every app of a platform without
    /// a policy.
    /// - Parameters:
    ///   - osVersion: `nil` when the app did not say: the OS floor is then not checked.
    ///   - bucket: the instance's rollout bucket (0–99, `RolloutBucket`); `nil` without an
    ///     instance id, and then only a rollout at 100 % offers the update.
    package static func decide(
        policy: AppPolicy?,
        appVersion: AppVersion,
        osVersion: AppVersion?,
        bucket: Int?
    ) -> AppStatus {
        guard let policy else { return .ok }
        if let floor = policy.minimumOSVersion, let osVersion, osVersion < floor { return .osUpdateRequired }
        if appVersion < policy.minimumVersion || policy.blockedVersions.contains(appVersion) { return .updateRequired }
        if appVersion < policy.latestVersion {
            let inRollout = bucket.map { $0 < policy.rolloutPercentage } ?? (policy.rolloutPercentage >= 100)
            return inRollout ? .updateAvailable : .ok
        }
        return .ok
    }
}

/// Places an app instance in one of 100 rollout buckets, the same one on every request and every
/// replica: FNV-1a (64-bit) of the instance id and the release being rolled out, never Swift's
/// `Hasher`, whose seed changes with each process. An instance in bucket `b` is offered a release
/// rolled out to `p` % when `b < p`, so raising the percentage only adds instances; each release
/// (`latestVersion`) draws a fresh set, so the same devices are not always first.
package enum RolloutBucket {
    package static let count = 100

    /// The bucket (0–99) of `instanceID` for the release `latestVersion`.
    package static func of(instanceID: String, latestVersion: AppVersion) -> Int {
        of(instanceID: instanceID, salt: salt(latestVersion))
    }

    /// The bucket (0–99) of `instanceID` with a release's `salt(_:)`, computed once per policy.
    package static func of(instanceID: String, salt: [UInt8]) -> Int {
        Int(fnv1a(salt, from: fnv1a(instanceID.utf8)) % UInt64(count))
    }

    /// What follows the instance id in the hashed bytes: `|` and the release without build metadata.
    package static func salt(_ latestVersion: AppVersion) -> [UInt8] {
        [0x7C] + Array(latestVersion.precedenceText.utf8)
    }

    /// FNV-1a, 64-bit.
    package static func fnv1a(
        _ bytes: some Sequence<UInt8>,
        from start: UInt64 = 0xcbf2_9ce4_8422_2325
    ) -> UInt64 {
        var hash = start
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}

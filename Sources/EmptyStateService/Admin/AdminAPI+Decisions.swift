import EmptyStateCore
import HTTPServer
import JSONCoding

/// `POST /v1/admin/app-policies/{platform}/decisions`: which app versions see what under a draft
/// policy, decided by the code that answers `GET /v1/app-status` (`AppStatus.decide`), for the
/// console's policy editor. Nothing is written; a viewer may ask.
extension AdminAPI {
    static let maximumDecisionSamples = 50

    func registerDecisions(on router: inout Router) {
        router.add(
            .post,
            "/v1/admin/app-policies/{platform}/decisions",
            blocking: true,
            route(.viewer, subject: .appPolicy) { request, _ in try decisions(request) }
        )
    }

    /// `{"policy": {…}, "samples": [{"appVersion": "5.2", "osVersion": "16.1"}]}`; without
    /// `samples`, versions around the policy's edges (`sampleVersions`).
    private func decisions(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let platform = Platform(rawValue: request.pathParameters["platform"] ?? "") else {
            throw ProblemDetails(
                status: 404,
                slug: "unknown-app-policy",
                title: "Unknown App Policy",
                detail: "App policies are per platform: ios, android or web.",
                errors: [.init(.parameter("platform"), "not a platform (one of ios, android, web)")]
            )
        }
        let body = try body(request)
        guard case .object(let members) = body else { throw AdminProblems.notAnObject }
        var errors: [ProblemDetails.FieldError] = []
        for (key, _) in members where key != "policy" && key != "samples" {
            errors.append(.init(.pointer("/" + jsonPointerToken(key)), "unknown member (policy, samples)"))
        }
        var policy: AppPolicy?
        switch body["policy"] {
        case nil:
            errors.append(.init(.pointer("/policy"), "required: the policy to decide with"))
        case .object?:
            switch AppPolicy.parse(body["policy"]!, expectedPlatform: platform) {
            case .success(let parsed): policy = parsed
            case .failure(let failure):
                errors += failure.issues.map { .init(.pointer("/policy" + $0.pointer), $0.rule) }
            }
        case let other?:
            errors.append(.init(.pointer("/policy"), "expected an object, found \(other.kindName)"))
        }
        var samples: [(app: AppVersion, os: AppVersion?)] = []
        if let value = body["samples"] {
            if case .array(let elements) = value, elements.count <= Self.maximumDecisionSamples {
                for (index, element) in elements.enumerated() {
                    let pointer = "/samples/\(index)"
                    guard case .string(let appText)? = element["appVersion"], let app = AppVersion(appText) else {
                        errors.append(.init(.pointer(pointer + "/appVersion"), "required: an app version (5.2.0)"))
                        continue
                    }
                    var os: AppVersion?
                    if let osValue = element["osVersion"] {
                        guard case .string(let osText) = osValue, let parsed = AppVersion(osText) else {
                            errors.append(.init(.pointer(pointer + "/osVersion"), "an OS version (17.4), or absent"))
                            continue
                        }
                        os = parsed
                    }
                    samples.append((app, os))
                }
            } else {
                errors.append(
                    .init(.pointer("/samples"), "an array of at most \(Self.maximumDecisionSamples) samples")
                )
            }
        }
        guard errors.isEmpty, let policy else { throw AdminProblems.unprocessable(errors, subject: .appPolicy) }
        if body["samples"] == nil { samples = Self.sampleVersions(policy) }
        let rows = samples.map { sample in
            DecisionRow(
                appVersion: sample.app.description,
                osVersion: sample.os?.description,
                // Bucket 0 is in every rollout above 0 %, bucket 99 only in one at 100 %.
                inRollout: policy.rolloutPercentage > 0
                    ? AppStatus.decide(policy: policy, appVersion: sample.app, osVersion: sample.os, bucket: 0).rawValue
                    : nil,
                outsideRollout: policy.rolloutPercentage < 100
                    ? AppStatus.decide(policy: policy, appVersion: sample.app, osVersion: sample.os, bucket: 99)
                        .rawValue
                    : nil,
                withoutInstanceId: AppStatus.decide(
                    policy: policy,
                    appVersion: sample.app,
                    osVersion: sample.os,
                    bucket: nil
                ).rawValue
            )
        }
        return try .json(Decisions(rolloutPercentage: policy.rolloutPercentage, rows: rows))
    }

    /// Versions on each side of the policy's edges: just below the minimum, the minimum, each
    /// blocked version, just below the latest, the latest and just above it; and the latest on
    /// an OS just below the floor.
    static func sampleVersions(_ policy: AppPolicy) -> [(app: AppVersion, os: AppVersion?)] {
        func below(_ version: AppVersion) -> AppVersion? {
            if version.patch > 0 {
                return AppVersion(major: version.major, minor: version.minor, patch: version.patch - 1)
            }
            if version.minor > 0 { return AppVersion(major: version.major, minor: version.minor - 1) }
            if version.major > 0 { return AppVersion(major: version.major - 1) }
            return nil
        }
        let above = AppVersion(
            major: policy.latestVersion.major,
            minor: policy.latestVersion.minor,
            patch: policy.latestVersion.patch + 1
        )
        var versions: [AppVersion] = [below(policy.minimumVersion), policy.minimumVersion].compactMap { $0 }
        versions += policy.blockedVersions
        if let beforeLatest = below(policy.latestVersion), beforeLatest > policy.minimumVersion {
            versions.append(beforeLatest)
        }
        versions += [policy.latestVersion, above]
        var seen: Set<String> = []
        var samples: [(app: AppVersion, os: AppVersion?)] = versions.sorted().compactMap { version in
            seen.insert(version.precedenceText).inserted ? (version, nil) : nil
        }
        if let floor = policy.minimumOSVersion, let os = below(floor) { samples.append((policy.latestVersion, os)) }
        return samples
    }

    /// `PolicyDecisions` in `openapi.yaml`.
    struct Decisions: Encodable {
        var rolloutPercentage: Int
        var rows: [DecisionRow]
    }

    /// What one app version is told: as an instance in the rollout, outside it, and without an
    /// instance id (`null` where the rollout makes no such instance).
    struct DecisionRow: Encodable {
        var appVersion: String
        var osVersion: String?
        var inRollout: String?
        var outsideRollout: String?
        var withoutInstanceId: String

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AdminResponses.AnyKey.self)
            try container.encode(appVersion, forKey: .init("appVersion"))
            try container.encode(osVersion, forKey: .init("osVersion"))
            try container.encode(inRollout, forKey: .init("inRollout"))
            try container.encode(outsideRollout, forKey: .init("outsideRollout"))
            try container.encode(withoutInstanceId, forKey: .init("withoutInstanceId"))
        }
    }
}

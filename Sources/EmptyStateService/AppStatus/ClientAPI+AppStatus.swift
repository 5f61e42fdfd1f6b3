import EmptyStateCore
import HTTPServer

/// `GET /v1/app-status`: what this app instance must do at launch, decided in memory from the
/// snapshot's policy for its platform, with the rendered template for that state.
extension ClientAPI {
    /// Longest `instanceId` accepted (a UUID is 36).
    static let maximumInstanceIDLength = 128

    /// `GET /v1/app-status?platform=&appVersion=[&osVersion=][&instanceId=]`, plus `locale`,
    /// `Accept-Language` and `param.*` as for a template.
    ///
    /// Answers are remembered by the server's memo under the platform's app-status name, except
    /// those asked with an `instanceId`: each device would be an entry of its own and push the
    /// templates' answers out. Those are made from the same prepared answers.
    func appStatus(_ request: Request) -> HTTPResponse {
        let snapshot = servedSnapshot
        var errors: [ProblemDetails.FieldError] = []
        func version(_ name: String, example: String, required: Bool) -> AppVersion? {
            guard let text = request.queryValue(name) else {
                if required { errors.append(.init(.parameter(name), "required: a version such as \(example)")) }
                return nil
            }
            guard let version = AppVersion(text) else {
                errors.append(
                    .init(.parameter(name), "not a version such as \(example) (SemVer 2.0; missing parts are zero)")
                )
                return nil
            }
            return version
        }
        if request.queryValue("platform") == nil {
            errors.append(.init(.parameter("platform"), "required: one of ios, android, web"))
        }
        let appVersion = version("appVersion", example: "5.2.0", required: true)
        let osVersion = version("osVersion", example: "17.4", required: false)
        let instanceID = request.queryValue("instanceId")
        if let instanceID, !Self.isInstanceID(instanceID) {
            errors.append(
                .init(
                    .parameter("instanceId"),
                    "1 to \(Self.maximumInstanceIDLength) visible ASCII characters (e.g. a UUID the app keeps)"
                )
            )
        }
        let query: ClientQuery?
        switch ClientQuery.parse(request, knownTags: snapshot.knownLocaleTags) {
        case .success(let parsed): query = parsed
        case .failure(let problem):
            query = nil
            errors.append(contentsOf: problem.errors)
        }
        guard errors.isEmpty, let query, let appVersion else {
            return ProblemDetails.invalidParameters(
                errors,
                detail: errors.count == 1
                    ? "A query parameter is invalid." : "\(errors.count) query parameters are invalid."
            ).response(requestID: request.id)
        }
        let book = snapshot.appStatus
        let policy = book.policy(for: query.platform)?.policy
        let bucket = policy == nil ? nil : instanceID.map { book.bucket(of: $0, platform: query.platform) }
        let status = AppStatus.decide(policy: policy, appVersion: appVersion, osVersion: osVersion, bucket: bucket)
        if !query.parameters.isEmpty, status != .ok {
            let personalized = book.personalized(
                status,
                platform: query.platform,
                preferences: query.preferences,
                parameters: query.parameters
            )
            return respond(with: personalized, to: request, query: query, personalized: true)
        }
        return respond(
            with: book.representation(status, platform: query.platform, preferences: query.preferences),
            to: request,
            query: query,
            memoTag: instanceID == nil ? .appStatus(query.platform) : nil
        )
    }

    /// Visible ASCII (`!`…`~`), 1 to `maximumInstanceIDLength` bytes.
    static func isInstanceID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= maximumInstanceIDLength && text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }
}

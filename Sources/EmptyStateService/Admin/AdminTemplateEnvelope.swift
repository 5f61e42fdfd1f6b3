import JSONCoding

/// The admin template as `GET /v1/admin/templates/{id}` answers it, accepted back by `PUT`.
///
/// `GET` wraps the document in `{id, revision, updatedAt, updatedBy, template, stringUpdates}`;
/// taking that wrapper as it is lets an editor read, edit and send back one JSON, the way
/// `kubectl get -o json | edit | kubectl replace` works. The other members are read-only and
/// ignored: the revision a change applies to is `If-Match`'s.
enum AdminTemplateEnvelope {
    /// The members of the `GET` answer.
    static let members: Set<String> = ["id", "revision", "updatedAt", "updatedBy", "template", "stringUpdates"]

    /// The template document in a `PUT` body: the body's `template` when the body is the wrapper
    /// (an object with an object `template` and no member the wrapper lacks), else the body.
    static func document(in body: JSONValue) -> JSONValue {
        guard case .object(let pairs) = body, pairs.allSatisfy({ members.contains($0.key) }),
            let template = body["template"], case .object = template
        else { return body }
        return template
    }
}

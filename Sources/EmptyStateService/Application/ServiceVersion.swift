/// The version of this build of the service: what `empty-state-server --version` prints and
/// CHANGELOG.md's newest entry names. Semantic Versioning; raise it with a CHANGELOG entry.
///
/// It starts at `info.version` of openapi.yaml (0.1.0), the version string the project already
/// had; the contract's version may move on its own later (a server release need not change it).
package enum ServiceVersion {
    package static let current = "0.1.0"
}

/// The version of this build of the service: what `empty-state-server --version` prints.
/// Semantic Versioning. It is CHANGELOG.md's newest release while the `[Unreleased]` section is
/// empty, and the next version with `-dev` (`0.3.0-dev`) while it lists changes, so that a build
/// from between releases never claims to be the last one; `make lint` checks both
/// (Tools/docs/binary_checks.py), and docs/releases.md says when to change it.
///
/// It started at `info.version` of openapi.yaml (0.1.0); the contract's version moves on its own
/// (a server release need not change it).
package enum ServiceVersion {
    package static let current = "0.3.0-dev"
}

// swift-tools-version:6.0
import PackageDescription

/// Builds swift-openapi-generator's command-line tool, pinned to the version the client library's
/// committed sources were generated with, apart from the main package so that apps depending on
/// `EmptyStateClient` never resolve or build the generator (see `make generate-client`).
let package = Package(
    name: "openapi-generator-tool",
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3")
    ],
    targets: [
        .target(
            name: "Placeholder",
            dependencies: [.product(name: "swift-openapi-generator", package: "swift-openapi-generator")],
            path: "Placeholder"
        )
    ]
)

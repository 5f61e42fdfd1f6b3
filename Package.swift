// swift-tools-version:6.0
import PackageDescription

/// Settings shared by every Swift target: Swift 6 language mode comes from the tools version.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "empty-state-service",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "empty-state-server", targets: ["empty-state-server"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The replicas' shared store, and the services' start and graceful shutdown.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // SHA-256 of console session ids and of admin tokens kept in PostgreSQL (postgres-nio
        // depends on it already).
        .package(url: "https://github.com/apple/swift-crypto.git", "3.9.0"..<"6.0.0"),
        // The webhooks' HTTP client (postgres-nio depends on both already): NIO connects to the
        // address the SSRF guard checked, NIOSSL speaks TLS with SNI and verifies the host name.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    ],
    targets: [
        // C libraries, each wrapped once.
        // libmicrohttpd's API and the C the HTTP layer needs beside it (a .c file per concern; Linux only).
        // `make deps` installs libmicrohttpd-dev, which puts microhttpd.h in /usr/include.
        .target(
            name: "CMicroHTTPD",
            cSettings: [.unsafeFlags(["-Wall", "-Wextra"])],
            linkerSettings: [.linkedLibrary("microhttpd")]
        ),
        // Files compiled into the binary with C23 #embed: the web stylesheet, component and icons,
        // the built-in catalogue (config/templates) and openapi.yaml.
        .target(name: "CAssets", cSettings: [.unsafeFlags(["-Wall", "-Wextra"])]),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),

        // The HTTP layer: the only module that imports CMicroHTTPD; knows nothing of empty states.
        .target(
            name: "HTTPServer",
            dependencies: [
                "CMicroHTTPD",
                "JSONCoding",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // gzip, raw deflate and CRC-32 over zlib (CZlib): the catalogue's gzip answers and the ZIP
        // archives of translation exports. No HTTP: whoever compresses depends on this alone.
        .target(name: "ZlibCompression", dependencies: ["CZlib"], swiftSettings: swiftSettings),
        // A JSON value parser, a deterministic, allocation-light JSON writer, and the one string
        // escaper of JSON and log lines (TextEscaper).
        .target(name: "JSONCoding", swiftSettings: swiftSettings),
        // CLDR's plural rules (generated from CLDR by Tools/cldr/generate.py) and their
        // evaluation: which forms a plural string has in a locale, and which one a number takes.
        // No dependency at all: the service and the apps' client library both choose with it.
        .target(name: "CLDRPlurals", swiftSettings: swiftSettings),
        // The domain: templates, validation, locale negotiation, pseudo-locales, rendering.
        .target(
            name: "EmptyStateCore",
            dependencies: ["JSONCoding", "CLDRPlurals"],
            swiftSettings: swiftSettings
        ),
        // The web platform: the icon set, the HTML renderer, the stylesheet and web component
        // (Assets/), and the admin console's files (Console/), compiled in by CAssets. No HTTP: the
        // service serves what it renders.
        .target(
            name: "EmptyStateWeb",
            dependencies: ["EmptyStateCore", "JSONCoding", "CAssets"],
            exclude: ["Assets", "Console"],
            swiftSettings: swiftSettings
        ),
        // Translators' file formats (XLIFF 2.0 and 1.2, String Catalogs, Android strings.xml): a
        // format-neutral model, deterministic writers, strict readers (its own XML reader: no DTD),
        // and the import plan. No store, no HTTP: the admin routes build on it.
        .target(
            name: "EmptyStateTranslation",
            dependencies: ["EmptyStateCore", "JSONCoding", "CLDRPlurals"],
            swiftSettings: swiftSettings
        ),
        // The store contract both backends implement: the interfaces, their errors and records,
        // and the logic every backend shares (preconditions, built-in import, documents as text,
        // group commit, the SHA-256 of secrets kept as digests: swift-crypto, which the server
        // links for PostgreSQL anyway). No database driver.
        .target(
            name: "EmptyStateStore",
            dependencies: [
                "EmptyStateCore",
                "JSONCoding",
                // Libraries take a Logger (the import of built-ins logs what it keeps).
                .product(name: "Logging", package: "swift-log"),
                // `SharedStore.services`: what runs beside the HTTP service for a shared store.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // The SQL both backends share (the rollups' tables and statements, the audit filter's
        // conditions in each dialect): the backends' side of the contract, which nothing above
        // them imports.
        .target(
            name: "EmptyStateStoreSQL",
            dependencies: ["EmptyStateStore"],
            swiftSettings: swiftSettings
        ),
        // Webhook delivery over HTTP: the receiver URL's rules, the guard against request forgery
        // (every resolved address checked, the checked address connected to), the Standard
        // Webhooks signature, and one bounded HTTP/1.1 exchange over SwiftNIO and NIOSSL. No
        // store, no empty states.
        .target(
            name: "WebhookClient",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // The embedded backend: SQLite through GRDB (templates, revisions, audit; events).
        .target(
            name: "EmptyStateSQLite",
            dependencies: [
                "EmptyStateCore",
                "EmptyStateStore",
                "EmptyStateStoreSQL",
                "JSONCoding",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for the group commit's bindings (`RawBindings`).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The same store interface on PostgreSQL (postgres-nio), for replicas: migrations under
        // an advisory lock, group-committed events, and the change feed replicas listen to.
        .target(
            name: "EmptyStatePostgres",
            dependencies: [
                "EmptyStateCore",
                "EmptyStateStore",
                "EmptyStateStoreSQL",
                "JSONCoding",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The application: configuration, pre-rendered snapshot, routes, start and shutdown. It
        // depends on the store contract only: the executable opens a backend and hands it over.
        .target(
            name: "EmptyStateService",
            dependencies: [
                "HTTPServer",
                "EmptyStateCore",
                "EmptyStateWeb",
                "EmptyStateStore",
                "EmptyStateTranslation",
                "ZlibCompression",
                "WebhookClient",
                // The built-in catalogue and openapi.yaml, compiled in.
                "CAssets",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                "JSONCoding",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "empty-state-server",
            dependencies: [
                "EmptyStateService",
                // The one place that chooses and opens a backend.
                "EmptyStateSQLite",
                "EmptyStatePostgres",
                "EmptyStateStore",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        .testTarget(
            name: "HTTPServerTests",
            dependencies: ["HTTPServer", .product(name: "Logging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "WebhookClientTests",
            dependencies: [
                "WebhookClient",
                // A receiver in the tests: a NIO HTTP server with a certificate of its own.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // The verification snippet of docs/webhooks.md, as integrators run it.
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ZlibCompressionTests",
            // CZlib: the tests inflate what the module compressed.
            dependencies: ["ZlibCompression", "CZlib"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EmptyStateCoreTests",
            dependencies: ["EmptyStateCore", "JSONCoding", "CLDRPlurals"],
            // plural-vectors.json: babel's categories, read from the source tree (CLDRPluralsTests).
            exclude: ["Resources"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EmptyStateWebTests",
            dependencies: ["EmptyStateWeb", "EmptyStateCore", "JSONCoding"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EmptyStateTranslationTests",
            dependencies: ["EmptyStateTranslation", "EmptyStateCore", "JSONCoding", "TranslationFixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EmptyStateStoreTests",
            dependencies: [
                "EmptyStateStore", "EmptyStateSQLite", "EmptyStateCore", "JSONCoding", "EmptyStatePostgres",
                // The rollup tables' names, for the databases of earlier releases the tests build.
                "EmptyStateStoreSQL",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // The change listener's tests run it in a service group.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // ConnectionPoolError, for the tests of PostgresBackend.storeError.
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The translation documents the format tests share, and the files of every format made
        // of them for `make translation-check`'s independent readers.
        .target(
            name: "TranslationFixtures",
            dependencies: ["EmptyStateTranslation", "EmptyStateCore", "JSONCoding"],
            path: "Tests/TranslationFixtures",
            swiftSettings: swiftSettings
        ),
        // `translation-fixtures DIR` writes them: a program `make translation-check` runs, not a test.
        .executableTarget(
            name: "translation-fixtures",
            dependencies: ["TranslationFixtures"],
            path: "Tests/TranslationFixtureWriter",
            swiftSettings: swiftSettings
        ),
        // Finds the built server for the tests that start it (service and client tests).
        .target(name: "LiveServerSupport", path: "Tests/LiveServerSupport", swiftSettings: swiftSettings),
        .testTarget(
            name: "EmptyStateServiceTests",
            dependencies: [
                "EmptyStateService", "EmptyStateStore", "EmptyStateSQLite", "HTTPServer", "EmptyStateCore",
                "EmptyStateWeb",
                "JSONCoding", "CZlib", "ZlibCompression",
                "LiveServerSupport",
                .product(name: "Logging", package: "swift-log"),
                // `SharedStore.services` returns them (the follower's tests fake a shared store).
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)

// MARK: - EmptyStateClient: the client library for apps (iOS, macOS, Linux)
// Kept as one block, apart from the server's targets. The library depends on Foundation,
// swift-log, swift-openapi's runtime and URLSession transport, and CLDRPlurals (which depends on
// nothing); its generated sources are committed (Tools/openapi-generator/generate.sh; `make test`
// checks they match openapi.yaml).
package.platforms = (package.platforms ?? []) + [.iOS(.v16), .tvOS(.v16), .watchOS(.v9)]
package.products += [.library(name: "EmptyStateClient", targets: ["EmptyStateClient"])]
package.dependencies += [
    .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
    .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    // Only the `generate-documentation` command plugin (`make docs`): it is no target's dependency,
    // so neither the library nor the server links anything of it.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
]
package.targets += [
    .target(
        name: "EmptyStateClient",
        dependencies: [
            // CLDR's plural rules, shared with the service: a form chosen on a device is the one
            // the service would serve (`EmptyStateTemplate.counting(_:as:formatted:)`).
            "CLDRPlurals",
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
        ],
        swiftSettings: swiftSettings
    ),
    .testTarget(
        name: "EmptyStateClientTests",
        dependencies: [
            "EmptyStateClient", "LiveServerSupport",
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
        ],
        swiftSettings: swiftSettings
    ),
    // `swift run -c release empty-state-client-benchmark`: the cost of template(_:) from memory
    // (not part of `make test`).
    .executableTarget(
        name: "empty-state-client-benchmark",
        dependencies: [
            "EmptyStateClient",
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ],
        swiftSettings: swiftSettings
    ),
]

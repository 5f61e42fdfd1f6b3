import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime
import Synchronization
import Testing

@testable import EmptyStateClient

/// Records each request's headers and answers as if the service were unreachable.
private final class HeaderCapture: ClientTransport, Sendable {
    struct Unreachable: Error {}
    let sent = Mutex<[HTTPFields]>([])

    func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        sent.withLock { $0.append(request.headerFields) }
        throw Unreachable()
    }
}

/// What an experiment's target reads is sent with the install's id: `X-App-Version` (when the
/// app's version is one the service parses) and `X-Installed-At`.
@Suite("EmptyStateClient: the install's attributes for experiment targets")
struct EmptyStateClientTargetingTests {
    @Test("versions the service reads are SemVer; others are not sent (they would be 400)")
    func semVer() {
        for text in ["5", "5.2", "5.2.0", "0.9.75", "5.2.0-beta.1", "5.2.0+431", "1.0.0-rc-1.2+build.7"] {
            #expect(EmptyStateClientConfiguration.isSemVer(text), "\(text)")
        }
        for text in ["", "5.2.0 (431)", "05.2", "5.2.0.1", "5..2", "5.2.0-", "5.2.0-01", "v5.2", "5.2.0+", "５.２"] {
            #expect(!EmptyStateClientConfiguration.isSemVer(text), "\(text)")
        }
    }

    @Test("with an install id, the version and first launch go with every template request")
    func sentWithInstallID() async throws {
        let installed = Date(timeIntervalSince1970: 1_795_000_000)
        for (installID, appVersion, expected) in [
            ("install-1", "5.2.0+431", ["5.2.0+431", "2026-11-18T11:06:40Z"]),
            ("install-1", "5.2.0 (431)", [nil, "2026-11-18T11:06:40Z"]),
            (nil, "5.2.0", [nil, nil]),
        ] as [(String?, String, [String?])] {
            let transport = HeaderCapture()
            let client = EmptyStateClient(
                configuration: .init(
                    baseURL: URL(string: "http://127.0.0.1:9")!,
                    appVersion: appVersion,
                    preferredLocales: ["fr-CA", "en"],
                    installID: installID,
                    storageDirectory: nil,
                    installedAt: installed
                ),
                transport: transport,
                logger: Logger(label: "test")
            )
            _ = try? await client.template("connectionRefused")
            _ = try? await client.prefetch()
            let sent = transport.sent.withLock { $0 }
            #expect(sent.count == 2)
            for fields in sent {
                #expect(fields[HTTPField.Name("X-App-Version")!] == expected[0])
                #expect(fields[HTTPField.Name("X-Installed-At")!] == expected[1])
                // The runtime percent-encodes header parameters; the client sends them as given.
                #expect(fields[.acceptLanguage] == "fr-CA, en;q=0.8")
            }
        }
    }
}

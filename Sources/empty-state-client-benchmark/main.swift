// The cost of EmptyStateClient.template(_:) answered from memory, beside a baseline measured in
// the same run: a String-keyed dictionary read under an NSLock (what the cache's read does at
// least). Not part of `make test`:
//
//     swift run -c release empty-state-client-benchmark
import EmptyStateClient
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Answers every request with one template, as the service would.
struct OneTemplateTransport: ClientTransport {
    static let body = #"""
        {"id":"connectionRefused","revision":1,"category":"offline","style":"default","locale":"fr",
        "direction":"ltr","platform":"ios","visual":{"type":"icon","name":"wifi.slash","width":64,"height":64,
        "decorative":true},"title":"Vous êtes hors ligne","message":"Vérifiez votre connexion de données.",
        "actions":[{"id":"retry","role":"primary","type":"retry","label":"Actualiser"}],"placeholders":[]}
        """#

    func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var response = HTTPResponse(status: .ok)
        response.headerFields[.contentType] = "application/json; charset=utf-8"
        response.headerFields[.eTag] = "\"bench\""
        response.headerFields[.cacheControl] = "public, max-age=300, stale-while-revalidate=86400"
        response.headerFields[HTTPField.Name("X-Request-ID")!] = "bench"
        response.headerFields[.contentLanguage] = "fr"
        response.headerFields[HTTPField.Name("Vary")!] = "Accept-Encoding"
        return (response, HTTPBody(Self.body))
    }
}

func measure(_ label: String, iterations: Int, _ body: () async throws -> Void) async rethrows -> Double {
    for _ in 0..<10_000 { try await body() }
    let clock = ContinuousClock()
    let start = clock.now
    for _ in 0..<iterations { try await body() }
    let elapsed = clock.now - start
    let (seconds, attoseconds) = elapsed.components
    let nanoseconds = (Double(seconds) * 1e9 + Double(attoseconds) / 1e9) / Double(iterations)
    print("\(label): \(String(format: "%.0f", nanoseconds)) ns per call (\(iterations) calls)")
    return nanoseconds
}

/// Runs both measurements off the main actor (top-level code is main-actor isolated, and a hop
/// per call would dwarf what is measured).
nonisolated func run() async throws {
    let client = EmptyStateClient(
        configuration: EmptyStateClientConfiguration(
            baseURL: URL(string: "http://127.0.0.1:1")!,
            appVersion: "bench",
            preferredLocales: ["fr"],
            platform: "ios",
            storageDirectory: nil
        ),
        transport: OneTemplateTransport()
    )
    _ = try await client.template("connectionRefused")

    let lock = NSLock()
    let dictionary = ["ios\nfr\nconnectionRefused": 1, "ios\nfr\nloading": 2]
    let id = "connectionRefused"
    var sink = 0
    let iterations = 1_000_000
    let baseline = await measure("baseline: dictionary read under NSLock", iterations: iterations) {
        sink &+= lock.withLock { dictionary["ios\nfr\n" + id] ?? 0 }
    }
    let fromMemory = try await measure("template(_:) from memory", iterations: iterations) {
        sink &+= try await client.template(id).actions.count
    }
    print(String(format: "template(_:) costs %.1f× the baseline (checksum %d)", fromMemory / baseline, sink))
}

try await run()

import Foundation
import HTTPTypes
import LiveServerSupport
import OpenAPIRuntime
import OpenAPIURLSession

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The real `empty-state-server` binary on port 0, with a scratch data directory.
final class LiveService {
    /// The package root: the folder that holds `Tests/EmptyStateClientTests/`.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    let process = Process()
    let dataDirectory: URL
    let logFile: URL
    private(set) var port = 0

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts the server and waits for its `http.port=` line.
    init() throws {
        guard let binary = ServerBinary.url() else {
            throw LiveServiceError(
                "empty-state-server was not found next to the test bundle; run `swift build` before `swift test`"
            )
        }
        dataDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("empty-state-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        logFile = dataDirectory.appendingPathComponent("server.log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        process.executableURL = binary
        process.arguments = [
            "--host", "127.0.0.1", "--port", "0",
            "--config-dir", Self.root.appendingPathComponent("config").path,
            "--openapi-path", Self.root.appendingPathComponent("openapi.yaml").path,
            "--data-dir", dataDirectory.appendingPathComponent("data").path,
            "--log-level", "notice",
        ]
        process.standardError = try FileHandle(forWritingTo: logFile)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
            if let range = log.range(of: "http.port=") {
                port = Int(log[range.upperBound...].prefix { $0.isNumber }) ?? 0
                if port > 0 { return }
            }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        kill()
        throw LiveServiceError("the server did not start: \((try? String(contentsOf: logFile, encoding: .utf8)) ?? "")")
    }

    /// SIGKILL: the server is gone at once, as after a crash.
    func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Stops the server and removes its data.
    func stop() {
        kill()
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    /// A GET with the editor token the server generated; the body as text.
    func admin(_ pathAndQuery: String) async throws -> String {
        let token = try String(contentsOf: dataDirectory.appendingPathComponent("data/admin-token"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        var request = URLRequest(url: URL(string: baseURL.absoluteString + pathAndQuery)!)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, _) = try await URLSession.shared.data(for: request)
        return String(decoding: data, as: UTF8.self)
    }

    /// An admin PUT of a JSON body with `precondition` (`If-Match: "r1"`, `If-None-Match: *`);
    /// the status.
    @discardableResult
    func adminPut(_ path: String, json: String, precondition: (name: String, value: String)) async throws -> Int {
        let token = try String(contentsOf: dataDirectory.appendingPathComponent("data/admin-token"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        var request = URLRequest(url: URL(string: baseURL.absoluteString + path)!)
        request.httpMethod = "PUT"
        request.httpBody = Data(json.utf8)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(precondition.value, forHTTPHeaderField: precondition.name)
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    /// An admin request with a JSON body, with the token the server generated; the status and
    /// the body.
    func adminSend(_ method: String, _ path: String, json: String) async throws -> (status: Int, body: Data) {
        let token = try String(contentsOf: dataDirectory.appendingPathComponent("data/admin-token"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        var request = URLRequest(url: URL(string: baseURL.absoluteString + path)!)
        request.httpMethod = method
        request.httpBody = Data(json.utf8)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// A plain GET; the body.
    func get(_ pathAndQuery: String) async throws -> Data {
        try await URLSession.shared.data(from: URL(string: baseURL.absoluteString + pathAndQuery)!).0
    }

    /// The ids of the built-in templates and the locales each has strings in.
    static func builtInLocales() throws -> [(id: String, locales: [String])] {
        let directory = root.appendingPathComponent("config/templates")
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
            .sorted().map { name in
                let data = try Data(contentsOf: directory.appendingPathComponent(name))
                let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
                let strings = object["strings"] as? [String: Any] ?? [:]
                return (object["id"] as? String ?? "", strings.keys.sorted())
            }
    }
}

struct LiveServiceError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A transport that records what went on the wire and can answer in the service's place.
final class RecordingTransport: ClientTransport, @unchecked Sendable {
    /// One exchange: the request as sent (after the client's middlewares) and the status.
    struct Exchange: Sendable {
        var operationID: String
        var request: HTTPRequest
        var status: Int?
    }

    /// What to do with a request instead of, or after, sending it.
    enum Fault: Sendable {
        /// Answers 503 with `Retry-After` without sending, as a proxy in front of the service would
        /// (without the headers the contract promises, such as `X-Request-ID`).
        case unavailable(retryAfter: Int)
        /// Sends it, then throws as if the response never came.
        case lostResponse
    }

    private let base: any ClientTransport
    private let lock = NSLock()
    // Guarded by `lock`; `@unchecked Sendable` because of these two.
    private var exchanges: [Exchange] = []
    private var faults: [String: [Fault]] = [:]

    init(_ base: any ClientTransport = URLSessionTransport()) {
        self.base = base
    }

    var recorded: [Exchange] { lock.withLock { exchanges } }

    /// Queues faults for the next requests of `operationID`, in order.
    func inject(_ faults: [Fault], into operationID: String) {
        lock.withLock { self.faults[operationID, default: []] += faults }
    }

    func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let fault: Fault? = lock.withLock {
            guard var queued = faults[operationID], !queued.isEmpty else { return nil }
            let first = queued.removeFirst()
            faults[operationID] = queued
            return first
        }
        switch fault {
        case .unavailable(let retryAfter):
            var response = HTTPResponse(status: .serviceUnavailable)
            response.headerFields[.retryAfter] = "\(retryAfter)"
            response.headerFields[.contentType] = "application/problem+json"
            record(Exchange(operationID: operationID, request: request, status: 503))
            let problem =
                #"{"type":"urn:empty-state:problem:store-unavailable","title":"Service Unavailable","status":503,"detail":"injected","requestId":"test"}"#
            return (response, HTTPBody(problem))
        case .lostResponse:
            let (response, _) = try await base.send(request, body: body, baseURL: baseURL, operationID: operationID)
            record(Exchange(operationID: operationID, request: request, status: response.status.code))
            throw URLError(.timedOut)
        case nil:
            do {
                let (response, responseBody) = try await base.send(
                    request,
                    body: body,
                    baseURL: baseURL,
                    operationID: operationID
                )
                record(Exchange(operationID: operationID, request: request, status: response.status.code))
                return (response, responseBody)
            } catch {
                record(Exchange(operationID: operationID, request: request, status: nil))
                throw error
            }
        }
    }

    private func record(_ exchange: Exchange) {
        lock.withLock { exchanges.append(exchange) }
    }
}

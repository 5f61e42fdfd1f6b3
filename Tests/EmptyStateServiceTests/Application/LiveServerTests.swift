import Foundation
import JSONCoding
import LiveServerSupport
import Testing

/// The real `empty-state-server` binary, started on port 0 and driven over raw HTTP/1.1.
@Suite("empty-state-server, live")
struct LiveServerTests {
    @Test("serves HTTP/1.1 with keep-alive and exits 0 on SIGTERM", .timeLimit(.minutes(1)))
    func live() throws {
        guard let binary = ServerBinary.url() else {
            Issue.record(
                """
                empty-state-server was not found next to the test bundle (\(CommandLine.arguments.first ?? "?")); \
                run `swift build` (with the same --scratch-path) before `swift test`
                """
            )
            return
        }
        let root = ServiceFixture.root
        let dataDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("empty-state-live-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dataDirectory) }

        let server = try ServerProcess(
            binary: binary,
            arguments: [
                "--port", "0",
                "--config-dir", root.appendingPathComponent("config").path,
                "--openapi-path", root.appendingPathComponent("openapi.yaml").path,
                "--data-dir", dataDirectory.path,
                "--log-level", "notice",
            ]
        )
        defer { server.kill() }
        let port = try server.waitForPort(timeout: .seconds(10))
        #expect((1...65535).contains(port))
        #expect(FileManager.default.fileExists(atPath: dataDirectory.path), "the data directory is created")

        // One connection, several requests: keep-alive.
        let connection = try RawHTTPConnection(port: port)
        try connection.send("GET", "/healthz", headers: [("X-Request-ID", "live-test-1")])
        let health = try connection.readResponse()
        #expect(health.version == "HTTP/1.1")
        #expect(health.status == 200)
        #expect(health.bodyText == #"{"status":"ok"}"#)
        #expect(health.header("X-Request-ID") == "live-test-1")
        #expect(health.header("Connection")?.lowercased() != "close")

        try connection.send("GET", "/v1/templates/connectionRefused?locale=fr")
        let french = try connection.readResponse()
        #expect(french.status == 200)
        #expect(french.header("Content-Language") == "fr")
        #expect(french.header("Content-Type") == "application/json; charset=utf-8")
        let generatedID = try #require(french.header("X-Request-ID"))
        #expect(generatedID.count == 16 && generatedID != "live-test-1")
        let json = try JSONParser.parse(french.body)
        #expect(json["id"] == .string("connectionRefused"))
        #expect(json["locale"] == .string("fr"))
        #expect(json["title"] == .string("Vous êtes hors ligne"))
        let etag = try #require(french.header("ETag"))

        try connection.send(
            "GET",
            "/v1/templates/noNetwork?locale=fr",
            headers: [("If-None-Match", etag)]
        )
        let revalidated = try connection.readResponse()
        #expect(revalidated.status == 304)
        #expect(revalidated.body.isEmpty)

        try connection.send("HEAD", "/healthz")
        let head = try connection.readResponse(hasBody: false)
        #expect(head.status == 200)

        // Two requests written back to back before reading: both answered, in order.
        try connection.send("GET", "/v1/templates/doesNotExist")
        try connection.send("GET", "/v1/templates?locale=ar&platform=ios", headers: [("Accept-Encoding", "gzip")])
        let missing = try connection.readResponse()
        let bundle = try connection.readResponse()
        #expect(missing.status == 404)
        #expect(missing.header("Content-Type") == "application/problem+json")
        #expect(try JSONParser.parse(missing.body)["type"] == .string("urn:empty-state:problem:unknown-template"))
        #expect(bundle.status == 200)
        #expect(bundle.header("Content-Encoding") == "gzip")
        #expect(bundle.header("Content-Language") == "ar")
        let inflated = try #require(gunzip(bundle.body))
        #expect(try JSONParser.parse(inflated)["direction"] == .string("rtl"))

        try connection.send("DELETE", "/healthz")
        let notAllowed = try connection.readResponse()
        #expect(notAllowed.status == 405)
        #expect(notAllowed.header("Allow") == "GET, HEAD")

        try connection.send("GET", "/v1/templates/connectionRefused?locale=%ZZ")
        #expect(try connection.readResponse().status == 400)
        connection.close()

        // A second connection works too, and closing both lets shutdown finish at once.
        let second = try RawHTTPConnection(port: port)
        try second.send("GET", "/readyz")
        let ready = try second.readResponse()
        #expect(ready.status == 200)
        #expect(ready.bodyText == #"{"status":"ready","templates":15,"store":"ok"}"#)
        second.close()

        server.terminate()
        let status = server.waitForExit(timeout: .seconds(15))
        #expect(status == 0, "exit status after SIGTERM; log:\n\(server.log)")
        #expect(server.log.contains("stopped"), "\(server.log)")
    }
}

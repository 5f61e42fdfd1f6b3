import EmptyStateStore
import HTTPServer
import JSONCoding
import Logging
import Testing

@testable import EmptyStateService

@Suite("AdminProblems: every store error to its problem, in one place")
struct AdminProblemsTests {
    let request = HTTPRequest(method: .put, path: "/v1/admin/templates/loading", id: "test-request")
    let logger = Logger(label: "test")

    func problemType(_ response: HTTPResponse) throws -> String? {
        if case .string(let type)? = try JSONParser.parse(response.bodyBytes)["type"] { return type }
        return nil
    }

    @Test("an unreachable database is 503 store-unavailable with Retry-After; the message stays in the log")
    func unavailable() throws {
        let response = AdminProblems.response(
            for: StoreError.unavailable("secret host"),
            request: request,
            logger: logger
        )
        #expect(response.status == 503)
        #expect(response.header("Retry-After") == "2")
        #expect(try problemType(response) == "urn:empty-state:problem:store-unavailable")
        #expect(!String(decoding: response.bodyBytes, as: UTF8.self).contains("secret host"))
    }

    @Test("a write whose commit was not confirmed is 504 outcome-unknown, without Retry-After; it says to read again")
    func outcomeUnknown() throws {
        let response = AdminProblems.response(
            for: StoreError.outcomeUnknown("secret host"),
            request: request,
            logger: logger
        )
        #expect(response.status == 504)
        #expect(response.header("Retry-After") == nil)
        #expect(try problemType(response) == "urn:empty-state:problem:outcome-unknown")
        let body = String(decoding: response.bodyBytes, as: UTF8.self)
        #expect(!body.contains("secret host"))
        #expect(body.contains("may or may not have been made") && body.contains("Read the template again"))
        let policy = AdminProblems.response(
            for: StoreError.outcomeUnknown("x"),
            request: request,
            subject: .appPolicy,
            logger: logger
        )
        #expect(String(decoding: policy.bodyBytes, as: UTF8.self).contains("Read the app policy again"))
    }

    @Test("a busy store is 503 store-busy with Retry-After")
    func busy() throws {
        let response = AdminProblems.response(for: StoreError.busy, request: request, logger: logger)
        #expect(response.status == 503)
        #expect(response.header("Retry-After") == "1")
        #expect(try problemType(response) == "urn:empty-state:problem:store-busy")
    }

    @Test("a stale write is 412 with the current ETag; an unknown error is 500 without internals")
    func staleAndUnknown() throws {
        let stale = AdminProblems.response(
            for: StoreError.stale(id: "loading", current: 4),
            request: request,
            logger: logger
        )
        #expect(stale.status == 412 && stale.header("ETag") == "\"r4\"")
        struct Oops: Error {}
        let unknown = AdminProblems.response(for: Oops(), request: request, logger: logger)
        #expect(unknown.status == 500)
        #expect(try problemType(unknown) == "urn:empty-state:problem:internal")
    }
}

import CZlib
import EmptyStateCore
import Foundation
import HTTPServer
import JSONCoding

@testable import EmptyStateService

/// The real catalogue, pre-rendered once for every test of this target.
enum ServiceFixture {
    /// The package root: the folder that holds `Tests/EmptyStateServiceTests/Support/`.
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    static let cacheControl = "public, max-age=300, stale-while-revalidate=86400, stale-if-error=604800"

    private static let loaded: Result<CatalogueSnapshot, CatalogueError> = Result { () throws(CatalogueError) in
        CatalogueSnapshot(
            catalogue: try CatalogueLoader.load(directory: root.appendingPathComponent("config/templates").path)
        )
    }

    static func snapshot() throws -> CatalogueSnapshot { try loaded.get() }

    /// The built-in catalogue as loaded from config/templates.
    static func catalogue() throws -> Catalogue {
        try CatalogueLoader.load(directory: root.appendingPathComponent("config/templates").path)
    }

    static func api() throws -> ClientAPI {
        ClientAPI(state: CatalogueState(try snapshot()), cacheControl: cacheControl)
    }

    /// `GET /v1/templates/{id}` (or `/v1/templates` when `id` is nil) as the router hands it over.
    static func request(
        _ id: String? = nil,
        query: [(name: String, value: String)] = [],
        headers: [(name: String, value: String)] = []
    ) -> ClientAPI.Request {
        var request = HTTPRequest(
            method: .get,
            path: id.map { "/v1/templates/" + $0 } ?? "/v1/templates",
            query: query,
            headers: HTTPHeaders(headers),
            id: "test-request"
        )
        if let id { request.pathParameters["id"] = id }
        return ClientAPI.Request(request)
    }
}

extension HTTPResponse {
    /// The body parsed as JSON.
    func json() throws -> JSONValue {
        try JSONParser.parse(bodyBytes)
    }

    var bodyText: String { String(decoding: bodyBytes, as: UTF8.self) }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
}

extension JSONValue {
    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }
}

/// Inflates a gzip member with zlib; `nil` when the bytes are not a complete, valid member.
func gunzip(_ compressed: [UInt8]) -> [UInt8]? {
    var stream = z_stream()
    guard inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
        return nil
    }
    defer { inflateEnd(&stream) }
    var input = compressed
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    var status = Z_OK
    input.withUnsafeMutableBufferPointer { source in
        stream.next_in = source.baseAddress
        stream.avail_in = uInt(source.count)
        repeat {
            chunk.withUnsafeMutableBufferPointer { destination in
                stream.next_out = destination.baseAddress
                stream.avail_out = uInt(destination.count)
                status = inflate(&stream, Z_NO_FLUSH)
                output.append(contentsOf: destination[0..<(destination.count - Int(stream.avail_out))])
            }
        } while status == Z_OK
    }
    return status == Z_STREAM_END && stream.avail_in == 0 ? output : nil
}

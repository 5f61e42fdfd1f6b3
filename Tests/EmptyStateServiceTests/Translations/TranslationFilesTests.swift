import EmptyStateCore
import EmptyStateStore
import EmptyStateTranslation
import HTTPServer
import JSONCoding
import Testing
import ZlibCompression

@testable import EmptyStateService

@Suite("Translation files: ZIP archives, format sniffing, problems with a line and column")
struct TranslationFilesTests {
    /// The 32-bit little-endian integer at `offset`.
    private func uint32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }

    private func uint16(_ bytes: [UInt8], _ offset: Int) -> Int {
        Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
    }

    @Test("a ZIP: local headers, data, central directory and end record, deterministic")
    func archive() throws {
        let small = Array("<a/>".utf8)  // stored: deflate would not make it smaller
        let large = Array(String(repeating: "<string>Réessayer</string>\n", count: 200).utf8)  // deflated
        let files = [("values/strings.xml", large), ("values-fr/strings.xml", small)]
        let bytes = ZIPArchive.archive(files, modified: "2026-11-25T15:48:01Z")
        #expect(bytes == ZIPArchive.archive(files, modified: "2026-11-25T15:48:01Z"))

        #expect(uint32(bytes, 0) == 0x0403_4B50)
        #expect(uint16(bytes, 6) == 0x0800)  // UTF-8 names
        #expect(uint16(bytes, 8) == 8)  // deflated
        #expect(uint32(bytes, 14) == CRC32.checksum(large))
        let compressed = Int(uint32(bytes, 18))
        #expect(compressed < large.count && Int(uint32(bytes, 22)) == large.count)
        let nameLength = uint16(bytes, 26)
        #expect(Array(bytes[30..<30 + nameLength]) == Array("values/strings.xml".utf8))

        let second = 30 + nameLength + compressed
        #expect(uint32(bytes, second) == 0x0403_4B50)
        #expect(uint16(bytes, second + 8) == 0)  // stored
        let secondName = uint16(bytes, second + 26)
        let data = second + 30 + secondName
        #expect(Array(bytes[data..<data + small.count]) == small)

        let end = bytes.count - 22
        #expect(uint32(bytes, end) == 0x0605_4B50)
        #expect(uint16(bytes, end + 10) == 2)
        let directory = Int(uint32(bytes, end + 16))
        #expect(directory == data + small.count)
        #expect(uint32(bytes, directory) == 0x0201_4B50)
        #expect(Int(uint32(bytes, directory + 42)) == 0)  // the first entry's offset
    }

    @Test("DOS times: two-second resolution; 1980-01-01 for a time ZIP cannot say")
    func dosTimes() {
        let (time, date) = ZIPArchive.dosDateTime("2026-11-25T15:48:01Z")
        #expect(time == 15 << 11 | 48 << 5 | 0)
        #expect(date == (2026 - 1980) << 9 | 11 << 5 | 25)
        #expect(ZIPArchive.dosDateTime("1970-01-01T00:00:00Z") == (0, 0x21))
        #expect(ZIPArchive.dosDateTime("nonsense") == (0, 0x21))
    }

    @Test(
        "the format told from a file's first bytes",
        arguments: [
            ("{\n  \"sourceLanguage\" : \"en\"", TranslationFormat?.some(.xcstrings)),
            ("\u{FEFF}\r\n  {}", .xcstrings),
            (
                "<?xml version=\"1.0\"?>\n<xliff xmlns=\"urn:oasis:names:tc:xliff:document:2.0\" version=\"2.0\">",
                .xliff2
            ),
            ("<xliff version='1.2' xmlns='urn:oasis:names:tc:xliff:document:1.2'>", .xliff12),
            ("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<resources>", .android),
            ("<xliff version=\"3.0\">", nil),
            ("<html>", nil),
            ("", nil),
        ]
    )
    func sniff(text: String, format: TranslationFormat?) {
        #expect(TranslationImportQuery.sniff(Array(text.utf8)) == format)
    }

    @Test("a problem's errors carry a line and column")
    func problemPosition() throws {
        let problem = ProblemDetails(
            status: 400,
            slug: "invalid-translation-file",
            title: "Bad Request",
            detail: "d",
            errors: [.init(nil, "</file> does not close <unit>", line: 4, column: 47)]
        )
        let json = try JSONParser.parse(problem.response(requestID: "r", in: .emptyState).bodyBytes)
        guard case .array(let errors)? = json["errors"], let first = errors.first else {
            Issue.record("no errors in \(json)")
            return
        }
        #expect(first["line"] == .number(4))
        #expect(first["column"] == .number(47))
        #expect(first["pointer"] == nil)
    }

    @Test("admission with the head: 401 without a token, 403 for a viewer, none for an editor")
    func admission() {
        let authorization = AdminAuthorization(tokens: [
            AdminToken(name: "ed", role: .editor, secret: "editor-secret-0123456789"),
            AdminToken(name: "vi", role: .viewer, secret: "viewer-secret-0123456789"),
        ])
        func request(_ secret: String?) -> HTTPRequest {
            HTTPRequest(
                method: .post,
                path: "/v1/admin/translations/import",
                headers: HTTPHeaders(secret.map { [("Authorization", "Bearer " + $0)] } ?? []),
                id: "r"
            )
        }
        let anonymous = authorization.refusal(request(nil), needs: .editor)
        #expect(anonymous?.status == 401)
        #expect(anonymous?.headers.contains { $0.name == "WWW-Authenticate" } == true)
        #expect(authorization.refusal(request("viewer-secret-0123456789"), needs: .editor)?.status == 403)
        #expect(authorization.refusal(request("editor-secret-0123456789"), needs: .editor) == nil)
    }
}

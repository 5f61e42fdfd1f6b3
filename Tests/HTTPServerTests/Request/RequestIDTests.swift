import HTTPServer
import Testing

@Suite("RequestID")
struct RequestIDTests {
    @Test(
        "sane ids are 1–128 letters, digits and . _ : -",
        arguments: [
            "a", "abc-123", "A.b_c:d-E", "0f8fad5b-d9cb-469f-a165-70867728950e", String(repeating: "x", count: 128),
        ]
    )
    func sane(candidate: String) {
        #expect(RequestID.isSane(candidate))
    }

    @Test(
        "anything else is refused",
        arguments: [
            "", String(repeating: "x", count: 129), "a b", "a\nb", "a\r\nX-Evil: 1", "é", "a/b", "a;b", "a\"b",
            "<script>", "a\u{0}b",
        ]
    )
    func insane(candidate: String) {
        #expect(!RequestID.isSane(candidate))
    }

    @Test("generated ids are 16 lower-case hex digits, sane and different each time")
    func generate() {
        let ids = (0..<64).map { _ in RequestID.generate() }
        for id in ids {
            #expect(id.utf8.count == 16)
            #expect(id.allSatisfy { "0123456789abcdef".contains($0) }, "\(id)")
            #expect(RequestID.isSane(id))
        }
        #expect(Set(ids).count == ids.count)
    }
}

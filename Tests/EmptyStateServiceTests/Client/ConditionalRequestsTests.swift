import EmptyStateCore
import HTTPServer
import Testing

@testable import EmptyStateService

@Suite("ConditionalRequests")
struct ConditionalRequestsTests {

    @Test(
        "If-None-Match matches by weak comparison",
        arguments: [
            ("\"abc\"", true), ("W/\"abc\"", true), ("\"abc-gzip\"", false), (" \"x\" ,\t\"abc\" ", true),
            ("*", true), ("\"x\", *", true), ("\"a,b\", \"abc\"", true), (",, \"abc\" ,", true),
            ("\"abd\"", false), ("abc", false), ("\"ABC\"", false), ("", false), ("w/\"abc\"", false),
            ("\"x,\"abc\"\"", false), ("\"abc", false),
        ]
    )
    func noneMatch(header: String, matches: Bool) {
        #expect(ConditionalRequests.noneMatch(header, matches: "\"abc\"") == matches)
    }

    @Test(
        "Accept-Encoding accepts gzip explicitly or through *, with a non-zero weight",
        arguments: [
            ("gzip", true), ("GZIP", true), ("x-gzip", true), ("br, gzip;q=0.5", true), ("*", true),
            ("gzip ; q=1.0", true), ("*;q=0.1, identity", true), ("deflate, GZip; Q = 0.8", true),
            (nil, false), ("", false), ("identity", false), ("gzip;q=0", false), ("gzip;q=0.000", false),
            ("*;q=0", false), ("gzip;q=0, *", false), ("br, deflate", false),
        ] as [(String?, Bool)]
    )
    func acceptsGzip(header: String?, accepts: Bool) {
        #expect(ConditionalRequests.acceptsGzip(header) == accepts)
    }
}

import HTTPServer
import Testing

@testable import EmptyStateService

@Suite("Request metrics")
struct RequestMetricsTests {
    private static func text(_ metrics: RequestMetrics) -> String {
        var bytes: [UInt8] = []
        metrics.emit(into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func lines(_ text: String, starting prefix: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { $0.hasPrefix(prefix) }
    }

    @Test("a duration equal to a bound counts in that bucket; buckets print cumulative, then +Inf, sum, count")
    func buckets() {
        let metrics = RequestMetrics(buckets: [.microseconds(100), .milliseconds(1), .seconds(5)])
        for nanoseconds: Int64 in [100_000, 100_001, 1_000_000, 7_000_000_000] {
            metrics.record(HTTPExchange(route: "/a", method: .get, status: 200, nanoseconds: nanoseconds))
        }
        let text = Self.text(metrics)
        #expect(
            Self.lines(text, starting: "http_request_duration_seconds") == [
                #"http_request_duration_seconds_bucket{route="/a",le="0.0001"} 1"#,
                #"http_request_duration_seconds_bucket{route="/a",le="0.001"} 3"#,
                #"http_request_duration_seconds_bucket{route="/a",le="5.0"} 3"#,
                #"http_request_duration_seconds_bucket{route="/a",le="+Inf"} 4"#,
                #"http_request_duration_seconds_sum{route="/a"} 7.001200001"#,
                #"http_request_duration_seconds_count{route="/a"} 4"#,
            ]
        )
        #expect(
            Self.lines(text, starting: "http_requests_total") == [
                #"http_requests_total{route="/a",method="GET",status="200"} 4"#
            ]
        )
        #expect(text.contains("# TYPE http_requests_total counter\n"))
        #expect(text.contains("# TYPE http_request_duration_seconds histogram\n"))
        #expect(text.contains("# HELP http_requests_total "))
    }

    @Test("nothing is written before the first request")
    func empty() {
        #expect(Self.text(RequestMetrics(buckets: [.milliseconds(1)])).isEmpty)
    }

    @Test("every route, method and status is its own series, however many; one histogram per route")
    func manySeries() {
        let metrics = RequestMetrics(buckets: [.milliseconds(1)])
        // Routes of equal length and many statuses: equal hashes and several table growths.
        let routes = ["/r/a", "/r/b", "/r/c", "/r/{id}"]
        let methods: [HTTPMethod] = [.get, .head, .put, .other("BREW")]
        let statuses = Array(200..<215)
        for round in 1...2 {
            for route in routes {
                for method in methods {
                    for status in statuses {
                        for _ in 0..<round {
                            metrics.record(HTTPExchange(route: route, method: method, status: status, nanoseconds: 10))
                        }
                    }
                }
            }
        }
        let text = Self.text(metrics)
        let counters = Self.lines(text, starting: "http_requests_total{")
        #expect(counters.count == routes.count * methods.count * statuses.count)
        #expect(counters.allSatisfy { $0.hasSuffix("} 3") }, "each series counted 1 + 2 times")
        #expect(counters.contains(#"http_requests_total{route="/r/{id}",method="other",status="214"} 3"#))
        #expect(Self.lines(text, starting: "http_request_duration_seconds_count").count == routes.count)
        #expect(text.contains(#"http_request_duration_seconds_count{route="/r/b"} 180"#))
    }

    @Test("label values are escaped")
    func escaping() {
        let metrics = RequestMetrics(buckets: [.milliseconds(1)])
        metrics.record(HTTPExchange(route: "/a\"b\\c\nd", method: .get, status: 200, nanoseconds: 1))
        #expect(Self.text(metrics).contains(#"http_requests_total{route="/a\"b\\c\nd",method="GET",status="200"} 1"#))
    }
}

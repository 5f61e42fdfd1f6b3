import HTTPServer
import Synchronization

import protocol Prometheus.Bucketable

/// `http_requests_total` and `http_request_duration_seconds`: what every request adds to the
/// metrics, kept apart from the swift-metrics handles because it runs on every request.
///
/// Through swift-metrics a request cost a dictionary lookup (hashing the key with SipHash) under
/// one lock, then a Prometheus histogram update under another: about 1,500 instructions, a
/// tenth of a pre-rendered answer's whole cost in user space. Here a request takes one lock,
/// finds its series in a small open-addressed table by integers (the route's length, the method,
/// the status) and compares the route with the series' own, which is the router's same string;
/// then it adds to plain integers. Series are made on their first request and never removed,
/// so their number stays bounded by routes × methods × statuses.
///
/// The text is the same as swift-prometheus writes (it is read by the same dashboards), plus a
/// `# HELP` line for each of the two families.
final class RequestMetrics: Sendable {
    /// Upper bounds of the latency buckets in nanoseconds, ascending.
    private let bounds: [Int64]
    /// The bounds as the `le` label prints them (`0.0001`, `5.0`).
    private let boundLabels: [String]
    private let state: Mutex<State>

    /// - Parameter buckets: the latency histogram's upper bounds, ascending.
    init(buckets: [Duration]) {
        precondition(zip(buckets, buckets.dropFirst()).allSatisfy { $0 < $1 }, "bucket bounds ascend")
        bounds = buckets.map { bound in
            let (seconds, attoseconds) = bound.components
            return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        }
        boundLabels = buckets.map(\.bucketRepresentation)
        state = Mutex(State(bucketCount: buckets.count + 1))
    }

    /// Counts one response and its latency.
    func record(_ exchange: HTTPExchange) {
        let method = Self.methodIndex(exchange.method)
        let route = exchange.route
        // The bucket is found outside the lock; most answers fall in the first.
        var bucket = 0
        while bucket < bounds.count, exchange.nanoseconds > bounds[bucket] { bucket += 1 }
        state.withLock { state in
            let index = state.seriesIndex(route: route, method: method, status: exchange.status)
            state.series[index].count += 1
            let histogram = state.series[index].histogram
            state.bucketCounts[histogram * state.bucketCount + bucket] += 1
            state.histograms[histogram].sumNanoseconds += exchange.nanoseconds
        }
    }

    /// Appends both families in the Prometheus text format; a family with no series yet is left
    /// out, as swift-prometheus leaves out a metric nothing has created.
    func emit(into text: inout [UInt8]) {
        let state = state.withLock { $0 }
        guard !state.series.isEmpty else { return }
        var out = ""
        out += "# HELP http_requests_total Responses sent, by route pattern, method and status.\n"
        out += "# TYPE http_requests_total counter\n"
        for series in state.series {
            let method = Self.methodLabels[series.method]
            out += #"http_requests_total{route="\#(Self.escape(series.route))",method="\#(method)","#
            out += #"status="\#(series.status)"} \#(series.count)"# + "\n"
        }
        out += "# HELP http_request_duration_seconds From the request read to its response queued, by route pattern.\n"
        out += "# TYPE http_request_duration_seconds histogram\n"
        for (index, histogram) in state.histograms.enumerated() {
            let labels = #"route="\#(Self.escape(histogram.route))""#
            var cumulative = 0
            for bucket in 0..<state.bucketCount {
                cumulative += state.bucketCounts[index * state.bucketCount + bucket]
                let bound = bucket < boundLabels.count ? boundLabels[bucket] : "+Inf"
                out += #"http_request_duration_seconds_bucket{\#(labels),le="\#(bound)"} \#(cumulative)"# + "\n"
            }
            let sum = Duration.nanoseconds(histogram.sumNanoseconds).bucketRepresentation
            out += "http_request_duration_seconds_sum{\(labels)} \(sum)\n"
            out += "http_request_duration_seconds_count{\(labels)} \(cumulative)\n"
        }
        text.append(contentsOf: out.utf8)
    }

    /// The `method` label of each method index: methods the router does not know are one value,
    /// so a client cannot create series by inventing methods.
    private static let methodLabels = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "other"]

    private static func methodIndex(_ method: HTTPMethod) -> Int {
        switch method {
        case .get: 0
        case .head: 1
        case .post: 2
        case .put: 3
        case .delete: 4
        case .patch: 5
        case .options: 6
        case .other: 7
        }
    }

    /// A label value escaped as the text format requires (backslash, double quote, newline).
    private static func escape(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == 10 })
        else { return value }
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += #"\\"#
            case "\"": escaped += #"\""#
            case "\n": escaped += #"\n"#
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// One `http_requests_total` series.
    private struct Series {
        let route: String
        let method: Int
        let status: Int
        var count = 0
        /// Its route's index in `State.histograms`.
        let histogram: Int
    }

    /// One route's latency histogram; its bucket counts are in `State.bucketCounts`.
    private struct Histogram {
        let route: String
        var sumNanoseconds: Int64 = 0
    }

    private struct State {
        /// Buckets per histogram, `+Inf` included.
        let bucketCount: Int
        var series: [Series] = []
        var histograms: [Histogram] = []
        /// Each histogram's bucket counts (not cumulative), `bucketCount` per histogram.
        var bucketCounts: [Int] = []
        /// Open addressing over `series`: an index + 1, or 0 for an empty slot; at most half full.
        var slots = [Int32](repeating: 0, count: 64)

        init(bucketCount: Int) {
            self.bucketCount = bucketCount
        }

        /// The index of the series of (`route`, `method`, `status`), made if it is new.
        mutating func seriesIndex(route: String, method: Int, status: Int) -> Int {
            let hash = Self.hash(routeLength: route.utf8.count, method: method, status: status)
            let mask = slots.count - 1
            var slot = hash & mask
            while slots[slot] != 0 {
                let index = Int(slots[slot]) - 1
                if series[index].status == status, series[index].method == method, series[index].route == route {
                    return index
                }
                slot = (slot + 1) & mask
            }
            return add(route: route, method: method, status: status, at: slot)
        }

        private mutating func add(route: String, method: Int, status: Int, at slot: Int) -> Int {
            let histogram: Int
            if let known = histograms.firstIndex(where: { $0.route == route }) {
                histogram = known
            } else {
                histogram = histograms.count
                histograms.append(Histogram(route: route))
                bucketCounts.append(contentsOf: repeatElement(0, count: bucketCount))
            }
            series.append(Series(route: route, method: method, status: status, histogram: histogram))
            slots[slot] = Int32(series.count)
            if series.count * 2 > slots.count { rehash(size: slots.count * 2) }
            return series.count - 1
        }

        private mutating func rehash(size: Int) {
            slots = [Int32](repeating: 0, count: size)
            let mask = size - 1
            for (index, series) in series.enumerated() {
                var slot =
                    Self.hash(routeLength: series.route.utf8.count, method: series.method, status: series.status) & mask
                while slots[slot] != 0 { slot = (slot + 1) & mask }
                slots[slot] = Int32(index + 1)
            }
        }

        /// A cheap mix of the key's integers: equal keys hash equally, and the route itself is
        /// compared on a match.
        private static func hash(routeLength: Int, method: Int, status: Int) -> Int {
            var value = UInt64(truncatingIfNeeded: routeLength &* 31 &+ method) &* 0x9E37_79B9_7F4A_7C15
            value ^= UInt64(truncatingIfNeeded: status) &* 0xBF58_476D_1CE4_E5B9
            return Int(truncatingIfNeeded: value ^ (value >> 29))
        }
    }
}

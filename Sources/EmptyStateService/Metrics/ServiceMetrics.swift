import EmptyStateStore
import HTTPServer
import Metrics
import Synchronization

import class Prometheus.PrometheusCollectorRegistry
import struct Prometheus.PrometheusMetricsFactory

/// The service's Prometheus metrics, kept through the swift-metrics API and served at
/// `GET /metrics`.
///
/// Every handle is made by a `PrometheusMetricsFactory` bound to `registry`, which this instance
/// owns: nothing goes through `MetricsSystem.bootstrap`, so several applications in one process
/// (tests) each count their own. The series are listed in docs/observability.md, "Metrics".
package final class ServiceMetrics: Sendable {
    /// Request latency buckets: a pre-rendered template is answered in tens of microseconds, an
    /// admin write waits for an fsync.
    static let requestBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .microseconds(2500),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5),
    ]
    /// Store commit buckets: an fsync on an SSD takes from a fraction of a millisecond, a busy disk seconds.
    static let commitBuckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .microseconds(2500), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
    ]
    /// The `store` label values whose commit histograms exist from the start.
    static let stores = ["templates", "events"]

    /// Holds every series; `GET /metrics` emits it.
    package let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory

    /// `http_requests_total` and `http_request_duration_seconds`, which every request updates.
    private let requests = RequestMetrics(buckets: requestBuckets)

    private let openConnections: Gauge
    private let memoEntries: Gauge
    private let catalogueRevision: Gauge
    private let catalogueTemplates: Gauge
    private let backfillCounted: Gauge
    private let backfillTotal: Gauge
    private let eventsAccepted: Counter
    private let eventsDuplicate: Counter
    private let eventsRejected: Counter
    private let commitDurations: [String: Timer]
    /// Read at each scrape for `http_open_connections`; set once the server exists.
    private let connectionCount = Mutex<(@Sendable () -> Int)?>(nil)
    /// Read at each scrape for `http_memo_entries`; unset when no answers are remembered.
    private let memoCount = Mutex<(@Sendable () -> Int)?>(nil)
    /// Read at each scrape for `access_log_dropped_lines_total`; unset when there is no access log.
    private let droppedAccessLogLines = Mutex<(@Sendable () -> Int)?>(nil)
    /// Read at each scrape for `translation_stale_strings`: stale translations per locale.
    private let staleStrings = Mutex<(@Sendable () -> [String: Int])?>(nil)
    /// `translation_stale_strings` by locale, made as locales appear; kept at 0 once a locale has
    /// none (a series that vanished would read as "no data", not "nothing stale").
    private let staleGauges = Mutex<[String: Gauge]>([:])

    /// Registers every series that exists before its first event, so each is scraped (at 0) from
    /// the start.
    package init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets = [
            "store_commit_duration_seconds": Self.commitBuckets
        ]
        self.factory = factory
        openConnections = Gauge(label: "http_open_connections", factory: factory)
        memoEntries = Gauge(label: "http_memo_entries", factory: factory)
        catalogueRevision = Gauge(label: "catalogue_revision", factory: factory)
        catalogueTemplates = Gauge(label: "catalogue_templates", factory: factory)
        backfillCounted = Gauge(label: "analytics_backfill_counted_events", factory: factory)
        backfillTotal = Gauge(label: "analytics_backfill_events", factory: factory)
        eventsAccepted = Counter(label: "events_total", dimensions: [("outcome", "accepted")], factory: factory)
        eventsDuplicate = Counter(label: "events_total", dimensions: [("outcome", "duplicate")], factory: factory)
        eventsRejected = Counter(label: "events_total", dimensions: [("outcome", "rejected")], factory: factory)
        var commitDurations: [String: Timer] = [:]
        for store in Self.stores {
            commitDurations[store] = Timer(
                label: "store_commit_duration_seconds",
                dimensions: [("store", store)],
                factory: factory
            )
        }
        self.commitDurations = commitDurations
    }

    /// Counts and times one response; `HTTPServer`'s observer, on every request.
    package func record(_ exchange: HTTPExchange) {
        requests.record(exchange)
    }

    /// Counts the outcome of one batch of analytics events.
    package func recordEvents(accepted: Int, duplicates: Int, rejected: Int) {
        if accepted > 0 { eventsAccepted.increment(by: accepted) }
        if duplicates > 0 { eventsDuplicate.increment(by: duplicates) }
        if rejected > 0 { eventsRejected.increment(by: rejected) }
    }

    /// `admin_tokens_file_reloads_total{outcome}`: the tokens file read again while the server
    /// runs, `applied` or `refused` (the tokens in use stayed); both exist, at 0, once asked for.
    package func adminTokensFileReloads(_ outcome: String) -> Counter {
        Counter(label: "admin_tokens_file_reloads_total", dimensions: [("outcome", outcome)], factory: factory)
    }

    /// Records the duration of one write transaction of `store` (`templates` or `events`).
    package func recordCommit(store: String, seconds: Double) {
        let timer =
            commitDurations[store]
            ?? Timer(label: "store_commit_duration_seconds", dimensions: [("store", store)], factory: factory)
        timer.recordSeconds(seconds)
    }

    /// Sets where `http_open_connections` is read from at each scrape.
    package func countOpenConnections(with source: @escaping @Sendable () -> Int) {
        connectionCount.withLock { $0 = source }
    }

    /// Records how far the rollup backfill is: `analytics_backfill_counted_events` of
    /// `analytics_backfill_events` (equal once done; both 0 on a database that never needed one).
    package func recordBackfill(_ progress: RollupBackfill) {
        backfillCounted.record(progress.counted)
        backfillTotal.record(progress.total)
    }

    /// Sets where `http_memo_entries` (answers the server remembers) is read from at each scrape.
    package func countMemoEntries(with source: @escaping @Sendable () -> Int) {
        memoCount.withLock { $0 = source }
    }

    /// Sets where `access_log_dropped_lines_total` (access-log lines dropped because the writer was
    /// behind) is read from at each scrape.
    package func countDroppedAccessLogLines(with source: @escaping @Sendable () -> Int) {
        droppedAccessLogLines.withLock { $0 = source }
    }

    /// Sets where `translation_stale_strings` (translations written before their source string
    /// last changed, per locale) is read from at each scrape.
    package func countStaleStrings(with source: @escaping @Sendable () -> [String: Int]) {
        staleStrings.withLock { $0 = source }
    }

    /// `GET /metrics`: samples the gauges, then emits every series in the Prometheus text format.
    /// - Parameter catalogue: the snapshot being served, for `catalogue_revision` and `catalogue_templates`.
    func scrape(catalogue: CatalogueSnapshot) -> HTTPResponse {
        if let count = connectionCount.withLock({ $0 }) { openConnections.record(count()) }
        memoEntries.record(memoCount.withLock({ $0 })?() ?? 0)
        catalogueRevision.record(catalogue.revisionSum)
        catalogueTemplates.record(catalogue.templateCount)
        if let source = staleStrings.withLock({ $0 }) {
            let counts = source()
            let factory = factory
            staleGauges.withLock { gauges in
                for locale in counts.keys where gauges[locale] == nil {
                    gauges[locale] = Gauge(
                        label: "translation_stale_strings",
                        dimensions: [("locale", locale)],
                        factory: factory
                    )
                }
                for (locale, gauge) in gauges { gauge.record(counts[locale] ?? 0) }
            }
        }
        var text: [UInt8] = []
        text.reserveCapacity(32 * 1024)
        registry.emit(into: &text)
        requests.emit(into: &text)
        // A counter kept by the access log itself: emitted here, as swift-metrics counters only
        // increment.
        let dropped = droppedAccessLogLines.withLock({ $0 })?() ?? 0
        text.append(
            contentsOf: """
                # HELP access_log_dropped_lines_total Access-log lines dropped because the writer was behind.
                # TYPE access_log_dropped_lines_total counter
                access_log_dropped_lines_total \(dropped)

                """.utf8
        )
        return HTTPResponse(
            status: 200,
            headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8"), ("Cache-Control", "no-store")],
            body: .bytes(text)
        )
    }
}

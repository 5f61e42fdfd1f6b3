import Metrics

import struct Prometheus.PrometheusMetricsFactory

/// The webhooks' series (docs/observability.md, "Metrics"): attempts by outcome, and the outbox's
/// backlog as the dispatcher last read it.
package final class WebhookMetrics: Sendable {
    /// `webhook_delivery_attempts_total{outcome}`: `succeeded` (a 2xx), `retrying` (failed, tried
    /// again later), `failed` (failed and given up).
    private let succeeded: Counter
    private let retrying: Counter
    private let failed: Counter
    /// `webhook_outbox_pending`: deliveries not finished.
    private let pending: Gauge
    /// `webhook_outbox_oldest_age_seconds`: how long the oldest of them has waited (0 when none).
    private let oldestAge: Gauge

    init(factory: PrometheusMetricsFactory) {
        succeeded = Counter(
            label: "webhook_delivery_attempts_total",
            dimensions: [("outcome", "succeeded")],
            factory: factory
        )
        retrying = Counter(
            label: "webhook_delivery_attempts_total",
            dimensions: [("outcome", "retrying")],
            factory: factory
        )
        failed = Counter(
            label: "webhook_delivery_attempts_total",
            dimensions: [("outcome", "failed")],
            factory: factory
        )
        pending = Gauge(label: "webhook_outbox_pending", factory: factory)
        oldestAge = Gauge(label: "webhook_outbox_oldest_age_seconds", factory: factory)
    }

    /// Counts one attempt by what its delivery became.
    package func recordAttempt(succeeded ok: Bool, givenUp: Bool) {
        if ok {
            succeeded.increment()
        } else if givenUp {
            failed.increment()
        } else {
            retrying.increment()
        }
    }

    /// Sets the backlog: `pending` deliveries, the oldest created `oldestAgeSeconds` ago.
    package func recordBacklog(pending count: Int, oldestAgeSeconds: Double) {
        pending.record(count)
        oldestAge.record(oldestAgeSeconds)
    }
}

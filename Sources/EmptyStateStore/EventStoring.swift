import EmptyStateCore

/// Durable storage of analytics events with group commit, as ingestion, the analytics API and
/// the retention pruner use it. `SQLiteEventStore` (SQLite) and `PostgresEventStore` implement it.
package protocol EventStoring: Sendable {
    /// Where the store is, for logs.
    var location: String { get }

    /// Starts the group-commit writer. Call once; `stop()` ends it.
    func start()

    /// Commits what is queued, then ends the writer.
    func stop()

    /// Stores `events` (dropping ids already stored) and `quarantined`, durably, in the next
    /// group commit; blocks until that commit is done.
    /// - Returns: for each event, whether it was new (`false`: a duplicate of a stored id).
    func append(_ events: [AnalyticsEvent], quarantined: [QuarantinedEvent]) throws(StoreError) -> [Bool]

    /// The rows of one read of the rollups, which every event stored is counted in by the
    /// transaction that stores it; the summaries are assembled from such reads
    /// (`AnalyticsSummaries`).
    func rollupRows(_ query: RollupQuery) throws(StoreError) -> [RollupRow]

    /// Moves the rollup deltas that group commits appended into the cubes, `batch` rows a
    /// transaction until none is left (`RollupDelta`); reads count deltas not folded yet, so
    /// folding changes no answer, only what answering costs. On PostgreSQL, when another replica
    /// (or the backfill) is writing the cubes, it returns at once and leaves the deltas to the
    /// next run.
    /// - Returns: how many delta rows were folded.
    @discardableResult
    func foldRollups(batch: Int) throws(StoreError) -> Int

    /// Displays and taps between `from` (inclusive) and `to` (exclusive), to the millisecond,
    /// counted from the events themselves rather than the rollups: for audits and for the tests
    /// that hold the rollups to what was stored. It reads every event in the window.
    func countEvents(
        from: Int64,
        to: Int64,
        templateID: String?,
        groupBy: SummaryGrouping?
    ) throws(StoreError)
        -> (totals: SummaryRow, groups: [SummaryRow])

    /// How far the rollups of the events stored before rollups existed are built.
    func backfillProgress() throws(StoreError) -> RollupBackfill

    /// Counts the next batch (at most `limit`) of events stored before rollups existed into the
    /// rollups, in one transaction with the progress, so a restart goes on where it stopped and
    /// no event is counted twice. Where several processes share the store, one does it at a time
    /// and the others do nothing.
    /// - Returns: the progress after the batch.
    @discardableResult
    func backfillRollups(limit: Int) throws(StoreError) -> RollupBackfill

    /// `experimentDailyCounts` per value of an install attribute (`ExperimentSegment`): the same
    /// counts and exclusions, each over the installs whose row holds that value (the attributes
    /// of their earliest event; `nil` when unknown), in one snapshot. Segments without any
    /// install are absent. With `segment` `nil`, one group, the whole (value `nil`), present
    /// even when empty.
    func experimentSegmentCounts(
        experimentID: String,
        metric: Experiment.Metric,
        from: Int64,
        to: Int64,
        segment: ExperimentSegment?
    ) throws(StoreError) -> [ExperimentSegmentCounts]

    /// Events after the cursor `after`, oldest first.
    func events(after: Int64, limit: Int) throws(StoreError) -> [(cursor: Int64, event: AnalyticsEvent)]

    /// How many events and quarantined events are stored (for tests and logs).
    func counts() throws(StoreError) -> (events: Int, quarantined: Int)

    /// Deletes events that happened before `cutoff`, quarantined ones received before it and
    /// the hour rollups before it (day rollups are kept for `RollupRetention.days`), in bounded
    /// steps so group commits are never held up for long.
    /// - Returns: how many rows were deleted.
    @discardableResult
    func prune(before cutoff: Int64, chunk: Int) throws(StoreError) -> Int
}

extension EventStoring {
    /// The installs and conversions of experiment `experimentID` by the variant and UTC day, of
    /// the installs first seen from `from` to `to` (ms, inclusive) and their conversions by
    /// `metric` up to `to`, and the installs excluded by reason (`ExperimentDailyCounts`): the
    /// whole, `experimentSegmentCounts` without a segment.
    package func experimentDailyCounts(
        experimentID: String,
        metric: Experiment.Metric,
        from: Int64,
        to: Int64
    ) throws(StoreError) -> ExperimentDailyCounts {
        let whole = try experimentSegmentCounts(
            experimentID: experimentID,
            metric: metric,
            from: from,
            to: to,
            segment: nil
        )
        return whole.first?.counts ?? ExperimentDailyCounts(days: [], excluded: .init())
    }

    /// `foldRollups(batch:)` with `RollupDelta.foldBatch` rows a transaction.
    @discardableResult
    package func foldRollups() throws(StoreError) -> Int {
        try foldRollups(batch: RollupDelta.foldBatch)
    }

    /// `prune(before:chunk:)` with the default batch of 5,000 rows.
    @discardableResult
    package func prune(before cutoff: Int64) throws(StoreError) -> Int {
        try prune(before: cutoff, chunk: 5000)
    }
}

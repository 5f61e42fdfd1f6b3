/// One read of one rollup table: the sum of `n` over a range of buckets, optionally for some
/// templates and one event type, grouped by some of the cube's dimensions (or the bucket), and
/// always by type and action. What every backend answers (`EventStoring.rollupRows`); the
/// summaries are assembled from such reads by `AnalyticsSummaries`.
package struct RollupQuery: Sendable, Equatable {
    /// What a row is grouped by, besides type and action.
    package enum GroupKey: Sendable, Equatable {
        case dimension(RollupDimension)
        /// The bucket's number.
        case bucket
    }

    package var cube: RollupCube
    package var grain: RollupGrain
    /// Bucket numbers of `grain`.
    package var buckets: Range<Int64>
    /// Only these templates (the cube must have the template dimension); `nil`: all.
    package var templates: [String]?
    /// Only this event type; `nil`: both.
    package var type: AnalyticsEvent.Kind?
    package var groupBy: [GroupKey]

    package init(
        cube: RollupCube,
        grain: RollupGrain,
        buckets: Range<Int64>,
        templates: [String]? = nil,
        type: AnalyticsEvent.Kind? = nil,
        groupBy: [GroupKey] = []
    ) {
        precondition(
            templates == nil || cube.dimensions.contains(.template),
            "the \(cube) cube has no template dimension"
        )
        self.cube = cube
        self.grain = grain
        self.buckets = buckets
        self.templates = templates
        self.type = type
        self.groupBy = groupBy
    }
}

/// One row a `RollupQuery` answers.
package struct RollupRow: Sendable, Equatable {
    /// The values of the query's `groupBy`, in order, as text.
    package var keys: [String]
    package var type: String
    /// "" for displays (they have no action).
    package var action: String
    package var count: Int

    package init(keys: [String], type: String, action: String, count: Int) {
        self.keys = keys
        self.type = type
        self.action = action
        self.count = count
    }
}

/// A summary's window in whole hours (`from` rounded down, `to` up), cut into the buckets that
/// cover it with the fewest rows: whole days from the day tables, the hours before the first
/// midnight and after the last from the hour tables.
package struct SummaryWindow: Sendable, Equatable {
    /// Milliseconds since the epoch, on hour boundaries.
    package var from: Int64
    package var to: Int64

    package init(from: Int64, to: Int64) {
        let hour = RollupGrain.hour
        self.from = hour.bucket(of: from) * hour.milliseconds
        let end = hour.bucket(of: to - 1) + 1
        self.to = max(self.from, end * hour.milliseconds)
    }

    /// The ranges of buckets to read, by grain (at most three: hours, days, hours).
    package var segments: [(grain: RollupGrain, buckets: Range<Int64>)] {
        let hour = RollupGrain.hour.milliseconds
        let day = RollupGrain.day.milliseconds
        let firstMidnight = RollupGrain.day.bucket(of: from + day - 1)
        let lastMidnight = RollupGrain.day.bucket(of: to)
        guard firstMidnight < lastMidnight else {
            return from < to ? [(.hour, (from / hour)..<(to / hour))] : []
        }
        var segments: [(grain: RollupGrain, buckets: Range<Int64>)] = []
        if from < firstMidnight * day { segments.append((.hour, (from / hour)..<(firstMidnight * 24))) }
        segments.append((.day, firstMidnight..<lastMidnight))
        if lastMidnight * day < to { segments.append((.hour, (lastMidnight * 24)..<(to / hour))) }
        return segments
    }
}

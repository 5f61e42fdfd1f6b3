import EmptyStateStore

// The SQL of the rollups (`RollupCube`, `RollupDelta`), the same in SQLite and PostgreSQL: table
// and column names, the expressions that read an event row, and the statements that count.

extension RollupCube {
    /// The table that holds this cube at `grain`.
    package func table(_ grain: RollupGrain) -> String { RollupCube.table(rawValue, grain) }

    /// The table of the cube named `name` at `grain`, also for cubes of earlier releases
    /// (migrations name those).
    package static func table(_ name: String, _ grain: RollupGrain) -> String {
        "rollup_\(name.lowercased())_\(grain.rawValue)"
    }

    /// The cubes a database of an earlier release holds, by name, with their dimensions: what the
    /// migrations that created them created, whatever the cubes are now.
    package static let ofAnalyticsRelease: [(name: String, dimensions: [RollupDimension])] = [
        ("templates", [.template, .revision, .variant, .type, .action]),
        ("audience", [.template, .revision, .locale, .platform, .type, .action]),
        ("versions", [.template, .platform, .appVersion, .type, .action]),
        ("overall", [.locale, .platform, .appVersion, .type, .action]),
    ]

    /// The statements that make a cube's `grain` table searchable by template first: its key
    /// starts with the bucket, so "one template over a month" would otherwise read every
    /// template's rows of the month (a month of `audience` is hundreds of thousands of rows).
    /// None for a cube without the template dimension. The same in SQLite and PostgreSQL.
    package func templateIndexSQL(_ grain: RollupGrain) -> [String] {
        guard dimensions.contains(.template) else { return [] }
        return ["CREATE INDEX \(table(grain))_by_template ON \(table(grain)) (template_id, bucket)"]
    }

    /// The cubes that replaced `overall` (which had all their dimensions), so a migration fills
    /// them from it.
    package static let fromOverall: [RollupCube] = [.locales, .platforms, .appVersions]
}

extension RollupDimension {
    /// The column's name, in the rollup tables and in the event table.
    package var column: String {
        switch self {
        case .template: return "template_id"
        case .revision: return "revision"
        case .variant: return "variant"
        case .locale: return "locale"
        case .platform: return "platform"
        case .appVersion: return "app_version"
        case .type: return "type"
        case .action: return "action_id"
        }
    }

    /// Whether the column holds integers (the others hold text).
    package var isInteger: Bool { self == .revision }

    /// The SQL that reads this dimension from an event row, absent values made neutral (the same
    /// in SQLite and PostgreSQL).
    package var eventExpression: String {
        switch self {
        case .revision: return "COALESCE(revision, 0)"
        case .variant: return "COALESCE(variant, '')"
        case .action: return "COALESCE(action_id, '')"
        default: return column
        }
    }
}

extension RollupGrain {
    /// The SQL of an event row's bucket (`occurred_at` is never negative).
    package var eventExpression: String { "occurred_at / \(milliseconds)" }
}

extension RollupCube {
    /// The statement that adds `HourlyCounts`-shaped rows (`hour`, every dimension, `n`) of
    /// `source` (a table or a `WITH` name) to this cube's `grain` table: one upsert of every key's
    /// count, in the syntax SQLite and PostgreSQL share.
    package func countingSQL(grain: RollupGrain, fromHourlyCounts source: String) -> String {
        let table = table(grain)
        let key = ["bucket"] + dimensions.map(\.column)
        let bucket = grain == .hour ? "hour" : "hour / \(grain.hoursPerBucket)"
        let groups = (1...key.count).map(String.init).joined(separator: ", ")
        return """
            INSERT INTO \(table) (\(key.joined(separator: ", ")), n)
            SELECT \(([bucket] + dimensions.map(\.column)).joined(separator: ", ")), SUM(n) FROM \(source) WHERE true
            GROUP BY \(groups)
            ON CONFLICT (\(key.joined(separator: ", "))) DO UPDATE SET n = \(table).n + excluded.n
            """
    }
}

extension RollupDelta {
    /// Its table.
    package static let table = "rollup_delta"

    /// Its columns: the hour, every dimension, the count.
    package static var columns: [String] { ["hour"] + RollupDimension.allCases.map(\.column) + ["n"] }

    /// The rows of `source` (this table's shape) summed by hour and every dimension: what a fold
    /// adds to the cubes.
    package static func summedSQL(from source: String) -> String {
        let key = (["hour"] + RollupDimension.allCases.map(\.column)).joined(separator: ", ")
        return "SELECT \(key), SUM(n) AS n FROM \(source) GROUP BY \(key)"
    }
}

/// The events of a source counted once by hour and every dimension (absent values made neutral),
/// as rows `hour, <dimension columns>, n`: what a PostgreSQL group commit appends to
/// `rollup_delta` (SQLite's commit counts in Swift: `HourlyTally`), what the backfill counts, and
/// what `countingSQL(grain:fromHourlyCounts:)` reads.
package enum HourlyCounts {
    package static func sql(from source: String) -> String {
        let dimensions = RollupDimension.allCases
        let columns = dimensions.map { "\($0.eventExpression) AS \($0.column)" }
        let groups = (1...(dimensions.count + 1)).map(String.init).joined(separator: ", ")
        return """
            SELECT \(RollupGrain.hour.eventExpression) AS hour, \(columns.joined(separator: ", ")), COUNT(*) AS n
            FROM \(source) GROUP BY \(groups)
            """
    }
}

import EmptyStateStore

/// How a backend asks its database for a `RollupQuery`.
extension RollupQuery {
    /// A value bound to one of the SQL's `?`.
    package enum Argument: Sendable, Equatable {
        case integer(Int64)
        case text(String)
    }

    /// The SQL of the read, the same on both backends but for how an integer becomes text
    /// (`text(column)`), with `?` for `arguments`, in order. It sums the cube's rows and the
    /// deltas not folded yet (`RollupDelta`) in one statement, so one snapshot sees each count
    /// once, whether a fold runs or not. Column and table names come from fixed sets, never from
    /// input.
    package func sql(text: (String) -> String) -> String {
        // The grouping columns, read from the cube and from the deltas (whose bucket is an hour).
        var cubeColumns: [String] = []
        var deltaColumns: [String] = []
        for (position, key) in groupBy.enumerated() {
            switch key {
            case .bucket:
                cubeColumns.append("bucket AS k\(position)")
                deltaColumns.append((grain == .hour ? "hour" : "hour / \(grain.hoursPerBucket)") + " AS k\(position)")
            case .dimension(let dimension):
                cubeColumns.append("\(dimension.column) AS k\(position)")
                deltaColumns.append("\(dimension.column) AS k\(position)")
            }
        }
        func filter(_ time: String) -> String {
            var filter = "\(time) >= ? AND \(time) < ?"
            if let templates {
                filter +=
                    " AND template_id IN ("
                    + Array(repeating: "?", count: templates.count)
                    .joined(separator: ", ") + ")"
            }
            if type != nil { filter += " AND type = ?" }
            return filter
        }
        let parts = ["type", "action_id", "n"]
        let keys = groupBy.indices.map { position -> String in
            let column = "k\(position)"
            if case .dimension(let dimension) = groupBy[position], !dimension.isInteger { return column }
            return text(column)
        }
        let grouped = (keys + ["type", "action_id"]).joined(separator: ", ")
        let groups = (1...(keys.count + 2)).map(String.init).joined(separator: ", ")
        // SUM of a 64-bit integer is NUMERIC in PostgreSQL: cast back.
        return """
            SELECT \(grouped), CAST(SUM(n) AS BIGINT) FROM (
                SELECT \((cubeColumns + parts).joined(separator: ", ")) FROM \(cube.table(grain)) WHERE \(filter("bucket"))
                UNION ALL
                SELECT \((deltaColumns + parts).joined(separator: ", ")) FROM \(RollupDelta.table) WHERE \(filter("hour"))
            ) rows GROUP BY \(groups)
            """
    }

    /// The values of the SQL's `?`, in order: the cube's bounds and filters, then the deltas'.
    package var arguments: [Argument] {
        func filters(_ lower: Int64, _ upper: Int64) -> [Argument] {
            [.integer(lower), .integer(upper)] + (templates ?? []).map { .text($0) }
                + (type.map { [.text($0.rawValue)] } ?? [])
        }
        let hours = grain.hoursPerBucket
        return filters(buckets.lowerBound, buckets.upperBound)
            + filters(buckets.lowerBound * hours, buckets.upperBound * hours)
    }
}

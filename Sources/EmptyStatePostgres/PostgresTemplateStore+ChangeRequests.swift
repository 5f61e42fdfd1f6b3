import EmptyStateStore
import EmptyStateStoreSQL
import Logging
import PostgresNIO

/// Change requests on PostgreSQL: the read transaction their reads run in (what they read is
/// `CatalogueWrite`'s, written once) and the listing of their lines.
extension PostgresTemplateStore {
    package func readCatalogue<T>(_ reads: (CatalogueWrite) throws -> T) throws -> T {
        let logger = logger
        do {
            return try database.session { session in
                // One snapshot for every statement (a request and its reviews read together),
                // without the catalogue write lock: reads never wait for a writer.
                try session.run { connection in
                    try await connection.all(
                        "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY",
                        logger: logger
                    )
                }
                return try CatalogueWrite.run(on: PostgresCatalogueTransaction(session: session), reads)
            }
        } catch let error as StoreError {
            throw logged(error, "store read failed")
        }
    }

    package func changeRequests(
        _ filter: ChangeRequestFilter,
        page: Int,
        pageSize: Int
    ) throws(StoreError) -> Page<ChangeRequestSummary> {
        let logger = logger
        let (clauses, arguments) = filter.sqlConditions(.postgres)
        var bindings = PostgresBindings()
        for argument in arguments { bindings.append(argument) }
        var number = 0
        let condition =
            clauses.isEmpty
            ? ""
            : "WHERE "
                + clauses.map { clause in
                    clause.split(separator: "?", omittingEmptySubsequences: false).enumerated().map { index, part in
                        guard index > 0 else { return String(part) }
                        number += 1
                        return "$\(number)" + part
                    }.joined()
                }.joined(separator: " AND ")
        let countQuery = PostgresQuery(unsafeSQL: "SELECT COUNT(*) FROM change_request \(condition)", binds: bindings)
        let pageQuery = PostgresQuery(
            unsafeSQL: """
                SELECT \(ChangeRequestFilter.columns) FROM change_request \(condition)
                ORDER BY id DESC LIMIT \(pageSize) OFFSET \((page - 1) * pageSize)
                """,
            binds: bindings
        )
        let (total, items) = try read { client in
            let total = try await Self.count(client, countQuery, logger: logger)
            var items: [ChangeRequestSummary] = []
            for try await row in try await client.query(pageQuery, logger: logger) {
                let (id, state, title, author, createdAt, updatedAt, scheduledAt, targets, revision) = try row.decode(
                    (Int, String, String, String, String, String, Int64?, String, Int).self
                )
                items.append(
                    ChangeRequestSummary(
                        id: id,
                        state: state,
                        title: title,
                        author: author,
                        createdAt: createdAt,
                        updatedAt: updatedAt,
                        scheduledAt: scheduledAt,
                        targets: targets,
                        revision: revision
                    )
                )
            }
            return (total, items)
        }
        return Page(items: items, page: page, pageSize: pageSize, total: total)
    }
}

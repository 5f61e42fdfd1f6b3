import EmptyStateStore
import EmptyStateStoreSQL
import GRDB

/// Change requests on SQLite: the read transaction their reads run in (what they read is
/// `CatalogueWrite`'s, written once) and the listing of their lines.
extension SQLiteTemplateStore {
    package func readCatalogue<T>(_ reads: (CatalogueWrite) throws -> T) throws -> T {
        do {
            // A reader connection's transaction: one snapshot of the file (WAL), never waiting
            // for the writer.
            return try pool.read { db in try CatalogueWrite.run(on: SQLiteCatalogueTransaction(db: db), reads) }
        } catch let error as StoreError {
            throw logged(error, "store read failed")
        } catch let error as DatabaseError {
            throw logged(.from(error), "store read failed")
        }
    }

    package func changeRequests(
        _ filter: ChangeRequestFilter,
        page: Int,
        pageSize: Int
    ) throws(StoreError) -> Page<ChangeRequestSummary> {
        let (clauses, arguments) = filter.sqlConditions(.sqlite)
        let condition = clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND ")
        return try read { db in
            let total =
                try Int.fetchOne(
                    db,
                    sql: "SELECT COUNT(*) FROM change_request \(condition)",
                    arguments: StatementArguments(arguments)
                ) ?? 0
            let items = try Row.fetchAll(
                db,
                sql: """
                    SELECT \(ChangeRequestFilter.columns) FROM change_request \(condition)
                    ORDER BY id DESC LIMIT \(pageSize) OFFSET \((page - 1) * pageSize)
                    """,
                arguments: StatementArguments(arguments)
            ).map { row in
                ChangeRequestSummary(
                    id: row["id"],
                    state: row["state"] as String,
                    title: row["title"],
                    author: row["author"],
                    createdAt: row["created_at"],
                    updatedAt: row["updated_at"],
                    scheduledAt: row["scheduled_at"],
                    targets: row["targets"] as String,
                    revision: row["revision"]
                )
            }
            return Page(items: items, page: page, pageSize: pageSize, total: total)
        }
    }
}

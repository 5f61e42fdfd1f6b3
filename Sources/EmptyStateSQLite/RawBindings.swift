import GRDB
import GRDBSQLite

/// Binds values to a cached GRDB statement through SQLite's C API, for the hot inserts of the
/// group commit: `Statement.execute(arguments:)` builds a `StatementArguments` (an array of
/// existentials) for every row, which measured about half of the events' commit on the writer
/// thread, where every other request waits.
///
/// Use: `bind` every parameter of a row, then `execute()`. Values are copied by SQLite
/// (`SQLITE_TRANSIENT`), so they need not outlive the call.
struct RawBindings {
    private let statement: Statement
    private var sqlite: SQLiteStatement { statement.sqliteStatement }
    private var index: Int32 = 0
    /// The first binding SQLite refused in this row (a text past its length limit, no memory).
    private var refused: Int32 = SQLITE_OK

    /// `statement`'s bindings are cleared and GRDB's own argument check satisfied once here:
    /// from now on `execute()` runs what was bound.
    init(_ statement: Statement) {
        statement.setUncheckedArguments(StatementArguments())
        self.statement = statement
    }

    /// Starts a row: resets the statement (SQLite refuses bindings on a statement that ran).
    mutating func row() {
        sqlite3_reset(sqlite)
        index = 0
        refused = SQLITE_OK
    }

    mutating func bind(_ value: String) {
        index += 1
        var value = value
        value.withUTF8 { bytes in
            if let base = bytes.baseAddress {
                let text = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
                check(sqlite3_bind_text(sqlite, index, text, Int32(bytes.count), transient))
            } else {
                // An empty string may have no storage; SQLite would read a nil text as NULL.
                check(sqlite3_bind_text(sqlite, index, "", 0, transient))
            }
        }
    }

    mutating func bind(_ value: String?) {
        guard let value else { return bindNull() }
        bind(value)
    }

    mutating func bind(_ value: Int64) {
        index += 1
        check(sqlite3_bind_int64(sqlite, index, value))
    }

    mutating func bind(_ value: Int?) {
        guard let value else { return bindNull() }
        bind(Int64(value))
    }

    mutating func bindNull() {
        index += 1
        check(sqlite3_bind_null(sqlite, index))
    }

    /// Runs the row bound: GRDB's `execute()`, with its errors and bookkeeping.
    func execute() throws {
        precondition(index == sqlite3_bind_parameter_count(sqlite), "every parameter bound")
        guard refused == SQLITE_OK else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: refused),
                message: "SQLite refused a value bound",
                sql: statement.sql
            )
        }
        try statement.execute()
    }

    private mutating func check(_ code: Int32) {
        if code != SQLITE_OK && refused == SQLITE_OK { refused = code }
    }
}

/// SQLite's `SQLITE_TRANSIENT` (a macro Swift does not import): SQLite copies the value at once.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

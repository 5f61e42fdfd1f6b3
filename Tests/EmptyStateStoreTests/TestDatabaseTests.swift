import Foundation
import Testing

@Suite("PostgreSQL for the store suites")
struct TestDatabaseTests {
    /// Not a test of the code: of the run. A run without PostgreSQL passes the SQLite half of the
    /// store suites only; this makes that visible (a warning, and a line on standard error) and,
    /// under `EMPTY_STATE_REQUIRE_POSTGRES=1` (`make unit-test`), a failure.
    @Test("the PostgreSQL store suites ran: EMPTY_STATE_TEST_DATABASE_URL names a server that answers")
    func postgresSuitesRan() {
        guard let problem = TestDatabase.problem else { return }
        let line = String(repeating: "=", count: 100)
        FileHandle.standardError.write(
            Data("\n\(line)\n\(problem.isError ? "ERROR" : "WARNING"): \(problem.message)\n\(line)\n\n".utf8)
        )
        Issue.record(Comment(rawValue: problem.message), severity: problem.isError ? .error : .warning)
    }
}

import Foundation
import Testing

@testable import EmptyStateService

struct AdminTokensFileTests {
    /// Writes `text` to a fresh file with `mode`; returns its path.
    private func file(_ text: String, mode: mode_t = 0o600) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, mode)
        return path
    }

    private func failure(_ path: String) -> String? {
        do {
            _ = try AdminToken.load(file: path)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func readsTokensSkippingBlankLinesAndComments() throws {
        let path = try file(
            "# ops\n\nalice:editor:0123456789abcdef\r\n  bob:viewer:fedcba9876543210  \n# end\n",
            mode: 0o400
        )
        #expect(
            try AdminToken.load(file: path) == [
                AdminToken(name: "alice", role: .editor, secret: "0123456789abcdef", source: .file),
                AdminToken(name: "bob", role: .viewer, secret: "fedcba9876543210", source: .file),
            ]
        )
    }

    @Test(arguments: [0o644, 0o640, 0o604, 0o660, 0o700 | 0o001] as [mode_t])
    func refusedUnlessOwnerOnly(mode: mode_t) throws {
        let path = try file("alice:editor:0123456789abcdef\n", mode: mode)
        let octal = String(mode, radix: 8)
        #expect(failure(path)?.contains("\(path) has mode 0\(octal)") == true, "\(failure(path) ?? "accepted")")
    }

    @Test func aBadLineIsNamedByNumberWithoutItsSecret() throws {
        let secret = "0123456789abcdef-very-secret"
        for line in [
            "alice:owner:\(secret)", "alice:editor:short", ":editor:\(secret)", "no colons \(secret)",
            "al\u{1B}ice:editor:\(secret)",
        ] {
            let path = try file("# ops\nbob:viewer:fedcba9876543210\n\n\(line)\n")
            let message = try #require(failure(path))
            #expect(message.contains("\(path), line 4: not a token"), "\(message)")
            #expect(!message.contains(secret))
        }
    }

    @Test func aFileWithoutTokensOrMissingIsRefused() throws {
        #expect(failure(try file("# nothing yet\n\n"))?.contains("holds no token") == true)
        #expect(
            failure("/nonexistent/tokens")?.contains("cannot open the admin tokens file /nonexistent/tokens") == true
        )
    }
}

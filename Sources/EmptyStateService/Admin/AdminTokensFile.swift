import Dispatch
import Foundation
import Logging
import Metrics
import ServiceLifecycle
import Synchronization

/// The admin tokens file (`--admin-tokens-file`), read again while the server runs, so that
/// tokens are rotated without a restart: add the new token's line (several lines may share a
/// name), move the clients to it, remove the old line. Each change is in force within a second
/// (the file is checked every second), or at once on SIGHUP.
///
/// A file that cannot be used (unreadable, open to group or others, a line that is not a token,
/// no token at all) is refused as it is at start, but here the tokens in use stay: a typo in the
/// file never locks the admins out of a running server. The log says which, and
/// `admin_tokens_file_reloads_total{outcome}` counts both, for an alert.
///
/// The tokens given with `--admin-token` or `EMPTY_STATE_ADMIN_TOKENS` (`fixed`) stay whatever
/// the file holds. A console session ends once no token of its name and role is configured
/// (`AdminAuthorization.isConfigured`): removing the last line of a name signs its sessions out.
final class AdminTokensFile: Sendable {
    let path: String
    /// The tokens of the flags or the variable, kept beside the file's.
    let fixed: [AdminToken]
    private let tokens: ConfiguredAdminTokens
    private let logger: Logger
    private let applied: Counter
    private let refused: Counter
    /// What the file was when last read (applied or refused): it is read again when it differs.
    private let lastSeen = Mutex<FileIdentity?>(nil)

    /// What tells a changed file: a new inode (an editor's or Kubernetes' atomic replace), size,
    /// modification time, or status change time (a `chmod`: the mode is part of what is checked);
    /// `nil` when it cannot be stat'ed.
    struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: timespec
        var changed: timespec

        static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.device == rhs.device && lhs.inode == rhs.inode && lhs.size == rhs.size
                && lhs.modified.tv_sec == rhs.modified.tv_sec && lhs.modified.tv_nsec == rhs.modified.tv_nsec
                && lhs.changed.tv_sec == rhs.changed.tv_sec && lhs.changed.tv_nsec == rhs.changed.tv_nsec
        }
    }

    /// - Parameter tokens: where the authorization reads its configured tokens; set here on
    ///   every applied reload to `fixed` plus the file's.
    init(path: String, fixed: [AdminToken], tokens: ConfiguredAdminTokens, metrics: ServiceMetrics, logger: Logger) {
        self.path = path
        self.fixed = fixed
        self.tokens = tokens
        self.logger = logger
        applied = metrics.adminTokensFileReloads("applied")
        refused = metrics.adminTokensFileReloads("refused")
        lastSeen.withLock { $0 = Self.identity(of: path) }  // read at start, with the rest of the configuration
    }

    static func identity(of path: String) -> FileIdentity? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return FileIdentity(
            device: UInt64(status.st_dev),
            inode: UInt64(status.st_ino),
            size: Int64(status.st_size),
            modified: status.st_mtim,
            changed: status.st_ctim
        )
    }

    /// Reads the file again when it changed since it was last read.
    func reloadIfChanged() {
        let now = Self.identity(of: path)
        guard now != lastSeen.withLock({ $0 }) else { return }
        reload(trigger: "changed", identity: now)
    }

    /// Reads the file again (SIGHUP), changed or not.
    func reload(trigger: String = "SIGHUP") {
        reload(trigger: trigger, identity: Self.identity(of: path))
    }

    private func reload(trigger: String, identity: FileIdentity?) {
        lastSeen.withLock { $0 = identity }
        do {
            let loaded = try AdminToken.load(file: path)
            tokens.set(fixed + loaded)
            applied.increment()
            logger.notice(
                "admin tokens file read again",
                metadata: [
                    "admin.token_file": "\(path)", "admin.reload_trigger": "\(trigger)",
                    "admin.tokens": "\((fixed + loaded).map { "\($0.name):\($0.role.rawValue)" })",
                ]
            )
        } catch {
            refused.increment()
            logger.error(
                "admin tokens file refused; the tokens in use are unchanged",
                metadata: [
                    "admin.token_file": "\(path)", "admin.reload_trigger": "\(trigger)", "error": "\(error)",
                ]
            )
        }
    }
}

/// The configured admin tokens, shared by every copy of an `AdminAuthorization` (the admin and
/// analytics routes each hold one) and replaced whole when the tokens file is read again.
final class ConfiguredAdminTokens: Sendable {
    private let tokens: Mutex<[AdminToken]>

    init(_ tokens: [AdminToken]) { self.tokens = Mutex(tokens) }

    var current: [AdminToken] { tokens.withLock { $0 } }

    func set(_ tokens: [AdminToken]) { self.tokens.withLock { $0 = tokens } }
}

/// Checks the tokens file every second and reads it again on SIGHUP, on a queue of its own (one
/// reload at a time), for the application's life.
struct AdminTokensFileWatch: Service {
    let file: AdminTokensFile
    let step: Int
    let sequence: StartSequence

    func run() async throws {
        await sequence.waitForTurn(step)
        let queue = DispatchQueue(label: "admin-tokens-file", qos: .utility)
        // SIGHUP's default action ends the process; a dispatch source needs it ignored first.
        signal(SIGHUP, SIG_IGN)
        let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: queue)
        let file = file
        hangup.setEventHandler { file.reload() }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { file.reloadIfChanged() }
        timer.schedule(deadline: .now() + .seconds(1), repeating: .seconds(1), leeway: .milliseconds(100))
        hangup.resume()
        timer.resume()
        sequence.finished(step)
        try? await gracefulShutdown()
        let sources = Sources(hangup: hangup, timer: timer)
        await Lifecycle.offPool("stop-admin-tokens-file") {
            sources.hangup.cancel()
            sources.timer.cancel()
            queue.sync {}  // a reload in progress ends first
        }
    }

    /// The dispatch sources crossing to the stopping thread; dispatch sources are thread-safe.
    private struct Sources: @unchecked Sendable {
        let hangup: any DispatchSourceSignal
        let timer: any DispatchSourceTimer
    }
}

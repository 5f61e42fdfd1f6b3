import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The server as a child process, its standard error collected for the port and for failures.
final class ServerProcess {
    private let process = Process()
    private let standardError = Pipe()
    private var collected: [UInt8] = []

    var log: String { String(decoding: collected, as: UTF8.self) }

    init(binary: URL, arguments: [String]) throws {
        process.executableURL = binary
        process.arguments = arguments
        process.standardError = standardError
        process.standardOutput = FileHandle.nullDevice
        try process.run()
    }

    /// Reads standard error until the `listening` line names `http.port=<N>`.
    /// - Throws: when the line does not come within `timeout` or the process ends first.
    func waitForPort(timeout: Duration) throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let port = parsePort() { return port }
            guard readStandardError(until: deadline) else { break }
        }
        if let port = parsePort() { return port }
        throw RawHTTPError(description: "no http.port=<N> on standard error within \(timeout); log:\n\(log)")
    }

    private func parsePort() -> Int? {
        for line in log.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            guard let range = line.range(of: "http.port=") else { continue }
            let digits = line[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
            if let port = Int(digits) { return port }
        }
        return nil
    }

    /// Appends what standard error has to `log`; `false` at end of file or at the deadline.
    @discardableResult
    private func readStandardError(until deadline: ContinuousClock.Instant) -> Bool {
        let descriptor = standardError.fileHandleForReading.fileDescriptor
        let remaining = max(0, (deadline - ContinuousClock.now).milliseconds)
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&entry, 1, Int32(min(remaining, 1000))) == 1 else { return ContinuousClock.now < deadline }
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return false }
        collected += chunk[..<count]
        return true
    }

    func terminate() {
        Foundation.kill(process.processIdentifier, SIGTERM)
    }

    /// The exit status, or `nil` when the process is still running after `timeout` (or was signalled).
    func waitForExit(timeout: Duration) -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline {
            readStandardError(until: ContinuousClock.now + .milliseconds(50))
        }
        guard !process.isRunning else { return nil }
        // Lets Foundation observe the exit: until then the run loop source of `run()` and the
        // process retain each other, and the process, its pipe and its arguments leak.
        process.waitUntilExit()
        while readStandardError(until: ContinuousClock.now + .milliseconds(200)) {}
        return process.terminationReason == .exit ? process.terminationStatus : nil
    }

    /// Kills the process if it is still running (a failed test must not leave it behind).
    func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

extension Duration {
    fileprivate var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

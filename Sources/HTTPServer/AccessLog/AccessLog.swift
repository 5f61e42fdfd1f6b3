import CMicroHTTPD
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A buffered access log, like nginx's `access_log … buffer=`: one line per answered request,
/// formatted into a buffer of the answering thread's own and written by a background thread.
///
/// - **Buffers.** Each thread that logs gets `buffersPerThread` buffers of `bufferSize` bytes on
///   its first line: one it fills, the others spare or waiting to be written. A line is formatted
///   straight into the one being filled (`AccessLogFormatter`), under a lock of that thread's own
///   that only the writer ever contends, for the moment it takes to swap a buffer.
/// - **Writer.** A thread that wakes when a buffer fills, and every `flushInterval` to take the
///   lines of buffers that are not full; it hands each buffer to the sink (standard error: whole
///   lines per `write(2)`, so lines never interleave with swift-log's) and gives it back.
/// - **Drops.** A request never waits on the log: a line that finds its thread's buffers all full
///   or waiting to be written is dropped and counted (`droppedLines`, in `/metrics`).
/// - **Shutdown.** `stop()` writes every line logged before it was called, then ends the writer.
package final class AccessLog: Sendable {
    /// Receives a buffer of whole lines; returns how many of its bytes it wrote (the lines it did
    /// not write are counted as dropped).
    package typealias Sink = @Sendable (UnsafeRawBufferPointer) -> Int

    package let format: AccessLogFormat
    let bufferSize: Int
    let buffersPerThread: Int
    let flushInterval: Duration
    private let sink: Sink
    /// Tags this log's pointer in each thread's `CMicroHTTPD_ThreadSlot`; never reused.
    private let id = AccessLog.nextID.wrappingAdd(1, ordering: .relaxed).newValue
    private static let nextID = Atomic<UInt64>(0)
    /// Every thread's buffers; appended to when a thread logs its first line.
    private let producers = Mutex<[Producer]>([])
    private let dropped = Atomic<Int>(0)
    private let wake = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)

    /// - Parameters:
    ///   - bufferSize: bytes per buffer (at least 16 KiB: a line with every field at its limit fits).
    ///   - buffersPerThread: buffers per logging thread, at least 2.
    ///   - sink: where the lines go; standard error when `nil`.
    package init(
        format: AccessLogFormat,
        bufferSize: Int = 256 * 1024,
        buffersPerThread: Int = 4,
        flushInterval: Duration = .milliseconds(100),
        sink: Sink? = nil
    ) {
        precondition(bufferSize >= 16 * 1024 && buffersPerThread >= 2)
        self.format = format
        self.bufferSize = bufferSize
        self.buffersPerThread = buffersPerThread
        self.flushInterval = flushInterval
        self.sink = sink ?? AccessLog.standardError()
    }

    /// Lines dropped because the writer was behind (or standard error refused them), since start.
    package var droppedLines: Int { dropped.load(ordering: .relaxed) }

    /// Starts the writer thread. Lines logged before are kept, and written once it runs.
    package func start() {
        guard !started.exchange(true, ordering: .relaxed) else { return }
        Thread { [self] in run() }.start()
    }

    /// Writes every line logged so far, then stops the writer; lines logged afterwards stay in
    /// their buffers (and are dropped once those are full).
    package func stop() {
        guard started.load(ordering: .relaxed), !stopping.exchange(true, ordering: .acquiringAndReleasing) else {
            return
        }
        wake.signal()
        finished.wait()
    }

    /// Logs one line for `entry`, from the calling thread's buffer. Never blocks on the writer.
    func log(_ entry: AccessLogEntry) {
        let producer = currentProducer()
        var signal = false
        producer.state.withLock { state in
            if state.append(entry, format: format, capacity: bufferSize) { return }
            // The line did not fit: hand the buffer to the writer and start a spare one.
            guard state.length > 0, let spare = state.spare.popLast() else {
                dropped.add(1, ordering: .relaxed)
                return
            }
            state.full.append((state.current, state.length))
            state.current = spare
            state.length = 0
            signal = true
            if !state.append(entry, format: format, capacity: bufferSize) { dropped.add(1, ordering: .relaxed) }
        }
        if signal { wake.signal() }
    }

    /// The calling thread's buffers, made on its first line.
    private func currentProducer() -> Producer {
        let slot = CMicroHTTPD_threadSlot()!
        if slot.pointee.owner == id, let value = slot.pointee.value {
            return Unmanaged<Producer>.fromOpaque(value).takeUnretainedValue()
        }
        let producer = Producer(bufferSize: bufferSize, count: buffersPerThread)
        producers.withLock { $0.append(producer) }
        slot.pointee.owner = id
        slot.pointee.value = Unmanaged.passUnretained(producer).toOpaque()
        return producer
    }

    /// The writer: waits for a full buffer or the flush interval, writes what it takes, repeats;
    /// once stopping, goes on until a pass finds nothing to write.
    private func run() {
        // Named for `top -H` and /proc (Foundation's `Thread.name` does not reach the kernel here).
        CMicroHTTPD_nameThread("access-log")
        var lastFlush = ContinuousClock.now
        while true {
            let nanoseconds =
                flushInterval.components.seconds * 1_000_000_000
                + flushInterval.components.attoseconds / 1_000_000_000
            let timedOut = wake.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .timedOut
            let isStopping = stopping.load(ordering: .acquiring)
            let now = ContinuousClock.now
            let flushAll = isStopping || timedOut || now - lastFlush >= flushInterval
            if flushAll { lastFlush = now }
            var wrote = writePending(flushAll: flushAll)
            if isStopping {
                while wrote { wrote = writePending(flushAll: true) }
                finished.signal()
                return
            }
        }
    }

    /// Takes every producer's full buffers (and, with `flushAll`, the lines of its current one),
    /// writes them and gives the buffers back.
    /// - Returns: whether there was anything to write.
    private func writePending(flushAll: Bool) -> Bool {
        let producers = producers.withLock { $0 }
        var wroteAny = false
        for producer in producers {
            let taken = producer.state.withLock { state in state.take(flushAll: flushAll) }
            guard !taken.isEmpty else { continue }
            wroteAny = true
            for (buffer, length) in taken {
                let bytes = UnsafeRawBufferPointer(start: buffer, count: length)
                let written = sink(bytes)
                if written < length {
                    let lost = bytes[max(0, written)...].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
                    dropped.add(lost, ordering: .relaxed)
                }
            }
            producer.state.withLock { state in state.spare.append(contentsOf: taken.map(\.0)) }
        }
        return wroteAny
    }

    /// A sink writing to standard error: whole lines per `write(2)`, at most `PIPE_BUF` bytes per
    /// call to a pipe or socket (where a longer write may interleave with another process's or
    /// swift-log's), the whole buffer at once to a file.
    static func standardError() -> Sink {
        var status = stat()
        let isFile = fstat(STDERR_FILENO, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
        let chunk = isFile ? Int.max : Int(PIPE_BUF)
        return { bytes in
            guard let base = bytes.baseAddress else { return 0 }
            var offset = 0
            while offset < bytes.count {
                var end = bytes.count
                if end - offset > chunk {
                    // The last line end within the chunk; a longer line goes alone, whole.
                    let window = UnsafeRawBufferPointer(start: base + offset, count: chunk)
                    if let last = window.lastIndex(of: 0x0A) {
                        end = offset + last + 1
                    } else if let next = bytes[(offset + chunk)...].firstIndex(of: 0x0A) {
                        end = next + 1
                    }
                }
                var position = offset
                while position < end {
                    let result = write(STDERR_FILENO, base + position, end - position)
                    if result < 0 {
                        if errno == EINTR { continue }
                        return position
                    }
                    position += result
                }
                offset = end
            }
            return offset
        }
    }
}

/// One thread's buffers, and its date cache.
private final class Producer: Sendable {
    let state: Mutex<ProducerState>

    init(bufferSize: Int, count: Int) {
        var spare: [UnsafeMutablePointer<UInt8>] = []
        spare.reserveCapacity(count)
        for _ in 1..<count { spare.append(.allocate(capacity: bufferSize)) }
        var full: [(UnsafeMutablePointer<UInt8>, Int)] = []
        full.reserveCapacity(count)
        state = Mutex(
            ProducerState(current: .allocate(capacity: bufferSize), spare: spare, full: full)
        )
    }

    deinit {
        // The writer has stopped (it holds the log, which holds this) and gave every buffer back.
        state.withLock { state in
            state.current.deallocate()
            for buffer in state.spare { buffer.deallocate() }
            for (buffer, _) in state.full { buffer.deallocate() }
        }
    }
}

/// What a thread's lock guards: the buffer being filled, the spare ones, and the full ones
/// waiting for the writer (every buffer is in exactly one of these places, or being written).
private struct ProducerState: @unchecked Sendable {
    var current: UnsafeMutablePointer<UInt8>
    var length = 0
    var spare: [UnsafeMutablePointer<UInt8>]
    var full: [(UnsafeMutablePointer<UInt8>, Int)]
    var dates = AccessLogDateCache()

    init(
        current: UnsafeMutablePointer<UInt8>,
        spare: [UnsafeMutablePointer<UInt8>],
        full: [(UnsafeMutablePointer<UInt8>, Int)]
    ) {
        self.current = current
        self.spare = spare
        self.full = full
    }

    /// Formats `entry` after the lines in `current`; `false` (and nothing written) when it does
    /// not fit.
    mutating func append(_ entry: AccessLogEntry, format: AccessLogFormat, capacity: Int) -> Bool {
        var writer = AccessLogLineWriter(base: current + length, capacity: capacity - length)
        AccessLogFormatter.write(entry, format: format, dates: &dates, into: &writer)
        guard !writer.overflow else { return false }
        length += writer.count
        return true
    }

    /// The full buffers, and with `flushAll` the current one when it holds lines and a spare can
    /// replace it.
    mutating func take(flushAll: Bool) -> [(UnsafeMutablePointer<UInt8>, Int)] {
        if flushAll, length > 0, let spare = spare.popLast() {
            full.append((current, length))
            current = spare
            length = 0
        }
        guard !full.isEmpty else { return [] }
        defer { full.removeAll(keepingCapacity: true) }
        return full
    }
}

extension AccessLog {
    /// Logs the answer to the request on `connection`, on its MHD thread (its headers and query
    /// arguments are read from the connection; nothing is copied first).
    /// - Parameter target: the path and query fields written already (a remembered answer's,
    ///   `ResponseMemo.Entry.logTarget`); empty to write them from `path` and the connection.
    func log(
        connection: OpaquePointer,
        requestID: UnsafePointer<CChar>,
        method: UnsafePointer<CChar>,
        path: UnsafePointer<CChar>,
        status: Int,
        responseBytes: Int,
        nanoseconds: Int64,
        target: [UInt8] = []
    ) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var userAgentCount: UInt32 = 0
        let userAgent = CMicroHTTPD_headerValue(connection, "User-Agent", &userAgentCount)
        // INET6_ADDRSTRLEN is 46.
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 48) { address in
            let known = CMicroHTTPD_clientAddress(connection, address.baseAddress, 48) == 0
            target.withUnsafeBufferPointer { target in
                log(
                    AccessLogEntry(
                        seconds: now.tv_sec,
                        milliseconds: now.tv_nsec / 1_000_000,
                        requestID: Self.bytes(requestID),
                        method: Self.bytes(method),
                        path: Self.bytes(path),
                        query: .arguments(connection),
                        status: status,
                        responseBytes: responseBytes,
                        nanoseconds: nanoseconds,
                        clientAddress: known
                            ? Self.bytes(address.baseAddress!) : UnsafeBufferPointer(start: nil, count: 0),
                        userAgent: userAgent.map(Self.bytes),
                        target: target.isEmpty ? nil : target
                    )
                )
            }
        }
    }

    /// The bytes of a C string, without its NUL.
    private static func bytes(_ text: UnsafePointer<CChar>) -> UnsafeBufferPointer<UInt8> {
        UnsafeRawPointer(text).withMemoryRebound(to: UInt8.self, capacity: 1) { start in
            UnsafeBufferPointer(start: start, count: strlen(text))
        }
    }
}

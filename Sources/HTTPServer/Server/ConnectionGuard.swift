import CMicroHTTPD
import Dispatch
import Foundation
import Logging
import Synchronization

/// Cuts off clients that send a request's line and headers too slowly, and makes room near the
/// connection limit by closing the connections that have waited longest for a request.
///
/// libmicrohttpd 0.9.75 only has an idle timeout, which every received byte resets: 1,100
/// clients sending one header byte every 3 s held all 1,024 connections forever, and a normal
/// client waited in the kernel's backlog until it gave up. The guard keeps, per connection, since
/// when it waits for a request's head (see `CMicroHTTPD_Guard` in connection_guard.c); a thread of its own
/// sweeps that list every `intervalSeconds`:
/// - a connection whose request's head has been arriving longer than `headerTimeout` is closed
///   (from the connection's start for its first request, from the first bytes seen after the
///   previous answer for the next ones);
/// - a keep-alive connection on which nothing has arrived for `idleTimeout` after its previous
///   answer is closed (libmicrohttpd's own timeout, set to the same, would close it too);
/// - while more than 90 % of `maxConnections` are open, connections that have waited at least
///   `shedAfter` are closed, longest-waiting first, until 80 % remain. Connections whose request
///   is being handled are never closed by the guard.
final class ConnectionGuard: @unchecked Sendable {
    // Unchecked: `pointer` is the C guard, which locks itself; the thread is started and joined
    // by `HTTPServer.start()` and `shutdown()` alone.

    /// How often the list is swept, in seconds.
    static let intervalSeconds = 0.2
    /// How long a connection must have waited before it may be closed to make room: a client
    /// that just connected gets the time to send its request.
    static let shedAfter: Duration = .seconds(1)

    let pointer: OpaquePointer
    private let headerTimeout: Duration
    private let idleTimeout: Duration
    private let shedAbove: UInt32
    private let shedTo: UInt32
    private let logger: Logger
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    /// Connections closed because their head was late, to make room, and because their query's
    /// arguments would not fit in the connection's memory (answered and ended by the URI
    /// callback; counted here).
    let timedOut = Atomic<Int>(0)
    let shed = Atomic<Int>(0)
    let argumentsOverflow = Atomic<Int>(0)

    /// - Parameters:
    ///   - maxArguments, memoryLimit: what the C guard also holds for the URI callback (see
    ///     `CMicroHTTPD_tooManyArgumentsMarker` and `CMicroHTTPD_argumentsFit`).
    init?(
        headerTimeout: Int,
        idleTimeout: Int,
        maxConnections: Int,
        maxArguments: Int,
        memoryLimit: Int,
        logger: Logger
    ) {
        guard let pointer = CMicroHTTPD_guardCreate(UInt32(maxArguments), memoryLimit) else { return nil }
        self.pointer = pointer
        self.headerTimeout = .seconds(headerTimeout)
        self.idleTimeout = .seconds(idleTimeout)
        shedAbove = UInt32(maxConnections * 9 / 10)
        shedTo = UInt32(maxConnections * 8 / 10)
        self.logger = logger
    }

    deinit {
        CMicroHTTPD_guardDestroy(pointer)
    }

    /// Starts the sweeping thread.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "http-connection-guard"
        thread.start()
    }

    /// Stops the sweeping thread and waits for it to end.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        finished.wait()
    }

    private func run() {
        var unreported = (timedOut: 0, shed: 0, argumentsOverflow: 0)
        var lastReport = ContinuousClock.now - .seconds(10)  // the first closing is reported at once
        while !stopping.load(ordering: .relaxed) {
            let result = CMicroHTTPD_guardSweep(
                pointer,
                CMicroHTTPD_monotonicNanoseconds(),
                Self.nanoseconds(headerTimeout),
                Self.nanoseconds(idleTimeout),
                Self.nanoseconds(Self.shedAfter),
                shedAbove,
                shedTo
            )
            // Idle keep-alive connections closed on time (`result.idle`) are the normal end of a
            // connection: neither counted nor logged.
            if result.timedOut > 0 || result.shed > 0 || result.argumentsOverflow > 0 {
                timedOut.add(Int(result.timedOut), ordering: .relaxed)
                shed.add(Int(result.shed), ordering: .relaxed)
                argumentsOverflow.add(Int(result.argumentsOverflow), ordering: .relaxed)
                unreported.timedOut += Int(result.timedOut)
                unreported.shed += Int(result.shed)
                unreported.argumentsOverflow += Int(result.argumentsOverflow)
            }
            // One line every 10 s at most: under attack a line per sweep would flood the log.
            if unreported != (0, 0, 0), ContinuousClock.now - lastReport >= .seconds(10) {
                logger.warning(
                    "closed connections waiting for a request",
                    metadata: [
                        "http.connections_header_timeout": "\(unreported.timedOut)",
                        "http.connections_shed": "\(unreported.shed)",
                        // Answered 400 by the URI callback and ended: the query's arguments would
                        // not have left room for an answer in --header-memory-limit.
                        "http.connections_query_too_large": "\(unreported.argumentsOverflow)",
                        "http.open_connections": "\(result.open)",
                        "http.waiting_connections": "\(result.waiting)",
                        "http.header_timeout_s": "\(headerTimeout.components.seconds)",
                    ]
                )
                unreported = (0, 0, 0)
                lastReport = .now
            }
            Thread.sleep(forTimeInterval: Self.intervalSeconds)
        }
        finished.signal()
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

import CMicroHTTPD
import Synchronization

/// The requests whose connection is suspended while a blocking or background handler runs for
/// them, so that shutdown can answer or finish every one before it stops libmicrohttpd (which
/// aborts the process when stopped with a connection still suspended).
///
/// Each request's `UploadState.claim` decides who answers it, once: the worker that runs its
/// handler (`.running`) or shutdown, which answers 503 to a request whose handler has not started
/// (`.cancelled`), so that no write is carried out after its client was told it was not.
final class SuspendedRequests: Sendable {
    /// Who answers an offloaded request.
    enum Claim: UInt8, AtomicRepresentable {
        /// Waiting on a worker queue.
        case queued
        /// Its handler runs; the worker resumes the connection when it is done.
        case running
        /// Answered by shutdown; the handler must not run.
        case cancelled
    }

    private struct State {
        var entries: [ObjectIdentifier: (state: UploadState, connection: SuspendedConnection)] = [:]
        var closed = false
    }

    private let state = Mutex(State())

    /// Records a suspended request; `false` once shutdown has closed the registry (the caller
    /// then answers the request itself).
    func register(_ upload: UploadState, connection: OpaquePointer) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.entries[ObjectIdentifier(upload)] = (upload, SuspendedConnection(pointer: connection))
            return true
        }
    }

    /// Forgets a request whose connection its worker has resumed.
    func remove(_ upload: UploadState) {
        state.withLock { _ = $0.entries.removeValue(forKey: ObjectIdentifier(upload)) }
    }

    /// Whether any request is still suspended.
    var isEmpty: Bool {
        state.withLock { $0.entries.isEmpty }
    }

    /// Closes the registry to new requests and answers every request whose handler has not
    /// started with `answer` (the connection is resumed to send it).
    /// - Returns: how many were answered so, and how many handlers still run.
    func cancelQueued(answer: (UploadState) -> HTTPResponse) -> (cancelled: Int, running: Int) {
        let waiting = state.withLock { state in
            state.closed = true
            return Array(state.entries.values)
        }
        var cancelled = 0
        for (upload, connection) in waiting
        where upload.claim.compareExchange(expected: .queued, desired: .cancelled, ordering: .acquiringAndReleasing)
            .exchanged
        {
            upload.pending = answer(upload)
            // The entry goes before the resume: once resumed, the request may complete and its
            // state be reused by MHD for the next one.
            remove(upload)
            MHD_resume_connection(connection.pointer)
            cancelled += 1
        }
        return (cancelled, waiting.count - cancelled)
    }
}

/// A connection handed to a worker thread; only used to resume it.
struct SuspendedConnection: @unchecked Sendable {
    let pointer: OpaquePointer
}

import HTTPServer
import Synchronization
import ZlibCompression

// The bytes behind a representation: made once by the first thread that asks, and the gzip
// state machine (not asked, pending in the background, done) that compresses them on demand.

extension CatalogueSnapshot {
    /// Bytes made once, by whichever thread asks first (others wait for them).
    final class LazyBytes: Sendable {
        private let state: Mutex<SharedBytes?>
        private let make: (@Sendable () -> [UInt8])?

        init(_ bytes: SharedBytes) {
            state = Mutex(bytes)
            make = nil
        }

        init(make: @escaping @Sendable () -> [UInt8]) {
            state = Mutex(nil)
            self.make = make
        }

        var bytes: SharedBytes {
            state.withLock { state in
                if let known = state { return known }
                let made = SharedBytes(make!())
                state = made
                return made
            }
        }
    }

    /// Gzip bytes made once: on the asking thread when the body is small (a template, or the
    /// bundle of a small catalogue: well under a millisecond), by `compressor` otherwise (a bundle
    /// of 10,000 templates is megabytes: tens of milliseconds no request should wait).
    final class CompressedBody: Sendable {
        private enum State {
            case notAsked
            case pending
            /// `nil`: compression does not help.
            case done(SharedBytes?)
        }

        private let inBackground: Bool
        private let state = Mutex<State>(.notAsked)

        init(inBackground: Bool) {
            self.inBackground = inBackground
        }

        var isPending: Bool {
            state.withLock { if case .done = $0 { return false } else { return true } }
        }

        /// Bodies up to this size are compressed on the asking thread.
        static let inlineLimit = 256 * 1024

        func bytes(of body: LazyBytes) -> SharedBytes? {
            if !inBackground || body.bytes.count <= Self.inlineLimit {
                return state.withLock { state in
                    if case .done(let known) = state { return known }
                    let result = Self.compress(body.bytes)
                    state = .done(result)
                    return result
                }
            }
            let start = state.withLock { state -> Bool in
                guard case .notAsked = state else { return false }
                state = .pending
                return true
            }
            if start {
                CatalogueSnapshot.compressor.submit { [self] in
                    let result = Self.compress(body.bytes)
                    state.withLock { $0 = .done(result) }
                }
                return nil
            }
            return state.withLock { state in
                if case .done(let known) = state { return known }
                return nil
            }
        }

        private static func compress(_ body: SharedBytes) -> SharedBytes? {
            let plain = body.array
            return Gzip.compress(plain).flatMap { $0.count < plain.count ? SharedBytes($0) : nil }
        }
    }

    /// Where bundles are assembled and compressed off the request path: one thread at the lowest
    /// priority, so this work only takes CPU that serving leaves idle.
    static let compressor = LowPriorityWorkers(threads: 1, label: "catalogue-gzip")
}

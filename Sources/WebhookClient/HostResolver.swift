import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Resolves a receiver's host name with the system's resolver (`getaddrinfo`: `/etc/hosts`, then
/// DNS, as every other program on the host), into the addresses the guard checks and a delivery
/// connects to. `getaddrinfo` blocks, and has no timeout of its own beyond the resolver's: it
/// runs on a dispatch queue, never on a thread of Swift concurrency's pool or an event loop.
package enum HostResolver {
    private static let queue = DispatchQueue(label: "webhook-resolver", attributes: .concurrent)

    /// Every distinct address `host` resolves to, in the resolver's order.
    /// - Returns: the addresses, or why there are none (said for a delivery log).
    package static func resolve(_ host: String) async -> Result<[IPAddress], WebhookURL.Refusal> {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: resolveBlocking(host)) }
        }
    }

    /// `resolve(_:)` waited for at most `limit`: `nil` when the resolver did not answer in time
    /// (its thread finishes on its own). A resolver that hangs must not stretch an attempt past
    /// its total timeout.
    package static func resolve(_ host: String, limit: Duration) async -> Result<[IPAddress], WebhookURL.Refusal>? {
        let once = Once()
        return await withCheckedContinuation { continuation in
            let finish: @Sendable (Result<[IPAddress], WebhookURL.Refusal>?) -> Void = { result in
                if once.first() { continuation.resume(returning: result) }
            }
            queue.async { finish(resolveBlocking(host)) }
            let nanoseconds = limit.components.seconds * 1_000_000_000 + limit.components.attoseconds / 1_000_000_000
            queue.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { finish(nil) }
        }
    }

    /// True for the first caller only: the answer and the time limit race to resume once.
    private final class Once: Sendable {
        private let done = Mutex(false)

        func first() -> Bool {
            done.withLock { done in
                defer { done = true }
                return !done
            }
        }
    }

    /// `resolve(_:)` waited for at most `limit`, from a thread that may block (an admin handler's
    /// worker); `nil` when the resolver did not answer in time (its thread finishes on its own).
    package static func resolve(_ host: String, within limit: Duration) -> Result<[IPAddress], WebhookURL.Refusal>? {
        let answer = Mutex<Result<[IPAddress], WebhookURL.Refusal>?>(nil)
        let done = DispatchSemaphore(value: 0)
        queue.async {
            let result = resolveBlocking(host)
            answer.withLock { $0 = result }
            done.signal()
        }
        let nanoseconds = limit.components.seconds * 1_000_000_000 + limit.components.attoseconds / 1_000_000_000
        guard done.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .success else { return nil }
        return answer.withLock { $0 }
    }

    /// `getaddrinfo` for TCP, any family, deduplicated.
    package static func resolveBlocking(_ host: String) -> Result<[IPAddress], WebhookURL.Refusal> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            let reason = String(cString: gai_strerror(status))
            return .failure(.init("\(host) does not resolve: \(reason)"))
        }
        defer { freeaddrinfo(first) }
        var addresses: [IPAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            if let socketAddress = current.pointee.ai_addr, let address = IPAddress(socketAddress),
                !addresses.contains(address)
            {
                addresses.append(address)
            }
            entry = current.pointee.ai_next
        }
        guard !addresses.isEmpty else { return .failure(.init("\(host) resolves to no IPv4 or IPv6 address")) }
        return .success(addresses)
    }
}

// Background revalidation: a stale copy served from the cache is asked for again with
// `If-None-Match`, once per key at a time, by `run()`.

extension EmptyStateClient {
    /// A stale copy to revalidate: the key and what to ask for.
    struct Revalidation: Sendable {
        var key: String
        var id: String
        var parameters: [String: String]
    }

    func requestRevalidation(_ revalidation: Revalidation) {
        guard pendingRevalidations.withLock({ $0.insert(revalidation.key).inserted }) else { return }
        revalidationRequests.yield(revalidation)
    }

    func revalidate(_ revalidation: Revalidation) async {
        defer { _ = pendingRevalidations.withLock { $0.remove(revalidation.key) } }
        _ = try? await fetch(
            revalidation.id,
            parameters: revalidation.parameters,
            key: revalidation.key,
            cached: cache.entry(revalidation.key)
        )
    }

    /// Returns when no background revalidation is waiting or under way.
    func waitForRevalidations() async {
        while !pendingRevalidations.withLock({ $0.isEmpty }) {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}

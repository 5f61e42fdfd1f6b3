import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Prepared answers remembered by the request they answered, so that the same request again is
/// answered without parsing, routing or running its handler.
///
/// Only routes registered with `Router.get(_:memoizedVaryingOn:_:)` are remembered, and only
/// when their handler answers with a `PreparedResponse`. Such a handler's answer depends on
/// nothing but the method, the URL with its query, the headers its route declared (the only ones
/// it can read: `MemoizedRequest`), and state whose every change the application reports with
/// `invalidate()`, or with `invalidate(tags:)` naming what changed (each answer is remembered
/// under the tag its handler gives, `memoTag`). The key is all of those, byte for byte as they
/// arrived (see `CMicroHTTPD_requestKey`; the server names the headers: every one a memoized
/// route of its router declared), and keys are compared whole: a request
/// that differs in any of them, even in how its query is spelled, is a different key. The
/// `X-Request-ID` of each answer is still the request's own (the server lends the prepared
/// response as usual), and every answer is logged and observed like any other.
///
/// A lookup and an insert each hold one lock briefly. At most `capacity` answers are remembered;
/// when full, all are forgotten, so many distinct URLs cost churn, not memory.
package final class ResponseMemo: Sendable {
    /// Longest key remembered; a longer request is answered the ordinary way.
    static let maximumKeyLength = 1024

    /// How many answers are kept at most.
    package let capacity: Int
    private let seed = UInt64.random(in: .min ... .max)
    private let table: Mutex<Table>

    /// - Parameter capacity: answers kept at most; above 0.
    package init(capacity: Int) {
        precondition(capacity > 0, "a memo holds at least one answer")
        self.capacity = capacity
        table = Mutex(Table(capacity: capacity))
    }

    /// Forgets every answer: call it once what a memoized handler answers from has changed.
    /// An answer being computed from the old state meanwhile is not remembered afterwards.
    package func invalidate() {
        table.withLock { table in
            table.generation &+= 1
            table.removeAll()
        }
    }

    /// Forgets the answers remembered under any of `tags`: call it once what those answers were
    /// made from has changed. An answer tagged with another type of tag is kept whatever it
    /// holds. Any answer being computed meanwhile is not remembered.
    package func invalidate<Tag: MemoTag>(tags: Set<Tag>) {
        table.withLock { table in
            table.generation &+= 1
            table.removeAll { entry in (entry.tag as? Tag).map(tags.contains) ?? false }
        }
    }

    /// How many answers are remembered now.
    package var count: Int {
        table.withLock { $0.count }
    }

    /// A remembered answer, and what the observer is told about it.
    final class Entry: Sendable {
        let key: [UInt8]
        let hash: UInt64
        let answer: PreparedResponse
        let route: String
        let method: HTTPMethod
        /// What the answer was made from (see `invalidate(tags:)`).
        let tag: any MemoTag
        /// The path and query fields of the access-log line of every request this answers (they
        /// are part of the key), written once (`AccessLogFormatter.target`); empty without an
        /// access log.
        let logTarget: [UInt8]

        init(
            key: [UInt8],
            hash: UInt64,
            answer: PreparedResponse,
            route: String,
            method: HTTPMethod,
            tag: any MemoTag,
            logTarget: [UInt8] = []
        ) {
            self.key = key
            self.hash = hash
            self.answer = answer
            self.route = route
            self.method = method
            self.tag = tag
            self.logTarget = logTarget
        }
    }

    /// One request's key, valid inside `withKey`.
    struct Key {
        let bytes: UnsafeRawBufferPointer
        let hash: UInt64
    }

    /// What looking a key up gave.
    enum Lookup {
        case hit(Entry)
        /// Not remembered; `generation` is what `remember` must be given.
        case miss(generation: UInt64)
    }

    /// What one pass over a request gives: its key (`nil` when longer than
    /// `maximumKeyLength`), and its `X-Request-ID` as it arrived (`nil` when absent).
    struct Request {
        let key: Key?
        let offeredID: UnsafeBufferPointer<UInt8>?
    }

    /// Calls `body` with the key of the request on `connection`, made with the values of
    /// `headers`; valid only inside `body`.
    func withKey<Result>(
        connection: OpaquePointer,
        method: UnsafePointer<CChar>,
        url: UnsafePointer<CChar>,
        varyingOn headers: HeaderNames,
        _ body: (Request) -> Result
    ) -> Result {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.maximumKeyLength) { buffer in
            let made = CMicroHTTPD_requestKey(
                connection,
                method,
                url,
                headers.pointer,
                headers.lengths,
                UInt32(headers.count),
                requestIDHeader.cString,
                buffer.baseAddress,
                buffer.count
            )
            let offeredID = made.captured.map {
                UnsafeBufferPointer(
                    start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self),
                    count: made.capturedLength
                )
            }
            let key = made.length > 0 ? key(UnsafeRawBufferPointer(start: buffer.baseAddress, count: made.length)) : nil
            return body(Request(key: key, offeredID: offeredID))
        }
    }

    /// The key made of `bytes` (for tests, which have no connection).
    func key(_ bytes: UnsafeRawBufferPointer) -> Key {
        Key(
            bytes: bytes,
            hash: CMicroHTTPD_hashKey(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, seed)
        )
    }

    func lookUp(_ key: Key) -> Lookup {
        table.withLock { table in
            if let entry = table.find(key) { return .hit(entry) }
            return .miss(generation: table.generation)
        }
    }

    /// Remembers `answer` for `key` under `tag`, unless the memo was invalidated since the
    /// lookup that gave `generation` (the answer may come from the state before it).
    /// - Parameter logTarget: see `Entry.logTarget`.
    func remember(
        _ answer: PreparedResponse,
        for key: Key,
        generation: UInt64,
        route: String,
        method: HTTPMethod,
        tag: any MemoTag,
        logTarget: [UInt8] = []
    ) {
        let entry = Entry(
            key: Array(key.bytes),
            hash: key.hash,
            answer: answer,
            route: route,
            method: method,
            tag: tag,
            logTarget: logTarget
        )
        table.withLock { table in
            guard table.generation == generation else { return }
            table.insert(entry)
        }
    }

    /// Open addressing with linear probing over twice `capacity` slots (at most half full).
    private struct Table {
        /// How many probes a lookup or an insert makes at most.
        static let probes = 8

        var slots: [Entry?]
        var count = 0
        var generation: UInt64 = 0
        let capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            var size = 16
            while size < 2 * capacity { size *= 2 }
            slots = Array(repeating: nil, count: size)
        }

        func find(_ key: Key) -> Entry? {
            let mask = slots.count - 1
            var index = Int(truncatingIfNeeded: key.hash) & mask
            for _ in 0..<Self.probes {
                guard let entry = slots[index] else { return nil }
                if entry.hash == key.hash, entry.key.count == key.bytes.count,
                    key.bytes.isEmpty
                        || entry.key.withUnsafeBytes({
                            memcmp($0.baseAddress!, key.bytes.baseAddress!, key.bytes.count) == 0
                        })
                {
                    return entry
                }
                index = (index + 1) & mask
            }
            return nil
        }

        mutating func insert(_ entry: Entry) {
            if count >= capacity { removeAll() }
            let mask = slots.count - 1
            var index = Int(truncatingIfNeeded: entry.hash) & mask
            for _ in 0..<Self.probes {
                guard let present = slots[index] else {
                    slots[index] = entry
                    count += 1
                    return
                }
                // Another thread answered the same request first: keep one.
                if present.hash == entry.hash, present.key == entry.key { return }
                index = (index + 1) & mask
            }
            // Eight taken slots in a row: the answer is not remembered (a later insert may fit).
        }

        mutating func removeAll() {
            guard count > 0 else { return }
            for index in slots.indices { slots[index] = nil }
            count = 0
        }

        /// Removes the entries `shouldRemove` picks; the others are inserted again, as removing
        /// one from a run of linear probing would hide those after it.
        mutating func removeAll(where shouldRemove: (Entry) -> Bool) {
            guard count > 0 else { return }
            var kept: [Entry] = []
            for index in slots.indices {
                if let entry = slots[index], !shouldRemove(entry) { kept.append(entry) }
                slots[index] = nil
            }
            count = 0
            for entry in kept { insert(entry) }
        }
    }

    /// The headers a key is made with, as an array of C strings for the key writer (made once,
    /// when the server starts, from its router's memoized routes).
    final class HeaderNames: @unchecked Sendable {
        // Unchecked: written once in init, only read afterwards.
        let pointer: UnsafeMutablePointer<UnsafePointer<CChar>?>
        let lengths: UnsafeMutablePointer<Int>
        let count: Int

        init(_ names: [String]) {
            precondition(names.count <= 127, "a memo key has room for 127 header names")
            count = names.count
            pointer = .allocate(capacity: max(1, names.count))
            lengths = .allocate(capacity: max(1, names.count))
            for (index, name) in names.enumerated() {
                pointer[index] = UnsafePointer(strdup(name))
                lengths[index] = name.utf8.count
            }
        }

        deinit {
            for index in 0..<count {
                free(UnsafeMutablePointer(mutating: pointer[index]))
            }
            pointer.deallocate()
            lengths.deallocate()
        }
    }
}

import Testing

@testable import HTTPServer

/// The tags the HTTP tests remember answers under.
enum TestTag: MemoTag {
    case name(String)
}

/// Another application's tags: the same payloads as `TestTag`'s, yet never the same tags.
private enum OtherTag: MemoTag {
    case name(String)
}

/// The memo's table: what it remembers, when it forgets, and that it stays within its capacity.
/// Keys here are plain bytes; the live tests (`LiveServerTests`, `test_02_caching.sh`) cover keys
/// made from real requests.
@Suite("ResponseMemo")
struct ResponseMemoTests {
    private let answer = PreparedResponse(
        status: 200,
        headers: [("ETag", "\"a\"")],
        body: SharedBytes(Array("{}".utf8))
    )

    /// Looks `text` up in `memo`.
    private func lookUp(_ text: String, in memo: ResponseMemo) -> ResponseMemo.Lookup {
        Array(text.utf8).withUnsafeBytes { memo.lookUp(memo.key($0)) }
    }

    /// Looks `text` up and remembers `answer` for it when it is missing, as the server does.
    private func remember(
        _ text: String,
        in memo: ResponseMemo,
        answer: PreparedResponse? = nil,
        tag: any MemoTag = TestTag.name("t")
    ) {
        Array(text.utf8).withUnsafeBytes { bytes in
            let key = memo.key(bytes)
            guard case .miss(let generation) = memo.lookUp(key) else { return }
            memo.remember(
                answer ?? self.answer,
                for: key,
                generation: generation,
                route: "/r",
                method: .get,
                tag: tag
            )
        }
    }

    @Test("invalidating tags forgets the answers remembered under them, and keeps the others")
    func invalidateTags() {
        // Room to spare: the table's hash is seeded at random, and at capacity 64 (128 slots) a
        // run of eight taken slots, after which an answer is not remembered, came up in one
        // `make test` in many.
        let memo = ResponseMemo(capacity: 4096)
        for index in 0..<40 {
            remember("a\(index)", in: memo, tag: TestTag.name(index.isMultiple(of: 2) ? "even" : "odd"))
        }
        remember("bundle", in: memo, tag: TestTag.name(""))
        #expect(memo.count == 41)
        memo.invalidate(tags: [TestTag.name("even"), .name("")])
        #expect(memo.count == 20)
        for index in 0..<40 {
            #expect(isHit(lookUp("a\(index)", in: memo)) == !index.isMultiple(of: 2), "a\(index)")
        }
        #expect(!isHit(lookUp("bundle", in: memo)))
    }

    @Test("a tag of another type never matches, whatever its payload")
    func tagsOfAnotherType() {
        let memo = ResponseMemo(capacity: 4096)
        remember("ours", in: memo, tag: TestTag.name("x"))
        remember("theirs", in: memo, tag: OtherTag.name("x"))
        memo.invalidate(tags: [OtherTag.name("x")])
        #expect(isHit(lookUp("ours", in: memo)))
        #expect(!isHit(lookUp("theirs", in: memo)))
        memo.invalidate(tags: [TestTag.name("x")])
        #expect(!isHit(lookUp("ours", in: memo)))
        #expect(memo.count == 0)
    }

    private func isHit(_ lookup: ResponseMemo.Lookup) -> Bool {
        if case .hit = lookup { return true }
        return false
    }

    @Test("a remembered key is found with its answer, route and method; any other key is not")
    func remembers() throws {
        let memo = ResponseMemo(capacity: 8)
        remember("GET /a", in: memo)
        guard case .hit(let entry) = lookUp("GET /a", in: memo) else {
            Issue.record("GET /a was not remembered")
            return
        }
        #expect(entry.answer === answer)
        #expect(entry.route == "/r")
        #expect(entry.method == .get)
        #expect(!isHit(lookUp("GET /b", in: memo)))
        #expect(!isHit(lookUp("GET /a ", in: memo)), "a longer key sharing the prefix")
        #expect(!isHit(lookUp("GET /", in: memo)), "a shorter key")
        #expect(memo.count == 1)
    }

    @Test("the same key remembered twice (two threads answering it) is kept once")
    func rememberedOnce() {
        let memo = ResponseMemo(capacity: 8)
        Array("GET /a".utf8).withUnsafeBytes { bytes in
            let key = memo.key(bytes)
            guard case .miss(let generation) = memo.lookUp(key) else { return }
            memo.remember(answer, for: key, generation: generation, route: "/r", method: .get, tag: TestTag.name("t"))
            memo.remember(answer, for: key, generation: generation, route: "/r", method: .get, tag: TestTag.name("t"))
        }
        #expect(memo.count == 1)
    }

    @Test("invalidate forgets everything")
    func invalidate() {
        let memo = ResponseMemo(capacity: 8)
        remember("GET /a", in: memo)
        remember("GET /b", in: memo)
        #expect(memo.count == 2)
        memo.invalidate()
        #expect(memo.count == 0)
        #expect(!isHit(lookUp("GET /a", in: memo)))
    }

    @Test("an answer looked up before an invalidation is not remembered after it")
    func staleGeneration() {
        let memo = ResponseMemo(capacity: 8)
        Array("GET /a".utf8).withUnsafeBytes { bytes in
            let key = memo.key(bytes)
            guard case .miss(let generation) = memo.lookUp(key) else {
                Issue.record("an empty memo found a key")
                return
            }
            // The state changed while the handler ran on the old one.
            memo.invalidate()
            memo.remember(answer, for: key, generation: generation, route: "/r", method: .get, tag: TestTag.name("t"))
        }
        #expect(memo.count == 0)
        #expect(!isHit(lookUp("GET /a", in: memo)))
    }

    @Test("it never holds more than its capacity: when full, it starts over")
    func capacity() {
        let memo = ResponseMemo(capacity: 4)
        for index in 0..<4 { remember("GET /\(index)", in: memo) }
        #expect(memo.count == 4)
        #expect(isHit(lookUp("GET /0", in: memo)))
        remember("GET /4", in: memo)
        #expect(memo.count == 1)
        #expect(isHit(lookUp("GET /4", in: memo)))
        #expect(!isHit(lookUp("GET /0", in: memo)))
        for index in 5..<1000 { remember("GET /\(index)", in: memo) }
        #expect(memo.count <= 4)
    }
}

import Testing

@testable import HTTPServer

/// The life of one request, call by call, without MHD: what each call of the access handler is
/// told to do, and the state the request is left in.
@Suite("RequestStateMachine")
struct RequestStateMachineTests {
    private let limit = 1000

    private func machine() -> RequestStateMachine {
        RequestStateMachine(state: .awaitingHead(refusal: nil), maxBodySize: limit)
    }

    private func head(
        contentLength: String? = nil,
        conflicting: Bool = false,
        chunked: Bool = false,
        host: Bool = true
    ) -> RequestStateMachine.Head {
        RequestStateMachine.Head(
            contentLength: contentLength,
            conflictingContentLength: conflicting,
            transferEncoding: chunked,
            host: host,
            isHTTP11: true
        )
    }

    @Test("a bodiless GET: head, then dispatched on the next call, then answered")
    func bodiless() {
        var machine = machine()
        guard case .awaitDispatch = machine.receivedHead(head()) else { Issue.record("not awaiting dispatch"); return }
        guard case .awaitingDispatch = machine.state else { Issue.record("state \(machine.state)"); return }
        guard case .dispatch(nil) = machine.receivedEnd() else { Issue.record("not dispatched"); return }
        guard case .dispatched(nil) = machine.state else { Issue.record("state \(machine.state)"); return }
        machine.answered()
        guard case .answered = machine.state else { Issue.record("state \(machine.state)"); return }
    }

    @Test("Content-Length: 0 is a request without a body")
    func emptyBody() {
        var machine = machine()
        guard case .awaitDispatch = machine.receivedHead(head(contentLength: "0")) else {
            Issue.record("not awaiting dispatch")
            return
        }
    }

    @Test("a body under the limit is kept, then dispatched with it")
    func bodyKept() {
        var machine = machine()
        guard case .readBody = machine.receivedHead(head(contentLength: "10")) else { Issue.record("no body"); return }
        guard case .keep(let upload) = machine.receivedBody(count: 10) else { Issue.record("not kept"); return }
        upload.body = Array(repeating: 1, count: 10)
        guard case .dispatch(let dispatched?) = machine.receivedEnd(), dispatched === upload else {
            Issue.record("not dispatched with its body")
            return
        }
    }

    @Test("refused with the head, Connection: close when the framing cannot be trusted")
    func refusedHeads() {
        let cases: [(RequestStateMachine.Head, status: Int, close: Bool)] = [
            (head(contentLength: "5", conflicting: true), 400, true),
            (head(contentLength: "5", chunked: true), 400, true),
            (head(host: false), 400, true),
            (head(contentLength: "-1"), 400, false),
            (head(contentLength: "ten"), 400, false),
        ]
        for (head, status, close) in cases {
            var machine = machine()
            guard case .refuse(let problem, let closeConnection) = machine.receivedHead(head) else {
                Issue.record("not refused: \(head)")
                continue
            }
            #expect(problem.status == status)
            #expect(closeConnection == close)
            guard case .answered = machine.state else { Issue.record("state \(machine.state)"); continue }
        }
        var machine = machine()
        guard case .refusePayloadTooLarge = machine.receivedHead(head(contentLength: "1001")) else {
            Issue.record("a declared body over the limit is not refused")
            return
        }
    }

    @Test("too many query arguments: answered 400 with the head, whatever the headers")
    func tooManyArguments() {
        var machine = RequestStateMachine(state: .awaitingHead(refusal: .tooManyArguments), maxBodySize: limit)
        guard case .refuse(let problem, closeConnection: true) = machine.receivedHead(head(contentLength: "5"))
        else {
            Issue.record("not refused")
            return
        }
        #expect(problem.status == 400)
    }

    @Test("query arguments too large for the connection's memory: answered by the URI callback, nothing more")
    func argumentsOverflow() {
        var machine = RequestStateMachine(state: .awaitingHead(refusal: .argumentsOverflow), maxBodySize: limit)
        guard case .close = machine.receivedHead(head(contentLength: "5")) else {
            Issue.record("not closed")
            return
        }
        guard case .closed = machine.state else {
            Issue.record("in state \(machine.state)")
            return
        }
    }

    @Test("a chunked body past the limit: dropped, 413 at its end")
    func chunkedTooLarge() {
        var machine = machine()
        guard case .readBody = machine.receivedHead(head(chunked: true)) else { Issue.record("no body"); return }
        guard case .keep(let upload) = machine.receivedBody(count: 600) else { Issue.record("not kept"); return }
        upload.body = Array(repeating: 1, count: 600)
        guard case .discard = machine.receivedBody(count: 600) else { Issue.record("not discarded"); return }
        #expect(upload.body.isEmpty)
        #expect(upload.discarded == 1200)
        guard case .discard = machine.receivedBody(count: 10) else { Issue.record("kept after the limit"); return }
        guard case .refusePayloadTooLarge = machine.receivedEnd() else { Issue.record("no 413"); return }
    }

    @Test("a route's own limit: declared bodies are refused or read under it, chunked ones kept to it")
    func routeLimit() {
        let terms = RequestStateMachine.BodyTerms(maxBytes: 5000)
        var machine = machine()
        guard case .readBody = machine.receivedHead(head(contentLength: "4000"), terms: { terms }) else {
            Issue.record("a body under the route's limit is refused")
            return
        }
        guard case .keep(let upload) = machine.receivedBody(count: 4000) else { Issue.record("not kept"); return }
        #expect(upload.limit == 5000)
        machine = self.machine()
        guard
            case .refusePayloadTooLarge(let refusedAt) = machine.receivedHead(
                head(contentLength: "5001"),
                terms: { terms }
            )
        else {
            Issue.record("a body over the route's limit is read")
            return
        }
        #expect(refusedAt == 5000)
        machine = self.machine()
        _ = machine.receivedHead(head(chunked: true), terms: { terms })
        guard case .keep(let chunked) = machine.receivedBody(count: 3000) else { Issue.record("not kept"); return }
        chunked.body = Array(repeating: 1, count: 3000)
        guard case .discard = machine.receivedBody(count: 3000) else { Issue.record("kept past 5000"); return }
        guard case .refusePayloadTooLarge(5000) = machine.receivedEnd() else { Issue.record("no 413"); return }
    }

    @Test("a route's refusal answers with the head; the terms are not asked for a bodiless request")
    func routeRefusal() {
        let refusal = HTTPResponse(status: 401)
        var asked = 0
        var machine = machine()
        let action = machine.receivedHead(head(contentLength: "10")) {
            asked += 1
            return RequestStateMachine.BodyTerms(maxBytes: 5000, refusal: (refusal, "r1"))
        }
        guard case .refuseBody(let response, "r1") = action, response.status == 401 else {
            Issue.record("not refused: \(action)")
            return
        }
        guard case .answered = machine.state else { Issue.record("state \(machine.state)"); return }
        machine = self.machine()
        _ = machine.receivedHead(head()) {
            asked += 1
            return nil
        }
        #expect(asked == 1)
    }

    @Test("a chunked body that goes on past the discard limit closes the connection")
    func chunkedWithoutEnd() {
        var machine = machine()
        _ = machine.receivedHead(head(chunked: true))
        let discardLimit = HTTPServer.discardLimit(maxBodySize: limit)
        var read = 0
        while read <= discardLimit {
            read += 100_000
            switch machine.receivedBody(count: 100_000) {
            case .discard: continue
            case .close(let discarded, let closedAt):
                #expect(discarded == read)
                #expect(closedAt == limit)
                #expect(read > discardLimit)
                guard case .closed = machine.state else { Issue.record("state \(machine.state)"); return }
                return
            default:
                Issue.record("neither dropped nor closed")
                return
            }
        }
        Issue.record("never closed")
    }

    @Test("offloaded: suspended with a new state, then the worker's answer is queued")
    func offloaded() {
        var machine = machine()
        _ = machine.receivedHead(head())
        _ = machine.receivedEnd()
        let holder = machine.offload()
        guard case .suspended(let suspended) = machine.state, suspended === holder else {
            Issue.record("not suspended")
            return
        }
        // The worker leaves its answer and resumes; the next call finds it.
        holder.pending = HTTPResponse(status: 201)
        var resumed = RequestStateMachine(state: .suspended(holder), maxBodySize: limit)
        guard case .queuePending(let response, let upload) = resumed.receivedEnd() else {
            Issue.record("the answer is not queued")
            return
        }
        #expect(response.status == 201)
        #expect(upload.pending == nil)
    }

    @Test("an offloaded request with a body keeps its state object")
    func offloadedWithBody() {
        var machine = machine()
        _ = machine.receivedHead(head(contentLength: "3"))
        guard case .keep(let upload) = machine.receivedBody(count: 3) else { Issue.record("not kept"); return }
        _ = machine.receivedEnd()
        #expect(machine.offload() === upload)
    }

    @Test("the slot: what is stored is what the next call reads, with no object for a bodiless request")
    func slot() {
        var value: UnsafeMutableRawPointer? = nil
        withUnsafeMutablePointer(to: &value) { pointer in
            let slot = RequestSlot(pointer: pointer)
            guard case .awaitingHead(refusal: nil) = slot.state else { Issue.record("not awaiting head"); return }
            var machine = RequestStateMachine(state: slot.state, maxBodySize: limit)
            _ = machine.receivedHead(head())
            slot.store(machine.state)
            #expect(pointer.pointee == UnsafeMutableRawPointer(bitPattern: 1))
            guard case .awaitingDispatch = slot.state else { Issue.record("not awaiting dispatch"); return }
            _ = machine.receivedEnd()
            let holder = machine.offload()
            slot.store(machine.state)
            slot.store(machine.state)  // stored once: retained once
            holder.pending = HTTPResponse(status: 200)
            guard case .suspended(let read) = slot.state, read === holder else { Issue.record("not suspended"); return }
            Unmanaged<UploadState>.fromOpaque(pointer.pointee!).release()
        }
    }
}

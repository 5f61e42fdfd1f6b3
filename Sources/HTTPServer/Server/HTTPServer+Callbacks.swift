import CMicroHTTPD
import Logging

extension HTTPServer {
    /// MHD's access handler: hands each call to the request's `RequestStateMachine` and carries
    /// out what it returns. MHD calls it first with the head, then once per body chunk, then a
    /// last time with no data (and once more after a worker resumes a suspended connection).
    ///
    /// The path of a request, top to bottom: the head (`RequestStateMachine.receivedHead`), the
    /// body, the end, then `RequestCall.dispatch` (the memo, or `RequestTarget` and the router),
    /// and the answer queued (`HTTPServer+Responses.swift`), reported to the metrics and the
    /// access log.
    static let accessHandler: MHD_AccessHandlerCallback = {
        context,
        connection,
        url,
        method,
        version,
        uploadData,
        uploadSize,
        state in
        guard let context, let connection, let url, let method, let uploadSize, let state else { return .NO }
        let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
        // What lets `HTTPHeaders` check that it reads this connection on its own thread, while
        // the connection is handled (see `HTTPHeaders.connectionHeaders`).
        CMicroHTTPD_setCurrentConnection(connection)
        defer { CMicroHTTPD_setCurrentConnection(nil) }
        let slot = RequestSlot(pointer: state)
        var machine = RequestStateMachine(state: slot.state, maxBodySize: server.configuration.maxBodySize)
        let call = RequestCall(server: server, connection: connection, slot: slot, method: method, url: url)

        if case .awaitingHead = machine.state {
            // The connection no longer waits for a request's head.
            CMicroHTTPD_guardHeadReceived(connection)
            let action = machine.receivedHead(RequestStateMachine.Head(connection: connection, version: version)) {
                server.bodyTerms(connection: connection, url: url, method: method)
            }
            slot.store(machine.state)
            switch action {
            case .refuse(let problem, let closeConnection):
                let requestID = RequestTarget.requestID(connection)
                return call.answer(
                    problem.response(
                        requestID: requestID,
                        in: server.configuration.problemTypes,
                        extraHeaders: closeConnection ? [("Connection", "close")] : []
                    ),
                    requestID: requestID,
                    started: server.startTime()
                )
            case .refusePayloadTooLarge(let limit):
                let requestID = RequestTarget.requestID(connection)
                return call.answer(
                    server.payloadTooLarge(requestID: requestID, limit: limit),
                    requestID: requestID,
                    started: server.startTime()
                )
            case .refuseBody(var response, let requestID):
                // The body announced is never read: the connection cannot carry another request.
                response.headers.append(("Connection", "close"))
                return call.answer(response, requestID: requestID, started: server.startTime())
            case .close:
                // The URI callback answered already: MHD ends the connection on this answer.
                return .NO
            case .readBody, .awaitDispatch:
                return .YES
            }
        }

        if uploadSize.pointee > 0 {
            switch machine.receivedBody(count: uploadSize.pointee) {
            case .keep(let upload):
                if let uploadData {
                    uploadData.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) { bytes in
                        upload.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: uploadSize.pointee))
                    }
                }
            case .discard, .ignore:
                break
            case .close(let discarded, let limit):
                server.logger.warning(
                    "closing a connection whose chunked body goes on past the limit",
                    metadata: [
                        "request.id": "\(RequestTarget.requestID(connection))",
                        "http.path": "\(String(cString: url))",
                        "http.body_bytes_read": "\(discarded)",
                        "http.max_body_size": "\(limit)",
                    ]
                )
                return .NO
            }
            uploadSize.pointee = 0
            return .YES
        }

        switch machine.receivedEnd() {
        case .queuePending(let pending, let upload):
            // Called again after a blocking handler resumed the connection.
            return call.answer(
                pending,
                requestID: upload.requestID,
                route: upload.route,
                requestMethod: upload.method,
                started: upload.started
            )
        case .refusePayloadTooLarge(let limit):
            let started = server.startTime()
            let requestID = RequestTarget.requestID(connection)
            return call.answer(
                server.payloadTooLarge(requestID: requestID, declared: false, limit: limit),
                requestID: requestID,
                started: started
            )
        case .dispatch(let upload):
            // The last call for this request: the clock starts here (the body, if any, is read).
            return call.dispatch(upload: upload, machine: &machine, started: server.startTime())
        }
    }

    /// When the clock of a request's duration starts; 0 without an observer or an access log,
    /// to skip the clock.
    func startTime() -> Int64 {
        observer == nil && accessLog == nil ? 0 : MonotonicClock.nanoseconds()
    }
}

import CMicroHTTPD
import Dispatch

/// One call of the access handler: the connection and what MHD passed for it, and how its
/// request is answered once it has been read whole: from the memo, or parsed (`RequestTarget`),
/// routed (`HTTPServer.dispatch`) and answered now, or handed to a worker with the connection
/// suspended.
struct RequestCall {
    let server: HTTPServer
    let connection: OpaquePointer
    let slot: RequestSlot
    let method: UnsafePointer<CChar>
    let url: UnsafePointer<CChar>

    /// Queues `response` as this request's answer (see `HTTPServer.queue`).
    func answer(
        _ response: HTTPResponse,
        requestID: String,
        route: String? = nil,
        requestMethod: HTTPMethod? = nil,
        started: Int64
    ) -> MHD_Result {
        server.queue(
            response,
            on: connection,
            state: slot.pointer,
            method: method,
            url: url,
            requestID: requestID,
            route: route,
            requestMethod: requestMethod,
            started: started
        )
    }

    /// Answers a request read whole. A bodiless GET or HEAD may have been answered before: the
    /// memo's answer is queued again, with no parsing or routing.
    func dispatch(upload: UploadState?, machine: inout RequestStateMachine, started: Int64) -> MHD_Result {
        guard upload == nil, let memo = server.memo, RequestTarget.isGetOrHead(method) else {
            return route(upload: upload, remembering: nil, machine: &machine, started: started)
        }
        return memo.withKey(connection: connection, method: method, url: url, varyingOn: server.memoKeyHeaders) {
            request in
            guard let key = request.key else {
                return route(upload: upload, remembering: nil, machine: &machine, started: started)
            }
            switch memo.lookUp(key) {
            case .hit(let entry):
                return RequestID.withCString(offered: request.offeredID) { requestID in
                    server.queue(
                        remembered: entry,
                        on: connection,
                        state: slot.pointer,
                        method: method,
                        url: url,
                        requestID: requestID,
                        started: started
                    )
                }
            case .miss(let generation):
                return route(upload: upload, remembering: (key, generation), machine: &machine, started: started)
            }
        }
    }

    /// Parses, routes and answers the request; `remembering` is its key in the memo and the
    /// generation its lookup saw, when its answer may be remembered.
    private func route(
        upload: UploadState?,
        remembering: (key: ResponseMemo.Key, generation: UInt64)?,
        machine: inout RequestStateMachine,
        started: Int64
    ) -> MHD_Result {
        let requestID = RequestTarget.requestID(connection)
        var request: HTTPRequest
        switch RequestTarget.makeRequest(
            connection: connection,
            url: url,
            method: method,
            id: requestID,
            body: upload?.body ?? []
        ) {
        case .success(let parsed): request = parsed
        case .failure(let problem):
            return answer(
                problem.response(requestID: requestID, in: server.configuration.problemTypes),
                requestID: requestID,
                started: started
            )
        }
        let (dispatch, route, memoized) = server.dispatch(&request)
        switch dispatch {
        case .respond(let response):
            if memoized, let remembering, let prepared = response.prepared, let tag = response.memoTag,
                let memo = server.memo
            {
                memo.remember(
                    prepared,
                    for: remembering.key,
                    generation: remembering.generation,
                    route: route,
                    method: request.method,
                    tag: tag,
                    logTarget: server.accessLog.map {
                        AccessLogFormatter.target(path: url, query: connection, format: $0.format)
                    } ?? []
                )
            }
            return answer(response, requestID: requestID, route: route, requestMethod: request.method, started: started)
        case .offload(let handler, let routed, let background):
            let holder = machine.offload()
            slot.store(machine.state)
            holder.requestID = requestID
            holder.route = route
            holder.method = request.method
            holder.started = started
            holder.body = []
            offload(holder, handler: handler, request: routed, background: background)
            return .YES
        }
    }

    /// Suspends the connection and runs `handler` on a worker, which leaves its answer in
    /// `holder.pending` and resumes the connection (the access handler is then called again).
    private func offload(
        _ holder: UploadState,
        handler: @escaping Router.Handler,
        request: HTTPRequest,
        background: Bool
    ) {
        let server = server
        MHD_suspend_connection(connection)
        guard server.suspended.register(holder, connection: connection) else {
            // Shutdown has begun answering suspended requests: this one is not run either.
            holder.pending = server.shuttingDown(requestID: holder.requestID)
            MHD_resume_connection(connection)
            return
        }
        let suspended = SuspendedConnection(pointer: connection)
        let work: @Sendable () -> Void = {
            // Shutdown may have answered the request while it waited for a thread.
            guard
                holder.claim.compareExchange(
                    expected: .queued,
                    desired: .running,
                    ordering: .acquiringAndReleasing
                ).exchanged
            else { return }
            holder.pending = handler(request)
            MHD_resume_connection(suspended.pointer)
            server.suspended.remove(holder)
        }
        if background {
            server.backgroundWorkers.submit(work)
        } else {
            server.blockingQueue.async(execute: work)
        }
    }
}

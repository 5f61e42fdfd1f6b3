import Dispatch
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// Sends one webhook request: resolves the receiver's host, checks every address it resolves to
/// (`AddressPolicy`), connects to a checked address itself (never by name again, so a second DNS
/// answer cannot redirect it: DNS rebinding), speaks TLS with SNI and verifies the certificate
/// against the host name (or, for an address literal, against the address) with the system's
/// trust store, posts the body, and reads a bounded answer.
///
/// SwiftNIO, NIOSSL and NIOHTTP1, which postgres-nio already brings: one connection per request
/// (`Connection: close`), no redirects followed (a 3xx is an answer like any other), at most
/// `connectTimeout` per address and `totalTimeout` for the whole attempt, at most
/// `responseLimit` bytes of the answer's body read (the rest is not waited for). Never throws:
/// every way an attempt can end is an `Outcome`.
package final class WebhookHTTPClient: Sendable {
    /// How attempts are bounded and what they may reach.
    package struct Configuration: Sendable {
        package var policy: AddressPolicy
        package var connectTimeout: Duration = .seconds(5)
        package var totalTimeout: Duration = .seconds(15)
        /// Bytes of a response body read; the first `excerptLimit` of them are kept.
        package var responseLimit = 64 * 1024
        package var excerptLimit = 1024
        /// A PEM file of certificates trusted besides the system's (a private CA).
        package var additionalTrustRoots: String?

        package init(policy: AddressPolicy) {
            self.policy = policy
        }
    }

    /// One request to send.
    package struct Request: Sendable {
        package var url: WebhookURL
        package var headers: [(name: String, value: String)]
        package var body: [UInt8]

        package init(url: WebhookURL, headers: [(name: String, value: String)], body: [UInt8]) {
            self.url = url
            self.headers = headers
            self.body = body
        }
    }

    /// How an attempt ended.
    package struct Outcome: Sendable {
        /// What failed, when no answer came (or the guard refused).
        package enum Failure: String, Sendable {
            /// The guard refused every address, or the URL itself.
            case refused
            case dns, connect, tls, timeout
            /// The peer answered something that is not an HTTP response, or closed first.
            case protocolError = "protocol"
        }

        /// The answer's status; `nil` when none came.
        package var status: Int?
        package var failure: Failure?
        /// What went wrong, for the delivery log (`nil` when an answer came).
        package var error: String?
        /// From the start of the attempt (resolution included) to the end of the answer.
        package var latency: Duration
        /// The address connected to, `ip:port`.
        package var address: String?
        /// The start of the answer's body, as text.
        package var excerpt: String?
        /// `Retry-After` in seconds, when the answer had one in that form.
        package var retryAfter: Int?
        /// `Location`, for a redirect (which is not followed).
        package var location: String?

        package init(
            status: Int?,
            failure: Failure?,
            error: String?,
            latency: Duration,
            address: String? = nil,
            excerpt: String? = nil,
            retryAfter: Int? = nil,
            location: String? = nil
        ) {
            self.status = status
            self.failure = failure
            self.error = error
            self.latency = latency
            self.address = address
            self.excerpt = excerpt
            self.retryAfter = retryAfter
            self.location = location
        }
    }

    private let configuration: Configuration
    private let group: any EventLoopGroup
    private let tls: NIOSSLContext

    /// - Throws: when the trust roots cannot be read (`additionalTrustRoots` is not PEM).
    package init(
        configuration: Configuration,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    )
        throws
    {
        self.configuration = configuration
        self.group = group
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        tls.certificateVerification = .fullVerification
        if let path = configuration.additionalTrustRoots {
            tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(path))]
        }
        self.tls = try NIOSSLContext(configuration: tls)
    }

    /// Why no address of a URL may be used.
    package struct Unusable: Error, Sendable {
        package var failure: Outcome.Failure
        package var description: String
    }

    /// The addresses a delivery to `url` may connect to: its literal, or every address its host
    /// resolves to, each checked.
    /// - Returns: the addresses, or why none may be used (a refusal names the address and the flag
    ///   that would allow it; `http://` is for loopback receivers only).
    package func checkedAddresses(for url: WebhookURL) async -> Result<[IPAddress], Unusable> {
        let addresses: [IPAddress]
        if let literal = url.literalAddress {
            addresses = [literal]
        } else {
            switch await HostResolver.resolve(url.host, limit: configuration.totalTimeout) {
            case .success(let resolved)?: addresses = resolved
            case .failure(let refusal)?: return .failure(Unusable(failure: .dns, description: refusal.description))
            case nil:
                return .failure(
                    Unusable(
                        failure: .timeout,
                        description: "\(url.host): no DNS answer within \(configuration.totalTimeout)"
                    )
                )
            }
        }
        for address in addresses {
            if let why = configuration.policy.refusal(address) {
                return .failure(Unusable(failure: .refused, description: "refused: \(url.host) resolves to \(why)"))
            }
            if !url.isHTTPS, AddressPolicy.range(of: address) != .loopback {
                return .failure(
                    Unusable(
                        failure: .refused,
                        description:
                            "refused: plain http:// is only for loopback receivers, and \(url.host) resolves to \(address)"
                    )
                )
            }
        }
        return .success(addresses)
    }

    /// Sends `request`: one attempt, bounded by the configuration's timeouts.
    package func send(_ request: Request) async -> Outcome {
        let started = ContinuousClock.now
        func ended(_ failure: Outcome.Failure, _ error: String, address: String? = nil) -> Outcome {
            Outcome(
                status: nil,
                failure: failure,
                error: error,
                latency: ContinuousClock.now - started,
                address: address
            )
        }
        let addresses: [IPAddress]
        switch await checkedAddresses(for: request.url) {
        case .success(let checked): addresses = checked
        case .failure(let unusable): return ended(unusable.failure, unusable.description)
        }
        // The total timeout counts from the start: the name's resolution took part of it.
        let deadline = NIODeadline.now() + TimeAmount(configuration.totalTimeout - (ContinuousClock.now - started))
        var channel: (any Channel)?
        var connected: IPAddress?
        var answer: EventLoopPromise<Collected>?
        var lastError: (Outcome.Failure, String) = (.connect, "no address to connect to")
        let limit = configuration.responseLimit
        for address in addresses {
            let remaining = deadline - NIODeadline.now()
            guard remaining > .zero else { break }
            // The collector is in the pipeline from the start, so an error of the TLS handshake
            // (which starts as soon as the connection does) reaches it.
            let promise = group.next().makePromise(of: Collected.self)
            do {
                channel = try await connect(
                    address,
                    request.url,
                    timeout: min(TimeAmount(configuration.connectTimeout), remaining),
                    collector: { ResponseCollector(promise: promise, limit: limit) }
                )
                connected = address
                answer = promise
                break
            } catch {
                promise.fail(error)
                lastError = Self.describe(error, address: address.description(port: request.url.port), phase: .connect)
            }
        }
        guard let channel, let connected, let answer else {
            if NIODeadline.now() >= deadline {
                return ended(.timeout, "no connection within \(configuration.totalTimeout)")
            }
            return ended(lastError.0, lastError.1)
        }
        let where_ = connected.description(port: request.url.port)
        let timeout = channel.eventLoop.scheduleTask(deadline: deadline) {
            answer.fail(TimedOut())
            channel.close(promise: nil)
        }
        answer.futureResult.whenComplete { _ in timeout.cancel() }
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: request.url.target)
        head.headers.add(name: "Host", value: request.url.hostHeader)
        for (name, value) in request.headers { head.headers.add(name: name, value: value) }
        head.headers.add(name: "Content-Length", value: String(request.body.count))
        head.headers.add(name: "Connection", value: "close")
        var buffer = channel.allocator.buffer(capacity: request.body.count)
        buffer.writeBytes(request.body)
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        channel.write(HTTPClientRequestPart.body(.byteBuffer(buffer)), promise: nil)
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        let collected: Collected
        do {
            collected = try await answer.futureResult.get()
        } catch {
            channel.close(promise: nil)
            if error is TimedOut {
                return ended(.timeout, "no complete answer within \(configuration.totalTimeout)", address: where_)
            }
            let (failure, text) = Self.describe(error, address: where_, phase: .exchange)
            return ended(failure, text, address: where_)
        }
        let excerptBytes = collected.body.prefix(configuration.excerptLimit)
        let status = Int(collected.head.status.code)
        return Outcome(
            status: status,
            failure: nil,
            error: nil,
            latency: ContinuousClock.now - started,
            address: where_,
            excerpt: excerptBytes.isEmpty ? nil : String(decoding: excerptBytes, as: UTF8.self),
            retryAfter: collected.head.headers.first(name: "Retry-After").flatMap { Int($0.trimmingCharacters()) },
            location: (300..<400).contains(status) ? collected.head.headers.first(name: "Location") : nil
        )
    }

    /// Opens a connection to `address`, with TLS when the URL is `https://` (SNI and the
    /// certificate's name are the URL's host; an address literal is checked against the address).
    private func connect(
        _ address: IPAddress,
        _ url: WebhookURL,
        timeout: TimeAmount,
        collector: @escaping @Sendable () -> ResponseCollector
    ) async throws -> any Channel {
        let socketAddress = try SocketAddress(ipAddress: address.description, port: url.port)
        let tls: NIOSSLContext? = url.isHTTPS ? self.tls : nil
        let serverName: String? = url.literalAddress == nil ? url.host : nil
        return try await ClientBootstrap(group: group)
            .connectTimeout(timeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(
                            try NIOSSLClientHandler(context: tls, serverHostname: serverName)
                        )
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(collector())
                }
            }
            .connect(to: socketAddress)
            .get()
    }

    /// The deadline passed before a complete answer.
    private struct TimedOut: Error {}

    /// The connection closed before an answer's head.
    private struct ClosedEarly: Error {}

    private enum Phase { case connect, exchange }

    /// How an error reads in a delivery log, and its kind.
    private static func describe(_ error: any Error, address: String, phase: Phase) -> (Outcome.Failure, String) {
        if let error = error as? ChannelError, case .connectTimeout(let amount) = error {
            return (.timeout, "connecting to \(address) timed out after \(amount.nanoseconds / 1_000_000) ms")
        }
        if let error = error as? IOError {
            let reason = String(cString: strerror(error.errnoCode))
            return (.connect, "cannot connect to \(address): \(reason.lowercased())")
        }
        if error is ClosedEarly {
            return (.protocolError, "\(address) closed the connection before answering")
        }
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            return (.tls, "TLS: the certificate of \(address) is not valid for this host name")
        }
        if error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError {
            return (.tls, "TLS with \(address) failed: \(String(describing: error))")
        }
        if error is HTTPParserError {
            return (.protocolError, "\(address) did not answer in HTTP/1.1: \(error)")
        }
        return (phase == .connect ? .connect : .protocolError, "\(address): \(String(describing: error))")
    }

    /// An answer as read: its head and the start of its body.
    fileprivate struct Collected: Sendable {
        var head: HTTPResponseHead
        var body: [UInt8]
    }

    /// Reads the answer's head and at most `limit` bytes of its body, then completes the promise
    /// and closes the connection (a receiver that streams forever is not waited for).
    fileprivate final class ResponseCollector: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPClientResponsePart

        private let promise: EventLoopPromise<Collected>
        private let limit: Int
        private var head: HTTPResponseHead?
        private var body: [UInt8] = []
        private var done = false

        init(promise: EventLoopPromise<Collected>, limit: Int) {
            self.promise = promise
            self.limit = limit
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !done else { return }
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
            case .body(var buffer):
                let room = limit - body.count
                if buffer.readableBytes >= room {
                    body += buffer.readBytes(length: room) ?? []
                    finish(context)
                } else {
                    body += buffer.readBytes(length: buffer.readableBytes) ?? []
                }
            case .end:
                finish(context)
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            if !done {
                if head != nil {
                    finish(context)
                } else {
                    done = true
                    promise.fail(ClosedEarly())
                }
            }
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            if !done {
                done = true
                promise.fail(error)
            }
            context.close(promise: nil)
        }

        private func finish(_ context: ChannelHandlerContext) {
            guard !done, let head else { return }
            done = true
            promise.succeed(Collected(head: head, body: body))
            context.close(promise: nil)
        }
    }
}

extension TimeAmount {
    fileprivate init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

extension String {
    fileprivate func trimmingCharacters() -> Substring {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}

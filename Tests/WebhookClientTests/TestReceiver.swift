import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// The test certificates (`Tests/integration/webhook-tls/`), found from this file's location.
enum TestCertificates {
    static let directory: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("integration/webhook-tls")
        .path

    static func path(_ name: String) -> String { directory + "/" + name }
}

/// A receiver on loopback, port 0, that answers by path: `/ok` 200, `/fail` 500 with a body,
/// `/redirect` 302 to `/ok`, `/gone` 410, `/hang` never, `/big` 200 with 1 MiB of body, `/slow`
/// after 300 ms. Optionally over TLS with one of the test certificates. It records what reached
/// it.
final class TestReceiver: Sendable {
    struct Received: Sendable {
        var path: String
        var headers: [(String, String)]
        var body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    let channel: any Channel
    let port: Int
    private let box: Box

    /// What reached it, in order.
    final class Box: Sendable {
        let requests = Mutex<[Received]>([])
    }

    var received: [Received] { box.requests.withLock { $0 } }

    /// - Parameter certificate: `localhost` or `wrong` for TLS with that test certificate.
    init(certificate: String? = nil, host: String = "127.0.0.1") throws {
        let box = Box()
        self.box = box
        let tls: NIOSSLContext? = try certificate.map { name in
            try NIOSSLContext(
                configuration: .makeServerConfiguration(
                    certificateChain: try NIOSSLCertificate.fromPEMFile(TestCertificates.path("\(name).pem")).map {
                        .certificate($0)
                    },
                    privateKey: .privateKey(
                        try NIOSSLPrivateKey(file: TestCertificates.path("\(name).key"), format: .pem)
                    )
                )
            )
        }
        let recorder: @Sendable (Received) -> Void = { received in box.requests.withLock { $0.append(received) } }
        channel = try ServerBootstrap(group: TestEventLoops.group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Responder(record: recorder))
                }
            }
            .bind(host: host, port: 0)
            .wait()
        port = channel.localAddress?.port ?? 0
    }

    func close() { try? channel.close().wait() }

    /// Answers each request by its path once it has arrived whole.
    private final class Responder: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart

        let record: @Sendable (Received) -> Void
        var head: HTTPRequestHead?
        var body: [UInt8] = []

        init(record: @escaping @Sendable (Received) -> Void) { self.record = record }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                body = []
            case .body(var buffer):
                body += buffer.readBytes(length: buffer.readableBytes) ?? []
            case .end:
                guard let head else { return }
                record(Received(path: head.uri, headers: head.headers.map { ($0.name, $0.value) }, body: body))
                answer(context, path: head.uri)
            }
        }

        private func answer(_ context: ChannelHandlerContext, path: String) {
            switch path {
            case "/hang":
                return
            case "/fail":
                respond(context, .internalServerError, body: "broken on purpose")
            case "/redirect":
                respond(context, .found, body: "", headers: [("Location", "/ok")])
            case "/gone":
                respond(context, .gone, body: "")
            case "/big":
                respond(context, .ok, body: String(repeating: "x", count: 1 << 20))
            case "/slow":
                let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                context.eventLoop.scheduleTask(in: .milliseconds(300)) {
                    bound.value.0.respond(bound.value.1, .ok, body: "late")
                }
            case "/busy":
                respond(context, .serviceUnavailable, body: "", headers: [("Retry-After", "120")])
            default:
                respond(context, .ok, body: "fine")
            }
        }

        private func respond(
            _ context: ChannelHandlerContext,
            _ status: HTTPResponseStatus,
            body: String,
            headers: [(String, String)] = []
        ) {
            var head = HTTPResponseHead(version: .http1_1, status: status)
            head.headers.add(name: "Content-Length", value: String(body.utf8.count))
            for (name, value) in headers { head.headers.add(name: name, value: value) }
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            var buffer = context.channel.allocator.buffer(capacity: body.utf8.count)
            buffer.writeString(body)
            context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}

/// The event loops of these tests, client and receivers alike: their own, so that another suite of
/// the same process that holds a thread of the shared singleton group (PostgreSQL's stall tests)
/// cannot starve a receiver past a test's timeout.
enum TestEventLoops {
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
}

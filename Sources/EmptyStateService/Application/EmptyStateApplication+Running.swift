import EmptyStateStore
import Foundation
import HTTPServer
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals

/// Running the application: the services of its `ServiceGroup` in start order, and the three
/// ways to run them (until a signal, for `empty-state-server`; started and stopped by a test;
/// the group itself). Building it — the catalogue, the stores, the routes — is in
/// `EmptyStateApplication.swift`.
extension EmptyStateApplication {
    /// Everything that runs for the application's life, in start order: the database pool and
    /// its change listener (PostgreSQL), the access log, the event writer, the periodic jobs, and
    /// last the HTTP server. The group shuts them down in the reverse order: the server stops
    /// accepting and answers what it accepted (so requests waiting for a group commit are
    /// answered), the jobs end, the event writer commits what is queued, the access log writes its
    /// last lines, and the pool closes after every write that needed it.
    /// - Parameter onListening: told the bound port once the server listens.
    func services(onListening: @escaping @Sendable (Int) -> Void = { _ in }) -> [any Service] {
        var services = sharedServices
        let sequence = StartSequence()
        var step = 0
        func next() -> Int {
            defer { step += 1 }
            return step
        }
        if let accessLog {
            services.append(
                WorkerService(name: "access-log", step: next(), sequence: sequence, start: accessLog.start) {
                    accessLog.stop()
                }
            )
        }
        services.append(
            WorkerService(
                name: "event-writer",
                step: next(),
                sequence: sequence,
                start: events.start,
                stop: events.stop
            )
        )
        services.append(
            PeriodicWork(
                name: "event-retention",
                step: next(),
                sequence: sequence,
                firstAfter: RetentionPruner.firstAfter,
                every: RetentionPruner.interval,
                leeway: .seconds(60),
                work: retention.prune
            )
        )
        services.append(
            PeriodicWork(
                name: "rollup-backfill",
                step: next(),
                sequence: sequence,
                firstAfter: .milliseconds(100),
                every: .milliseconds(20),
                leeway: .milliseconds(10),
                work: backfill.step
            )
        )
        services.append(
            PeriodicWork(
                name: "rollup-fold",
                step: next(),
                sequence: sequence,
                firstAfter: .seconds(1),
                every: .seconds(1),
                leeway: .milliseconds(200),
                work: folder.fold
            )
        )
        if let policyWatcher {
            services.append(
                PeriodicWork(
                    name: "app-policy-watcher",
                    step: next(),
                    sequence: sequence,
                    firstAfter: PolicyWatcher.interval,
                    every: PolicyWatcher.interval,
                    leeway: .milliseconds(100),
                    work: policyWatcher.refresh
                )
            )
        }
        if let adminTokensFile {
            services.append(AdminTokensFileWatch(file: adminTokensFile, step: next(), sequence: sequence))
        }
        services.append(
            WorkerService(
                name: "http",
                step: next(),
                sequence: sequence,
                start: { onListening(try self.startServing()) },
                stop: stopServing
            )
        )
        return services
    }

    /// Binds and starts serving, writes the first admin token when there is one to make (nothing
    /// is written before the server listens); then `/readyz` says ready.
    /// - Returns: the bound port.
    private func startServing() throws -> Int {
        let port: Int
        do {
            port = try server.start()
        } catch let error as HTTPServer.StartError where error.reason == .libraryTooOld {
            // An installation to fix, not a condition a restart may clear.
            throw StartupError(description: error.description)
        }
        do {
            try firstAdminToken?.create(logger: logger)
        } catch {
            server.shutdown()
            throw error
        }
        readiness.isReady = true
        logger.notice(
            "listening",
            metadata: [
                "http.host": "\(configuration.http.host)", "http.port": "\(port)",
                "http.threads": "\(configuration.http.resolvedThreads)",
                "http.libmicrohttpd": "\(HTTPServer.libraryVersion)",
                "data.dir": "\(configuration.dataDirectory)", "store.location": "\(store.location)",
            ]
        )
        return port
    }

    /// Reports not-ready, drains open connections (bounded) and stops serving.
    private func stopServing() {
        readiness.isReady = false
        logger.notice(
            "shutting down: draining connections",
            metadata: ["http.drain_timeout_s": "\(configuration.http.drainTimeout)"]
        )
        server.shutdown()
    }

    /// Starts every service and serves until SIGTERM or SIGINT, then shuts down gracefully (see
    /// `services`); blocks the calling thread (the main thread: never one of Swift concurrency's).
    @available(*, noasync)
    package func runUntilSignalled() throws {
        signal(SIGPIPE, SIG_IGN)
        let group = makeGroup(signals: [.sigterm, .sigint])
        let done = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        Task {
            do {
                try await group.run()
            } catch {
                failure.withLock { $0 = error }
            }
            done.signal()
        }
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
        logger.notice("stopped")
    }

    /// Starts every service in the background, as `runUntilSignalled` does, for tests.
    /// - Returns: the bound port, and the running group: `triggerGracefulShutdown()` stops it,
    ///   and the task ends once it has.
    package func start() async throws -> (port: Int, stop: @Sendable () async -> Void) {
        let listening = AsyncStream<Int>.makeStream()
        let group = makeGroup(
            signals: [],
            onListening: { port in
                listening.continuation.yield(port)
                listening.continuation.finish()
            }
        )
        let running = Task {
            // A group that ends before the server listens (it could not bind) ends the wait too.
            defer { listening.continuation.finish() }
            try await group.run()
        }
        var ports = listening.stream.makeAsyncIterator()
        guard let port = await ports.next() else {
            try await running.value
            throw StartupError(description: "the service group ended before the server listened")
        }
        return (
            port,
            {
                await group.triggerGracefulShutdown()
                _ = try? await running.value
            }
        )
    }

    private func makeGroup(
        signals: [UnixSignal],
        onListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) -> ServiceGroup {
        // Any service ending, by failure or not, shuts the others down in order.
        let configurations = services(onListening: onListening).map {
            ServiceGroupConfiguration.ServiceConfiguration(
                service: $0,
                successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup
            )
        }
        return ServiceGroup(
            configuration: .init(services: configurations, gracefulShutdownSignals: signals, logger: logger)
        )
    }
}

import API
import APNs
import Dispatcher
import Foundation
import HTTP2Transport
import HTTPServer
import Intake
import Logging
import Metrics
import ProviderAuth
import QueueModel

/// `apnsd worker [--until-idle] [--json]`: send what is due; SIGINT/SIGTERM stop it cleanly. With `worker.listen`
/// it also serves `/metrics`, `/healthz` and `/readyz` there (`ProbeEndpoints`), its address on the first stdout line
/// (`listening on http://HOST:PORT`) and in `worker.started`.
enum WorkerCommand {
    static func run(_ words: [String]) async throws(CLIError) {
        let stops = StopRequests.forThisCommand()
        let arguments = try Arguments(words, valued: Configuration.flagNames, flagNames: ["until-idle", "json"])
        let configuration = try Configuration.load(arguments: arguments)
        _ = try arguments.positionals(exactly: [])
        let setup = try WorkerSetup(configuration)
        let logger = setup.logger
        let listen = try configuration.workerListen.map { text throws(CLIError) in
            do { return try ListenAddress(parsing: text) } catch { throw .usage("worker.listen: \(error)") }
        }
        let store = try await StoreAccess.openForWorker(configuration)
        let feed =
            listen == nil
            ? nil
            : MetricsFeed(
                metrics: APNsdMetrics(version: BuildInfo.version), store: store, lease: configuration.lease,
                webhook: configuration.webhookConfigured)
        let (worker, transport) = setup.makeWorker(store: store, feed: feed)
        let state = WorkerState()
        let server: HTTPServer?
        do {
            server = try listen.map { listen in
                try probeServer(listen, feed: feed!, state: state, store: store)
            }
        } catch {
            throw .failure("worker.listen: \(error)")
        }
        if let server { Output.line("listening on http://\(server.address)") }
        let reload = ReloadSignal(arguments: arguments, configuration: configuration, worker: worker)
        defer { withExtendedLifetime(reload) {} }
        // A file-size limit reached by the database must be a write error the worker can wait out, not a kill.
        signal(SIGXFSZ, SIG_IGN)
        let summary: WorkerSummary
        do throws(DispatcherError) {
            summary = try await worker.run(
                untilIdle: arguments.flag("until-idle"), shouldStop: { stops.count > 0 },
                shouldAbandon: { stops.count >= 2 },
                registered: {
                    state.set(.running)
                    // Once registered, so that this line carries the worker's id as all its others do.
                    logger.log(
                        .info, "worker.started",
                        [
                            ("database", .string(configuration.databaseName)),
                            ("connections", .int(configuration.connections)), ("rate", .int(configuration.rate)),
                            ("until_idle", .bool(arguments.flag("until-idle"))),
                        ] + (server.map { [("listen", .string($0.address.description))] } ?? []))
                })
        } catch {
            state.set(.failed("\(error)"))
            await server?.stop(deadline: .seconds(5))
            await transport.shutdown(deadline: .now + .seconds(5))
            throw .failure("\(error)\(Self.hint(error))")
        }
        state.set(.stopped)
        await server?.stop(deadline: .seconds(5))
        await transport.shutdown(deadline: .now + .seconds(5))
        logger.info("worker.finished", ("sent", .int(summary.sent)), ("accepted", .int(summary.accepted)))
        if arguments.flag("json") {
            let elsewhere = summary.heldElsewhere.map { worker in
                JSONLine([
                    "worker": .string(worker.id.description), "host": .string(worker.host), "pid": .int(worker.pid),
                    "deliveries": .int(worker.leases),
                ]).description
            }
            Output.line(
                Output.jsonLine([
                    "sent": .int(summary.sent), "accepted": .int(summary.accepted),
                    "unregistered": .int(summary.unregistered),
                    "rejected": .int(summary.rejected), "failed": .int(summary.failed),
                    "retried": .int(summary.retried),
                    "expired": .int(summary.expired), "cancelled": .int(summary.cancelled),
                    "tokenRefreshes": .int(summary.tokenRefreshes),
                    "seconds": .raw(String(format: "%.3f", summary.seconds)),
                    "heldElsewhere": .raw("[" + elsewhere.joined(separator: ",") + "]"),
                ]))
        } else {
            // The deliveries a live worker still holds: this run leaves them to it, and says so.
            for worker in summary.heldElsewhere {
                Output.line(
                    "\(worker.leases) deliveries are being sent by worker \(worker.id) "
                        + "(\(Printable.escaped(worker.host)), \(worker.pid))")
            }
            Output.line(
                String(
                    format:
                        "sent %d requests in %.1f s: %d accepted, %d unregistered, %d rejected, %d failed, %d retried later, %d expired unsent",
                    summary.sent, summary.seconds, summary.accepted, summary.unregistered, summary.rejected,
                    summary.failed, summary.retried, summary.expired))
        }
    }
}

extension WorkerCommand {
    /// The HTTP server of `worker.listen`: the worker's metrics (`feed`), `/healthz`, and `/readyz` (the database,
    /// the worker). A non-loopback address is served, with a warning: none of it needs a key.
    static func probeServer(
        _ listen: ListenAddress, feed: MetricsFeed, state: WorkerState, store: any DeliveryStore
    ) throws -> HTTPServer {
        if !(listen.host.hasPrefix("127.") || listen.host == "::1") {
            Output.error(
                "apnsd: warning: worker.listen \(listen) is not a loopback address: anyone who can reach it reads "
                    + "/metrics and /readyz (no API key is asked)")
        }
        let readiness = Readiness(store: store, worker: state)
        let endpoints = ProbeEndpoints(
            metrics: feed.metrics, readiness: { await readiness.checks() },
            refreshMetrics: { await feed.refreshGauges() })
        return try HTTPServer.start(listen: listen, handler: { await endpoints.handle($0) })
    }

    /// apnsd's hint for the store error that ended the worker, appended to its line.
    static func hint(_ error: DispatcherError) -> String {
        switch error {
        case .store(let error), .outcomesUnwritten(_, let error): return CLIError.hint(error)
        case .stopped, .unreachable, .unexpected: return ""
        }
    }
}

import APNs
import Dispatcher
import Foundation
import HTTP2Transport
import Intake
import Logging
import ProviderAuth

/// `apnsd worker [--until-idle] [--json]`: send what is due; SIGINT/SIGTERM stop it cleanly.
enum WorkerCommand {
    static func run(_ words: [String]) async throws(CLIError) {
        let stops = StopRequests.forThisCommand()
        let arguments = try Arguments(words, valued: Configuration.flagNames, flagNames: ["until-idle", "json"])
        let configuration = try Configuration.load(arguments: arguments)
        _ = try arguments.positionals(exactly: [])
        let setup = try WorkerSetup(configuration)
        let logger = setup.logger
        let store = try await StoreAccess.openForWorker(configuration)
        let (worker, transport) = setup.makeWorker(store: store)
        let reload = ReloadSignal(arguments: arguments, configuration: configuration, worker: worker)
        defer { withExtendedLifetime(reload) {} }
        // A file-size limit reached by the database must be a write error the worker can wait out, not a kill.
        signal(SIGXFSZ, SIG_IGN)
        let summary: WorkerSummary
        do {
            summary = try await worker.run(
                untilIdle: arguments.flag("until-idle"), shouldStop: { stops.count > 0 },
                shouldAbandon: { stops.count >= 2 },
                registered: {
                    // Once registered, so that this line carries the worker's id as all its others do.
                    logger.info(
                        "worker.started", ("database", .string(configuration.databaseName)),
                        ("connections", .int(configuration.connections)), ("rate", .int(configuration.rate)),
                        ("until_idle", .bool(arguments.flag("until-idle"))))
                })
        } catch {
            await transport.shutdown(deadline: .now + .seconds(5))
            throw .failure("\(error)\(Self.hint(error))")
        }
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
    /// apnsd's hint for the store error that ended the worker, appended to its line.
    static func hint(_ error: DispatcherError) -> String {
        switch error {
        case .store(let error), .outcomesUnwritten(_, let error): return CLIError.hint(error)
        case .stopped, .unreachable, .unexpected: return ""
        }
    }
}

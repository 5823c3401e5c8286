import APNs
import Dispatcher
import Foundation
import Intake
import QueueModel

/// `apnsd workers [--json]`: the workers registered on this database and the leases each holds.
enum WorkersCommand {
    static func run(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(words, valued: Configuration.flagNames, flagNames: ["json"])
        let configuration = try Configuration.load(arguments: arguments)
        _ = try arguments.positionals(exactly: [])
        // Read only: a listing waits on no writer (a worker stopped mid-transaction holds the write lock) and works
        // on a file this user may only read.
        let store = try await StoreAccess.open(configuration, readOnly: true)
        let workers: [WorkerRecord]
        do { workers = try await store.workers() } catch { throw .store(error) }
        let now = Date()
        if arguments.flag("json") {
            for worker in workers {
                let line = worker.json(now: now, lease: configuration.lease).adding([
                    ("dead", .bool(worker.processIsGone))
                ])
                Output.line(line.description)
            }
            return
        }
        Output.line(
            "ID      HOST                  PID       STARTED                   LAST HEARTBEAT            LEASES    STATE"
        )
        for worker in workers {
            let state =
                worker.processIsGone
                ? "dead (process gone: leases taken over by the next worker)"
                : worker.isStale(now: now, lease: configuration.lease) ? "stale (leases will be taken over)" : "alive"
            Output.line(
                Output.pad(worker.id.description, 8) + Output.pad(Printable.escaped(worker.host), 22)
                    + Output.pad(String(worker.pid), 10) + Output.pad(Output.timestamp(worker.startedAt), 26)
                    + Output.pad(Output.timestamp(worker.heartbeatAt), 26) + Output.pad(String(worker.leases), 10)
                    + state)
        }
    }
}

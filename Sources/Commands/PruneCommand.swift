import Dispatcher
import Foundation
import Intake
import QueueModel

/// `apnsd prune`: deletes finished deliveries and devices past their retention (`retention.*`), in short
/// transactions a running worker hardly notices, and gives the freed pages back to the filesystem.
enum PruneCommand {
    /// For `apnsd prune --help` (the help table's owner wires it into `Help.commands`).
    static let help = """
        OVERVIEW: Delete old delivery rows and stale devices; campaigns keep their counts.

        USAGE: apnsd prune [--deliveries-older-than AGE] [--devices-inactive-for AGE] [--dry-run] [--json]
                           [--enable-incremental-vacuum]

        Deletes deliveries in any status but pending last changed more than AGE ago (retention.deliveriesOlderThan,
        default 30d), inactive devices deactivated more than AGE ago and active devices not registered again for AGE
        (retention.devicesInactiveFor, default 90d). AGE: a whole number and s, m, h or d (90m, 24h, 30d). Safe while
        workers run: 5,000 rows per transaction, with a pause after each. Campaigns keep their counters.

        OPTIONS:
          --dry-run                Count what would be removed; change nothing.
          --json                   One JSON object.
          --enable-incremental-vacuum
                                   Once, for a database created by an older apnsd: rewrite the file (VACUUM) so that
                                   pruning gives space back to the filesystem. Holds the write lock until done; refused
                                   while a worker runs.

        EXAMPLES:
          apnsd prune --dry-run
          apnsd prune --deliveries-older-than 7d --json
        """

    static func run(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(
            words, valued: Configuration.flagNames, flagNames: ["dry-run", "json", "enable-incremental-vacuum"])
        let configuration = try Configuration.load(arguments: arguments)
        _ = try arguments.positionals(exactly: [])
        let dryRun = arguments.flag("dry-run")
        let convert = arguments.flag("enable-incremental-vacuum")
        if dryRun && convert { throw .usage("--enable-incremental-vacuum rewrites the file: it cannot be a --dry-run") }
        // A dry run only reads: it works on a file this user may not write, and never migrates it.
        let store = try await StoreAccess.openForRetention(configuration, readOnly: dryRun)
        let now = Date()
        let report: PruneReport
        do {
            if convert { try await enableIncrementalVacuum(store, configuration, now: now) }
            report = try await store.prune(
                deliveriesBefore: now.addingTimeInterval(-Double(configuration.retentionDeliveries.seconds)),
                devicesBefore: now.addingTimeInterval(-Double(configuration.retentionDevices.seconds)), dryRun: dryRun)
        } catch {
            throw .store(error)
        }
        await store.close()
        if arguments.flag("json") {
            Output.line(
                report.json(
                    deliveriesOlderThan: configuration.retentionDeliveries,
                    devicesInactiveFor: configuration.retentionDevices
                ).description)
        } else {
            Output.line(summary(report))
        }
        if !report.space.incremental && !arguments.flag("json") {
            Output.error(
                "note: this database was created before incremental vacuum: free pages are reused by new rows, but the file does not shrink; 'apnsd prune --enable-incremental-vacuum' converts it once (stop the workers first)"
            )
        }
    }

    /// The conversion refuses to start while a worker heartbeats: VACUUM would hold the write lock for minutes.
    private static func enableIncrementalVacuum(_ store: any RetentionStore, _ configuration: Configuration, now: Date)
        async throws(CLIError)
    {
        do {
            guard try await !store.freeSpace().incremental else { return }
            let alive = try await store.workers().filter {
                !$0.isStale(now: now, lease: configuration.lease) && !$0.processIsGone
            }
            guard alive.isEmpty else {
                throw CLIError.failure(
                    "--enable-incremental-vacuum rewrites the whole file and would stall \(alive.count) running worker(s) (see 'apnsd workers'): stop them first"
                )
            }
            try await store.enableIncrementalVacuum()
        } catch {
            throw .store(error)
        }
    }

    private static func summary(_ report: PruneReport) -> String {
        let verb = report.dryRun ? "would remove" : "removed"
        var line =
            "\(verb) \(report.deliveries) deliveries finished before \(Output.timestamp(report.deliveriesBefore))"
        line +=
            " and \(report.devices) devices (\(report.inactiveDevices) deactivated and \(report.devices - report.inactiveDevices)"
        line += " not registered again since \(Output.timestamp(report.devicesBefore)))"
        if report.dryRun {
            line += "; dry run: nothing changed"
        } else if report.space.incremental {
            let mib = Double(report.pagesReclaimed * report.space.pageSize) / 1_048_576
            line +=
                "; gave \(report.pagesReclaimed) free pages (\(String(format: "%.1f", mib)) MiB) back to the filesystem"
        }
        return line + " in \(report.steps) steps"
    }
}

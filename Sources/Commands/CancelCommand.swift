import Foundation
import Intake
import QueueModel

/// `apnsd campaign cancel ID` (and `apnsd cancel ID`, which also takes a single send's id): stop a campaign
/// so that nothing of it leaves after this returns, except requests already written to APNs.
enum CancelCommand {
    static func run(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(words, valued: Configuration.flagNames, flagNames: ["json"])
        let configuration = try Configuration.load(arguments: arguments)
        let id = try arguments.campaignID()
        let store = try await StoreAccess.open(configuration)
        let report: CancelReport
        do {
            report = try await store.cancel(id, staleAfter: configuration.lease, waitUpTo: configuration.workerLease)
        } catch {
            throw .store(error)
        }
        if arguments.flag("json") {
            Output.line(
                report.campaign.json.adding([
                    ("cancelledNow", .int(report.cancelled)), ("inFlight", .int(report.inFlight)),
                    ("unacknowledgedWorkers", .int(report.unacknowledged)),
                ]).description)
            return
        }
        if report.wasFinished {
            Output.line("campaign \(id) is already \(report.campaign.status): nothing to cancel")
            return
        }
        var line = "cancelled campaign \(id): \(report.cancelled) pending deliveries cancelled"
        if report.inFlight > 0 {
            line += ", of which \(report.inFlight) were already sent to APNs (the log will show their answer)"
        }
        if report.unacknowledged > 0 {
            line +=
                "; \(report.unacknowledged) worker(s) did not answer within \(configuration.workerLease) s — see 'apnsd workers'"
        }
        Output.line(line)
    }
}

import Foundation
import QueueModel
import QueueRules

/// The other workers on the queue, judged by `Liveness`: a dead one's leases are taken over at once, a quiet one's
/// when its lease runs out, and a live one keeps what it holds (`--until-idle` ends saying so).
extension WorkerStateMachine {
    /// A worker's row and what this host sees of its process (nil: another host or pid namespace, or unreadable).
    struct Seen: Hashable, Sendable {
        var record: WorkerRecord
        var process: ProcessState?
    }

    /// The workers as read now: which are dead (taken over now), which quiet (`nextRescue`), which hold leases alive.
    mutating func workersSeen(_ workers: [Seen], now: Date) -> [Action] {
        let liveness = Liveness(ours: process, heartbeat: configuration.heartbeat, lease: configuration.lease)
        let nowMS = now.storeMilliseconds
        var dead: [WorkerID] = []
        var holding: Set<WorkerID> = []
        var alive: [WorkerRecord] = []
        var rescue: Int64?
        for seen in workers where seen.record.id != id {
            let leases = seen.record.leases
            switch liveness.verdict(seen.record, process: seen.process, now: nowMS) {
            case .dead:
                dead.append(seen.record.id)
                if leases > 0 { holding.insert(seen.record.id) }
            case .alive:
                if leases > 0 { alive.append(seen.record) }
            case .silent(let at):
                if leases > 0 { rescue = min(rescue ?? at, at) }
            }
        }
        nextRescue = rescue.map(Milliseconds.date)
        deadHolding = holding
        if untilIdle { summary.heldElsewhere = alive }
        return dead.isEmpty ? [] : [.takeOver(dead)]
    }

    /// Dead workers' leases were taken over: what they held is due now.
    mutating func tookOver(_ report: RescueReport, now: Date) -> [Action] {
        // Rows already gone were taken over by another worker: either way, claim again before ending.
        deadHolding.removeAll()
        nextClaimAt = now
        idleConfirmed = false
        guard !report.workers.isEmpty else { return [] }
        return [
            .log(
                LogLine(
                    .warning, "worker.dead_leases_taken_over",
                    ("workers", .string(report.workers.map(\.description).joined(separator: ","))),
                    ("deliveries", .int(report.deliveries)),
                    ("why", "the process is gone (same host boot and pid namespace)")))
        ]
    }
}

import Foundation
import HTTP2Transport

/// The lines an operator reads to know what the worker is doing: a throughput line every 10 s
/// (`throughputLogInterval`) while sending, and connections opening and closing.
extension WorkerStateMachine {
    /// Since the last throughput line.
    struct ActivityWindow: Sendable {
        var since: Date
        var baseline: WorkerSummary
        var deactivated = 0
    }

    /// The throughput line, once `throughputLogInterval` has passed with something sent in it.
    mutating func reportThroughput(now: Date) -> [Action] {
        guard let window = activity else {
            activity = ActivityWindow(since: now, baseline: summary)
            return []
        }
        let seconds = now.timeIntervalSince(window.since)
        guard seconds >= configuration.throughputLogInterval.seconds else { return [] }
        let current = summary
        let requests = current.sent - window.baseline.sent
        activity = ActivityWindow(since: now, baseline: current)
        guard requests > 0 || inFlight > 0 else { return [] }
        return [
            .log(
                LogLine(
                    .info, "worker.throughput",
                    ("requests_per_second", .decimal(Double(requests) / seconds, places: 1)),
                    ("requests", .int(requests)), ("accepted", .int(current.accepted - window.baseline.accepted)),
                    ("retried", .int(current.retried - window.baseline.retried)),
                    ("rejected", .int(current.rejected - window.baseline.rejected)),
                    ("failed", .int(current.failed - window.baseline.failed)),
                    ("deactivated", .int(window.deactivated)), ("in_flight", .int(inFlight)),
                    ("queued", .int(queued + heldCount)), ("seconds", .decimal(seconds, places: 1))))
        ]
    }

    /// One line per connection that opened or closed since the last sample (libcurl opens and closes them; the
    /// transport's counters say which, and the last error says why one closed).
    mutating func connectionsSampled(_ stats: [PoolKey: [ConnectionStats]]) -> [Action] {
        var actions: [Action] = []
        for (key, connections) in stats {
            for (index, stats) in connections.enumerated() {
                let name = "\(key.environment.rawValue)/\(index)"
                let was = connectionsOpen[name] ?? false
                connectionsOpen[name] = stats.isOpen
                if stats.isOpen && !was {
                    actions.append(
                        .log(
                            LogLine(
                                .info, "apns.connection_opened",
                                ("apns.environment", .string(key.environment.rawValue)),
                                ("connection", .int(index)), ("reconnects", .int(stats.reconnects)))))
                } else if !stats.isOpen && was {
                    actions.append(
                        .log(
                            LogLine(
                                .info, "apns.connection_closed",
                                ("apns.environment", .string(key.environment.rawValue)),
                                ("connection", .int(index)),
                                (
                                    "reason",
                                    .string(
                                        stats.lastError?.description
                                            ?? "closed without an error (idle, or APNs went away)")
                                ))))
                }
            }
        }
        return actions
    }
}

import Foundation
import HTTP2Transport
import Logging

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

    /// One line per connection that opened or closed, and per failed connection attempt, since the last sample
    /// (libcurl opens and closes them; the transport's counters say which, and the last error says why); the
    /// failed attempts also go to the observer, by reason.
    mutating func connectionsSampled(_ stats: [PoolKey: [ConnectionStats]]) -> [Action] {
        var actions: [Action] = []
        for (key, connections) in stats {
            let environment: (String, Logger.Value) = ("apns.environment", .string(key.environment.rawValue))
            for (index, stats) in connections.enumerated() {
                let name = "\(key.environment.rawValue)/\(index)"
                let was = connectionsSeen[name] ?? ConnectionStats()
                connectionsSeen[name] = stats
                let reconnects: (String, Logger.Value) = ("reconnects", .int(max(0, stats.opened - 1)))
                for reason in ConnectFailureReason.allCases {
                    let new = (stats.connectFailures[reason] ?? 0) - (was.connectFailures[reason] ?? 0)
                    guard new > 0 else { continue }
                    actions.append(.connectFailed(key.environment, reason, count: new))
                    actions.append(
                        .log(
                            LogLine(
                                .warning, "apns.connection_failed", environment, ("connection", .int(index)),
                                ("reason", .string(reason.rawValue)), ("attempts", .int(new)),
                                ("state", .string(stats.state.rawValue)),
                                ("error", .string(stats.lastConnectFailure?.description ?? reason.rawValue)))))
                }
                if stats.opened > was.opened {
                    actions.append(
                        .log(
                            LogLine(
                                .info, "apns.connection_opened", environment, ("connection", .int(index)),
                                reconnects)))
                }
                if was.isOpen && (!stats.isOpen || stats.opened > was.opened) {
                    actions.append(
                        .log(
                            LogLine(
                                .info, "apns.connection_closed", environment, ("connection", .int(index)),
                                reconnects,
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

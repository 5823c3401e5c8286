import API
import Foundation
import Intake
import Logging
import QueueModel

/// `apnsd campaign watch ID [--interval SECONDS]`: the campaign's progress until it ends. On a terminal a line
/// redrawn in place (bar, percent, counts, rate, ETA, and why it waits when it does); otherwise one JSON line per interval. Exit 0 when it
/// completes without failures, 1 when it was cancelled or some deliveries failed.
enum CampaignWatchCommand {
    static func run(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(
            words, valued: Set(["interval"]).union(Configuration.flagNames), flagNames: ["json"])
        let configuration = try Configuration.load(arguments: arguments)
        let id = try arguments.campaignID()
        var interval = 1.0
        if let value = try arguments.value("interval") {
            guard let seconds = Double(value), seconds >= 0.05, seconds <= 3600 else {
                throw .usage("--interval must be a number of seconds from 0.05 to 3600, got '\(value)'")
            }
            interval = seconds
        }
        let terminal = StandardStreams.current.outputIsTerminal && !arguments.flag("json")
        let store = try await StoreAccess.open(configuration, readOnly: true)
        var rate = RateEstimate()
        let credential = (try? configuration.topicRoutes())
        while true {
            let campaign: Campaign
            let workers: [WorkerRecord]
            do {
                campaign = try await store.campaign(id)
                workers = campaign.status == .running ? try await store.workers() : []
            } catch { throw .store(error) }
            let c = campaign.counters
            let done = c.accepted + c.unregistered + c.rejected + c.failed + c.cancelled
            let perSecond = rate.update(done: done, at: Date())
            let waiting = CampaignWaiting.reason(
                for: campaign, workers: workers, credential: credential?.credential(for: campaign.content.bundleID),
                now: Date(), lease: configuration.lease)
            let eta = waiting == nil && perSecond > 0 && c.pending > 0 ? Double(c.pending) / perSecond : nil
            if terminal {
                StandardStreams.current.output(
                    "\r\u{1B}[K" + bar(campaign, done: done, perSecond: perSecond, eta: eta, waiting: waiting))
            } else {
                Output.line(
                    Output.jsonLine([
                        "id": .string(id.description), "status": .string(campaign.status.rawValue),
                        "paused": .bool(campaign.isPaused), "total": .int(c.total),
                        "done": .int(done), "percent": .raw(String(format: "%.1f", percent(campaign, done: done))),
                        "pending": .int(c.pending), "accepted": .int(c.accepted), "unregistered": .int(c.unregistered),
                        "rejected": .int(c.rejected), "failed": .int(c.failed), "cancelled": .int(c.cancelled),
                        "ratePerSecond": .raw(String(format: "%.1f", perSecond)),
                        "etaSeconds": .int(eta.map { Int($0.rounded(.up)) }),
                        "waiting": .raw(waiting.map(StatusReport.waiting(json:)) ?? "null"),
                    ]))
            }
            if campaign.status.isFinished {
                if terminal { Output.line("") }
                if campaign.status == .cancelled { throw .failure("campaign \(id) was cancelled") }
                if c.failed > 0 {
                    throw .failure(
                        "campaign \(id) completed with \(c.failed) failed deliveries (apnsd log --campaign \(id) --status failed)"
                    )
                }
                return
            }
            try? await Task.sleep(for: .milliseconds(Int64(interval * 1000)))
        }
    }

    /// Done over all known deliveries; a campaign still expanding counts its audience size when it is larger.
    private static func percent(_ campaign: Campaign, done: Int) -> Double {
        if campaign.status == .completed { return 100 }
        let total = max(campaign.counters.total, campaign.isExpanded ? 0 : campaign.audience.size)
        return total > 0 ? min(100, Double(done) * 100 / Double(total)) : 0
    }

    private static func bar(
        _ campaign: Campaign, done: Int, perSecond: Double, eta: Double?, waiting: WorkerView.Waiting?
    ) -> String {
        let c = campaign.counters
        let share = percent(campaign, done: done)
        let width = 30
        let filled = Int((share / 100 * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let etaText =
            eta.map { seconds in
                seconds >= 3600
                    ? String(format: "%dh%02dm", Int(seconds) / 3600, Int(seconds) % 3600 / 60)
                    : String(format: "%dm%02ds", Int(seconds) / 60, Int(seconds) % 60)
            } ?? "-"
        return String(
            format: "[%@] %5.1f%%  %@  %d/%d  accepted %d  unreg %d  rejected %d  failed %d  %.0f/s  ETA %@",
            bar, share, campaign.isPaused ? "paused" : campaign.status.rawValue, done, c.total, c.accepted,
            c.unregistered, c.rejected, c.failed,
            perSecond, etaText) + (waiting.map { "  waiting: \($0.reason.rawValue)" } ?? "")
    }
}

/// Deliveries finished per second, smoothed over the last samples (a rate that jumps with each sample would make
/// the ETA useless).
struct RateEstimate {
    private var last: (done: Int, at: Date)?
    private var smoothed = 0.0

    mutating func update(done: Int, at now: Date) -> Double {
        defer { last = (done, now) }
        guard let last else { return 0 }
        let seconds = now.timeIntervalSince(last.at)
        guard seconds > 0 else { return smoothed }
        let instant = Double(max(0, done - last.done)) / seconds
        smoothed = smoothed == 0 ? instant : 0.7 * smoothed + 0.3 * instant
        return smoothed
    }
}

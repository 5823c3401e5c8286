import Foundation
import Intake
import QueueModel

/// `apnsd stats [--since 1h] [--campaign ID] [--json]`: outcomes by status and reason, requests/s and accepted/s
/// over the window, deactivations, and the queue now — from counters and indexes, fast on any database.
enum StatsCommand {
    static func run(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(
            words, valued: Set(["since", "campaign"]).union(Configuration.flagNames), flagNames: ["json"])
        let configuration = try Configuration.load(arguments: arguments)
        _ = try arguments.positionals(exactly: [])
        let now = Date()
        let since: Date
        do { since = try PastTime.parse(try arguments.value("since") ?? "1h", now: now) } catch {
            throw .usage("--since: \(error)")
        }
        guard since <= now else { throw .usage("--since must be in the past") }
        let campaign = try arguments.value("campaign").map { (text: String) throws(CLIError) -> CampaignID in
            guard let id = CampaignID(text) else {
                throw .usage("'\(text)' is not a campaign id (a positive whole number)")
            }
            return id
        }
        let store = try await StoreAccess.open(configuration, readOnly: true)
        let stats: OutcomeStats
        do { stats = try await store.stats(since: since, campaign: campaign, now: now) } catch { throw .store(error) }
        if arguments.flag("json") {
            Output.line(stats.json.description)
            return
        }
        let seconds = stats.seconds
        Output.line(
            "since \(Output.timestamp(stats.since)) (\(Int(seconds)) s)\(stats.campaign.map { ", campaign \($0.id) (\($0.status))" } ?? "")"
        )
        Output.line(
            String(
                format: "requests   %d (%.1f/s)   accepted %d (%.1f/s)", stats.requests,
                Double(stats.requests) / seconds,
                stats.accepted, Double(stats.accepted) / seconds))
        Output.line("STATUS        REASON                          COUNT")
        for (status, reasons) in stats.outcomes.sorted(by: { $0.key < $1.key }) {
            for (reason, count) in reasons.sorted(by: { $0.key < $1.key }) {
                Output.line(Output.pad(status, 14) + Output.pad(reason, 32) + String(count))
            }
        }
        let deactivated = stats.deactivations.values.reduce(0, +)
        Output.line(
            "deactivated \(deactivated)"
                + (deactivated == 0
                    ? ""
                    : " ("
                        + stats.deactivations.sorted { $0.key < $1.key }
                        .map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"))
        Output.line(
            String(
                format: "queue      %d single, %d bulk pending; oldest due %.1f s ago", stats.queue.pendingSingle,
                stats.queue.pendingBulk, stats.queue.oldestDueAge))
    }
}

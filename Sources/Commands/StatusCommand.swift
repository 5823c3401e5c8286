import API
import APNs
import Foundation
import Intake

/// `apnsd status [--json]`: what `GET /v1/status` answers (`StatusReport`), from any process that reaches the
/// database: the workers and what their stored views say of APNs and the credentials, the queue, paused campaigns
/// and the webhook's backlog. `--json` prints the object; otherwise a few lines read from it.
enum StatusCommand {
    static func run(_ words: [String]) async throws(CLIError) {
        let arguments = try Arguments(words, valued: Configuration.flagNames, flagNames: ["json"])
        let configuration = try Configuration.load(arguments: arguments)
        _ = try arguments.positionals(exactly: [])
        let store = try await StoreAccess.openForStatus(configuration)
        // Opened read-only (any user who may read the database may ask): whether it answers; serve's /v1/status
        // and /readyz say whether their process can write.
        let database: String
        do {
            _ = try await store.changeCount()
            database = "ok"
        } catch {
            database = "\(error)"
        }
        // The webhook's last error is known only to the serve that posts; its backlog is in the database.
        let webhook =
            configuration.webhookConfigured ? StatusReport.Webhook(lastError: nil) : nil
        let json = await StatusReport.json(
            store: store, database: database, lease: configuration.lease, webhook: webhook)
        await store.close()
        if arguments.flag("json") { return Output.line(json) }
        guard let report = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any] else {
            throw .failure("the status report is not JSON: \(json)")
        }
        for line in lines(report) { Output.line(line) }
    }

    /// The report as text, one concern per line.
    static func lines(_ report: [String: Any]) -> [String] {
        var lines: [String] = []
        let database = (report["database"] as? [String: Any])?["status"]
        lines.append("database     " + text(database))
        let workers = report["workers"] as? [[String: Any]] ?? []
        if workers.isEmpty { lines.append("workers      none registered") }
        for worker in workers {
            let waiting = (worker["waiting"] as? [String: Any])?["reason"] as? String
            var line = "worker " + text(worker["id"]) + "     " + text(worker["host"]) + " pid " + text(worker["pid"])
            line += ", heartbeat " + text(worker["heartbeatAge"]) + " s ago, " + text(worker["leases"]) + " leases, "
            line += text(worker["state"]) + (waiting.map { " (\($0))" } ?? "")
            lines.append(line)
        }
        let apns = report["apns"] as? [String: [String: Any]] ?? [:]
        for (environment, entry) in apns.sorted(by: { $0.key > $1.key }) {
            let connections = entry["connections"] as? [String: Any] ?? [:]
            let reachable = entry["reachable"] as? Bool ?? false
            var line = "apns " + environment + "  "
            line += reachable ? "reachable" : "unreachable since " + text(entry["since"])
            line += ", connections " + text(connections["open"]) + " open, " + text(connections["connecting"])
            line += " connecting, " + text(connections["backoff"]) + " backoff"
            lines.append(line)
        }
        for credential in report["credentials"] as? [[String: Any]] ?? [] {
            var line = "credential   " + text(credential["name"]) + ": " + text(credential["status"])
            if let reason = credential["reason"] as? String { line += " (" + Printable.escaped(reason) + ")" }
            if let days = credential["certificateDaysLeft"] as? Int { line += ", certificate expires in \(days) days" }
            lines.append(line)
        }
        if let queue = report["queue"] as? [String: Any] {
            let pending = queue["pending"] as? [String: Any] ?? [:]
            let oldest = queue["oldestDueSeconds"] as? [String: Any] ?? [:]
            lines.append(
                "queue        single " + text(pending["single"]) + " pending (oldest due " + text(oldest["single"])
                    + " s), bulk " + text(pending["bulk"]) + " pending (oldest due " + text(oldest["bulk"]) + " s)")
        }
        let paused = report["pausedCampaigns"] as? [String] ?? []
        if !paused.isEmpty { lines.append("paused       campaigns " + paused.joined(separator: ", ")) }
        if let webhook = report["webhook"] as? [String: Any] {
            lines.append("webhook      backlog " + text(webhook["backlog"]) + " events")
        }
        return lines
    }

    /// A JSON value as printable text ("-" for null or absent).
    private static func text(_ value: Any?) -> String {
        guard let value, !(value is NSNull) else { return "-" }
        return Printable.escaped("\(value)")
    }
}

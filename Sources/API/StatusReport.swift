import Foundation
import Intake
import Logging
import QueueModel

/// `GET /v1/status` and `apnsd status --json`: one JSON object with what `/readyz` does not decide on — the
/// database, the workers and what they see (their stored views), APNs and the credentials as the live workers see
/// them, the queue, paused campaigns and the webhook's backlog. Built in this one place for both.
public enum StatusReport {
    /// The webhook as the process that runs it knows it (`lastError` only there).
    public struct Webhook: Sendable {
        public var lastError: String?
        public init(lastError: String?) { self.lastError = lastError }
    }

    /// The report as of `now`: `database` is the database check ("ok" or why not); a worker whose heartbeat is
    /// older than `lease` is stale and left out of `apns` and `credentials`; `webhook` nil when none is configured.
    public static func json(
        store: any ProducerStore & DeliveryStore & EventStore & GaugeStore, database: String, lease: Duration,
        webhook: Webhook?, now: Date = Date()
    ) async -> String {
        let workers = (try? await store.workers()) ?? []
        let live = workers.filter { !$0.isStale(now: now, lease: lease) }
        let gauges = try? await store.gauges(now: now)
        let paused = ((try? await store.pausedCampaigns()) ?? []).map(\.rawValue).sorted()
        let backlog = webhook == nil ? nil : gauges?.webhookBacklog
        let fields: [(String, String)] = [
            ("database", JSONLine(["status": .string(database)]).description),
            ("workers", "[" + workers.map { worker(json: $0, now: now, lease: lease) }.joined(separator: ",") + "]"),
            ("apns", apns(live.compactMap(\.view))),
            ("credentials", credentials(live.compactMap(\.view), now: now)),
            ("queue", queue(gauges)),
            ("pausedCampaigns", "[" + paused.map { JSONText.quote(String($0)) }.joined(separator: ",") + "]"),
            (
                "webhook",
                webhook.map {
                    JSONLine(["backlog": .int(backlog), "lastError": .string($0.lastError)]).description
                } ?? "null"
            ),
        ]
        return "{" + fields.map { "\(JSONText.quote($0.0)):\($0.1)" }.joined(separator: ",") + "}"
    }

    /// A worker: `state` is `stale` (heartbeat older than the lease: its leases will be taken over), `waiting`
    /// (its view says why, in `waiting`) or `sending`.
    static func worker(json record: WorkerRecord, now: Date, lease: Duration) -> String {
        let stale = record.isStale(now: now, lease: lease)
        let waiting = record.view?.waiting
        let state = stale ? "stale" : waiting != nil ? "waiting" : "sending"
        return JSONLine([
            "id": .string(record.id.description), "host": .string(record.host), "pid": .int(record.pid),
            "heartbeatAge": .raw(String(format: "%.1f", max(0, now.timeIntervalSince(record.heartbeatAt)))),
            "leases": .int(record.leases), "state": .string(state),
            "waiting": .raw(waiting.map(Self.waiting(json:)) ?? "null"),
        ]).description
    }

    /// `{"reason": …, "since": …}`.
    public static func waiting(json waiting: WorkerView.Waiting) -> String {
        JSONLine(["reason": .string(waiting.reason.rawValue), "since": .date(waiting.since)]).description
    }

    /// By environment any live worker used: reachable unless one of them finds it unreachable (since the earliest
    /// of those), connections summed over them.
    static func apns(_ views: [WorkerView]) -> String {
        var merged: [String: WorkerView.APNsView] = [:]
        for view in views {
            for (environment, seen) in view.apns {
                var entry = merged[environment] ?? WorkerView.APNsView(reachable: true)
                entry.reachable = entry.reachable && seen.reachable
                if let since = seen.since { entry.since = min(entry.since ?? since, since) }
                for (state, count) in seen.connections { entry.connections[state, default: 0] += count }
                merged[environment] = entry
            }
        }
        let items = merged.sorted { $0.key > $1.key }.map { environment, entry in
            let connections = ["open", "connecting", "backoff"].map { #""\#($0)":\#(entry.connections[$0] ?? 0)"# }
            return JSONText.quote(environment) + ":"
                + JSONLine([
                    "reachable": .bool(entry.reachable), "since": .date(entry.reachable ? nil : entry.since),
                    "connections": .raw("{" + connections.joined(separator: ",") + "}"),
                ]).description
        }
        return "{" + items.joined(separator: ",") + "}"
    }

    /// By name, over the live workers: paused when one of them finds it refused; the fewest certificate days left.
    static func credentials(_ views: [WorkerView], now: Date) -> String {
        var merged: [String: WorkerView.CredentialView] = [:]
        for credential in views.flatMap(\.credentials) {
            var entry = merged[credential.name] ?? credential
            if entry.paused == nil, credential.paused != nil {
                entry.paused = credential.paused
                entry.pausedSince = credential.pausedSince
            }
            merged[credential.name] = entry
        }
        let items = merged.values.sorted { $0.name < $1.name }.map { credential in
            JSONLine([
                "name": .string(credential.name), "status": .string(credential.paused == nil ? "ok" : "paused"),
                "reason": .string(credential.paused), "since": .date(credential.pausedSince),
                "certificateDaysLeft": .int(credential.certificateDaysLeft(now: now)),
            ]).description
        }
        return "[" + items.joined(separator: ",") + "]"
    }

    /// Pending deliveries and how long the oldest due one has waited, by class (held and leased ones included).
    static func queue(_ gauges: QueueGauges?) -> String {
        guard let gauges else { return "null" }
        let seconds = { (value: Double) in String(format: "%.1f", value) }
        return JSONLine([
            "oldestDueSeconds": .raw(
                #"{"single":\#(seconds(gauges.oldestDueAgeSingle)),"bulk":\#(seconds(gauges.oldestDueAgeBulk))}"#),
            "pending": .raw(#"{"single":\#(gauges.pendingSingle),"bulk":\#(gauges.pendingBulk)}"#),
        ]).description
    }
}

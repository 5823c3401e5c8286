import Foundation
import Logging
import QueueModel

extension OutcomeStats {
    /// `apnsd stats --json` and `GET /v1/stats`: counts by status and reason (keys sorted), rates per second over
    /// the window, deactivations by reason, the queue now, and the campaign when one was asked for.
    public var json: JSONLine {
        let rates = { (count: Int) in String(format: "%.2f", Double(count) / seconds) }
        return JSONLine([
            "since": .date(since), "until": .date(until), "seconds": .raw(String(format: "%.0f", seconds)),
            "outcomes": .raw(Self.object(outcomes.sorted { $0.key < $1.key }.map { ($0.key, Self.counts($0.value)) })),
            "requests": .int(requests), "requestsPerSecond": .raw(rates(requests)),
            "accepted": .int(accepted), "acceptedPerSecond": .raw(rates(accepted)),
            "deactivations": .raw(Self.counts(deactivations)), "deactivated": .int(deactivations.values.reduce(0, +)),
            "queue": .raw(
                JSONLine([
                    "pendingSingle": .int(queue.pendingSingle), "pendingBulk": .int(queue.pendingBulk),
                    "oldestDueAgeSeconds": .raw(String(format: "%.3f", queue.oldestDueAge)),
                ]).description),
            "campaign": .raw(campaign?.json.description ?? "null"),
        ])
    }

    /// A JSON object of counts, keys sorted.
    static func counts(_ values: [String: Int]) -> String {
        object(values.sorted { $0.key < $1.key }.map { ($0.key, String($0.value)) })
    }

    /// A JSON object of already-serialized values, in the order given.
    static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { "\(JSONText.quote($0.0)):\($0.1)" }.joined(separator: ",") + "}"
    }
}

import Foundation
import QueueModel

/// The JSON shapes of apnsd's records, one place for the CLI's `--json` and the HTTP API. Ids (of campaigns,
/// deliveries and workers, and a delivery's `campaign`) are JSON strings ("42"), everywhere.
extension Device {
    public var json: JSONLine {
        JSONLine([
            "token": .string(token.hex), "topic": .string(topic), "environment": .string(environment.rawValue),
            "user": .string(user), "active": .bool(isActive), "registeredAt": .date(registeredAt),
            "deactivatedAt": .date(deactivatedAt), "reason": .string(reason?.rawValue),
            "kind": .string(kind.rawValue), "activityType": .string(activityType),
        ])
    }
}

extension Campaign {
    public var json: JSONLine {
        let c = counters
        return JSONLine([
            "id": .string(id.description), "kind": .string("\(kind)"), "status": .string("\(status)"),
            "audience": .string("\(audience.kind)"), "audienceSize": .int(audience.size),
            "environment": .string(audience.environment?.rawValue),
            "topic": .string(content.bundleID), "pushType": .string(content.pushType.rawValue),
            "priority": .int(content.priority.rawValue),
            "expiration": .int(content.expiration.map { Int($0.secondsSince1970) }),
            "collapseId": .string(content.collapseID?.value),
            "scheduledAt": .date(scheduledAt), "createdAt": .date(createdAt), "startedAt": .date(startedAt),
            "finishedAt": .date(finishedAt), "expanded": .bool(isExpanded), "paused": .bool(isPaused),
            "total": .int(c.total), "pending": .int(c.pending), "accepted": .int(c.accepted),
            "unregistered": .int(c.unregistered),
            "rejected": .int(c.rejected), "failed": .int(c.failed), "cancelled": .int(c.cancelled),
            "activityType": .string(audience.activity?.type), "activityKind": .string(audience.activity?.kind.rawValue),
            "channel": .int(audience.channel.map(Int.init)),
        ])
    }
}

extension LogEntry {
    public var json: JSONLine {
        JSONLine([
            "id": .string(id.description), "campaign": .string(campaignID.description), "token": .string(token?.hex),
            "channel": .int(channel.map(Int.init)), "status": .string(status.rawValue),
            "httpStatus": .int(httpStatus), "reason": .string(reason?.rawValue), "apnsId": .string(apnsID),
            "attempts": .int(attempts), "updatedAt": .date(updatedAt),
        ])
    }
}

extension LogEntry {
    /// With every APNs answer it got (`apnsd log --attempts --json`), under `answers`.
    public func json(answers: [DeliveryAttempt]) -> JSONLine {
        json.adding([("answers", .raw("[" + answers.map(\.json.description).joined(separator: ",") + "]"))])
    }
}

extension DeliveryAttempt {
    public var json: JSONLine {
        JSONLine([
            "attempt": .int(attempt), "at": .date(at), "httpStatus": .int(httpStatus),
            "reason": .string(reason?.rawValue),
        ])
    }
}

extension WorkerRecord {
    /// With whether its heartbeat is older than `lease` at `now`.
    public func json(now: Date, lease: Duration) -> JSONLine {
        JSONLine([
            "id": .string(id.description), "host": .string(host), "pid": .int(pid),
            "startedAt": .date(startedAt), "heartbeatAt": .date(heartbeatAt),
            "leases": .int(leases), "stale": .bool(isStale(now: now, lease: lease)),
        ])
    }
}

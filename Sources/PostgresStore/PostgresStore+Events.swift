import APNs
import Foundation
import QueueModel
import QueueRules

extension PostgresStore {
    static let eventColumns = "id, type, token, topic, environment, user_id, reason, at, campaign_id, delivery_id"

    /// Events with an id greater than `after` (all when nil), in id order, at most `limit`.
    public func events(after: EventID? = nil, limit: Int = 500) throws(StoreError) -> [Event] {
        try read { db in
            let rows = try db.query(
                "SELECT \(Self.eventColumns) FROM events WHERE id > $1 ORDER BY id LIMIT $2",
                after?.rawValue ?? 0, Int64(max(0, limit)))
            return try rows.map { row in try Self.event(rows, row) }
        }
    }

    /// The newest `limit` events, in id order.
    public func latestEvents(limit: Int) throws(StoreError) -> [Event] {
        try read { db in
            let rows = try db.query(
                "SELECT \(Self.eventColumns) FROM (SELECT * FROM events ORDER BY id DESC LIMIT $1) AS newest ORDER BY id",
                Int64(max(0, limit)))
            return try rows.map { row in try Self.event(rows, row) }
        }
    }

    /// The last event the webhook acknowledged (nil before the first).
    public func webhookCursor() throws(StoreError) -> EventID? {
        try read { db in
            try db.query("SELECT event_id FROM webhook_cursor WHERE id = 1").scalarInt64().map { EventID(rawValue: $0) }
        }
    }

    /// Records that the webhook acknowledged every event up to `cursor`; a cursor never moves back. A failure
    /// recorded for a batch it passes is over and removed.
    public func advanceWebhookCursor(to cursor: EventID, now: Date = Date()) throws(StoreError) {
        try write { db in try Self.advanceCursor(db, to: cursor, now: now) }
    }

    /// Deletes events written before `cutoff`; with `keepUndelivered` (a webhook is configured), only those the
    /// webhook acknowledged. Returns how many were deleted.
    @discardableResult
    public func pruneEvents(writtenBefore cutoff: Date, keepUndelivered: Bool) throws(StoreError) -> Int {
        try write { db in
            try db.query(
                """
                DELETE FROM events WHERE at < $1
                  AND (NOT $2 OR id <= COALESCE((SELECT event_id FROM webhook_cursor WHERE id = 1), 0))
                """, cutoff.storeMilliseconds, keepUndelivered
            ).changes
        }
    }

    /// Pending sends from the live campaigns' counters (the partial index `campaign_counts_pending` holds only
    /// shards with pending rows), devices from `gauge_counts` (kept by triggers, summed over its shards), per class
    /// the first key of `deliveries_due` (rows waiting; leased and parked rows sort last as never due) and of
    /// `deliveries_due_at` (rows a worker holds or held, by when they became due), and the webhook's backlog (the
    /// ids after its cursor): one round trip whose cost does not grow with the tables.
    public func gauges(now: Date) throws(StoreError) -> QueueGauges {
        try read { db in
            let rows = try db.query(Self.gaugesSQL)
            var counts: [String: Int64] = [:]
            for row in 0..<rows.count {
                if let value = try rows.optionalInt64(row, 1) { counts[try rows.string(row, 0)] = value }
            }
            let at = now.storeMilliseconds
            let age = { (priorityClass: Int) -> Double in
                let candidates: [Int64?] = [counts["due.\(priorityClass)"], counts["held.\(priorityClass)"]]
                let oldest: Int64? = candidates.compactMap { $0 }.filter { $0 <= at }.min()
                return oldest.map { Double(at - $0) / 1000 } ?? 0
            }
            return QueueGauges(
                pendingSingle: Int(counts["pending.single", default: 0]),
                pendingBulk: Int(counts["pending.bulk", default: 0]),
                oldestDueAgeSingle: age(0), oldestDueAgeBulk: age(1),
                activeDevices: Int(counts["devices.active", default: 0]),
                inactiveDevices: Int(counts["devices.inactive", default: 0]),
                webhookBacklog: Int(counts["webhook.backlog", default: 0]))
        }
    }

    /// The gauges' one statement: (name, value) rows.
    static let gaugesSQL = """
        SELECT 'pending.' || kind, SUM(pending)::bigint FROM campaign_counts WHERE pending <> 0 GROUP BY kind
        UNION ALL SELECT name, SUM(value)::bigint FROM gauge_counts GROUP BY name
        UNION ALL SELECT 'due.0', MIN(next_attempt_at) FROM deliveries WHERE status = 'pending' AND priority_class = 0
        UNION ALL SELECT 'due.1', MIN(next_attempt_at) FROM deliveries WHERE status = 'pending' AND priority_class = 1
        UNION ALL SELECT 'held.0', MIN(due_at) FROM deliveries
            WHERE status = 'pending' AND priority_class = 0 AND due_at IS NOT NULL
        UNION ALL SELECT 'held.1', MIN(due_at) FROM deliveries
            WHERE status = 'pending' AND priority_class = 1 AND due_at IS NOT NULL
        UNION ALL SELECT 'webhook.backlog', (SELECT MAX(id) FROM events) - MIN(id) + 1 FROM events
            WHERE id > COALESCE((SELECT event_id FROM webhook_cursor WHERE id = 1), 0)
        """

    /// The event in `row` of `rows`, selected with `eventColumns`.
    static func event(_ rows: PGResult, _ row: Int) throws -> Event {
        let typeName = try rows.string(row, 1)
        guard let type = EventType(rawValue: typeName) else {
            throw StoreError.corruptValue("event type '\(typeName)'")
        }
        return Event(
            id: EventID(try rows.int64(row, 0)), type: type, token: try Decode.token(rows.string(row, 2)),
            topic: try rows.string(row, 3), environment: try Decode.environment(rows.string(row, 4)),
            user: try rows.optionalString(row, 5), reason: try rows.optionalString(row, 6).map { Reason(rawValue: $0) },
            at: Milliseconds.date(try rows.int64(row, 7)),
            campaignID: try rows.optionalInt64(row, 8).map(CampaignID.init(rawValue:)),
            deliveryID: try rows.optionalInt64(row, 9).map(DeliveryID.init(rawValue:)))
    }
}

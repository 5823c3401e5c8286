import APNs
import Foundation
import QueueModel
import QueueRules

extension Store: EventStore {
    static let eventColumns = "id, type, token, topic, environment, user_id, reason, at, campaign_id, delivery_id"

    /// Events with an id greater than `after` (all when nil), in id order, at most `limit`.
    public func events(after: EventID? = nil, limit: Int = 500) throws(StoreError) -> [Event] {
        try read { db in
            try Self.events(
                db.cached("SELECT \(Self.eventColumns) FROM events WHERE id > ? ORDER BY id LIMIT ?")
                    .bind(after?.rawValue ?? 0, limit))
        }
    }

    /// The newest `limit` events, in id order.
    public func latestEvents(limit: Int) throws(StoreError) -> [Event] {
        try read { db in
            try Self.events(
                db.cached(
                    "SELECT \(Self.eventColumns) FROM (SELECT * FROM events ORDER BY id DESC LIMIT ?) ORDER BY id"
                ).bind(max(0, limit)))
        }
    }

    /// Every event `statement` selects (`eventColumns`), then resets it.
    private static func events(_ statement: Statement) throws -> [Event] {
        defer { statement.reset() }
        var events: [Event] = []
        while try statement.step() { events.append(try event(from: statement)) }
        return events
    }

    /// The last event the webhook acknowledged (nil before the first).
    public func webhookCursor() throws(StoreError) -> EventID? {
        try read { db in
            try db.cached("SELECT event_id FROM webhook_cursor WHERE id = 1").scalarInt64().map {
                EventID(rawValue: $0)
            }
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
            try db.cached(
                """
                DELETE FROM events WHERE at < ?1
                  AND (?2 = 0 OR id <= COALESCE((SELECT event_id FROM webhook_cursor WHERE id = 1), 0))
                """
            ).bind(cutoff.storeMilliseconds, keepUndelivered).run()
            return db.changes
        }
    }

    /// Tells this process's waiters that events were committed.
    func eventsWritten() { eventCommits.notify() }

    static func event(from row: Statement) throws -> Event {
        guard let type = EventType(rawValue: row.string(1)) else {
            throw StoreError.corruptValue("event type '\(row.string(1))'")
        }
        return Event(
            id: EventID(row.int64(0)), type: type, token: try Decode.token(row.string(2)), topic: row.string(3),
            environment: try Decode.environment(row.string(4)), user: row.optionalString(5),
            reason: row.optionalString(6).map { Reason(rawValue: $0) }, at: Milliseconds.date(row.int64(7)),
            campaignID: row.optionalInt64(8).map(CampaignID.init(rawValue:)),
            deliveryID: row.optionalInt64(9).map(DeliveryID.init(rawValue:)))
    }

    /// Deactivates the active device (`token`, `topic`) with `reason`, writing its `device.deactivated` event
    /// first (from the row about to change); returns whether it was active.
    static func deactivate(_ db: Connection, token: String, topic: String, reason: Reason, at: Int64) throws -> Bool {
        try db.cached(
            """
            INSERT INTO events (type, token, topic, environment, user_id, reason, at)
            SELECT 'device.deactivated', token, topic, environment, user_id, ?3, ?4 FROM devices
            WHERE token = ?1 AND topic = ?2 AND active = 1
            """
        ).bind(token, topic, reason.rawValue, at).run()
        guard db.changes > 0 else { return false }
        try db.cached(
            """
            UPDATE devices SET active = 0, deactivated_at = ?4, reason = ?3 WHERE token = ?1 AND topic = ?2 AND active = 1
            """
        ).bind(token, topic, reason.rawValue, at).run()
        return true
    }

    /// One `device.deactivated` event per delivery in `deliveries` (a JSON array of ids, in the order given)
    /// whose answer just deactivated its device: one statement for a whole batch of outcomes.
    static let deactivationEventsSQL = """
        INSERT INTO events (type, token, topic, environment, user_id, reason, campaign_id, delivery_id, at)
        SELECT 'device.deactivated', d.token, d.topic, d.environment, d.user_id, d.reason, x.campaign_id, x.id, ?2
        FROM json_each(?1) j
        JOIN deliveries x ON x.id = j.value
        JOIN campaigns c ON c.id = x.campaign_id
        JOIN devices d ON d.token = x.token AND d.topic = c.topic
        ORDER BY j.key
        """

    /// One `delivery.failed` event per delivery in `deliveries` (a JSON array of ids, in the order given).
    static let failureEventsSQL = """
        INSERT INTO events (type, token, topic, environment, user_id, reason, campaign_id, delivery_id, at)
        SELECT 'delivery.failed', x.token, c.topic, x.environment, d.user_id, x.reason, x.campaign_id, x.id, ?2
        FROM json_each(?1) j
        JOIN deliveries x ON x.id = j.value
        JOIN campaigns c ON c.id = x.campaign_id
        LEFT JOIN devices d ON d.id = x.device_id
        ORDER BY j.key
        """

    /// `ids` as a JSON array, for `json_each`.
    static func jsonArray(_ ids: [Int64]) -> String {
        "[" + ids.map(String.init).joined(separator: ",") + "]"
    }
}

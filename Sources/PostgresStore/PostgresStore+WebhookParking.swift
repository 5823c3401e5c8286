import Foundation
import QueueModel
import QueueRules

extension PostgresStore {
    static let parkedColumns =
        "id, first_event_id, last_event_id, events, attempts, first_failure_at, parked_at, last_error"

    /// The batch the webhook is failing to deliver (nil when the last attempt succeeded, or before any).
    public func webhookFailure() throws(StoreError) -> WebhookFailure? {
        try read { db in
            let rows = try db.query(
                """
                SELECT first_event_id, last_event_id, events, attempts, first_failure_at, last_error, updated_at
                FROM webhook_failure WHERE id = 1
                """)
            guard rows.count > 0 else { return nil }
            return WebhookFailure(
                first: EventID(try rows.int64(0, 0)), last: EventID(try rows.int64(0, 1)),
                events: Int(try rows.int64(0, 2)), attempts: Int(try rows.int64(0, 3)),
                firstFailureAt: Milliseconds.date(try rows.int64(0, 4)), lastError: try rows.string(0, 5),
                updatedAt: Milliseconds.date(try rows.int64(0, 6)))
        }
    }

    /// Records `failure`, replacing the one recorded before.
    public func recordWebhookFailure(_ failure: WebhookFailure) throws(StoreError) {
        try write { db in
            _ = try db.query(
                """
                INSERT INTO webhook_failure
                    (id, first_event_id, last_event_id, events, attempts, first_failure_at, last_error, updated_at)
                VALUES (1, $1, $2, $3, $4, $5, $6, $7)
                ON CONFLICT (id) DO UPDATE SET first_event_id = excluded.first_event_id,
                    last_event_id = excluded.last_event_id, events = excluded.events, attempts = excluded.attempts,
                    first_failure_at = excluded.first_failure_at, last_error = excluded.last_error,
                    updated_at = excluded.updated_at
                """, failure.first.rawValue, failure.last.rawValue, Int64(failure.events), Int64(failure.attempts),
                failure.firstFailureAt.storeMilliseconds, failure.lastError, failure.updatedAt.storeMilliseconds)
        }
    }

    /// Sets `failure`'s batch aside: a parked row, the cursor at its last event, the failure removed; one transaction.
    /// Nil (nothing written) when the cursor is already past the batch's first event (another process moved it); the
    /// cursor's row is locked first, so two processes parking the same batch park it once.
    public func parkWebhookBatch(_ failure: WebhookFailure, now: Date = Date()) throws(StoreError)
        -> ParkedWebhookBatch?
    {
        try write { db in
            let cursor = try db.query("SELECT event_id FROM webhook_cursor WHERE id = 1 FOR UPDATE").scalarInt64() ?? 0
            guard cursor < failure.first.rawValue else { return nil }
            let id = try db.query(
                """
                INSERT INTO webhook_parked
                    (first_event_id, last_event_id, events, attempts, first_failure_at, parked_at, last_error)
                VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id
                """, failure.first.rawValue, failure.last.rawValue, Int64(failure.events), Int64(failure.attempts),
                failure.firstFailureAt.storeMilliseconds, now.storeMilliseconds, failure.lastError
            ).int64(0, 0)
            try Self.advanceCursor(db, to: failure.last, now: now)
            return ParkedWebhookBatch(id: id, parking: failure, at: now)
        }
    }

    /// The parked batches, oldest first.
    public func parkedWebhookBatches() throws(StoreError) -> [ParkedWebhookBatch] {
        try read { db in
            let rows = try db.query("SELECT \(Self.parkedColumns) FROM webhook_parked ORDER BY id")
            return try (0..<rows.count).map { row in
                ParkedWebhookBatch(
                    id: try rows.int64(row, 0), first: EventID(try rows.int64(row, 1)),
                    last: EventID(try rows.int64(row, 2)), events: Int(try rows.int64(row, 3)),
                    attempts: Int(try rows.int64(row, 4)), firstFailureAt: Milliseconds.date(try rows.int64(row, 5)),
                    parkedAt: Milliseconds.date(try rows.int64(row, 6)), lastError: try rows.string(row, 7))
            }
        }
    }

    /// Removes parked batch `id`; false when there was none.
    @discardableResult
    public func removeParkedWebhookBatch(id: Int64) throws(StoreError) -> Bool {
        try write { db in try db.query("DELETE FROM webhook_parked WHERE id = $1", id).changes > 0 }
    }

    /// Records another refused attempt of parked batch `id`, with its error.
    public func recordParkedWebhookRefusal(id: Int64, error: String) throws(StoreError) {
        try write { db in
            _ = try db.query(
                "UPDATE webhook_parked SET attempts = attempts + 1, last_error = $2 WHERE id = $1", id, error)
        }
    }

    /// Moves the cursor forward to `cursor` (never back) and ends a failure recorded for a batch it passes.
    static func advanceCursor(_ db: PGConnection, to cursor: EventID, now: Date) throws {
        _ = try db.query(
            """
            INSERT INTO webhook_cursor (id, event_id, updated_at) VALUES (1, $1, $2)
            ON CONFLICT (id) DO UPDATE SET event_id = excluded.event_id, updated_at = excluded.updated_at
            WHERE excluded.event_id > webhook_cursor.event_id
            """, cursor.rawValue, now.storeMilliseconds)
        _ = try db.query("DELETE FROM webhook_failure WHERE first_event_id <= $1", cursor.rawValue)
    }
}

import Foundation
import QueueModel
import QueueRules

extension Store {
    static let parkedColumns =
        "id, first_event_id, last_event_id, events, attempts, first_failure_at, parked_at, last_error"

    /// The batch the webhook is failing to deliver (nil when the last attempt succeeded, or before any).
    public func webhookFailure() throws(StoreError) -> WebhookFailure? {
        try read { db in
            let statement = try db.cached(
                """
                SELECT first_event_id, last_event_id, events, attempts, first_failure_at, last_error, updated_at
                FROM webhook_failure WHERE id = 1
                """)
            defer { statement.reset() }
            guard try statement.step() else { return nil }
            return WebhookFailure(
                first: EventID(statement.int64(0)), last: EventID(statement.int64(1)), events: statement.int(2),
                attempts: statement.int(3), firstFailureAt: Milliseconds.date(statement.int64(4)),
                lastError: statement.string(5), updatedAt: Milliseconds.date(statement.int64(6)))
        }
    }

    /// Records `failure`, replacing the one recorded before.
    public func recordWebhookFailure(_ failure: WebhookFailure) throws(StoreError) {
        try write { db in try Self.recordFailure(db, failure) }
    }

    /// Sets `failure`'s batch aside: a parked row, the cursor at its last event, the failure removed; one transaction.
    /// Nil (nothing written) when the cursor is already past the batch's first event (another process moved it).
    public func parkWebhookBatch(_ failure: WebhookFailure, now: Date = Date()) throws(StoreError)
        -> ParkedWebhookBatch?
    {
        try write { db in
            try db.cached(
                """
                INSERT INTO webhook_parked
                    (first_event_id, last_event_id, events, attempts, first_failure_at, parked_at, last_error)
                SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7
                WHERE COALESCE((SELECT event_id FROM webhook_cursor WHERE id = 1), 0) < ?1
                """
            ).bind(
                failure.first.rawValue, failure.last.rawValue, Int64(failure.events), Int64(failure.attempts),
                failure.firstFailureAt.storeMilliseconds, now.storeMilliseconds, failure.lastError
            ).run()
            guard db.changes > 0 else { return nil }
            let id = db.lastInsertRowID
            try Self.advanceCursor(db, to: failure.last, now: now)
            return ParkedWebhookBatch(id: id, parking: failure, at: now)
        }
    }

    /// The parked batches, oldest first.
    public func parkedWebhookBatches() throws(StoreError) -> [ParkedWebhookBatch] {
        try read { db in
            let statement = try db.cached("SELECT \(Self.parkedColumns) FROM webhook_parked ORDER BY id")
            defer { statement.reset() }
            var batches: [ParkedWebhookBatch] = []
            while try statement.step() {
                batches.append(
                    ParkedWebhookBatch(
                        id: statement.int64(0), first: EventID(statement.int64(1)), last: EventID(statement.int64(2)),
                        events: statement.int(3), attempts: statement.int(4),
                        firstFailureAt: Milliseconds.date(statement.int64(5)),
                        parkedAt: Milliseconds.date(statement.int64(6)), lastError: statement.string(7)))
            }
            return batches
        }
    }

    /// Removes parked batch `id`; false when there was none.
    @discardableResult
    public func removeParkedWebhookBatch(id: Int64) throws(StoreError) -> Bool {
        try write { db in
            try db.cached("DELETE FROM webhook_parked WHERE id = ?1").bind(id).run()
            return db.changes > 0
        }
    }

    /// Records another refused attempt of parked batch `id`, with its error.
    public func recordParkedWebhookRefusal(id: Int64, error: String) throws(StoreError) {
        try write { db in
            try db.cached("UPDATE webhook_parked SET attempts = attempts + 1, last_error = ?2 WHERE id = ?1")
                .bind(id, error).run()
        }
    }

    static func recordFailure(_ db: Connection, _ failure: WebhookFailure) throws {
        try db.cached(
            """
            INSERT INTO webhook_failure
                (id, first_event_id, last_event_id, events, attempts, first_failure_at, last_error, updated_at)
            VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7)
            ON CONFLICT (id) DO UPDATE SET first_event_id = excluded.first_event_id,
                last_event_id = excluded.last_event_id, events = excluded.events, attempts = excluded.attempts,
                first_failure_at = excluded.first_failure_at, last_error = excluded.last_error,
                updated_at = excluded.updated_at
            """
        ).bind(
            failure.first.rawValue, failure.last.rawValue, Int64(failure.events), Int64(failure.attempts),
            failure.firstFailureAt.storeMilliseconds, failure.lastError, failure.updatedAt.storeMilliseconds
        ).run()
    }

    /// Moves the cursor forward to `cursor` (never back) and ends a failure recorded for a batch it passes.
    static func advanceCursor(_ db: Connection, to cursor: EventID, now: Date) throws {
        try db.cached(
            """
            INSERT INTO webhook_cursor (id, event_id, updated_at) VALUES (1, ?1, ?2)
            ON CONFLICT (id) DO UPDATE SET event_id = excluded.event_id, updated_at = excluded.updated_at
            WHERE excluded.event_id > webhook_cursor.event_id
            """
        ).bind(cursor.rawValue, now.storeMilliseconds).run()
        try db.cached("DELETE FROM webhook_failure WHERE first_event_id <= ?1").bind(cursor.rawValue).run()
    }
}

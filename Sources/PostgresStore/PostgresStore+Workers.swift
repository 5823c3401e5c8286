import Foundation
import QueueModel
import QueueRules

/// Workers and their leases, by the engine-neutral rules of SCHEMA.md ("Workers and leases"): a lease names its
/// owner and lasts while the owner's heartbeat is fresh; only a stale worker's leases are taken over, or those of
/// a worker whose process another worker saw gone (`takeOver`).
extension PostgresStore {
    /// Registers `process` as a worker at `now` and returns its id. Cancel requests made before it started are not
    /// acknowledged by it; those still in progress are in `openCancelRequests()`.
    public func registerWorker(_ process: ProcessIdentity, now: Date = Date()) throws(StoreError) -> WorkerID {
        let nowMS = now.storeMilliseconds
        return try write { db in
            let id = try db.query(
                """
                INSERT INTO workers (host, pid, started_at, heartbeat_at, cancel_seen, boot_id, pid_namespace,
                                     process_start)
                SELECT $1, $2, $3, $3, COALESCE(MAX(seq), 0), $4::text, $5::bigint, $6::bigint FROM cancel_requests
                RETURNING id
                """, process.host, process.pid, nowMS, process.bootID, process.pidNamespace, process.startTime
            ).scalarInt64()
            guard let id else { throw StoreError.corruptValue("worker insert returned no id") }
            return WorkerID(id)
        }
    }

    /// Records that `worker` is alive at `now`, and what it sees (`view`, kept as it was when nil). False when its
    /// row is gone: another worker found its heartbeat stale and took its leases over, so it must drop what it
    /// claimed and register again.
    public func heartbeat(_ worker: WorkerID, view: WorkerView? = nil, now: Date = Date()) throws(StoreError) -> Bool {
        try write { db in
            try db.query(
                """
                UPDATE workers SET heartbeat_at = GREATEST(heartbeat_at, $2), view = COALESCE($3::text, view)
                WHERE id = $1
                """, worker.rawValue, now.storeMilliseconds, view?.json
            ).changes > 0
        }
    }

    /// Takes over the leases of every worker but `except` whose last heartbeat is older than `staleAfter` at
    /// `now`: their pending deliveries become due at `now` (attempts unchanged) and their rows are removed.
    /// Also frees leases whose owner has no row, finishes cancels left half done (`campaign cancel` killed
    /// between its two steps) once they are older than `staleAfter`, and completes campaigns whose completion
    /// check was lost (it runs after a record's commit, in its own transaction).
    @discardableResult
    public func rescueStaleWorkers(now: Date = Date(), staleAfter: Duration, except: WorkerID? = nil) throws(StoreError)
        -> RescueReport
    {
        let nowMS = now.storeMilliseconds
        let staleBefore = Takeover(staleAfter: staleAfter).staleBefore(now: nowMS)
        let report = try write { db in
            var report = RescueReport()
            // Deleting the row first decides between two rescuers (the second finds it gone) and against a
            // heartbeat (which finds it gone, or refreshes it first and then it is not stale any more).
            let stale = try db.query(
                """
                DELETE FROM workers WHERE heartbeat_at < $1 AND id IS DISTINCT FROM $2::bigint RETURNING id
                """, staleBefore, except?.rawValue
            ).eachRow { rows, row in try rows.int64(row, 0) }.sorted()
            report.workers = stale.map { WorkerID($0) }
            if !stale.isEmpty { report.deliveries += try Self.releaseLeases(db, of: stale, now: nowMS) }
            report.deliveries += try db.query(
                """
                UPDATE deliveries SET leased_by = NULL, leased_until = NULL,
                    next_attempt_at = CASE WHEN status = 'pending' THEN \(PGQueue.dueUnlessPaused("$1")) ELSE next_attempt_at END,
                    due_at = \(PGQueue.keptUnlessPaused())
                WHERE leased_by IS NOT NULL AND NOT EXISTS (SELECT 1 FROM workers w WHERE w.id = deliveries.leased_by)
                """, nowMS
            ).changes
            let halfDone = try db.query(
                """
                SELECT seq, campaign_id FROM cancel_requests WHERE done_at IS NULL AND requested_at < $1
                ORDER BY seq FOR UPDATE SKIP LOCKED
                """, staleBefore
            ).eachRow { rows, row in
                CancelRequest(seq: try rows.int64(row, 0), campaign: CampaignID(try rows.int64(row, 1)))
            }
            for request in halfDone {
                _ = try Self.finishCancel(db, request.campaign, seq: request.seq, now: nowMS)
                report.cancelsFinished += 1
            }
            if report.deliveries > 0 { try Self.notifyWorkers(db) }
            return report
        }
        // A completion check lost with its connection (after a record committed) is made up for here; when this
        // one fails too, the next pass does it.
        _ = try? completeAfterCommit(nil, now: nowMS)
        return report
    }

    /// Takes over the leases of `workers`, whose processes are gone: their pending deliveries become due at `now`
    /// (attempts unchanged) and their rows are removed. Deleting the rows first decides between two rescuers; a
    /// worker whose row is already gone is left out of the report.
    @discardableResult
    public func takeOver(_ workers: [WorkerID], now: Date = Date()) throws(StoreError) -> RescueReport {
        guard !workers.isEmpty else { return RescueReport() }
        return try write { db in
            var report = RescueReport()
            let gone = try db.query(
                "DELETE FROM workers WHERE id = ANY($1) RETURNING id", [.ints(workers.map(\.rawValue))]
            ).eachRow { rows, row in try rows.int64(row, 0) }.sorted()
            report.workers = gone.map { WorkerID($0) }
            guard !gone.isEmpty else { return report }
            report.deliveries = try Self.releaseLeases(db, of: gone, now: now.storeMilliseconds)
            if report.deliveries > 0 { try Self.notifyWorkers(db) }
            return report
        }
    }

    /// Ends `worker`: every lease it still holds is released (due at `now`, attempts unchanged) and its row
    /// removed. Returns how many deliveries were released.
    @discardableResult
    public func unregisterWorker(_ worker: WorkerID, now: Date = Date()) throws(StoreError) -> Int {
        try write { db in
            let released = try db.query(
                """
                UPDATE deliveries SET leased_by = NULL, leased_until = NULL,
                    next_attempt_at = CASE WHEN status = 'pending' THEN \(PGQueue.dueUnlessPaused("$2")) ELSE next_attempt_at END,
                    due_at = \(PGQueue.keptUnlessPaused())
                WHERE leased_by = $1
                """, worker.rawValue, now.storeMilliseconds
            ).changes
            try db.query("DELETE FROM workers WHERE id = $1", worker.rawValue)
            try db.query("DELETE FROM cancel_acks WHERE worker_id = $1", worker.rawValue)
            if released > 0 { try Self.notifyWorkers(db) }
            return released
        }
    }

    /// Releases `deliveries` that `worker` claimed and did not send: due again at `now`, attempts unchanged.
    /// Deliveries it no longer holds are left alone. Returns how many were released.
    @discardableResult
    public func release(_ deliveries: [DeliveryID], by worker: WorkerID, now: Date = Date()) throws(StoreError) -> Int {
        guard !deliveries.isEmpty else { return 0 }
        return try write { db in
            let released = try db.query(
                """
                UPDATE deliveries SET leased_by = NULL, leased_until = NULL, next_attempt_at = \(PGQueue.dueUnlessPaused("$3")),
                    due_at = \(PGQueue.keptUnlessPaused())
                WHERE id = ANY($1) AND leased_by = $2 AND status = 'pending'
                """, [.ints(deliveries.map(\.rawValue)), .int(worker.rawValue), .int(now.storeMilliseconds)]
            ).changes
            if released > 0 { try Self.notifyWorkers(db) }
            return released
        }
    }

    /// A write that changes nothing (no worker has id 0), in a write transaction as every write: throws when this
    /// connection cannot write now (a read-only server or transaction refuses the statement itself).
    public func probeWrite() throws(StoreError) {
        try write { db in _ = try db.query("UPDATE workers SET heartbeat_at = heartbeat_at WHERE id = 0") }
    }

    /// The registered workers, oldest first, with the leases each holds.
    public func workers() throws(StoreError) -> [WorkerRecord] {
        try read { db in
            try db.query(
                """
                SELECT w.id, w.host, w.pid, w.started_at, w.heartbeat_at,
                       (SELECT COUNT(*) FROM deliveries d WHERE d.leased_by = w.id),
                       w.boot_id, w.pid_namespace, w.process_start, w.view
                FROM workers w ORDER BY w.id
                """
            ).eachRow { rows, row in
                let process = ProcessIdentity(
                    host: try rows.string(row, 1), pid: try rows.int(row, 2), bootID: try rows.optionalString(row, 6),
                    pidNamespace: try rows.optionalInt64(row, 7), startTime: try rows.optionalInt64(row, 8))
                return WorkerRecord(
                    id: WorkerID(try rows.int64(row, 0)), process: process,
                    startedAt: Milliseconds.date(try rows.int64(row, 3)),
                    heartbeatAt: Milliseconds.date(try rows.int64(row, 4)),
                    leases: try rows.int(row, 5),
                    view: try rows.optionalString(row, 9).flatMap(WorkerView.init(json:)))
            }
        }
    }

    /// Releases every lease of `workers` (rows already removed): their pending deliveries are due at `now` (ms),
    /// attempts unchanged, and their cancel acknowledgements go. Returns how many deliveries were released.
    static func releaseLeases(_ db: PGConnection, of workers: [Int64], now: Int64) throws -> Int {
        let released = try db.query(
            """
            UPDATE deliveries SET leased_by = NULL, leased_until = NULL,
                next_attempt_at = CASE WHEN status = 'pending' THEN \(PGQueue.dueUnlessPaused("$2")) ELSE next_attempt_at END,
                due_at = \(PGQueue.keptUnlessPaused())
            WHERE leased_by = ANY($1)
            """, [.ints(workers), .int(now)]
        ).changes
        try db.query("DELETE FROM cancel_acks WHERE worker_id = ANY($1)", [.ints(workers)])
        return released
    }
}

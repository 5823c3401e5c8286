import Foundation
import QueueModel
import QueueRules

/// Workers and their leases. The rules (SCHEMA.md, "Workers and leases") are engine-neutral: a worker
/// registers and heartbeats; a lease names its owner and lasts while the owner's heartbeat is fresh; a worker
/// takes over only the leases of workers whose heartbeat is older than the lease duration, or whose process it
/// saw gone (`takeOver`).
extension Store {
    /// Registers `process` as a worker at `now` and returns its id. Cancel requests made before it started are not
    /// acknowledged by it; those still in progress are in `openCancelRequests()`.
    public func registerWorker(_ process: ProcessIdentity, now: Date = Date()) throws(StoreError) -> WorkerID {
        let nowMS = now.storeMilliseconds
        return try write { db in
            let seen = try db.cached("SELECT COALESCE(MAX(seq), 0) FROM cancel_requests").scalarInt64() ?? 0
            try db.cached(
                """
                INSERT INTO workers (host, pid, started_at, heartbeat_at, cancel_seen, boot_id, pid_namespace,
                                     process_start)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """
            ).bind(
                process.host, process.pid, nowMS, nowMS, seen, process.bootID, process.pidNamespace, process.startTime
            ).run()
            return WorkerID(db.lastInsertRowID)
        }
    }

    /// Records that `worker` is alive at `now`, and what it sees (`view`, kept as it was when nil). False when its
    /// row is gone: another worker found its heartbeat stale and took its leases over, so it must drop what it
    /// claimed and register again.
    public func heartbeat(_ worker: WorkerID, view: WorkerView? = nil, now: Date = Date()) throws(StoreError) -> Bool {
        try write { db in
            try db.cached(
                "UPDATE workers SET heartbeat_at = MAX(heartbeat_at, ?2), view = COALESCE(?3, view) WHERE id = ?1"
            ).bind(worker.rawValue, now.storeMilliseconds, view?.json).run()
            return db.changes > 0
        }
    }

    /// Takes over the leases of every worker but `except` whose last heartbeat is older than `staleAfter` at
    /// `now`: their pending deliveries become due at `now` (attempts unchanged) and their rows are removed.
    /// Also frees leases whose owner has no row, and finishes cancels left half done (`campaign cancel`
    /// killed between its two steps) once they are older than `staleAfter`.
    @discardableResult
    public func rescueStaleWorkers(now: Date = Date(), staleAfter: Duration, except: WorkerID? = nil) throws(StoreError)
        -> RescueReport
    {
        let nowMS = now.storeMilliseconds
        let staleBefore = Takeover(staleAfter: staleAfter).staleBefore(now: nowMS)
        return try write { db in
            var report = RescueReport()
            let stale = try db.cached("SELECT id FROM workers WHERE heartbeat_at < ?1 AND id IS NOT ?2")
            try stale.bind(staleBefore, except?.rawValue)
            while try stale.step() { report.workers.append(WorkerID(stale.int64(0))) }
            stale.reset()
            let free = try db.cached(
                """
                UPDATE deliveries SET leased_by = NULL, leased_until = NULL,
                    next_attempt_at = CASE WHEN status = 'pending' THEN \(Self.dueUnlessPaused("?2")) ELSE next_attempt_at END,
                    due_at = \(Self.keptUnlessPaused)
                WHERE leased_by = ?1
                """)
            for worker in report.workers {
                try free.bind(worker.rawValue, nowMS).run()
                report.deliveries += db.changes
                try db.cached("DELETE FROM workers WHERE id = ?").bind(worker.rawValue).run()
                try db.cached("DELETE FROM cancel_acks WHERE worker_id = ?").bind(worker.rawValue).run()
            }
            try db.cached(
                """
                UPDATE deliveries SET leased_by = NULL, leased_until = NULL,
                    next_attempt_at = CASE WHEN status = 'pending' THEN \(Self.dueUnlessPaused("?1")) ELSE next_attempt_at END,
                    due_at = \(Self.keptUnlessPaused)
                WHERE leased_by IS NOT NULL AND leased_by NOT IN (SELECT id FROM workers)
                """
            ).bind(nowMS).run()
            report.deliveries += db.changes
            let halfDone = try db.cached(
                "SELECT seq, campaign_id FROM cancel_requests WHERE done_at IS NULL AND requested_at < ?")
            try halfDone.bind(staleBefore)
            var requests: [CancelRequest] = []
            while try halfDone.step() {
                requests.append(CancelRequest(seq: halfDone.int64(0), campaign: CampaignID(halfDone.int64(1))))
            }
            halfDone.reset()
            for request in requests {
                _ = try Self.finishCancel(db, request.campaign, seq: request.seq, now: nowMS)
                report.cancelsFinished += 1
            }
            return report
        }
    }

    /// Takes over the leases of `workers`, whose processes are gone: their pending deliveries become due at `now`
    /// (attempts unchanged) and their rows are removed. A worker whose row is already gone is left out of the report.
    @discardableResult
    public func takeOver(_ workers: [WorkerID], now: Date = Date()) throws(StoreError) -> RescueReport {
        try write { db in
            var report = RescueReport()
            for worker in workers {
                try db.cached("DELETE FROM workers WHERE id = ?").bind(worker.rawValue).run()
                guard db.changes > 0 else { continue }
                report.workers.append(worker)
                report.deliveries += try Self.releaseLeases(db, of: worker, now: now)
            }
            return report
        }
    }

    /// Ends `worker`: every lease it still holds is released (due at `now`, attempts unchanged) and its row
    /// removed. Returns how many deliveries were released.
    @discardableResult
    public func unregisterWorker(_ worker: WorkerID, now: Date = Date()) throws(StoreError) -> Int {
        try write { db in
            let released = try Self.releaseLeases(db, of: worker, now: now)
            try db.cached("DELETE FROM workers WHERE id = ?").bind(worker.rawValue).run()
            return released
        }
    }

    /// Releases `deliveries` that `worker` claimed and did not send: due again at `now`, attempts unchanged.
    /// Deliveries it no longer holds are left alone. Returns how many were released.
    @discardableResult
    public func release(_ deliveries: [DeliveryID], by worker: WorkerID, now: Date = Date()) throws(StoreError) -> Int {
        guard !deliveries.isEmpty else { return 0 }
        let ids = "[" + deliveries.map { String($0.rawValue) }.joined(separator: ",") + "]"
        return try write { db in
            try db.cached(
                """
                UPDATE deliveries SET leased_by = NULL, leased_until = NULL, next_attempt_at = \(Self.dueUnlessPaused("?3")),
                    due_at = \(Self.keptUnlessPaused)
                WHERE id IN (SELECT value FROM json_each(?1)) AND leased_by = ?2 AND status = 'pending'
                """
            ).bind(ids, worker.rawValue, now.storeMilliseconds).run()
            return db.changes
        }
    }

    /// A write that SQLite must commit to the file: `PRAGMA user_version`, which apnsd uses for nothing else (the
    /// schema's version is `schema_migrations`), counts the probes. Throws when this connection cannot write now (a
    /// full disk, a file that refuses writes). A write that changed nothing would commit without touching the file
    /// and see neither.
    public func probeWrite() throws(StoreError) {
        try write { db in
            let probes = try db.cached("PRAGMA user_version").scalarInt64() ?? 0
            try db.execute("PRAGMA user_version = \((probes + 1) % 1_000_000_000)")
        }
    }

    /// The registered workers, oldest first, with the leases each holds.
    public func workers() throws(StoreError) -> [WorkerRecord] {
        try read { db in
            let statement = try db.cached(
                """
                SELECT w.id, w.host, w.pid, w.started_at, w.heartbeat_at,
                       (SELECT count(*) FROM deliveries d WHERE d.leased_by = w.id),
                       w.boot_id, w.pid_namespace, w.process_start, w.view
                FROM workers w ORDER BY w.id
                """
            ).bind()
            defer { statement.reset() }
            var workers: [WorkerRecord] = []
            while try statement.step() {
                let process = ProcessIdentity(
                    host: statement.string(1), pid: statement.int(2), bootID: statement.optionalString(6),
                    pidNamespace: statement.optionalInt64(7), startTime: statement.optionalInt64(8))
                workers.append(
                    WorkerRecord(
                        id: WorkerID(statement.int64(0)), process: process,
                        startedAt: Milliseconds.date(statement.int64(3)),
                        heartbeatAt: Milliseconds.date(statement.int64(4)), leases: statement.int(5),
                        view: statement.optionalString(9).flatMap(WorkerView.init(json:))))
            }
            return workers
        }
    }

    /// Releases every lease of `worker`: its pending deliveries are due at `now` (attempts unchanged), its cancel
    /// acknowledgements go. Returns how many deliveries were released.
    static func releaseLeases(_ db: Connection, of worker: WorkerID, now: Date) throws -> Int {
        try db.cached(
            """
            UPDATE deliveries SET leased_by = NULL, leased_until = NULL,
                next_attempt_at = CASE WHEN status = 'pending' THEN \(dueUnlessPaused("?2")) ELSE next_attempt_at END,
                due_at = \(keptUnlessPaused)
            WHERE leased_by = ?1
            """
        ).bind(worker.rawValue, now.storeMilliseconds).run()
        let released = db.changes
        try db.cached("DELETE FROM cancel_acks WHERE worker_id = ?").bind(worker.rawValue).run()
        return released
    }
}

import APNs
import Foundation
import QueueModel
import QueueRules

extension PostgresStore {
    /// Claims up to `limit` due deliveries: single sends first, then bulk work, each by next attempt time (a
    /// campaign's scheduled time for fresh rows) and id. One statement per batch selects the rows `FOR NO KEY UPDATE
    /// SKIP LOCKED` and leases them, so workers on many hosts never claim the same row and never wait for each other.
    ///
    /// With a `worker`, the lease is that worker's (`leased_by`): the row is not due again until the worker
    /// records or releases it, or its heartbeat goes stale and another worker takes it over
    /// (`rescueStaleWorkers`); `leased_until` (now + `leaseFor`) is informational. Without one (tests, tools)
    /// the lease simply expires at now + `leaseFor`. A delivery whose registered device became inactive since
    /// expansion is not returned: it becomes `cancelled` with reason `DeviceInactive`.
    ///
    /// A read first finds whether anything is due: a claim that finds nothing opens no write transaction, so it
    /// fires no `commits` (which would wake this worker to claim again at once).
    public func claim(now: Date = Date(), limit: Int, leaseFor lease: Duration, worker: WorkerID? = nil)
        throws(StoreError) -> [DeliveryJob]
    {
        try releaseUnresolvedClaims(now: now)
        guard limit > 0, try anythingDue(now: now, bulk: true) else { return [] }
        return try claim(now: now, limit: limit, leaseFor: lease, worker: worker, bulk: true)
    }

    /// Claims due single sends only, after a read that finds whether there are any (no write transaction when not).
    public func claimSingles(now: Date = Date(), limit: Int, leaseFor lease: Duration, worker: WorkerID? = nil)
        throws(StoreError) -> [DeliveryJob]
    {
        try releaseUnresolvedClaims(now: now)
        guard limit > 0, try anythingDue(now: now, bulk: false) else { return [] }
        return try claim(now: now, limit: limit, leaseFor: lease, worker: worker, bulk: false)
    }

    /// A claim that failed with the connection lost may still have committed (the server crashed or was stopped
    /// after COMMIT, before its answer arrived): its rows would stay leased to a live worker that never got them,
    /// stuck until that worker stops. Each such claim is remembered by its worker and lease end (unique per claim)
    /// and its rows are released here, before the next claim, once the database answers again.
    func releaseUnresolvedClaims(now: Date) throws(StoreError) {
        guard !unresolvedClaims.isEmpty else { return }
        let unresolved = unresolvedClaims
        try write { db in
            for claim in unresolved {
                let released = try db.query(
                    """
                    UPDATE deliveries SET next_attempt_at = \(PGQueue.dueUnlessPaused("$3")), leased_until = NULL, leased_by = NULL,
                        due_at = \(PGQueue.keptUnlessPaused())
                    WHERE leased_by = $1 AND leased_until = $2 AND status = 'pending'
                    """, claim.worker, claim.leasedUntil, now.storeMilliseconds
                ).changes
                if released > 0 { try Self.notifyWorkers(db) }
            }
        }
        unresolvedClaims.removeAll()
    }

    /// Whether a single send (or, with `bulk`, any delivery) is due at `now`: two probes of the due index.
    private func anythingDue(now: Date, bulk: Bool) throws(StoreError) -> Bool {
        try read { db in
            try db.query(
                """
                SELECT EXISTS (SELECT 1 FROM deliveries WHERE status = 'pending' AND priority_class = 0 AND next_attempt_at <= $1)
                    OR ($2 AND EXISTS (SELECT 1 FROM deliveries WHERE status = 'pending' AND priority_class = 1 AND next_attempt_at <= $1))
                """, now.storeMilliseconds, bulk
            ).bool(0, 0)
        }
    }

    /// Releases every lease, whoever holds it: deliveries become due at `now`. For tests and tools only: a
    /// worker releases its own (`release`, `unregisterWorker`) and takes over only stale workers' leases.
    /// Returns how many were released. These may be sent a second time (at-least-once).
    @discardableResult
    public func releaseLeases(now: Date = Date()) throws(StoreError) -> Int {
        try write { db in
            let released = try db.query(
                """
                UPDATE deliveries SET next_attempt_at = \(PGQueue.dueUnlessPaused("$1")), leased_until = NULL, leased_by = NULL,
                    due_at = \(PGQueue.keptUnlessPaused())
                WHERE status = 'pending' AND (leased_until IS NOT NULL OR leased_by IS NOT NULL)
                """, now.storeMilliseconds
            ).changes
            if released > 0 { try Self.notifyWorkers(db) }
            return released
        }
    }

    /// The earliest time at which something becomes due: a pending delivery (a retry, or a lease without owner
    /// that expires) or a campaign to expand; deliveries leased by a worker and parked ones are not due. nil when
    /// there is nothing to do at all.
    public func nextDueDate() throws(StoreError) -> Date? {
        try read { db in
            try db.query(
                """
                SELECT LEAST(
                    (SELECT MIN(next_attempt_at) FROM deliveries
                     WHERE status = 'pending' AND priority_class = 0 AND next_attempt_at < $1),
                    (SELECT MIN(next_attempt_at) FROM deliveries
                     WHERE status = 'pending' AND priority_class = 1 AND next_attempt_at < $1),
                    (SELECT MIN(scheduled_at) FROM campaigns
                     WHERE NOT expanded AND status IN ('scheduled', 'running') AND NOT paused))
                """, Lease.pausedUntilResumed
            ).scalarInt64().map(Milliseconds.date)
        }
    }

    // MARK: - Internals

    private func claim(now: Date, limit: Int, leaseFor lease: Duration, worker: WorkerID?, bulk: Bool)
        throws(StoreError) -> [DeliveryJob]
    {
        guard limit > 0 else { return [] }
        let nowMS = now.storeMilliseconds
        let granted = Lease(now: nowMS, duration: lease, worker: worker)
        var skippedPerCampaign: [Int64: Int] = [:]
        let jobs: [DeliveryJob]
        do {
            jobs = try claimBatch(
                nowMS: nowMS, limit: limit, lease: granted, worker: worker, bulk: bulk,
                skippedPerCampaign: &skippedPerCampaign)
        } catch {
            if case .unavailable = error, let worker { unresolvedClaims.append((worker.rawValue, granted.until)) }
            throw error
        }
        // The claim is committed: its jobs must reach the worker even if this check fails (a rescue pass makes up for it).
        if !skippedPerCampaign.isEmpty { _ = try? completeAfterCommit(Array(skippedPerCampaign.keys), now: nowMS) }
        return jobs
    }

    private func claimBatch(
        nowMS: Int64, limit: Int, lease: Lease, worker: WorkerID?, bulk: Bool,
        skippedPerCampaign: inout [Int64: Int]
    ) throws(StoreError) -> [DeliveryJob] {
        var skipped: [Int64: Int] = [:]
        defer { skippedPerCampaign = skipped }
        return try write { db in
            skipped = [:]  // the body runs again when the transaction is retried
            var rows: [BatchRow] = []
            var claimed = 0
            while claimed < limit {
                let wanted = limit - claimed
                let batch = try db.query(
                    Self.claimSQL,
                    [
                        .int(nowMS), .int(Int64(wanted)), .bool(bulk), .int(lease.until),
                        worker.map { .int($0.rawValue) } ?? .null, .int(lease.dueAgain),
                    ]
                )
                .eachRow { rows, row in try BatchRow(rows, row) }
                rows += batch
                claimed += batch.filter { !$0.row.deviceInactive }.count
                // A full batch that skipped rows of inactive devices leaves room for more; a short one found all.
                if batch.count < wanted { break }
            }
            rows.sort { ($0.priorityClass, $0.dueAt, $0.row.id) < ($1.priorityClass, $1.dueAt, $1.row.id) }
            for batchRow in rows where batchRow.row.deviceInactive { skipped[batchRow.row.campaign, default: 0] += 1 }
            var parameters: [Int64: SendingParameters] = [:]
            for batchRow in rows {
                if let sending = batchRow.parameters { parameters[batchRow.row.campaign] = sending }
            }
            if !skipped.isEmpty {
                try PGQueue.addCounts(db, skipped.mapValues(Recipient.skippedCounts), shard: PGQueue.shard(worker))
            }
            return try rows.map(\.row).filter { !$0.deviceInactive }.map { row in
                guard let sending = parameters[row.campaign] else {
                    throw StoreError.unknownCampaign(CampaignID(row.campaign))
                }
                return try row.job(sending, leasedUntil: lease.until)
            }
        }
    }

    /// One batch of a claim, in one statement: $1 now, $2 at most this many rows, $3 whether bulk rows too,
    /// $4 leased_until, $5 the worker (NULL: none), $6 the new next_attempt_at (`heldByOwner` for a worker, else the
    /// lease's end). Single sends go first: bulk rows fill what they leave of $2. Each row is locked `FOR NO KEY
    /// UPDATE SKIP LOCKED` and read as locked (the latest version), then leased — or, when its registered device
    /// became inactive (or was deleted), cancelled; a leased row keeps when it became due in `due_at`. Returns the
    /// rows as they were before (their due time, their last update for the delay a retry waited, when they became
    /// due), in no particular order, with their campaign's sending parameters on the first row of each campaign
    /// (NULL on the others: a payload is sent once per batch, not once per row).
    ///
    /// The claimed campaigns still `scheduled` start; a campaign row locked by its expansion (which starts it), a
    /// cancel or a completion is skipped, so a claim holding delivery rows never waits for one (a cancel waits for
    /// those rows). `id = ANY(ARRAY(…))` keeps the rows reached through the primary key whatever the planner
    /// guesses of the batch's size (a merge join would read the key from its start).
    static let claimSQL = """
        WITH singles AS (
            SELECT id, campaign_id, token, environment, attempts, device_id, priority_class, next_attempt_at, updated_at, created_at,
                   channel_id, due_at
            FROM deliveries WHERE status = 'pending' AND priority_class = 0 AND next_attempt_at <= $1
            ORDER BY next_attempt_at, id LIMIT $2 FOR NO KEY UPDATE SKIP LOCKED),
        bulk AS (
            SELECT id, campaign_id, token, environment, attempts, device_id, priority_class, next_attempt_at, updated_at, created_at,
                   channel_id, due_at
            FROM deliveries WHERE $3 AND status = 'pending' AND priority_class = 1 AND next_attempt_at <= $1
            ORDER BY next_attempt_at, id LIMIT GREATEST($2 - (SELECT COUNT(*) FROM singles), 0) FOR NO KEY UPDATE SKIP LOCKED),
        picked AS (
            SELECT p.*, p.device_id IS NOT NULL AND COALESCE(dv.active, false) = false AS inactive, dv.registered_at,
                   row_number() OVER (PARTITION BY p.campaign_id) = 1 AS first
            FROM (SELECT * FROM singles UNION ALL SELECT * FROM bulk) p LEFT JOIN devices dv ON dv.id = p.device_id),
        started AS (
            UPDATE campaigns SET status = 'running', started_at = COALESCE(started_at, $1)
            WHERE id IN (SELECT id FROM campaigns WHERE id IN (SELECT campaign_id FROM picked WHERE NOT inactive)
                         AND status = 'scheduled' FOR NO KEY UPDATE SKIP LOCKED))
        UPDATE deliveries d SET
            status = CASE WHEN p.inactive THEN '\(Recipient.skipped.status.rawValue)' ELSE d.status END,
            reason = CASE WHEN p.inactive THEN '\(Recipient.skipped.reason.rawValue)' ELSE d.reason END,
            leased_until = CASE WHEN p.inactive THEN NULL ELSE $4 END,
            leased_by = CASE WHEN p.inactive THEN d.leased_by ELSE $5::bigint END,
            next_attempt_at = CASE WHEN p.inactive THEN d.next_attempt_at ELSE $6 END,
            due_at = CASE WHEN p.inactive THEN d.due_at ELSE COALESCE(p.due_at, p.next_attempt_at) END,
            updated_at = CASE WHEN p.inactive THEN $1 ELSE d.updated_at END
        FROM picked p JOIN campaigns c ON c.id = p.campaign_id
        WHERE d.id = p.id AND d.id = ANY(ARRAY(SELECT id FROM picked))
        RETURNING p.id, p.campaign_id, p.token, p.environment, p.attempts, p.inactive, p.registered_at, p.created_at,
            CASE WHEN p.attempts > 0 THEN p.next_attempt_at - p.updated_at END, p.priority_class, p.next_attempt_at, p.first,
            CASE WHEN p.first THEN c.kind END, CASE WHEN p.first THEN c.topic END, CASE WHEN p.first THEN c.push_type END,
            CASE WHEN p.first THEN c.priority END, CASE WHEN p.first THEN c.expiration END,
            CASE WHEN p.first THEN c.collapse_id END, CASE WHEN p.first THEN c.payload END, CASE WHEN p.first THEN c.apns_id END,
            p.channel_id, COALESCE(p.due_at, p.next_attempt_at)
        """

    /// A row of a claim batch: the shared row, its order, and its campaign's parameters on the first row of each
    /// campaign in the batch (a payload is read once per batch, not once per row).
    private struct BatchRow {
        var row: ClaimedRow
        var priorityClass: Int64
        var dueAt: Int64
        var parameters: SendingParameters?

        init(_ rows: PGResult, _ index: Int) throws {
            row = ClaimedRow(
                id: try rows.int64(index, 0), campaign: try rows.int64(index, 1), token: try rows.string(index, 2),
                environment: try rows.string(index, 3), attempts: try rows.int(index, 4),
                deviceInactive: try rows.bool(index, 5), registeredAt: try rows.optionalInt64(index, 6),
                createdAt: try rows.int64(index, 7), previousDelay: try rows.optionalInt64(index, 8),
                channel: try rows.optionalInt64(index, 20), dueAt: try rows.int64(index, 21))
            priorityClass = try rows.int64(index, 9)
            dueAt = try rows.int64(index, 10)
            parameters = try rows.bool(index, 11) ? SendingParameters(rows, index, from: 12) : nil
        }
    }
}

extension SendingParameters {
    /// From the columns kind, topic, push_type, priority, expiration, collapse_id, payload, apns_id at `first`.
    fileprivate init(_ rows: PGResult, _ row: Int, from first: Int) throws {
        self.init(
            kind: try Decode.campaignKind(rows.string(row, first)),
            content: try Decode.content(
                bundleID: rows.string(row, first + 1), pushType: rows.string(row, first + 2),
                priority: rows.int(row, first + 3), expiration: rows.optionalInt64(row, first + 4),
                collapseID: rows.optionalString(row, first + 5), apnsID: rows.optionalString(row, first + 7),
                payload: rows.data(row, first + 6)))
    }
}

import APNs
import Foundation
import QueueModel
import QueueRules

extension Store {
    /// Claims up to `limit` due deliveries: single sends first, then bulk work, each by next attempt time (a
    /// campaign's scheduled time for fresh rows) and id. One transaction (`BEGIN IMMEDIATE`), so workers
    /// sharing the file never claim the same row.
    ///
    /// With a `worker`, the lease is that worker's (`leased_by`): the row is not due again until the worker
    /// records or releases it, or its heartbeat goes stale and another worker takes it over
    /// (`rescueStaleWorkers`); `leased_until` (now + `leaseFor`) is informational. Without one (tests, tools)
    /// the lease simply expires at now + `leaseFor`. A delivery whose registered device became inactive since
    /// expansion is not returned: it becomes `cancelled` with reason `DeviceInactive`.
    public func claim(now: Date = Date(), limit: Int, leaseFor lease: Duration, worker: WorkerID? = nil)
        throws(StoreError) -> [DeliveryJob]
    {
        try claim(
            now: now, limit: limit, leaseFor: lease, worker: worker,
            classes: [CampaignKind.single.priorityClass, CampaignKind.bulk.priorityClass])
    }

    /// Claims due single sends only, after a read that finds whether there are any (no write transaction when not).
    public func claimSingles(now: Date = Date(), limit: Int, leaseFor lease: Duration, worker: WorkerID? = nil)
        throws(StoreError) -> [DeliveryJob]
    {
        let single = CampaignKind.single.priorityClass
        let (due, deferred) = try read { db in
            (
                try db.cached(
                    """
                    SELECT EXISTS (SELECT 1 FROM deliveries WHERE status = 'pending' AND leased_by IS NULL AND priority_class = ?1 AND next_attempt_at <= ?2)
                    """
                ).bind(single, now.storeMilliseconds).scalarInt64() ?? 0, try Self.hasDeferredBatches(db)
            )
        }
        // A deferred batch's notifications are single sends too: the next of them become claimable first.
        if deferred { _ = try expandDeferredBatch(limit: limit) }
        guard due != 0 || deferred else { return [] }
        return try claim(now: now, limit: limit, leaseFor: lease, worker: worker, classes: [single])
    }

    private func claim(now: Date, limit: Int, leaseFor lease: Duration, worker: WorkerID?, classes: [Int])
        throws(StoreError) -> [DeliveryJob]
    {
        guard limit > 0 else { return [] }
        let nowMS = now.storeMilliseconds
        let granted = Lease(now: nowMS, duration: lease, worker: worker)
        return try write { db in
            let select = try db.cached(Self.claimQuery)
            // One statement leases a whole batch: the ids go in as a JSON array.
            let leaseRows = try db.cached(
                """
                UPDATE deliveries SET due_at = COALESCE(due_at, next_attempt_at), next_attempt_at = ?3, leased_until = ?1,
                    leased_by = ?4
                WHERE id IN (SELECT value FROM json_each(?2))
                """)
            let skipRow = try db.cached(
                """
                UPDATE deliveries SET status = '\(Recipient.skipped.status.rawValue)', reason = '\(Recipient.skipped.reason.rawValue)', leased_until = NULL, updated_at = ?2
                WHERE id = ?1
                """)
            var jobs: [DeliveryJob] = []
            // Each campaign's sending parameters are read once per claim, not once per row.
            var parameters: [Int64: SendingParameters] = [:]
            var skippedPerCampaign: [Int64: Int] = [:]
            var claimedCampaigns = Set<Int64>()
            for priorityClass in classes {
                while jobs.count < limit {
                    let wanted = limit - jobs.count
                    try select.bind(priorityClass, nowMS, wanted)
                    var rows: [ClaimedRow] = []
                    while try select.step() {
                        rows.append(
                            ClaimedRow(
                                id: select.int64(0), campaign: select.int64(1), token: select.string(2),
                                environment: select.string(3), attempts: select.int(4),
                                deviceInactive: select.int64(5) != 0,
                                registeredAt: select.optionalInt64(6), createdAt: select.int64(7),
                                previousDelay: select.optionalInt64(8), channel: select.optionalInt64(9),
                                dueAt: select.int64(10)))
                    }
                    select.reset()
                    var leased = "["
                    for row in rows {
                        if row.deviceInactive {
                            try skipRow.bind(row.id, nowMS).run()
                            skippedPerCampaign[row.campaign, default: 0] += 1
                            continue
                        }
                        if leased.utf8.count > 1 { leased += "," }
                        leased += String(row.id)
                        claimedCampaigns.insert(row.campaign)
                        if parameters[row.campaign] == nil {
                            parameters[row.campaign] = try Self.sendingParameters(db, row.campaign)
                        }
                        jobs.append(try row.job(parameters[row.campaign]!, leasedUntil: granted.until))
                    }
                    if leased.utf8.count > 1 {
                        try leaseRows.bind(granted.until, leased + "]", granted.dueAgain, worker?.rawValue).run()
                    }
                    if rows.count < wanted { break }
                }
            }
            if !skippedPerCampaign.isEmpty {
                try Self.addCounters(db, skippedPerCampaign.mapValues(Recipient.skippedCounts))
                _ = try Self.completeIfDone(db, skippedPerCampaign.keys, now: nowMS)
            }
            let start = try db.cached(
                """
                UPDATE campaigns SET status = 'running', started_at = COALESCE(started_at, ?2)
                WHERE id = ?1 AND status = 'scheduled'
                """)
            for campaign in claimedCampaigns { try start.bind(campaign, nowMS).run() }
            return jobs
        }
    }

    /// Releases every lease, whoever holds it: deliveries become due at `now`. For tests and tools only: a
    /// worker releases its own (`release`, `unregisterWorker`) and takes over only stale or dead workers' leases.
    /// Returns how many were released. These may be sent a second time (at-least-once).
    @discardableResult
    public func releaseLeases(now: Date = Date()) throws(StoreError) -> Int {
        try write { db in
            try db.cached(
                """
                UPDATE deliveries SET next_attempt_at = \(Self.dueUnlessPaused("?1")), due_at = \(Self.keptUnlessPaused),
                    leased_until = NULL, leased_by = NULL
                WHERE status = 'pending' AND (leased_until IS NOT NULL OR leased_by IS NOT NULL)
                """
            ).bind(now.storeMilliseconds).run()
            return db.changes
        }
    }

    /// The earliest time at which something becomes due: a pending delivery (a retry, or a lease without owner
    /// that expires) or a campaign to expand; deliveries leased by a worker are not due. nil when there is
    /// nothing to do at all. The worker sleeps until then (or until
    /// a producer wakes it).
    public func nextDueDate() throws(StoreError) -> Date? {
        try read { db in
            try db.cached(
                """
                SELECT MIN(t) FROM (
                    SELECT MIN(next_attempt_at) AS t FROM deliveries
                    WHERE status = 'pending' AND leased_by IS NULL AND priority_class = 0 AND next_attempt_at < ?1
                    UNION ALL
                    SELECT MIN(next_attempt_at) FROM deliveries
                    WHERE status = 'pending' AND leased_by IS NULL AND priority_class = 1 AND next_attempt_at < ?1
                    UNION ALL
                    SELECT MIN(scheduled_at) FROM campaigns WHERE expanded = 0 AND status IN ('scheduled', 'running') AND paused = 0
                    UNION ALL
                    SELECT MIN(created_at) FROM deferred_batches)
                """
            ).bind(Lease.pausedUntilResumed).scalarInt64().map(Milliseconds.date)
        }
    }

    // MARK: - Internals

    /// Due deliveries of one priority class (?1), due at ?2, at most ?3; with whether the registered device has
    /// become inactive (or was deleted) and its registration time; for a retry, the delay it waited (due time minus
    /// the time its last answer was recorded), for decorrelated jitter; when it became due (`due_at` when it has one).
    static let claimQuery = """
        SELECT d.id, d.campaign_id, d.token, d.environment, d.attempts,
               d.device_id IS NOT NULL AND COALESCE(dv.active, 0) = 0, dv.registered_at, d.created_at,
               IIF(d.attempts > 0, d.next_attempt_at - d.updated_at, NULL), d.channel_id,
               COALESCE(d.due_at, d.next_attempt_at)
        FROM deliveries d LEFT JOIN devices dv ON dv.id = d.device_id
        WHERE d.status = 'pending' AND d.leased_by IS NULL AND d.priority_class = ?1 AND d.next_attempt_at <= ?2
        ORDER BY d.next_attempt_at, d.id LIMIT ?3
        """

    /// A campaign's sending parameters.
    static func sendingParameters(_ db: Connection, _ campaign: Int64) throws -> SendingParameters {
        let statement = try db.cached(
            """
            SELECT kind, topic, push_type, priority, expiration, collapse_id, payload, apns_id FROM campaigns WHERE id = ?
            """
        ).bind(campaign)
        defer { statement.reset() }
        guard try statement.step() else { throw StoreError.unknownCampaign(CampaignID(campaign)) }
        return SendingParameters(
            kind: try Decode.campaignKind(statement.string(0)),
            content: try Decode.content(
                bundleID: statement.string(1), pushType: statement.string(2), priority: statement.int(3),
                expiration: statement.optionalInt64(4), collapseID: statement.optionalString(5),
                apnsID: statement.optionalString(7), payload: statement.blob(6)))
    }
}

import Foundation
import QueueModel
import QueueRules

/// Pausing, resuming and requeueing a campaign: each locks the campaign's row first, so that two of them on one
/// campaign, or one and a page of its expansion, take turns (a pause waits for the page in progress, then parks
/// it too; expansion skips a campaign being paused, then finds it paused). The lock is `FOR NO KEY UPDATE`, as
/// every campaign lock of this store: it must not block workers inserting the campaign's counters and deliveries
/// (their foreign keys take key-share locks). Paused deliveries are parked at `Lease.pausedUntilResumed`, a due
/// time no claim reaches, as on SQLite.
extension PostgresStore {
    /// Requeues the campaign's deliveries in `status` (`failed` or `rejected`): pending again, due at `now` (parked
    /// when the campaign is paused), attempts reset and their history deleted; the campaign runs again until they
    /// are done. Returns how many were requeued.
    public func requeue(_ id: CampaignID, status: DeliveryStatus, now: Date = Date()) throws(StoreError) -> Int {
        guard status == .failed || status == .rejected else {
            throw .invalidCampaign("only failed or rejected deliveries can be requeued, not \(status)")
        }
        let nowMS = now.storeMilliseconds
        return try write { db in
            let campaign = try Self.lockCampaign(db, id)
            guard campaign.status != .cancelled else {
                throw StoreError.invalidCampaign("campaign \(id) was cancelled; create a new one to send again")
            }
            guard campaign.status != .draft else { throw StoreError.notADraft(id, campaign.status) }
            try db.query(
                """
                DELETE FROM delivery_attempts
                WHERE delivery_id IN (SELECT id FROM deliveries WHERE campaign_id = $1 AND status = $2)
                """, id.rawValue, status.rawValue)
            let count = try db.query(
                """
                UPDATE deliveries SET status = 'pending', attempts = 0, next_attempt_at = $3, leased_until = NULL,
                    leased_by = NULL, due_at = NULL, updated_at = $4
                WHERE campaign_id = $1 AND status = $2
                """, id.rawValue, status.rawValue, campaign.paused ? Lease.pausedUntilResumed : nowMS, nowMS
            ).changes
            guard count > 0 else { return 0 }
            let column = status == .failed ? "failed" : "rejected"
            // Shard 0 may go negative in `column`: the other shards hold the outcomes it takes back; sums are right.
            try db.query(
                """
                WITH counted AS (
                    INSERT INTO campaign_counts (campaign_id, shard, kind, pending, \(column))
                    VALUES ($1, 0, $3, $2, -$2)
                    ON CONFLICT (campaign_id, shard) DO UPDATE SET
                        pending = campaign_counts.pending + excluded.pending,
                        \(column) = campaign_counts.\(column) + excluded.\(column)
                )
                UPDATE campaigns SET status = 'running', finished_at = NULL WHERE id = $1
                """, id.rawValue, Int64(count), campaign.kind)
            try Self.notifyWorkers(db)
            return count
        }
    }

    /// Pauses a bulk campaign that has not finished; returns it and how many deliveries were parked (those not
    /// leased: a worker drops and releases what it holds, see `pausedCampaigns`). Pausing a paused campaign
    /// changes nothing.
    public func pauseCampaign(_ id: CampaignID, now: Date = Date()) throws(StoreError) -> (
        campaign: Campaign, parked: Int
    ) {
        try write { db in
            try Self.requirePausable(db, id, "paused")
            try db.query("UPDATE campaigns SET paused = true WHERE id = $1", id.rawValue)
            // A row a worker is claiming is locked: this waits for it, then finds it leased and leaves it.
            let parked = try db.query(
                """
                UPDATE deliveries SET next_attempt_at = $2
                WHERE campaign_id = $1 AND status = 'pending' AND leased_by IS NULL AND leased_until IS NULL
                """, id.rawValue, Lease.pausedUntilResumed
            ).changes
            // Not due while paused, leased or held rows included (the gauge of the oldest due delivery skips them).
            try db.query(
                "UPDATE deliveries SET due_at = NULL WHERE campaign_id = $1 AND status = 'pending' AND due_at IS NOT NULL",
                id.rawValue)
            // The workers poll paused campaigns with cancel requests: wake them as a cancel does.
            try Self.notifyWorkers(db, "cancel")
            return (try Self.fetchCampaign(db, id), parked)
        }
    }

    /// Resumes a paused campaign: its parked deliveries are due at `now`, its expansion goes on.
    public func resumeCampaign(_ id: CampaignID, now: Date = Date()) throws(StoreError) -> (
        campaign: Campaign, resumed: Int
    ) {
        try write { db in
            try Self.requirePausable(db, id, "resumed")
            try db.query("UPDATE campaigns SET paused = false WHERE id = $1", id.rawValue)
            let resumed = try db.query(
                """
                UPDATE deliveries SET next_attempt_at = $2 WHERE campaign_id = $1 AND status = 'pending' AND next_attempt_at = $3
                """, id.rawValue, now.storeMilliseconds, Lease.pausedUntilResumed
            ).changes
            try Self.notifyWorkers(db)
            return (try Self.fetchCampaign(db, id), resumed)
        }
    }

    /// The paused campaigns (a worker drops and releases what it holds of them).
    public func pausedCampaigns() throws(StoreError) -> Set<CampaignID> {
        try read { db in
            let rows = try db.query("SELECT id FROM campaigns WHERE paused")
            return Set(try rows.map { row in CampaignID(try rows.int64(row, 0)) })
        }
    }

    // MARK: - Internals

    /// The campaign's row, locked until the transaction ends; `unknownCampaign` when there is none.
    private static func lockCampaign(_ db: PGConnection, _ id: CampaignID) throws -> (
        status: CampaignStatus, kind: String, paused: Bool
    ) {
        let rows = try db.query(
            "SELECT status, kind, paused FROM campaigns WHERE id = $1 FOR NO KEY UPDATE", id.rawValue)
        guard rows.count > 0 else { throw StoreError.unknownCampaign(id) }
        return (try Decode.campaignStatus(rows.string(0, 0)), try rows.string(0, 1), try rows.bool(0, 2))
    }

    private static func requirePausable(_ db: PGConnection, _ id: CampaignID, _ verb: String) throws {
        _ = try lockCampaign(db, id)
        let campaign = try fetchCampaign(db, id)
        guard campaign.kind == .bulk else {
            throw StoreError.invalidCampaign(
                "\(campaign.id) is a single send: it cannot be \(verb) (cancel it instead)")
        }
        guard !campaign.status.isFinished, campaign.status != .draft else {
            throw StoreError.invalidCampaign("campaign \(campaign.id) is \(campaign.status): it cannot be \(verb)")
        }
    }
}

import Foundation
import QueueModel
import QueueRules

/// Pausing a bulk campaign without losing its place: its unleased pending deliveries are parked at a due time no
/// claim reaches (`pausedUntilResumed`), its expansion stops, and workers drop and release what they hold of it
/// (`pausedCampaigns`, polled with cancels); every write that makes a delivery due again parks it instead while
/// its campaign is paused. Resuming makes the parked deliveries due at once, in their order.
extension Store {
    /// SQL for the due time `value`, or `pausedUntilResumed` when the row's campaign is paused (the subquery runs
    /// once per statement, over the partial index of paused campaigns).
    static func dueUnlessPaused(_ value: String) -> String {
        "IIF(campaign_id IN (SELECT id FROM campaigns WHERE paused = 1), \(Lease.pausedUntilResumed), \(value))"
    }

    /// SQL for `due_at` when a lease ends unsent: kept (the delivery is still due since then), NULL when the row's
    /// campaign is paused (a paused campaign's deliveries are not due).
    static let keptUnlessPaused = "IIF(campaign_id IN (SELECT id FROM campaigns WHERE paused = 1), NULL, due_at)"

    /// Pauses a bulk campaign that has not finished; returns it and how many deliveries were parked. Pausing a
    /// paused campaign changes nothing.
    public func pauseCampaign(_ id: CampaignID, now: Date = Date()) throws(StoreError) -> (
        campaign: Campaign, parked: Int
    ) {
        try write { db in
            let campaign = try Self.fetchCampaign(db, id)
            try Self.requirePausable(campaign, "paused")
            try db.cached("UPDATE campaigns SET paused = 1 WHERE id = ?").bind(id.rawValue).run()
            try db.cached(
                """
                UPDATE deliveries SET next_attempt_at = ?2
                WHERE campaign_id = ?1 AND status = 'pending' AND leased_by IS NULL AND leased_until IS NULL
                """
            ).bind(id.rawValue, Lease.pausedUntilResumed).run()
            let parked = db.changes
            // Not due while paused, leased or held rows included (the gauge of the oldest due delivery skips them).
            try db.cached(
                "UPDATE deliveries SET due_at = NULL WHERE campaign_id = ?1 AND status = 'pending' AND due_at IS NOT NULL"
            ).bind(id.rawValue).run()
            return (try Self.fetchCampaign(db, id), parked)
        }
    }

    /// Resumes a paused campaign: its parked deliveries are due at `now`, its expansion goes on.
    public func resumeCampaign(_ id: CampaignID, now: Date = Date()) throws(StoreError) -> (
        campaign: Campaign, resumed: Int
    ) {
        try write { db in
            let campaign = try Self.fetchCampaign(db, id)
            try Self.requirePausable(campaign, "resumed")
            try db.cached("UPDATE campaigns SET paused = 0 WHERE id = ?").bind(id.rawValue).run()
            try db.cached(
                """
                UPDATE deliveries SET next_attempt_at = ?2 WHERE campaign_id = ?1 AND status = 'pending' AND next_attempt_at = ?3
                """
            ).bind(id.rawValue, now.storeMilliseconds, Lease.pausedUntilResumed).run()
            return (try Self.fetchCampaign(db, id), db.changes)
        }
    }

    /// The paused campaigns (a worker drops and releases what it holds of them).
    public func pausedCampaigns() throws(StoreError) -> Set<CampaignID> {
        try read { db in
            let statement = try db.cached("SELECT id FROM campaigns WHERE paused = 1")
            defer { statement.reset() }
            var ids: Set<CampaignID> = []
            while try statement.step() { ids.insert(CampaignID(statement.int64(0))) }
            return ids
        }
    }

    private static func requirePausable(_ campaign: Campaign, _ verb: String) throws {
        guard campaign.kind == .bulk else {
            throw StoreError.invalidCampaign(
                "\(campaign.id) is a single send: it cannot be \(verb) (cancel it instead)")
        }
        guard !campaign.status.isFinished, campaign.status != .draft else {
            throw StoreError.invalidCampaign("campaign \(campaign.id) is \(campaign.status): it cannot be \(verb)")
        }
    }
}

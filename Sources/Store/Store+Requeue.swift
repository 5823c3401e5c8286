import Foundation
import QueueModel
import QueueRules

extension Store {
    /// Requeues the campaign's deliveries in `status` (`failed` or `rejected`): pending again, due at `now`,
    /// attempts reset (and their history in `delivery_attempts`); the campaign runs again until they are done. Devices deactivated since are skipped at
    /// claim time, as usual. Returns how many were requeued.
    public func requeue(_ id: CampaignID, status: DeliveryStatus, now: Date = Date()) throws(StoreError) -> Int {
        guard status == .failed || status == .rejected else {
            throw .invalidCampaign("only failed or rejected deliveries can be requeued, not \(status)")
        }
        let nowMS = now.storeMilliseconds
        return try write { db in
            let campaign = try Self.fetchCampaign(db, id)
            guard campaign.status != .cancelled else {
                throw StoreError.invalidCampaign("campaign \(id) was cancelled; create a new one to send again")
            }
            guard campaign.status != .draft else { throw StoreError.notADraft(id, campaign.status) }
            // Attempts start again from 0, and so does their history.
            try db.cached(
                """
                DELETE FROM delivery_attempts WHERE delivery_id IN (SELECT id FROM deliveries WHERE campaign_id = ?1 AND status = ?2)
                """
            ).bind(id.rawValue, status.rawValue).run()
            try db.cached(
                """
                UPDATE deliveries SET status = 'pending', attempts = 0, next_attempt_at = \(Self.dueUnlessPaused("?3")), leased_until = NULL,
                    leased_by = NULL, due_at = NULL, updated_at = ?3
                WHERE campaign_id = ?1 AND status = ?2
                """
            ).bind(id.rawValue, status.rawValue, nowMS).run()
            let count = db.changes
            guard count > 0 else { return 0 }
            let column = status == .failed ? "failed" : "rejected"
            try db.cached(
                """
                UPDATE campaigns SET \(column) = \(column) - ?2, pending = pending + ?2, status = 'running', finished_at = NULL
                WHERE id = ?1
                """
            ).bind(id.rawValue, count).run()
            return count
        }
    }
}
